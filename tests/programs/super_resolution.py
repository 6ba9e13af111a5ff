"""pytorch/examples super_resolution (ESPCN) on synthetic images: the sub-pixel network with
PixelShuffle and orthogonal_ init, low-resolution inputs made with bicubic / area / antialiased
bilinear interpolation, PSNR with log10, pixel_unshuffle, and an upscaled prediction clamped
to [0, 1]."""
from math import log10

import torch
import torch.nn as nn
import torch.nn.functional as F
import torch.nn.init as init


class Net(nn.Module):
    def __init__(self, upscale_factor):
        super().__init__()
        self.relu = nn.ReLU()
        self.conv1 = nn.Conv2d(1, 32, (5, 5), (1, 1), (2, 2))
        self.conv2 = nn.Conv2d(32, 32, (3, 3), (1, 1), (1, 1))
        self.conv3 = nn.Conv2d(32, 16, (3, 3), (1, 1), (1, 1))
        self.conv4 = nn.Conv2d(16, upscale_factor ** 2, (3, 3), (1, 1), (1, 1))
        self.pixel_shuffle = nn.PixelShuffle(upscale_factor)
        self._initialize_weights()

    def forward(self, x):
        x = self.relu(self.conv1(x))
        x = self.relu(self.conv2(x))
        x = self.relu(self.conv3(x))
        return self.pixel_shuffle(self.conv4(x))

    def _initialize_weights(self):
        init.orthogonal_(self.conv1.weight, init.calculate_gain("relu"))
        init.orthogonal_(self.conv2.weight, init.calculate_gain("relu"))
        init.orthogonal_(self.conv3.weight, init.calculate_gain("relu"))
        init.orthogonal_(self.conv4.weight)


def make_images(n, size, generator):
    yy, xx = torch.meshgrid(torch.arange(size, dtype=torch.float32), torch.arange(size, dtype=torch.float32),
                            indexing="ij")
    imgs = []
    for _ in range(n):
        f = torch.rand(4, generator=generator) * 0.5 + 0.1
        img = 0.5 + 0.25 * torch.sin(f[0] * xx + f[1] * yy) + 0.25 * torch.cos(f[2] * xx - f[3] * yy)
        imgs.append(img)
    return torch.stack(imgs).unsqueeze(1)


torch.manual_seed(123)
g = torch.Generator().manual_seed(0)
upscale = 2
hr = make_images(24, 32, g)
lr_bicubic = F.interpolate(hr, scale_factor=1 / upscale, mode="bicubic", align_corners=False)
lr_area = F.interpolate(hr, size=(16, 16), mode="area")
lr_aa = F.interpolate(hr, size=(16, 16), mode="bilinear", antialias=True, align_corners=False)
print("hr", tuple(hr.shape), "lr", tuple(lr_bicubic.shape))
print("bicubic vs area", (lr_bicubic - lr_area).abs().max(), "antialias vs area", (lr_aa - lr_area).abs().max())
print(F.pixel_unshuffle(hr[:1], 2).shape, torch.equal(F.pixel_shuffle(F.pixel_unshuffle(hr[:1], 2), 2), hr[:1]))

model = Net(upscale_factor=upscale)
print(model)
w = model.conv2.weight.view(32, -1)
print("orthogonal rows:", torch.allclose(w @ w.t(), torch.eye(32) * 2.0, atol=1e-4))
criterion = nn.MSELoss()
optimizer = torch.optim.Adam(model.parameters(), lr=1e-3)
for epoch in range(1, 6):
    epoch_loss = 0
    for i in range(0, 16, 4):
        optimizer.zero_grad()
        loss = criterion(model(lr_area[i:i + 4]), hr[i:i + 4])
        epoch_loss += loss.item()
        loss.backward()
        optimizer.step()
    print(f"===> Epoch {epoch} Complete: Avg. Loss: {epoch_loss / 4:.4f}")
    avg_psnr = 0
    with torch.no_grad():
        for i in range(16, 24, 4):
            mse = criterion(model(lr_area[i:i + 4]), hr[i:i + 4])
            psnr = 10 * log10(1 / mse.item())
            avg_psnr += psnr
    print(f"===> Avg. PSNR: {avg_psnr / 2:.4f} dB")

bicubic_up = F.interpolate(lr_area[16:], scale_factor=upscale, mode="bicubic", align_corners=False).clamp(0, 1)
print(f"bicubic baseline PSNR {10 * log10(1 / criterion(bicubic_up, hr[16:]).item()):.4f} dB")
with torch.no_grad():
    out = model(lr_area[16:17]).clamp(0.0, 1.0)
print("output", tuple(out.shape), f"{out.min().item():.4f} {out.max().item():.4f}")
print("nearest-exact", F.interpolate(torch.arange(6.0).view(1, 1, 2, 3), scale_factor=1.5, mode="nearest-exact"))
print("bilinear align", F.interpolate(torch.arange(4.0).view(1, 1, 2, 2), size=(3, 3), mode="bilinear", align_corners=True))
print("upsample", nn.Upsample(scale_factor=2, mode="bicubic", align_corners=True)(torch.arange(4.0).view(1, 1, 2, 2))[0, 0, 1])
