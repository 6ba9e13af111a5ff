"""EDSR-style single-image super-resolution (Lim et al.; the EDSR-PyTorch repository's
model/common.py and edsr.py, shrunk): MeanShift as a frozen 1x1 Conv2d subtracting the RGB
mean, ResBlock without batch norm whose forward is `res = self.body(x).mul(self.res_scale);
res += x`, the trunk's global skip `res = self.body(x); res += x` right after a conv, an
Upsampler of conv + PixelShuffle stages, L1 loss with Adam and a MultiStepLR halving,
load_state_dict(strict=False) of a checkpoint with a different tail, chopped inference on
patches (forward_chop-style), and PSNR with the border shaved."""
# ruff: noqa: B008, B904 - written the way the repository it imitates is written
import math

import torch
import torch.nn as nn
import torch.nn.functional as F


def default_conv(in_channels, out_channels, kernel_size, bias=True):
    return nn.Conv2d(in_channels, out_channels, kernel_size, padding=(kernel_size // 2), bias=bias)


class MeanShift(nn.Conv2d):
    def __init__(self, rgb_range, rgb_mean=(0.4488, 0.4371, 0.4040), rgb_std=(1.0, 1.0, 1.0), sign=-1):
        super().__init__(3, 3, kernel_size=1)
        std = torch.Tensor(rgb_std)
        self.weight.data = torch.eye(3).view(3, 3, 1, 1) / std.view(3, 1, 1, 1)
        self.bias.data = sign * rgb_range * torch.Tensor(rgb_mean) / std
        for p in self.parameters():
            p.requires_grad = False


class ResBlock(nn.Module):
    def __init__(self, conv, n_feats, kernel_size, bias=True, bn=False, act=nn.ReLU(True), res_scale=1):
        super().__init__()
        m = []
        for i in range(2):
            m.append(conv(n_feats, n_feats, kernel_size, bias=bias))
            if bn:
                m.append(nn.BatchNorm2d(n_feats))
            if i == 0:
                m.append(act)
        self.body = nn.Sequential(*m)
        self.res_scale = res_scale

    def forward(self, x):
        res = self.body(x).mul(self.res_scale)
        res += x
        return res


class Upsampler(nn.Sequential):
    def __init__(self, conv, scale, n_feats, bn=False, act=False, bias=True):
        m = []
        if (scale & (scale - 1)) == 0:
            for _ in range(int(math.log(scale, 2))):
                m.append(conv(n_feats, 4 * n_feats, 3, bias))
                m.append(nn.PixelShuffle(2))
                if bn:
                    m.append(nn.BatchNorm2d(n_feats))
                if act == "relu":
                    m.append(nn.ReLU(True))
        else:
            raise NotImplementedError
        super().__init__(*m)


class EDSR(nn.Module):
    def __init__(self, n_resblocks=4, n_feats=16, scale=2, rgb_range=1.0, res_scale=0.1, conv=default_conv):
        super().__init__()
        kernel_size = 3
        act = nn.ReLU(True)
        self.sub_mean = MeanShift(rgb_range)
        self.add_mean = MeanShift(rgb_range, sign=1)
        m_head = [conv(3, n_feats, kernel_size)]
        m_body = [ResBlock(conv, n_feats, kernel_size, act=act, res_scale=res_scale) for _ in range(n_resblocks)]
        m_body.append(conv(n_feats, n_feats, kernel_size))
        m_tail = [Upsampler(conv, scale, n_feats, act=False), conv(n_feats, 3, kernel_size)]
        self.head = nn.Sequential(*m_head)
        self.body = nn.Sequential(*m_body)
        self.tail = nn.Sequential(*m_tail)

    def forward(self, x):
        x = self.sub_mean(x)
        x = self.head(x)
        res = self.body(x)
        res += x
        x = self.tail(res)
        x = self.add_mean(x)
        return x

    def load_state_dict(self, state_dict, strict=True):
        own_state = self.state_dict()
        for name, param in state_dict.items():
            if name in own_state:
                if isinstance(param, nn.Parameter):
                    param = param.data
                try:
                    own_state[name].copy_(param)
                except Exception:
                    if name.find("tail") == -1:
                        raise RuntimeError(f"While copying the parameter named {name}, whose dimensions in the model are"
                                           f" {own_state[name].size()} and whose dimensions in the checkpoint are {param.size()}.")
            elif strict:
                if name.find("tail") == -1:
                    raise KeyError(f'unexpected key "{name}" in state_dict')


def calc_psnr(sr, hr, scale, rgb_range):
    diff = (sr - hr) / rgb_range
    shave = scale
    valid = diff[..., shave:-shave, shave:-shave]
    mse = valid.pow(2).mean()
    return -10 * math.log10(mse)


torch.manual_seed(0)
scale = 2
yy, xx = torch.meshgrid(torch.linspace(0, 1, 16), torch.linspace(0, 1, 16), indexing="ij")
hr = torch.stack([0.5 + 0.4 * torch.sin(6 * xx + 2 * yy), 0.5 + 0.3 * torch.cos(5 * yy), 0.4 + 0.2 * xx * yy])
hr = hr.unsqueeze(0).repeat(4, 1, 1, 1) + 0.02 * torch.randn(4, 3, 16, 16)
lr = F.interpolate(hr, scale_factor=1 / scale, mode="bicubic", align_corners=False, antialias=True).clamp(0, 1)
print("hr", tuple(hr.shape), "lr", tuple(lr.shape))

model = EDSR(scale=scale)
print(model.body[0])
print(model.tail)
print("trainable", sum(p.numel() for p in model.parameters() if p.requires_grad), "frozen", sum(p.numel() for p in model.parameters() if not p.requires_grad))
with torch.no_grad():
    print("mean shift round trip:", torch.allclose(model.add_mean(model.sub_mean(hr)), hr, atol=1e-6))
bicubic = F.interpolate(lr, scale_factor=scale, mode="bicubic", align_corners=False)
print(f"bicubic PSNR {calc_psnr(bicubic, hr, scale, 1.0):.3f}")

opt = torch.optim.Adam(model.parameters(), lr=1e-3, betas=(0.9, 0.999), eps=1e-8)
sched = torch.optim.lr_scheduler.MultiStepLR(opt, milestones=[20], gamma=0.5)
loss_fn = nn.L1Loss()
for step in range(30):
    sr = model(lr)
    loss = loss_fn(sr, hr)
    opt.zero_grad()
    loss.backward()
    if step == 0:
        print("parameters without grad:", [n for n, p in model.named_parameters() if p.requires_grad and p.grad is None])
    opt.step()
    sched.step()
    if step % 10 == 0:
        print(f"[{step:2d}] L1 {loss.item():.5f} lr {sched.get_last_lr()[0]:.6f}")

model.eval()
with torch.no_grad():
    sr = model(lr).clamp(0, 1)
    print(f"EDSR PSNR {calc_psnr(sr, hr, scale, 1.0):.3f}")
    # chopped inference: four overlapping quarters of the low-resolution input
    h, w = lr.shape[-2:]
    h_half, w_half = h // 2, w // 2
    shave = 2
    h_size, w_size = h_half + shave, w_half + shave
    patches = [lr[..., :h_size, :w_size], lr[..., :h_size, w - w_size:], lr[..., h - h_size:, :w_size], lr[..., h - h_size:, w - w_size:]]
    outs = [model(p) for p in patches]
    H, W = scale * h, scale * w
    out = lr.new_zeros(lr.size(0), 3, H, W)
    hh, ww = scale * h_half, scale * w_half
    out[..., :hh, :ww] = outs[0][..., :hh, :ww]
    out[..., :hh, ww:] = outs[1][..., :hh, scale * w_size - (W - ww):]
    out[..., hh:, :ww] = outs[2][..., scale * h_size - (H - hh):, :ww]
    out[..., hh:, ww:] = outs[3][..., scale * h_size - (H - hh):, scale * w_size - (W - ww):]
    print("chopped output", tuple(out.shape), f"max |chop - full| below 0.05: {(out.clamp(0, 1) - sr).abs().max().item() < 0.05}")

state = model.state_dict()
x4 = EDSR(scale=4)
x4.load_state_dict(state, strict=False)
print("x4 model reused the trunk:", torch.equal(x4.body[0].body[0].weight, model.body[0].body[0].weight),
      "tail differs in depth:", len(x4.tail[0]), "vs", len(model.tail[0]))
