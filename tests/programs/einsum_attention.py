"""Attention variants written with einsum, as research code writes them: multi-head, grouped-query
(repeat_interleave of K/V heads), ALiBi biases, relative position bias gathered from a table,
causal linear attention with cumsum, a bilinear form, and checks against
F.scaled_dot_product_attention and nn.MultiheadAttention."""
import math

import torch
import torch.nn as nn
import torch.nn.functional as F

torch.manual_seed(11)
B, T, D, H = 2, 6, 16, 4
hd = D // H
x = torch.rand(B, T, D) - 0.5


def heads(t, n):
    return t.view(B, T, n, -1).transpose(1, 2)


wq, wk, wv, wo = (torch.rand(D, D) / D for _ in range(4))
q = heads(torch.einsum("btd,de->bte", x, wq), H)
k = heads(torch.einsum("btd,de->bte", x, wk), H)
v = heads(torch.einsum("btd,de->bte", x, wv), H)
scores = torch.einsum("bhqd,bhkd->bhqk", q, k) / math.sqrt(hd)
causal = torch.triu(torch.ones(T, T, dtype=torch.bool), diagonal=1)
attn = scores.masked_fill(causal, float("-inf")).softmax(-1)
out = torch.einsum("bhqk,bhkd->bhqd", attn, v)
ref = F.scaled_dot_product_attention(q, k, v, is_causal=True)
print("mha", out.shape, "matches sdpa:", torch.allclose(out, ref, atol=1e-6))
print("attention row sums", attn.sum(-1)[0, 0])
print("first query attends only to itself:", bool((attn[..., 0, 1:] == 0).all()))

# grouped-query attention: 2 K/V heads shared by 4 query heads
kv_heads = 2
wk2, wv2 = torch.rand(D, kv_heads * hd) / D, torch.rand(D, kv_heads * hd) / D
k2 = heads(x @ wk2, kv_heads).repeat_interleave(H // kv_heads, dim=1)
v2 = heads(x @ wv2, kv_heads).repeat_interleave(H // kv_heads, dim=1)
gqa = F.scaled_dot_product_attention(q, k2, v2, is_causal=True)
print("gqa", gqa.shape, torch.allclose(gqa[:, 0], gqa[:, 0]), f"{gqa.abs().mean():.6f}")


def alibi_slopes(n):
    start = 2 ** (-8 / n)
    return torch.tensor([start ** (i + 1) for i in range(n)])


slopes = alibi_slopes(H)
pos = torch.arange(T)
alibi = slopes[:, None, None] * (pos[None, None, :] - pos[None, :, None]).float()
print("alibi slopes", slopes)
print("alibi bias head 0\n", alibi[0])
bias = alibi.masked_fill(causal, float("-inf"))
alibi_out = F.scaled_dot_product_attention(q, k, v, attn_mask=bias)
manual = torch.einsum("bhqk,bhkd->bhqd", (scores + bias).softmax(-1), v)
print("alibi", f"{(alibi_out - manual).abs().max():.2e}")

# T5-style relative position buckets (clipped distances) looked up in a learned table
max_dist = 3
rel = (pos[None, :] - pos[:, None]).clamp(-max_dist, max_dist) + max_dist
table = nn.Embedding(2 * max_dist + 1, H)
nn.init.constant_(table.weight, 0.0)
with torch.no_grad():
    table.weight.copy_(torch.linspace(-1, 1, (2 * max_dist + 1) * H).view(-1, H))
rel_bias = table(rel).permute(2, 0, 1)
print("relative buckets\n", rel)
print("relative bias", rel_bias.shape, rel_bias[1, 0])

# causal linear attention (elu + 1 feature map) with running sums
phi_q, phi_k = F.elu(q) + 1, F.elu(k) + 1
kv = torch.einsum("bhtd,bhte->bhtde", phi_k, v).cumsum(dim=2)
z = phi_k.cumsum(dim=2)
num = torch.einsum("bhtd,bhtde->bhte", phi_q, kv)
den = torch.einsum("bhtd,bhtd->bht", phi_q, z).unsqueeze(-1)
linear_out = num / den
quad = torch.einsum("bhqd,bhkd->bhqk", phi_q, phi_k).masked_fill(causal, 0.0)
quad_out = torch.einsum("bhqk,bhkd->bhqd", quad / quad.sum(-1, keepdim=True), v)
print("linear attention", linear_out.shape, f"matches quadratic form: {torch.allclose(linear_out, quad_out, atol=1e-5)}")

# misc einsum forms
A = torch.arange(9.0).view(3, 3)
print("trace", torch.einsum("ii", A), "diag", torch.einsum("ii->i", A), "transpose", torch.einsum("ij->ji", A)[0])
print("outer", torch.einsum("i,j->ij", torch.arange(3.0), torch.arange(2.0)))
print("batch trace", torch.einsum("bii->b", torch.stack([A, 2 * A])))
print("ellipsis", torch.einsum("...ij,...jk->...ik", torch.ones(2, 2, 3), torch.ones(3, 4)).shape)
print("bilinear", torch.einsum("bi,ij,bj->b", torch.ones(2, 3), A, torch.ones(2, 3)))
print("sublist", torch.einsum(A, [0, 1], torch.ones(3), [1], [0]))
print("spaces", torch.einsum("b i , i j -> b j", torch.ones(1, 3), A))

# against nn.MultiheadAttention with the same projections
mha = nn.MultiheadAttention(D, H, batch_first=True, bias=False)
with torch.no_grad():
    mha.in_proj_weight.copy_(torch.cat([wq.t(), wk.t(), wv.t()]))
    mha.out_proj.weight.copy_(wo.t())
mha_out, weights = mha(x, x, x, attn_mask=causal, need_weights=True, average_attn_weights=False)
mine = out.transpose(1, 2).reshape(B, T, D) @ wo
print("nn.MultiheadAttention", torch.allclose(mha_out, mine, atol=1e-6), torch.allclose(weights, attn, atol=1e-6))
xq = x.clone().requires_grad_()
loss = F.scaled_dot_product_attention(heads(xq @ wq, H), heads(xq @ wk, H), heads(xq @ wv, H), is_causal=True).pow(2).sum()
loss.backward()
print("grad", xq.grad.shape, f"{xq.grad.norm():.6f}")
