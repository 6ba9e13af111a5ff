"""A small Vision Transformer: patches by unfold, CLS token, learned positions, nn.MultiheadAttention."""
import torch
import torch.nn as nn
import torch.nn.functional as F

torch.manual_seed(42)


class PatchEmbedding(nn.Module):
    def __init__(self, img_size=16, patch_size=4, in_chans=1, embed_dim=32):
        super().__init__()
        self.patch_size = patch_size
        self.n_patches = (img_size // patch_size) ** 2
        self.proj = nn.Linear(patch_size * patch_size * in_chans, embed_dim)

    def forward(self, x):
        B, C, H, W = x.shape
        p = self.patch_size
        # (B, C, H/p, W/p, p, p) -> (B, N, C*p*p)
        x = x.unfold(2, p, p).unfold(3, p, p)
        x = x.permute(0, 2, 3, 1, 4, 5).contiguous().view(B, -1, C * p * p)
        return self.proj(x)


class Block(nn.Module):
    def __init__(self, dim, heads, mlp_ratio=2.0, drop=0.0):
        super().__init__()
        self.norm1 = nn.LayerNorm(dim)
        self.attn = nn.MultiheadAttention(dim, heads, dropout=drop, batch_first=True)
        self.norm2 = nn.LayerNorm(dim)
        self.mlp = nn.Sequential(
            nn.Linear(dim, int(dim * mlp_ratio)),
            nn.GELU(),
            nn.Dropout(drop),
            nn.Linear(int(dim * mlp_ratio), dim),
        )

    def forward(self, x):
        h = self.norm1(x)
        attn_out, attn_weights = self.attn(h, h, h, need_weights=True)
        x = x + attn_out
        x = x + self.mlp(self.norm2(x))
        return x, attn_weights


class ViT(nn.Module):
    def __init__(self, img_size=16, patch_size=4, num_classes=3, dim=32, depth=2, heads=4):
        super().__init__()
        self.patch_embed = PatchEmbedding(img_size, patch_size, 1, dim)
        self.cls_token = nn.Parameter(torch.zeros(1, 1, dim))
        self.pos_embed = nn.Parameter(torch.zeros(1, self.patch_embed.n_patches + 1, dim))
        nn.init.trunc_normal_(self.pos_embed, std=0.02)
        nn.init.trunc_normal_(self.cls_token, std=0.02)
        self.blocks = nn.ModuleList([Block(dim, heads) for _ in range(depth)])
        self.norm = nn.LayerNorm(dim)
        self.head = nn.Linear(dim, num_classes)

    def forward(self, x, return_attn=False):
        x = self.patch_embed(x)
        cls = self.cls_token.expand(x.shape[0], -1, -1)
        x = torch.cat((cls, x), dim=1) + self.pos_embed
        attns = []
        for blk in self.blocks:
            x, a = blk(x)
            attns.append(a)
        x = self.norm(x)
        logits = self.head(x[:, 0])
        return (logits, attns) if return_attn else logits


def make_data(n):
    # three classes: a horizontal bar, a vertical bar, a centred square
    xs = torch.zeros(n, 1, 16, 16)
    ys = torch.arange(n) % 3
    for i in range(n):
        k = int(ys[i])
        off = i % 8 + 2
        if k == 0:
            xs[i, 0, off, 2:14] = 1.0
        elif k == 1:
            xs[i, 0, 2:14, off] = 1.0
        else:
            xs[i, 0, 5:11, 5:11] = 1.0
    xs += 0.1 * torch.randn_like(xs)
    return xs, ys


x_train, y_train = make_data(48)
model = ViT()
print(model)
n_params = sum(p.numel() for p in model.parameters() if p.requires_grad)
print(f"trainable parameters: {n_params}")
print("cls_token", model.cls_token.shape, "pos_embed", model.pos_embed.shape)

optimizer = torch.optim.AdamW(model.parameters(), lr=3e-3, weight_decay=0.05)
for step in range(30):
    model.train()
    perm = torch.randperm(48)[:16]
    logits = model(x_train[perm])
    loss = F.cross_entropy(logits, y_train[perm], label_smoothing=0.1)
    optimizer.zero_grad()
    loss.backward()
    optimizer.step()
    if step % 10 == 9:
        print(f"step {step + 1} loss {loss.item():.4f}")

model.eval()
with torch.no_grad():
    logits, attns = model(x_train, return_attn=True)
    acc = (logits.argmax(dim=1) == y_train).float().mean()
print(f"train accuracy {acc.item():.3f}")
print("attention maps:", [tuple(a.shape) for a in attns])
print("attention rows sum to 1:", torch.allclose(attns[0].sum(-1), torch.ones(48, 17)))
cls_attn = attns[-1][:, 0, 1:].reshape(48, 4, 4)
print("cls attention grid:", cls_attn.shape)
probs = logits.softmax(dim=-1)
print("probabilities of first sample sum:", round(probs[0].sum().item(), 4))
