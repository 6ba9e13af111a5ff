"""A Hugging Face-style generation loop over a tiny causal LM with a key/value cache: left
padding with an attention mask, position ids from cumsum(-1), the causal mask filled with
torch.finfo(dtype).min, past_key_values concatenated along the sequence, logits processors
(repetition penalty by gather / scatter, temperature, top-k and top-p filtering with sort,
cumsum and scatter back), greedy, sampling with a seeded Generator, and beam search with
topk over flattened log-probabilities, finished beams and length penalty."""
import math

import torch
import torch.nn as nn
import torch.nn.functional as F

torch.manual_seed(0)
VOCAB, D, H, PAD, EOS = 20, 32, 4, 0, 1


class Attn(nn.Module):
    def __init__(self):
        super().__init__()
        self.qkv = nn.Linear(D, 3 * D)
        self.o = nn.Linear(D, D)

    def forward(self, x, mask, past=None):
        B, T, _ = x.shape
        q, k, v = self.qkv(x).view(B, T, 3, H, D // H).permute(2, 0, 3, 1, 4)
        if past is not None:
            k = torch.cat([past[0], k], dim=2)
            v = torch.cat([past[1], v], dim=2)
        att = (q @ k.transpose(-1, -2)) / math.sqrt(D // H) + mask
        out = F.softmax(att, dim=-1, dtype=torch.float32).to(q.dtype) @ v
        return self.o(out.transpose(1, 2).reshape(B, T, D)), (k, v)


class TinyLM(nn.Module):
    def __init__(self):
        super().__init__()
        self.tok = nn.Embedding(VOCAB, D, padding_idx=PAD)
        self.pos = nn.Embedding(64, D)
        self.layers = nn.ModuleList([Attn() for _ in range(2)])
        self.ln = nn.LayerNorm(D)
        self.head = nn.Linear(D, VOCAB, bias=False)
        self.head.weight = self.tok.weight

    def forward(self, input_ids, attention_mask, position_ids, past_key_values=None):
        B, T = input_ids.shape
        past_len = 0 if past_key_values is None else past_key_values[0][0].shape[2]
        x = self.tok(input_ids) + self.pos(position_ids)
        total = past_len + T
        causal = torch.ones(T, total, dtype=torch.bool).tril(diagonal=past_len)
        allowed = causal[None, None] & attention_mask[:, None, None, :].bool()
        mask = torch.zeros(allowed.shape, dtype=x.dtype).masked_fill(~allowed, torch.finfo(x.dtype).min)
        new_past = []
        for i, layer in enumerate(self.layers):
            h, kv = layer(x, mask, None if past_key_values is None else past_key_values[i])
            x = x + h
            new_past.append(kv)
        return self.head(self.ln(x)), tuple(new_past)


def top_k_top_p_filtering(logits, top_k=0, top_p=1.0, filter_value=-float("Inf")):
    if top_k > 0:
        indices_to_remove = logits < torch.topk(logits, top_k)[0][..., -1, None]
        logits = logits.masked_fill(indices_to_remove, filter_value)
    if top_p < 1.0:
        sorted_logits, sorted_indices = torch.sort(logits, descending=True)
        cumulative_probs = torch.cumsum(F.softmax(sorted_logits, dim=-1), dim=-1)
        sorted_indices_to_remove = cumulative_probs > top_p
        sorted_indices_to_remove[..., 1:] = sorted_indices_to_remove[..., :-1].clone()
        sorted_indices_to_remove[..., 0] = 0
        indices_to_remove = sorted_indices_to_remove.scatter(1, sorted_indices, sorted_indices_to_remove)
        logits = logits.masked_fill(indices_to_remove, filter_value)
    return logits


def repetition_penalty(input_ids, scores, penalty):
    score = torch.gather(scores, 1, input_ids)
    score = torch.where(score < 0, score * penalty, score / penalty)
    return scores.scatter(1, input_ids, score)


@torch.no_grad()
def generate(model, input_ids, attention_mask, max_new_tokens=6, do_sample=False, generator=None,
             temperature=1.0, top_k=0, top_p=1.0, rep_penalty=1.0):
    position_ids = attention_mask.long().cumsum(-1) - 1
    position_ids.masked_fill_(attention_mask == 0, 1)
    past = None
    cur_ids, cur_pos = input_ids, position_ids
    finished = torch.zeros(input_ids.shape[0], dtype=torch.bool)
    for _ in range(max_new_tokens):
        logits, past = model(cur_ids, attention_mask, cur_pos, past)
        scores = logits[:, -1, :]
        if rep_penalty != 1.0:
            scores = repetition_penalty(input_ids, scores, rep_penalty)
        if do_sample:
            scores = top_k_top_p_filtering(scores / temperature, top_k=top_k, top_p=top_p)
            probs = F.softmax(scores, dim=-1)
            next_tokens = torch.multinomial(probs, num_samples=1, generator=generator).squeeze(1)
        else:
            next_tokens = torch.argmax(scores, dim=-1)
        next_tokens = torch.where(finished, torch.full_like(next_tokens, PAD), next_tokens)
        finished |= next_tokens == EOS
        input_ids = torch.cat([input_ids, next_tokens[:, None]], dim=-1)
        attention_mask = torch.cat([attention_mask, attention_mask.new_ones((attention_mask.shape[0], 1))], dim=-1)
        cur_ids = next_tokens[:, None]
        cur_pos = position_ids[:, -1:] + 1
        position_ids = torch.cat([position_ids, cur_pos], dim=-1)
        if finished.all():
            break
    return input_ids


model = TinyLM().eval()
prompts = [[5, 6, 7, 8], [9, 10]]
max_len = max(len(p) for p in prompts)
input_ids = torch.tensor([[PAD] * (max_len - len(p)) + p for p in prompts])
attention_mask = (input_ids != PAD).long()
print(input_ids, attention_mask)
pos = attention_mask.cumsum(-1) - 1
print(pos.masked_fill(attention_mask == 0, 1))

with torch.no_grad():
    full, _ = model(input_ids, attention_mask, pos.masked_fill(attention_mask == 0, 1))
    step1, past = model(input_ids[:, :-1], attention_mask[:, :-1], pos.masked_fill(attention_mask == 0, 1)[:, :-1])
    step2, _ = model(input_ids[:, -1:], attention_mask, pos[:, -1:], past)
print(len(past), past[0][0].shape, torch.allclose(full[:, -1], step2[:, -1], atol=1e-5))

print("greedy", generate(model, input_ids, attention_mask).tolist())
print("penalty", generate(model, input_ids, attention_mask, rep_penalty=1.3).tolist())
g = torch.Generator().manual_seed(42)
print("sample", generate(model, input_ids, attention_mask, do_sample=True, generator=g, temperature=0.8, top_k=5).tolist())
g = torch.Generator().manual_seed(42)
print("top-p", generate(model, input_ids, attention_mask, do_sample=True, generator=g, top_p=0.9).tolist())
scores = torch.tensor([[1.0, 3.0, 2.0, 0.5, -1.0]])
print(top_k_top_p_filtering(scores.clone(), top_k=2), top_k_top_p_filtering(scores.clone(), top_p=0.7))
print(repetition_penalty(torch.tensor([[1, 4]]), scores, 2.0))


@torch.no_grad()
def beam_search(model, prompt, num_beams=3, max_new_tokens=5, length_penalty=1.0):
    ids = torch.tensor([prompt] * num_beams)
    mask = torch.ones_like(ids)
    beam_scores = torch.zeros(num_beams)
    beam_scores[1:] = -1e9
    done = []
    for step in range(max_new_tokens):
        pos = mask.cumsum(-1) - 1
        logits, _ = model(ids, mask, pos)
        logprobs = F.log_softmax(logits[:, -1, :], dim=-1)
        next_scores = (beam_scores[:, None] + logprobs).view(-1)
        top_scores, top_idx = torch.topk(next_scores, 2 * num_beams)
        beam_idx = torch.div(top_idx, VOCAB, rounding_mode="floor")
        token_idx = top_idx % VOCAB
        new_ids, new_scores = [], []
        for s, b, t in zip(top_scores.tolist(), beam_idx.tolist(), token_idx.tolist()):
            seq = ids[b].tolist() + [t]
            if t == EOS:
                done.append((s / (len(seq) ** length_penalty), seq))
            else:
                new_ids.append(seq)
                new_scores.append(s)
            if len(new_ids) == num_beams:
                break
        ids = torch.tensor(new_ids)
        mask = torch.ones_like(ids)
        beam_scores = torch.tensor(new_scores)
    for s, seq in zip(beam_scores.tolist(), ids.tolist()):
        done.append((s / (len(seq) ** length_penalty), seq))
    done.sort(key=lambda x: -x[0])
    return done[:2]


for score, seq in beam_search(model, [5, 6, 7]):
    print(f"beam {score:.4f} {seq}")
print(torch.finfo(torch.float32).min, torch.finfo(torch.float16).min)
