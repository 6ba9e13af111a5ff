"""A part-of-speech style tagger over variable-length sentences: pack_sequence(enforce_sorted=False)
into a bidirectional 2-layer GRU, pad_packed_sequence back, PackedSequence fields, pretrained
embeddings with Embedding.from_pretrained(freeze=...), padding_idx, a masked token loss and
accuracy, and packed vs padded outputs compared."""
import torch
import torch.nn as nn
import torch.nn.functional as F
from torch.nn.utils.rnn import pack_padded_sequence, pack_sequence, pad_packed_sequence, pad_sequence

torch.manual_seed(5)
data = [
    ("the dog barks".split(), "DET NOUN VERB".split()),
    ("a cat sleeps".split(), "DET NOUN VERB".split()),
    ("the big dog eats the food".split(), "DET ADJ NOUN VERB DET NOUN".split()),
    ("dogs bark".split(), "NOUN VERB".split()),
    ("the small cat sees a big dog".split(), "DET ADJ NOUN VERB DET ADJ NOUN".split()),
    ("cats eat food".split(), "NOUN VERB NOUN".split()),
]
words = ["<pad>"] + sorted({w for s, _ in data for w in s})
tags = sorted({t for _, ts in data for t in ts})
w2i = {w: i for i, w in enumerate(words)}
t2i = {t: i for i, t in enumerate(tags)}
print(len(words), "words", tags)

sentences = [torch.tensor([w2i[w] for w in s]) for s, _ in data]
targets = [torch.tensor([t2i[t] for t in ts]) for _, ts in data]
lengths = torch.tensor([len(s) for s in sentences])
packed = pack_sequence(sentences, enforce_sorted=False)
print("batch_sizes", packed.batch_sizes.tolist())
print("sorted_indices", packed.sorted_indices.tolist(), "unsorted_indices", packed.unsorted_indices.tolist())
print("data", packed.data.tolist())
padded, lens = pad_packed_sequence(packed, batch_first=True, padding_value=0)
print(padded, lens)
print(torch.equal(padded, pad_sequence(sentences, batch_first=True)))

pretrained = torch.rand(len(words), 8) - 0.5
pretrained[0] = 0


class Tagger(nn.Module):
    def __init__(self, freeze):
        super().__init__()
        self.embed = nn.Embedding.from_pretrained(pretrained.clone(), freeze=freeze, padding_idx=0)
        self.rnn = nn.GRU(8, 16, num_layers=2, bidirectional=True, batch_first=True, dropout=0.0)
        self.out = nn.Linear(32, len(tags))

    def forward(self, seqs):
        emb = [self.embed(s) for s in seqs]
        out, h = self.rnn(pack_sequence(emb, enforce_sorted=False))
        out, _ = pad_packed_sequence(out, batch_first=True)
        return self.out(out), h


model = Tagger(freeze=True)
print(model)
print("trainable", [n for n, p in model.named_parameters() if p.requires_grad][:3], "embedding frozen:", not model.embed.weight.requires_grad)
gold = pad_sequence(targets, batch_first=True, padding_value=-1)
mask = gold != -1
opt = torch.optim.Adam([p for p in model.parameters() if p.requires_grad], lr=0.02)
for epoch in range(40):
    logits, h = model(sentences)
    loss = F.cross_entropy(logits.transpose(1, 2), gold, ignore_index=-1)
    opt.zero_grad()
    loss.backward()
    opt.step()
    if epoch % 10 == 0 or epoch == 39:
        acc = (logits.argmax(-1)[mask] == gold[mask]).float().mean()
        print(f"epoch {epoch} loss {loss.item():.4f} acc {acc.item():.3f}")
print("hidden", h.shape, "logits", logits.shape)
with torch.no_grad():
    test = [torch.tensor([w2i[w] for w in "the cat eats food".split()]), torch.tensor([w2i[w] for w in "a dog sleeps".split()])]
    logits, _ = model(test)
    for s, row in zip(test, logits.argmax(-1)):
        print([words[i] for i in s.tolist()], [tags[i] for i in row[:len(s)].tolist()])

# packed and padded runs of the same GRU agree on the valid positions; the final hidden state
# of a packed run is taken at each sequence's own last step
rnn = nn.GRU(4, 5, batch_first=True)
x = torch.rand(3, 5, 4)
lens = torch.tensor([5, 2, 3])
out_packed, h_packed = rnn(pack_padded_sequence(x, lens, batch_first=True, enforce_sorted=False))
out_packed, _ = pad_packed_sequence(out_packed, batch_first=True, total_length=5)
out_padded, _ = rnn(x)
for i, n in enumerate(lens.tolist()):
    print(i, torch.allclose(out_packed[i, :n], out_padded[i, :n], atol=1e-6),
          torch.allclose(h_packed[0, i], out_padded[i, n - 1], atol=1e-6),
          bool((out_packed[i, n:] == 0).all()))
unfrozen = Tagger(freeze=False)
logits, _ = unfrozen(sentences)
F.cross_entropy(logits.transpose(1, 2), gold, ignore_index=-1).backward()
print("padding row gets no gradient:", bool((unfrozen.embed.weight.grad[0] == 0).all()), unfrozen.embed.weight.grad.abs().sum() > 0)
