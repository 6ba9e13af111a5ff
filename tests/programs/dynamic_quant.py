"""The dynamic quantization tutorial (LSTM word language model / BERT recipe): quantize_dynamic
with {nn.LSTM, nn.Linear} to qint8, the quantized modules' reprs, the saved model size, the
quantized model's outputs against the float model's, and per-tensor quantize / dequantize."""
import io

import torch
import torch.ao.quantization
import torch.nn as nn


class LSTMModel(nn.Module):
    def __init__(self, ntoken=50, ninp=32, nhid=64, nlayers=2):
        super().__init__()
        self.encoder = nn.Embedding(ntoken, ninp)
        self.rnn = nn.LSTM(ninp, nhid, nlayers)
        self.decoder = nn.Linear(nhid, ntoken)

    def forward(self, input, hidden):
        output, hidden = self.rnn(self.encoder(input), hidden)
        return self.decoder(output), hidden

    def init_hidden(self, bsz):
        weight = next(self.parameters())
        return (weight.new_zeros(2, bsz, 64), weight.new_zeros(2, bsz, 64))


def model_size(model):
    buffer = io.BytesIO()
    torch.save(model.state_dict(), buffer)
    return buffer.tell()


torch.manual_seed(0)
model = LSTMModel().eval()
quantized = torch.ao.quantization.quantize_dynamic(model, {nn.LSTM, nn.Linear}, dtype=torch.qint8)
print(quantized)
print("size ratio above 2.5:", model_size(model) / model_size(quantized) > 2.5)
inp = torch.randint(0, 50, (12, 3))
with torch.no_grad():
    ref, _ = model(inp, model.init_hidden(3))
    out, _ = quantized(inp, quantized.init_hidden(3))
print("output", out.shape, "max abs diff below 0.05:", (out - ref).abs().max().item() < 0.05)
print("same argmax share above 0.9:", (out.argmax(-1) == ref.argmax(-1)).float().mean().item() > 0.9)

x = torch.tensor([-1.0, 0.0, 0.5, 2.0])
q = torch.quantize_per_tensor(x, scale=0.1, zero_point=10, dtype=torch.quint8)
print(q)
print(q.int_repr(), q.dequantize(), q.q_scale(), q.q_zero_point(), q.dtype)
