"""Fine-tuning habits: freezing a backbone, no-decay parameter groups, add_param_group, custom collate_fn, samplers, MultiheadAttention."""
import torch
import torch.nn as nn
from torch.nn.utils.rnn import pack_padded_sequence, pad_packed_sequence, pad_sequence
from torch.utils.data import ConcatDataset, DataLoader, Dataset, Subset, WeightedRandomSampler

torch.manual_seed(11)


class Backbone(nn.Module):
    def __init__(self, vocab=50, dim=16):
        super().__init__()
        self.embed = nn.Embedding(vocab, dim, padding_idx=0)
        self.rnn = nn.GRU(dim, dim, batch_first=True, bidirectional=True)
        self.attn = nn.MultiheadAttention(2 * dim, num_heads=2, batch_first=True)
        self.norm = nn.LayerNorm(2 * dim)

    def forward(self, tokens, lengths):
        x = self.embed(tokens)
        packed = pack_padded_sequence(x, lengths, batch_first=True, enforce_sorted=False)
        out, _ = self.rnn(packed)
        out, out_lengths = pad_packed_sequence(out, batch_first=True, total_length=tokens.size(1))
        pad = tokens == 0
        attended, weights = self.attn(out, out, out, key_padding_mask=pad)
        return self.norm(out + attended), weights


class Model(nn.Module):
    def __init__(self):
        super().__init__()
        self.backbone = Backbone()
        self.heads = nn.ModuleDict({"sentiment": nn.Linear(32, 2), "topic": nn.Linear(32, 3)})

    def forward(self, tokens, lengths, task):
        h, w = self.backbone(tokens, lengths)
        mask = (tokens != 0).unsqueeze(-1)
        pooled = (h * mask).sum(1) / mask.sum(1)
        return self.heads[task](pooled), w


class Reviews(Dataset):
    def __init__(self, n, seed):
        g = torch.Generator().manual_seed(seed)
        self.items = []
        for _ in range(n):
            length = int(torch.randint(2, 9, (1,), generator=g))
            tokens = torch.randint(1, 50, (length,), generator=g)
            label = int(tokens.float().mean() > 25)
            self.items.append((tokens, label))

    def __len__(self):
        return len(self.items)

    def __getitem__(self, i):
        return self.items[i]


def collate(batch):
    tokens, labels = zip(*batch)
    lengths = torch.tensor([len(t) for t in tokens])
    return pad_sequence(list(tokens), batch_first=True), lengths, torch.tensor(labels)


data = ConcatDataset([Reviews(60, 1), Reviews(40, 2)])
print(len(data), data.cumulative_sizes)
train, val = Subset(data, range(0, 80)), Subset(data, range(80, 100))
labels = torch.tensor([data[i][1] for i in train.indices])
counts = torch.bincount(labels, minlength=2)
print("class counts:", counts.tolist())
weights = (1.0 / counts.float())[labels]
sampler = WeightedRandomSampler(weights, num_samples=len(train), replacement=True)
loader = DataLoader(train, batch_size=16, sampler=sampler, collate_fn=collate)
tokens, lengths, y = next(iter(DataLoader(val, batch_size=4, collate_fn=collate)))
print(tokens.shape, lengths, y)

model = Model()
for p in model.backbone.parameters():
    p.requires_grad_(False)
trainable = [n for n, p in model.named_parameters() if p.requires_grad]
print("trainable:", trainable)
print("frozen params:", sum(p.numel() for p in model.parameters() if not p.requires_grad))

decay, no_decay = [], []
for name, p in model.heads.named_parameters():
    (no_decay if name.endswith("bias") else decay).append(p)
optimizer = torch.optim.AdamW([
    {"params": decay, "weight_decay": 0.01},
    {"params": no_decay, "weight_decay": 0.0},
], lr=1e-2)
print([len(g["params"]) for g in optimizer.param_groups], [g["weight_decay"] for g in optimizer.param_groups])
criterion = nn.CrossEntropyLoss()


def run_epoch(epoch):
    model.train()
    total = 0.0
    for tokens, lengths, y in loader:
        logits, _ = model(tokens, lengths, "sentiment")
        loss = criterion(logits, y)
        optimizer.zero_grad()
        loss.backward()
        optimizer.step()
        total += loss.item()
    print(f"epoch {epoch}: loss {total / len(loader):.4f}")


for epoch in range(3):
    run_epoch(epoch)
print("backbone untouched:", model.backbone.embed.weight.grad is None)

# unfreeze the backbone at a lower learning rate
for p in model.backbone.parameters():
    p.requires_grad_(True)
optimizer.add_param_group({"params": model.backbone.parameters(), "lr": 1e-3, "weight_decay": 0.0})
print(len(optimizer.param_groups), [g["lr"] for g in optimizer.param_groups])
print(sorted(optimizer.param_groups[2].keys()))
for epoch in range(3, 5):
    run_epoch(epoch)
print("backbone trained:", model.backbone.embed.weight.grad is not None)
print("padding row has no gradient:", model.backbone.embed.weight.grad[0].abs().sum().item() == 0)


@torch.no_grad()
def evaluate(task):
    model.eval()
    tokens, lengths, y = collate([val[i] for i in range(len(val))])
    logits, weights = model(tokens, lengths, task)
    return logits.shape, weights.shape, weights.sum(-1)[0, :3]


print(evaluate("sentiment"))
print(evaluate("topic")[0], torch.is_grad_enabled())
print(model.heads)
print(model.backbone.attn)
print(model.backbone.attn.in_proj_weight.shape, model.backbone.attn.out_proj)
