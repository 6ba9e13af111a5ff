"""Discrete latent models as their reference implementations write them: a VQ-VAE vector
quantizer (codebook distances by expanded squares, argmin, one-hot encodings with scatter_,
the straight-through estimator inputs + (quantized - inputs).detach(), commitment loss,
perplexity), an EMA codebook update with Laplace smoothing, and a Gumbel-softmax categorical
VAE (F.gumbel_softmax soft and hard, temperature annealing, KL to the uniform prior)."""
import torch
import torch.nn as nn
import torch.nn.functional as F

torch.manual_seed(0)


class VectorQuantizer(nn.Module):
    def __init__(self, num_embeddings, embedding_dim, commitment_cost):
        super(VectorQuantizer, self).__init__()
        self._embedding_dim = embedding_dim
        self._num_embeddings = num_embeddings
        self._embedding = nn.Embedding(self._num_embeddings, self._embedding_dim)
        self._embedding.weight.data.uniform_(-1 / self._num_embeddings, 1 / self._num_embeddings)
        self._commitment_cost = commitment_cost

    def forward(self, inputs):
        inputs = inputs.permute(0, 2, 3, 1).contiguous()
        input_shape = inputs.shape
        flat_input = inputs.view(-1, self._embedding_dim)
        distances = (torch.sum(flat_input ** 2, dim=1, keepdim=True)
                     + torch.sum(self._embedding.weight ** 2, dim=1)
                     - 2 * torch.matmul(flat_input, self._embedding.weight.t()))
        encoding_indices = torch.argmin(distances, dim=1).unsqueeze(1)
        encodings = torch.zeros(encoding_indices.shape[0], self._num_embeddings, device=inputs.device)
        encodings.scatter_(1, encoding_indices, 1)
        quantized = torch.matmul(encodings, self._embedding.weight).view(input_shape)
        e_latent_loss = F.mse_loss(quantized.detach(), inputs)
        q_latent_loss = F.mse_loss(quantized, inputs.detach())
        loss = q_latent_loss + self._commitment_cost * e_latent_loss
        quantized = inputs + (quantized - inputs).detach()
        avg_probs = torch.mean(encodings, dim=0)
        perplexity = torch.exp(-torch.sum(avg_probs * torch.log(avg_probs + 1e-10)))
        return loss, quantized.permute(0, 3, 1, 2).contiguous(), perplexity, encodings


class VectorQuantizerEMA(nn.Module):
    def __init__(self, num_embeddings, embedding_dim, commitment_cost, decay, epsilon=1e-5):
        super(VectorQuantizerEMA, self).__init__()
        self._embedding_dim = embedding_dim
        self._num_embeddings = num_embeddings
        self._embedding = nn.Embedding(self._num_embeddings, self._embedding_dim)
        self._embedding.weight.data.normal_()
        self._commitment_cost = commitment_cost
        self.register_buffer('_ema_cluster_size', torch.zeros(num_embeddings))
        self._ema_w = nn.Parameter(torch.Tensor(num_embeddings, self._embedding_dim))
        self._ema_w.data.normal_()
        self._decay = decay
        self._epsilon = epsilon

    def forward(self, inputs):
        inputs = inputs.permute(0, 2, 3, 1).contiguous()
        input_shape = inputs.shape
        flat_input = inputs.view(-1, self._embedding_dim)
        distances = (torch.sum(flat_input ** 2, dim=1, keepdim=True)
                     + torch.sum(self._embedding.weight ** 2, dim=1)
                     - 2 * torch.matmul(flat_input, self._embedding.weight.t()))
        encoding_indices = torch.argmin(distances, dim=1).unsqueeze(1)
        encodings = torch.zeros(encoding_indices.shape[0], self._num_embeddings, device=inputs.device)
        encodings.scatter_(1, encoding_indices, 1)
        quantized = torch.matmul(encodings, self._embedding.weight).view(input_shape)
        if self.training:
            self._ema_cluster_size = self._ema_cluster_size * self._decay + (1 - self._decay) * torch.sum(encodings, 0)
            n = torch.sum(self._ema_cluster_size.data)
            self._ema_cluster_size = ((self._ema_cluster_size + self._epsilon)
                                      / (n + self._num_embeddings * self._epsilon) * n)
            dw = torch.matmul(encodings.t(), flat_input)
            self._ema_w = nn.Parameter(self._ema_w * self._decay + (1 - self._decay) * dw)
            self._embedding.weight = nn.Parameter(self._ema_w / self._ema_cluster_size.unsqueeze(1))
        e_latent_loss = F.mse_loss(quantized.detach(), inputs)
        loss = self._commitment_cost * e_latent_loss
        quantized = inputs + (quantized - inputs).detach()
        avg_probs = torch.mean(encodings, dim=0)
        perplexity = torch.exp(-torch.sum(avg_probs * torch.log(avg_probs + 1e-10)))
        return loss, quantized.permute(0, 3, 1, 2).contiguous(), perplexity, encodings


x = torch.randn(4, 8, 5, 5, dtype=torch.float64).float()
vq = VectorQuantizer(16, 8, 0.25)
enc = nn.Conv2d(8, 8, 1)
loss, q, perplexity, encodings = vq(enc(x))
print(q.shape, encodings.shape, encodings.sum().item(), loss.grad_fn.name(), q.grad_fn.name())
(loss + q.pow(2).mean()).backward()
print(enc.weight.grad is not None, vq._embedding.weight.grad.abs().sum().item() > 0, perplexity.item() >= 1)
opt = torch.optim.Adam(list(enc.parameters()) + list(vq.parameters()), lr=1e-2)
for step in range(30):
    loss, q, perplexity, _ = vq(enc(x))
    recon = F.mse_loss(q, x)
    opt.zero_grad()
    (recon + loss).backward()
    opt.step()
    if step % 10 == 0:
        print(f"step {step} recon {recon.item():.5f} vq {loss.item():.5f} perplexity {perplexity.item():.3f}")

ema = VectorQuantizerEMA(16, 8, 0.25, decay=0.99)
print([n for n, _ in ema.named_parameters()], [n for n, _ in ema.named_buffers()])
for _ in range(3):
    loss, q, perplexity, encodings = ema(x)
print(ema._ema_cluster_size.shape, round(ema._ema_cluster_size.sum().item(), 4), type(ema._embedding.weight).__name__)
ema.eval()
with torch.no_grad():
    print(ema(x)[0].item() >= 0)

logits = torch.randn(6, 5)
torch.manual_seed(1)
soft = F.gumbel_softmax(logits, tau=0.5)
torch.manual_seed(1)
hard = F.gumbel_softmax(logits, tau=0.5, hard=True)
print(soft.sum(1), hard, torch.equal(hard.argmax(1), soft.argmax(1)))
lg = logits.clone().requires_grad_(True)
F.gumbel_softmax(lg, tau=1.0, hard=True)[:, 0].sum().backward()
print(lg.grad.abs().sum().item() > 0, lg.grad.shape)


class GumbelVAE(nn.Module):
    def __init__(self, n_in=12, latent=4, categories=6):
        super().__init__()
        self.latent, self.categories = latent, categories
        self.enc = nn.Linear(n_in, latent * categories)
        self.dec = nn.Linear(latent * categories, n_in)

    def forward(self, x, temp, hard):
        q = self.enc(x).view(-1, self.latent, self.categories)
        z = F.gumbel_softmax(q, tau=temp, hard=hard, dim=-1)
        return torch.sigmoid(self.dec(z.view(-1, self.latent * self.categories))), F.softmax(q, dim=-1)


torch.manual_seed(2)
data = (torch.rand(64, 12) > 0.5).float()
model = GumbelVAE()
opt = torch.optim.Adam(model.parameters(), lr=3e-3)
temp = 1.0
for epoch in range(40):
    recon, qy = model(data, temp, hard=False)
    bce = F.binary_cross_entropy(recon, data, reduction="sum") / data.shape[0]
    log_ratio = torch.log(qy * model.categories + 1e-20)
    kld = torch.sum(qy * log_ratio, dim=-1).mean()
    loss = bce + kld
    opt.zero_grad()
    loss.backward()
    opt.step()
    if epoch % 10 == 9:
        temp = max(temp * 0.9, 0.5)
        print(f"epoch {epoch + 1} loss {loss.item():.4f} temp {temp:.3f}")
with torch.no_grad():
    recon, _ = model(data[:2], 0.5, hard=True)
print(recon.shape, ((recon > 0.5).float() == data[:2]).float().mean().item() > 0.5)
