"""Growing neural cellular automata (Mordvintsev et al., distill.pub; the PyTorch ports of the
notebook): a 16-channel state grid with an alpha channel, perception by depthwise F.conv2d
with identity / Sobel filters stacked and repeated per channel (groups=channels), a 1x1-conv
update rule whose last layer is zero-initialized, stochastic cell updates from a torch.rand
mask, living-cell masking with F.max_pool2d over alpha > 0.1, a sample pool with the
highest-loss sample reseeded, per-parameter gradient normalization (p.grad / (p.grad.norm() +
1e-8)) before Adam with a MultiStepLR schedule, and the persistence of the pattern checked."""
import numpy as np
import torch
import torch.nn as nn
import torch.nn.functional as F

torch.manual_seed(0)
np.random.seed(0)
CHANNEL_N = 16
TARGET_SIZE = 12
CELL_FIRE_RATE = 0.5


def make_target(size):
    yy, xx = torch.meshgrid(torch.arange(size, dtype=torch.float32), torch.arange(size, dtype=torch.float32), indexing="ij")
    c = (size - 1) / 2
    r = ((yy - c) ** 2 + (xx - c) ** 2).sqrt()
    alpha = (r < size / 3).float()
    rgb = torch.stack([alpha * (xx / size), alpha * (yy / size), alpha * 0.5])
    return torch.cat([rgb, alpha[None]], 0)


def to_rgba(x):
    return x[:, :4]


def to_alpha(x):
    return torch.clamp(x[:, 3:4], 0.0, 1.0)


def to_rgb(x):
    rgb, a = x[:, :3], to_alpha(x)
    return 1.0 - a + rgb


class CAModel(nn.Module):
    def __init__(self, channel_n, fire_rate, hidden_size=64):
        super().__init__()
        self.channel_n = channel_n
        self.fire_rate = fire_rate
        self.fc0 = nn.Conv2d(channel_n * 3, hidden_size, 1)
        self.fc1 = nn.Conv2d(hidden_size, channel_n, 1, bias=False)
        with torch.no_grad():
            self.fc1.weight.zero_()
        ident = torch.tensor([[0.0, 0.0, 0.0], [0.0, 1.0, 0.0], [0.0, 0.0, 0.0]])
        sobel_x = torch.tensor([[-1.0, 0.0, 1.0], [-2.0, 0.0, 2.0], [-1.0, 0.0, 1.0]]) / 8.0
        kernel = torch.stack([ident, sobel_x, sobel_x.T])
        self.register_buffer("kernel", kernel.repeat(channel_n, 1, 1)[:, None])

    def alive(self, x):
        return F.max_pool2d(x[:, 3:4, :, :], kernel_size=3, stride=1, padding=1) > 0.1

    def perceive(self, x):
        return F.conv2d(F.pad(x, (1, 1, 1, 1), "circular"), self.kernel, groups=self.channel_n)

    def update(self, x, fire_rate):
        pre_life_mask = self.alive(x)
        dx = self.fc1(F.relu(self.fc0(self.perceive(x))))
        stochastic = torch.rand(x.shape[0], 1, x.shape[2], x.shape[3]) <= fire_rate
        x = x + dx * stochastic.float()
        post_life_mask = self.alive(x)
        life_mask = (pre_life_mask & post_life_mask).float()
        return x * life_mask

    def forward(self, x, steps=1, fire_rate=None):
        fire_rate = self.fire_rate if fire_rate is None else fire_rate
        for _ in range(steps):
            x = self.update(x, fire_rate)
        return x


def make_seed(size, n=1):
    x = torch.zeros(n, CHANNEL_N, size, size)
    x[:, 3:, size // 2, size // 2] = 1.0
    return x


target = make_target(TARGET_SIZE)
pad_target = F.pad(target, (2, 2, 2, 2))
size = pad_target.shape[-1]
print("target", tuple(target.shape), "alive pixels", int(target[3].sum()))
print("padded", tuple(pad_target.shape))

ca = CAModel(CHANNEL_N, CELL_FIRE_RATE)
print(ca)
print("kernel buffer", tuple(ca.kernel.shape), "trainable", sum(p.numel() for p in ca.parameters()))
seed = make_seed(size)
print("perception of the seed", tuple(ca.perceive(seed).shape), ca.perceive(seed)[0, 9:12, size // 2, size // 2 - 1:size // 2 + 2])
print("alive mask cells", int(ca.alive(seed).sum()))
with torch.no_grad():
    grown = ca(seed, steps=3, fire_rate=1.0)
print("untrained model keeps the seed:", torch.equal(grown, seed))

optimizer = torch.optim.Adam(ca.parameters(), lr=2e-3, eps=1e-7)
scheduler = torch.optim.lr_scheduler.MultiStepLR(optimizer, [30], 0.1)
POOL_SIZE, BATCH_SIZE = 16, 4
pool = make_seed(size, POOL_SIZE)
loss_log = []
for i in range(40):
    batch_idx = np.random.choice(POOL_SIZE, BATCH_SIZE, replace=False)
    x0 = pool[batch_idx]
    loss_rank = F.mse_loss(to_rgba(x0), pad_target[None].expand(BATCH_SIZE, -1, -1, -1), reduction="none").mean(dim=(1, 2, 3)).argsort(descending=True)
    x0 = x0[loss_rank]
    x0[:1] = make_seed(size)
    steps = np.random.randint(8, 12)
    x = ca(x0, steps=steps)
    loss = F.mse_loss(to_rgba(x), pad_target[None].expand(BATCH_SIZE, -1, -1, -1))
    optimizer.zero_grad()
    loss.backward()
    for p in ca.parameters():
        p.grad /= (p.grad.norm() + 1e-8)
    optimizer.step()
    scheduler.step()
    pool[batch_idx] = x.detach()
    loss_log.append(loss.item())
    if i % 10 == 0:
        print(f"{i} steps={steps} loss={loss.item():.6f} log10={np.log10(loss.item()):.4f} lr={scheduler.get_last_lr()[0]:.5f}")
print("grad norms normalized:", all(abs(p.grad.norm().item() - 1.0) < 1e-4 for p in ca.parameters()))
print("loss decreased:", np.mean(loss_log[-5:]) < np.mean(loss_log[:5]))
with torch.no_grad():
    x = ca(make_seed(size), steps=10)
    rgb = to_rgb(x)
    print("rgb", tuple(rgb.shape), "alpha range ok:", bool(((to_alpha(x) >= 0) & (to_alpha(x) <= 1)).all()))
    print("dead cells stay zero:", bool((x * (~ca.alive(x)).float()).abs().max() == 0))
    img = (rgb[0].permute(1, 2, 0).clamp(0, 1) * 255).to(torch.uint8)
    print("image", img.dtype, tuple(img.shape))
