"""The autograd errors and warnings people hit and print while debugging (each caught and its
message printed): backward twice, in-place modification of a saved tensor, grad of a non-scalar,
no grad_fn, .grad of a non-leaf (the warning), requires_grad on a non-leaf / integer tensor,
leaf variable modified in place, autograd.grad of unused inputs, detect_anomaly naming the
failing node, is_grads_batched, grad_outputs shape mismatch, and retain_grad / hooks on the fly."""
import warnings

import torch

torch.manual_seed(0)


def show(fn):
    try:
        fn()
        print("ok")
    except Exception as e:
        msg = str(e).splitlines()[0]
        print(f"{type(e).__name__}: {msg}")


x = torch.randn(3, requires_grad=True)
y = (x * 2).sum()
y.backward()
show(lambda: y.backward())

a = torch.randn(3, requires_grad=True)
b = a.sigmoid()
c = b * 2
b.add_(1)
show(lambda: c.sum().backward())

d = torch.randn(3, requires_grad=True)
e = d.exp()
e2 = e * e
e.mul_(2)
show(lambda: e2.sum().backward())

show(lambda: (torch.randn(3, requires_grad=True) * 2).backward())
show(lambda: torch.randn(3).sum().backward())
show(lambda: torch.tensor([1, 2]).requires_grad_())
show(lambda: torch.ones(2, requires_grad=True).add_(1))
w = torch.ones(2, requires_grad=True)
with torch.no_grad():
    w.add_(1)
print(w, w.is_leaf)

nl = torch.randn(2, requires_grad=True) * 3
with warnings.catch_warnings(record=True) as caught:
    warnings.simplefilter("always")
    print(nl.grad)
print([str(m.message)[:90] for m in caught])
nl2 = nl * 2
show(lambda: setattr(nl, "requires_grad", False))
nl.retain_grad()
(nl2.sum() + nl.sum()).backward()
print(nl.grad, nl.retains_grad, nl2.retains_grad)

p = torch.randn(2, requires_grad=True)
q = torch.randn(2, requires_grad=True)
show(lambda: torch.autograd.grad((p * 2).sum(), [p, q]))
print(torch.autograd.grad((p * 2).sum(), [p, q], allow_unused=True))
print(torch.autograd.grad((p * 2).sum(), [p, q], allow_unused=True, materialize_grads=True))
show(lambda: torch.autograd.grad(p * 2, p))
show(lambda: torch.autograd.grad(p * 2, p, grad_outputs=torch.ones(3)))
print(torch.autograd.grad(p * 2, p, grad_outputs=torch.tensor([1.0, 10.0])))
jac = torch.autograd.grad(p * torch.tensor([1.0, 2.0]), p, grad_outputs=torch.eye(2), is_grads_batched=True)
print(jac)

show(lambda: (torch.randn(2, requires_grad=True).detach() * 2).sum().backward())
z = torch.randn(2, requires_grad=True)
out = z.pow(2).sum()
out.backward(retain_graph=True)
out.backward()
print(z.grad.equal(4 * z.detach()))


class Bad(torch.autograd.Function):
    @staticmethod
    def forward(ctx, inp):
        return inp.clone()

    @staticmethod
    def backward(ctx, grad):
        return grad * float("nan")


with warnings.catch_warnings():
    warnings.simplefilter("ignore")
    with torch.autograd.detect_anomaly():
        v = torch.randn(2, requires_grad=True)
        show(lambda: Bad.apply(v).sum().backward())
    print(torch.is_anomaly_enabled())


class TwoOut(torch.autograd.Function):
    @staticmethod
    def forward(ctx, inp):
        return inp * 2, inp * 3

    @staticmethod
    def backward(ctx, g1, g2):
        return g1 * 2


show(lambda: sum(TwoOut.apply(torch.ones(2, requires_grad=True))).sum().backward())


class WrongShape(torch.autograd.Function):
    @staticmethod
    def forward(ctx, inp):
        return inp.sum()

    @staticmethod
    def backward(ctx, g):
        return torch.ones(5)


show(lambda: WrongShape.apply(torch.ones(3, requires_grad=True)).backward())
leaf = torch.zeros(3, requires_grad=True)
show(lambda: leaf[0].fill_(1))
view = torch.zeros(3, requires_grad=True).clone()[:2]
with torch.no_grad():
    view2 = view.view(2)
show(lambda: view2.mul_(2))
hooks = []
t = torch.ones(2, requires_grad=True)
h = t.register_hook(lambda g: hooks.append(g.clone()) or g * 10)
(t * 3).sum().backward()
print(t.grad, hooks)
h.remove()
show(lambda: torch.ones(2).register_hook(lambda g: g))
