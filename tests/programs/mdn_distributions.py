"""A mixture density network and a Bayesian-flavoured regression with torch.distributions:
MixtureSameFamily(Categorical, Independent(Normal)), log_prob / sample / rsample, a
LowRankMultivariateNormal and MultivariateNormal, kl_divergence (analytic and registered),
a TransformedDistribution (tanh-squashed Gaussian policy of SAC), constraints and
validate_args errors."""
import math

import torch
import torch.distributions as D
import torch.nn as nn

torch.manual_seed(0)
# the inverse-sine dataset of Bishop's MDN example: y -> x is multi-valued
y = torch.rand(600, 1) * 2 - 1
x = y + 0.3 * torch.sin(2 * math.pi * y) + 0.05 * torch.randn(600, 1)


class MDN(nn.Module):
    def __init__(self, n_components=3, hidden=32):
        super().__init__()
        self.body = nn.Sequential(nn.Linear(1, hidden), nn.Tanh(), nn.Linear(hidden, hidden), nn.Tanh())
        self.pi = nn.Linear(hidden, n_components)
        self.mu = nn.Linear(hidden, n_components)
        self.log_sigma = nn.Linear(hidden, n_components)

    def forward(self, inp):
        h = self.body(inp)
        mix = D.Categorical(logits=self.pi(h))
        comp = D.Independent(D.Normal(self.mu(h).unsqueeze(-1), self.log_sigma(h).exp().unsqueeze(-1)), 1)
        return D.MixtureSameFamily(mix, comp)


model = MDN()
dist = model(x[:4])
print(dist.batch_shape, dist.event_shape)
print(type(dist.component_distribution).__name__, dist.mixture_distribution)
opt = torch.optim.Adam(model.parameters(), lr=1e-2)
for step in range(150):
    loss = -model(x).log_prob(y).mean()
    opt.zero_grad()
    loss.backward()
    opt.step()
    if step % 50 == 49:
        print(f"step {step + 1} nll {loss.item():.4f}")

with torch.no_grad():
    d = model(torch.tensor([[0.0]]))
    samples = d.sample((2000,))
    print("samples", tuple(samples.shape), "mean", round(d.mean.item(), 3), "var", round(d.variance.item(), 3))
    print("weights", d.mixture_distribution.probs.round(decimals=3))

# reparameterized samples carry gradients, plain samples do not
mu = torch.zeros(3, requires_grad=True)
normal = D.Normal(mu, torch.ones(3))
print("has_rsample:", normal.has_rsample, "rsample grad_fn:", normal.rsample().grad_fn is not None,
      "sample grad_fn:", normal.sample().grad_fn)
print(normal.entropy(), normal.cdf(torch.tensor([0.0, 1.0, -1.0])), normal.icdf(torch.tensor([0.5, 0.975, 0.025])))

# multivariate normals
cov = torch.tensor([[2.0, 0.3], [0.3, 0.5]])
mvn = D.MultivariateNormal(torch.zeros(2), covariance_matrix=cov)
print(mvn)
print("scale_tril", mvn.scale_tril)
print("log_prob", mvn.log_prob(torch.tensor([[0.5, -0.2], [1.0, 1.0]])))
lr = D.LowRankMultivariateNormal(torch.zeros(2), cov_factor=torch.tensor([[1.0], [0.5]]), cov_diag=torch.tensor([0.5, 0.25]))
print("low-rank covariance", lr.covariance_matrix)
print("kl(mvn || lowrank)", D.kl_divergence(mvn, D.MultivariateNormal(torch.zeros(2), lr.covariance_matrix)))
print("kl(normal || normal)", D.kl_divergence(D.Normal(0.0, 1.0), D.Normal(1.0, 2.0)))
print("kl(cat || cat)", D.kl_divergence(D.Categorical(probs=torch.tensor([0.2, 0.8])), D.Categorical(probs=torch.tensor([0.5, 0.5]))))


class MyUniform(D.Uniform):
    pass


@D.kl.register_kl(MyUniform, MyUniform)
def _kl_my_uniform(p, q):
    return torch.log((q.high - q.low) / (p.high - p.low))


print("registered kl", D.kl_divergence(MyUniform(0.0, 1.0), MyUniform(-1.0, 2.0)))

# the tanh-squashed Gaussian policy of soft actor-critic
base = D.Normal(torch.tensor([0.3, -0.5]), torch.tensor([0.2, 0.4]))
policy = D.TransformedDistribution(base, [D.transforms.TanhTransform(cache_size=1)])
torch.manual_seed(1)
a = policy.rsample()
print("action", a, "log_prob", policy.log_prob(a))
manual = base.log_prob(torch.atanh(a)) - torch.log1p(-a.pow(2) + 1e-6)
print("matches manual correction:", torch.allclose(policy.log_prob(a), manual, atol=1e-3))
print(D.constraints.positive, D.Normal.arg_constraints)
try:
    D.Normal(0.0, -1.0)
except ValueError as e:
    print("ValueError:", str(e).split("\n")[0][:90])
bern = D.Bernoulli(logits=torch.tensor([0.0, 2.0]))
print(bern.probs, bern.log_prob(torch.tensor([1.0, 0.0])), bern.enumerate_support())
