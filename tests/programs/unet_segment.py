"""A tiny U-Net for binary segmentation of synthetic blobs: skip connections, interpolate/Upsample, Dice + BCE loss, IoU, PixelShuffle."""
import torch
import torch.nn as nn
import torch.nn.functional as F

torch.manual_seed(3)


def make_batch(n, size=32):
    yy, xx = torch.meshgrid(torch.arange(size), torch.arange(size), indexing="ij")
    centers = torch.randint(8, size - 8, (n, 2))
    radii = torch.randint(4, 8, (n,))
    dist = (yy[None] - centers[:, 0, None, None]) ** 2 + (xx[None] - centers[:, 1, None, None]) ** 2
    masks = (dist <= radii[:, None, None] ** 2).float().unsqueeze(1)
    images = masks * 0.8 + 0.3 * torch.randn(n, 1, size, size)
    return images, masks


class DoubleConv(nn.Sequential):
    def __init__(self, cin, cout):
        super().__init__(
            nn.Conv2d(cin, cout, 3, padding=1, bias=False), nn.BatchNorm2d(cout), nn.ReLU(inplace=True),
            nn.Conv2d(cout, cout, 3, padding=1, bias=False), nn.BatchNorm2d(cout), nn.ReLU(inplace=True))


class UNet(nn.Module):
    def __init__(self, c=8):
        super().__init__()
        self.inc = DoubleConv(1, c)
        self.down1 = nn.Sequential(nn.MaxPool2d(2), DoubleConv(c, 2 * c))
        self.down2 = nn.Sequential(nn.MaxPool2d(2), DoubleConv(2 * c, 4 * c))
        self.up1 = nn.ConvTranspose2d(4 * c, 2 * c, 2, stride=2)
        self.conv1 = DoubleConv(4 * c, 2 * c)
        self.up2 = nn.Upsample(scale_factor=2, mode="bilinear", align_corners=True)
        self.conv2 = DoubleConv(3 * c, c)
        self.outc = nn.Conv2d(c, 1, 1)

    def forward(self, x):
        x1 = self.inc(x)
        x2 = self.down1(x1)
        x3 = self.down2(x2)
        u = self.up1(x3)
        diff_y, diff_x = x2.size(2) - u.size(2), x2.size(3) - u.size(3)
        u = F.pad(u, [diff_x // 2, diff_x - diff_x // 2, diff_y // 2, diff_y - diff_y // 2])
        u = self.conv1(torch.cat([x2, u], dim=1))
        u = self.conv2(torch.cat([x1, self.up2(u)], dim=1))
        return self.outc(u)


def dice_loss(logits, target, eps=1.0):
    prob = torch.sigmoid(logits)
    inter = (prob * target).sum(dim=(1, 2, 3))
    union = prob.sum(dim=(1, 2, 3)) + target.sum(dim=(1, 2, 3))
    return 1 - ((2 * inter + eps) / (union + eps)).mean()


def iou(logits, target):
    pred = logits > 0
    inter = (pred & target.bool()).sum().item()
    union = (pred | target.bool()).sum().item()
    return inter / max(union, 1)


model = UNet()
print(f"UNet with {sum(p.numel() for p in model.parameters())} parameters")
opt = torch.optim.Adam(model.parameters(), lr=3e-3)
images, masks = make_batch(64)
print(images.shape, masks.shape, f"foreground {masks.mean():.3f}")
for step in range(30):
    idx = torch.randint(0, 64, (16,))
    logits = model(images[idx])
    loss = F.binary_cross_entropy_with_logits(logits, masks[idx]) + dice_loss(logits, masks[idx])
    opt.zero_grad()
    loss.backward()
    opt.step()
    if step % 10 == 0:
        print(f"step {step:02d} loss {loss.item():.4f} iou {iou(logits, masks[idx]):.3f}")
model.eval()
test_x, test_y = make_batch(16)
with torch.no_grad():
    out = model(test_x)
print(out.shape, "test IoU above 0.5:", iou(out, test_y) > 0.5)

# the resizing helpers such a model uses
x = torch.arange(16.0).view(1, 1, 4, 4)
print(F.interpolate(x, scale_factor=0.5, mode="nearest"))
print(F.interpolate(x, size=(2, 3), mode="bilinear", align_corners=False))
print(F.interpolate(x, scale_factor=2, mode="bilinear", align_corners=True)[0, 0, :2])
print(F.interpolate(torch.arange(4.0).view(1, 1, 4), size=6, mode="linear"))
print(F.avg_pool2d(x, 2), F.adaptive_max_pool2d(x, 1).flatten())
print(F.pad(x, (1, 1, 1, 1), mode="reflect")[0, 0, 0], F.pad(x, (1, 0, 2, 0), mode="replicate").shape)
print(nn.PixelShuffle(2)(torch.arange(16.0).view(1, 4, 2, 2)))
print(nn.PixelUnshuffle(2)(torch.arange(16.0).view(1, 1, 4, 4)).shape)
patches = F.unfold(x, kernel_size=2, stride=2)
print(patches.shape, patches[0, :, 0])
print(F.fold(patches, output_size=(4, 4), kernel_size=2, stride=2).equal(x))
