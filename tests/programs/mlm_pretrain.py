"""BERT-style masked language modelling on a toy corpus: a tokenizer with special tokens, the
80/10/10 masking rule with bernoulli / randint / masked_fill / torch.where, a TransformerEncoder
with key_padding_mask, tied input / output embeddings, cross_entropy(ignore_index=-100),
accuracy on masked positions and fill-mask predictions with topk."""
import math

import torch
import torch.nn as nn
import torch.nn.functional as F
from torch.nn.utils.rnn import pad_sequence

torch.manual_seed(7)
corpus = [
    "the cat sat on the mat",
    "the dog sat on the log",
    "a cat ate the fish",
    "a dog ate the bone",
    "the bird sat on the tree",
    "a bird ate the seed",
    "the cat chased the bird",
    "the dog chased the cat",
]
specials = ["[PAD]", "[CLS]", "[SEP]", "[MASK]", "[UNK]"]
words = sorted({w for line in corpus for w in line.split()})
vocab = {w: i for i, w in enumerate(specials + words)}
itos = {i: w for w, i in vocab.items()}
PAD, CLS, SEP, MASK = (vocab[t] for t in specials[:4])
print(f"vocab size {len(vocab)}; first words {words[:5]}")


def encode(line):
    return torch.tensor([CLS] + [vocab.get(w, vocab["[UNK]"]) for w in line.split()] + [SEP])


batch = pad_sequence([encode(s) for s in corpus], batch_first=True, padding_value=PAD)
pad_mask = batch == PAD
print(batch.shape, pad_mask.sum(1).tolist())


def mask_tokens(inputs, mlm_prob=0.25):
    labels = inputs.clone()
    prob = torch.full(labels.shape, mlm_prob)
    special = (inputs == PAD) | (inputs == CLS) | (inputs == SEP)
    prob.masked_fill_(special, 0.0)
    masked = torch.bernoulli(prob).bool()
    labels[~masked] = -100
    replace = torch.bernoulli(torch.full(labels.shape, 0.8)).bool() & masked
    inputs = inputs.clone()
    inputs[replace] = MASK
    rand = torch.bernoulli(torch.full(labels.shape, 0.5)).bool() & masked & ~replace
    random_words = torch.randint(len(specials), len(vocab), labels.shape, dtype=torch.long)
    inputs = torch.where(rand, random_words, inputs)
    return inputs, labels


class PositionalEncoding(nn.Module):
    def __init__(self, d_model, max_len=32):
        super().__init__()
        position = torch.arange(max_len).unsqueeze(1)
        div_term = torch.exp(torch.arange(0, d_model, 2) * (-math.log(10000.0) / d_model))
        pe = torch.zeros(max_len, d_model)
        pe[:, 0::2] = torch.sin(position * div_term)
        pe[:, 1::2] = torch.cos(position * div_term)
        self.register_buffer("pe", pe.unsqueeze(0), persistent=False)

    def forward(self, x):
        return x + self.pe[:, : x.size(1)]


class TinyBert(nn.Module):
    def __init__(self, ntoken, d_model=32, nhead=4, nlayers=2):
        super().__init__()
        self.embed = nn.Embedding(ntoken, d_model, padding_idx=PAD)
        self.pos = PositionalEncoding(d_model)
        layer = nn.TransformerEncoderLayer(d_model, nhead, dim_feedforward=64, dropout=0.0,
                                           batch_first=True, activation="gelu", norm_first=True)
        self.encoder = nn.TransformerEncoder(layer, nlayers, enable_nested_tensor=False)
        self.norm = nn.LayerNorm(d_model)
        self.head = nn.Linear(d_model, ntoken)
        self.head.weight = self.embed.weight  # weight tying

    def forward(self, src, key_padding_mask):
        h = self.encoder(self.pos(self.embed(src) * math.sqrt(self.embed.embedding_dim)),
                         src_key_padding_mask=key_padding_mask)
        return self.head(self.norm(h))


model = TinyBert(len(vocab))
n_params = sum(p.numel() for p in model.parameters())
print(f"parameters {n_params} (tied: {model.head.weight is model.embed.weight})")
print(model.encoder.layers[0])
opt = torch.optim.AdamW(model.parameters(), lr=3e-3, weight_decay=0.01)
for step in range(60):
    inputs, labels = mask_tokens(batch)
    logits = model(inputs, pad_mask)
    loss = F.cross_entropy(logits.view(-1, len(vocab)), labels.view(-1), ignore_index=-100)
    opt.zero_grad(set_to_none=True)
    loss.backward()
    gnorm = nn.utils.clip_grad_norm_(model.parameters(), 1.0)
    opt.step()
    if step % 15 == 0:
        with torch.no_grad():
            sel = labels != -100
            acc = (logits.argmax(-1)[sel] == labels[sel]).float().mean()
        print(f"step {step} loss {loss.item():.4f} masked acc {acc.item():.3f} grad norm {gnorm:.3f} masked {int(sel.sum())}")

print("embedding row of [PAD] stays zero:", bool((model.embed.weight[PAD] == 0).all()))
model.eval()
with torch.no_grad():
    for sentence in ["the cat [MASK] on the mat", "a dog ate the [MASK]"]:
        ids = encode(sentence).unsqueeze(0)
        logits = model(ids, ids == PAD)
        pos = (ids[0] == MASK).nonzero(as_tuple=True)[0]
        probs = logits[0, pos].softmax(-1)
        top = probs.topk(3, dim=-1)
        print(sentence, "->", [itos[i] for i in top.indices[0].tolist()],
              [f"{p:.3f}" for p in top.values[0].tolist()])
