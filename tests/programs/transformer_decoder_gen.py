"""An encoder-decoder nn.Transformer learns to reverse digit sequences, then decodes greedily under no_grad."""
import math

import torch
import torch.nn as nn

torch.manual_seed(3)

PAD, BOS, EOS = 0, 1, 2
VOCAB = 13  # 3 specials + digits 0-9
SEQ = 6


def make_batch(n):
    src = torch.randint(3, VOCAB, (n, SEQ))
    tgt = torch.cat([torch.full((n, 1), BOS), src.flip(1), torch.full((n, 1), EOS)], dim=1)
    return src, tgt


class PositionalEncoding(nn.Module):
    def __init__(self, d_model, max_len=64):
        super().__init__()
        position = torch.arange(max_len).unsqueeze(1)
        div_term = torch.exp(torch.arange(0, d_model, 2) * (-math.log(10000.0) / d_model))
        pe = torch.zeros(max_len, d_model)
        pe[:, 0::2] = torch.sin(position * div_term)
        pe[:, 1::2] = torch.cos(position * div_term)
        self.register_buffer("pe", pe.unsqueeze(0))

    def forward(self, x):
        return x + self.pe[:, : x.size(1)]


class Seq2SeqTransformer(nn.Module):
    def __init__(self, d_model=32, nhead=4, layers=2):
        super().__init__()
        self.d_model = d_model
        self.src_emb = nn.Embedding(VOCAB, d_model)
        self.tgt_emb = nn.Embedding(VOCAB, d_model, padding_idx=PAD)
        self.pos = PositionalEncoding(d_model)
        enc_layer = nn.TransformerEncoderLayer(d_model, nhead, 64, dropout=0.0, batch_first=True)
        dec_layer = nn.TransformerDecoderLayer(d_model, nhead, 64, dropout=0.0, batch_first=True)
        self.encoder = nn.TransformerEncoder(enc_layer, layers, enable_nested_tensor=False)
        self.decoder = nn.TransformerDecoder(dec_layer, layers)
        self.out = nn.Linear(d_model, VOCAB)

    def encode(self, src):
        return self.encoder(self.pos(self.src_emb(src) * math.sqrt(self.d_model)))

    def decode(self, tgt, memory):
        sz = tgt.size(1)
        tgt_mask = nn.Transformer.generate_square_subsequent_mask(sz)
        h = self.decoder(self.pos(self.tgt_emb(tgt) * math.sqrt(self.d_model)), memory,
                         tgt_mask=tgt_mask, tgt_is_causal=True)
        return self.out(h)

    def forward(self, src, tgt):
        return self.decode(tgt, self.encode(src))


model = Seq2SeqTransformer()
print(model.decoder.layers[0])
print("mask:\n", nn.Transformer.generate_square_subsequent_mask(4))
causal = torch.triu(torch.ones(4, 4, dtype=torch.bool), diagonal=1)
print("bool mask:\n", causal)

criterion = nn.CrossEntropyLoss(ignore_index=PAD)
optimizer = torch.optim.Adam(model.parameters(), lr=1e-3, betas=(0.9, 0.98), eps=1e-9)
for step in range(1, 31):
    src, tgt = make_batch(32)
    logits = model(src, tgt[:, :-1])
    loss = criterion(logits.reshape(-1, VOCAB), tgt[:, 1:].reshape(-1))
    optimizer.zero_grad()
    loss.backward()
    torch.nn.utils.clip_grad_norm_(model.parameters(), 1.0)
    optimizer.step()
    if step % 10 == 0:
        print(f"step {step} loss {loss.item():.4f}")


@torch.no_grad()
def greedy_decode(model, src, max_len=SEQ + 2):
    model.eval()
    memory = model.encode(src)
    ys = torch.full((src.size(0), 1), BOS, dtype=torch.long)
    for _ in range(max_len - 1):
        logits = model.decode(ys, memory)
        next_word = logits[:, -1].argmax(dim=-1, keepdim=True)
        ys = torch.cat([ys, next_word], dim=1)
        if (next_word == EOS).all():
            break
    return ys


src, tgt = make_batch(4)
out = greedy_decode(model, src)
print("decoded shape:", out.shape, "dtype:", out.dtype)
print("starts with BOS:", bool((out[:, 0] == BOS).all()))
print("token accuracy:", round((out[:, 1:SEQ + 1] == tgt[:, 1:SEQ + 1]).float().mean().item(), 3))
