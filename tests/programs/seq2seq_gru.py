"""A seq2seq GRU encoder/decoder trained to reverse sequences, with teacher forcing."""
import random

import torch
import torch.nn as nn
import torch.nn.functional as F

random.seed(0)
torch.manual_seed(0)
SOS, EOS, VOCAB, MAXLEN = 0, 1, 12, 6


class EncoderRNN(nn.Module):
    def __init__(self, input_size, hidden_size, dropout_p=0.1):
        super().__init__()
        self.embedding = nn.Embedding(input_size, hidden_size)
        self.gru = nn.GRU(hidden_size, hidden_size, batch_first=True)
        self.dropout = nn.Dropout(dropout_p)

    def forward(self, input):
        embedded = self.dropout(self.embedding(input))
        return self.gru(embedded)


class DecoderRNN(nn.Module):
    def __init__(self, hidden_size, output_size):
        super().__init__()
        self.embedding = nn.Embedding(output_size, hidden_size)
        self.gru = nn.GRU(hidden_size, hidden_size, batch_first=True)
        self.out = nn.Linear(hidden_size, output_size)

    def forward(self, encoder_outputs, encoder_hidden, target_tensor=None):
        batch_size = encoder_outputs.size(0)
        decoder_input = torch.empty(batch_size, 1, dtype=torch.long).fill_(SOS)
        decoder_hidden = encoder_hidden
        decoder_outputs = []
        for i in range(MAXLEN):
            output = F.relu(self.embedding(decoder_input))
            output, decoder_hidden = self.gru(output, decoder_hidden)
            output = self.out(output)
            decoder_outputs.append(output)
            if target_tensor is not None and random.random() < 0.5:
                decoder_input = target_tensor[:, i].unsqueeze(1)  # teacher forcing
            else:
                _, topi = output.topk(1)
                decoder_input = topi.squeeze(-1).detach()
        decoder_outputs = torch.cat(decoder_outputs, dim=1)
        return F.log_softmax(decoder_outputs, dim=-1), decoder_hidden, None


src = torch.randint(2, VOCAB, (32, MAXLEN - 1))
tgt = torch.cat([src.flip(1), torch.full((32, 1), EOS, dtype=torch.long)], dim=1)
encoder, decoder = EncoderRNN(VOCAB, 24), DecoderRNN(24, VOCAB)
enc_opt = torch.optim.Adam(encoder.parameters(), lr=0.01)
dec_opt = torch.optim.Adam(decoder.parameters(), lr=0.01)
criterion = nn.NLLLoss()
losses = []
for epoch in range(1, 31):
    enc_opt.zero_grad()
    dec_opt.zero_grad()
    encoder_outputs, encoder_hidden = encoder(src)
    decoder_outputs, _, _ = decoder(encoder_outputs, encoder_hidden, tgt)
    loss = criterion(decoder_outputs.view(-1, decoder_outputs.size(-1)), tgt.view(-1))
    loss.backward()
    enc_opt.step()
    dec_opt.step()
    losses.append(loss.item())
    if epoch % 10 == 0:
        print(f"epoch {epoch} loss {loss.item():.4f}")
print("encoder outputs", encoder_outputs.shape, "hidden", encoder_hidden.shape)
print("loss decreased:", losses[-1] < losses[0])
encoder.eval()
decoder.eval()
with torch.no_grad():
    out, hidden = encoder(src[:2])
    dec, _, _ = decoder(out, hidden)
    _, topi = dec.topk(1)
    print("decoded", topi.squeeze().shape, topi.dtype)
