"""Analysing learned embeddings (the tail of many word-vector / metric-learning notebooks):
cosine nearest neighbours with topk, PCA with torch.pca_lowrank and with torch.linalg.svd,
pairwise feature interactions with torch.combinations (factorization-machine style), cdist /
pdist, a k-means loop, and torch.trapezoid for an ROC AUC."""
import torch
import torch.nn.functional as F

torch.manual_seed(0)
centers = torch.randn(4, 16) * 3
labels = torch.arange(40) % 4
emb = centers[labels] + 2.5 * torch.randn(40, 16)
print("embeddings", tuple(emb.shape))

# cosine nearest neighbours
normed = F.normalize(emb, dim=1)
sim = normed @ normed.T
sim.fill_diagonal_(-1)
vals, idx = sim.topk(3, dim=1)
print("neighbours of 0:", idx[0].tolist(), vals[0])
print("neighbour label agreement:", (labels[idx] == labels[:, None]).float().mean().item())

# PCA two ways
mean = emb.mean(0, keepdim=True)
U, S, V = torch.pca_lowrank(emb, q=6, center=True, niter=4)
print("pca_lowrank shapes", tuple(U.shape), tuple(S.shape), tuple(V.shape))
proj = (emb - mean) @ V[:, :2]
_, S_full, Vh = torch.linalg.svd(emb - mean, full_matrices=False)
print("singular values", S_full[:4])
print("lowrank matches svd:", torch.allclose(S[:3], S_full[:3], rtol=1e-2))
recon = U @ torch.diag(S) @ V.T
print(f"rank-6 reconstruction error {(recon - (emb - mean)).norm() / (emb - mean).norm():.4f}")
explained = S_full ** 2 / (S_full ** 2).sum()
print("explained variance ratio", explained[:4])
print("projection shape", tuple(proj.shape), "variance", proj.var(0))

# pairwise interactions between field embeddings
fields = torch.randn(5, 3, 4)  # batch, fields, dim
pairs = torch.combinations(torch.arange(3), r=2)
print("pairs", pairs.tolist())
inter = (fields[:, pairs[:, 0]] * fields[:, pairs[:, 1]]).sum(-1)
print("interactions", tuple(inter.shape), inter[0])
print(torch.combinations(torch.tensor([1.0, 2.0, 3.0]), with_replacement=True))

# distances
d = torch.cdist(centers, centers)
print("center distances\n", d)
p = F.pdist(centers)
print("pdist", p, "max diff", (p - d[torch.triu_indices(4, 4, 1).unbind()]).abs().max() < 1e-4)

# k-means
k = 4
g = torch.Generator().manual_seed(3)
cent = emb[torch.randperm(40, generator=g)[:k]].clone()
for it in range(10):
    assign = torch.cdist(emb, cent).argmin(1)
    new = torch.stack([emb[assign == j].mean(0) if (assign == j).any() else cent[j] for j in range(k)])
    shift = (new - cent).norm()
    cent = new
    if it % 3 == 0:
        print(f"kmeans iter {it} shift {shift.item():.4f} sizes {torch.bincount(assign, minlength=k).tolist()}")
inertia = ((emb - cent[assign]) ** 2).sum()
print(f"inertia {inertia.item():.2f}")

# ROC AUC with trapezoid: positives are pairs with the same label
scores = sim[torch.triu_indices(40, 40, 1).unbind()]
same = (labels[:, None] == labels[None, :])[torch.triu_indices(40, 40, 1).unbind()]
order = scores.argsort(descending=True)
tp = torch.cumsum(same[order].float(), 0)
fp = torch.cumsum((~same[order]).float(), 0)
tpr = torch.cat([torch.zeros(1), tp / tp[-1]])
fpr = torch.cat([torch.zeros(1), fp / fp[-1]])
print(f"AUC {torch.trapezoid(tpr, fpr).item():.4f} trapz {torch.trapz(tpr, fpr).item():.4f}")
print("trapezoid dx", torch.trapezoid(torch.tensor([1.0, 2.0, 3.0]), dx=0.5), torch.cumulative_trapezoid(torch.tensor([1.0, 2.0, 3.0])))
