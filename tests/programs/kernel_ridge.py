"""Closed-form regression with torch.linalg, as in scikit-learn re-implementations: ordinary
least squares via lstsq / QR / normal equations, ridge regression via Cholesky, kernel ridge
regression with an RBF kernel (cdist), Nystroem features, leave-one-out CV from the hat
matrix, and a polynomial basis via vander; float64, printed at 4-6 digits."""
import torch

torch.manual_seed(0)
f64 = torch.float64

n, d = 60, 4
X = torch.randn(n, d, dtype=f64)
beta = torch.tensor([1.0, -2.0, 0.0, 0.5], dtype=f64)
y = X @ beta + 0.3 + 0.1 * torch.randn(n, dtype=f64)
Xb = torch.cat([torch.ones(n, 1, dtype=f64), X], 1)

sol = torch.linalg.lstsq(Xb, y.unsqueeze(1))
print("lstsq solution", sol.solution.squeeze(1))
print("lstsq rank", sol.rank, "residuals", sol.residuals, "driver default ok:", sol.solution.shape)
Q, R = torch.linalg.qr(Xb)
b_qr = torch.linalg.solve_triangular(R, Q.T @ y.unsqueeze(1), upper=True).squeeze(1)
b_ne = torch.linalg.solve(Xb.T @ Xb, Xb.T @ y)
b_pinv = torch.linalg.pinv(Xb) @ y
print("QR vs lstsq close:", torch.allclose(b_qr, sol.solution.squeeze(1)),
      "normal eq close:", torch.allclose(b_ne, b_qr), "pinv close:", torch.allclose(b_pinv, b_qr))
print("R diag sign-free", R.diagonal().abs())
resid = y - Xb @ b_qr
print(f"RSS {resid.pow(2).sum().item():.6f}  R^2 {1 - resid.var() / y.var():.6f}")
H = Xb @ torch.linalg.inv(Xb.T @ Xb) @ Xb.T
lev = H.diagonal()
print(f"trace(H) {lev.sum().item():.6f} max leverage {lev.max().item():.4f} at {lev.argmax().item()}")
loo = ((resid / (1 - lev)) ** 2).mean()
print(f"LOO-CV mse {loo.item():.6f}")

print("ridge path:")
for lam in [0.0, 0.1, 1.0, 10.0, 100.0]:
    A = X.T @ X + lam * torch.eye(d, dtype=f64)
    L = torch.linalg.cholesky(A)
    w = torch.cholesky_solve((X.T @ (y - y.mean())).unsqueeze(1), L).squeeze(1)
    print(f"  lambda={lam:6.1f} w={[round(v, 4) for v in w.tolist()]} |w|={w.norm().item():.4f}")
eig = torch.linalg.eigvalsh(X.T @ X)
print("eigvalsh of X^T X", eig)
print(f"condition number {torch.linalg.cond(X).item():.4f} rank {torch.linalg.matrix_rank(X).item()}")
print("slogdet", torch.linalg.slogdet(X.T @ X))

# --- kernel ridge regression on a 1-D sine ---
xs = torch.linspace(0, 6, 40, dtype=f64).unsqueeze(1)
ys = torch.sin(xs).squeeze(1) + 0.05 * torch.randn(40, dtype=f64)


def rbf(a, b, gamma=1.0):
    return torch.exp(-gamma * torch.cdist(a, b) ** 2)


K = rbf(xs, xs)
print("kernel symmetric:", torch.allclose(K, K.T), "diag", K.diagonal()[:3])
alpha = torch.linalg.solve(K + 1e-2 * torch.eye(40, dtype=f64), ys)
xt = torch.tensor([[0.5], [1.5], [3.0], [4.5]], dtype=f64)
pred = rbf(xt, xs) @ alpha
print("KRR predictions", pred, "truth", torch.sin(xt).squeeze(1))
# Nystroem approximation with 10 landmarks
idx = torch.randperm(40)[:10]
Kmm = rbf(xs[idx], xs[idx])
evals, evecs = torch.linalg.eigh(Kmm)
keep = evals > 1e-6 * evals.max()
Phi = rbf(xs, xs[idx]) @ evecs[:, keep] / evals[keep].sqrt()
approx = Phi @ Phi.T
print(f"Nystroem kept {int(keep.sum())} components, kernel error {(approx - K).abs().max().item():.2e}")

# --- polynomial basis via vander, fitted by lstsq ---
t = torch.linspace(-1, 1, 25, dtype=f64)
target = 1 - 2 * t + 0.25 * t ** 2 + 0.5 * t ** 3
V = torch.vander(t, N=4, increasing=True)
coef = torch.linalg.lstsq(V, target.unsqueeze(1)).solution.squeeze(1)
print("vander", V.shape, "coefficients", coef)
print("kron", torch.kron(torch.eye(2, dtype=f64), torch.tensor([[1.0, 2.0], [3.0, 4.0]], dtype=f64)))
grid = torch.cartesian_prod(torch.arange(2), torch.arange(3))
print("cartesian_prod", grid.tolist())
print("multi_dot", torch.linalg.multi_dot([X[:3].T, X[:3], X[:3].T]).shape)
print("matrix_norm fro / nuc", torch.linalg.matrix_norm(X[:4], "fro").item().__round__(6),
      torch.linalg.matrix_norm(X[:4], "nuc").item().__round__(6))
