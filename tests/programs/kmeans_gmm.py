"""Clustering in plain tensor ops, as notebooks write it: k-means++ seeding with multinomial,
Lloyd iterations with cdist / argmin / index_add_ / bincount, a Gaussian mixture fitted by EM
with logsumexp and MultivariateNormal, silhouette scores and a confusion table with unique."""
import torch
from torch.distributions import MultivariateNormal

torch.manual_seed(42)
centers = torch.tensor([[0.0, 0.0], [4.0, 4.0], [-3.0, 5.0]])
scales = torch.tensor([0.6, 1.0, 0.8])
labels_true = torch.arange(3).repeat_interleave(40)
X = centers[labels_true] + torch.randn(120, 2) * scales[labels_true, None]
print(X.shape, X.mean(0), X.std(0))


def kmeans_pp_init(X, k, gen):
    idx = torch.randint(len(X), (1,), generator=gen)
    chosen = [idx.item()]
    for _ in range(1, k):
        d2 = torch.cdist(X, X[chosen]).min(dim=1).values ** 2
        nxt = torch.multinomial(d2 / d2.sum(), 1, generator=gen)
        chosen.append(nxt.item())
    return X[chosen].clone()


def kmeans(X, k, iters=20, seed=0):
    gen = torch.Generator().manual_seed(seed)
    C = kmeans_pp_init(X, k, gen)
    for it in range(iters):
        assign = torch.cdist(X, C).argmin(dim=1)
        counts = torch.bincount(assign, minlength=k).clamp(min=1)
        sums = torch.zeros_like(C).index_add_(0, assign, X)
        newC = sums / counts[:, None].to(X.dtype)
        shift = (newC - C).norm(dim=1).max()
        C = newC
        if shift < 1e-6:
            break
    inertia = ((X - C[assign]) ** 2).sum()
    return C, assign, inertia, it


C, assign, inertia, iters = kmeans(X, 3)
order = C[:, 0].argsort()
print("centroids\n", C[order])
print(f"inertia {inertia:.3f} after {iters + 1} iterations")
print("cluster sizes", torch.bincount(assign).sort().values.tolist())
pairs = torch.stack([labels_true, assign], 1)
uniq, counts = torch.unique(pairs, dim=0, return_counts=True)
print("contingency", uniq.tolist(), counts.tolist())
for k in (2, 3, 4, 5):
    print(f"k={k} inertia {kmeans(X, k)[2]:.2f}")


def silhouette(X, assign):
    D = torch.cdist(X, X)
    k = int(assign.max()) + 1
    onehot = torch.nn.functional.one_hot(assign, k).float()
    sums = D @ onehot
    sizes = onehot.sum(0)
    own = assign
    a = sums.gather(1, own[:, None]).squeeze(1) / (sizes[own] - 1).clamp(min=1)
    other = sums / sizes
    other.scatter_(1, own[:, None], float("inf"))
    b = other.min(1).values
    return ((b - a) / torch.maximum(a, b)).mean()


print(f"silhouette {silhouette(X, assign):.4f}")

# --- Gaussian mixture, EM ---
K, N, D = 3, *X.shape
pi = torch.full((K,), 1.0 / K)
mu = C.clone()
cov = torch.eye(D).repeat(K, 1, 1)
prev = -float("inf")
for step in range(50):
    comp = MultivariateNormal(mu, covariance_matrix=cov)
    log_p = comp.log_prob(X[:, None, :]) + pi.log()  # (N, K)
    ll = torch.logsumexp(log_p, dim=1)
    resp = (log_p - ll[:, None]).exp()
    Nk = resp.sum(0)
    pi = Nk / N
    mu = (resp.T @ X) / Nk[:, None]
    diff = X[:, None, :] - mu[None]
    cov = torch.einsum("nk,nki,nkj->kij", resp, diff, diff) / Nk[:, None, None] + 1e-6 * torch.eye(D)
    total = ll.sum().item()
    if step % 10 == 0:
        print(f"EM step {step:2d} log-likelihood {total:.4f}")
    if total - prev < 1e-5:
        break
    prev = total
print(f"converged at step {step}")
o = mu[:, 0].argsort()
print("weights", pi[o])
print("means", mu[o])
print("covariances diag", torch.diagonal(cov[o], dim1=-2, dim2=-1))
print("hard assignment agrees with k-means:", (resp.argmax(1) == assign).float().mean().item() > 0.9)
print("bic", round(-2 * total + (K - 1 + K * D + K * D * (D + 1) / 2) * torch.log(torch.tensor(float(N))).item(), 3))
samples = MultivariateNormal(mu[o[0]], cov[o[0]]).sample((3,))
print(samples)
