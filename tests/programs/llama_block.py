"""A LLaMA-style decoder (the shape of llama / nanoGPT-successor repos): RMSNorm, rotary
position embeddings (HF's rotate_half form), grouped-query attention through
F.scaled_dot_product_attention(enable_gqa=True) under torch.nn.attention.sdpa_kernel, SwiGLU
MLP, tied embeddings, a KV cache for incremental decoding, and top-k / top-p sampling."""
import math

import torch
import torch.nn as nn
import torch.nn.functional as F
from torch.nn.attention import SDPBackend, sdpa_kernel


class RMSNorm(nn.Module):
    def __init__(self, dim, eps=1e-6):
        super().__init__()
        self.eps = eps
        self.weight = nn.Parameter(torch.ones(dim))

    def forward(self, x):
        x_fp32 = x.float()
        normed = x_fp32 * torch.rsqrt(x_fp32.pow(2).mean(-1, keepdim=True) + self.eps)
        return normed.type_as(x) * self.weight


def rope_cache(seq_len, head_dim, base=10000.0):
    inv_freq = 1.0 / (base ** (torch.arange(0, head_dim, 2, dtype=torch.int64).float() / head_dim))
    t = torch.arange(seq_len, dtype=torch.float32)
    freqs = torch.outer(t, inv_freq)
    emb = torch.cat((freqs, freqs), dim=-1)
    return emb.cos(), emb.sin()


def rotate_half(x):
    x1, x2 = x[..., : x.shape[-1] // 2], x[..., x.shape[-1] // 2:]
    return torch.cat((-x2, x1), dim=-1)


def apply_rope(q, k, cos, sin):
    cos, sin = cos[None, None], sin[None, None]
    return q * cos + rotate_half(q) * sin, k * cos + rotate_half(k) * sin


class Attention(nn.Module):
    def __init__(self, dim, n_heads, n_kv_heads):
        super().__init__()
        self.n_heads, self.n_kv_heads, self.head_dim = n_heads, n_kv_heads, dim // n_heads
        self.wq = nn.Linear(dim, n_heads * self.head_dim, bias=False)
        self.wk = nn.Linear(dim, n_kv_heads * self.head_dim, bias=False)
        self.wv = nn.Linear(dim, n_kv_heads * self.head_dim, bias=False)
        self.wo = nn.Linear(n_heads * self.head_dim, dim, bias=False)

    def forward(self, x, cos, sin, cache=None):
        B, T, _ = x.shape
        q = self.wq(x).view(B, T, self.n_heads, self.head_dim).transpose(1, 2)
        k = self.wk(x).view(B, T, self.n_kv_heads, self.head_dim).transpose(1, 2)
        v = self.wv(x).view(B, T, self.n_kv_heads, self.head_dim).transpose(1, 2)
        q, k = apply_rope(q, k, cos, sin)
        if cache is not None:
            if "k" in cache:
                k = torch.cat([cache["k"], k], dim=2)
                v = torch.cat([cache["v"], v], dim=2)
            cache["k"], cache["v"] = k, v
        causal = cache is None or k.shape[2] == T
        out = F.scaled_dot_product_attention(q, k, v, is_causal=causal and T > 1, enable_gqa=True)
        return self.wo(out.transpose(1, 2).reshape(B, T, -1))


class FeedForward(nn.Module):
    def __init__(self, dim, hidden):
        super().__init__()
        self.w1 = nn.Linear(dim, hidden, bias=False)
        self.w2 = nn.Linear(hidden, dim, bias=False)
        self.w3 = nn.Linear(dim, hidden, bias=False)

    def forward(self, x):
        return self.w2(F.silu(self.w1(x)) * self.w3(x))


class Block(nn.Module):
    def __init__(self, dim, n_heads, n_kv_heads):
        super().__init__()
        self.attention_norm = RMSNorm(dim)
        self.attention = Attention(dim, n_heads, n_kv_heads)
        self.ffn_norm = nn.RMSNorm(dim, eps=1e-6)
        self.feed_forward = FeedForward(dim, 4 * dim * 2 // 3)

    def forward(self, x, cos, sin, cache=None):
        h = x + self.attention(self.attention_norm(x), cos, sin, cache)
        return h + self.feed_forward(self.ffn_norm(h))


class Llama(nn.Module):
    def __init__(self, vocab=32, dim=32, n_layers=2, n_heads=4, n_kv_heads=2, max_len=64):
        super().__init__()
        self.tok_embeddings = nn.Embedding(vocab, dim)
        self.layers = nn.ModuleList(Block(dim, n_heads, n_kv_heads) for _ in range(n_layers))
        self.norm = RMSNorm(dim)
        self.output = nn.Linear(dim, vocab, bias=False)
        self.output.weight = self.tok_embeddings.weight
        cos, sin = rope_cache(max_len, dim // n_heads)
        self.register_buffer("cos", cos, persistent=False)
        self.register_buffer("sin", sin, persistent=False)
        self.apply(self._init)
        for name, p in self.named_parameters():
            if name.endswith("wo.weight") or name.endswith("w2.weight"):
                nn.init.normal_(p, mean=0.0, std=0.02 / math.sqrt(2 * n_layers))

    def _init(self, module):
        if isinstance(module, (nn.Linear, nn.Embedding)):
            nn.init.normal_(module.weight, mean=0.0, std=0.02)

    def forward(self, idx, start=0, caches=None):
        T = idx.shape[1]
        cos, sin = self.cos[start:start + T], self.sin[start:start + T]
        h = self.tok_embeddings(idx)
        for i, layer in enumerate(self.layers):
            h = layer(h, cos, sin, None if caches is None else caches[i])
        return self.output(self.norm(h))


torch.manual_seed(0)
model = Llama()
print(model.layers[0])
n_params = sum(p.numel() for p in model.parameters())
print(f"parameters: {n_params} (tied: {model.output.weight is model.tok_embeddings.weight})")
print("buffers in state_dict:", [k for k in model.state_dict() if "cos" in k or "sin" in k])

# a copy task: the second half of each sequence repeats the first
data = torch.randint(1, 32, (64, 8))
seqs = torch.cat([data, data], dim=1)
opt = torch.optim.AdamW(model.parameters(), lr=1e-2, betas=(0.9, 0.95), weight_decay=0.1)
for step in range(100):
    batch = seqs[torch.randint(0, 64, (16,))]
    logits = model(batch[:, :-1])
    loss = F.cross_entropy(logits.reshape(-1, 32), batch[:, 1:].reshape(-1))
    opt.zero_grad(set_to_none=True)
    loss.backward()
    torch.nn.utils.clip_grad_norm_(model.parameters(), 1.0)
    opt.step()
    if step % 25 == 24:
        print(f"step {step + 1} loss {loss.item():.4f}")

# sdpa with GQA equals repeating the kv heads by hand; the math backend on its own
q, k, v = torch.randn(2, 4, 5, 8), torch.randn(2, 2, 5, 8), torch.randn(2, 2, 5, 8)
with sdpa_kernel(SDPBackend.MATH):
    a = F.scaled_dot_product_attention(q, k, v, is_causal=True, enable_gqa=True)
b = F.scaled_dot_product_attention(q, k.repeat_interleave(2, 1), v.repeat_interleave(2, 1), is_causal=True)
print("gqa equals repeated kv:", torch.allclose(a, b, atol=1e-6))
with sdpa_kernel([SDPBackend.MATH, SDPBackend.FLASH_ATTENTION]):
    mask = torch.ones(5, 5, dtype=torch.bool).tril()
    c = F.scaled_dot_product_attention(q, k.repeat_interleave(2, 1), v.repeat_interleave(2, 1), attn_mask=mask)
print("bool mask equals is_causal:", torch.allclose(b, c, atol=1e-6))
print(SDPBackend.MATH, SDPBackend.FLASH_ATTENTION.name)

# incremental decoding with a KV cache gives the same logits as the full forward
model.eval()
prompt = seqs[:2, :9]
with torch.inference_mode():
    full = model(prompt)
    caches = [{} for _ in model.layers]
    step_logits = [model(prompt[:, :5], 0, caches)]
    for t in range(5, 9):
        step_logits.append(model(prompt[:, t:t + 1], t, caches))
    inc = torch.cat(step_logits, dim=1)
print("kv cache matches:", torch.allclose(full, inc, atol=1e-5), tuple(caches[0]["k"].shape))
print("inference tensors:", full.is_inference(), full.requires_grad)


@torch.no_grad()
def generate(model, idx, steps, temperature=1.0, top_k=None, top_p=None):
    for _ in range(steps):
        logits = model(idx)[:, -1, :] / temperature
        if top_k is not None:
            v, _ = torch.topk(logits, min(top_k, logits.size(-1)))
            logits[logits < v[:, [-1]]] = -float("Inf")
        if top_p is not None:
            sorted_logits, sorted_idx = torch.sort(logits, descending=True)
            cum = torch.cumsum(F.softmax(sorted_logits, dim=-1), dim=-1)
            remove = cum > top_p
            remove[..., 1:] = remove[..., :-1].clone()
            remove[..., 0] = False
            logits[remove.scatter(1, sorted_idx, remove)] = -float("Inf")
        probs = F.softmax(logits, dim=-1)
        idx = torch.cat((idx, torch.multinomial(probs, num_samples=1)), dim=1)
    return idx


torch.manual_seed(1)
out = generate(model, seqs[:2, :9], 7, top_k=5)
print("top-k continuation:", out[:, 9:].tolist(), "target:", seqs[:2, 9:].tolist())
out = generate(model, seqs[:2, :9], 7, temperature=0.8, top_p=0.9)
print("top-p continuation:", out[:, 9:].tolist())
