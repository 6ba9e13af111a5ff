"""A character-level LSTM language model: Embedding + LSTM + Linear, gradient clipping, sampling."""
import torch
import torch.nn as nn

torch.manual_seed(0)
text = "hello world, this is a tiny corpus for a tiny char model. " * 8
chars = sorted(set(text))
stoi = {c: i for i, c in enumerate(chars)}
itos = {i: c for c, i in stoi.items()}
data = torch.tensor([stoi[c] for c in text], dtype=torch.long)
print(f"vocab size {len(chars)}, data {data.shape} {data.dtype}")


class CharLSTM(nn.Module):
    def __init__(self, vocab, emb=16, hidden=32, layers=2):
        super().__init__()
        self.embed = nn.Embedding(vocab, emb)
        self.lstm = nn.LSTM(emb, hidden, num_layers=layers, batch_first=True, dropout=0.1)
        self.fc = nn.Linear(hidden, vocab)

    def forward(self, x, hidden=None):
        out, hidden = self.lstm(self.embed(x), hidden)
        return self.fc(out), hidden


model = CharLSTM(len(chars))
print(model)
optimizer = torch.optim.Adam(model.parameters(), lr=0.01)
criterion = nn.CrossEntropyLoss()
seq_len, batch = 20, 8
losses = []
for step in range(40):
    starts = torch.randint(0, len(data) - seq_len - 1, (batch,))
    x = torch.stack([data[s:s + seq_len] for s in starts])
    y = torch.stack([data[s + 1:s + seq_len + 1] for s in starts])
    logits, (h, c) = model(x)
    loss = criterion(logits.view(-1, len(chars)), y.view(-1))
    optimizer.zero_grad()
    loss.backward()
    norm = torch.nn.utils.clip_grad_norm_(model.parameters(), max_norm=1.0)
    optimizer.step()
    losses.append(loss.item())
    if step % 10 == 0:
        print(f"step {step} loss {loss.item():.4f} grad norm {norm:.3f}")
print("h", tuple(h.shape), "c", tuple(c.shape))
print("loss decreased:", sum(losses[-5:]) < sum(losses[:5]))

model.eval()
with torch.no_grad():
    idx = torch.tensor([[stoi["h"]]])
    hidden = None
    out = "h"
    for _ in range(20):
        logits, hidden = model(idx, hidden)
        probs = torch.softmax(logits[:, -1] / 0.8, dim=-1)
        nxt = torch.multinomial(probs, num_samples=1)
        out += itos[nxt.item()]
        idx = nxt
print("sample length", len(out), "type", type(hidden).__name__)
