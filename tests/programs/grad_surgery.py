"""Custom autograd.Functions (straight-through estimator, gradient reversal, a clamp with custom backward) and hooks that edit gradients."""
import torch
import torch.nn as nn


class StraightThroughSign(torch.autograd.Function):
    @staticmethod
    def forward(ctx, input):
        ctx.save_for_backward(input)
        return input.sign()

    @staticmethod
    def backward(ctx, grad_output):
        input, = ctx.saved_tensors
        grad_input = grad_output.clone()
        grad_input[input.abs() > 1] = 0
        return grad_input


class GradReverse(torch.autograd.Function):
    @staticmethod
    def forward(ctx, x, lambd):
        ctx.lambd = lambd
        return x.view_as(x)

    @staticmethod
    def backward(ctx, grad_output):
        return grad_output.neg() * ctx.lambd, None


class ScaledClamp(torch.autograd.Function):
    @staticmethod
    def forward(ctx, x, lo, hi):
        mask = (x >= lo) & (x <= hi)
        ctx.save_for_backward(mask)
        ctx.mark_non_differentiable(mask)
        return x.clamp(lo, hi), mask

    @staticmethod
    def backward(ctx, grad, grad_mask):
        mask, = ctx.saved_tensors
        return grad * mask.float() + 0.01 * grad * (~mask).float(), None, None


torch.manual_seed(0)
x = torch.tensor([-2.0, -0.5, 0.0, 0.3, 1.5], requires_grad=True)
y = StraightThroughSign.apply(x)
print(y)
y.sum().backward()
print(x.grad)
print(y.grad_fn.__class__.__name__)

x.grad = None
z = GradReverse.apply(x * 2, 0.5)
z.sum().backward()
print(x.grad)

x.grad = None
out, mask = ScaledClamp.apply(x, -1.0, 1.0)
print(out, mask, mask.requires_grad)
(out * torch.arange(5.0)).sum().backward()
print(x.grad)

# hooks that edit gradients
w = torch.randn(3, 3, requires_grad=True)
seen = []
h1 = w.register_hook(lambda g: seen.append(g.norm().item() > 0))
h2 = w.register_hook(lambda g: g.clamp(-0.1, 0.1))
loss = (w @ torch.ones(3)).pow(2).sum()
loss.backward()
print("clamped:", w.grad.abs().max().item() <= 0.1, seen)
h1.remove()
h2.remove()
w.grad.zero_()
loss = (w @ torch.ones(3)).pow(2).sum()
loss.backward()
print("not clamped after remove:", w.grad.abs().max().item() > 0.1, len(seen))

# intermediate hooks, retain_grad, and a module full-backward hook that zeroes a row
model = nn.Sequential(nn.Linear(4, 3), nn.ReLU(), nn.Linear(3, 2))
inp = torch.randn(5, 4, requires_grad=True)
hidden = model[0](inp)
hidden.retain_grad()
hidden.register_hook(lambda g: g * 2)
logits = model[2](model[1](hidden))
logits.sum().backward()
print(hidden.grad.shape, hidden.is_leaf, inp.grad.shape)
grads = {}


def save_grad(name):
    def hook(module, grad_input, grad_output):
        grads[name] = (tuple(None if g is None else tuple(g.shape) for g in grad_input),
                       tuple(tuple(g.shape) for g in grad_output))
    return hook


def zero_first(module, grad_input, grad_output):
    g = grad_input[0].clone()
    g[0] = 0
    return (g,)


handles = [model[0].register_full_backward_hook(save_grad("fc1")),
           model[2].register_full_backward_hook(save_grad("fc2")),
           model[0].register_full_backward_hook(zero_first)]
inp.grad = None
model(inp).sum().backward()
print(grads)
print("first row zeroed:", inp.grad[0].abs().sum().item() == 0, inp.grad[1].abs().sum().item() > 0)
for h in handles:
    h.remove()

# gradient surgery on parameters: zero the gradient of frozen rows via a hook on the weight
emb = nn.Embedding(6, 2)
frozen = torch.tensor([0, 1])
emb.weight.register_hook(lambda g: g.index_fill(0, frozen, 0.0))
emb(torch.tensor([0, 1, 2, 3])).sum().backward()
print(emb.weight.grad)

# a post-accumulate-grad hook applying SGD in place
p = nn.Parameter(torch.ones(2))


def sgd_hook(param):
    param.data.sub_(0.1 * param.grad)


p.register_post_accumulate_grad_hook(sgd_hook)
(p * torch.tensor([1.0, 3.0])).sum().backward()
print(p)

# gradient clipping by value and by norm, and what they return
lin = nn.Linear(10, 10)
(lin(torch.randn(4, 10)) * 100).sum().backward()
total = nn.utils.clip_grad_norm_(lin.parameters(), max_norm=1.0, norm_type=2.0)
print(type(total).__name__, total.dim(), total.item() > 1.0)
print(torch.sqrt(sum(p.grad.pow(2).sum() for p in lin.parameters())).item() <= 1.0 + 1e-5)
nn.utils.clip_grad_value_(lin.parameters(), clip_value=0.01)
print(max(p.grad.abs().max().item() for p in lin.parameters()) <= 0.01)
print(torch.autograd.grad((x ** 3).sum(), x, create_graph=True)[0])
