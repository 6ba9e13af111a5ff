"""Implicit neural representations with SIREN (Sitzmann et al.; the explore_siren notebook):
SineLayer with omega_0 = 30 and its uniform initialization (first layer +-1/in, later
+-sqrt(6/in)/omega_0), get_mgrid with torch.linspace / meshgrid / stack / reshape, fitting a
small synthetic image, the coordinates' gradient and Laplacian by autograd.grad with
create_graph (the notebook's gradient / divergence / laplace helpers), a ReLU + positional
encoding baseline for comparison, and fitting the image from its gradients only
(Poisson reconstruction)."""
import math

import numpy as np
import torch
from torch import nn

torch.manual_seed(0)


def get_mgrid(sidelen, dim=2):
    tensors = tuple(dim * [torch.linspace(-1, 1, steps=sidelen)])
    mgrid = torch.stack(torch.meshgrid(*tensors, indexing="ij"), dim=-1)
    mgrid = mgrid.reshape(-1, dim)
    return mgrid


class SineLayer(nn.Module):
    def __init__(self, in_features, out_features, bias=True, is_first=False, omega_0=30):
        super().__init__()
        self.omega_0 = omega_0
        self.is_first = is_first
        self.in_features = in_features
        self.linear = nn.Linear(in_features, out_features, bias=bias)
        self.init_weights()

    def init_weights(self):
        with torch.no_grad():
            if self.is_first:
                self.linear.weight.uniform_(-1 / self.in_features, 1 / self.in_features)
            else:
                self.linear.weight.uniform_(-np.sqrt(6 / self.in_features) / self.omega_0,
                                            np.sqrt(6 / self.in_features) / self.omega_0)

    def forward(self, input):
        return torch.sin(self.omega_0 * self.linear(input))

    def extra_repr(self):
        return f"omega_0={self.omega_0}, is_first={self.is_first}"


class Siren(nn.Module):
    def __init__(self, in_features, hidden_features, hidden_layers, out_features, outermost_linear=False,
                 first_omega_0=30, hidden_omega_0=30.0):
        super().__init__()
        self.net = [SineLayer(in_features, hidden_features, is_first=True, omega_0=first_omega_0)]
        for i in range(hidden_layers):
            self.net.append(SineLayer(hidden_features, hidden_features, is_first=False, omega_0=hidden_omega_0))
        if outermost_linear:
            final_linear = nn.Linear(hidden_features, out_features)
            with torch.no_grad():
                final_linear.weight.uniform_(-np.sqrt(6 / hidden_features) / hidden_omega_0,
                                             np.sqrt(6 / hidden_features) / hidden_omega_0)
            self.net.append(final_linear)
        else:
            self.net.append(SineLayer(hidden_features, out_features, is_first=False, omega_0=hidden_omega_0))
        self.net = nn.Sequential(*self.net)

    def forward(self, coords):
        coords = coords.clone().detach().requires_grad_(True)
        output = self.net(coords)
        return output, coords


def gradient(y, x, grad_outputs=None):
    if grad_outputs is None:
        grad_outputs = torch.ones_like(y)
    grad = torch.autograd.grad(y, [x], grad_outputs=grad_outputs, create_graph=True)[0]
    return grad


def divergence(y, x):
    div = 0.0
    for i in range(y.shape[-1]):
        div += torch.autograd.grad(y[..., i], x, torch.ones_like(y[..., i]), create_graph=True)[0][..., i:i + 1]
    return div


def laplace(y, x):
    grad = gradient(y, x)
    return divergence(grad, x)


class PosEncReLU(nn.Module):
    def __init__(self, n_freq=4, hidden=64):
        super().__init__()
        self.register_buffer("freqs", 2.0 ** torch.arange(n_freq) * math.pi)
        self.net = nn.Sequential(nn.Linear(2 + 4 * n_freq, hidden), nn.ReLU(), nn.Linear(hidden, hidden), nn.ReLU(), nn.Linear(hidden, 1))

    def forward(self, coords):
        proj = coords[..., None] * self.freqs
        enc = torch.cat([coords, proj.sin().flatten(-2), proj.cos().flatten(-2)], -1)
        return self.net(enc)


sidelen = 16
coords = get_mgrid(sidelen)
print("mgrid", tuple(coords.shape), coords[:3], coords[-1])
x, y = coords[:, 0], coords[:, 1]
img = (torch.sin(3 * x) * torch.cos(2 * y) + 0.5 * (x ** 2 - y ** 2)).reshape(-1, 1)
print("image stats", f"{img.mean().item():.5f} {img.std().item():.5f}")

siren = Siren(in_features=2, out_features=1, hidden_features=32, hidden_layers=2, outermost_linear=True)
print(siren)
first = siren.net[0].linear.weight
print("first-layer init within +-1/2:", bool((first.abs() <= 0.5).all()))
out, c = siren(coords)
print("output", tuple(out.shape), "coords require grad:", c.requires_grad, "grad_fn", out.grad_fn.name())

# analytic check of the derivative helpers on f(x, y) = x^2 y + sin(y)
p = torch.tensor([[0.5, -1.0], [1.5, 2.0]], requires_grad=True)
f = (p[:, 0] ** 2 * p[:, 1] + torch.sin(p[:, 1])).unsqueeze(-1)
g = gradient(f, p)
print("gradient", g)
print("laplacian", laplace(f, p))

optim = torch.optim.Adam(lr=1e-3, params=siren.parameters())
for step in range(60):
    model_output, coords_ = siren(coords)
    loss = ((model_output - img) ** 2).mean()
    if step % 20 == 0:
        img_grad = gradient(model_output, coords_)
        img_laplacian = laplace(model_output, coords_)
        print(f"Step {step}, Total loss {loss.item():0.6f} grad norm {img_grad.norm(dim=-1).mean().item():.4f} "
              f"laplacian {img_laplacian.abs().mean().item():.4f}")
    optim.zero_grad()
    loss.backward()
    optim.step()
print("siren loss below 0.01:", loss.item() < 0.01)

torch.manual_seed(1)
baseline = PosEncReLU()
opt = torch.optim.Adam(baseline.parameters(), lr=1e-3)
for step in range(60):
    loss_b = ((baseline(coords) - img) ** 2).mean()
    opt.zero_grad()
    loss_b.backward()
    opt.step()
print(f"relu+PE baseline loss {loss_b.item():.6f}")

# Poisson: fit the image from its gradient field only
torch.manual_seed(2)
c = coords.clone().requires_grad_(True)
target_grad = torch.autograd.grad(((torch.sin(3 * c[:, 0]) * torch.cos(2 * c[:, 1]) + 0.5 * (c[:, 0] ** 2 - c[:, 1] ** 2))).sum(), c)[0]
poisson = Siren(2, 32, 2, 1, outermost_linear=True)
opt = torch.optim.Adam(poisson.parameters(), lr=1e-3)
for step in range(40):
    out, cc = poisson(coords)
    loss_p = ((gradient(out, cc) - target_grad) ** 2).sum(-1).mean()
    opt.zero_grad()
    loss_p.backward()
    opt.step()
    if step % 20 == 0:
        print(f"poisson step {step} gradient loss {loss_p.item():.6f}")
with torch.no_grad():
    rec = poisson.net(coords)
rec = rec - rec.mean() + img.mean()
print(f"poisson reconstruction mse {((rec - img) ** 2).mean().item():.6f}")
