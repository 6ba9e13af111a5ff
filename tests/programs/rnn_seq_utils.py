"""torch.nn.utils.rnn end to end, as NLP / speech code uses it: pad_sequence (batch_first,
padding_value, padding_side='left'), pack_sequence / pack_padded_sequence with
enforce_sorted=False, the PackedSequence's fields and repr, unpack_sequence /
unpad_sequence, pad_packed_sequence with total_length, a packed 2-layer bidirectional LSTM with
proj_size and initial states, a packed GRU encoder feeding its final hidden state to a
classifier (the h_n[-2:] concatenation), PackedSequence.to(dtype), and the equality of packed
and per-sequence outputs."""
import torch
import torch.nn as nn
from torch.nn.utils.rnn import (
    PackedSequence,
    pack_padded_sequence,
    pack_sequence,
    pad_packed_sequence,
    pad_sequence,
    unpack_sequence,
    unpad_sequence,
)

torch.manual_seed(3)

seqs = [torch.tensor([1, 2, 3]), torch.tensor([4, 5, 6, 7, 8]), torch.tensor([9]), torch.tensor([10, 11])]
lengths = torch.tensor([len(s) for s in seqs])
print(pad_sequence(seqs))
print(pad_sequence(seqs, batch_first=True, padding_value=-1))
print(pad_sequence(seqs, batch_first=True, padding_side="left"))
print(pad_sequence([torch.ones(2, 3), torch.ones(1, 3) * 2], batch_first=True).shape)

packed = pack_sequence(seqs, enforce_sorted=False)
print(packed)
print(packed.data.tolist(), packed.batch_sizes.tolist(), packed.sorted_indices.tolist(), packed.unsorted_indices.tolist())
print(type(packed).__name__, isinstance(packed, tuple), packed._fields)
for s_in, s_out in zip(seqs, unpack_sequence(packed)):
    assert torch.equal(s_in, s_out)
print("unpack_sequence round trip ok")
try:
    pack_sequence(seqs)
except RuntimeError as e:
    print("RuntimeError:", e)

padded = pad_sequence(seqs, batch_first=True)
print([t.tolist() for t in unpad_sequence(padded, lengths, batch_first=True)])
pk = pack_padded_sequence(padded, lengths, batch_first=True, enforce_sorted=False)
out, out_lens = pad_packed_sequence(pk, batch_first=True, padding_value=0, total_length=7)
print(out, out_lens)
try:
    pad_packed_sequence(pk, batch_first=True, total_length=3)
except ValueError as e:
    print("ValueError:", e)
try:
    pack_padded_sequence(padded, torch.tensor([3, 5, 0, 2]), batch_first=True, enforce_sorted=False)
except RuntimeError as e:
    print("RuntimeError:", e)

# embeddings -> packed bidirectional LSTM with projections
emb = nn.Embedding(12, 6, padding_idx=0)
lstm = nn.LSTM(6, 8, num_layers=2, bidirectional=True, batch_first=True, proj_size=4)
print(lstm)
print([(n, tuple(p.shape)) for n, p in lstm.named_parameters()][:6])
x = emb(padded)
h0 = torch.zeros(2 * 2, len(seqs), 4)
c0 = torch.zeros(2 * 2, len(seqs), 8)
packed_x = pack_padded_sequence(x, lengths, batch_first=True, enforce_sorted=False)
packed_out, (h_n, c_n) = lstm(packed_x, (h0, c0))
print(type(packed_out).__name__, packed_out.data.shape, h_n.shape, c_n.shape)
unpacked, unpacked_lens = pad_packed_sequence(packed_out, batch_first=True)
print(unpacked.shape, unpacked_lens.tolist())
print("padding positions are zero:", bool((unpacked[2, 1:] == 0).all()))

# the packed result equals running each sequence alone
same = True
for i, s in enumerate(seqs):
    alone, (h_alone, _) = lstm(emb(s).unsqueeze(0))
    same &= torch.allclose(alone[0], unpacked[i, : len(s)], atol=1e-6)
    same &= torch.allclose(h_alone[:, 0], h_n[:, i], atol=1e-6)
print("packed == per-sequence:", same)

# a GRU sentence classifier on h_n
class GRUClassifier(nn.Module):
    def __init__(self, vocab=12, dim=6, hidden=8, classes=3):
        super().__init__()
        self.embedding = nn.Embedding(vocab, dim, padding_idx=0)
        self.rnn = nn.GRU(dim, hidden, num_layers=1, bidirectional=True)
        self.fc = nn.Linear(hidden * 2, classes)

    def forward(self, text, text_lengths):
        embedded = self.embedding(text)
        packed_embedded = nn.utils.rnn.pack_padded_sequence(embedded, text_lengths.to('cpu'), enforce_sorted=False)
        packed_output, hidden = self.rnn(packed_embedded)
        output, output_lengths = nn.utils.rnn.pad_packed_sequence(packed_output)
        hidden = torch.cat((hidden[-2, :, :], hidden[-1, :, :]), dim=1)
        return self.fc(hidden), output, output_lengths


clf = GRUClassifier()
logits, output, output_lengths = clf(pad_sequence(seqs), lengths)
print(logits.shape, output.shape, output_lengths.tolist())
loss = nn.functional.cross_entropy(logits, torch.tensor([0, 1, 2, 1]))
loss.backward()
print(loss.grad_fn.name(), clf.embedding.weight.grad[0].abs().sum().item(), clf.rnn.weight_hh_l0_reverse.grad.shape)

# PackedSequence conversions
pf = pack_sequence([torch.randn(3, 2), torch.randn(2, 2)])
print(pf.data.dtype, pf.to(torch.float64).data.dtype, pf.double().batch_sizes, pf.is_cuda, pf.is_pinned())
print(PackedSequence(pf.data, pf.batch_sizes).sorted_indices)
rnn = nn.RNN(2, 3, nonlinearity="relu")
o, h = rnn(pf)
print(type(o).__name__, o.data.shape, h.shape)
