"""Poisson and logistic GLMs fitted with LBFGS (strong Wolfe), standard errors from the observed
information (torch.autograd.functional.hessian + torch.linalg.inv), Wald z-scores and p-values
(torch.special.ndtr), printed as a statsmodels-like summary table. Float64 throughout."""
import math

import torch
from torch.autograd.functional import hessian

torch.manual_seed(7)
torch.set_default_dtype(torch.float64)

n = 400
X = torch.cat([torch.ones(n, 1), torch.randn(n, 3)], dim=1)
true_beta = torch.tensor([0.5, 0.8, -0.4, 0.0])
mu = torch.exp(X @ true_beta)
y = torch.poisson(mu)
print("y summary: mean %.3f var %.3f max %d zeros %d" % (y.mean(), y.var(), y.max(), (y == 0).sum()))


def poisson_nll(beta):
    eta = X @ beta
    return -(y * eta - torch.exp(eta) - torch.lgamma(y + 1)).sum()


beta = torch.zeros(4, requires_grad=True)
opt = torch.optim.LBFGS([beta], lr=1, max_iter=100, tolerance_grad=1e-10,
                        tolerance_change=1e-12, history_size=10, line_search_fn="strong_wolfe")


def closure():
    opt.zero_grad()
    loss = poisson_nll(beta)
    loss.backward()
    return loss


opt.step(closure)
state = opt.state[opt._params[0]]
print("LBFGS func evals", state["func_evals"], "iters", state["n_iter"])
print(f"final nll {poisson_nll(beta).item():.6f}")
# the same fit through the built-in loss
crit = torch.nn.PoissonNLLLoss(log_input=True, full=True, reduction="sum")
print(f"PoissonNLLLoss(full=True) {crit(X @ beta.detach(), y).item():.6f}")

H = hessian(poisson_nll, beta.detach())
cov = torch.linalg.inv(H)
se = cov.diagonal().sqrt()
z = beta.detach() / se
p = 2 * (1 - torch.special.ndtr(z.abs()))
print(f"{'':>8}{'coef':>10}{'std err':>10}{'z':>9}{'P>|z|':>9}")
for name, b, s, zz, pp in zip(["const", "x1", "x2", "x3"], beta.tolist(), se.tolist(), z.tolist(), p.tolist()):
    print(f"{name:>8}{b:10.4f}{s:10.4f}{zz:9.3f}{pp:9.3f}")
ci = torch.stack([beta.detach() - 1.96 * se, beta.detach() + 1.96 * se], 1)
print("95% CI\n", ci)
print("covers truth:", ((ci[:, 0] <= true_beta) & (true_beta <= ci[:, 1])).tolist())
dev = 2 * (torch.xlogy(y, y) - torch.xlogy(y, torch.exp(X @ beta.detach())) - (y - torch.exp(X @ beta.detach()))).sum()
print(f"deviance {dev.item():.4f} on {n - 4} df, dispersion {dev.item() / (n - 4):.4f}")

# --- logistic regression by Newton's method (IRLS) ---
logits_true = X @ torch.tensor([-0.3, 1.2, 0.0, -0.7])
t = torch.bernoulli(torch.sigmoid(logits_true))
w = torch.zeros(4)
for it in range(8):
    pr = torch.sigmoid(X @ w)
    grad = X.t() @ (t - pr)
    W = pr * (1 - pr)
    Hn = X.t() @ (X * W[:, None])
    step = torch.linalg.solve(Hn, grad)
    w = w + step
    ll = (t * torch.log(pr) + (1 - t) * torch.log1p(-pr)).sum()
    print(f"IRLS iter {it} loglik {ll.item():.8f} |step| {step.norm().item():.3e}")
    if step.norm() < 1e-8:
        break
se_w = torch.linalg.inv(Hn).diagonal().sqrt()
print("logit coef", w)
print("logit se  ", se_w)
bce = torch.nn.functional.binary_cross_entropy_with_logits(X @ w, t, reduction="sum")
print(f"BCE at optimum {bce.item():.6f}")
print("odds ratios", torch.exp(w[1:]))
print("pseudo R^2 %.4f" % (1 - bce.item() / (-(t.mean() * math.log(t.mean()) + (1 - t.mean()) * math.log(1 - t.mean())) * n)))
