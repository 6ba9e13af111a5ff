"""torch.utils.data's samplers and datasets as training scripts combine them: Sequential /
Random (with replacement, num_samples, a generator) / SubsetRandom / WeightedRandom / Batch
samplers, DistributedSampler with explicit num_replicas and rank (and set_epoch), random_split
by counts and by fractions, Subset, ConcatDataset, ChainDataset, StackDataset, a dict-returning
Dataset through default_collate, drop_last, a collate_fn that pads, num_workers=2 with a
generator, and len() of everything."""
import torch
from torch.nn.utils.rnn import pad_sequence
from torch.utils.data import (BatchSampler, ChainDataset, ConcatDataset, DataLoader, Dataset,
                              DistributedSampler, IterableDataset, RandomSampler,
                              SequentialSampler, StackDataset, Subset, SubsetRandomSampler,
                              TensorDataset, WeightedRandomSampler, default_collate,
                              random_split)

torch.manual_seed(0)
ds = TensorDataset(torch.arange(10).float().unsqueeze(1), torch.arange(10) % 3)
print(len(ds), ds[3])

print(list(SequentialSampler(ds)))
g = torch.Generator().manual_seed(1)
print(list(RandomSampler(ds, generator=g)))
g = torch.Generator().manual_seed(1)
rs = RandomSampler(ds, replacement=True, num_samples=15, generator=g)
print(len(rs), list(rs))
g = torch.Generator().manual_seed(2)
print(list(SubsetRandomSampler([1, 3, 5, 7], generator=g)))
g = torch.Generator().manual_seed(3)
ws = WeightedRandomSampler([0.1, 0.9, 0.0, 2.0], num_samples=12, replacement=True, generator=g)
print(len(ws), list(ws))
g = torch.Generator().manual_seed(3)
print(list(WeightedRandomSampler(torch.tensor([1., 2., 3., 4.]), 4, replacement=False, generator=g)))
print(list(BatchSampler(SequentialSampler(range(10)), batch_size=3, drop_last=False)))
print(list(BatchSampler(range(10), batch_size=3, drop_last=True)), len(BatchSampler(range(10), 3, True)))

for rank in range(3):
    s = DistributedSampler(ds, num_replicas=3, rank=rank, shuffle=False)
    print("rank", rank, len(s), list(s))
s = DistributedSampler(ds, num_replicas=2, rank=1, shuffle=True, seed=7)
print(list(s))
s.set_epoch(1)
print(list(s))
s = DistributedSampler(ds, num_replicas=4, rank=3, drop_last=True)
print(len(s), s.total_size, s.num_samples)
try:
    DistributedSampler(ds, num_replicas=2, rank=2)
except ValueError as e:
    print("ValueError:", e)

g = torch.Generator().manual_seed(42)
train, val, test = random_split(range(10), [6, 3, 1], generator=g)
print(type(train).__name__, list(train), list(val), list(test), train.indices)
g = torch.Generator().manual_seed(42)
parts = random_split(range(11), [0.5, 0.3, 0.2], generator=g)
print([len(p) for p in parts], [list(p) for p in parts])
try:
    random_split(range(10), [5, 4])
except ValueError as e:
    print("ValueError:", e)

sub = Subset(ds, [9, 0, 4])
print(len(sub), sub[0], [int(y) for _, y in sub])
cat = ConcatDataset([ds, sub])
print(len(cat), cat.cumulative_sizes, cat[10], cat[-1])


class Count(IterableDataset):
    def __init__(self, a, b):
        self.a, self.b = a, b

    def __iter__(self):
        return iter(range(self.a, self.b))


print(list(ChainDataset([Count(0, 3), Count(10, 12)])))
stack = StackDataset(ds, torch.arange(100, 110))
print(len(stack), stack[2])
named = StackDataset(x=torch.arange(5), y=torch.arange(5) * 10)
print(named[4])
print(next(iter(DataLoader(named, batch_size=5))))


class Records(Dataset):
    def __init__(self):
        self.texts = [[1, 2, 3], [4], [5, 6], [7, 8, 9, 10], [11]]

    def __len__(self):
        return len(self.texts)

    def __getitem__(self, i):
        return {"ids": torch.tensor(self.texts[i]), "label": i % 2, "name": f"r{i}", "score": 0.5 * i}


print(Records()[2])
print(default_collate([{"a": 1, "b": torch.tensor([1.0])}, {"a": 2, "b": torch.tensor([2.0])}]))
print(default_collate([(1, 2.0, "x"), (3, 4.0, "y")]))
try:
    default_collate([Records()[0], Records()[3]])
except RuntimeError as e:
    print("RuntimeError:", str(e)[:70])


def pad_collate(batch):
    ids = pad_sequence([b["ids"] for b in batch], batch_first=True, padding_value=0)
    lengths = torch.tensor([len(b["ids"]) for b in batch])
    labels = torch.tensor([b["label"] for b in batch])
    return ids, lengths, labels, [b["name"] for b in batch]


for ids, lengths, labels, names in DataLoader(Records(), batch_size=2, collate_fn=pad_collate):
    print(ids.tolist(), lengths, labels, names)

loader = DataLoader(ds, batch_size=4, shuffle=True, drop_last=True, generator=torch.Generator().manual_seed(5))
print(len(loader), [y.tolist() for _, y in loader])
loader = DataLoader(ds, batch_size=4, shuffle=True, num_workers=2, generator=torch.Generator().manual_seed(5),
                    persistent_workers=False)
print(len(loader), [y.tolist() for _, y in loader])
loader = DataLoader(ds, batch_sampler=BatchSampler(SequentialSampler(ds), 4, False), num_workers=2)
print([x.squeeze(1).tolist() for x, _ in loader])
loader = DataLoader(ds, batch_size=None, sampler=[2, 5])
print([(x, y) for x, y in loader])
loader = DataLoader(Count(0, 7), batch_size=3)
print(list(loader))
try:
    DataLoader(ds, batch_size=2, shuffle=True, sampler=SequentialSampler(ds))
except ValueError as e:
    print("ValueError:", e)
