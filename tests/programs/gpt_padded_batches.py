"""A small GPT trained and sampled on padded batches, as hand-rolled HF-style code does it: right
padding for training with an ignore_index of -100 in the labels, a key-padding mask passed to
F.scaled_dot_product_attention together with is_causal=True (what the CPU flash kernel accepts),
left padding and position ids from the attention mask's cumsum for batched greedy generation,
and a KV cache checked against the uncached forward."""
import math

import torch
import torch.nn as nn
import torch.nn.functional as F

torch.manual_seed(0)
PAD, BOS, EOS, VOCAB = 0, 1, 2, 16


class Block(nn.Module):
    def __init__(self, d, n_head):
        super().__init__()
        self.n_head = n_head
        self.ln1 = nn.LayerNorm(d)
        self.qkv = nn.Linear(d, 3 * d)
        self.proj = nn.Linear(d, d)
        self.ln2 = nn.LayerNorm(d)
        self.mlp = nn.Sequential(nn.Linear(d, 4 * d), nn.GELU(approximate="tanh"), nn.Linear(4 * d, d))

    def forward(self, x, key_mask, past=None):
        B, T, C = x.shape
        q, k, v = self.qkv(self.ln1(x)).split(C, dim=2)
        q, k, v = (t.view(B, T, self.n_head, C // self.n_head).transpose(1, 2) for t in (q, k, v))
        if past is not None:
            k = torch.cat([past[0], k], dim=2)
            v = torch.cat([past[1], v], dim=2)
        present = (k, v)
        mask = key_mask[:, None, None, :].expand(B, 1, T, k.size(2))  # True = attend
        if past is None:
            y = F.scaled_dot_product_attention(q, k, v, attn_mask=mask, is_causal=True)
        else:  # one new query per step attends to everything cached
            y = F.scaled_dot_product_attention(q, k, v, attn_mask=mask)
        y = y.transpose(1, 2).contiguous().view(B, T, C)
        x = x + self.proj(y)
        return x + self.mlp(self.ln2(x)), present


class GPT(nn.Module):
    def __init__(self, d=32, n_head=4, n_layer=2, block_size=16):
        super().__init__()
        self.wte = nn.Embedding(VOCAB, d)
        self.wpe = nn.Embedding(block_size, d)
        self.blocks = nn.ModuleList(Block(d, n_head) for _ in range(n_layer))
        self.ln_f = nn.LayerNorm(d)
        self.lm_head = nn.Linear(d, VOCAB, bias=False)
        self.lm_head.weight = self.wte.weight
        self.apply(self._init)
        for name, p in self.named_parameters():
            if name.endswith("proj.weight"):
                nn.init.normal_(p, mean=0.0, std=0.02 / math.sqrt(2 * n_layer))

    @staticmethod
    def _init(m):
        if isinstance(m, nn.Linear):
            nn.init.normal_(m.weight, mean=0.0, std=0.02)
            if m.bias is not None:
                nn.init.zeros_(m.bias)
        elif isinstance(m, nn.Embedding):
            nn.init.normal_(m.weight, mean=0.0, std=0.02)

    def forward(self, idx, attention_mask, position_ids=None, past=None):
        if position_ids is None:
            position_ids = (attention_mask.long().cumsum(-1) - 1).clamp(min=0)
        x = self.wte(idx) + self.wpe(position_ids)
        presents = []
        for i, block in enumerate(self.blocks):
            x, present = block(x, attention_mask, None if past is None else past[i])
            presents.append(present)
        return self.lm_head(self.ln_f(x)), presents


def make_batch(n, pad_side="right"):
    seqs = []
    for _ in range(n):
        length = int(torch.randint(3, 7, ()).item())
        start = int(torch.randint(3, VOCAB - length, ()).item())
        seqs.append([BOS] + list(range(start, start + length)) + [EOS])
    T = max(len(s) for s in seqs)
    ids = torch.full((n, T), PAD)
    mask = torch.zeros(n, T, dtype=torch.bool)
    for i, s in enumerate(seqs):
        if pad_side == "right":
            ids[i, :len(s)] = torch.tensor(s)
            mask[i, :len(s)] = True
        else:
            ids[i, T - len(s):] = torch.tensor(s)
            mask[i, T - len(s):] = True
    return ids, mask


model = GPT()
print("tied:", model.lm_head.weight is model.wte.weight,
      "params:", sum(p.numel() for p in model.parameters()))
decay = [p for n, p in model.named_parameters() if p.dim() >= 2]
no_decay = [p for n, p in model.named_parameters() if p.dim() < 2]
opt = torch.optim.AdamW([{"params": decay, "weight_decay": 0.1}, {"params": no_decay, "weight_decay": 0.0}],
                        lr=3e-3, betas=(0.9, 0.95))
for step in range(120):
    ids, mask = make_batch(16)
    labels = ids[:, 1:].masked_fill(~mask[:, 1:], -100)
    logits, _ = model(ids[:, :-1], mask[:, :-1])
    loss = F.cross_entropy(logits.reshape(-1, VOCAB), labels.reshape(-1), ignore_index=-100)
    opt.zero_grad(set_to_none=True)
    loss.backward()
    torch.nn.utils.clip_grad_norm_(model.parameters(), 1.0)
    opt.step()
    if step % 30 == 0:
        print(f"step {step:3d} loss {loss.item():.4f} tokens {int((labels != -100).sum())}")


@torch.no_grad()
def generate(model, ids, mask, max_new_tokens=5, use_cache=True):
    model.eval()
    position_ids = (mask.long().cumsum(-1) - 1).clamp(min=0)
    logits, past = model(ids, mask, position_ids)
    out = ids
    for _ in range(max_new_tokens):
        nxt = logits[:, -1].argmax(-1, keepdim=True)
        out = torch.cat([out, nxt], dim=1)
        mask = torch.cat([mask, torch.ones(mask.size(0), 1, dtype=torch.bool)], dim=1)
        position_ids = position_ids[:, -1:] + 1
        if use_cache:
            logits, past = model(nxt, mask, position_ids, past=past)
        else:
            logits, _ = model(out, mask)
    return out


prompts, pmask = make_batch(4, pad_side="left")
prompts, pmask = prompts[:, :4], pmask[:, :4]
print("prompts:", prompts.tolist())
print("mask:", pmask.int().tolist())
cached = generate(model, prompts, pmask)
uncached = generate(model, prompts, pmask, use_cache=False)
print("generated:", cached[:, 4:].tolist())
print("cache agrees:", torch.equal(cached, uncached))
with torch.no_grad():
    ids, mask = make_batch(8)
    logits, _ = model(ids[:, :-1], mask[:, :-1])
    pred = logits.argmax(-1)
    keep = mask[:, 1:]
    acc = (pred == ids[:, 1:])[keep].float().mean().item()
print(f"next-token accuracy: {acc:.3f}")
