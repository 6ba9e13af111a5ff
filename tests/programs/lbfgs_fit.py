"""Curve fitting with a custom nn.Module and torch.optim.LBFGS (closure, strong Wolfe line search), then a small MLP."""
import math

import torch
import torch.nn as nn


class Damped(nn.Module):
    """y = a * exp(-b t) * cos(w t + phi)"""

    def __init__(self):
        super().__init__()
        self.a = nn.Parameter(torch.tensor(1.0))
        self.b = nn.Parameter(torch.tensor(0.1))
        self.w = nn.Parameter(torch.tensor(2.5))
        self.phi = nn.Parameter(torch.zeros(()))

    def forward(self, t):
        return self.a * torch.exp(-self.b * t) * torch.cos(self.w * t + self.phi)

    def extra_repr(self):
        return ", ".join(f"{n}={p.item():.3f}" for n, p in self.named_parameters())


torch.manual_seed(0)
t = torch.linspace(0, 10, 200, dtype=torch.float64)
y_true = 2.0 * torch.exp(-0.3 * t) * torch.cos(3.0 * t + 0.5)
y = y_true + 0.01 * torch.sin(17 * t)

model = Damped().double()
print(model)
optimizer = torch.optim.LBFGS(model.parameters(), lr=1, max_iter=50, history_size=10,
                              line_search_fn="strong_wolfe")
calls = 0


def closure():
    global calls
    calls += 1
    optimizer.zero_grad()
    loss = ((model(t) - y) ** 2).mean()
    loss.backward()
    return loss


for step in range(5):
    loss = optimizer.step(closure)
    print(f"step {step}: loss {loss.item():.6e}")
print(model)
print("closure calls > 5:", calls > 5)
state = optimizer.state[optimizer._params[0]]
print(sorted(k for k in state.keys()))
print("func_evals", state["func_evals"], "n_iter", state["n_iter"])
params = {n: round(p.item(), 3) for n, p in model.named_parameters()}
print(params)
print("recovered:", math.isclose(params["w"], 3.0, abs_tol=0.01))

# an MLP fitted by full-batch L-BFGS in float32 without line search
x = torch.linspace(-2, 2, 64).unsqueeze(1)
target = torch.tanh(2 * x) + 0.5 * x
mlp = nn.Sequential(nn.Linear(1, 16), nn.Tanh(), nn.Linear(16, 1))
opt = torch.optim.LBFGS(mlp.parameters(), lr=0.5, max_iter=20)
loss_fn = nn.MSELoss()
first = None
for i in range(10):
    def closure2():
        opt.zero_grad()
        out = loss_fn(mlp(x), target)
        out.backward()
        return out
    loss = opt.step(closure2)
    first = first if first is not None else loss.item()
    if i % 3 == 0:
        print(f"mlp iter {i:2d} loss {loss.item():.5f}")
print("mlp improved:", loss_fn(mlp(x), target).item() < first / 10)
print(opt.param_groups[0]["lr"], opt.defaults["tolerance_grad"], opt.defaults["history_size"])
