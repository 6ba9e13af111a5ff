"""Building blocks of recent vision models, written the way their reference repositories write
them: MAE's random masking (argsort of noise, gather, ids_restore), Swin's shifted-window
attention (window_partition / window_reverse, torch.roll, the relative position index from
meshgrid, the shifted-window mask filled with -100), a ConvNeXt block (depthwise 7x7 conv,
channels-first LayerNorm, layer scale, DropPath), MLP-Mixer, and the Barlow Twins / SimSiam
self-supervised losses (the off_diagonal view trick, stop-gradient), each trained a few steps."""
import torch
import torch.nn as nn
import torch.nn.functional as F

torch.manual_seed(0)


# ---- MAE random masking (facebookresearch/mae models_mae.py)
def random_masking(x, mask_ratio):
    N, L, D = x.shape
    len_keep = int(L * (1 - mask_ratio))
    noise = torch.rand(N, L, device=x.device)
    ids_shuffle = torch.argsort(noise, dim=1)
    ids_restore = torch.argsort(ids_shuffle, dim=1)
    ids_keep = ids_shuffle[:, :len_keep]
    x_masked = torch.gather(x, dim=1, index=ids_keep.unsqueeze(-1).repeat(1, 1, D))
    mask = torch.ones([N, L], device=x.device)
    mask[:, :len_keep] = 0
    mask = torch.gather(mask, dim=1, index=ids_restore)
    return x_masked, mask, ids_restore


def patchify(imgs, p):
    h = w = imgs.shape[2] // p
    x = imgs.reshape(shape=(imgs.shape[0], 3, h, p, w, p))
    x = torch.einsum("nchpwq->nhwpqc", x)
    x = x.reshape(shape=(imgs.shape[0], h * w, p ** 2 * 3))
    return x


def unpatchify(x, p):
    h = w = int(x.shape[1] ** .5)
    x = x.reshape(shape=(x.shape[0], h, w, p, p, 3))
    x = torch.einsum("nhwpqc->nchpwq", x)
    return x.reshape(shape=(x.shape[0], 3, h * p, h * p))


imgs = torch.randn(2, 3, 8, 8)
tokens = patchify(imgs, 2)
print(tokens.shape, torch.equal(unpatchify(tokens, 2), imgs))
x_masked, mask, ids_restore = random_masking(tokens, 0.75)
print(x_masked.shape, mask.sum(1), mask[0].long().tolist())
print(ids_restore[0].tolist())
mask_token = torch.zeros(1, 1, tokens.shape[-1])
x_ = torch.cat([x_masked, mask_token.repeat(2, ids_restore.shape[1] - x_masked.shape[1], 1)],
               dim=1)
x_ = torch.gather(x_, dim=1, index=ids_restore.unsqueeze(-1).repeat(1, 1, tokens.shape[2]))
print("visible tokens restored in place:", torch.equal(x_[mask == 0], tokens[mask == 0]))
target = tokens
mean = target.mean(dim=-1, keepdim=True)
var = target.var(dim=-1, keepdim=True)
target = (target - mean) / (var + 1.e-6) ** .5
loss = ((x_ - target) ** 2).mean(dim=-1)
print("mae loss on masked patches:", ((loss * mask).sum() / mask.sum()).item() > 0)


# ---- Swin Transformer window attention (microsoft/Swin-Transformer)
def window_partition(x, window_size):
    B, H, W, C = x.shape
    x = x.view(B, H // window_size, window_size, W // window_size, window_size, C)
    windows = x.permute(0, 1, 3, 2, 4, 5).contiguous().view(-1, window_size, window_size, C)
    return windows


def window_reverse(windows, window_size, H, W):
    B = int(windows.shape[0] / (H * W / window_size / window_size))
    x = windows.view(B, H // window_size, W // window_size, window_size, window_size, -1)
    x = x.permute(0, 1, 3, 2, 4, 5).contiguous().view(B, H, W, -1)
    return x


class WindowAttention(nn.Module):
    def __init__(self, dim, window_size, num_heads):
        super().__init__()
        self.dim = dim
        self.window_size = window_size
        self.num_heads = num_heads
        head_dim = dim // num_heads
        self.scale = head_dim ** -0.5
        self.relative_position_bias_table = nn.Parameter(
            torch.zeros((2 * window_size[0] - 1) * (2 * window_size[1] - 1), num_heads))
        coords_h = torch.arange(self.window_size[0])
        coords_w = torch.arange(self.window_size[1])
        coords = torch.stack(torch.meshgrid([coords_h, coords_w], indexing="ij"))
        coords_flatten = torch.flatten(coords, 1)
        relative_coords = coords_flatten[:, :, None] - coords_flatten[:, None, :]
        relative_coords = relative_coords.permute(1, 2, 0).contiguous()
        relative_coords[:, :, 0] += self.window_size[0] - 1
        relative_coords[:, :, 1] += self.window_size[1] - 1
        relative_coords[:, :, 0] *= 2 * self.window_size[1] - 1
        relative_position_index = relative_coords.sum(-1)
        self.register_buffer("relative_position_index", relative_position_index)
        self.qkv = nn.Linear(dim, dim * 3, bias=True)
        self.proj = nn.Linear(dim, dim)
        nn.init.trunc_normal_(self.relative_position_bias_table, std=.02)
        self.softmax = nn.Softmax(dim=-1)

    def forward(self, x, mask=None):
        B_, N, C = x.shape
        qkv = self.qkv(x).reshape(B_, N, 3, self.num_heads, C // self.num_heads).permute(
            2, 0, 3, 1, 4)
        q, k, v = qkv[0], qkv[1], qkv[2]
        q = q * self.scale
        attn = (q @ k.transpose(-2, -1))
        relative_position_bias = self.relative_position_bias_table[
            self.relative_position_index.view(-1)].view(
            self.window_size[0] * self.window_size[1], self.window_size[0] * self.window_size[1],
            -1)
        relative_position_bias = relative_position_bias.permute(2, 0, 1).contiguous()
        attn = attn + relative_position_bias.unsqueeze(0)
        if mask is not None:
            nW = mask.shape[0]
            attn = attn.view(B_ // nW, nW, self.num_heads, N, N) + mask.unsqueeze(1).unsqueeze(0)
            attn = attn.view(-1, self.num_heads, N, N)
        attn = self.softmax(attn)
        x = (attn @ v).transpose(1, 2).reshape(B_, N, C)
        return self.proj(x)

    def extra_repr(self) -> str:
        return f"dim={self.dim}, window_size={self.window_size}, num_heads={self.num_heads}"


H = W = 4
ws, shift = 2, 1
attn_layer = WindowAttention(8, (ws, ws), 2)
print(attn_layer)
print(attn_layer.relative_position_index)
img_mask = torch.zeros((1, H, W, 1))
h_slices = (slice(0, -ws), slice(-ws, -shift), slice(-shift, None))
w_slices = (slice(0, -ws), slice(-ws, -shift), slice(-shift, None))
cnt = 0
for h in h_slices:
    for w in w_slices:
        img_mask[:, h, w, :] = cnt
        cnt += 1
mask_windows = window_partition(img_mask, ws)
mask_windows = mask_windows.view(-1, ws * ws)
attn_mask = mask_windows.unsqueeze(1) - mask_windows.unsqueeze(2)
attn_mask = attn_mask.masked_fill(attn_mask != 0, -100.0).masked_fill(attn_mask == 0, 0.0)
print(attn_mask.shape, attn_mask[-1])
x = torch.randn(2, H * W, 8)
xs = x.view(2, H, W, 8)
shifted_x = torch.roll(xs, shifts=(-shift, -shift), dims=(1, 2))
x_windows = window_partition(shifted_x, ws).view(-1, ws * ws, 8)
attn_windows = attn_layer(x_windows, mask=attn_mask)
shifted_back = window_reverse(attn_windows.view(-1, ws, ws, 8), ws, H, W)
out = torch.roll(shifted_back, shifts=(shift, shift), dims=(1, 2)).view(2, H * W, 8)
print(out.shape, torch.equal(window_reverse(window_partition(xs, ws), ws, H, W), xs))
opt = torch.optim.AdamW(attn_layer.parameters(), lr=1e-2)
for step in range(3):
    out = attn_layer(x_windows, mask=attn_mask)
    loss = out.pow(2).mean()
    opt.zero_grad()
    loss.backward()
    opt.step()
    print(f"swin step {step} loss {loss.item():.5f}",
          attn_layer.relative_position_bias_table.grad.abs().sum().item() > 0)


# ---- ConvNeXt block (facebookresearch/ConvNeXt)
def drop_path(x, drop_prob: float = 0., training: bool = False):
    if drop_prob == 0. or not training:
        return x
    keep_prob = 1 - drop_prob
    shape = (x.shape[0],) + (1,) * (x.ndim - 1)
    random_tensor = keep_prob + torch.rand(shape, dtype=x.dtype, device=x.device)
    random_tensor.floor_()
    return x.div(keep_prob) * random_tensor


class DropPath(nn.Module):
    def __init__(self, drop_prob=None):
        super(DropPath, self).__init__()
        self.drop_prob = drop_prob

    def forward(self, x):
        return drop_path(x, self.drop_prob, self.training)

    def extra_repr(self):
        return f"drop_prob={self.drop_prob}"


class LayerNorm(nn.Module):
    def __init__(self, normalized_shape, eps=1e-6, data_format="channels_last"):
        super().__init__()
        self.weight = nn.Parameter(torch.ones(normalized_shape))
        self.bias = nn.Parameter(torch.zeros(normalized_shape))
        self.eps = eps
        self.data_format = data_format
        if self.data_format not in ["channels_last", "channels_first"]:
            raise NotImplementedError
        self.normalized_shape = (normalized_shape, )

    def forward(self, x):
        if self.data_format == "channels_last":
            return F.layer_norm(x, self.normalized_shape, self.weight, self.bias, self.eps)
        elif self.data_format == "channels_first":
            u = x.mean(1, keepdim=True)
            s = (x - u).pow(2).mean(1, keepdim=True)
            x = (x - u) / torch.sqrt(s + self.eps)
            x = self.weight[:, None, None] * x + self.bias[:, None, None]
            return x


class Block(nn.Module):
    def __init__(self, dim, drop_path=0., layer_scale_init_value=1e-6):
        super().__init__()
        self.dwconv = nn.Conv2d(dim, dim, kernel_size=7, padding=3, groups=dim)
        self.norm = LayerNorm(dim, eps=1e-6)
        self.pwconv1 = nn.Linear(dim, 4 * dim)
        self.act = nn.GELU()
        self.pwconv2 = nn.Linear(4 * dim, dim)
        self.gamma = nn.Parameter(layer_scale_init_value * torch.ones((dim)),
                                  requires_grad=True) if layer_scale_init_value > 0 else None
        self.drop_path = DropPath(drop_path) if drop_path > 0. else nn.Identity()

    def forward(self, x):
        input = x
        x = self.dwconv(x)
        x = x.permute(0, 2, 3, 1)
        x = self.norm(x)
        x = self.pwconv1(x)
        x = self.act(x)
        x = self.pwconv2(x)
        if self.gamma is not None:
            x = self.gamma * x
        x = x.permute(0, 3, 1, 2)
        x = input + self.drop_path(x)
        return x


stem = nn.Sequential(nn.Conv2d(3, 8, kernel_size=2, stride=2),
                     LayerNorm(8, eps=1e-6, data_format="channels_first"))
block = Block(8, drop_path=0.1, layer_scale_init_value=0.5)
print(stem)
print(block)
ln_cf = LayerNorm(8, data_format="channels_first")
probe = torch.randn(2, 8, 3, 3)
print("channels_first LN == permuted F.layer_norm:",
      torch.allclose(ln_cf(probe), F.layer_norm(probe.permute(0, 2, 3, 1), (8,), eps=1e-6)
                     .permute(0, 3, 1, 2), atol=1e-6))
block.eval()
feat = block(stem(imgs))
print(feat.shape, block.drop_path(torch.ones(2, 3)).sum().item())
block.train()
rand_state = torch.get_rng_state()
dropped = drop_path(torch.ones(8, 2), 0.5, True)
print(dropped[:, 0].tolist())
torch.set_rng_state(rand_state)
print(torch.equal(drop_path(torch.ones(8, 2), 0.5, True), dropped))


# ---- MLP-Mixer
class MixerBlock(nn.Module):
    def __init__(self, num_patches, dim, token_dim, channel_dim):
        super().__init__()
        self.norm1 = nn.LayerNorm(dim)
        self.token_mix = nn.Sequential(nn.Linear(num_patches, token_dim), nn.GELU(),
                                       nn.Linear(token_dim, num_patches))
        self.norm2 = nn.LayerNorm(dim)
        self.channel_mix = nn.Sequential(nn.Linear(dim, channel_dim), nn.GELU(),
                                         nn.Linear(channel_dim, dim))

    def forward(self, x):
        x = x + self.token_mix(self.norm1(x).transpose(1, 2)).transpose(1, 2)
        return x + self.channel_mix(self.norm2(x))


mixer = nn.Sequential(MixerBlock(16, 12, 8, 24), MixerBlock(16, 12, 8, 24))
print(sum(p.numel() for p in mixer.parameters()))
out = mixer(tokens)
print(out.shape, out.mean().item() != 0)


# ---- Barlow Twins and SimSiam losses
def off_diagonal(x):
    n, m = x.shape
    assert n == m
    return x.flatten()[:-1].view(n - 1, n + 1)[:, 1:].flatten()


c = torch.arange(16.0).view(4, 4)
print(off_diagonal(c), torch.diagonal(c))
projector = nn.Sequential(nn.Linear(12, 16), nn.BatchNorm1d(16), nn.ReLU(), nn.Linear(16, 8))
bn = nn.BatchNorm1d(8, affine=False)
opt = torch.optim.SGD(projector.parameters(), lr=0.05, momentum=0.9)
base = torch.randn(32, 12)
for step in range(5):
    y1 = base + 0.1 * torch.randn(32, 12)
    y2 = base + 0.1 * torch.randn(32, 12)
    z1, z2 = projector(y1), projector(y2)
    cc = bn(z1).T @ bn(z2)
    cc.div_(32)
    on_diag = torch.diagonal(cc).add_(-1).pow_(2).sum()
    off_diag = off_diagonal(cc).pow_(2).sum()
    loss = on_diag + 0.005 * off_diag
    opt.zero_grad()
    loss.backward()
    opt.step()
    print(f"barlow step {step} on_diag {on_diag.item():.4f} off_diag {off_diag.item():.4f}")

predictor = nn.Sequential(nn.Linear(8, 4), nn.ReLU(), nn.Linear(4, 8))
criterion = nn.CosineSimilarity(dim=1)
params = list(projector.parameters()) + list(predictor.parameters())
opt = torch.optim.SGD(params, lr=0.05)
for step in range(3):
    z1 = projector(base + 0.1 * torch.randn(32, 12))
    z2 = projector(base + 0.1 * torch.randn(32, 12))
    p1, p2 = predictor(z1), predictor(z2)
    loss = -(criterion(p1, z2.detach()).mean() + criterion(p2, z1.detach()).mean()) * 0.5
    opt.zero_grad()
    loss.backward()
    opt.step()
    print(f"simsiam step {step} loss {loss.item():.4f} z std {F.normalize(z1, dim=1).std(0).mean().item():.4f}")
print(criterion)
