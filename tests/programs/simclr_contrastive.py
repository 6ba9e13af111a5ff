"""SimCLR-style contrastive learning: two augmented views, a projection head, NT-Xent loss from a cosine-similarity matrix."""
import torch
import torch.nn as nn
import torch.nn.functional as F

torch.manual_seed(11)


def augment(x):
    # random jitter + random feature masking + random scaling, as a tabular/vector SimCLR does
    noise = 0.1 * torch.randn_like(x)
    mask = (torch.rand_like(x) > 0.2).float()
    scale = torch.empty(x.size(0), 1).uniform_(0.8, 1.2)
    return (x + noise) * mask * scale


class Encoder(nn.Module):
    def __init__(self, d_in=20, d_hidden=64, d_proj=16):
        super().__init__()
        self.backbone = nn.Sequential(nn.Linear(d_in, d_hidden), nn.ReLU(), nn.Linear(d_hidden, d_hidden))
        self.projector = nn.Sequential(nn.Linear(d_hidden, d_hidden), nn.ReLU(), nn.Linear(d_hidden, d_proj))

    def forward(self, x):
        h = self.backbone(x)
        return h, self.projector(h)


def nt_xent(z1, z2, temperature=0.5):
    batch_size = z1.shape[0]
    z = torch.cat([z1, z2], dim=0)
    z = F.normalize(z, dim=1)
    sim = torch.matmul(z, z.T) / temperature
    mask = torch.eye(2 * batch_size, dtype=torch.bool)
    sim = sim.masked_fill(mask, float("-inf"))
    targets = torch.cat([torch.arange(batch_size, 2 * batch_size), torch.arange(0, batch_size)])
    return F.cross_entropy(sim, targets)


def info_nce_alt(z1, z2, temperature=0.5):
    # the same loss written with F.cosine_similarity and logsumexp (another common form)
    z = torch.cat([z1, z2], dim=0)
    sim = F.cosine_similarity(z.unsqueeze(1), z.unsqueeze(0), dim=-1) / temperature
    n = z1.shape[0]
    self_mask = torch.eye(2 * n, dtype=torch.bool)
    sim.masked_fill_(self_mask, -9e15)
    pos_mask = self_mask.roll(shifts=n, dims=0)
    nll = -sim[pos_mask] + torch.logsumexp(sim, dim=-1)
    return nll.mean(), sim


# four latent prototypes; samples are noisy copies
prototypes = torch.randn(4, 20)
data = prototypes.repeat_interleave(32, dim=0) + 0.3 * torch.randn(128, 20)
labels = torch.arange(4).repeat_interleave(32)
print("data:", data.shape, "labels:", labels.bincount().tolist())

model = Encoder()
optimizer = torch.optim.SGD(model.parameters(), lr=0.1, momentum=0.9, nesterov=True)
scheduler = torch.optim.lr_scheduler.CosineAnnealingWarmRestarts(optimizer, T_0=5, T_mult=2, eta_min=1e-3)
x1, x2 = augment(data[:8]), augment(data[:8])
_, z1 = model(x1)
_, z2 = model(x2)
a = nt_xent(z1, z2)
b, sim = info_nce_alt(z1, z2)
print("two forms agree:", torch.allclose(a, b, atol=1e-5))
print("similarity matrix:", sim.shape, "diagonal masked:", bool((sim.diagonal() < -1e15).all()))

for epoch in range(15):
    perm = torch.randperm(128)
    total = 0.0
    for i in range(0, 128, 32):
        batch = data[perm[i:i + 32]]
        _, z1 = model(augment(batch))
        _, z2 = model(augment(batch))
        loss = nt_xent(z1, z2, temperature=0.2)
        optimizer.zero_grad()
        loss.backward()
        optimizer.step()
        scheduler.step(epoch + i / 128)
        total += loss.item()
    if epoch % 5 == 4:
        print(f"epoch {epoch + 1:2d} loss {total / 4:.4f} lr {scheduler.get_last_lr()[0]:.4f}")

# linear evaluation on frozen features
model.eval()
with torch.no_grad():
    feats, _ = model(data)
feats = feats.detach()
probe = nn.Linear(64, 4)
opt = torch.optim.LBFGS(probe.parameters(), lr=0.5, max_iter=50)


def closure():
    opt.zero_grad()
    loss = F.cross_entropy(probe(feats), labels)
    loss.backward()
    return loss


opt.step(closure)
acc = (probe(feats).argmax(1) == labels).float().mean().item()
print(f"linear probe accuracy: {acc:.3f}")
with torch.no_grad():
    emb = F.normalize(model(data)[1], dim=1)
    centroid = torch.stack([emb[labels == k].mean(0) for k in range(4)])
    within = torch.stack([(emb[labels == k] @ centroid[k]).mean() for k in range(4)])
print("within-class alignment > 0.5:", bool((within > 0.5).all()))
print("pairwise distances:", torch.cdist(centroid, centroid).shape)
