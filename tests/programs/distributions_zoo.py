"""The less common torch.distributions the way statistical code uses them: reprs, shapes,
moments, support / constraints, cdf / icdf, expand, argument validation errors, KL divergences
(closed forms and a registered custom pair), and maximum-likelihood fits of count, robust and
survival models (Poisson / NegativeBinomial regression, a Student-t line, a Weibull survival
curve, LogNormal and Laplace fits, a Dirichlet-Multinomial-free Multinomial check), all in
float64 on data from randn / rand, whose streams both libraries share."""
import math

import torch
import torch.distributions as D
from torch.distributions import constraints

torch.manual_seed(0)
f64 = torch.float64
print(D.Distribution._validate_args if hasattr(D.Distribution, "_validate_args") else None)

# ---- reprs, shapes and moments
dists = [
    D.Exponential(torch.tensor([0.5, 2.0], dtype=f64)),
    D.Laplace(torch.tensor(0.0, dtype=f64), torch.tensor(2.0, dtype=f64)),
    D.StudentT(torch.tensor(4.0, dtype=f64)),
    D.Cauchy(torch.tensor([0.0, 1.0], dtype=f64), torch.tensor([1.0, 0.5], dtype=f64)),
    D.LogNormal(torch.tensor(0.0, dtype=f64), torch.tensor(0.5, dtype=f64)),
    D.HalfNormal(torch.tensor([1.0, 3.0], dtype=f64)),
    D.HalfCauchy(torch.tensor(2.0, dtype=f64)),
    D.Gumbel(torch.tensor(1.0, dtype=f64), torch.tensor(2.0, dtype=f64)),
    D.Weibull(torch.tensor(2.0, dtype=f64), torch.tensor(1.5, dtype=f64)),
    D.Pareto(torch.tensor(1.0, dtype=f64), torch.tensor(3.0, dtype=f64)),
    D.Chi2(torch.tensor([3.0], dtype=f64)),
    D.Geometric(probs=torch.tensor([0.2, 0.7], dtype=f64)),
    D.NegativeBinomial(total_count=torch.tensor(5.0, dtype=f64),
                       probs=torch.tensor(0.3, dtype=f64)),
    D.Poisson(torch.tensor([1.0, 4.0], dtype=f64)),
    D.OneHotCategorical(probs=torch.tensor([0.2, 0.3, 0.5], dtype=f64)),
    D.Multinomial(10, probs=torch.tensor([0.2, 0.3, 0.5], dtype=f64)),
    D.ContinuousBernoulli(probs=torch.tensor([0.3, 0.5], dtype=f64)),
    D.Kumaraswamy(torch.tensor(2.0, dtype=f64), torch.tensor(5.0, dtype=f64)),
    D.VonMises(torch.tensor(0.5, dtype=f64), torch.tensor(2.0, dtype=f64)),
    D.InverseGamma(torch.tensor(3.0, dtype=f64), torch.tensor(2.0, dtype=f64)),
    D.FisherSnedecor(torch.tensor(5.0, dtype=f64), torch.tensor(10.0, dtype=f64)),
]
for d in dists:
    print(d)
    print("  batch", tuple(d.batch_shape), "event", tuple(d.event_shape),
          "rsample" if d.has_rsample else "no rsample", d.support)
    for name in ("mean", "mode", "variance"):
        try:
            print(f"  {name}:", getattr(d, name))
        except NotImplementedError as e:
            print(f"  {name}: NotImplementedError", e)
    try:
        print("  entropy:", d.entropy())
    except NotImplementedError:
        print("  entropy: NotImplementedError")

print(D.Exponential.arg_constraints, D.StudentT.arg_constraints)
print(D.Weibull(1.0, 2.0).arg_constraints)
print(constraints.positive, constraints.interval(0, 1), constraints.simplex,
      constraints.integer_interval(0, 5), constraints.greater_than(2.0))
print(constraints.positive.check(torch.tensor([-1.0, 0.0, 2.0])),
      constraints.simplex.check(torch.tensor([[0.5, 0.5], [0.7, 0.7]])))
print(constraints.unit_interval.is_discrete, constraints.nonnegative_integer.is_discrete,
      constraints.real_vector.event_dim)

# cdf / icdf round trips
x = torch.tensor([0.1, 0.5, 1.0, 2.5], dtype=f64)
for d in [D.Exponential(torch.tensor(1.5, dtype=f64)), D.Laplace(0.0, 1.0),
          D.Cauchy(0.0, 1.0), D.Gumbel(0.0, 1.0), D.HalfNormal(torch.tensor(1.0, dtype=f64)),
          D.LogNormal(torch.tensor(0.0, dtype=f64), torch.tensor(1.0, dtype=f64)),
          D.Pareto(torch.tensor(0.05, dtype=f64), torch.tensor(2.0, dtype=f64))]:
    xx = x.to(d.mean.dtype)
    try:
        c = d.cdf(xx)
        print(type(d).__name__, c, d.icdf(c))
    except NotImplementedError:
        print(type(d).__name__, "cdf / icdf NotImplementedError")

# expand and sample shapes
e = D.Exponential(torch.tensor([1.0, 2.0], dtype=f64)).expand(torch.Size([3, 2]))
print(e, e.batch_shape, e.sample((4,)).shape, e.rsample().dtype)
ind = D.Independent(D.Laplace(torch.zeros(3, dtype=f64), torch.ones(3, dtype=f64)), 1)
print(ind, ind.batch_shape, ind.event_shape, ind.log_prob(torch.zeros(2, 3, dtype=f64)))

# argument validation
for make in [lambda: D.Exponential(torch.tensor([-1.0])),
             lambda: D.Poisson(torch.tensor([1.0])).log_prob(torch.tensor([0.5])),
             lambda: D.Geometric(probs=torch.tensor(1.5)),
             lambda: D.Laplace(0.0, 1.0).log_prob(torch.tensor(float("nan"))),
             lambda: D.OneHotCategorical(probs=torch.tensor([0.5, 0.5])).log_prob(
                 torch.tensor([1.0, 1.0]))]:
    try:
        make()
        print("no error")
    except ValueError as err:
        print("ValueError:", err)
print(D.Exponential(torch.tensor([-1.0]), validate_args=False).rate)

# ---- KL divergences
pairs = [
    (D.Exponential(torch.tensor(1.0, dtype=f64)), D.Exponential(torch.tensor(3.0, dtype=f64))),
    (D.Laplace(0.0, 1.0), D.Laplace(1.0, 2.0)),
    (D.Poisson(torch.tensor(2.0, dtype=f64)), D.Poisson(torch.tensor(3.0, dtype=f64))),
    (D.Geometric(probs=torch.tensor(0.3, dtype=f64)),
     D.Geometric(probs=torch.tensor(0.6, dtype=f64))),
    (D.Gumbel(0.0, 1.0), D.Gumbel(1.0, 2.0)),
    (D.Exponential(torch.tensor(2.0, dtype=f64)),
     D.Gamma(torch.tensor(2.0, dtype=f64), torch.tensor(1.0, dtype=f64))),
    (D.OneHotCategorical(probs=torch.tensor([0.2, 0.8], dtype=f64)),
     D.OneHotCategorical(probs=torch.tensor([0.5, 0.5], dtype=f64))),
]
for p, q in pairs:
    print(type(p).__name__, type(q).__name__, D.kl_divergence(p, q))
try:
    D.kl_divergence(D.StudentT(torch.tensor(3.0)), D.Cauchy(0.0, 1.0))
except NotImplementedError as err:
    print("NotImplementedError:", err)


class Shifted(D.Laplace):
    pass


@D.register_kl(Shifted, Shifted)
def _kl_shifted(p, q):
    return (p.loc - q.loc).abs()


print(D.kl_divergence(Shifted(0.0, 1.0), Shifted(2.5, 1.0)))
print(D.kl_divergence(Shifted(0.0, 1.0), D.Laplace(2.5, 1.0)))

# ---- maximum-likelihood fits
n = 200
X = torch.randn(n, 2, dtype=f64)
true_w = torch.tensor([0.8, -0.5], dtype=f64)
rate = (X @ true_w + 0.3).exp()
# counts by inversion of the Poisson cdf from uniforms (a stream both libraries share)
u = torch.rand(n, dtype=f64)
k = torch.zeros(n, dtype=f64)
cdf = torch.exp(-rate)
term = cdf.clone()
for i in range(1, 30):
    k += (u > cdf).to(f64)
    term = term * rate / i
    cdf = cdf + term
print("counts:", k[:10].tolist(), "mean", k.mean().item())

w = torch.zeros(2, dtype=f64, requires_grad=True)
b = torch.zeros((), dtype=f64, requires_grad=True)
opt = torch.optim.LBFGS([w, b], lr=1, max_iter=50, line_search_fn="strong_wolfe")


def closure():
    opt.zero_grad()
    nll = -D.Poisson((X @ w + b).exp()).log_prob(k).mean()
    nll.backward()
    return nll


opt.step(closure)
print("poisson fit:", [round(v, 4) for v in w.tolist()], round(b.item(), 4),
      round(closure().item(), 6))

log_r = torch.zeros((), dtype=f64, requires_grad=True)
w2 = w.detach().clone().requires_grad_()
b2 = b.detach().clone().requires_grad_()
opt = torch.optim.Adam([w2, b2, log_r], lr=0.05)
for step in range(150):
    opt.zero_grad()
    mu = (X @ w2 + b2).exp()
    r = log_r.exp()
    nb = D.NegativeBinomial(total_count=r, logits=(mu / r).log())
    loss = -nb.log_prob(k).mean()
    loss.backward()
    opt.step()
    if step % 50 == 0:
        print(f"negbin step {step} nll {loss.item():.6f} r {r.item():.4f}")
print("negbin mean matches exp(Xw+b):", torch.allclose(nb.mean, mu))

# robust regression: Student-t likelihood vs outliers
t = torch.linspace(0, 1, 50, dtype=f64)
yv = 2.0 * t - 1.0 + 0.05 * torch.randn(50, dtype=f64)
yv[::10] += 3.0
params = torch.zeros(3, dtype=f64, requires_grad=True)
opt = torch.optim.Adam([params], lr=0.05)
for step in range(300):
    opt.zero_grad()
    slope, icpt, log_s = params
    loss = -D.StudentT(2.0, slope * t + icpt, log_s.exp()).log_prob(yv).sum()
    loss.backward()
    opt.step()
print("student-t line:", [round(v, 3) for v in params[:2].tolist()],
      "least squares slope:", round(((t - t.mean()) * (yv - yv.mean())).sum().item()
                                    / ((t - t.mean()) ** 2).sum().item(), 3))

# survival times: a Weibull fitted to inverse-cdf samples
u = torch.rand(300, dtype=f64)
times = 1.5 * (-torch.log1p(-u)) ** (1 / 2.0)
log_params = torch.zeros(2, dtype=f64, requires_grad=True)
opt = torch.optim.Adam([log_params], lr=0.05)
for step in range(200):
    opt.zero_grad()
    scale, conc = log_params.exp()
    loss = -D.Weibull(scale, conc).log_prob(times).mean()
    loss.backward()
    opt.step()
scale, conc = log_params.exp().tolist()
print(f"weibull scale {scale:.3f} concentration {conc:.3f}")
surv = 1 - D.Weibull(torch.tensor(scale, dtype=f64), torch.tensor(conc, dtype=f64)).cdf(
    torch.tensor([0.5, 1.0, 2.0], dtype=f64))
print("survival at 0.5, 1, 2:", surv)

# closed-form MLEs checked by log_prob
z = torch.randn(500, dtype=f64)
lognormal_data = (0.3 + 0.7 * z).exp()
mu_hat = lognormal_data.log().mean()
sigma_hat = lognormal_data.log().std(unbiased=False)
ln = D.LogNormal(mu_hat, sigma_hat)
print(f"lognormal mu {mu_hat.item():.4f} sigma {sigma_hat.item():.4f} "
      f"mean {ln.mean.item():.4f} avg ll {ln.log_prob(lognormal_data).mean().item():.6f}")
laplace_data = torch.distributions.Laplace(torch.tensor(1.0, dtype=f64),
                                           torch.tensor(0.5, dtype=f64)).icdf(
    torch.rand(501, dtype=f64) * 0.998 + 0.001)
loc_hat = laplace_data.median()
scale_hat = (laplace_data - loc_hat).abs().mean()
print(f"laplace loc {loc_hat.item():.4f} scale {scale_hat.item():.4f} "
      f"avg ll {D.Laplace(loc_hat, scale_hat).log_prob(laplace_data).mean().item():.6f}")

m = D.Multinomial(total_count=6, probs=torch.tensor([0.1, 0.2, 0.7], dtype=f64))
counts = torch.tensor([[1.0, 2.0, 3.0], [0.0, 0.0, 6.0]], dtype=f64)
print(m.log_prob(counts), m.log_prob(counts).exp().sum() <= 1)
manual = (math.lgamma(7) - sum(math.lgamma(c + 1) for c in [1, 2, 3])
          + math.log(0.1) + 2 * math.log(0.2) + 3 * math.log(0.7))
print(round(manual, 8), round(m.log_prob(counts)[0].item(), 8))
