"""Keyword-spotting style audio classifier: synthetic tones, torch.stft log-magnitude spectrograms with a Hann window, torch.fft.rfft peak frequencies, a Conv1d network over time."""
import math

import torch
import torch.nn as nn
import torch.nn.functional as F

torch.manual_seed(4)
SAMPLE_RATE = 8000
N_FFT, HOP = 256, 128
FREQS = [440.0, 880.0, 1320.0]


def make_clip(freq, n=4000):
    t = torch.arange(n) / SAMPLE_RATE
    phase = 2 * math.pi * torch.rand(1)
    wave = 0.6 * torch.sin(2 * math.pi * freq * t + phase) + 0.05 * torch.randn(n)
    return wave * torch.hann_window(n, periodic=False)


waves = torch.stack([make_clip(FREQS[i % 3]) for i in range(48)])
labels = torch.arange(48) % 3
print("waveforms:", waves.shape)

spectrum = torch.fft.rfft(waves[:3])
freq_axis = torch.fft.rfftfreq(waves.size(-1), d=1.0 / SAMPLE_RATE)
peaks = freq_axis[spectrum.abs().argmax(dim=-1)]
print("rfft:", spectrum.shape, spectrum.dtype, "peak Hz:", peaks.tolist())

window = torch.hann_window(N_FFT)
spec = torch.stft(waves, n_fft=N_FFT, hop_length=HOP, window=window, return_complex=True)
print("stft:", spec.shape, spec.dtype)
mag = spec.abs()
log_spec = torch.log1p(mag)
mean, std = log_spec.mean(), log_spec.std()
features = (log_spec - mean) / std
print("features:", features.shape, f"mean {features.mean().item():.4f} std {features.std().item():.4f}")
recon = torch.istft(spec[:2], n_fft=N_FFT, hop_length=HOP, window=window, length=waves.size(-1))
print("istft round trip:", torch.allclose(recon, waves[:2], atol=1e-4))


class KWS(nn.Module):
    def __init__(self, n_freq, n_classes=3):
        super().__init__()
        self.conv1 = nn.Conv1d(n_freq, 32, kernel_size=3, padding=1)
        self.bn1 = nn.BatchNorm1d(32)
        self.conv2 = nn.Conv1d(32, 32, kernel_size=3, padding=1)
        self.pool = nn.AdaptiveAvgPool1d(1)
        self.fc = nn.Linear(32, n_classes)

    def forward(self, x):
        x = F.relu(self.bn1(self.conv1(x)))
        x = F.relu(self.conv2(x))
        return self.fc(self.pool(x).squeeze(-1))


model = KWS(features.size(1))
print(model)
optimizer = torch.optim.Adam(model.parameters(), lr=3e-3)
for epoch in range(1, 7):
    model.train()
    logits = model(features)
    loss = F.cross_entropy(logits, labels)
    optimizer.zero_grad()
    loss.backward()
    optimizer.step()
    if epoch % 3 == 0:
        print(f"epoch {epoch} loss {loss.item():.4f}")
model.eval()
with torch.no_grad():
    acc = (model(features).argmax(1) == labels).float().mean()
print(f"accuracy {acc.item():.3f}")
