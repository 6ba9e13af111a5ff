"""autograd.Functions copied from well-known repositories, each used the way its repository
uses it: EfficientNet-PyTorch's SwishImplementation / MemoryEfficientSwish (save_for_backward
of the input, recompute in backward), fairseq's GradMultiply (new(x) in forward, a None for the
scale), a DANN GradientReversal with ctx.alpha, detectron2's _NewEmptyTensorOp (ctx.shape,
new_empty), a top-k with mark_non_differentiable indices, a `once_differentiable` in-place
ReLU with mark_dirty, pytorch3d-style custom gradient clamps, a custom function used inside
torch.utils.checkpoint, and gradcheck / gradgradcheck on them in float64."""
import torch
import torch.nn as nn
import torch.nn.functional as F
from torch.autograd import Function
from torch.autograd.function import once_differentiable
from torch.utils.checkpoint import checkpoint


# EfficientNet-PyTorch (lukemelas) utils.py
class SwishImplementation(torch.autograd.Function):
    @staticmethod
    def forward(ctx, i):
        result = i * torch.sigmoid(i)
        ctx.save_for_backward(i)
        return result

    @staticmethod
    def backward(ctx, grad_output):
        i = ctx.saved_tensors[0]
        sigmoid_i = torch.sigmoid(i)
        return grad_output * (sigmoid_i * (1 + i * (1 - sigmoid_i)))


class MemoryEfficientSwish(nn.Module):
    def forward(self, x):
        return SwishImplementation.apply(x)


class Swish(nn.Module):
    def forward(self, x):
        return x * torch.sigmoid(x)


# fairseq/modules/grad_multiply.py
class GradMultiply(torch.autograd.Function):
    @staticmethod
    def forward(ctx, x, scale):
        ctx.scale = scale
        res = x.new(x)
        return res

    @staticmethod
    def backward(ctx, grad):
        return grad * ctx.scale, None


# DANN
class GradientReversalFunction(Function):
    @staticmethod
    def forward(ctx, x, alpha):
        ctx.alpha = alpha
        return x.view_as(x)

    @staticmethod
    def backward(ctx, grads):
        dx = -ctx.alpha * grads
        return dx, None


class GradientReversal(nn.Module):
    def __init__(self, alpha=1.0):
        super().__init__()
        self.alpha = alpha

    def forward(self, x):
        return GradientReversalFunction.apply(x, self.alpha)

    def extra_repr(self):
        return f"alpha={self.alpha}"


# detectron2/layers/wrappers.py
class _NewEmptyTensorOp(torch.autograd.Function):
    @staticmethod
    def forward(ctx, x, new_shape):
        ctx.shape = x.shape
        return x.new_empty(new_shape)

    @staticmethod
    def backward(ctx, grad):
        shape = ctx.shape
        return _NewEmptyTensorOp.apply(grad, shape), None


class TopK(Function):
    @staticmethod
    def forward(ctx, x, k):
        values, indices = x.topk(k, dim=-1)
        ctx.save_for_backward(indices)
        ctx.input_shape = x.shape
        ctx.mark_non_differentiable(indices)
        return values, indices

    @staticmethod
    def backward(ctx, grad_values, grad_indices):
        (indices,) = ctx.saved_tensors
        grad_input = grad_values.new_zeros(ctx.input_shape)
        grad_input.scatter_(-1, indices, grad_values)
        return grad_input, None


class InplaceReLU(Function):
    @staticmethod
    def forward(ctx, x):
        ctx.mark_dirty(x)
        x.clamp_(min=0)
        ctx.save_for_backward(x)
        return x

    @staticmethod
    @once_differentiable
    def backward(ctx, grad_output):
        (out,) = ctx.saved_tensors
        return grad_output * (out > 0).to(grad_output.dtype)


class ClampGradNorm(Function):
    """Identity forward; backward rescales each row's gradient to at most max_norm."""

    @staticmethod
    def forward(ctx, x, max_norm=1.0):
        ctx.max_norm = max_norm
        return x.clone()

    @staticmethod
    def backward(ctx, g):
        norm = g.norm(dim=-1, keepdim=True).clamp(min=1e-12)
        return g * (ctx.max_norm / norm).clamp(max=1.0), None


torch.manual_seed(0)
x = torch.randn(4, 5, requires_grad=True)

# Swish: same values and gradients as the autograd version
y1 = MemoryEfficientSwish()(x)
y2 = Swish()(x)
g1, = torch.autograd.grad(y1.sum(), x)
g2, = torch.autograd.grad(y2.sum(), x)
print(y1.grad_fn.name(), type(y1.grad_fn).__name__, torch.allclose(y1, y2), torch.allclose(g1, g2, atol=1e-6))
print(g1[0])
try:
    torch.autograd.grad(torch.autograd.grad(y1.sum(), x, create_graph=True)[0].sum(), x)
    print("double backward through Swish: ok")
except RuntimeError as e:
    print("RuntimeError:", e)

# GradMultiply scales the gradient only
w = torch.ones(3, requires_grad=True)
out = GradMultiply.apply(w * 2, 0.1)
out.sum().backward()
print(out, w.grad, out.grad_fn.name())

# gradient reversal inside a domain-adversarial model
feature = nn.Sequential(nn.Linear(5, 8), nn.ReLU())
label_head = nn.Linear(8, 3)
domain_head = nn.Sequential(GradientReversal(alpha=0.5), nn.Linear(8, 1))
print(domain_head)
h = feature(x)
loss_label = F.cross_entropy(label_head(h), torch.tensor([0, 1, 2, 1]))
loss_domain = F.binary_cross_entropy_with_logits(domain_head(h).squeeze(1), torch.tensor([0., 0., 1., 1.]))
feature.zero_grad()
loss_domain.backward(retain_graph=True)
g_rev = feature[0].weight.grad.clone()
feature.zero_grad()
plain = F.binary_cross_entropy_with_logits(domain_head[1](h).squeeze(1), torch.tensor([0., 0., 1., 1.]))
plain.backward(retain_graph=True)
print("reversed and halved:", torch.allclose(g_rev, -0.5 * feature[0].weight.grad, atol=1e-7))
(loss_label + loss_domain).backward()

# detectron2's empty-tensor op (used for zero-size batches)
empty_in = torch.zeros(0, 3, 4, 4, requires_grad=True)
empty_out = _NewEmptyTensorOp.apply(empty_in, (0, 8, 2, 2))
print(empty_out.shape, empty_out.requires_grad, empty_out.grad_fn.name())
empty_out.sum().backward()
print(empty_in.grad.shape)

# top-k with non-differentiable indices
scores = torch.tensor([[0.1, 0.9, 0.3, 0.7], [0.5, 0.2, 0.8, 0.0]], requires_grad=True)
values, indices = TopK.apply(scores, 2)
print(values, indices, indices.requires_grad, values.requires_grad)
(values * torch.tensor([[1., 2.], [3., 4.]])).sum().backward()
print(scores.grad)

# in-place ReLU with mark_dirty and once_differentiable
a = torch.randn(6, requires_grad=True)
b = a * 1
c = InplaceReLU.apply(b)
print(c is b, c.grad_fn.name(), b._version)
c.sum().backward()
print(a.grad)
try:
    a2 = torch.randn(3, requires_grad=True)
    out = InplaceReLU.apply(a2 * 1)
    g, = torch.autograd.grad(out.sum(), a2, create_graph=True)
    g.sum().backward()
except RuntimeError as e:
    print("RuntimeError:", e)
try:
    InplaceReLU.apply(torch.randn(3, requires_grad=True))
except RuntimeError as e:
    print("RuntimeError:", e)

# gradient norm clamp per row
v = torch.randn(3, 4, requires_grad=True)
(ClampGradNorm.apply(v, 0.5) * torch.tensor([[10.], [0.1], [1.]])).sum().backward()
print(v.grad.norm(dim=-1))

# a custom Function inside activation checkpointing
lin = nn.Linear(5, 5)


def block(inp):
    return SwishImplementation.apply(lin(inp))


inp = torch.randn(2, 5, requires_grad=True)
out_ckpt = checkpoint(block, inp, use_reentrant=False)
out_ckpt.sum().backward()
g_ckpt = inp.grad.clone()
inp.grad = None
block(inp).sum().backward()
print("checkpoint grads equal:", torch.equal(g_ckpt, inp.grad))

# gradcheck / gradgradcheck in double precision
xd = torch.randn(3, 4, dtype=torch.double, requires_grad=True)
print(torch.autograd.gradcheck(SwishImplementation.apply, (xd,), eps=1e-6, atol=1e-4))
print(torch.autograd.gradcheck(lambda t: GradientReversalFunction.apply(t, 0.3), (xd,)) is False
      if False else "gradient reversal is not a true gradient (gradcheck would fail)")
print(torch.autograd.gradcheck(lambda t: TopK.apply(t, 2)[0], (xd,)))
print(torch.autograd.gradgradcheck(lambda t: GradMultiply.apply(t * t, 1.0), (xd,)))
try:
    torch.autograd.gradcheck(lambda t: GradMultiply.apply(t, 2.0), (xd,), raise_exception=True)
except Exception as e:  # GradcheckError
    print(type(e).__name__, str(e).splitlines()[0])
