"""A Glow-style normalizing flow (Kingma & Dhariwal; the rosinality/glow-pytorch and
chaiyujin/glow-pytorch structure) on 2x4x4 "images": ActNorm with data-dependent initialization
(an `initialized` buffer, mean / std over (0, 2, 3)), the invertible 1x1 convolution both as a
plain weight with torch.linalg.slogdet and in its LU-decomposed form (a random orthogonal
matrix from torch.linalg.qr, torch.linalg.lu into P, L, U, the sign of U's diagonal as a
buffer, triu / tril masks, log|s| parameters), squeeze / unsqueeze by view and permute, an
affine coupling with a zero-initialized output conv and a sigmoid scale, the log-likelihood in
bits per dimension, inverses checked against the inputs, and sampling at a temperature."""
import math

import torch
import torch.nn as nn
import torch.nn.functional as F

logabs = lambda x: torch.log(torch.abs(x))


class ActNorm(nn.Module):
    def __init__(self, in_channel, logdet=True):
        super().__init__()
        self.loc = nn.Parameter(torch.zeros(1, in_channel, 1, 1))
        self.scale = nn.Parameter(torch.ones(1, in_channel, 1, 1))
        self.register_buffer("initialized", torch.tensor(0, dtype=torch.uint8))
        self.logdet = logdet

    def initialize(self, input):
        with torch.no_grad():
            flatten = input.permute(1, 0, 2, 3).contiguous().view(input.shape[1], -1)
            mean = flatten.mean(1).unsqueeze(1).unsqueeze(2).unsqueeze(3).permute(1, 0, 2, 3)
            std = flatten.std(1).unsqueeze(1).unsqueeze(2).unsqueeze(3).permute(1, 0, 2, 3)
            self.loc.data.copy_(-mean)
            self.scale.data.copy_(1 / (std + 1e-6))

    def forward(self, input):
        _, _, height, width = input.shape
        if self.initialized.item() == 0:
            self.initialize(input)
            self.initialized.fill_(1)
        log_abs = logabs(self.scale)
        logdet = height * width * torch.sum(log_abs)
        return self.scale * (input + self.loc), logdet

    def reverse(self, output):
        return output / self.scale - self.loc


class InvConv2d(nn.Module):
    def __init__(self, in_channel):
        super().__init__()
        weight = torch.randn(in_channel, in_channel)
        q, _ = torch.linalg.qr(weight)
        weight = q.unsqueeze(2).unsqueeze(3)
        self.weight = nn.Parameter(weight)

    def forward(self, input):
        _, _, height, width = input.shape
        out = F.conv2d(input, self.weight)
        logdet = height * width * torch.slogdet(self.weight.squeeze().double())[1].float()
        return out, logdet

    def reverse(self, output):
        return F.conv2d(output, self.weight.squeeze().inverse().unsqueeze(2).unsqueeze(3))


class InvConv2dLU(nn.Module):
    def __init__(self, in_channel):
        super().__init__()
        weight = torch.randn(in_channel, in_channel)
        q, _ = torch.linalg.qr(weight)
        w_p, w_l, w_u = torch.linalg.lu(q)
        w_s = torch.diag(w_u)
        w_u = torch.triu(w_u, 1)
        u_mask = torch.triu(torch.ones_like(w_u), 1)
        l_mask = u_mask.T
        self.register_buffer("w_p", w_p)
        self.register_buffer("u_mask", u_mask)
        self.register_buffer("l_mask", l_mask)
        self.register_buffer("s_sign", torch.sign(w_s))
        self.register_buffer("l_eye", torch.eye(l_mask.shape[0]))
        self.w_l = nn.Parameter(w_l)
        self.w_s = nn.Parameter(logabs(w_s))
        self.w_u = nn.Parameter(w_u)

    def forward(self, input):
        _, _, height, width = input.shape
        weight = self.calc_weight()
        out = F.conv2d(input, weight)
        logdet = height * width * torch.sum(self.w_s)
        return out, logdet

    def calc_weight(self):
        weight = self.w_p @ (self.w_l * self.l_mask + self.l_eye) @ ((self.w_u * self.u_mask) + torch.diag(self.s_sign * torch.exp(self.w_s)))
        return weight.unsqueeze(2).unsqueeze(3)

    def reverse(self, output):
        weight = self.calc_weight()
        return F.conv2d(output, weight.squeeze().inverse().unsqueeze(2).unsqueeze(3))


class ZeroConv2d(nn.Module):
    def __init__(self, in_channel, out_channel):
        super().__init__()
        self.conv = nn.Conv2d(in_channel, out_channel, 3, padding=0)
        self.conv.weight.data.zero_()
        self.conv.bias.data.zero_()
        self.scale = nn.Parameter(torch.zeros(1, out_channel, 1, 1))

    def forward(self, input):
        out = F.pad(input, [1, 1, 1, 1], value=1)
        out = self.conv(out)
        return out * torch.exp(self.scale * 3)


class AffineCoupling(nn.Module):
    def __init__(self, in_channel, filter_size=16):
        super().__init__()
        self.net = nn.Sequential(
            nn.Conv2d(in_channel // 2, filter_size, 3, padding=1), nn.ReLU(inplace=True),
            nn.Conv2d(filter_size, filter_size, 1), nn.ReLU(inplace=True),
            ZeroConv2d(filter_size, in_channel))
        self.net[0].weight.data.normal_(0, 0.05)
        self.net[0].bias.data.zero_()
        self.net[2].weight.data.normal_(0, 0.05)
        self.net[2].bias.data.zero_()

    def forward(self, input):
        in_a, in_b = input.chunk(2, 1)
        log_s, t = self.net(in_a).chunk(2, 1)
        s = torch.sigmoid(log_s + 2)
        out_b = (in_b + t) * s
        logdet = torch.sum(torch.log(s).view(input.shape[0], -1), 1)
        return torch.cat([in_a, out_b], 1), logdet

    def reverse(self, output):
        out_a, out_b = output.chunk(2, 1)
        log_s, t = self.net(out_a).chunk(2, 1)
        s = torch.sigmoid(log_s + 2)
        in_b = out_b / s - t
        return torch.cat([out_a, in_b], 1)


class Flow(nn.Module):
    def __init__(self, in_channel, conv_lu=True):
        super().__init__()
        self.actnorm = ActNorm(in_channel)
        self.invconv = InvConv2dLU(in_channel) if conv_lu else InvConv2d(in_channel)
        self.coupling = AffineCoupling(in_channel)

    def forward(self, input):
        out, logdet = self.actnorm(input)
        out, det1 = self.invconv(out)
        out, det2 = self.coupling(out)
        logdet = logdet + det1
        if det2 is not None:
            logdet = logdet + det2
        return out, logdet

    def reverse(self, output):
        input = self.coupling.reverse(output)
        input = self.invconv.reverse(input)
        return self.actnorm.reverse(input)


def squeeze2d(x):
    b, c, h, w = x.shape
    x = x.view(b, c, h // 2, 2, w // 2, 2).permute(0, 1, 3, 5, 2, 4).contiguous()
    return x.view(b, c * 4, h // 2, w // 2)


def unsqueeze2d(x):
    b, c, h, w = x.shape
    x = x.view(b, c // 4, 2, 2, h, w).permute(0, 1, 4, 2, 5, 3).contiguous()
    return x.view(b, c // 4, h * 2, w * 2)


def gaussian_log_p(x, mean, log_sd):
    return -0.5 * math.log(2 * math.pi) - log_sd - 0.5 * (x - mean) ** 2 / torch.exp(2 * log_sd)


class Glow(nn.Module):
    def __init__(self, in_channel, n_flow, conv_lu=True):
        super().__init__()
        self.flows = nn.ModuleList([Flow(in_channel * 4, conv_lu=conv_lu) for _ in range(n_flow)])

    def forward(self, x):
        out = squeeze2d(x)
        logdet = 0
        for flow in self.flows:
            out, det = flow(out)
            logdet = logdet + det
        log_p = gaussian_log_p(out, torch.zeros_like(out), torch.zeros_like(out)).view(x.shape[0], -1).sum(1)
        return log_p, logdet, out

    def reverse(self, z):
        out = z
        for flow in self.flows[::-1]:
            out = flow.reverse(out)
        return unsqueeze2d(out)


def calc_loss(log_p, logdet, image_size, n_bins, n_channel):
    n_pixel = image_size * image_size * n_channel
    loss = -math.log(n_bins) * n_pixel
    loss = loss + logdet + log_p
    return (-loss / (math.log(2) * n_pixel)).mean(), (log_p / (math.log(2) * n_pixel)).mean(), (logdet / (math.log(2) * n_pixel)).mean()


torch.manual_seed(0)
x = torch.arange(8.0).view(1, 2, 2, 2)
print("squeeze", squeeze2d(x).shape, squeeze2d(x).flatten().tolist())
print("unsqueeze inverts:", torch.equal(unsqueeze2d(squeeze2d(x)), x))

# LU pieces on a fixed matrix
A = torch.tensor([[0.0, 2.0, 1.0], [1.0, 1.0, 0.0], [2.0, 0.0, 3.0]])
P, L, U = torch.linalg.lu(A)
print("P", P)
print("L", L)
print("U", U)
print("P @ L @ U == A:", torch.allclose(P @ L @ U, A))
sign, logabsdet = torch.linalg.slogdet(A)
print("slogdet", sign, logabsdet, "det", torch.linalg.det(A))
print("sum log|diag U|", torch.log(torch.diag(U).abs()).sum())
LU, pivots = torch.linalg.lu_factor(A)
print("lu_factor pivots", pivots, "solve", torch.linalg.lu_solve(LU, pivots, torch.tensor([[1.0], [2.0], [3.0]])).flatten())

n_bins = 2.0 ** 5
images = (torch.rand(16, 2, 4, 4) * 0.5 + torch.linspace(0, 0.5, 4).view(1, 1, 1, 4)).clamp(0, 1)
images = torch.floor(images * n_bins) / n_bins - 0.5
for conv_lu in (False, True):
    torch.manual_seed(1)
    model = Glow(2, n_flow=3, conv_lu=conv_lu)
    print("conv_lu", conv_lu, "parameters", sum(p.numel() for p in model.parameters()),
          "buffers", [n for n, _ in model.flows[0].named_buffers()])
    optimizer = torch.optim.Adam(model.parameters(), lr=1e-3)
    for i in range(20):
        image = images + torch.rand_like(images) / n_bins
        log_p, logdet, z = model(image)
        logdet = logdet.mean()
        loss, log_p_bpd, log_det_bpd = calc_loss(log_p, logdet, 4, n_bins, 2)
        model.zero_grad()
        loss.backward()
        optimizer.step()
        if i % 5 == 0:
            print(f"  Loss: {loss.item():.5f}; logP: {log_p_bpd.item():.5f}; logdet: {log_det_bpd.item():.5f}")
    print("  params without grad:", [n for n, p in model.named_parameters() if p.grad is None])
    print("  actnorm initialized", model.flows[0].actnorm.initialized)
    with torch.no_grad():
        log_p, logdet, z = model(images)
        recon = model.reverse(z)
        print("  inverse error small:", (recon - images).abs().max().item() < 1e-4)
        if conv_lu:
            w = model.flows[0].invconv.calc_weight().squeeze()
            print("  logdet(W) matches sum(w_s):", torch.allclose(torch.linalg.slogdet(w)[1], model.flows[0].invconv.w_s.sum(), atol=1e-5))
            print("  L unit lower:", torch.equal(torch.diag(model.flows[0].invconv.w_l * model.flows[0].invconv.l_mask + model.flows[0].invconv.l_eye), torch.ones(8)))
        temp = 0.7
        sample = model.reverse(torch.randn_like(z) * temp)
        print("  sample", tuple(sample.shape), sample.dtype)
