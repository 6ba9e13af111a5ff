"""The 'Language translation with nn.Transformer' tutorial on a toy task (the target is the
source reversed, with its own vocabulary offset): Seq2SeqTransformer around nn.Transformer,
TokenEmbedding scaled by sqrt(d_model), sinusoidal PositionalEncoding buffer, create_mask with
square subsequent masks and key-padding masks, pad_sequence collation, CrossEntropyLoss with
ignore_index, and greedy decoding with encode / decode."""
import math

import torch
import torch.nn as nn
from torch import Tensor
from torch.nn import Transformer
from torch.nn.utils.rnn import pad_sequence

UNK_IDX, PAD_IDX, BOS_IDX, EOS_IDX = 0, 1, 2, 3
SRC_VOCAB, TGT_VOCAB = 14, 14
DEVICE = torch.device("cpu")


class PositionalEncoding(nn.Module):
    def __init__(self, emb_size: int, dropout: float, maxlen: int = 64):
        super().__init__()
        den = torch.exp(- torch.arange(0, emb_size, 2) * math.log(10000) / emb_size)
        pos = torch.arange(0, maxlen).reshape(maxlen, 1)
        pos_embedding = torch.zeros((maxlen, emb_size))
        pos_embedding[:, 0::2] = torch.sin(pos * den)
        pos_embedding[:, 1::2] = torch.cos(pos * den)
        pos_embedding = pos_embedding.unsqueeze(-2)
        self.dropout = nn.Dropout(dropout)
        self.register_buffer("pos_embedding", pos_embedding)

    def forward(self, token_embedding: Tensor):
        return self.dropout(token_embedding + self.pos_embedding[:token_embedding.size(0), :])


class TokenEmbedding(nn.Module):
    def __init__(self, vocab_size: int, emb_size):
        super().__init__()
        self.embedding = nn.Embedding(vocab_size, emb_size)
        self.emb_size = emb_size

    def forward(self, tokens: Tensor):
        return self.embedding(tokens.long()) * math.sqrt(self.emb_size)


class Seq2SeqTransformer(nn.Module):
    def __init__(self, num_encoder_layers, num_decoder_layers, emb_size, nhead, src_vocab_size,
                 tgt_vocab_size, dim_feedforward=64, dropout=0.1):
        super().__init__()
        self.transformer = Transformer(d_model=emb_size, nhead=nhead, num_encoder_layers=num_encoder_layers,
                                       num_decoder_layers=num_decoder_layers, dim_feedforward=dim_feedforward,
                                       dropout=dropout)
        self.generator = nn.Linear(emb_size, tgt_vocab_size)
        self.src_tok_emb = TokenEmbedding(src_vocab_size, emb_size)
        self.tgt_tok_emb = TokenEmbedding(tgt_vocab_size, emb_size)
        self.positional_encoding = PositionalEncoding(emb_size, dropout=dropout)

    def forward(self, src, trg, src_mask, tgt_mask, src_padding_mask, tgt_padding_mask, memory_key_padding_mask):
        src_emb = self.positional_encoding(self.src_tok_emb(src))
        tgt_emb = self.positional_encoding(self.tgt_tok_emb(trg))
        outs = self.transformer(src_emb, tgt_emb, src_mask, tgt_mask, None,
                                src_padding_mask, tgt_padding_mask, memory_key_padding_mask)
        return self.generator(outs)

    def encode(self, src: Tensor, src_mask: Tensor):
        return self.transformer.encoder(self.positional_encoding(self.src_tok_emb(src)), src_mask)

    def decode(self, tgt: Tensor, memory: Tensor, tgt_mask: Tensor):
        return self.transformer.decoder(self.positional_encoding(self.tgt_tok_emb(tgt)), memory, tgt_mask)


def generate_square_subsequent_mask(sz):
    mask = (torch.triu(torch.ones((sz, sz), device=DEVICE)) == 1).transpose(0, 1)
    mask = mask.float().masked_fill(mask == 0, float("-inf")).masked_fill(mask == 1, float(0.0))  # noqa: UP018
    return mask


def create_mask(src, tgt):
    src_seq_len = src.shape[0]
    tgt_seq_len = tgt.shape[0]
    tgt_mask = generate_square_subsequent_mask(tgt_seq_len)
    src_mask = torch.zeros((src_seq_len, src_seq_len), device=DEVICE).type(torch.bool)
    src_padding_mask = (src == PAD_IDX).transpose(0, 1)
    tgt_padding_mask = (tgt == PAD_IDX).transpose(0, 1)
    return src_mask, tgt_mask, src_padding_mask, tgt_padding_mask


def make_pair(g):
    n = int(torch.randint(3, 7, (1,), generator=g))
    src = torch.randint(4, SRC_VOCAB, (n,), generator=g)
    tgt = src.flip(0)
    wrap = lambda t: torch.cat([torch.tensor([BOS_IDX]), t, torch.tensor([EOS_IDX])])  # noqa: E731
    return wrap(src), wrap(tgt)


def collate_fn(batch):
    src_batch, tgt_batch = zip(*batch)
    return pad_sequence(src_batch, padding_value=PAD_IDX), pad_sequence(tgt_batch, padding_value=PAD_IDX)


torch.manual_seed(0)
g = torch.Generator().manual_seed(0)
pairs = [make_pair(g) for _ in range(256)]
transformer = Seq2SeqTransformer(2, 2, 32, 4, SRC_VOCAB, TGT_VOCAB)
for p in transformer.parameters():
    if p.dim() > 1:
        nn.init.xavier_uniform_(p)
print(transformer.transformer.encoder.layers[0])
print("parameters:", sum(p.numel() for p in transformer.parameters()))
loss_fn = torch.nn.CrossEntropyLoss(ignore_index=PAD_IDX)
optimizer = torch.optim.Adam(transformer.parameters(), lr=0.001, betas=(0.9, 0.98), eps=1e-9)
src, tgt = collate_fn(pairs[:4])
print("batch", tuple(src.shape), tuple(tgt.shape))
masks = create_mask(src, tgt[:-1, :])
print([tuple(m.shape) for m in masks], masks[1][:3, :3])


def train_epoch(model, optimizer):
    model.train()
    losses = 0
    for i in range(0, len(pairs), 32):
        src, tgt = collate_fn(pairs[i:i + 32])
        tgt_input = tgt[:-1, :]
        src_mask, tgt_mask, src_padding_mask, tgt_padding_mask = create_mask(src, tgt_input)
        logits = model(src, tgt_input, src_mask, tgt_mask, src_padding_mask, tgt_padding_mask, src_padding_mask)
        optimizer.zero_grad()
        tgt_out = tgt[1:, :]
        loss = loss_fn(logits.reshape(-1, logits.shape[-1]), tgt_out.reshape(-1))
        loss.backward()
        optimizer.step()
        losses += loss.item()
    return losses / 8


for epoch in range(1, 13):
    train_loss = train_epoch(transformer, optimizer)
    if epoch % 3 == 0:
        print(f"Epoch: {epoch}, Train loss: {train_loss:.3f}")


def greedy_decode(model, src, src_mask, max_len, start_symbol):
    memory = model.encode(src, src_mask)
    ys = torch.ones(1, 1).fill_(start_symbol).type(torch.long)
    for _ in range(max_len - 1):
        tgt_mask = generate_square_subsequent_mask(ys.size(0)).type(torch.bool)
        out = model.decode(ys, memory, tgt_mask)
        out = out.transpose(0, 1)
        prob = model.generator(out[:, -1])
        _, next_word = torch.max(prob, dim=1)
        next_word = next_word.item()
        ys = torch.cat([ys, torch.ones(1, 1).type_as(src.data).fill_(next_word)], dim=0)
        if next_word == EOS_IDX:
            break
    return ys


transformer.eval()
correct = 0
for src_seq, tgt_seq in pairs[:20]:
    src = src_seq.view(-1, 1)
    num_tokens = src.shape[0]
    src_mask = (torch.zeros(num_tokens, num_tokens)).type(torch.bool)
    out = greedy_decode(transformer, src, src_mask, max_len=num_tokens + 5, start_symbol=BOS_IDX).flatten()
    correct += int(out.tolist() == tgt_seq.tolist())
print("exact reversals:", correct, "of 20")
print("example:", pairs[0][0].tolist(), "->", greedy_decode(transformer, pairs[0][0].view(-1, 1),
      torch.zeros(8, 8, dtype=torch.bool)[:len(pairs[0][0]), :len(pairs[0][0])], 12, BOS_IDX).flatten().tolist())
