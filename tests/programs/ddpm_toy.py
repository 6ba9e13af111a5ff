"""A denoising diffusion model (DDPM, 'The Annotated Diffusion Model' / denoising-diffusion-pytorch
style) on 8x8 synthetic images: linear and cosine beta schedules, alphas_cumprod with F.pad,
the extract() helper (gather + reshape to the batch's rank), q_sample with randn_like noise,
SinusoidalPositionEmbeddings, a small residual conv net with GroupNorm / SiLU and time
conditioning, p_losses with the Huber loss, p_sample / p_sample_loop under torch.no_grad in
reversed(range(T)), and an EMA of the weights with lerp_."""
import math
from functools import partial

import torch
import torch.nn.functional as F
from torch import nn

torch.manual_seed(0)


def cosine_beta_schedule(timesteps, s=0.008):
    """
    cosine schedule as proposed in https://arxiv.org/abs/2102.09672
    """
    steps = timesteps + 1
    x = torch.linspace(0, timesteps, steps)
    alphas_cumprod = torch.cos(((x / timesteps) + s) / (1 + s) * torch.pi * 0.5) ** 2
    alphas_cumprod = alphas_cumprod / alphas_cumprod[0]
    betas = 1 - (alphas_cumprod[1:] / alphas_cumprod[:-1])
    return torch.clip(betas, 0.0001, 0.9999)


def linear_beta_schedule(timesteps):
    beta_start = 0.0001
    beta_end = 0.02
    return torch.linspace(beta_start, beta_end, timesteps)


timesteps = 50

# define beta schedule
betas = linear_beta_schedule(timesteps=timesteps)

# define alphas
alphas = 1. - betas
alphas_cumprod = torch.cumprod(alphas, axis=0)
alphas_cumprod_prev = F.pad(alphas_cumprod[:-1], (1, 0), value=1.0)
sqrt_recip_alphas = torch.sqrt(1.0 / alphas)

# calculations for diffusion q(x_t | x_{t-1}) and others
sqrt_alphas_cumprod = torch.sqrt(alphas_cumprod)
sqrt_one_minus_alphas_cumprod = torch.sqrt(1. - alphas_cumprod)

# calculations for posterior q(x_{t-1} | x_t, x_0)
posterior_variance = betas * (1. - alphas_cumprod_prev) / (1. - alphas_cumprod)
print(betas[:3], betas[-1])
print(alphas_cumprod_prev[:3], posterior_variance[0], posterior_variance[-1])
print(cosine_beta_schedule(10))


def extract(a, t, x_shape):
    batch_size = t.shape[0]
    out = a.gather(-1, t.cpu())
    return out.reshape(batch_size, *((1,) * (len(x_shape) - 1))).to(t.device)


def q_sample(x_start, t, noise=None):
    if noise is None:
        noise = torch.randn_like(x_start)

    sqrt_alphas_cumprod_t = extract(sqrt_alphas_cumprod, t, x_start.shape)
    sqrt_one_minus_alphas_cumprod_t = extract(
        sqrt_one_minus_alphas_cumprod, t, x_start.shape
    )

    return sqrt_alphas_cumprod_t * x_start + sqrt_one_minus_alphas_cumprod_t * noise


class SinusoidalPositionEmbeddings(nn.Module):
    def __init__(self, dim):
        super().__init__()
        self.dim = dim

    def forward(self, time):
        device = time.device
        half_dim = self.dim // 2
        embeddings = math.log(10000) / (half_dim - 1)
        embeddings = torch.exp(torch.arange(half_dim, device=device) * -embeddings)
        embeddings = time[:, None] * embeddings[None, :]
        embeddings = torch.cat((embeddings.sin(), embeddings.cos()), dim=-1)
        return embeddings


class Block(nn.Module):
    def __init__(self, dim, dim_out, groups=4):
        super().__init__()
        self.proj = nn.Conv2d(dim, dim_out, 3, padding=1)
        self.norm = nn.GroupNorm(groups, dim_out)
        self.act = nn.SiLU()

    def forward(self, x, scale_shift=None):
        x = self.proj(x)
        x = self.norm(x)

        if scale_shift is not None:
            scale, shift = scale_shift
            x = x * (scale + 1) + shift

        x = self.act(x)
        return x


class ResnetBlock(nn.Module):
    """https://arxiv.org/abs/1512.03385"""

    def __init__(self, dim, dim_out, *, time_emb_dim=None, groups=4):
        super().__init__()
        self.mlp = (
            nn.Sequential(nn.SiLU(), nn.Linear(time_emb_dim, dim_out * 2))
            if time_emb_dim is not None
            else None
        )

        self.block1 = Block(dim, dim_out, groups=groups)
        self.block2 = Block(dim_out, dim_out, groups=groups)
        self.res_conv = nn.Conv2d(dim, dim_out, 1) if dim != dim_out else nn.Identity()

    def forward(self, x, time_emb=None):
        scale_shift = None
        if self.mlp is not None and time_emb is not None:
            time_emb = self.mlp(time_emb)
            time_emb = time_emb[:, :, None, None]
            scale_shift = time_emb.chunk(2, dim=1)

        h = self.block1(x, scale_shift=scale_shift)
        h = self.block2(h)
        return h + self.res_conv(x)


class TinyUnet(nn.Module):
    def __init__(self, dim=8, channels=1):
        super().__init__()
        time_dim = dim * 4
        self.time_mlp = nn.Sequential(
            SinusoidalPositionEmbeddings(dim),
            nn.Linear(dim, time_dim),
            nn.GELU(),
            nn.Linear(time_dim, time_dim),
        )
        self.init_conv = nn.Conv2d(channels, dim, 1, padding=0)
        block_klass = partial(ResnetBlock, groups=4)
        self.down = block_klass(dim, dim * 2, time_emb_dim=time_dim)
        self.pool = nn.Conv2d(dim * 2, dim * 2, 4, 2, 1)
        self.mid = block_klass(dim * 2, dim * 2, time_emb_dim=time_dim)
        self.up = nn.ConvTranspose2d(dim * 2, dim * 2, 4, 2, 1)
        self.up_block = block_klass(dim * 4, dim, time_emb_dim=time_dim)
        self.final_conv = nn.Conv2d(dim, channels, 1)

    def forward(self, x, time):
        x = self.init_conv(x)
        t = self.time_mlp(time)
        h = self.down(x, t)
        m = self.mid(self.pool(h), t)
        u = self.up(m)
        u = self.up_block(torch.cat((u, h), dim=1), t)
        return self.final_conv(u)


def p_losses(denoise_model, x_start, t, noise=None, loss_type="huber"):
    if noise is None:
        noise = torch.randn_like(x_start)

    x_noisy = q_sample(x_start=x_start, t=t, noise=noise)
    predicted_noise = denoise_model(x_noisy, t)

    if loss_type == 'l1':
        loss = F.l1_loss(noise, predicted_noise)
    elif loss_type == 'l2':
        loss = F.mse_loss(noise, predicted_noise)
    elif loss_type == "huber":
        loss = F.smooth_l1_loss(noise, predicted_noise)
    else:
        raise NotImplementedError()

    return loss


@torch.no_grad()
def p_sample(model, x, t, t_index):
    betas_t = extract(betas, t, x.shape)
    sqrt_one_minus_alphas_cumprod_t = extract(
        sqrt_one_minus_alphas_cumprod, t, x.shape
    )
    sqrt_recip_alphas_t = extract(sqrt_recip_alphas, t, x.shape)

    # Equation 11 in the paper
    # Use our model (noise predictor) to predict the mean
    model_mean = sqrt_recip_alphas_t * (
        x - betas_t * model(x, t) / sqrt_one_minus_alphas_cumprod_t
    )

    if t_index == 0:
        return model_mean
    else:
        posterior_variance_t = extract(posterior_variance, t, x.shape)
        noise = torch.randn_like(x)
        # Algorithm 2 line 4:
        return model_mean + torch.sqrt(posterior_variance_t) * noise


@torch.no_grad()
def p_sample_loop(model, shape):
    device = next(model.parameters()).device

    b = shape[0]
    # start from pure noise (for each example in the batch)
    img = torch.randn(shape, device=device)
    imgs = []

    for i in reversed(range(0, timesteps)):
        img = p_sample(model, img, torch.full((b,), i, device=device, dtype=torch.long), i)
        imgs.append(img.cpu())
    return imgs


# synthetic 8x8 images in [-1, 1]: a bright square at a random corner
def make_images(n, gen):
    x = -torch.ones(n, 1, 8, 8)
    corners = torch.randint(0, 4, (n,), generator=gen)
    for i in range(n):
        r, c = divmod(int(corners[i]), 2)
        x[i, 0, 4 * r:4 * r + 4, 4 * c:4 * c + 4] = 1.0
    return x


gen = torch.Generator().manual_seed(3)
x_start = make_images(4, gen)
t = torch.tensor([0, 10, 25, 49])
print(extract(sqrt_alphas_cumprod, t, x_start.shape).flatten())
noisy = q_sample(x_start, t)
print(noisy.shape, noisy[0, 0, 0, :4], noisy[3].std().item() > 0.5)

model = TinyUnet()
print(model.down)
print(sum(p.numel() for p in model.parameters()))
ema = TinyUnet()
ema.load_state_dict(model.state_dict())
ema.requires_grad_(False)
optimizer = torch.optim.Adam(model.parameters(), lr=2e-3)

for step in range(30):
    batch = make_images(16, gen)
    t = torch.randint(0, timesteps, (batch.shape[0],), generator=gen).long()
    loss = p_losses(model, batch, t, loss_type="huber")
    optimizer.zero_grad()
    loss.backward()
    optimizer.step()
    with torch.no_grad():
        for pe, pm in zip(ema.parameters(), model.parameters()):
            pe.lerp_(pm, 0.1)
    if step % 10 == 0:
        print(f"step {step} loss {loss.item():.4f}")

print("losses:", [round(p_losses(model, make_images(8, gen), torch.full((8,), k), loss_type=lt).item(), 3) > 0
                  for k, lt in ((5, "l1"), (25, "l2"))])
try:
    p_losses(model, x_start, t[:4], loss_type="l3")
except NotImplementedError:
    print("NotImplementedError for l3")
samples = p_sample_loop(ema, shape=(2, 1, 8, 8))
print(len(samples), samples[-1].shape, torch.isfinite(samples[-1]).all().item())
