"""A deep equilibrium model (the DEQ tutorial of Kolter, Duvenaud & Johnson, 'Deep Implicit
Layers', chapter 4): a fixed-point layer z* = tanh(W z* + U x) solved by Anderson acceleration
under torch.no_grad (bmm, torch.linalg.solve on the small bordered system), one differentiable
step re-attached to the graph, and the implicit backward pass installed with register_hook on
z (a backward fixed point solved with autograd.grad(..., retain_graph=True) of a
z0.requires_grad_() copy); checked against gradients of a long unrolled iteration, then trained
with Adam, printing residual histories and gradient agreement."""
import torch
import torch.autograd as autograd
import torch.nn as nn


def forward_iteration(f, x0, max_iter=50, tol=1e-2):
    f0 = f(x0)
    res = []
    for k in range(max_iter):
        x = f0
        f0 = f(x)
        res.append((f0 - x).norm().item() / (1e-5 + f0.norm().item()))
        if res[-1] < tol:
            break
    return f0, res


def anderson(f, x0, m=5, lam=1e-4, max_iter=50, tol=1e-2, beta=1.0):
    """Anderson acceleration for fixed point iteration."""
    bsz, d = x0.shape
    X = torch.zeros(bsz, m, d, dtype=x0.dtype)
    F = torch.zeros(bsz, m, d, dtype=x0.dtype)
    X[:, 0], F[:, 0] = x0.view(bsz, -1), f(x0).view(bsz, -1)
    X[:, 1], F[:, 1] = F[:, 0], f(F[:, 0].view_as(x0)).view(bsz, -1)

    H = torch.zeros(bsz, m + 1, m + 1, dtype=x0.dtype)
    H[:, 0, 1:] = H[:, 1:, 0] = 1
    y = torch.zeros(bsz, m + 1, 1, dtype=x0.dtype)
    y[:, 0] = 1

    res = []
    for k in range(2, max_iter):
        n = min(k, m)
        G = F[:, :n] - X[:, :n]
        H[:, 1:n + 1, 1:n + 1] = torch.bmm(G, G.transpose(1, 2)) + lam * torch.eye(n, dtype=x0.dtype)[None]
        alpha = torch.linalg.solve(H[:, :n + 1, :n + 1], y[:, :n + 1])[:, 1:n + 1, 0]

        X[:, k % m] = beta * (alpha[:, None] @ F[:, :n])[:, 0] + (1 - beta) * (alpha[:, None] @ X[:, :n])[:, 0]
        F[:, k % m] = f(X[:, k % m].view_as(x0)).view(bsz, -1)
        res.append((F[:, k % m] - X[:, k % m]).norm().item() / (1e-5 + F[:, k % m].norm().item()))
        if res[-1] < tol:
            break
    return X[:, k % m].view_as(x0), res


class TanhFixedPointLayer(nn.Module):
    def __init__(self, out_features, tol=1e-4, max_iter=50):
        super().__init__()
        self.linear = nn.Linear(out_features, out_features, bias=False)
        self.tol = tol
        self.max_iter = max_iter

    def forward(self, x):
        z = torch.zeros_like(x)
        self.iterations = 0
        while self.iterations < self.max_iter:
            z_next = torch.tanh(self.linear(z) + x)
            self.err = torch.norm(z - z_next)
            z = z_next
            self.iterations += 1
            if self.err < self.tol:
                break
        return z


class DEQFixedPoint(nn.Module):
    def __init__(self, f, solver, **kwargs):
        super().__init__()
        self.f = f
        self.solver = solver
        self.kwargs = kwargs

    def forward(self, x):
        with torch.no_grad():
            z, self.forward_res = self.solver(lambda z: self.f(z, x), torch.zeros_like(x), **self.kwargs)
        z = self.f(z, x)

        z0 = z.clone().detach().requires_grad_()
        f0 = self.f(z0, x)

        def backward_hook(grad):
            g, self.backward_res = self.solver(
                lambda y: autograd.grad(f0, z0, y, retain_graph=True)[0] + grad, grad, **self.kwargs)
            return g

        if z.requires_grad:
            z.register_hook(backward_hook)
        return z


class TanhCell(nn.Module):
    def __init__(self, n):
        super().__init__()
        self.linear = nn.Linear(n, n)

    def forward(self, z, x):
        return torch.tanh(self.linear(z) + x)


torch.manual_seed(0)
torch.set_default_dtype(torch.float64)

# the chapter-1 layer: plain iteration inside forward, backprop through every step
layer = TanhFixedPointLayer(6)
with torch.no_grad():
    layer.linear.weight.mul_(0.5)
x = torch.randn(4, 6)
z = layer(x)
print(f"Terminated after {layer.iterations} iterations with error {layer.err:.3e}")
print("fixed point residual small:", (z - torch.tanh(layer.linear(z) + x)).abs().max().item() < 1e-3)

cell = TanhCell(8)
with torch.no_grad():
    cell.linear.weight.mul_(1.5)
x = torch.randn(3, 8)
z_fwd, res_fwd = forward_iteration(lambda z: cell(z, x), torch.zeros_like(x), max_iter=200, tol=1e-10)
z_and, res_and = anderson(lambda z: cell(z, x), torch.zeros_like(x), max_iter=200, tol=1e-10)
print("forward iterations", len(res_fwd), "anderson iterations", len(res_and))
print("solutions agree:", torch.allclose(z_fwd, z_and, atol=1e-8))
print("anderson residuals", [f"{r:.2e}" for r in res_and[:4]])

deq = DEQFixedPoint(cell, anderson, tol=1e-12, max_iter=100)
x = torch.randn(3, 8, requires_grad=True)
z = deq(x)
print("z", z.shape, z.grad_fn.name())
loss = (z ** 2).sum()
loss.backward()
print("backward solver iterations", len(deq.backward_res), "final residual < 1e-10:", deq.backward_res[-1] < 1e-10)
implicit_x, implicit_w = x.grad.clone(), cell.linear.weight.grad.clone()

# the same gradients by backpropagating through a long unrolled iteration
x.grad = None
cell.zero_grad()
zu = torch.zeros_like(x)
for _ in range(300):
    zu = cell(zu, x)
(zu ** 2).sum().backward()
print("dx agrees with unrolled:", torch.allclose(implicit_x, x.grad, atol=1e-8))
print("dW agrees with unrolled:", torch.allclose(implicit_w, cell.linear.weight.grad, atol=1e-8))
print("max |dW difference| < 1e-9:", (implicit_w - cell.linear.weight.grad).abs().max().item() < 1e-9)

# gradcheck of the implicit layer
torch.manual_seed(1)
small = TanhCell(3)
with torch.no_grad():
    small.linear.weight.mul_(0.3)
deq_small = DEQFixedPoint(small, anderson, tol=1e-12, max_iter=200)
xs = torch.randn(2, 3, requires_grad=True)
print("gradcheck:", autograd.gradcheck(deq_small, xs, eps=1e-6, atol=1e-5, check_undefined_grad=False))

# a small DEQ classifier trained for a few steps
torch.manual_seed(2)
data = torch.randn(64, 8)
labels = (data[:, 0] + data[:, 1] > 0).long()
model = nn.Sequential(nn.Linear(8, 8), DEQFixedPoint(TanhCell(8), anderson, tol=1e-8, max_iter=60), nn.Linear(8, 2))
with torch.no_grad():
    model[1].f.linear.weight.mul_(0.3)
opt = torch.optim.Adam(model.parameters(), lr=5e-3)
first = None
for step in range(16):
    opt.zero_grad()
    loss = nn.functional.cross_entropy(model(data), labels)
    loss.backward()
    opt.step()
    first = first if first is not None else loss.item()
    if step % 5 == 0:
        print(f"step {step:2d} loss {loss.item():.6f} fwd iters {len(model[1].forward_res)} bwd iters {len(model[1].backward_res)}")
with torch.no_grad():
    acc = (model(data).argmax(1) == labels).double().mean()
print("loss decreased:", loss.item() < first, "train accuracy above 0.7:", acc.item() > 0.7)
torch.set_default_dtype(torch.float32)
