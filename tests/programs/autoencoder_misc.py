"""A convolutional autoencoder (ConvTranspose2d, Upsample, interpolate), LBFGS on a small fit,
SequentialLR warmup, an IterableDataset split across workers, MultiheadAttention weights, saving
to an in-memory buffer, and printed state_dicts."""
import io
import math

import torch
import torch.nn as nn
import torch.nn.functional as F
from torch.utils.data import DataLoader, IterableDataset, get_worker_info


class AE(nn.Module):
    def __init__(self):
        super().__init__()
        self.encoder = nn.Sequential(nn.Conv2d(1, 4, 3, stride=2, padding=1), nn.ReLU(True),
                                     nn.Conv2d(4, 8, 3, stride=2, padding=1), nn.ReLU(True))
        self.decoder = nn.Sequential(nn.ConvTranspose2d(8, 4, 3, stride=2, padding=1, output_padding=1),
                                     nn.ReLU(True), nn.Upsample(scale_factor=2, mode="nearest"),
                                     nn.Conv2d(4, 1, 3, padding=1), nn.Sigmoid())

    def forward(self, x):
        return self.decoder(self.encoder(x))


class RangeStream(IterableDataset):
    def __init__(self, start, end):
        super().__init__()
        self.start, self.end = start, end

    def __iter__(self):
        worker_info = get_worker_info()
        if worker_info is None:
            iter_start, iter_end = self.start, self.end
        else:
            per_worker = int(math.ceil((self.end - self.start) / float(worker_info.num_workers)))
            iter_start = self.start + worker_info.id * per_worker
            iter_end = min(iter_start + per_worker, self.end)
        return iter(range(iter_start, iter_end))


if __name__ == "__main__":
    torch.manual_seed(0)
    imgs = torch.zeros(8, 1, 16, 16)
    for i in range(8):
        imgs[i, 0, i:i + 6, 2 * i % 10:2 * i % 10 + 5] = 1.0
    ae = AE()
    opt = torch.optim.Adam(ae.parameters(), lr=1e-2)
    warmup = torch.optim.lr_scheduler.LinearLR(opt, start_factor=0.1, total_iters=3)
    decay = torch.optim.lr_scheduler.ExponentialLR(opt, gamma=0.9)
    sched = torch.optim.lr_scheduler.SequentialLR(opt, schedulers=[warmup, decay], milestones=[3])
    lrs, losses = [], []
    for _ in range(30):
        out = ae(imgs)
        loss = F.binary_cross_entropy(out, imgs)
        opt.zero_grad()
        loss.backward()
        opt.step()
        sched.step()
        lrs.append(round(sched.get_last_lr()[0], 6))
        losses.append(loss.item())
    print(out.shape, lrs[:6], "loss decreased:", losses[-1] < losses[0])
    print(F.interpolate(imgs[:1], size=(4, 4), mode="bilinear", align_corners=False).shape)
    print(F.interpolate(torch.arange(4.0).view(1, 1, 4), scale_factor=2, mode="linear"))

    xs = torch.linspace(0, 1, 20).unsqueeze(1)
    ys = 3 * xs ** 2 - xs + 0.5
    poly = nn.Linear(2, 1)
    feats = torch.cat([xs, xs ** 2], 1)
    lbfgs = torch.optim.LBFGS(poly.parameters(), lr=1, max_iter=50, line_search_fn="strong_wolfe")

    def closure():
        lbfgs.zero_grad()
        loss = F.mse_loss(poly(feats), ys)
        loss.backward()
        return loss

    for _ in range(3):
        final = lbfgs.step(closure)
    print("LBFGS loss < 1e-6:", final.item() < 1e-6, [round(v, 3) for v in poly.weight.flatten().tolist()], round(poly.bias.item(), 3))

    loader = DataLoader(RangeStream(3, 10), num_workers=2, batch_size=2)
    print(sorted(sum((b.tolist() for b in loader), [])))
    print(list(DataLoader(RangeStream(0, 5), batch_size=None)))

    mha = nn.MultiheadAttention(embed_dim=8, num_heads=2, batch_first=True)
    q = torch.randn(2, 3, 8)
    attn_out, attn_weights = mha(q, q, q, need_weights=True)
    print(attn_out.shape, attn_weights.shape, torch.allclose(attn_weights.sum(-1), torch.ones(2, 3)))
    _, per_head = mha(q, q, q, average_attn_weights=False)
    print(per_head.shape)

    buffer = io.BytesIO()
    torch.save({"ae": ae.state_dict(), "step": 30}, buffer)
    buffer.seek(0)
    state = torch.load(buffer)
    print(state["step"], list(state["ae"].keys()))
    small = nn.Sequential(nn.Linear(2, 2), nn.BatchNorm1d(2))
    with torch.no_grad():
        small[0].weight.copy_(torch.eye(2))
        small[0].bias.fill_(0.5)
    print(small.state_dict())
    sgd = torch.optim.SGD(small.parameters(), lr=0.1, momentum=0.9)
    small(torch.ones(4, 2)).sum().backward()
    sgd.step()
    print(sgd.state_dict())
