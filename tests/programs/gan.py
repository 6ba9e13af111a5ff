"""A tiny GAN on a 2-D Gaussian: two optimizers, detach, BCEWithLogitsLoss, labels with full_like."""
# Written as the tutorial or repository it imitates writes it:
# ruff: noqa: UP031
import torch
import torch.nn as nn

torch.manual_seed(0)
latent = 4
G = nn.Sequential(nn.Linear(latent, 32), nn.LeakyReLU(0.2), nn.Linear(32, 2))
D = nn.Sequential(nn.Linear(2, 32), nn.LeakyReLU(0.2, inplace=True), nn.Linear(32, 1))
print(G)
print(D)
criterion = nn.BCEWithLogitsLoss()
optD = torch.optim.Adam(D.parameters(), lr=2e-3, betas=(0.5, 0.999))
optG = torch.optim.Adam(G.parameters(), lr=2e-3, betas=(0.5, 0.999))
real_label, fake_label = 1.0, 0.0
mean = torch.tensor([2.0, -1.0])
for it in range(200):
    real = torch.randn(64, 2) * 0.5 + mean
    b_size = real.size(0)
    # (1) Update D: maximize log(D(x)) + log(1 - D(G(z)))
    D.zero_grad()
    label = torch.full((b_size,), real_label, dtype=torch.float)
    output = D(real).view(-1)
    errD_real = criterion(output, label)
    errD_real.backward()
    D_x = torch.sigmoid(output).mean().item()
    noise = torch.randn(b_size, latent)
    fake = G(noise)
    label.fill_(fake_label)
    output = D(fake.detach()).view(-1)
    errD_fake = criterion(output, label)
    errD_fake.backward()
    errD = errD_real + errD_fake
    optD.step()
    # (2) Update G: maximize log(D(G(z)))
    G.zero_grad()
    label.fill_(real_label)
    output = D(fake).view(-1)
    errG = criterion(output, label)
    errG.backward()
    optG.step()
    if it % 50 == 0:
        print('[%d/%d]\tLoss_D: %.4f\tLoss_G: %.4f\tD(x): %.4f' % (it, 200, errD.item(), errG.item(), D_x))
with torch.no_grad():
    samples = G(torch.randn(1000, latent))
print("fake mean near target:", torch.dist(samples.mean(0), mean).item() < 1.0)
print("samples", samples.shape, samples.requires_grad, samples.std(0).shape)
print("D has grads:", all(p.grad is not None for p in D.parameters()))
