"""MAML on sine-wave regression (Finn et al.'s toy problem): an inner SGD step on fast weights
computed with torch.autograd.grad(create_graph=True), the outer Adam step through the inner
update (second order), first-order MAML, functional forwards with torch.func.functional_call
and torch.nn.utils.stateless.functional_call, and adaptation at test time."""
import math
from collections import OrderedDict

import torch
import torch.nn as nn
import torch.nn.functional as F
from torch.func import functional_call


def sample_task(generator):
    amplitude = 0.1 + 4.9 * torch.rand(1, generator=generator).item()
    phase = math.pi * torch.rand(1, generator=generator).item()
    return amplitude, phase


def sample_points(task, k, generator):
    amplitude, phase = task
    x = torch.rand(k, 1, generator=generator) * 10 - 5
    return x, amplitude * torch.sin(x + phase)


class SineNet(nn.Module):
    def __init__(self):
        super().__init__()
        self.net = nn.Sequential(nn.Linear(1, 40), nn.ReLU(), nn.Linear(40, 40), nn.ReLU(), nn.Linear(40, 1))

    def forward(self, x):
        return self.net(x)


def inner_adapt(model, params, x, y, lr, steps, first_order=False):
    for _ in range(steps):
        loss = F.mse_loss(functional_call(model, params, (x,)), y)
        grads = torch.autograd.grad(loss, params.values(), create_graph=not first_order)
        params = OrderedDict((name, p - lr * g) for (name, p), g in zip(params.items(), grads))
    return params


torch.manual_seed(0)
gen = torch.Generator().manual_seed(42)
model = SineNet()
meta_opt = torch.optim.Adam(model.parameters(), lr=1e-3)
K, INNER_LR, META_BATCH = 10, 0.01, 4

for iteration in range(60):
    meta_opt.zero_grad()
    meta_loss = 0.0
    for _ in range(META_BATCH):
        task = sample_task(gen)
        x_s, y_s = sample_points(task, K, gen)
        x_q, y_q = sample_points(task, K, gen)
        params = OrderedDict(model.named_parameters())
        fast = inner_adapt(model, params, x_s, y_s, INNER_LR, steps=1)
        meta_loss = meta_loss + F.mse_loss(functional_call(model, fast, (x_q,)), y_q)
    meta_loss = meta_loss / META_BATCH
    meta_loss.backward()
    meta_opt.step()
    if iteration % 20 == 19:
        print(f"iter {iteration + 1} meta loss {meta_loss.item():.4f}")

# second-order terms: the meta-gradient differs from first-order MAML's
task = sample_task(gen)
x_s, y_s = sample_points(task, K, gen)
x_q, y_q = sample_points(task, K, gen)
grads = {}
for first_order in (False, True):
    params = OrderedDict(model.named_parameters())
    fast = inner_adapt(model, params, x_s, y_s, INNER_LR, 1, first_order=first_order)
    loss = F.mse_loss(functional_call(model, fast, (x_q,)), y_q)
    grads[first_order] = torch.autograd.grad(loss, list(params.values()))
print("fast weight grad_fn:", type(fast["net.0.weight"].grad_fn).__name__)
print("second-order differs:", any(not torch.allclose(a, b) for a, b in zip(grads[False], grads[True])))
print("meta grad shapes:", [tuple(g.shape) for g in grads[False]])

# the deprecated stateless API still found in older MAML code
from torch.nn.utils.stateless import functional_call as stateless_call  # noqa: E402

params = {name: p.detach() * 0 for name, p in model.named_parameters()}
print("stateless zero params:", stateless_call(model, params, (torch.ones(2, 1),)).flatten())
print("model untouched:", model.net[0].weight.abs().sum().item() > 0)

# test-time adaptation on a new task
task = (2.0, 0.5)
x_s, y_s = sample_points(task, K, gen)
x_t = torch.linspace(-5, 5, 50).unsqueeze(1)
y_t = task[0] * torch.sin(x_t + task[1])
params = OrderedDict((n, p.detach().requires_grad_()) for n, p in model.named_parameters())
with torch.no_grad():
    print(f"before adaptation mse {F.mse_loss(model(x_t), y_t).item():.4f}")
for steps in (1, 5, 10):
    fast = inner_adapt(model, params, x_s, y_s, INNER_LR, steps, first_order=True)
    with torch.no_grad():
        print(f"after {steps:2d} steps mse {F.mse_loss(functional_call(model, fast, x_t), y_t).item():.4f}")
