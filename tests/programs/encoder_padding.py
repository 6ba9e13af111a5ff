"""A Transformer-encoder sentence classifier: padded batches, src_key_padding_mask, masked mean pooling, Noam warmup via LambdaLR."""
import math

import torch
import torch.nn as nn
from torch.nn.utils.rnn import pad_sequence

torch.manual_seed(123)
PAD = 0
VOCAB = 30


class PositionalEncoding(nn.Module):
    def __init__(self, d_model, dropout=0.1, max_len=64):
        super().__init__()
        self.dropout = nn.Dropout(p=dropout)
        position = torch.arange(max_len).unsqueeze(1)
        div_term = torch.exp(torch.arange(0, d_model, 2) * (-math.log(10000.0) / d_model))
        pe = torch.zeros(max_len, 1, d_model)
        pe[:, 0, 0::2] = torch.sin(position * div_term)
        pe[:, 0, 1::2] = torch.cos(position * div_term)
        self.register_buffer('pe', pe.transpose(0, 1))

    def forward(self, x):
        x = x + self.pe[:, :x.size(1)]
        return self.dropout(x)


class Classifier(nn.Module):
    def __init__(self, d_model=32, nhead=4, layers=2, n_classes=2):
        super().__init__()
        self.d_model = d_model
        self.embed = nn.Embedding(VOCAB, d_model, padding_idx=PAD)
        self.pos = PositionalEncoding(d_model)
        layer = nn.TransformerEncoderLayer(d_model, nhead, dim_feedforward=64, dropout=0.1,
                                           batch_first=True, norm_first=True, activation="gelu")
        self.encoder = nn.TransformerEncoder(layer, layers, enable_nested_tensor=False)
        self.head = nn.Linear(d_model, n_classes)

    def forward(self, tokens):
        pad_mask = tokens == PAD
        x = self.pos(self.embed(tokens) * math.sqrt(self.d_model))
        x = self.encoder(x, src_key_padding_mask=pad_mask)
        keep = (~pad_mask).unsqueeze(-1).float()
        pooled = (x * keep).sum(1) / keep.sum(1).clamp(min=1)
        return self.head(pooled)


def make_example():
    length = int(torch.randint(3, 12, (1,)))
    seq = torch.randint(1, VOCAB, (length,))
    label = int((seq == 7).any())  # does the sentence contain token 7?
    return seq, label


examples = [make_example() for _ in range(256)]
print("positives:", sum(label for _, label in examples))
seqs = [s for s, _ in examples]
padded = pad_sequence(seqs[:3], batch_first=True, padding_value=PAD)
print(padded.shape)
print(padded)
print(padded == PAD)

model = Classifier()
print(model.encoder.layers[0])
print("parameters:", sum(p.numel() for p in model.parameters()))
optimizer = torch.optim.Adam(model.parameters(), lr=1.0, betas=(0.9, 0.98), eps=1e-9)
warmup = 20


def noam(step):
    step = max(step, 1)
    return 32 ** -0.5 * min(step ** -0.5, step * warmup ** -1.5)


scheduler = torch.optim.lr_scheduler.LambdaLR(optimizer, lr_lambda=noam)
print(f"lr at step 0: {optimizer.param_groups[0]['lr']:.6f}")
criterion = nn.CrossEntropyLoss()
step = 0
for epoch in range(4):
    model.train()
    perm = torch.randperm(len(examples)).tolist()
    total, correct, seen = 0.0, 0, 0
    for i in range(0, len(perm), 32):
        batch = [examples[j] for j in perm[i:i + 32]]
        tokens = pad_sequence([s for s, _ in batch], batch_first=True, padding_value=PAD)
        labels = torch.tensor([label for _, label in batch])
        logits = model(tokens)
        loss = criterion(logits, labels)
        optimizer.zero_grad()
        loss.backward()
        nn.utils.clip_grad_norm_(model.parameters(), 1.0)
        optimizer.step()
        scheduler.step()
        step += 1
        total += loss.item() * len(batch)
        correct += (logits.argmax(-1) == labels).sum().item()
        seen += len(batch)
    print(f"| epoch {epoch} | step {step:3d} | lr {scheduler.get_last_lr()[0]:.2e} "
          f"| loss {total / seen:.3f} | acc {correct / seen:.3f}")

model.eval()
with torch.no_grad():
    tokens = pad_sequence([s for s, _ in examples[:4]], batch_first=True)
    longer = torch.cat([tokens, torch.zeros(4, 5, dtype=torch.long)], dim=1)
    a, b = model(tokens), model(longer)
    print("extra padding changes nothing:", torch.allclose(a, b, atol=1e-5))
    probs = a.softmax(-1)
    print(probs.shape, probs.sum(-1))
    mask = nn.Transformer.generate_square_subsequent_mask(4)
    print(mask)
