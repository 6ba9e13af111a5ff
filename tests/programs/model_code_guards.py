"""Model code as timm / Hugging Face write it, full of guards for scripting, tracing and
compilation that do nothing in eager mode: torch.jit.Final class annotations,
@torch.jit.ignore / @torch.jit.unused methods, `if torch.jit.is_scripting()` and
`torch.jit.is_tracing()` branches, torch.jit.annotate, torch.compiler.is_compiling() /
is_dynamo_compiling(), @torch.compiler.disable on a helper, torch.compiler.list_backends and
reset, and the model then compiled with backend="eager" and trained for a few steps."""
from typing import Optional

import torch
import torch.nn as nn
import torch.nn.functional as F

torch.manual_seed(0)


class Attention(nn.Module):
    fused_attn: torch.jit.Final[bool]

    def __init__(self, dim, num_heads=4, qkv_bias=False):
        super().__init__()
        self.num_heads = num_heads
        self.head_dim = dim // num_heads
        self.scale = self.head_dim ** -0.5
        self.fused_attn = True
        self.qkv = nn.Linear(dim, dim * 3, bias=qkv_bias)
        self.proj = nn.Linear(dim, dim)

    def forward(self, x: torch.Tensor, attn_mask: Optional[torch.Tensor] = None) -> torch.Tensor:
        B, N, C = x.shape
        qkv = self.qkv(x).reshape(B, N, 3, self.num_heads, self.head_dim).permute(2, 0, 3, 1, 4)
        q, k, v = qkv.unbind(0)
        if self.fused_attn and not torch.jit.is_scripting():
            x = F.scaled_dot_product_attention(q, k, v, attn_mask=attn_mask)
        else:
            attn = (q * self.scale) @ k.transpose(-2, -1)
            attn = attn.softmax(dim=-1)
            x = attn @ v
        x = x.transpose(1, 2).reshape(B, N, C)
        return self.proj(x)


@torch.compiler.disable
def log_stats(t: torch.Tensor) -> float:
    return t.float().std().item()


class Block(nn.Module):
    def __init__(self, dim):
        super().__init__()
        self.norm1 = nn.LayerNorm(dim)
        self.attn = Attention(dim)
        self.norm2 = nn.LayerNorm(dim)
        self.mlp = nn.Sequential(nn.Linear(dim, dim * 2), nn.GELU(), nn.Linear(dim * 2, dim))
        self.grad_checkpointing = False

    def forward(self, x):
        x = x + self.attn(self.norm1(x))
        if self.grad_checkpointing and not torch.jit.is_scripting():
            x = x + torch.utils.checkpoint.checkpoint(self.mlp, self.norm2(x), use_reentrant=False)
        else:
            x = x + self.mlp(self.norm2(x))
        return x


class TinyViT(nn.Module):
    def __init__(self, dim=32, depth=2, num_classes=3):
        super().__init__()
        self.embed = nn.Linear(12, dim)
        self.cls_token = nn.Parameter(torch.zeros(1, 1, dim))
        self.blocks = nn.Sequential(*[Block(dim) for _ in range(depth)])
        self.head = nn.Linear(dim, num_classes)

    @torch.jit.ignore
    def no_weight_decay(self):
        return {'cls_token'}

    @torch.jit.ignore
    def set_grad_checkpointing(self, enable=True):
        for b in self.blocks:
            b.grad_checkpointing = enable

    @torch.jit.unused
    def debug_features(self, x):
        return self.forward_features(x).mean()

    def forward_features(self, x):
        x = self.embed(x)
        x = torch.cat((self.cls_token.expand(x.shape[0], -1, -1), x), dim=1)
        if torch.jit.is_tracing() or torch.compiler.is_compiling():
            return self.blocks(x)
        features: list[torch.Tensor] = torch.jit.annotate(list[torch.Tensor], [])
        for blk in self.blocks:
            x = blk(x)
            features.append(x)
        self.last_num_features = len(features)
        return x

    def forward(self, x):
        x = self.forward_features(x)
        return self.head(x[:, 0])


print(torch.jit.is_scripting(), torch.jit.is_tracing(), torch.compiler.is_compiling(), torch.compiler.is_dynamo_compiling())
print(torch.compiler.list_backends())
print("eager" in torch.compiler.list_backends(exclude_tags=()))
model = TinyViT()
print(model.no_weight_decay(), model.last_num_features if hasattr(model, "last_num_features") else None)
x = torch.randn(8, 6, 12)
y = torch.randint(0, 3, (8,))
print(model(x).shape, model.last_num_features, round(log_stats(x), 4))
model.set_grad_checkpointing(True)
decay, no_decay = [], []
for name, p in model.named_parameters():
    (no_decay if name in model.no_weight_decay() or p.ndim <= 1 else decay).append(p)
opt = torch.optim.AdamW([{"params": decay, "weight_decay": 0.05}, {"params": no_decay, "weight_decay": 0.0}], lr=1e-3)
print(len(decay), len(no_decay))
torch.compiler.reset()
compiled = torch.compile(model, backend="eager")
for step in range(5):
    loss = F.cross_entropy(compiled(x), y)
    opt.zero_grad(set_to_none=True)
    loss.backward()
    opt.step()
    print(step, f"{loss.item():.4f}")
print(model.blocks[0].grad_checkpointing, model.debug_features(x).shape)
