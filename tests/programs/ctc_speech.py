"""A toy speech recognizer trained with CTC (the DeepSpeech-style recipe): Conv1d front end,
bidirectional GRU, log_softmax over (T, N, C), nn.CTCLoss with variable input and target
lengths, greedy CTC decoding and a character error rate."""
import torch
import torch.nn as nn
import torch.nn.functional as F

torch.manual_seed(0)
VOCAB = ["_", "a", "b", "c", "d"]  # index 0 is the CTC blank
N_MELS = 12


def make_utterance(label, frames_per_char=4):
    # each character is a noisy template held for a few frames
    feats = [templates[c].repeat(frames_per_char, 1) for c in label]
    x = torch.cat(feats) + 0.3 * torch.randn(len(label) * frames_per_char, N_MELS)
    return x


templates = {c: torch.randn(N_MELS) for c in range(1, len(VOCAB))}
utterances = []
for _ in range(24):
    length = int(torch.randint(2, 6, (1,)))
    label = torch.randint(1, len(VOCAB), (length,)).tolist()
    utterances.append((make_utterance(label), label))


def collate(batch):
    feats = nn.utils.rnn.pad_sequence([b[0] for b in batch], batch_first=True)
    input_lengths = torch.tensor([len(b[0]) for b in batch])
    targets = torch.cat([torch.tensor(b[1]) for b in batch])
    target_lengths = torch.tensor([len(b[1]) for b in batch])
    return feats, targets, input_lengths, target_lengths


class SpeechModel(nn.Module):
    def __init__(self, n_class):
        super().__init__()
        self.conv = nn.Conv1d(N_MELS, 32, kernel_size=3, padding=1)
        self.rnn = nn.GRU(32, 24, batch_first=True, bidirectional=True)
        self.fc = nn.Linear(48, n_class)

    def forward(self, x):
        x = F.relu(self.conv(x.transpose(1, 2))).transpose(1, 2)
        x, _ = self.rnn(x)
        return self.fc(x)


def greedy_decode(log_probs, lengths):
    best = log_probs.argmax(-1)
    results = []
    for seq, n in zip(best, lengths):
        seq = torch.unique_consecutive(seq[:n]).tolist()
        results.append([s for s in seq if s != 0])
    return results


def edit_distance(a, b):
    d = list(range(len(b) + 1))
    for i in range(1, len(a) + 1):
        prev, d[0] = d[0], i
        for j in range(1, len(b) + 1):
            prev, d[j] = d[j], min(d[j] + 1, d[j - 1] + 1, prev + (a[i - 1] != b[j - 1]))
    return d[len(b)]


model = SpeechModel(len(VOCAB))
ctc = nn.CTCLoss(blank=0, zero_infinity=True)
print(ctc)
optimizer = torch.optim.Adam(model.parameters(), lr=5e-3)
feats, targets, in_lens, tgt_lens = collate(utterances[:4])
print("batch", tuple(feats.shape), "targets", tuple(targets.shape), in_lens.tolist(), tgt_lens.tolist())

for epoch in range(15):
    total = 0.0
    for i in range(0, len(utterances), 8):
        feats, targets, in_lens, tgt_lens = collate(utterances[i:i + 8])
        log_probs = F.log_softmax(model(feats), dim=-1).transpose(0, 1)  # (T, N, C)
        loss = ctc(log_probs, targets, in_lens, tgt_lens)
        optimizer.zero_grad()
        loss.backward()
        nn.utils.clip_grad_norm_(model.parameters(), 5.0)
        optimizer.step()
        total += loss.item()
    if epoch % 3 == 2:
        print(f"epoch {epoch + 1} ctc loss {total / 3:.4f}")

model.eval()
with torch.no_grad():
    feats, targets, in_lens, tgt_lens = collate(utterances)
    log_probs = F.log_softmax(model(feats), dim=-1)
    decoded = greedy_decode(log_probs, in_lens)
labels = [u[1] for u in utterances]
errors = sum(edit_distance(d, ref) for d, ref in zip(decoded, labels))
print(f"CER {errors / sum(len(ref) for ref in labels):.3f}")
for d, ref in list(zip(decoded, labels))[:3]:
    print("ref", "".join(VOCAB[c] for c in ref), "hyp", "".join(VOCAB[c] for c in d))

# the functional form, reduction modes and the gradient w.r.t. log_probs
torch.manual_seed(1)
lp = torch.randn(6, 2, 4).log_softmax(2).detach().requires_grad_()
tg = torch.tensor([[1, 2, 2], [3, 1, 0]])
for reduction in ["none", "sum", "mean"]:
    out = F.ctc_loss(lp, tg, torch.tensor([6, 5]), torch.tensor([3, 2]), reduction=reduction)
    print(reduction, out)
out.backward()
print(lp.grad[:, 0])
print("impossible alignment:", F.ctc_loss(lp, tg, torch.tensor([2, 5]), torch.tensor([3, 2]),
                                           reduction="none"))
