"""A small 3-D CNN for video clips (C3D / R(2+1)D style): Conv3d, BatchNorm3d, MaxPool3d,
a (2+1)-D factorized convolution, Dropout3d, AdaptiveAvgPool3d, ConvTranspose3d for a
reconstruction head, trilinear interpolation and a clip-level classifier."""
import torch
import torch.nn as nn
import torch.nn.functional as F


class Conv2Plus1D(nn.Sequential):
    def __init__(self, in_planes, out_planes, midplanes):
        super().__init__(
            nn.Conv3d(in_planes, midplanes, kernel_size=(1, 3, 3), padding=(0, 1, 1), bias=False),
            nn.BatchNorm3d(midplanes),
            nn.ReLU(inplace=True),
            nn.Conv3d(midplanes, out_planes, kernel_size=(3, 1, 1), padding=(1, 0, 0), bias=False),
        )


class VideoNet(nn.Module):
    def __init__(self, num_classes=3):
        super().__init__()
        self.stem = nn.Sequential(
            nn.Conv3d(3, 8, kernel_size=(3, 5, 5), stride=(1, 2, 2), padding=(1, 2, 2), bias=False),
            nn.BatchNorm3d(8),
            nn.ReLU(inplace=True),
        )
        self.pool = nn.MaxPool3d(kernel_size=(1, 2, 2), stride=(1, 2, 2))
        self.block = Conv2Plus1D(8, 16, 12)
        self.bn = nn.BatchNorm3d(16)
        self.drop = nn.Dropout3d(0.1)
        self.avgpool = nn.AdaptiveAvgPool3d((1, 1, 1))
        self.fc = nn.Linear(16, num_classes)
        self.decoder = nn.ConvTranspose3d(16, 3, kernel_size=(1, 4, 4), stride=(1, 4, 4))

    def forward(self, x):
        x = self.pool(self.stem(x))
        feats = self.drop(F.relu(self.bn(self.block(x))))
        logits = self.fc(self.avgpool(feats).flatten(1))
        recon = self.decoder(feats)
        return logits, recon


def make_clip(label, generator):
    """Class 0: a bright square moving right, 1: moving down, 2: static noise."""
    clip = 0.1 * torch.randn(3, 8, 16, 16, generator=generator)
    for t in range(8):
        if label == 0:
            clip[:, t, 6:10, t:t + 4] += 1.0
        elif label == 1:
            clip[:, t, t:t + 4, 6:10] += 1.0
    return clip


torch.manual_seed(0)
gen = torch.Generator().manual_seed(0)
labels = torch.arange(24) % 3
clips = torch.stack([make_clip(int(y), gen) for y in labels])
print("clips", tuple(clips.shape), clips.dtype)
model = VideoNet()
print(model.block)
logits, recon = model(clips[:2])
print("logits", tuple(logits.shape), "recon", tuple(recon.shape))
print("params:", sum(p.numel() for p in model.parameters()))
optimizer = torch.optim.SGD(model.parameters(), lr=0.05, momentum=0.9, nesterov=True, weight_decay=1e-4)
for epoch in range(6):
    perm = torch.randperm(24)
    total = 0.0
    for i in range(0, 24, 8):
        idx = perm[i:i + 8]
        logits, recon = model(clips[idx])
        target = F.interpolate(clips[idx], size=recon.shape[2:], mode="trilinear", align_corners=False)
        loss = F.cross_entropy(logits, labels[idx]) + 0.5 * F.mse_loss(recon, target)
        optimizer.zero_grad()
        loss.backward()
        optimizer.step()
        total += loss.item()
    print(f"epoch {epoch} loss {total / 3:.4f}")

model.eval()
with torch.no_grad():
    logits, _ = model(clips)
    pred = logits.argmax(1)
print("accuracy:", (pred == labels).float().mean().item())
print("bn running_var", model.stem[1].running_var[:4])

# shapes through the 3-D ops on their own
x = torch.randn(1, 2, 5, 7, 9)
print(F.max_pool3d(x, 2, ceil_mode=True).shape, F.avg_pool3d(x, (1, 3, 3), stride=1, padding=(0, 1, 1)).shape)
print(F.interpolate(x, scale_factor=(1, 2, 2), mode="nearest").shape)
print(F.adaptive_max_pool3d(x, (2, 2, 2)).shape)
conv = nn.Conv3d(2, 4, 3, padding="same", dilation=2)
print(conv, conv(x).shape)
up = nn.ConvTranspose3d(2, 2, 3, stride=2, padding=1, output_padding=1)
print(up(x).shape)
print(F.conv3d(x, torch.ones(1, 2, 1, 1, 1)).sum(1).sub(x.sum(1)).abs().max() < 1e-5)
