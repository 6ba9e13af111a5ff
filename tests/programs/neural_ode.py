"""A neural ODE in the style of torchdiffeq's ode_demo, with the solver written out: a fixed-step
RK4 integrator over torch.linspace time points, an ODEFunc MLP with tanh, fitting a spiral
trajectory with RMSprop on random batches of sub-trajectories, plus the augmented dynamics
checks (jacobian trace via torch.autograd.functional.jacobian, as in FFJORD's exact trace)."""
import numpy as np
import torch
import torch.nn as nn

np.random.seed(0)
torch.manual_seed(0)
data_size, batch_time, batch_size = 200, 10, 16
true_y0 = torch.tensor([[2.0, 0.0]])
t = torch.linspace(0.0, 5.0, data_size)
true_A = torch.tensor([[-0.1, 2.0], [-2.0, -0.1]])


class Lambda(nn.Module):
    def forward(self, t, y):
        return torch.mm(y ** 3, true_A)


def rk4_odeint(func, y0, t):
    ys = [y0]
    y = y0
    for t0, t1 in zip(t[:-1], t[1:]):
        dt = t1 - t0
        k1 = func(t0, y)
        k2 = func(t0 + dt / 2, y + dt / 2 * k1)
        k3 = func(t0 + dt / 2, y + dt / 2 * k2)
        k4 = func(t1, y + dt * k3)
        y = y + dt / 6 * (k1 + 2 * k2 + 2 * k3 + k4)
        ys.append(y)
    return torch.stack(ys)


with torch.no_grad():
    true_y = rk4_odeint(Lambda(), true_y0, t)
print("true trajectory", tuple(true_y.shape), true_y[-1])


def get_batch():
    s = torch.from_numpy(np.random.choice(np.arange(data_size - batch_time, dtype=np.int64), batch_size, replace=False))
    batch_y0 = true_y[s]
    batch_t = t[:batch_time]
    batch_y = torch.stack([true_y[s + i] for i in range(batch_time)], dim=0)
    return batch_y0, batch_t, batch_y


class ODEFunc(nn.Module):
    def __init__(self):
        super().__init__()
        self.net = nn.Sequential(nn.Linear(2, 50), nn.Tanh(), nn.Linear(50, 2))
        for m in self.net.modules():
            if isinstance(m, nn.Linear):
                nn.init.normal_(m.weight, mean=0, std=0.1)
                nn.init.constant_(m.bias, val=0)
        self.nfe = 0

    def forward(self, t, y):
        self.nfe += 1
        return self.net(y ** 3)


func = ODEFunc()
optimizer = torch.optim.RMSprop(func.parameters(), lr=5e-3)
for itr in range(1, 61):
    optimizer.zero_grad()
    batch_y0, batch_t, batch_y = get_batch()
    pred_y = rk4_odeint(func, batch_y0, batch_t)
    loss = torch.mean(torch.abs(pred_y - batch_y))
    loss.backward()
    optimizer.step()
    if itr % 20 == 0:
        with torch.no_grad():
            pred_y = rk4_odeint(func, true_y0, t)
            total = torch.mean(torch.abs(pred_y - true_y))
        print(f"Iter {itr:04d} | Total Loss {total.item():.6f} | NFE {func.nfe}")

# exact divergence of the dynamics (the trace of df/dy), FFJORD style
y = torch.tensor([0.5, -0.3])
jac = torch.autograd.functional.jacobian(lambda v: func.net(v ** 3), y)
print("jacobian", jac.shape, "trace", round(torch.trace(jac).item(), 6))
yb = y.clone().requires_grad_(True)
f = func.net(yb ** 3)
div = sum(torch.autograd.grad(f[i], yb, retain_graph=True)[0][i] for i in range(2))
print("autograd trace matches:", torch.allclose(div, torch.trace(jac)))
hess = torch.autograd.functional.hessian(lambda v: func.net(v ** 3).sum(), y)
print("hessian", hess.shape, torch.allclose(hess, hess.T, atol=1e-6))
