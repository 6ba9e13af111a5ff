"""Gaussian-process regression written against the PyTorch 1.x linear-algebra API that older
repositories still call (torch.cholesky, torch.triangular_solve, torch.lu / lu_solve, torch.qr,
torch.symeig with a fallback to torch.linalg), with hyper-parameters learned by Adam on the
exact marginal likelihood, then predictive means / variances printed. Float64."""
import math

import torch

torch.manual_seed(3)
dtype = torch.float64


def symeig_compat(A):
    try:
        return torch.symeig(A, eigenvectors=True)
    except RuntimeError as e:
        print("symeig unavailable:", str(e).splitlines()[0][:60], "...")
        return torch.linalg.eigh(A)


def rbf(x1, x2, log_ls, log_sf):
    d = (x1.unsqueeze(1) - x2.unsqueeze(0)) / log_ls.exp()
    return (2 * log_sf).exp() * torch.exp(-0.5 * (d ** 2).sum(-1))


X = torch.linspace(-3, 3, 25, dtype=dtype).unsqueeze(1)
y = torch.sin(2 * X).squeeze(1) + 0.1 * torch.randn(25, dtype=dtype)
log_ls = torch.zeros(1, dtype=dtype, requires_grad=True)
log_sf = torch.zeros((), dtype=dtype, requires_grad=True)
log_sn = torch.tensor(-1.0, dtype=dtype, requires_grad=True)
opt = torch.optim.Adam([log_ls, log_sf, log_sn], lr=0.05)


def neg_mll():
    K = rbf(X, X, log_ls, log_sf) + (2 * log_sn).exp() * torch.eye(25, dtype=dtype)
    L = torch.cholesky(K)
    alpha = torch.triangular_solve(y.unsqueeze(1), L, upper=False)[0]
    return 0.5 * (alpha ** 2).sum() + L.diagonal().log().sum() + 12.5 * math.log(2 * math.pi)


for it in range(60):
    opt.zero_grad()
    loss = neg_mll()
    loss.backward()
    opt.step()
    if it % 15 == 0:
        print(f"iter {it:2d} -mll {loss.item():.6f} ls {log_ls.exp().item():.4f} "
              f"sf {log_sf.exp().item():.4f} sn {log_sn.exp().item():.4f}")

with torch.no_grad():
    K = rbf(X, X, log_ls, log_sf) + (2 * log_sn).exp() * torch.eye(25, dtype=dtype)
    L = torch.cholesky(K)
    Xs = torch.tensor([[-2.5], [0.0], [1.3], [4.0]], dtype=dtype)
    Ks = rbf(X, Xs, log_ls, log_sf)
    v = torch.triangular_solve(Ks, L, upper=False).solution
    alpha = torch.cholesky_solve(y.unsqueeze(1), L)
    mean = (Ks.t() @ alpha).squeeze(1)
    var = rbf(Xs, Xs, log_ls, log_sf).diagonal() - (v ** 2).sum(0)
    print("predictive mean", mean)
    print("predictive std ", var.clamp_min(0).sqrt())
    print("truth          ", torch.sin(2 * Xs).squeeze(1))

    # the same solve through an LU factorization and through QR
    A_LU, pivots = torch.lu(K)
    alpha_lu = torch.lu_solve(y.unsqueeze(1), A_LU, pivots)
    print("LU solve agrees:", torch.allclose(alpha, alpha_lu), "pivots", pivots[:6].tolist())
    P, Lf, Uf = torch.lu_unpack(A_LU, pivots)
    print("P L U = K:", torch.allclose(P @ Lf @ Uf, K))
    Q, R = torch.qr(K)
    alpha_qr = torch.triangular_solve(Q.t() @ y.unsqueeze(1), R).solution
    print("QR solve agrees:", torch.allclose(alpha, alpha_qr))
    evals, evecs = symeig_compat(K)
    print(f"eigenvalue range {evals.min().item():.6f} .. {evals.max().item():.4f}")
    print(f"log det via eig {evals.log().sum().item():.6f} via cholesky {2 * L.diagonal().log().sum().item():.6f}")
    sol = torch.triangular_solve(torch.eye(2, dtype=dtype), torch.tensor([[2.0, 1.0], [0.0, 4.0]], dtype=dtype))
    print(sol)
    print(type(sol).__name__, sol.cloned_coefficient.shape)
