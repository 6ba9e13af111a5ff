"""Custom operators through torch.library.custom_op (PyTorch 2.4+), as the custom-ops tutorial
(advanced_source/python_custom_ops.py) writes them: an op with register_fake and
register_autograd (setup_context saving what backward needs), called directly and as
torch.ops.<ns>.<name>, checked by gradcheck; an op without a derivative (backward raises), a
multi-output op, an in-place op declared in mutates_args, optional arguments, per-device
kernels, the inferred schemas and the errors for missing annotations, wrong argument types and
aliased outputs; then a fused bias + GELU op inside a model trained with SGD."""
import math

import numpy as np
import torch
import torch.nn as nn
import torch.nn.functional as F
from torch.library import custom_op, infer_schema


@custom_op("mylib::numpy_sin", mutates_args=())
def numpy_sin(x: torch.Tensor) -> torch.Tensor:
    x_np = x.detach().numpy()
    return torch.from_numpy(np.sin(x_np))


@numpy_sin.register_fake
def _(x):
    return torch.empty_like(x)


def setup_context(ctx, inputs, output):
    x, = inputs
    ctx.save_for_backward(x)


def backward(ctx, grad):
    x, = ctx.saved_tensors
    return grad * x.cos()


numpy_sin.register_autograd(backward, setup_context=setup_context)
print(numpy_sin)

x = torch.tensor([0.5, 1.0, 2.0], requires_grad=True)
y = numpy_sin(x)
print(y)
print(type(y.grad_fn).__name__)
y.sum().backward()
print(x.grad, torch.allclose(x.grad, x.detach().cos()))
print(torch.ops.mylib.numpy_sin, torch.ops.mylib.numpy_sin.default)
print(torch.ops.mylib.numpy_sin(x.detach()))
xd = torch.randn(4, dtype=torch.float64, requires_grad=True)
print("gradcheck:", torch.autograd.gradcheck(numpy_sin, (xd,)))
with torch.no_grad():
    print(numpy_sin(x).grad_fn)


@custom_op("mylib::scaled", mutates_args=())
def scaled(x: torch.Tensor, k: int = 2) -> torch.Tensor:
    return x * k


y = scaled(x)
print(y, scaled(x, k=3).requires_grad, scaled(x.detach(), 3))
try:
    y.sum().backward()
except RuntimeError as e:
    print("RuntimeError:", e)


@custom_op("mylib::affine_pair", mutates_args=())
def affine_pair(x: torch.Tensor, w: torch.Tensor) -> tuple[torch.Tensor, torch.Tensor]:
    return x * w, x + w


def pair_setup(ctx, inputs, output):
    x, w = inputs
    ctx.save_for_backward(x, w)


def pair_backward(ctx, g1, g2):
    x, w = ctx.saved_tensors
    return g1 * w + g2, g1 * x + g2


affine_pair.register_autograd(pair_backward, setup_context=pair_setup)
w = torch.tensor([2.0, 3.0, -1.0], requires_grad=True)
x.grad = None
a, b = affine_pair(x, w)
print(a, b)
(a.sum() + 2 * b.sum()).backward()
print(x.grad, w.grad)


@custom_op("mylib::add_scalar_", mutates_args={"x"})
def add_scalar_(x: torch.Tensor, y: float) -> None:
    x.add_(y)


buf = torch.zeros(3)
print(add_scalar_(buf, 2.5), buf)


@custom_op("mylib::maybe_bias", mutates_args=())
def maybe_bias(x: torch.Tensor, scale: float = 1.0,
               bias: torch.Tensor | None = None) -> torch.Tensor:
    return x * scale if bias is None else x * scale + bias


print(maybe_bias(x.detach(), 2.0), maybe_bias(x.detach(), bias=torch.ones(3)))
print(infer_schema(maybe_bias._init_fn, mutates_args=()))
print(infer_schema(add_scalar_._init_fn, mutates_args={"x"}))
print(infer_schema(affine_pair._init_fn, mutates_args=()))

try:
    @custom_op("mylib::untyped", mutates_args=())
    def untyped(x):
        return x
except ValueError as e:
    print("ValueError:", e)

try:
    numpy_sin([1.0, 2.0])
except RuntimeError as e:
    print("RuntimeError:", str(e).splitlines()[0])


@custom_op("mylib::identity", mutates_args=())
def identity(x: torch.Tensor) -> torch.Tensor:
    return x


try:
    identity(torch.ones(2))
except RuntimeError as e:
    print("RuntimeError:", str(e).split(": ", 1)[1][:60])


@custom_op("mylib::shift", mutates_args=(), device_types="cpu")
def shift(x: torch.Tensor, s: float) -> torch.Tensor:
    return x + s


print(shift(torch.ones(2), 3.0))


@shift.register_kernel("cpu")
def _(x, s):
    return x + 2 * s


print(shift(torch.ones(2), 3.0))


# ---- a fused bias + GELU op in a model
@custom_op("mylib::bias_gelu", mutates_args=())
def bias_gelu(x: torch.Tensor, bias: torch.Tensor) -> torch.Tensor:
    z = x + bias
    return 0.5 * z * (1.0 + torch.erf(z / math.sqrt(2.0)))


@bias_gelu.register_fake
def _(x, bias):
    return torch.empty_like(x)


def bias_gelu_setup(ctx, inputs, output):
    x, bias = inputs
    ctx.save_for_backward(x + bias)


def bias_gelu_backward(ctx, grad):
    z, = ctx.saved_tensors
    cdf = 0.5 * (1.0 + torch.erf(z / math.sqrt(2.0)))
    pdf = torch.exp(-0.5 * z * z) / math.sqrt(2.0 * math.pi)
    g = grad * (cdf + z * pdf)
    return g, g.sum(0)


bias_gelu.register_autograd(bias_gelu_backward, setup_context=bias_gelu_setup)


class FusedMLP(nn.Module):
    def __init__(self):
        super().__init__()
        self.fc1 = nn.Linear(4, 16, bias=False)
        self.bias1 = nn.Parameter(torch.zeros(16))
        self.fc2 = nn.Linear(16, 1)

    def forward(self, x):
        return self.fc2(torch.ops.mylib.bias_gelu(self.fc1(x), self.bias1))


torch.manual_seed(0)
model = FusedMLP()
inp = torch.randn(32, 4, dtype=torch.float64)
target = (inp ** 2).sum(1, keepdim=True)
model = model.double()
ref = F.gelu(model.fc1(inp) + model.bias1)
print("matches F.gelu:", torch.allclose(bias_gelu(model.fc1(inp), model.bias1), ref))
print("gradcheck:", torch.autograd.gradcheck(bias_gelu, (
    torch.randn(3, 4, dtype=torch.float64, requires_grad=True),
    torch.randn(4, dtype=torch.float64, requires_grad=True))))
opt = torch.optim.SGD(model.parameters(), lr=0.01)
for step in range(30):
    loss = F.mse_loss(model(inp), target)
    opt.zero_grad()
    loss.backward()
    opt.step()
    if step % 10 == 0:
        print(f"step {step} loss {loss.item():.6f}")
print(model.bias1.grad.norm() > 0, [n for n, _ in model.named_parameters()])
