"""End-to-end memory networks (Sukhbaatar et al.) on bAbI-style synthetic stories, as the
popular PyTorch ports write them: a vocabulary built from the stories, sentences padded into
a (batch, memory, words) LongTensor, position encoding (the paper's l_kj weights), temporal
encoding with an embedding of sentence positions, adjacent weight tying across hops
(nn.ModuleList of embeddings, A_{k+1} = C_k), attention over memories with softmax and a
bmm, linear start (softmax removed for the first epochs), gradient clipping to 40 as in the
paper, the learning rate annealed by hand every few epochs, and per-question accuracy."""
import random

import torch
import torch.nn as nn
import torch.nn.functional as F

random.seed(0)
torch.manual_seed(0)

people = ["mary", "john", "sandra", "daniel"]
places = ["kitchen", "garden", "office", "hallway", "bathroom"]
verbs = ["went to the", "moved to the", "journeyed to the"]


def make_story():
    n = random.randint(2, 6)
    facts, location = [], {}
    for _ in range(n):
        p, pl = random.choice(people), random.choice(places)
        facts.append(f"{p} {random.choice(verbs)} {pl}".split())
        location[p] = pl
    who = random.choice(sorted(location))
    return facts, f"where is {who}".split(), location[who]


data = [make_story() for _ in range(300)]
vocab = sorted({w for facts, q, a in data for s in facts + [q] for w in s} | {a for *_, a in data})
word_idx = {w: i + 1 for i, w in enumerate(vocab)}
print("vocab size", len(word_idx) + 1, "first words", vocab[:6])
max_mem = max(len(f) for f, _, _ in data)
sent_len = max(len(s) for f, q, _ in data for s in f + [q])
print("memory size", max_mem, "sentence length", sent_len)


def vectorize(batch):
    S = torch.zeros(len(batch), max_mem, sent_len, dtype=torch.long)
    Q = torch.zeros(len(batch), sent_len, dtype=torch.long)
    A = torch.zeros(len(batch), dtype=torch.long)
    for i, (facts, q, a) in enumerate(batch):
        facts = facts[-max_mem:]
        for j, s in enumerate(facts):
            # the latest sentence goes first, so the temporal embedding indexes recency
            S[i, len(facts) - 1 - j, :len(s)] = torch.tensor([word_idx[w] for w in s])
        Q[i, :len(q)] = torch.tensor([word_idx[w] for w in q])
        A[i] = word_idx[a]
    return S, Q, A


def position_encoding(sentence_size, embedding_dim):
    encoding = torch.ones(embedding_dim, sentence_size)
    ls = sentence_size + 1
    le = embedding_dim + 1
    for i in range(1, le):
        for j in range(1, ls):
            encoding[i - 1, j - 1] = (i - (embedding_dim + 1) / 2) * (j - (sentence_size + 1) / 2)
    encoding = 1 + 4 * encoding / embedding_dim / sentence_size
    encoding[:, -1] = 1.0
    return encoding.t()


class MemN2N(nn.Module):
    def __init__(self, vocab_size, embed_dim, max_mem, sent_len, hops=3):
        super().__init__()
        self.hops = hops
        self.linear_start = True
        self.C = nn.ModuleList([nn.Embedding(vocab_size, embed_dim, padding_idx=0) for _ in range(hops + 1)])
        for emb in self.C:
            emb.weight.data.normal_(0, 0.1)
            emb.weight.data[0].zero_()
        self.TA = nn.Parameter(torch.randn(max_mem, embed_dim) * 0.1)
        self.TC = nn.Parameter(torch.randn(max_mem, embed_dim) * 0.1)
        self.register_buffer("encoding", position_encoding(sent_len, embed_dim))

    def forward(self, story, query):
        u = (self.C[0](query) * self.encoding).sum(1)
        for hop in range(self.hops):
            m = (self.C[hop](story) * self.encoding).sum(2) + self.TA
            c = (self.C[hop + 1](story) * self.encoding).sum(2) + self.TC
            logits = torch.bmm(m, u.unsqueeze(2)).squeeze(2)
            mask = (story.sum(2) == 0)
            logits = logits.masked_fill(mask, float("-inf") if not self.linear_start else 0.0)
            p = logits if self.linear_start else F.softmax(logits, dim=1)
            if self.linear_start:
                p = p.masked_fill(mask, 0.0)
            o = torch.bmm(p.unsqueeze(1), c).squeeze(1)
            u = u + o
        return F.linear(u, self.C[self.hops].weight)


pe = position_encoding(4, 3)
print("position encoding\n", pe)
S, Q, A = vectorize(data)
print("stories", tuple(S.shape), S.dtype, "queries", tuple(Q.shape), "answers", A[:8].tolist())
train, test = slice(0, 240), slice(240, 300)
model = MemN2N(len(word_idx) + 1, 20, max_mem, sent_len)
print(model)
lr = 0.01
opt = torch.optim.SGD(model.parameters(), lr=lr)
for epoch in range(30):
    if epoch == 10:
        model.linear_start = False
        print("linear start ends at epoch", epoch)
    if epoch > 0 and epoch % 10 == 0:
        lr /= 2
        for g in opt.param_groups:
            g["lr"] = lr
    perm = torch.randperm(240)
    total = 0.0
    for b in range(0, 240, 32):
        idx = perm[b:b + 32]
        opt.zero_grad()
        loss = F.cross_entropy(model(S[idx], Q[idx]), A[idx], reduction="sum")
        loss.backward()
        gnorm = nn.utils.clip_grad_norm_(model.parameters(), 40.0)
        opt.step()
        with torch.no_grad():
            for emb in model.C:
                emb.weight[0].zero_()
        total += loss.item()
    if epoch % 5 == 0:
        print(f"epoch {epoch:2d} loss {total / 240:.4f} lr {lr} grad norm {gnorm:.3f}")

model.eval()
with torch.no_grad():
    pred = model(S[test], Q[test]).argmax(1)
    acc = (pred == A[test]).float().mean()
print(f"test accuracy {acc.item():.3f}", "better than chance:", acc.item() > 1.0 / len(places))
inv = {i: w for w, i in word_idx.items()}
facts, q, a = data[250]
print("example:", " | ".join(" ".join(s) for s in facts), "?", " ".join(q))
print("padding rows of the embeddings stay zero:", all(bool((e.weight[0] == 0).all()) for e in model.C))
