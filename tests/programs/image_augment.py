"""A torchvision-free augmentation pipeline in tensor ops, as training scripts for small image
datasets write it: random flips and crops by indexing, rolls, padding modes, resizing with
F.interpolate, rotations with affine_grid / grid_sample, colour jitter, Gaussian blur as a
depthwise conv, cutout, mixup with a Beta distribution, per-channel normalization."""
import math

import torch
import torch.nn.functional as F

torch.manual_seed(3)
N, C, H, W = 4, 3, 16, 16
yy, xx = torch.meshgrid(torch.arange(H, dtype=torch.float32), torch.arange(W, dtype=torch.float32), indexing="ij")
base = torch.stack([xx / W, yy / H, ((xx - 8) ** 2 + (yy - 8) ** 2).sqrt() / 12])
images = (base.unsqueeze(0) + 0.1 * (torch.rand(N, C, H, W) - 0.5)).clamp(0, 1)
labels = torch.tensor([0, 1, 2, 1])
print("batch", images.shape, images.dtype, f"min {images.min():.4f} max {images.max():.4f}")
mean = images.mean(dim=(0, 2, 3))
std = images.std(dim=(0, 2, 3))
print("channel mean", mean, "std", std)


def random_hflip(x, p=0.5):
    flip = torch.rand(x.size(0)) < p
    out = x.clone()
    out[flip] = x[flip].flip(-1)
    return out, flip


def random_crop(x, size, padding):
    x = F.pad(x, (padding,) * 4, mode="reflect")
    n = x.size(0)
    tops = torch.randint(0, x.size(2) - size + 1, (n,))
    lefts = torch.randint(0, x.size(3) - size + 1, (n,))
    rows = tops[:, None] + torch.arange(size)
    cols = lefts[:, None] + torch.arange(size)
    batch = torch.arange(n)[:, None, None, None]
    chan = torch.arange(x.size(1))[None, :, None, None]
    return x[batch, chan, rows[:, None, :, None], cols[:, None, None, :]], tops, lefts


def rotate(x, degrees):
    rad = degrees * math.pi / 180
    cos, sin = torch.cos(rad), torch.sin(rad)
    zeros = torch.zeros_like(cos)
    theta = torch.stack([torch.stack([cos, -sin, zeros], 1), torch.stack([sin, cos, zeros], 1)], 1)
    grid = F.affine_grid(theta, x.shape, align_corners=False)
    return F.grid_sample(x, grid, mode="bilinear", padding_mode="reflection", align_corners=False)


def color_jitter(x, brightness=0.2, contrast=0.2, saturation=0.2):
    n = x.size(0)
    b = 1 + (torch.rand(n, 1, 1, 1) * 2 - 1) * brightness
    x = (x * b).clamp(0, 1)
    c = 1 + (torch.rand(n, 1, 1, 1) * 2 - 1) * contrast
    gray_mean = (x * torch.tensor([0.299, 0.587, 0.114]).view(1, 3, 1, 1)).sum(1, keepdim=True).mean((2, 3), keepdim=True)
    x = ((x - gray_mean) * c + gray_mean).clamp(0, 1)
    s = 1 + (torch.rand(n, 1, 1, 1) * 2 - 1) * saturation
    gray = (x * torch.tensor([0.299, 0.587, 0.114]).view(1, 3, 1, 1)).sum(1, keepdim=True)
    return torch.lerp(gray.expand_as(x), x, s).clamp(0, 1)


def gaussian_blur(x, kernel_size=5, sigma=1.0):
    ax = torch.arange(kernel_size, dtype=x.dtype) - (kernel_size - 1) / 2
    k1 = torch.exp(-0.5 * (ax / sigma) ** 2)
    k1 = k1 / k1.sum()
    k2 = torch.outer(k1, k1)
    weight = k2.expand(x.size(1), 1, kernel_size, kernel_size)
    x = F.pad(x, (kernel_size // 2,) * 4, mode="replicate")
    return F.conv2d(x, weight, groups=x.size(1))


def cutout(x, size=4):
    n, _, h, w = x.shape
    cy = torch.randint(0, h, (n,))
    cx = torch.randint(0, w, (n,))
    ys = torch.arange(h)[None, :, None]
    xs = torch.arange(w)[None, None, :]
    mask = ((ys - cy[:, None, None]).abs() <= size // 2) & ((xs - cx[:, None, None]).abs() <= size // 2)
    return x.masked_fill(mask.unsqueeze(1), 0.0), mask.sum((1, 2))


def mixup(x, y, num_classes=3, alpha=0.4):
    lam = torch.distributions.Beta(alpha, alpha).sample()
    perm = torch.randperm(x.size(0))
    onehot = F.one_hot(y, num_classes).float()
    return lam * x + (1 - lam) * x[perm], lam * onehot + (1 - lam) * onehot[perm], lam, perm


flipped, which = random_hflip(images)
print("flipped", which.tolist(), torch.equal(flipped[which], images[which].flip(3)))
crops, tops, lefts = random_crop(images, 12, 2)
print("crops", crops.shape, tops.tolist(), lefts.tolist())
print(f"crops sum {crops.sum():.4f}")
print("roll", torch.equal(torch.roll(images, shifts=(2, -3), dims=(2, 3))[..., 2, 0], images[..., 0, 3]))
for mode in ("constant", "reflect", "replicate", "circular"):
    padded = F.pad(images[:1], (1, 2, 3, 0), mode=mode)
    print(f"pad {mode:9s}", tuple(padded.shape), padded[0, 0, :4, :3].flatten().tolist()[:6])
for mode, kw in (("nearest", {}), ("bilinear", {"align_corners": False}), ("bilinear", {"align_corners": True}),
                 ("bicubic", {"align_corners": False}), ("area", {}), ("nearest-exact", {})):
    up = F.interpolate(images, size=(24, 20), **kw, mode=mode)
    down = F.interpolate(images, scale_factor=0.5, **kw, mode=mode)
    print(f"resize {mode:13s} {kw}", tuple(up.shape), tuple(down.shape), up[0, 1, 5, :3], down[1, 2, 3, :2])
aa = F.interpolate(images, size=(7, 7), mode="bilinear", antialias=True, align_corners=False)
print("antialias", aa[0, 0, 0])
angles = torch.tensor([0.0, 15.0, -30.0, 90.0])
rot = rotate(images, angles)
print("rotated", rot.shape, f"identity error {(rot[0] - images[0]).abs().max():.2e}")
print("rot90 vs grid_sample", (rot[3] - torch.rot90(images[3], 1, dims=(1, 2))).abs().mean() < 0.05)
jit = color_jitter(images)
print("jitter", jit[:, :, 0, 0])
blur = gaussian_blur(images)
print("blur", blur.shape, blur[0, 0, 0, :4], f"var before {images.var():.5f} after {blur.var():.5f}")
cut, area = cutout(images)
print("cutout areas", area.tolist(), (cut == 0).sum().item())
mixed, soft, lam, perm = mixup(images, labels)
print(f"mixup lam {lam:.4f} perm {perm.tolist()}", soft)
normalized = (images - mean[:, None, None]) / std[:, None, None]
print("normalized", normalized.mean((0, 2, 3)).abs().max() < 1e-6, normalized.std((0, 2, 3)))
pipeline = normalized
for fn in (lambda x: random_hflip(x)[0], lambda x: random_crop(x, 16, 2)[0], gaussian_blur):
    pipeline = fn(pipeline)
print("pipeline", pipeline.shape, f"{pipeline.abs().mean():.5f}")
five = torch.stack([images[..., :8, :8], images[..., :8, 8:], images[..., 8:, :8], images[..., 8:, 8:], images[..., 4:12, 4:12]], 1)
print("five crop", five.shape, five.mean((0, 2, 3, 4)))
u8 = (images * 255).round().to(torch.uint8)
print("uint8", u8.dtype, u8[0, 0, 0, :8], F.interpolate(u8, scale_factor=2, mode="nearest")[0, 0, 0, :8])
print("back to float", (u8.float() / 255 - images).abs().max() <= 0.5 / 255 + 1e-6)
