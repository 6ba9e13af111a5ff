"""Decoding strategies for a small GRU language model, as generation utilities write them: greedy,
beam search over flattened top-k scores with a length penalty, repetition penalty via gather /
scatter, top-k and nucleus (top-p) sampling with sort / cumsum / multinomial, temperature."""
import torch
import torch.nn as nn
import torch.nn.functional as F

torch.manual_seed(0)
VOCAB, HIDDEN, BOS, EOS = 12, 32, 0, 1


class TinyLM(nn.Module):
    def __init__(self):
        super().__init__()
        self.emb = nn.Embedding(VOCAB, HIDDEN)
        self.rnn = nn.GRU(HIDDEN, HIDDEN, batch_first=True)
        self.out = nn.Linear(HIDDEN, VOCAB)

    def forward(self, tokens, h=None):
        o, h = self.rnn(self.emb(tokens), h)
        return self.out(o), h


# train it briefly on "count up" sequences: BOS 2 3 4 ... EOS
model = TinyLM()
opt = torch.optim.Adam(model.parameters(), lr=0.02)
seqs = []
for start in range(2, 8):
    seqs.append([BOS] + list(range(start, min(start + 4, VOCAB))) + [EOS])
maxlen = max(len(s) for s in seqs)
data = torch.full((len(seqs), maxlen), -100, dtype=torch.long)
for i, s in enumerate(seqs):
    data[i, :len(s)] = torch.tensor(s)
inp = data[:, :-1].clamp(min=0)
tgt = data[:, 1:]
for step in range(150):
    logits, _ = model(inp)
    loss = F.cross_entropy(logits.reshape(-1, VOCAB), tgt.reshape(-1), ignore_index=-100)
    opt.zero_grad()
    loss.backward()
    opt.step()
    if step % 50 == 0:
        print(f"step {step} loss {loss.item():.4f}")
print(f"final loss {loss.item():.4f}")
model.eval()


@torch.no_grad()
def greedy(prefix, max_new=6):
    tokens = torch.tensor([prefix])
    logits, h = model(tokens)
    out = list(prefix)
    for _ in range(max_new):
        nxt = logits[:, -1].argmax(-1, keepdim=True)
        out.append(nxt.item())
        if nxt.item() == EOS:
            break
        logits, h = model(nxt, h)
    return out


@torch.no_grad()
def beam_search(prefix, beams=3, max_new=6, alpha=0.7):
    tokens = torch.tensor([prefix])
    logits, h = model(tokens)
    logp = F.log_softmax(logits[:, -1], dim=-1)  # (1, V)
    scores, idx = logp.topk(beams, dim=-1)
    seqs = torch.cat([tokens.repeat(beams, 1), idx.t()], dim=1)
    h = h.repeat(1, beams, 1)
    scores = scores.squeeze(0)
    finished = []
    for _ in range(max_new - 1):
        logits, h = model(seqs[:, -1:], h)
        logp = F.log_softmax(logits[:, -1], dim=-1)
        done = seqs[:, -1] == EOS
        logp = logp.masked_fill(done.unsqueeze(1), float("-inf"))
        cand = (scores.unsqueeze(1) + logp).view(-1)
        top, flat = cand.topk(beams)
        beam_idx = torch.div(flat, VOCAB, rounding_mode="floor")
        tok = flat % VOCAB
        seqs = torch.cat([seqs.index_select(0, beam_idx), tok.unsqueeze(1)], dim=1)
        h = h[:, beam_idx]
        scores = top
        for b in range(beams):
            if tok[b].item() == EOS:
                length = seqs.size(1) - len(prefix)
                finished.append((scores[b].item() / length ** alpha, seqs[b].tolist()))
        if len(finished) >= beams:
            break
    if not finished:
        finished = [(s.item(), q.tolist()) for s, q in zip(scores, seqs)]
    finished.sort(key=lambda t: -t[0])
    return finished


def apply_repetition_penalty(logits, generated, penalty=1.3):
    score = torch.gather(logits, 1, generated)
    score = torch.where(score < 0, score * penalty, score / penalty)
    return logits.scatter(1, generated, score)


def top_k_top_p_filter(logits, top_k=0, top_p=1.0):
    if top_k > 0:
        kth = torch.topk(logits, top_k)[0][..., -1, None]
        logits = logits.masked_fill(logits < kth, float("-inf"))
    if top_p < 1.0:
        sorted_logits, sorted_idx = torch.sort(logits, descending=True)
        cum = torch.cumsum(F.softmax(sorted_logits, dim=-1), dim=-1)
        remove = cum > top_p
        remove[..., 1:] = remove[..., :-1].clone()
        remove[..., 0] = False
        mask = remove.scatter(1, sorted_idx, remove)
        logits = logits.masked_fill(mask, float("-inf"))
    return logits


@torch.no_grad()
def sample(prefix, n=3, max_new=6, temperature=2.5, top_k=0, top_p=1.0, penalty=1.0):
    gen = torch.Generator().manual_seed(1234)
    tokens = torch.tensor([prefix] * n)
    logits, h = model(tokens)
    logits = logits[:, -1]
    for _ in range(max_new):
        if penalty != 1.0:
            logits = apply_repetition_penalty(logits, tokens, penalty)
        logits = top_k_top_p_filter(logits / temperature, top_k, top_p)
        probs = F.softmax(logits, dim=-1)
        nxt = torch.multinomial(probs, 1, generator=gen)
        tokens = torch.cat([tokens, nxt], dim=1)
        logits, h = model(nxt, h)
        logits = logits[:, -1]
    return tokens


for prefix in ([BOS, 2], [BOS, 5, 6]):
    print("greedy", prefix, "->", greedy(prefix))
    for score, seq in beam_search(prefix)[:2]:
        print(f"  beam {score:.4f} {seq}")
print(sample([BOS, 3]))
print(sample([BOS, 3], top_k=3))
print(sample([BOS, 3], top_p=0.9, temperature=3.0))
print(sample([BOS, 3], penalty=1.5, temperature=2.0))
logits = torch.tensor([[2.0, 1.0, 0.5, -1.0, 3.0]])
print(top_k_top_p_filter(logits, top_k=2))
print(top_k_top_p_filter(logits, top_p=0.8))
print(apply_repetition_penalty(logits, torch.tensor([[0, 3]])))
