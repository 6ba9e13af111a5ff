"""Gaussian-process regression written from scratch (the GPyTorch-free notebooks): an RBF kernel
from torch.cdist, the Cholesky factor with jitter, cholesky_solve / solve_triangular for the
posterior mean and variance, the log marginal likelihood with logdet, hyperparameters fitted
by Adam on log-parameters, MultivariateNormal(scale_tril=...) samples of the posterior, and
torch.autograd.functional (jacobian, hessian, hvp, jvp, vjp) on the likelihood."""
import math

import torch
from torch.autograd.functional import hessian, hvp, jacobian, jvp, vjp
from torch.distributions import MultivariateNormal

torch.manual_seed(0)
torch.set_default_dtype(torch.float64)

X = torch.linspace(-3, 3, 25).unsqueeze(-1)
f = torch.sin(2 * X).squeeze(-1) + 0.3 * X.squeeze(-1)
y = f + 0.1 * torch.randn(25)
Xs = torch.linspace(-4, 4, 9).unsqueeze(-1)
print(X.dtype, X.shape, y.shape, torch.get_default_dtype())


def rbf(A, B, log_ls, log_sf):
    # broadcast squared distances: cdist's gradient has no derivative (no hessian through it)
    A, B = A / log_ls.exp(), B / log_ls.exp()
    d2 = ((A[:, None, :] - B[None, :, :]) ** 2).sum(-1)
    return torch.exp(2 * log_sf) * torch.exp(-0.5 * d2)


def rbf_cdist(A, B, log_ls, log_sf):
    d2 = torch.cdist(A / log_ls.exp(), B / log_ls.exp()) ** 2
    return torch.exp(2 * log_sf) * torch.exp(-0.5 * d2)


def nll(params):
    log_ls, log_sf, log_sn = params[0], params[1], params[2]
    K = rbf(X, X, log_ls, log_sf) + (torch.exp(2 * log_sn) + 1e-6) * torch.eye(len(X))
    L = torch.linalg.cholesky(K)
    alpha = torch.cholesky_solve(y.unsqueeze(-1), L)
    return 0.5 * (y.unsqueeze(0) @ alpha).squeeze() + torch.log(torch.diagonal(L)).sum() + 0.5 * len(X) * math.log(2 * math.pi)


params = torch.tensor([0.0, 0.0, math.log(0.5)], requires_grad=True)
print("initial nll", round(nll(params).item(), 6))
K = rbf(X, X, params[0], params[1]).detach()
sign, logabsdet = torch.linalg.slogdet(K + 0.25 * torch.eye(25))
L = torch.linalg.cholesky(K + 0.25 * torch.eye(25))
print(sign.item(), round(logabsdet.item(), 6), round(2 * torch.log(torch.diagonal(L)).sum().item(), 6),
      round(torch.logdet(K + 0.25 * torch.eye(25)).item(), 6))

opt = torch.optim.Adam([params], lr=0.05)
for it in range(150):
    opt.zero_grad()
    loss = nll(params)
    loss.backward()
    opt.step()
    if it % 50 == 0:
        print(f"iter {it:3d} nll {loss.item():.6f} lengthscale {params[0].exp().item():.4f} noise {params[2].exp().item():.4f}")
print("final nll", round(nll(params).item(), 4), "grad norm small:", params.grad.norm().item() < 1.0)

with torch.no_grad():
    log_ls, log_sf, log_sn = params
    K = rbf(X, X, log_ls, log_sf) + torch.exp(2 * log_sn) * torch.eye(len(X))
    L = torch.linalg.cholesky(K)
    Ks = rbf_cdist(X, Xs, log_ls, log_sf)
    Kss = rbf_cdist(Xs, Xs, log_ls, log_sf)
    alpha = torch.cholesky_solve(y.unsqueeze(-1), L)
    mean = (Ks.T @ alpha).squeeze(-1)
    v = torch.linalg.solve_triangular(L, Ks, upper=False)
    cov = Kss - v.T @ v
    std = cov.diagonal().clamp_min(0).sqrt()
print(mean.shape, cov.shape, torch.allclose(cov, cov.T))
print(torch.round(mean, decimals=2))
print((std[0] > std[4]).item(), (std[-1] > std[4]).item())
mean2 = Ks.T @ torch.linalg.solve(K, y)
print("solve vs cholesky_solve:", torch.allclose(mean, mean2, atol=1e-8))

post = MultivariateNormal(mean, scale_tril=torch.linalg.cholesky(cov + 1e-6 * torch.eye(9)))
samples = post.sample((500,))
print(samples.shape, samples.dtype, post.batch_shape, post.event_shape)
print("sample mean close:", torch.allclose(samples.mean(0), mean, atol=0.2))
print("log_prob of mean finite:", torch.isfinite(post.log_prob(mean)).item())

p = params.detach()
J = jacobian(nll, p)
try:
    hessian(lambda q: rbf_cdist(X, X, q[0], q[1]).sum(), p)
except NotImplementedError as e:
    print("NotImplementedError:", e)
H = hessian(nll, p)
print(J.shape, H.shape, torch.allclose(H, H.T, atol=1e-6))
print("jacobian near 0 at the optimum:", J.abs().max().item() < 1.0)
eig = torch.linalg.eigvalsh(H)
print("hessian positive definite:", bool((eig > 0).all()), eig.shape)
v = torch.tensor([1.0, 0.0, 0.0])
_, Hv = hvp(nll, p, v)
print(torch.allclose(Hv, H @ v, atol=1e-6))
val, jv = jvp(nll, p, v)
print(torch.allclose(jv, J @ v), torch.allclose(val, nll(p)))
val, vj = vjp(lambda q: torch.stack([nll(q), q.pow(2).sum()]), p, torch.tensor([1.0, 2.0]))
print(torch.allclose(vj, J + 4 * p), val.shape)
J2 = jacobian(lambda a, b: (a * b).sum() * a, (torch.ones(2), torch.arange(2.0)))
print(type(J2).__name__, [j.shape for j in J2], J2[1])
print(torch.ones(1).dtype, torch.tensor(1.0).dtype, torch.arange(3).dtype)
torch.set_default_dtype(torch.float32)
print(torch.ones(1).dtype)
