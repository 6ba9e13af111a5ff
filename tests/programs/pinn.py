"""A physics-informed network: u'' = -pi^2 sin(pi x) on [0, 1] with u(0) = u(1) = 0, derivatives by autograd.grad(create_graph=True)."""
import math

import torch
import torch.nn as nn

torch.manual_seed(2024)


class PINN(nn.Module):
    def __init__(self, width=20, depth=3):
        super().__init__()
        layers = [nn.Linear(1, width), nn.Tanh()]
        for _ in range(depth - 1):
            layers += [nn.Linear(width, width), nn.Tanh()]
        layers.append(nn.Linear(width, 1))
        self.net = nn.Sequential(*layers)
        for m in self.net:
            if isinstance(m, nn.Linear):
                nn.init.xavier_normal_(m.weight)
                nn.init.zeros_(m.bias)

    def forward(self, x):
        return self.net(x)


def derivatives(model, x):
    x = x.clone().requires_grad_(True)
    u = model(x)
    du = torch.autograd.grad(u, x, grad_outputs=torch.ones_like(u), create_graph=True)[0]
    d2u = torch.autograd.grad(du, x, grad_outputs=torch.ones_like(du), create_graph=True)[0]
    return u, du, d2u


model = PINN()
print(model)
x_col = torch.linspace(0, 1, 50).unsqueeze(1)
x_bc = torch.tensor([[0.0], [1.0]])
f = -(math.pi ** 2) * torch.sin(math.pi * x_col)
optimizer = torch.optim.Adam(model.parameters(), lr=5e-3)
history = []
for it in range(301):
    optimizer.zero_grad()
    _, _, d2u = derivatives(model, x_col)
    residual = d2u - f
    loss_pde = residual.pow(2).mean()
    loss_bc = model(x_bc).pow(2).mean()
    loss = loss_pde + 10 * loss_bc
    loss.backward()
    optimizer.step()
    history.append(loss.item())
    if it % 100 == 0:
        print(f"iter {it:4d}  loss {loss.item():.4e}  pde {loss_pde.item():.4e}  bc {loss_bc.item():.4e}")
print("loss fell 10x:", history[-1] < history[0] / 10)

x_test = torch.linspace(0, 1, 11).unsqueeze(1)
with torch.no_grad():
    u_pred = model(x_test)
u_exact = torch.sin(math.pi * x_test)
err = (u_pred - u_exact).abs().max().item()
print(f"max error below 0.1: {err < 0.1}")

# exact derivatives of a known function through the same helper
x = torch.tensor([[0.0], [0.5], [1.0]])
cube = lambda t: t ** 3  # noqa: E731
u, du, d2u = derivatives(cube, x)
print(u.squeeze(1), du.squeeze(1), d2u.squeeze(1))
print(du.requires_grad, d2u.grad_fn is not None)

# third derivative and a mixed partial of u(x, y) = x^2 y^3
xy = torch.tensor([[1.0, 2.0], [3.0, -1.0]], requires_grad=True)
u = xy[:, 0] ** 2 * xy[:, 1] ** 3
grad = torch.autograd.grad(u.sum(), xy, create_graph=True)[0]
u_xy = torch.autograd.grad(grad[:, 0].sum(), xy, create_graph=True)[0][:, 1]
print(grad, u_xy)
s = torch.tensor(0.7, requires_grad=True)
g1, = torch.autograd.grad(torch.sin(s), s, create_graph=True)
g2, = torch.autograd.grad(g1, s, create_graph=True)
g3, = torch.autograd.grad(g2, s)
print(f"{g1.item():.6f} {g2.item():.6f} {g3.item():.6f} {-math.cos(0.7):.6f}")
try:
    torch.autograd.grad(g3, s)
except RuntimeError as e:
    print("RuntimeError:", e)
# Hessian-vector product of the network's loss wrt its first layer
w = model.net[0].weight
loss = model(x_col).pow(2).sum()
g, = torch.autograd.grad(loss, w, create_graph=True)
v = torch.ones_like(w)
hv, = torch.autograd.grad(g, w, grad_outputs=v)
print(hv.shape, torch.isfinite(hv).all().item())
H = torch.autograd.functional.hessian(lambda t: (t ** 3).sum(), torch.tensor([1.0, 2.0]))
print(H)
