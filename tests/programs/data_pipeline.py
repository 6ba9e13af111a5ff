"""Streaming data pipelines with torch.utils.data: an IterableDataset sharded across DataLoader
workers with get_worker_info, worker_init_fn seeding numpy, persistent workers, default_collate
on nested samples (dicts, tuples, namedtuples, numpy arrays, strings, numbers), ChainDataset,
StackDataset, random_split with fractions, and a WeightedRandomSampler."""
import math
from collections import namedtuple

import numpy as np
import torch
from torch.utils.data import (ChainDataset, DataLoader, IterableDataset, StackDataset, TensorDataset,
                              WeightedRandomSampler, default_collate, get_worker_info, random_split)

Sample = namedtuple("Sample", ["features", "label"])  # noqa: PYI024


class RangeStream(IterableDataset):
    def __init__(self, start, end):
        super().__init__()
        self.start, self.end = start, end

    def __iter__(self):
        info = get_worker_info()
        if info is None:
            lo, hi = self.start, self.end
        else:
            per_worker = int(math.ceil((self.end - self.start) / float(info.num_workers)))
            lo = self.start + info.id * per_worker
            hi = min(lo + per_worker, self.end)
        for i in range(lo, hi):
            yield {"id": i, "x": torch.full((2,), float(i)), "name": f"item{i}",
                   "pair": (i, np.float32(i) / 2)}


def seed_worker(worker_id):
    worker_seed = torch.initial_seed() % 2 ** 32
    np.random.seed(worker_seed)


ds = RangeStream(3, 10)
print("single process:", [b["id"].tolist() for b in DataLoader(ds, batch_size=3)])
g = torch.Generator()
g.manual_seed(0)
loader = DataLoader(ds, batch_size=2, num_workers=2, worker_init_fn=seed_worker, generator=g)
batches = list(loader)
print("two workers:", sorted(i for b in batches for i in b["id"].tolist()))
first = batches[0]
print(sorted(first), first["x"].shape, first["name"], type(first["pair"]).__name__,
      first["pair"][0], first["pair"][1].dtype)

# default_collate on its own
print(default_collate([Sample(torch.ones(2), 1), Sample(torch.zeros(2), 0)]))
print(default_collate([np.array([1.0, 2.0]), np.array([3.0, 4.0])]))
print(default_collate([(1.5, "a"), (2.5, "b")]))
print(default_collate([{"a": [1, 2]}, {"a": [3, 4]}]))

# persistent workers keep the same processes across epochs
pl = DataLoader(TensorDataset(torch.arange(8.0)), batch_size=4, num_workers=2, persistent_workers=True)
for epoch in range(2):
    print("epoch", epoch, [b[0].tolist() for b in pl])

chained = ChainDataset([RangeStream(0, 2), RangeStream(100, 102)])
print("chain:", [d["id"] for d in chained])
stacked = StackDataset(TensorDataset(torch.arange(3)), torch.arange(10, 13).tolist())
print("stack:", len(stacked), stacked[1])
stacked_dict = StackDataset(image=torch.arange(3), label=["a", "b", "c"])
print("stack dict:", stacked_dict[2], next(iter(DataLoader(stacked_dict, batch_size=3))))

parts = random_split(range(10), [0.5, 0.3, 0.2], generator=torch.Generator().manual_seed(42))
print("random_split:", [list(p) for p in parts], [len(p) for p in parts])
weights = torch.tensor([0.2, 0.2, 0.4, 1.0])
sampler = WeightedRandomSampler(weights, num_samples=12, replacement=True, generator=torch.Generator().manual_seed(1))
drawn = list(sampler)
print("weighted draws:", drawn, "count of 3:", drawn.count(3))
print(list(WeightedRandomSampler([1.0, 1.0, 1.0], 3, replacement=False, generator=torch.Generator().manual_seed(2))))
