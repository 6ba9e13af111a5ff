"""torch.distributions the way models use it: a Gaussian policy (REINFORCE with a baseline), a
Gaussian mixture fitted by maximum likelihood, a VAE-style reparameterized ELBO, constraints.
In float64 (explicit dtypes: the default dtype is global state the other programs share), where
both libraries draw the same random numbers bit for bit."""
import torch
import torch.nn as nn
import torch.nn.functional as F
from torch.distributions import (
    Categorical,
    Independent,
    MixtureSameFamily,
    MultivariateNormal,
    Normal,
    TransformedDistribution,
    biject_to,
    constraints,
    kl_divergence,
)
from torch.distributions.transforms import AffineTransform, TanhTransform

torch.manual_seed(0)
f64 = torch.float64

# --- a squashed Gaussian policy learns to output the target action 0.6 ---
class Policy(nn.Module):
    def __init__(self):
        super().__init__()
        self.body = nn.Linear(2, 16, dtype=f64)
        self.mu = nn.Linear(16, 1, dtype=f64)
        self.log_std = nn.Parameter(torch.zeros(1, dtype=f64))

    def forward(self, obs):
        h = torch.tanh(self.body(obs))
        base = Normal(self.mu(h), self.log_std.exp())
        return TransformedDistribution(base, [TanhTransform(cache_size=1)])


policy = Policy()
opt = torch.optim.Adam(policy.parameters(), lr=0.05)
obs = torch.tensor([[1.0, -1.0]], dtype=f64)
baseline = 0.0
for step in range(60):
    dist = policy(obs)
    actions = dist.sample((32,))
    rewards = -(actions - 0.6).pow(2).squeeze(-1).squeeze(-1)
    baseline = 0.9 * baseline + 0.1 * rewards.mean().item()
    loss = -(dist.log_prob(actions).squeeze(-1).squeeze(-1) * (rewards - baseline)).mean()
    opt.zero_grad()
    loss.backward()
    opt.step()
    if step % 20 == 19:
        print(f"policy step {step + 1}: mean reward {rewards.mean().item():.4f}")
print(dist.base_dist)
print("policy mean action", round(dist.sample((2000,)).mean().item(), 1))

# --- a two-component Gaussian mixture fitted by maximum likelihood ---
data = torch.cat([torch.randn(200, dtype=f64) * 0.5 - 2.0, torch.randn(300, dtype=f64) * 0.8 + 1.5])
logits = torch.zeros(2, dtype=f64, requires_grad=True)
means = torch.tensor([-0.5, 0.5], dtype=f64, requires_grad=True)
log_scales = torch.zeros(2, dtype=f64, requires_grad=True)
opt = torch.optim.Adam([logits, means, log_scales], lr=0.05)
for step in range(150):
    gmm = MixtureSameFamily(Categorical(logits=logits), Normal(means, log_scales.exp()))
    nll = -gmm.log_prob(data).mean()
    opt.zero_grad()
    nll.backward()
    opt.step()
    if step % 50 == 49:
        print(f"gmm step {step + 1}: nll {nll.item():.4f}")
print("weights", F.softmax(logits, -1).detach().numpy().round(2),
      "means", means.detach().numpy().round(2))
print(gmm.mean.item() > 0, gmm.sample((3,)).shape, gmm.batch_shape, gmm.event_shape)

# --- a VAE-style ELBO: reparameterized samples, analytic KL to the prior ---
enc = nn.Linear(4, 6, dtype=f64)
dec = nn.Linear(3, 4, dtype=f64)
x = torch.rand(8, 4, dtype=f64)
mu, log_var = enc(x).chunk(2, dim=-1)
q = Independent(Normal(mu, (0.5 * log_var).exp()), 1)
prior = Independent(Normal(torch.zeros_like(mu), torch.ones_like(mu)), 1)
z = q.rsample()
recon = Independent(Normal(dec(z), 1.0), 1).log_prob(x)
elbo = (recon - kl_divergence(q, prior)).mean()
(-elbo).backward()
print(f"elbo {elbo.item():.4f}", q, q.batch_shape, q.event_shape)
print("encoder grad norm", round(enc.weight.grad.norm().item(), 4))
mvn = MultivariateNormal(torch.zeros(3, dtype=f64), covariance_matrix=torch.eye(3, dtype=f64) * 2)
print(f"kl(q0 || mvn) {kl_divergence(MultivariateNormal(mu[0], torch.diag(log_var[0].exp())), mvn).item():.4f}")

# --- constraints and bijections ---
unconstrained = torch.tensor([-1.0, 0.0, 2.0])
for c in [constraints.positive, constraints.unit_interval, constraints.simplex,
          constraints.interval(-2.0, 2.0)]:
    t = biject_to(c)
    y = t(unconstrained)
    print(c, t, y.detach().numpy().round(4), bool(c.check(y).all()))
affine = AffineTransform(1.0, 2.0)
print(affine.inv(affine(unconstrained)), affine.sign, Normal(0.0, 1.0).support)
try:
    Normal(torch.tensor([0.0]), torch.tensor([-1.0]))
except ValueError as e:
    print("ValueError:", str(e).splitlines()[0])
