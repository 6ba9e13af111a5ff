"""A transformer-encoder text classifier: positional-encoding buffer, padding masks, AdamW, warmup."""
import math

import torch
import torch.nn as nn
from torch import Tensor


class PositionalEncoding(nn.Module):
    def __init__(self, d_model: int, dropout: float = 0.1, max_len: int = 500):
        super().__init__()
        self.dropout = nn.Dropout(p=dropout)
        position = torch.arange(max_len).unsqueeze(1)
        div_term = torch.exp(torch.arange(0, d_model, 2) * (-math.log(10000.0) / d_model))
        pe = torch.zeros(max_len, 1, d_model)
        pe[:, 0, 0::2] = torch.sin(position * div_term)
        pe[:, 0, 1::2] = torch.cos(position * div_term)
        self.register_buffer("pe", pe)

    def forward(self, x: Tensor) -> Tensor:
        x = x + self.pe[:x.size(0)]
        return self.dropout(x)


class TransformerClassifier(nn.Module):
    def __init__(self, ntoken, d_model=32, nhead=4, d_hid=64, nlayers=2, nclass=3, dropout=0.1):
        super().__init__()
        self.model_type = "Transformer"
        self.pos_encoder = PositionalEncoding(d_model, dropout)
        layer = nn.TransformerEncoderLayer(d_model, nhead, d_hid, dropout)
        self.transformer_encoder = nn.TransformerEncoder(layer, nlayers, enable_nested_tensor=False)
        self.embedding = nn.Embedding(ntoken, d_model, padding_idx=0)
        self.d_model = d_model
        self.classifier = nn.Linear(d_model, nclass)

    def forward(self, src: Tensor, pad_mask: Tensor) -> Tensor:
        src = self.embedding(src) * math.sqrt(self.d_model)
        src = self.pos_encoder(src)
        output = self.transformer_encoder(src, src_key_padding_mask=pad_mask)
        keep = (~pad_mask).T.unsqueeze(-1).float()
        pooled = (output * keep).sum(0) / keep.sum(0)
        return self.classifier(pooled)


torch.manual_seed(0)
S, B, V = 12, 16, 50
tokens = torch.randint(1, V, (S, B))
lengths = torch.randint(4, S + 1, (B,))
pad_mask = torch.arange(S).unsqueeze(1) >= lengths.unsqueeze(0)
tokens = tokens.masked_fill(pad_mask, 0)
pad_mask = pad_mask.T
labels = tokens[0] % 3
model = TransformerClassifier(V)
print(model.pos_encoder.pe.shape, [name for name, _ in model.named_buffers()])
print(sum(p.numel() for p in model.parameters() if p.requires_grad))
causal = nn.Transformer.generate_square_subsequent_mask(4)
print(causal)
optimizer = torch.optim.AdamW(model.parameters(), lr=1e-3)
scheduler = torch.optim.lr_scheduler.LambdaLR(optimizer, lambda step: min(1.0, (step + 1) / 5))
criterion = nn.CrossEntropyLoss(label_smoothing=0.1)
losses = []
for step in range(25):
    model.train()
    logits = model(tokens, pad_mask)
    loss = criterion(logits, labels)
    optimizer.zero_grad()
    loss.backward()
    torch.nn.utils.clip_grad_norm_(model.parameters(), 0.5)
    optimizer.step()
    scheduler.step()
    losses.append(loss.item())
    if step % 5 == 0:
        print(f"| step {step:3d} | lr {scheduler.get_last_lr()[0]:02.5f} | loss {loss:5.2f} | ppl {math.exp(loss):8.2f}")
print("loss decreased:", losses[-1] < losses[0])
model.eval()
with torch.no_grad():
    preds = model(tokens, pad_mask).argmax(dim=-1)
acc = (preds == labels).float().mean()
print("preds", preds.shape, preds.dtype, "acc is a", type(acc.item()).__name__)
