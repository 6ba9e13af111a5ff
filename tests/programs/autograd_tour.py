"""Pieces of the autograd tutorial: requires_grad, grad_fn, no_grad, detach, Jacobian products."""
import torch

x = torch.ones(5)
y = torch.zeros(3)
w = torch.randn(5, 3, requires_grad=True)
b = torch.randn(3, requires_grad=True)
z = torch.matmul(x, w) + b
loss = torch.nn.functional.binary_cross_entropy_with_logits(z, y)
print(f"Gradient function for z = {z.grad_fn}")
print(f"Gradient function for loss = {loss.grad_fn}")
loss.backward()
print(w.grad.shape, b.grad.shape)
print(torch.allclose(b.grad, torch.sigmoid(z.detach()) / 3))

z = torch.matmul(x, w) + b
print(z.requires_grad)
with torch.no_grad():
    z = torch.matmul(x, w) + b
print(z.requires_grad)
z = torch.matmul(x, w) + b
z_det = z.detach()
print(z_det.requires_grad)

inp = torch.eye(4, 5, requires_grad=True)
out = (inp + 1).pow(2).t()
out.backward(torch.ones_like(out), retain_graph=True)
print(f"First call\n{inp.grad}")
out.backward(torch.ones_like(out), retain_graph=True)
print(f"\nSecond call\n{inp.grad}")
inp.grad.zero_()
out.backward(torch.ones_like(out), retain_graph=True)
print(f"\nCall after zeroing gradients\n{inp.grad}")

a = torch.tensor([2., 3.], requires_grad=True)
b = torch.tensor([6., 4.], requires_grad=True)
Q = 3 * a ** 3 - b ** 2
external_grad = torch.tensor([1., 1.])
Q.backward(gradient=external_grad)
print(9 * a ** 2 == a.grad)
print(-2 * b == b.grad)
print(a.grad, b.grad)

t = torch.randn(3, 3)
print(t.requires_grad)
t.requires_grad_()
print(t.requires_grad, t.is_leaf)
s = (t * 2).sum()
print(s.grad_fn.next_functions[0][0])
s.backward()
print(t.grad)
print(t.detach().numpy().dtype, t.detach().numpy().shape)
v = torch.linspace(0, 1, 5)
print(f"{v}")
print(f"{v.sum():.3f}", f"{v.mean().item():.4f}", repr(v.max()))
print(v.numpy().tolist())
print(torch.tensor(3.5).item(), type(torch.tensor(3).item()))

def f(x):
    return (x ** 3).sum()

x = torch.tensor([1.0, 2.0], requires_grad=True)
(g,) = torch.autograd.grad(f(x), x, create_graph=True)
(g2,) = torch.autograd.grad(g.sum(), x)
print(g, g2)
