"""Metric learning with a PK batch sampler (the person re-id / FaceNet recipe): a custom
Sampler yielding index lists used as DataLoader(batch_sampler=...), batch-hard triplet mining
with masks over torch.cdist, nn.TripletMarginLoss and TripletMarginWithDistanceLoss with a
cosine distance, SubsetRandomSampler / SequentialSampler / BatchSampler, a custom collate_fn
returning a dict, and recall@1 on held-out classes."""
import random
from collections import defaultdict

import torch
import torch.nn as nn
import torch.nn.functional as F
from torch.utils.data import BatchSampler, DataLoader, Dataset, Sampler, SequentialSampler, SubsetRandomSampler


class Points(Dataset):
    def __init__(self, n_classes, per_class, dim, generator):
        self.centers = torch.randn(n_classes, dim, generator=generator) * 2
        self.labels = torch.arange(n_classes).repeat_interleave(per_class)
        self.data = self.centers[self.labels] + torch.randn(len(self.labels), dim, generator=generator)

    def __len__(self):
        return len(self.labels)

    def __getitem__(self, i):
        return {"x": self.data[i], "label": int(self.labels[i]), "index": i}


class PKSampler(Sampler):
    """P classes times K samples per batch."""

    def __init__(self, labels, p, k, seed=0):
        self.by_class = defaultdict(list)
        for i, label in enumerate(labels):
            self.by_class[int(label)].append(i)
        self.p, self.k = p, k
        self.rng = random.Random(seed)

    def __iter__(self):
        classes = list(self.by_class)
        self.rng.shuffle(classes)
        for start in range(0, len(classes) - self.p + 1, self.p):
            batch = []
            for c in classes[start:start + self.p]:
                batch.extend(self.rng.sample(self.by_class[c], self.k))
            yield batch

    def __len__(self):
        return len(self.by_class) // self.p


def collate(items):
    return {"x": torch.stack([it["x"] for it in items]),
            "label": torch.tensor([it["label"] for it in items]),
            "index": [it["index"] for it in items]}


def batch_hard_triplet(emb, labels, margin):
    dist = torch.cdist(emb, emb)
    same = labels[:, None] == labels[None, :]
    eye = torch.eye(len(labels), dtype=torch.bool)
    hardest_pos = dist.masked_fill(~same | eye, float("-inf")).max(1).values
    hardest_neg = dist.masked_fill(same, float("inf")).min(1).values
    return F.relu(hardest_pos - hardest_neg + margin).mean(), (hardest_pos < hardest_neg).float().mean()


g = torch.Generator().manual_seed(0)
train_set = Points(12, 10, 8, g)
test_set = Points(4, 10, 8, g)
sampler = PKSampler(train_set.labels, p=4, k=4, seed=0)
loader = DataLoader(train_set, batch_sampler=sampler, collate_fn=collate)
first = next(iter(loader))
print("batch keys", sorted(first), tuple(first["x"].shape), first["label"].tolist())
print("batches per epoch", len(loader))

torch.manual_seed(0)
net = nn.Sequential(nn.Linear(8, 32), nn.ReLU(), nn.Linear(32, 16))
opt = torch.optim.Adam(net.parameters(), lr=5e-3)
triplet = nn.TripletMarginLoss(margin=0.5, p=2)
cos_triplet = nn.TripletMarginWithDistanceLoss(
    distance_function=lambda a, b: 1.0 - F.cosine_similarity(a, b), margin=0.2, swap=True)
print(triplet, cos_triplet)
for epoch in range(8):
    total, frac = 0.0, 0.0
    for batch in loader:
        emb = F.normalize(net(batch["x"]), dim=1)
        loss, correct = batch_hard_triplet(emb, batch["label"], margin=0.3)
        # random triplets for the two built-in losses
        a, p_, n_ = emb[0::4], emb[1::4], emb[2::4].roll(1, 0)
        loss = loss + 0.5 * triplet(a, p_, n_) + 0.5 * cos_triplet(a, p_, n_)
        opt.zero_grad()
        loss.backward()
        opt.step()
        total += loss.item()
        frac += correct.item()
    print(f"epoch {epoch} loss {total / len(loader):.4f} hard-pos<hard-neg {frac / len(loader):.3f}")

# evaluation on unseen classes: recall@1 of nearest neighbours
net.eval()
with torch.no_grad():
    emb = F.normalize(net(test_set.data), dim=1)
    d = torch.cdist(emb, emb).fill_diagonal_(float("inf"))
    nn_idx = d.argmin(1)
    recall = (test_set.labels[nn_idx] == test_set.labels).float().mean()
print(f"recall@1 {recall.item():.3f}")

# the other samplers
torch.manual_seed(3)
print(list(BatchSampler(SequentialSampler(range(10)), batch_size=4, drop_last=False)))
print(list(BatchSampler(range(10), batch_size=4, drop_last=True)))
sub = SubsetRandomSampler([1, 3, 5, 7, 9], generator=torch.Generator().manual_seed(1))
print(len(sub), list(sub))
loader = DataLoader(test_set, sampler=sub, batch_size=2, collate_fn=collate)
print([b["index"] for b in loader])
print("pairwise_distance", F.pairwise_distance(torch.ones(2, 3), torch.zeros(2, 3)), F.triplet_margin_loss(
    torch.zeros(2, 3), torch.ones(2, 3), torch.ones(2, 3) * 2, margin=1.0, reduction="none"))
