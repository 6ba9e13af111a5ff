"""Sharpness-Aware Minimization (the davda54/sam optimizer wrapper, a closure-based second step)
and a natural-evolution-strategies loop over a flat parameter vector (parameters_to_vector /
vector_to_parameters), both on a small regression problem."""
import torch
import torch.nn as nn
import torch.nn.functional as F
from torch.nn.utils import parameters_to_vector, vector_to_parameters


class SAM(torch.optim.Optimizer):
    def __init__(self, params, base_optimizer, rho=0.05, adaptive=False, **kwargs):
        assert rho >= 0.0, f"Invalid rho, should be non-negative: {rho}"
        defaults = dict(rho=rho, adaptive=adaptive, **kwargs)
        super(SAM, self).__init__(params, defaults)
        self.base_optimizer = base_optimizer(self.param_groups, **kwargs)
        self.param_groups = self.base_optimizer.param_groups
        self.defaults.update(self.base_optimizer.defaults)

    @torch.no_grad()
    def first_step(self, zero_grad=False):
        grad_norm = self._grad_norm()
        for group in self.param_groups:
            scale = group["rho"] / (grad_norm + 1e-12)
            for p in group["params"]:
                if p.grad is None:
                    continue
                self.state[p]["old_p"] = p.data.clone()
                e_w = (torch.pow(p, 2) if group["adaptive"] else 1.0) * p.grad * scale.to(p)
                p.add_(e_w)
        if zero_grad:
            self.zero_grad()

    @torch.no_grad()
    def second_step(self, zero_grad=False):
        for group in self.param_groups:
            for p in group["params"]:
                if p.grad is None:
                    continue
                p.data = self.state[p]["old_p"]
        self.base_optimizer.step()
        if zero_grad:
            self.zero_grad()

    @torch.no_grad()
    def step(self, closure=None):
        assert closure is not None, "Sharpness Aware Minimization requires closure, but it was not provided"
        closure = torch.enable_grad()(closure)
        self.first_step(zero_grad=True)
        closure()
        self.second_step()

    def _grad_norm(self):
        shared_device = self.param_groups[0]["params"][0].device
        norm = torch.norm(
            torch.stack([
                ((torch.abs(p) if group["adaptive"] else 1.0) * p.grad).norm(p=2).to(shared_device)
                for group in self.param_groups for p in group["params"]
                if p.grad is not None
            ]),
            p=2
        )
        return norm

    def load_state_dict(self, state_dict):
        super().load_state_dict(state_dict)
        self.base_optimizer.param_groups = self.param_groups


torch.manual_seed(0)
X = torch.linspace(-2, 2, 64).unsqueeze(1)
y = torch.sin(2 * X) + 0.1 * torch.randn_like(X)


def make_model():
    torch.manual_seed(1)
    return nn.Sequential(nn.Linear(1, 16), nn.Tanh(), nn.Linear(16, 1))


model = make_model()
optimizer = SAM(model.parameters(), torch.optim.SGD, rho=0.05, lr=0.1, momentum=0.9)
print(optimizer)
print(sorted(optimizer.defaults.items()))
for epoch in range(30):
    def closure():
        loss = F.mse_loss(model(X), y)
        loss.backward()
        return loss

    loss = F.mse_loss(model(X), y)
    loss.backward()
    optimizer.step(closure)
    optimizer.zero_grad()
    if epoch % 10 == 0 or epoch == 29:
        print(f"SAM epoch {epoch:2d} loss {loss.item():.6f}")
print("state keys", sorted(optimizer.state[next(model.parameters())].keys()))
sd = optimizer.state_dict()
print("state_dict groups", [sorted(g.keys()) for g in sd["param_groups"]])

adaptive = SAM(make_model().parameters(), torch.optim.Adam, rho=2.0, adaptive=True, lr=1e-2)
print(type(adaptive.base_optimizer).__name__, adaptive.param_groups[0]["rho"], adaptive.param_groups[0]["adaptive"])

# --- natural evolution strategies on the same problem ---
model = make_model()
theta = parameters_to_vector(model.parameters()).detach()
print("num params", theta.numel(), theta.shape, theta.dtype)
sigma, alpha, popsize = 0.1, 0.03, 40
gen = torch.Generator().manual_seed(123)


@torch.no_grad()
def fitness(vec):
    vector_to_parameters(vec, model.parameters())
    return -F.mse_loss(model(X), y).item()


for it in range(40):
    noise = torch.randn(popsize, theta.numel(), generator=gen)
    rewards = torch.tensor([fitness(theta + sigma * n) for n in noise])
    ranks = torch.empty_like(rewards)
    ranks[rewards.argsort()] = torch.arange(popsize, dtype=torch.float32)
    shaped = ranks / (popsize - 1) - 0.5
    theta = theta + alpha / (popsize * sigma) * noise.t() @ shaped
    if it % 10 == 0 or it == 39:
        print(f"ES iter {it:2d} fitness {fitness(theta):.5f} best-in-pop {rewards.max().item():.5f}")
vector_to_parameters(theta, model.parameters())
print("params copied back:", torch.equal(parameters_to_vector(model.parameters()), theta))
print("first layer bias", model[0].bias.data[:4])
