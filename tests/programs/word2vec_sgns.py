"""Word2vec skip-gram with negative sampling on a toy corpus (nn.Embedding, bmm, logsigmoid)."""
import collections

import numpy as np
import torch
import torch.nn as nn
import torch.nn.functional as F
from torch.utils.data import DataLoader, Dataset

torch.manual_seed(1)
np.random.seed(1)

corpus = """the quick brown fox jumps over the lazy dog . the dog sleeps in the sun .
the fox runs in the forest . a lazy cat sleeps on the mat . the cat and the dog are friends .
the quick cat jumps over the fox . a brown dog runs in the sun .""".split()

counts = collections.Counter(corpus)
vocab = sorted(counts, key=lambda w: (-counts[w], w))
word2idx = {w: i for i, w in enumerate(vocab)}
idx2word = {i: w for w, i in word2idx.items()}
print(f"vocab size: {len(vocab)}, tokens: {len(corpus)}")
print("most common:", counts.most_common(3))

WINDOW = 2
pairs = []
ids = [word2idx[w] for w in corpus]
for i, center in enumerate(ids):
    for j in range(max(0, i - WINDOW), min(len(ids), i + WINDOW + 1)):
        if j != i:
            pairs.append((center, ids[j]))
print("training pairs:", len(pairs))

freq = np.array([counts[w] for w in vocab], dtype=np.float64) ** 0.75
noise_dist = torch.tensor(freq / freq.sum(), dtype=torch.float)
print("noise dist sums to", round(noise_dist.sum().item(), 4))


class SkipGramDataset(Dataset):
    def __init__(self, pairs):
        self.pairs = pairs

    def __len__(self):
        return len(self.pairs)

    def __getitem__(self, idx):
        c, o = self.pairs[idx]
        return torch.tensor(c), torch.tensor(o)


class SkipGramNeg(nn.Module):
    def __init__(self, n_vocab, n_embed, noise_dist):
        super().__init__()
        self.n_embed = n_embed
        self.in_embed = nn.Embedding(n_vocab, n_embed)
        self.out_embed = nn.Embedding(n_vocab, n_embed)
        self.noise_dist = noise_dist
        self.in_embed.weight.data.uniform_(-1, 1)
        self.out_embed.weight.data.uniform_(-1, 1)

    def forward_input(self, words):
        return self.in_embed(words)

    def forward_output(self, words):
        return self.out_embed(words)

    def forward_noise(self, batch_size, n_samples):
        noise_words = torch.multinomial(self.noise_dist, batch_size * n_samples, replacement=True)
        return self.out_embed(noise_words).view(batch_size, n_samples, self.n_embed)


class NegativeSamplingLoss(nn.Module):
    def forward(self, input_vectors, output_vectors, noise_vectors):
        batch_size, embed_size = input_vectors.shape
        input_vectors = input_vectors.view(batch_size, embed_size, 1)
        output_vectors = output_vectors.view(batch_size, 1, embed_size)
        out_loss = torch.bmm(output_vectors, input_vectors).sigmoid().log().squeeze()
        noise_loss = torch.bmm(noise_vectors.neg(), input_vectors).sigmoid().log()
        noise_loss = noise_loss.squeeze().sum(1)
        return -(out_loss + noise_loss).mean()


model = SkipGramNeg(len(vocab), 16, noise_dist)
criterion = NegativeSamplingLoss()
optimizer = torch.optim.Adam(model.parameters(), lr=0.01)
print(model)

loader = DataLoader(SkipGramDataset(pairs), batch_size=32, shuffle=True)
for epoch in range(1, 6):
    total = 0.0
    for centers, contexts in loader:
        inp = model.forward_input(centers)
        out = model.forward_output(contexts)
        noise = model.forward_noise(centers.shape[0], 5)
        loss = criterion(inp, out, noise)
        optimizer.zero_grad()
        loss.backward()
        optimizer.step()
        total += loss.item() * centers.shape[0]
    print(f"epoch {epoch} loss {total / len(pairs):.4f}")

# the same objective written with F.logsigmoid, as many re-implementations do
with torch.no_grad():
    c = torch.tensor([word2idx["fox"], word2idx["dog"]])
    o = torch.tensor([word2idx["quick"], word2idx["lazy"]])
    pos = F.logsigmoid((model.in_embed(c) * model.out_embed(o)).sum(-1))
    print("positive log-sigmoid scores shape:", tuple(pos.shape), "all <= 0:", bool((pos <= 0).all()))


def similar(word, k=3):
    with torch.no_grad():
        emb = F.normalize(model.in_embed.weight, dim=1)
        sims = emb @ emb[word2idx[word]]
        top = sims.topk(k + 1).indices[1:]
    return [idx2word[i.item()] for i in top]


for w in ["fox", "dog", "sun"]:
    print(w, "->", similar(w))
print("embedding norm shape:", model.in_embed.weight.norm(dim=1).shape)
