"""einsum-heavy scientific code: the einsum forms (implicit output, ellipsis, repeated indices,
trace / diagonal, the sublist format, upper-case labels), torch.tensordot with int and list dims,
torch.backends.opt_einsum, log-domain Sinkhorn optimal transport between point clouds (batched
cost matrices by einsum, logsumexp updates, the transport plan's marginals), a CP tensor
decomposition by alternating least squares (Khatri-Rao products, linalg.solve on Gram
matrices), compact bilinear pooling, a Tucker mode-n product, and gradients through einsum; in
float64 as such code checks its identities."""
import math

import torch

torch.manual_seed(0)
dt = torch.float64

a = torch.arange(6, dtype=dt).reshape(2, 3)
b = torch.arange(12, dtype=dt).reshape(3, 4)
sq = torch.arange(9, dtype=dt).reshape(3, 3)
print(torch.einsum("ij,jk", a, b))  # implicit output: ik
print(torch.einsum("ij,jk->ki", a, b))
print(torch.einsum("ii", sq), torch.einsum("ii->i", sq), torch.einsum("ij->", a))
print(torch.einsum("i,j->ij", torch.arange(2.), torch.arange(3.)))
print(torch.einsum("...ij,...jk->...ik", torch.ones(2, 5, 2, 3, dtype=dt), torch.ones(3, 4, dtype=dt)).shape)
print(torch.einsum("bn,anm,bm->ba", torch.ones(2, 3, dtype=dt), torch.ones(4, 3, 5, dtype=dt), torch.ones(2, 5, dtype=dt)))
print(torch.einsum(a, [0, 1], b, [1, 2], [0, 2]).equal(a @ b))
print(torch.einsum("Ab,bC->AC", a, b).equal(a @ b), torch.einsum("i i", sq))
print(torch.einsum("ij,ij->i", a, a), torch.einsum("ji", a).shape)
print(torch.tensordot(torch.ones(2, 3, 4), torch.ones(4, 3, 5), dims=([1, 2], [1, 0])).shape,
      torch.tensordot(a, b, dims=1).equal(a @ b), torch.tensordot(a, a, dims=2), torch.tensordot(a, b, dims=0).shape)
for eq, ops in [("ij,jk", (a, torch.ones(2, 4))), ("ij->ik", (a,)), ("i,i", (torch.ones(2), torch.ones(3)))]:
    try:
        torch.einsum(eq, *ops)
    except RuntimeError as e:
        print("RuntimeError:", e)
print(torch.backends.opt_einsum.is_available() in (True, False), torch.backends.opt_einsum.enabled,
      torch.backends.opt_einsum.strategy)


# --- log-domain Sinkhorn (entropic optimal transport), batched
def sinkhorn(x, y, eps=0.1, iters=200):
    B, n, _ = x.shape
    m = y.shape[1]
    C = (torch.einsum("bnd,bnd->bn", x, x)[:, :, None] + torch.einsum("bmd,bmd->bm", y, y)[:, None, :]
         - 2 * torch.einsum("bnd,bmd->bnm", x, y))
    log_mu = torch.full((B, n), -math.log(n), dtype=x.dtype)
    log_nu = torch.full((B, m), -math.log(m), dtype=x.dtype)
    f = torch.zeros(B, n, dtype=x.dtype)
    g = torch.zeros(B, m, dtype=x.dtype)
    for _ in range(iters):
        f = -eps * torch.logsumexp((g[:, None, :] - C) / eps + log_nu[:, None, :], dim=2)
        g = -eps * torch.logsumexp((f[:, :, None] - C) / eps + log_mu[:, :, None], dim=1)
    log_P = (f[:, :, None] + g[:, None, :] - C) / eps + log_mu[:, :, None] + log_nu[:, None, :]
    P = log_P.exp()
    cost = torch.einsum("bnm,bnm->b", P, C)
    return P, cost, C


x = torch.randn(2, 5, 2, dtype=dt)
y = torch.randn(2, 4, 2, dtype=dt) + 1.0
x.requires_grad_(True)
P, cost, C = sinkhorn(x, y)
print(P.shape, C.shape)
print("row marginals", P.sum(2))
print("col marginals", P.sum(1))
print("cost", cost)
cost.sum().backward()
print("grad", x.grad[0])
print("plan rows argmax", P.argmax(2))


# --- CP decomposition by ALS
def khatri_rao(A, B):
    return torch.einsum("ir,jr->ijr", A, B).reshape(-1, A.shape[1])


def cp_als(T, rank, iters=50):
    I, J, K = T.shape
    g = torch.Generator().manual_seed(1)
    A = torch.randn(I, rank, generator=g, dtype=T.dtype)
    B = torch.randn(J, rank, generator=g, dtype=T.dtype)
    Cf = torch.randn(K, rank, generator=g, dtype=T.dtype)
    for _ in range(iters):
        A = torch.linalg.solve((B.T @ B) * (Cf.T @ Cf), (T.reshape(I, -1) @ khatri_rao(B, Cf)).T).T
        B = torch.linalg.solve((A.T @ A) * (Cf.T @ Cf), (T.permute(1, 0, 2).reshape(J, -1) @ khatri_rao(A, Cf)).T).T
        Cf = torch.linalg.solve((A.T @ A) * (B.T @ B), (T.permute(2, 0, 1).reshape(K, -1) @ khatri_rao(A, B)).T).T
    return A, B, Cf


g0 = torch.Generator().manual_seed(7)
U, V, W = (torch.randn(n, 2, generator=g0, dtype=dt) for n in (4, 3, 5))
T = torch.einsum("ir,jr,kr->ijk", U, V, W)
A, B, Cf = cp_als(T, rank=2)
rec = torch.einsum("ir,jr,kr->ijk", A, B, Cf)
print("CP relative error < 1e-6:", ((rec - T).norm() / T.norm()).item() < 1e-6)
print("khatri-rao", khatri_rao(torch.eye(2, dtype=dt), torch.ones(2, 2, dtype=dt)))

# --- Tucker mode-n product and compact bilinear pooling
core = torch.arange(8, dtype=dt).reshape(2, 2, 2)
M = torch.tensor([[1., 0.], [1., 1.], [0., 2.]], dtype=dt)
print(torch.einsum("abc,ia->ibc", core, M)[:, :, 0])
print(torch.tensordot(M, core, dims=([1], [0])).equal(torch.einsum("abc,ia->ibc", core, M)))
feat_a = torch.randn(2, 3, 4, dtype=dt)  # batch, channels, locations
feat_b = torch.randn(2, 5, 4, dtype=dt)
bilinear = torch.einsum("bcl,bdl->bcd", feat_a, feat_b) / 4
bilinear = torch.sign(bilinear) * torch.sqrt(bilinear.abs() + 1e-10)
bilinear = torch.nn.functional.normalize(bilinear.flatten(1), dim=1)
print(bilinear.shape, torch.allclose(bilinear.norm(dim=1), torch.ones(2, dtype=dt)))

# --- gradients through einsum agree with the matmul form
w = torch.randn(3, 4, dtype=dt, requires_grad=True)
v = torch.randn(5, 3, dtype=dt)
g_einsum, = torch.autograd.grad(torch.einsum("ni,ij->nj", v, w).pow(2).sum(), w)
g_matmul, = torch.autograd.grad((v @ w).pow(2).sum(), w)
print(torch.allclose(g_einsum, g_matmul), torch.autograd.gradcheck(lambda t: torch.einsum("ii->", t @ t.T), (w,)))
q = torch.randn(2, 3, 4, dtype=dt, requires_grad=True)
att = torch.einsum("bqd,bkd->bqk", q, q).softmax(-1)
out = torch.einsum("bqk,bkd->bqd", att, q)
out.sum().backward()
print(att.grad_fn.name(), out.grad_fn.name(), q.grad.shape)
