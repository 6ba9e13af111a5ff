"""autograd.Function's context API as libraries use it: set_materialize_grads, mark_non_differentiable,
once_differentiable, needs_input_grad, mark_dirty for in-place functions, saving outputs, the
setup_context style, non-tensor arguments and outputs, and gradcheck over them."""
import torch
from torch.autograd import Function
from torch.autograd.function import once_differentiable


class SortWithIndices(Function):
    @staticmethod
    def forward(ctx, x):
        values, indices = torch.sort(x, dim=-1)
        ctx.mark_non_differentiable(indices)
        ctx.save_for_backward(indices)
        return values, indices

    @staticmethod
    def backward(ctx, grad_values, grad_indices):
        indices, = ctx.saved_tensors
        if VERBOSE:
            print("  grad_indices is", None if grad_indices is None else "a tensor of zeros")
        grad = torch.zeros_like(grad_values)
        grad.scatter_(-1, indices, grad_values)
        return grad


class TwoHeads(Function):
    """Returns two outputs; only one is used, so the other's gradient is None unless materialized."""

    @staticmethod
    def forward(ctx, x, materialize):
        ctx.set_materialize_grads(materialize)
        ctx.save_for_backward(x)
        return x * 2, x ** 2

    @staticmethod
    def backward(ctx, g1, g2):
        x, = ctx.saved_tensors
        print(f"  materialize grads: g1={'None' if g1 is None else g1.tolist()} "
              f"g2={'None' if g2 is None else g2.tolist()}")
        grad = torch.zeros_like(x)
        if g1 is not None:
            grad = grad + 2 * g1
        if g2 is not None:
            grad = grad + 2 * x * g2
        return grad, None


class ClipGradient(Function):
    @staticmethod
    def forward(ctx, x, bound):
        ctx.bound = bound
        return x.view_as(x)

    @staticmethod
    @once_differentiable
    def backward(ctx, grad):
        return grad.clamp(-ctx.bound, ctx.bound), None


class ScaledAdd(Function):
    @staticmethod
    def forward(ctx, a, b, alpha):
        ctx.alpha = alpha
        return a + alpha * b

    @staticmethod
    def backward(ctx, grad):
        print("  needs_input_grad:", ctx.needs_input_grad)
        ga = grad if ctx.needs_input_grad[0] else None
        gb = grad * ctx.alpha if ctx.needs_input_grad[1] else None
        return ga, gb, None


class ReluInplace(Function):
    @staticmethod
    def forward(ctx, x):
        x.clamp_(min=0)
        ctx.mark_dirty(x)
        ctx.save_for_backward(x)
        return x

    @staticmethod
    def backward(ctx, grad):
        out, = ctx.saved_tensors
        return grad * (out > 0).to(grad.dtype)


class ExpSaveOutput(Function):
    @staticmethod
    def forward(ctx, x):
        y = x.exp()
        ctx.save_for_backward(y)
        return y

    @staticmethod
    def backward(ctx, grad):
        y, = ctx.saved_tensors
        return grad * y


class MulConstant(Function):
    """The setup_context style (PyTorch >= 2.0): forward takes no ctx."""

    @staticmethod
    def forward(x, constant):
        return x * constant

    @staticmethod
    def setup_context(ctx, inputs, output):
        _, constant = inputs
        ctx.constant = constant

    @staticmethod
    def backward(ctx, grad):
        return grad * ctx.constant, None


class StatsFunction(Function):
    """Returns a tensor and a Python number."""

    @staticmethod
    def forward(ctx, x):
        ctx.save_for_backward(x)
        return x.mean(), float(x.std())

    @staticmethod
    def backward(ctx, grad_mean, _):
        x, = ctx.saved_tensors
        return grad_mean.expand_as(x) / x.numel()


VERBOSE = True
torch.manual_seed(0)
x = torch.randn(5, requires_grad=True)
print("sort:")
values, indices = SortWithIndices.apply(x)
print(values.requires_grad, indices.requires_grad, indices.dtype, indices.tolist())
(values * torch.arange(5.0)).sum().backward()
print(x.grad)
print(type(values.grad_fn).__name__, indices.grad_fn)

print("materialize:")
for materialize in (True, False):
    x = torch.tensor([1.0, 2.0], requires_grad=True)
    a, b = TwoHeads.apply(x, materialize)
    a.sum().backward()
    print(" ", x.grad)

print("once_differentiable:")
x = torch.tensor([-3.0, 0.5, 4.0], requires_grad=True)
y = ClipGradient.apply(x * 10, 2.0)
y.sum().backward()
print(x.grad)
y = ClipGradient.apply(x, 1.0)
g, = torch.autograd.grad((y ** 2).sum(), x, create_graph=True)
print(g, g.requires_grad)
try:
    g.sum().backward()
except RuntimeError as e:
    print("RuntimeError:", str(e).split("\n")[0])

print("needs_input_grad:")
a = torch.ones(2, requires_grad=True)
b = torch.ones(2)
ScaledAdd.apply(a, b, 3.0).sum().backward()
b.requires_grad_()
ScaledAdd.apply(a, b, 3.0).sum().backward()
print(a.grad, b.grad)

print("mark_dirty:")
x = torch.tensor([-1.0, 2.0, -3.0, 4.0], requires_grad=True)
h = x * 1.0
out = ReluInplace.apply(h)
print(out is h, out, h._version)
(out * torch.tensor([1.0, 2.0, 3.0, 4.0])).sum().backward()
print(x.grad)

print("saved output:")
x = torch.tensor([0.0, 1.0], requires_grad=True)
y = ExpSaveOutput.apply(x)
y.sum().backward()
print(x.grad)
y = ExpSaveOutput.apply(x)
y.mul_(2)
try:
    y.sum().backward()
except RuntimeError as e:
    print("RuntimeError:", str(e).split(", which")[0])

print("setup_context:")
x = torch.tensor([1.0, -2.0], dtype=torch.float64, requires_grad=True)
y = MulConstant.apply(x, 4.0)
y.backward(torch.ones_like(y))
print(y, x.grad)
print(torch.autograd.gradcheck(lambda t: MulConstant.apply(t, 0.5), (x,)))
print(torch.autograd.gradgradcheck(lambda t: ExpSaveOutput.apply(t), (x,)))

print("non-tensor output:")
x = torch.arange(6.0, requires_grad=True)
m, s = StatsFunction.apply(x)
print(m, type(s).__name__, round(s, 4))
m.backward()
print(x.grad)
VERBOSE = False
print(torch.autograd.gradcheck(SortWithIndices.apply, (torch.randn(4, dtype=torch.float64, requires_grad=True),)))
