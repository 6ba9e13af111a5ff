"""A sequence-reversal seq2seq in the style of the classic GRU tutorials, written around
PackedSequence: variable-length batches through pack_sequence / pack_padded_sequence with
enforce_sorted=False, the PackedSequence fields (data, batch_sizes, sorted_indices,
unsorted_indices) and its .to(), pad_packed_sequence with total_length and padding_value,
unpack_sequence / unpad_sequence, a bidirectional GRU encoder whose final states are merged,
a GRUCell decoder with Luong attention under a length mask, teacher forcing decided by a
seeded Python RNG, a masked loss with ignore_index, gradient clipping, and greedy decoding."""
import random

import torch
import torch.nn as nn
import torch.nn.functional as F
from torch.nn.utils.rnn import (PackedSequence, pack_padded_sequence, pack_sequence,
                                pad_packed_sequence, pad_sequence, unpack_sequence,
                                unpad_sequence)

torch.manual_seed(0)
torch.set_default_dtype(torch.float64)
PAD, SOS, EOS = 0, 1, 2
VOCAB = 9

# ---- the PackedSequence API on a tiny batch
seqs = [torch.tensor([3, 4, 5]), torch.tensor([6, 7]), torch.tensor([8, 3, 4, 5])]
packed = pack_sequence(seqs, enforce_sorted=False)
print(type(packed).__name__, packed.data, packed.batch_sizes)
print(packed.sorted_indices, packed.unsorted_indices, packed.is_cuda)
padded, lengths = pad_packed_sequence(packed, batch_first=True, padding_value=-1, total_length=5)
print(padded, lengths)
print([s.tolist() for s in unpack_sequence(packed)])
print([s.tolist() for s in unpad_sequence(padded, lengths, batch_first=True)])
as_float = packed.to(torch.float64)
print(as_float.data.dtype, as_float.batch_sizes is packed.batch_sizes)
manual = PackedSequence(torch.tensor([10, 20, 11, 21, 12]), torch.tensor([2, 2, 1]))
print(manual.sorted_indices, pad_packed_sequence(manual)[0].t())
again = pack_padded_sequence(padded, lengths, batch_first=True, enforce_sorted=False)
print(torch.equal(again.data, packed.data), torch.equal(again.batch_sizes, packed.batch_sizes))
try:
    pack_sequence(seqs, enforce_sorted=True)
except RuntimeError as e:
    print("RuntimeError:", str(e).split("\n")[0][:60])


# ---- data: reverse a random digit string
def make_batch(rng, n):
    src = [torch.tensor([rng.randrange(3, VOCAB) for _ in range(rng.randrange(2, 7))])
           for _ in range(n)]
    tgt = [torch.cat([s.flip(0), torch.tensor([EOS])]) for s in src]
    return src, tgt


class Encoder(nn.Module):
    def __init__(self, hidden):
        super().__init__()
        self.emb = nn.Embedding(VOCAB, 8, padding_idx=PAD)
        self.rnn = nn.GRU(8, hidden, batch_first=True, bidirectional=True)
        self.merge = nn.Linear(2 * hidden, hidden)

    def forward(self, src):
        lengths = torch.tensor([len(s) for s in src])
        x = self.emb(pad_sequence(src, batch_first=True, padding_value=PAD))
        out, h = self.rnn(pack_padded_sequence(x, lengths, batch_first=True,
                                               enforce_sorted=False))
        out, _ = pad_packed_sequence(out, batch_first=True)
        out = out[..., :out.size(-1) // 2] + out[..., out.size(-1) // 2:]
        h = torch.tanh(self.merge(torch.cat([h[0], h[1]], dim=-1)))
        mask = torch.arange(out.size(1))[None, :] < lengths[:, None]
        return out, h, mask


class Decoder(nn.Module):
    def __init__(self, hidden):
        super().__init__()
        self.emb = nn.Embedding(VOCAB, 8)
        self.cell = nn.GRUCell(8 + hidden, hidden)
        self.attn = nn.Linear(hidden, hidden, bias=False)
        self.out = nn.Linear(2 * hidden, VOCAB)

    def forward(self, tok, h, ctx, enc, mask):
        h = self.cell(torch.cat([self.emb(tok), ctx], dim=-1), h)
        scores = torch.bmm(enc, self.attn(h).unsqueeze(2)).squeeze(2)
        weights = F.softmax(scores.masked_fill(~mask, float("-inf")), dim=1)
        ctx = torch.bmm(weights.unsqueeze(1), enc).squeeze(1)
        return self.out(torch.cat([h, ctx], dim=-1)), h, ctx, weights


hidden = 16
enc, dec = Encoder(hidden), Decoder(hidden)
params = list(enc.parameters()) + list(dec.parameters())
opt = torch.optim.Adam(params, lr=0.01)
rng = random.Random(0)


def run(src, tgt, teacher_ratio):
    enc_out, h, mask = enc(src)
    tgt_pad = pad_sequence(tgt, batch_first=True, padding_value=PAD)
    tok = torch.full((len(src),), SOS)
    ctx = torch.zeros(len(src), hidden)
    logits = []
    for t in range(tgt_pad.size(1)):
        step_logits, h, ctx, _ = dec(tok, h, ctx, enc_out, mask)
        logits.append(step_logits)
        tok = tgt_pad[:, t] if rng.random() < teacher_ratio else step_logits.argmax(1)
    logits = torch.stack(logits, dim=1)
    return F.cross_entropy(logits.reshape(-1, VOCAB), tgt_pad.reshape(-1), ignore_index=PAD)


for step in range(120):
    src, tgt = make_batch(rng, 16)
    ratio = max(0.2, 1.0 - step / 100)
    loss = run(src, tgt, ratio)
    opt.zero_grad()
    loss.backward()
    norm = nn.utils.clip_grad_norm_(params, 2.0)
    opt.step()
    if step % 30 == 0:
        print(f"step {step} teacher {ratio:.2f} loss {loss.item():.4f} norm {norm.item():.4f}")


@torch.no_grad()
def greedy(src, max_len=8):
    enc_out, h, mask = enc(src)
    tok = torch.full((len(src),), SOS)
    ctx = torch.zeros(len(src), hidden)
    outs, attn = [], []
    for _ in range(max_len):
        logits, h, ctx, w = dec(tok, h, ctx, enc_out, mask)
        tok = logits.argmax(1)
        outs.append(tok)
        attn.append(w)
    return torch.stack(outs, 1), torch.stack(attn, 1)


test_src, test_tgt = make_batch(rng, 4)
pred, attn = greedy(test_src)
for s, p in zip(test_src, pred):
    p = p.tolist()
    p = p[:p.index(EOS)] if EOS in p else p
    print(s.tolist(), "->", p)
print("attention rows sum to 1:", bool(torch.allclose(attn.sum(-1), torch.ones(4, 8))))
print("no attention on padding:",
      all(bool((attn[i, :, len(s):] == 0).all()) for i, s in enumerate(test_src)))
