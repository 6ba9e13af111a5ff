"""A RealNVP normalizing flow on 2-D moons-like data, then torch.func (grad, vmap, jacrev, hessian, functional_call) and a Hamiltonian with autograd.grad(create_graph=True)."""
import math

import torch
import torch.nn as nn
from torch.func import functional_call, grad, hessian, jacrev, vmap

torch.manual_seed(5)


def sample_moons(n):
    t = torch.rand(n) * math.pi
    upper = torch.stack([torch.cos(t), torch.sin(t)], dim=1)
    lower = torch.stack([1 - torch.cos(t), 0.5 - torch.sin(t)], dim=1)
    x = torch.where((torch.arange(n) % 2 == 0).unsqueeze(1), upper, lower)
    return x + 0.05 * torch.randn(n, 2)


class AffineCoupling(nn.Module):
    def __init__(self, mask, hidden=32):
        super().__init__()
        self.register_buffer("mask", mask)
        self.net = nn.Sequential(nn.Linear(2, hidden), nn.Tanh(), nn.Linear(hidden, 4))

    def forward(self, x):
        xm = x * self.mask
        s, t = self.net(xm).chunk(2, dim=1)
        s = torch.tanh(s) * (1 - self.mask)
        t = t * (1 - self.mask)
        y = xm + (1 - self.mask) * (x * torch.exp(s) + t)
        return y, s.sum(dim=1)

    def inverse(self, y):
        ym = y * self.mask
        s, t = self.net(ym).chunk(2, dim=1)
        s = torch.tanh(s) * (1 - self.mask)
        t = t * (1 - self.mask)
        return ym + (1 - self.mask) * (y - t) * torch.exp(-s)


class RealNVP(nn.Module):
    def __init__(self, n_layers=4):
        super().__init__()
        masks = [torch.tensor([1.0, 0.0]) if i % 2 == 0 else torch.tensor([0.0, 1.0]) for i in range(n_layers)]
        self.layers = nn.ModuleList(AffineCoupling(m) for m in masks)

    def forward(self, x):
        log_det = torch.zeros(x.shape[0])
        for layer in self.layers:
            x, ld = layer(x)
            log_det = log_det + ld
        return x, log_det

    def inverse(self, z):
        for layer in reversed(self.layers):
            z = layer.inverse(z)
        return z

    def log_prob(self, x):
        z, log_det = self(x)
        base = -0.5 * (z ** 2).sum(dim=1) - math.log(2 * math.pi)
        return base + log_det


flow = RealNVP()
print(flow.layers[0])
opt = torch.optim.Adam(flow.parameters(), lr=5e-3)
for step in range(1, 151):
    x = sample_moons(128)
    loss = -flow.log_prob(x).mean()
    opt.zero_grad()
    loss.backward()
    opt.step()
    if step % 50 == 0:
        print(f"step {step} nll {loss.item():.4f}")

with torch.no_grad():
    x = sample_moons(8)
    z, _ = flow(x)
    x_rec = flow.inverse(z)
print("inverse reconstructs:", torch.allclose(x, x_rec, atol=1e-5))

# log-det check against the autograd Jacobian of one sample
x0 = sample_moons(1)[0]
J = torch.autograd.functional.jacobian(lambda v: flow(v.unsqueeze(0))[0].squeeze(0), x0)
_, ld = flow(x0.unsqueeze(0))
print("jacobian shape:", J.shape, "log|det J| matches:",
      torch.allclose(torch.logdet(J).detach(), ld.detach()[0], atol=1e-4))

# torch.func on a small functional model
params = {k: v.detach() for k, v in flow.layers[0].net.named_parameters()}
print("params:", {k: tuple(v.shape) for k, v in params.items()})


def f(p, x):
    return functional_call(flow.layers[0].net, p, (x,)).pow(2).sum()


g = grad(f)(params, torch.ones(1, 2))
print("grad keys:", sorted(g), "bias grad shape:", g["2.bias"].shape)
xs = torch.randn(5, 2)
per_sample = vmap(grad(lambda x: torch.sin(x).pow(2).sum()))(xs)
print("per-sample grads match:", torch.allclose(per_sample, torch.sin(2 * xs), atol=1e-6))
jac = jacrev(lambda x: x.sin() * x.sum())(torch.tensor([0.1, 0.2, 0.3]))
print("jacrev:\n", jac)
print("hessian:\n", hessian(lambda x: (x ** 3).sum())(torch.tensor([1.0, 2.0])))


# a pendulum Hamiltonian: dq/dt = dH/dp, dp/dt = -dH/dq, with the gradient kept differentiable
def hamiltonian(q, p):
    return 0.5 * p ** 2 + (1 - torch.cos(q))


q = torch.tensor([1.0], requires_grad=True)
p = torch.tensor([0.0], requires_grad=True)
dt = 0.05
energies = []
for _ in range(100):
    H = hamiltonian(q, p)
    dHdq, dHdp = torch.autograd.grad(H.sum(), (q, p), create_graph=True)
    p = p - dt * dHdq  # symplectic Euler
    q = q + dt * torch.autograd.grad(hamiltonian(q, p).sum(), p, create_graph=True)[0]
    energies.append(hamiltonian(q, p).item())
print(f"energy drift: {max(energies) - min(energies):.5f}")
print("q requires grad:", q.requires_grad, "graph kept:", q.grad_fn is not None)
