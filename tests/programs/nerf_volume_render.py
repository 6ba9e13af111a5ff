"""A tiny NeRF (the structure of nerf-pytorch / the NeRF paper's reference code) on a synthetic
scene: rays from a pinhole camera (get_rays with meshgrid(indexing='xy')), Fourier positional
encoding (embed_fns with sin / cos of 2^k x), stratified samples along each ray with
torch.linspace and torch.rand jitter, volume rendering (raw2outputs: alpha = 1 - exp(-relu(sigma)
* dists), transmittance as an exclusive cumprod of 1 - alpha + 1e-10), hierarchical sampling
from the coarse weights (sample_pdf: cumsum, searchsorted(right=True), gather of cdf / bins),
an MLP with a skip connection, Adam with an exponential learning-rate decay, img2mse / mse2psnr."""
import numpy as np
import torch
import torch.nn as nn
import torch.nn.functional as F

torch.manual_seed(0)
np.random.seed(0)

img2mse = lambda x, y: torch.mean((x - y) ** 2)
mse2psnr = lambda x: -10.0 * torch.log(x) / torch.log(torch.Tensor([10.0]))


class Embedder:
    def __init__(self, multires, include_input=True):
        self.embed_fns = []
        self.out_dim = 0
        if include_input:
            self.embed_fns.append(lambda x: x)
            self.out_dim += 3
        freq_bands = 2.0 ** torch.linspace(0.0, multires - 1, steps=multires)
        for freq in freq_bands:
            for p_fn in (torch.sin, torch.cos):
                self.embed_fns.append(lambda x, p_fn=p_fn, freq=freq: p_fn(x * freq))
                self.out_dim += 3

    def embed(self, inputs):
        return torch.cat([fn(inputs) for fn in self.embed_fns], -1)


class NeRF(nn.Module):
    def __init__(self, D=4, W=32, input_ch=3, skips=(2,)):
        super().__init__()
        self.skips = skips
        self.pts_linears = nn.ModuleList(
            [nn.Linear(input_ch, W)]
            + [nn.Linear(W, W) if i not in self.skips else nn.Linear(W + input_ch, W) for i in range(D - 1)]
        )
        self.output_linear = nn.Linear(W, 4)

    def forward(self, x):
        h = x
        for i, layer in enumerate(self.pts_linears):
            h = F.relu(layer(h))
            if i in self.skips:
                h = torch.cat([x, h], -1)
        return self.output_linear(h)


def get_rays(H, W, focal, c2w):
    i, j = torch.meshgrid(torch.linspace(0, W - 1, W), torch.linspace(0, H - 1, H), indexing="xy")
    dirs = torch.stack([(i - W * 0.5) / focal, -(j - H * 0.5) / focal, -torch.ones_like(i)], -1)
    rays_d = torch.sum(dirs[..., None, :] * c2w[:3, :3], -1)
    rays_o = c2w[:3, -1].expand(rays_d.shape)
    return rays_o, rays_d


def raw2outputs(raw, z_vals, rays_d, white_bkgd=False):
    raw2alpha = lambda raw, dists, act_fn=F.relu: 1.0 - torch.exp(-act_fn(raw) * dists)
    dists = z_vals[..., 1:] - z_vals[..., :-1]
    dists = torch.cat([dists, torch.Tensor([1e10]).expand(dists[..., :1].shape)], -1)
    dists = dists * torch.norm(rays_d[..., None, :], dim=-1)
    rgb = torch.sigmoid(raw[..., :3])
    alpha = raw2alpha(raw[..., 3], dists)
    weights = alpha * torch.cumprod(torch.cat([torch.ones((alpha.shape[0], 1)), 1.0 - alpha + 1e-10], -1), -1)[:, :-1]
    rgb_map = torch.sum(weights[..., None] * rgb, -2)
    depth_map = torch.sum(weights * z_vals, -1)
    disp_map = 1.0 / torch.max(1e-10 * torch.ones_like(depth_map), depth_map / torch.sum(weights, -1))
    acc_map = torch.sum(weights, -1)
    if white_bkgd:
        rgb_map = rgb_map + (1.0 - acc_map[..., None])
    return rgb_map, disp_map, acc_map, weights, depth_map


def sample_pdf(bins, weights, N_samples, det=False):
    weights = weights + 1e-5
    pdf = weights / torch.sum(weights, -1, keepdim=True)
    cdf = torch.cumsum(pdf, -1)
    cdf = torch.cat([torch.zeros_like(cdf[..., :1]), cdf], -1)
    if det:
        u = torch.linspace(0.0, 1.0, steps=N_samples)
        u = u.expand(list(cdf.shape[:-1]) + [N_samples])
    else:
        u = torch.rand(list(cdf.shape[:-1]) + [N_samples])
    u = u.contiguous()
    inds = torch.searchsorted(cdf, u, right=True)
    below = torch.max(torch.zeros_like(inds - 1), inds - 1)
    above = torch.min((cdf.shape[-1] - 1) * torch.ones_like(inds), inds)
    inds_g = torch.stack([below, above], -1)
    matched_shape = [inds_g.shape[0], inds_g.shape[1], cdf.shape[-1]]
    cdf_g = torch.gather(cdf.unsqueeze(1).expand(matched_shape), 2, inds_g)
    bins_g = torch.gather(bins.unsqueeze(1).expand(matched_shape), 2, inds_g)
    denom = cdf_g[..., 1] - cdf_g[..., 0]
    denom = torch.where(denom < 1e-5, torch.ones_like(denom), denom)
    t = (u - cdf_g[..., 0]) / denom
    return bins_g[..., 0] + t * (bins_g[..., 1] - bins_g[..., 0])


def render_rays(model, embed, rays_o, rays_d, near, far, N_samples, N_importance, perturb):
    N_rays = rays_o.shape[0]
    t_vals = torch.linspace(0.0, 1.0, steps=N_samples)
    z_vals = near * (1.0 - t_vals) + far * t_vals
    z_vals = z_vals.expand([N_rays, N_samples])
    if perturb > 0.0:
        mids = 0.5 * (z_vals[..., 1:] + z_vals[..., :-1])
        upper = torch.cat([mids, z_vals[..., -1:]], -1)
        lower = torch.cat([z_vals[..., :1], mids], -1)
        t_rand = torch.rand(z_vals.shape)
        z_vals = lower + (upper - lower) * t_rand
    pts = rays_o[..., None, :] + rays_d[..., None, :] * z_vals[..., :, None]
    raw = model(embed(pts.reshape(-1, 3))).reshape(N_rays, N_samples, 4)
    rgb_map, disp_map, acc_map, weights, depth_map = raw2outputs(raw, z_vals, rays_d)
    z_vals_mid = 0.5 * (z_vals[..., 1:] + z_vals[..., :-1])
    z_samples = sample_pdf(z_vals_mid, weights[..., 1:-1], N_importance, det=(perturb == 0.0)).detach()
    z_vals, _ = torch.sort(torch.cat([z_vals, z_samples], -1), -1)
    pts = rays_o[..., None, :] + rays_d[..., None, :] * z_vals[..., :, None]
    raw = model(embed(pts.reshape(-1, 3))).reshape(N_rays, N_samples + N_importance, 4)
    rgb_fine, disp_fine, acc_fine, _, depth_fine = raw2outputs(raw, z_vals, rays_d)
    return {"rgb_map": rgb_fine, "rgb0": rgb_map, "disp_map": disp_fine, "acc_map": acc_fine,
            "depth_map": depth_fine, "z_vals": z_vals}


# A synthetic "scene": the target colour of each ray is a smooth function of its direction.
H = W = 8
focal = 10.0
c2w = torch.eye(4)[:3]
c2w[2, 3] = 4.0
rays_o, rays_d = get_rays(H, W, focal, c2w)
print("rays", tuple(rays_o.shape), tuple(rays_d.shape))
print("corner ray dir", rays_d[0, 0])
print("centre ray dir", rays_d[H // 2, W // 2])
rays_o, rays_d = rays_o.reshape(-1, 3), rays_d.reshape(-1, 3)
target = torch.stack([0.5 + 0.5 * rays_d[:, 0] * 2, 0.5 - 0.5 * rays_d[:, 1] * 2, 0.25 + 0.0 * rays_d[:, 2]], -1).clamp(0, 1)
print("target range", f"{target.min().item():.4f}", f"{target.max().item():.4f}")

embed = Embedder(multires=4)
print("embedding dim", embed.out_dim)
x = torch.tensor([[0.1, -0.2, 0.3]])
print("embedded point", embed.embed(x))

# deterministic pieces first: rendering constant densities, and inverse-transform sampling
z = torch.linspace(2.0, 6.0, 5).expand(2, 5)
raw = torch.zeros(2, 5, 4)
raw[..., 3] = torch.tensor([[0.0, 0.5, 1.0, 2.0, 0.0], [3.0, 0.0, 0.0, 0.0, 0.0]])
rgb, disp, acc, weights, depth = raw2outputs(raw, z, torch.tensor([[0.0, 0.0, -1.0], [0.0, 0.6, -0.8]]))
print("weights", weights)
print("acc", acc, "depth", depth)
print("disp", disp)
bins = torch.tensor([[0.0, 1.0, 2.0, 3.0]])
print("det samples", sample_pdf(bins, torch.tensor([[1.0, 0.0, 3.0]]), 6, det=True))

model = NeRF(input_ch=embed.out_dim)
print(model)
print("parameters", sum(p.numel() for p in model.parameters()))
optimizer = torch.optim.Adam(params=model.parameters(), lr=5e-3, betas=(0.9, 0.999))
lrate_decay, decay_rate = 250, 0.1
N_rand = 32
losses = []
for i in range(40):
    select = torch.randperm(rays_o.shape[0])[:N_rand]
    out = render_rays(model, embed.embed, rays_o[select], rays_d[select], 2.0, 6.0, 16, 8, perturb=1.0)
    img_loss = img2mse(out["rgb_map"], target[select])
    loss = img_loss + img2mse(out["rgb0"], target[select])
    psnr = mse2psnr(img_loss)
    optimizer.zero_grad()
    loss.backward()
    optimizer.step()
    new_lrate = 5e-3 * (decay_rate ** ((i + 1) / lrate_decay))
    for param_group in optimizer.param_groups:
        param_group["lr"] = new_lrate
    losses.append(loss.item())
    if i % 10 == 0:
        print(f"[TRAIN] Iter: {i} Loss: {loss.item()}  PSNR: {psnr.item()}")
print("lr now", optimizer.param_groups[0]["lr"])
print("loss decreased:", sum(losses[-5:]) < sum(losses[:5]))

with torch.no_grad():
    out = render_rays(model, embed.embed, rays_o, rays_d, 2.0, 6.0, 16, 8, perturb=0.0)
    rgb = out["rgb_map"].reshape(H, W, 3)
    print("render", tuple(rgb.shape), "z sorted:", bool((out["z_vals"][:, 1:] >= out["z_vals"][:, :-1]).all()))
    print("acc in [0, 1]:", bool(((out["acc_map"] >= 0) & (out["acc_map"] <= 1 + 1e-6)).all()))
    test_psnr = mse2psnr(img2mse(out["rgb_map"], target))
    print("test psnr above 10:", test_psnr.item() > 10.0, test_psnr.shape)
    rgb8 = (255 * np.clip(rgb.numpy(), 0, 1)).astype(np.uint8)
    print("rgb8", rgb8.dtype, rgb8.shape)
