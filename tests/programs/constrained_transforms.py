"""Constrained parameters the way probabilistic-programming code (Pyro-style guides,
variational inference scripts) handles them: torch.distributions.constraints and
biject_to / transform_to for an unconstrained parametrization, the transforms themselves
(Exp, Affine, Sigmoid, Tanh, StickBreaking, LowerCholesky, Compose, inv, their
log_abs_det_jacobian and shapes), TransformedDistribution, Wishart / LKJCholesky /
RelaxedOneHotCategorical / RelaxedBernoulli log_probs, and a small mean-field VI fit whose
variational parameters live in unconstrained space."""
import torch
from torch.distributions import (Dirichlet, Gamma, LKJCholesky, LogNormal, Normal,
                                 RelaxedBernoulli, RelaxedOneHotCategorical,
                                 TransformedDistribution, Wishart, biject_to, constraints,
                                 kl_divergence, transform_to)
from torch.distributions.transforms import (AffineTransform, ComposeTransform, ExpTransform,
                                            LowerCholeskyTransform, SigmoidTransform,
                                            StickBreakingTransform, TanhTransform)

torch.set_printoptions(precision=5)

# constraints: checks and reprs
x = torch.tensor([-1.0, 0.0, 0.5, 2.0])
for c in [constraints.positive, constraints.nonnegative, constraints.unit_interval,
          constraints.interval(-1.0, 1.0), constraints.half_open_interval(0.0, 1.0),
          constraints.greater_than(0.0), constraints.less_than(1.0), constraints.real,
          constraints.boolean, constraints.integer_interval(0, 2)]:
    print(c, c.check(x))
print(constraints.simplex.check(torch.tensor([[0.2, 0.8], [0.5, 0.6]])))
print(constraints.lower_cholesky.check(torch.tensor([[1.0, 0.0], [0.3, 2.0]])))
print(constraints.positive_definite.check(torch.tensor([[2.0, 0.5], [0.5, 1.0]])))
print(constraints.real_vector.event_dim, constraints.simplex.event_dim,
      constraints.positive.is_discrete, constraints.nonnegative_integer.is_discrete)

# biject_to / transform_to
u = torch.tensor([-2.0, -0.5, 0.0, 1.5])
for c in [constraints.positive, constraints.interval(2.0, 5.0), constraints.unit_interval,
          constraints.greater_than(3.0), constraints.less_than(-1.0), constraints.real]:
    t = biject_to(c)
    y = t(u)
    print(type(t).__name__, y, t.inv(y), t.log_abs_det_jacobian(u, y))
t = biject_to(constraints.simplex)
y = t(torch.tensor([0.3, -0.2, 1.1]))
print("simplex", y, y.sum(), t.inv(y))
print("stick-breaking ladj", t.log_abs_det_jacobian(torch.tensor([0.3, -0.2, 1.1]), y))
print(type(transform_to(constraints.simplex)).__name__)
lc = transform_to(constraints.lower_cholesky)
L = lc(torch.tensor([[0.5, 9.0], [-0.3, -1.0]]))
print("lower cholesky", L, type(lc).__name__)

# transforms and their composition
comp = ComposeTransform([AffineTransform(1.0, 2.0), ExpTransform()])
z = torch.tensor([0.0, 0.5, -1.0])
y = comp(z)
# (the round trip's exact zero is float32 log's last bit: MKL's VML in torch, programs_gaps 56)
print(y, torch.allclose(comp.inv(y), z, atol=1e-6), comp.log_abs_det_jacobian(z, y))
print(comp.domain, comp.codomain, comp.bijective, comp.sign)
print(SigmoidTransform()(z), TanhTransform()(z), TanhTransform().inv(torch.tensor([0.5])))
st = StickBreakingTransform()
print(st.forward_shape((4, 3)), st.inverse_shape((4, 4)))
inv = ExpTransform().inv
print(type(inv).__name__, inv(torch.tensor([1.0, 2.0])), inv.inv is not None)
print(LowerCholeskyTransform().codomain)

# transformed distributions
base = Normal(torch.tensor(0.3), torch.tensor(0.8))
logn = TransformedDistribution(base, [ExpTransform()])
ref = LogNormal(torch.tensor(0.3), torch.tensor(0.8))
v = torch.tensor([0.5, 1.0, 3.0])
print(logn.log_prob(v), ref.log_prob(v))
print(logn.support, logn.batch_shape, logn.event_shape)
scaled = TransformedDistribution(Normal(0.0, 1.0), [AffineTransform(loc=2.0, scale=3.0),
                                                    SigmoidTransform()])
print(scaled.log_prob(torch.tensor([0.2, 0.9])), scaled.cdf(torch.tensor([0.2, 0.9])))

# matrix and relaxed distributions
W = Wishart(df=torch.tensor(5.0), covariance_matrix=torch.tensor([[2.0, 0.3], [0.3, 1.0]]))
print("wishart", W.log_prob(torch.tensor([[3.0, 0.5], [0.5, 2.0]])), W.mean, W.variance)
print(W.batch_shape, W.event_shape, W.support)
lkj = LKJCholesky(3, concentration=torch.tensor(2.0))
Lc = torch.linalg.cholesky(torch.tensor([[1.0, 0.3, 0.1], [0.3, 1.0, -0.2], [0.1, -0.2, 1.0]]))
print("lkj", lkj.log_prob(Lc), lkj.event_shape)
relaxed = RelaxedOneHotCategorical(torch.tensor(0.5), probs=torch.tensor([0.2, 0.3, 0.5]))
print("relaxed cat", relaxed.log_prob(torch.tensor([0.1, 0.2, 0.7])), relaxed.temperature)
rb = RelaxedBernoulli(torch.tensor(0.7), logits=torch.tensor([0.5, -1.0]))
print("relaxed bern", rb.log_prob(torch.tensor([0.3, 0.6])), rb.support)
torch.manual_seed(0)
s = relaxed.rsample((4,))
print("relaxed samples on simplex:", bool(torch.allclose(s.sum(-1), torch.ones(4))),
      s.shape, s.requires_grad)
dir_ = Dirichlet(torch.tensor([2.0, 3.0, 4.0]))
print("dirichlet", dir_.log_prob(torch.tensor([0.2, 0.3, 0.5])), dir_.mean,
      dir_.entropy())

# mean-field VI: q(rate) = LogNormal in unconstrained space, Gamma prior, Poisson data
counts = torch.tensor([3.0, 5.0, 2.0, 4.0, 6.0, 3.0])
prior = Gamma(torch.tensor(2.0), torch.tensor(0.5))
loc = torch.zeros((), requires_grad=True)
raw_scale = torch.zeros((), requires_grad=True)
opt = torch.optim.Adam([loc, raw_scale], lr=0.05)
to_pos = biject_to(constraints.positive)
eps = torch.tensor([-1.2, -0.4, 0.0, 0.3, 0.9, 1.5])  # fixed quadrature points
for step in range(201):
    q_base = Normal(loc, to_pos(raw_scale))
    z = loc + to_pos(raw_scale) * eps
    rate = to_pos(z)
    log_lik = torch.distributions.Poisson(rate.unsqueeze(-1)).log_prob(counts).sum(-1)
    log_prior = prior.log_prob(rate) + to_pos.log_abs_det_jacobian(z, rate)
    elbo = (log_lik + log_prior).mean() + q_base.entropy()
    opt.zero_grad()
    (-elbo).backward()
    opt.step()
    if step % 50 == 0:
        print(f"step {step} elbo {elbo.item():.4f} loc {loc.item():.4f} "
              f"scale {to_pos(raw_scale).item():.4f}")
q = LogNormal(loc.detach(), to_pos(raw_scale).detach())
print("posterior mean rate", round(q.mean.item(), 3))
print("kl(q_base || N(0, 1))", kl_divergence(Normal(loc.detach(), to_pos(raw_scale).detach()),
                                             Normal(0.0, 1.0)))
