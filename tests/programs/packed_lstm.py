"""A bidirectional LSTM tagger on padded, packed variable-length batches (pack_padded_sequence with
enforce_sorted=False), masked loss with ignore_index, MultiStepLR, and printed state_dict shapes."""
import torch
import torch.nn as nn
from torch.nn.utils.rnn import pack_padded_sequence, pad_packed_sequence, pad_sequence

torch.manual_seed(0)
PAD = 0


class Tagger(nn.Module):
    def __init__(self, vocab, tags, emb=12, hidden=16):
        super().__init__()
        self.emb = nn.Embedding(vocab, emb, padding_idx=PAD)
        self.rnn = nn.LSTM(emb, hidden, batch_first=True, bidirectional=True)
        self.out = nn.Linear(2 * hidden, tags)

    def forward(self, x, lengths):
        packed = pack_padded_sequence(self.emb(x), lengths.cpu(), batch_first=True, enforce_sorted=False)
        out, (h_n, c_n) = self.rnn(packed)
        out, out_lengths = pad_packed_sequence(out, batch_first=True, total_length=x.size(1))
        return self.out(out), out_lengths, h_n


seqs = [torch.tensor([(i * 7 + j * 3) % 9 + 1 for j in range(3 + i % 6)]) for i in range(24)]
tags = [s % 3 for s in seqs]
lengths = torch.tensor([len(s) for s in seqs])
x = pad_sequence(seqs, batch_first=True, padding_value=PAD)
y = pad_sequence(tags, batch_first=True, padding_value=-100)
print(x.shape, y.shape, lengths[:6])
packed = pack_padded_sequence(torch.zeros(3, 4, 1), torch.tensor([2, 4, 1]), batch_first=True, enforce_sorted=False)
print(packed.batch_sizes, packed.sorted_indices, packed.unsorted_indices)
model = Tagger(10, 3)
for k, v in model.state_dict().items():
    print(k, tuple(v.shape))
criterion = nn.CrossEntropyLoss(ignore_index=-100)
optimizer = torch.optim.Adam(model.parameters(), lr=0.02)
scheduler = torch.optim.lr_scheduler.MultiStepLR(optimizer, milestones=[10, 20], gamma=0.1)
first = None
for _ in range(30):
    logits, out_lengths, h_n = model(x, lengths)
    loss = criterion(logits.reshape(-1, 3), y.reshape(-1))
    optimizer.zero_grad()
    loss.backward()
    optimizer.step()
    scheduler.step()
    first = loss.item() if first is None else first
print("lengths back:", torch.equal(out_lengths, lengths), "h_n", tuple(h_n.shape))
print("loss decreased:", loss.item() < first, "lr", scheduler.get_last_lr())
with torch.no_grad():
    pred = logits.argmax(-1)
    mask = y != -100
    acc = (pred[mask] == y[mask]).float().mean().item()
print("masked positions:", int(mask.sum()), "accuracy above 0.5:", acc > 0.5)
print(model.emb.weight[PAD].abs().sum().item(), model.emb.weight.grad[PAD].abs().sum().item())
