"""Physics with autograd in float64, as simulation notebooks write it: forces as the negative
gradient of a potential (autograd.grad), a leapfrog integrator, energy / momentum conservation
checks, a Hamiltonian neural network's vector field with create_graph, and fitting a spring
constant by backpropagating through the simulation."""
import math

import torch

torch.set_default_dtype(torch.float64)
torch.manual_seed(0)


def potential(q, masses, softening=0.05):
    diff = q[:, None, :] - q[None, :, :]
    dist = (diff.pow(2).sum(-1) + softening ** 2).sqrt()
    mm = masses[:, None] * masses[None, :]
    iu = torch.triu_indices(len(q), len(q), offset=1)
    return -(mm / dist)[iu[0], iu[1]].sum()


def forces(q, masses):
    q = q.detach().requires_grad_(True)
    (grad,) = torch.autograd.grad(potential(q, masses), q)
    return -grad


def energy(q, p, masses):
    kinetic = (p.pow(2).sum(-1) / (2 * masses)).sum()
    return kinetic + potential(q, masses)


n = 4
masses = torch.tensor([1.0, 0.5, 0.3, 0.2])
angles = torch.arange(n) * (2 * math.pi / n)
q = torch.stack([angles.cos(), angles.sin()], 1) * torch.tensor([0.1, 1.0, 1.5, 2.0])[:, None]
p = torch.stack([-angles.sin(), angles.cos()], 1) * masses[:, None] * 0.8
p -= p.sum(0) / n  # zero total momentum
print("dtype", q.dtype, "initial energy", f"{energy(q, p, masses).item():.10f}")
print("total momentum", p.sum(0))
dt = 0.01
e0 = energy(q, p, masses).item()
for step in range(1, 301):
    p = p + 0.5 * dt * forces(q, masses)
    q = q + dt * p / masses[:, None]
    p = p + 0.5 * dt * forces(q, masses)
    if step % 100 == 0:
        e = energy(q, p, masses).item()
        print(f"step {step} energy {e:.10f} drift {abs(e - e0) / abs(e0):.3e} momentum {p.sum(0).abs().max().item():.2e}")
print("final positions\n", q)
com = (masses[:, None] * q).sum(0) / masses.sum()
print("centre of mass", com)

# Hamiltonian neural network: the learned H's symplectic gradient as the vector field
hnet = torch.nn.Sequential(torch.nn.Linear(2, 16), torch.nn.Tanh(), torch.nn.Linear(16, 1))
k_true = 2.0
qs = torch.linspace(-1, 1, 32)
ps = torch.linspace(-1, 1, 32).flip(0)
states = torch.stack([qs, ps], 1)
true_field = torch.stack([ps, -k_true * qs], 1)  # dq/dt = p, dp/dt = -k q
opt = torch.optim.Adam(hnet.parameters(), lr=0.02)


def field(x):
    x = x.requires_grad_(True)
    H = hnet(x).sum()
    dH = torch.autograd.grad(H, x, create_graph=True)[0]
    return torch.stack([dH[:, 1], -dH[:, 0]], 1)


for it in range(200):
    loss = (field(states.clone()) - true_field).pow(2).mean()
    opt.zero_grad()
    loss.backward()
    opt.step()
    if it % 50 == 0:
        print(f"hnn iter {it} loss {loss.item():.6f}")
print(f"hnn final loss {loss.item():.6f}")

# fit a spring constant by differentiating through 100 integration steps
target_k = torch.tensor(3.0)


def simulate(k, steps=100, dt=0.05):
    x, v = torch.tensor(1.0), torch.tensor(0.0)
    xs = []
    for _ in range(steps):
        v = v - dt * k * x
        x = x + dt * v
        xs.append(x)
    return torch.stack(xs)


observed = simulate(target_k)
k = torch.tensor(2.0, requires_grad=True)
opt = torch.optim.LBFGS([k], lr=0.5, max_iter=20, line_search_fn="strong_wolfe")


def closure():
    opt.zero_grad()
    loss = (simulate(k) - observed).pow(2).mean()
    loss.backward()
    return loss


for i in range(3):
    loss = opt.step(closure)
    print(f"lbfgs {i} loss {loss.item():.3e} k {k.item():.8f}")
print("analytic period", 2 * math.pi / math.sqrt(target_k.item()))
hess = torch.autograd.functional.hessian(lambda kk: (simulate(kk) - observed).pow(2).mean(), torch.tensor(3.0))
print("curvature at optimum", hess)
torch.set_default_dtype(torch.float32)
print(torch.tensor([1.0]).dtype)
