"""The 'defining new autograd functions' tutorial (LegendrePolynomial3) and other autograd.Function
uses: a straight-through estimator, once_differentiable-free double backward, gradcheck, hooks."""
import math

import torch


class LegendrePolynomial3(torch.autograd.Function):
    @staticmethod
    def forward(ctx, input):
        ctx.save_for_backward(input)
        return 0.5 * (5 * input ** 3 - 3 * input)

    @staticmethod
    def backward(ctx, grad_output):
        input, = ctx.saved_tensors
        return grad_output * 1.5 * (5 * input ** 2 - 1)


class StraightThroughRound(torch.autograd.Function):
    @staticmethod
    def forward(ctx, x, scale):
        ctx.scale = scale
        return torch.round(x * scale) / scale

    @staticmethod
    def backward(ctx, grad):
        return grad, None


dtype = torch.float
x = torch.linspace(-math.pi, math.pi, 2000, dtype=dtype)
y = torch.sin(x)
a = torch.full((), 0.0, dtype=dtype, requires_grad=True)
b = torch.full((), -1.0, dtype=dtype, requires_grad=True)
c = torch.full((), 0.0, dtype=dtype, requires_grad=True)
d = torch.full((), 0.3, dtype=dtype, requires_grad=True)
learning_rate = 5e-6
for t in range(2000):
    P3 = LegendrePolynomial3.apply
    y_pred = a + b * P3(c + d * x)
    loss = (y_pred - y).pow(2).sum()
    if t % 500 == 99:
        print(t, f"{loss.item():.4f}")
    loss.backward()
    with torch.no_grad():
        a -= learning_rate * a.grad
        b -= learning_rate * b.grad
        c -= learning_rate * c.grad
        d -= learning_rate * d.grad
        a.grad = None
        b.grad = None
        c.grad = None
        d.grad = None
print(f"Result: y = {a.item():.4f} + {b.item():.4f} * P3({c.item():.4f} + {d.item():.4f} x)")
print(y_pred.grad_fn, type(y_pred.grad_fn).__name__)

w = torch.tensor([0.26, -0.74, 1.49], requires_grad=True)
q = StraightThroughRound.apply(w, 2.0)
print(q, q.grad_fn.__class__.__name__)
(q * torch.tensor([1.0, 2.0, 3.0])).sum().backward()
print(w.grad)

inp = torch.randn(4, dtype=torch.double, requires_grad=True)
print("gradcheck:", torch.autograd.gradcheck(LegendrePolynomial3.apply, (inp,), eps=1e-6, atol=1e-4))

h = torch.tensor([1.0, 2.0], requires_grad=True)
mid = h * 3
mid.retain_grad()
seen = []
handle = h.register_hook(lambda g: seen.append(g.clone()) or g * 2)
(mid ** 2).sum().backward()
print(mid.grad, h.grad, seen, mid.is_leaf, mid.retains_grad)
handle.remove()
with torch.inference_mode():
    z = h * 2
print(z.requires_grad, torch.is_inference_mode_enabled(), torch.is_grad_enabled())
with torch.enable_grad():
    print(torch.is_grad_enabled())
torch.set_grad_enabled(False)
print((h * 2).requires_grad)
torch.set_grad_enabled(True)
try:
    (h * 2).sum().backward()
    (h * 2).backward()
except RuntimeError as e:
    print("RuntimeError:", e)
x = torch.ones(2, requires_grad=True)
y = x * 2
y.sum().backward()
try:
    y.sum().backward()
except RuntimeError as e:
    print("RuntimeError:", str(e).split(".")[0])
