"""Convolution and pooling written with unfold, as explainers and custom-layer repos do: im2col
by F.unfold then a matmul compared with F.conv2d (stride, padding, dilation, groups), the
gradient through it, F.fold as its adjoint (overlap counts, the divisor trick for patch
averaging), max-pooling by Tensor.unfold windows, a locally-connected layer (unshared
weights), sliding-window statistics over a 1-D signal, and patch extraction / reassembly."""
import torch
import torch.nn.functional as F

torch.manual_seed(0)
x = torch.randn(2, 3, 8, 8, dtype=torch.float64)
w = torch.randn(4, 3, 3, 3, dtype=torch.float64)
b = torch.randn(4, dtype=torch.float64)


def conv2d_unfold(x, w, b=None, stride=1, padding=0, dilation=1):
    n, c, h, wd = x.shape
    oc, _, kh, kw = w.shape
    cols = F.unfold(x, (kh, kw), dilation=dilation, padding=padding, stride=stride)
    out = w.view(oc, -1) @ cols
    if b is not None:
        out = out + b.view(1, -1, 1)
    oh = (h + 2 * padding - dilation * (kh - 1) - 1) // stride + 1
    ow = (wd + 2 * padding - dilation * (kw - 1) - 1) // stride + 1
    return out.view(n, oc, oh, ow)


for kwargs in [dict(), dict(stride=2), dict(padding=1), dict(dilation=2, padding=2), dict(stride=2, padding=1, dilation=1)]:
    ours = conv2d_unfold(x, w, b, **kwargs)
    ref = F.conv2d(x, w, b, **kwargs)
    print(kwargs, tuple(ours.shape), torch.allclose(ours, ref, atol=1e-10))

cols = F.unfold(x, kernel_size=3)
print(cols.shape, cols[0, :5, 0])


def grouped(x, w, groups):
    xs = x.chunk(groups, dim=1)
    ws = w.chunk(groups, dim=0)
    return torch.cat([conv2d_unfold(xi, wi) for xi, wi in zip(xs, ws)], dim=1)


wg = torch.randn(6, 1, 3, 3, dtype=torch.float64)
print("groups:", torch.allclose(grouped(x, wg, 3), F.conv2d(x, wg, groups=3)))

xr = x.clone().requires_grad_(True)
wr = w.clone().requires_grad_(True)
conv2d_unfold(xr, wr, padding=1).pow(2).sum().backward()
x2 = x.clone().requires_grad_(True)
w2 = w.clone().requires_grad_(True)
F.conv2d(x2, w2, padding=1).pow(2).sum().backward()
print("grads:", torch.allclose(xr.grad, x2.grad), torch.allclose(wr.grad, w2.grad), xr.grad.dtype)

ones = torch.ones(1, 1, 6, 6)
patches = F.unfold(ones, kernel_size=3, stride=1)
counts = F.fold(patches, output_size=(6, 6), kernel_size=3)
print(counts[0, 0])
img = torch.arange(36.).view(1, 1, 6, 6)
p = F.unfold(img, kernel_size=2, stride=2)
print(p.shape, torch.equal(F.fold(p, (6, 6), kernel_size=2, stride=2), img))
avg = F.fold(F.unfold(img, 3, padding=1), (6, 6), 3, padding=1) / F.fold(F.unfold(torch.ones_like(img), 3, padding=1), (6, 6), 3, padding=1)
print(torch.allclose(avg, img))

# max pooling with Tensor.unfold windows
t = torch.randn(2, 3, 6, 6)
windows = t.unfold(2, 2, 2).unfold(3, 2, 2)
print(windows.shape, windows.stride(), windows.is_contiguous())
mp = windows.contiguous().view(*windows.shape[:4], -1).max(dim=-1).values
print(torch.equal(mp, F.max_pool2d(t, 2)))
ap = t.unfold(2, 3, 1).unfold(3, 3, 1).mean(dim=(-1, -2))
print(torch.allclose(ap, F.avg_pool2d(t, 3, stride=1)))


class LocallyConnected2d(torch.nn.Module):
    def __init__(self, in_channels, out_channels, in_size, kernel_size, stride=1):
        super().__init__()
        out = (in_size - kernel_size) // stride + 1
        self.out_size, self.k, self.s = out, kernel_size, stride
        self.weight = torch.nn.Parameter(torch.randn(1, out_channels, in_channels, out, out, kernel_size ** 2) * 0.1)
        self.bias = torch.nn.Parameter(torch.zeros(1, out_channels, out, out))

    def forward(self, x):
        x = x.unfold(2, self.k, self.s).unfold(3, self.k, self.s)
        x = x.contiguous().view(*x.size()[:-2], -1)
        out = (x.unsqueeze(1) * self.weight).sum([2, -1])
        return out + self.bias


lc = LocallyConnected2d(3, 5, 8, 3)
y = lc(torch.randn(4, 3, 8, 8))
print(y.shape, sum(p.numel() for p in lc.parameters()))
y.mean().backward()
print(lc.weight.grad.shape, lc.weight.grad.abs().sum() > 0)

sig = torch.sin(torch.linspace(0, 6.283185307179586, 40, dtype=torch.float64))
win = sig.unfold(0, 8, 4)
print(win.shape, win.stride(), win.mean(1).shape, torch.round(win.std(1), decimals=4))
print(torch.arange(10).unfold(0, 3, 3), torch.arange(6.).view(2, 3).unfold(1, 2, 1))
try:
    torch.arange(5).unfold(0, 6, 1)
except RuntimeError as e:
    print("RuntimeError:", e)
