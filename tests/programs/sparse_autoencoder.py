"""A sparse autoencoder for dictionary learning on activations (the 'Towards Monosemanticity'
recipe as open-source SAE repositories write it): a pre-encoder bias b_dec subtracted then added
back, ReLU latents, an L1 sparsity penalty, decoder columns renormalized to unit norm under
torch.no_grad after every step and the gradient component parallel to them removed before
it (remove_gradient_parallel_to_decoder_directions with einsum), geometric-median-free mean
initialization of b_dec, dead-latent tracking with a firing counter, resampling dead latents
from high-loss inputs with torch.multinomial, L0 / explained variance / feature density
histograms, top activating examples with topk."""
import torch
import torch.nn as nn
import torch.nn.functional as F

torch.manual_seed(0)


class SparseAutoencoder(nn.Module):
    def __init__(self, d_in, d_sae, l1_coefficient=3e-3):
        super().__init__()
        self.d_in, self.d_sae, self.l1_coefficient = d_in, d_sae, l1_coefficient
        self.W_enc = nn.Parameter(torch.nn.init.kaiming_uniform_(torch.empty(d_in, d_sae)))
        self.b_enc = nn.Parameter(torch.zeros(d_sae))
        self.W_dec = nn.Parameter(torch.nn.init.kaiming_uniform_(torch.empty(d_sae, d_in)))
        with torch.no_grad():
            self.W_dec.data /= torch.norm(self.W_dec.data, dim=1, keepdim=True)
        self.b_dec = nn.Parameter(torch.zeros(d_in))

    def encode(self, x):
        return F.relu((x - self.b_dec) @ self.W_enc + self.b_enc)

    def decode(self, feature_acts):
        return feature_acts @ self.W_dec + self.b_dec

    def forward(self, x):
        feature_acts = self.encode(x)
        sae_out = self.decode(feature_acts)
        mse_loss = (sae_out - x.float()).pow(2).sum(-1).mean()
        sparsity = feature_acts.norm(p=1, dim=1).mean()
        l1_loss = self.l1_coefficient * sparsity
        return sae_out, feature_acts, mse_loss + l1_loss, mse_loss, l1_loss

    @torch.no_grad()
    def set_decoder_norm_to_unit_norm(self):
        self.W_dec.data /= torch.norm(self.W_dec.data, dim=1, keepdim=True)

    @torch.no_grad()
    def remove_gradient_parallel_to_decoder_directions(self):
        parallel_component = torch.einsum("d_sae d_in, d_sae d_in -> d_sae".replace("d_sae", "s").replace("d_in", "i").replace(" ", ""),
                                          self.W_dec.grad, self.W_dec.data)
        self.W_dec.grad -= torch.einsum("s,si->si", parallel_component, self.W_dec.data)


# synthetic "activations": sparse combinations of ground-truth feature directions
d_in, n_true, d_sae = 16, 24, 48
true_features = F.normalize(torch.randn(n_true, d_in), dim=1)
def sample_activations(n):
    coeff = torch.rand(n, n_true) * (torch.rand(n, n_true) < 0.08)
    return coeff @ true_features + 0.01 * torch.randn(n, d_in)

acts = sample_activations(2048)
print("activations", acts.shape, f"mean norm {acts.norm(dim=1).mean():.4f}")
print("true features unit norm:", torch.allclose(true_features.norm(dim=1), torch.ones(n_true)))

sae = SparseAutoencoder(d_in, d_sae)
with torch.no_grad():
    sae.b_dec.data = acts.mean(0)
print(sae)
print({name: tuple(p.shape) for name, p in sae.named_parameters()})
opt = torch.optim.Adam(sae.parameters(), lr=3e-3, betas=(0.9, 0.999))
scheduler = torch.optim.lr_scheduler.LambdaLR(opt, lambda step: min(1.0, (step + 1) / 20))
act_freq = torch.zeros(d_sae)
n_seen = 0
batch_size = 128
for step in range(120):
    batch = acts[torch.randint(0, len(acts), (batch_size,))]
    sae_out, feature_acts, loss, mse_loss, l1_loss = sae(batch)
    opt.zero_grad()
    loss.backward()
    sae.remove_gradient_parallel_to_decoder_directions()
    opt.step()
    scheduler.step()
    sae.set_decoder_norm_to_unit_norm()
    with torch.no_grad():
        act_freq += (feature_acts > 0).float().sum(0)
        n_seen += batch_size
    if step % 30 == 0:
        l0 = (feature_acts > 0).float().sum(-1).mean()
        per_token_l2_loss = (sae_out - batch).pow(2).sum(dim=-1).squeeze()
        total_variance = (batch - batch.mean(0)).pow(2).sum(-1)
        explained_variance = 1 - per_token_l2_loss / total_variance
        print(f"step {step:3d} | loss {loss.item():.5f} | mse {mse_loss.item():.5f} | l1 {l1_loss.item():.5f} "
              f"| L0 {l0.item():.2f} | explained var {explained_variance.mean().item():.4f} | lr {scheduler.get_last_lr()[0]:.5f}")

print("decoder rows unit norm:", torch.allclose(sae.W_dec.norm(dim=1), torch.ones(d_sae), atol=1e-6))
feature_sparsity = act_freq / n_seen
dead = feature_sparsity == 0
print("dead latents", int(dead.sum()), "of", d_sae)
log_density = torch.log10(feature_sparsity + 1e-10)
hist = torch.histc(log_density, bins=5, min=-10, max=0)
print("density histogram sums to d_sae:", int(hist.sum().item()) == d_sae)


@torch.no_grad()
def resample_dead_neurons(sae, dead_mask, inputs):
    _, _, _, _, _ = sae(inputs)
    per_example = (sae(inputs)[0] - inputs).pow(2).sum(-1)
    probs = per_example ** 2
    n_dead = int(dead_mask.sum())
    if n_dead == 0:
        return 0
    idx = torch.multinomial(probs / probs.sum(), n_dead, replacement=False)
    replacement = F.normalize(inputs[idx] - sae.b_dec, dim=-1)
    sae.W_dec.data[dead_mask] = replacement
    sae.W_enc.data[:, dead_mask] = replacement.T * 0.2
    sae.b_enc.data[dead_mask] = 0.0
    return n_dead

forced_dead = torch.zeros(d_sae, dtype=torch.bool)
forced_dead[:3] = True
print("resampled", resample_dead_neurons(sae, forced_dead, acts[:256]))
print("resampled rows unit norm:", torch.allclose(sae.W_dec[:3].norm(dim=1), torch.ones(3), atol=1e-6))

with torch.no_grad():
    _, feats, loss, mse, l1 = sae(acts[:512])
    top_vals, top_idx = feats[:, 5].topk(3)
    print("top examples of latent 5", top_idx.shape, bool((top_vals[:-1] >= top_vals[1:]).all()))
    cos = F.normalize(sae.W_dec, dim=1) @ true_features.T
    best = cos.max(0).values
    print("max cosine to true features", best.shape, f"{best.min().item():.3f} <= {best.max().item():.3f}")
    print(f"final loss {loss.item():.5f} mse {mse.item():.5f}")

# fixed-value checks of the pieces
W = torch.tensor([[3.0, 4.0], [1.0, 0.0]])
g = torch.tensor([[1.0, 1.0], [2.0, 5.0]])
W = W / W.norm(dim=1, keepdim=True)
par = torch.einsum("si,si->s", g, W)
print("parallel component", par, "orthogonal grad", g - par[:, None] * W)
print("l1 norms", torch.tensor([[1.0, -2.0, 0.0], [0.5, 0.5, 0.5]]).norm(p=1, dim=1))
