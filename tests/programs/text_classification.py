"""The text-classification tutorial's model (EmbeddingBag over offsets, a collate_batch building
them), SGD with StepLR, gradient clipping, a train/evaluate loop over a ConcatDataset and Subsets."""
# Written as the tutorial it imitates writes it:
# ruff: noqa: B007
import time

import torch
from torch import nn
from torch.utils.data import ConcatDataset, DataLoader, Dataset, Subset

torch.manual_seed(0)


class Lines(Dataset):
    def __init__(self, offset, n):
        self.items = [((i + offset) % 4, [(i * 5 + k + offset) % 30 + (i + offset) % 4 * 30 for k in range(2 + i % 7)])
                      for i in range(n)]

    def __len__(self):
        return len(self.items)

    def __getitem__(self, idx):
        return self.items[idx]


def collate_batch(batch):
    label_list, text_list, offsets = [], [], [0]
    for _label, _text in batch:
        label_list.append(_label)
        processed_text = torch.tensor(_text, dtype=torch.int64)
        text_list.append(processed_text)
        offsets.append(processed_text.size(0))
    label_list = torch.tensor(label_list, dtype=torch.int64)
    offsets = torch.tensor(offsets[:-1]).cumsum(dim=0)
    text_list = torch.cat(text_list)
    return label_list, text_list, offsets


class TextClassificationModel(nn.Module):
    def __init__(self, vocab_size, embed_dim, num_class):
        super().__init__()
        self.embedding = nn.EmbeddingBag(vocab_size, embed_dim, sparse=False)
        self.fc = nn.Linear(embed_dim, num_class)
        self.init_weights()

    def init_weights(self):
        initrange = 0.5
        self.embedding.weight.data.uniform_(-initrange, initrange)
        self.fc.weight.data.uniform_(-initrange, initrange)
        self.fc.bias.data.zero_()

    def forward(self, text, offsets):
        return self.fc(self.embedding(text, offsets))


data = ConcatDataset([Lines(0, 100), Lines(1, 60)])
train = Subset(data, range(0, 140))
valid = Subset(data, range(140, 160))
print(len(data), len(train), len(valid), data.cumulative_sizes)
train_dataloader = DataLoader(train, batch_size=16, shuffle=False, collate_fn=collate_batch)
valid_dataloader = DataLoader(valid, batch_size=16, shuffle=False, collate_fn=collate_batch)
model = TextClassificationModel(120, 16, 4)
print(model)
criterion = torch.nn.CrossEntropyLoss()
optimizer = torch.optim.SGD(model.parameters(), lr=5)
scheduler = torch.optim.lr_scheduler.StepLR(optimizer, 1.0, gamma=0.1)


def train_epoch(dataloader):
    model.train()
    total_acc, total_count = 0, 0
    for idx, (label, text, offsets) in enumerate(dataloader):
        optimizer.zero_grad()
        predicted_label = model(text, offsets)
        loss = criterion(predicted_label, label)
        loss.backward()
        torch.nn.utils.clip_grad_norm_(model.parameters(), 0.1)
        optimizer.step()
        total_acc += (predicted_label.argmax(1) == label).sum().item()
        total_count += label.size(0)
    return total_acc / total_count


def evaluate(dataloader):
    model.eval()
    total_acc, total_count = 0, 0
    with torch.no_grad():
        for idx, (label, text, offsets) in enumerate(dataloader):
            predicted_label = model(text, offsets)
            total_acc += (predicted_label.argmax(1) == label).sum().item()
            total_count += label.size(0)
    return total_acc / total_count


total_accu = None
for epoch in range(1, 6):
    epoch_start_time = time.time()
    train_epoch(train_dataloader)
    accu_val = evaluate(valid_dataloader)
    if total_accu is not None and total_accu > accu_val:
        scheduler.step()
    else:
        total_accu = accu_val
    print("-" * 59)
    print(f"| end of epoch {epoch:3d} | valid accuracy {accu_val:8.3f} ")
print("learned:", total_accu > 0.5, optimizer.param_groups[0]["lr"] <= 5)
label, text, offsets = collate_batch([data[0], data[1]])
print(label, text, offsets)
