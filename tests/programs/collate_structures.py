"""torch.utils.data with structured samples, as NLP / detection code bases write it: a Dataset
returning dicts (strings, ints, numpy arrays, nested tuples, namedtuples), default_collate's
results, a padding collate_fn with pad_sequence, a length-bucketing batch_sampler, an
IterableDataset split with get_worker_info, random_split by fractions, ConcatDataset / Subset
indexing, and default_convert."""
# ruff: noqa: PYI024 - namedtuple samples as data code bases write them
import math
import random
from collections import namedtuple

import numpy as np
import torch
from torch.nn.utils.rnn import pad_sequence
from torch.utils.data import (BatchSampler, ConcatDataset, DataLoader, Dataset, IterableDataset,
                              RandomSampler, Sampler, SequentialSampler, Subset, get_worker_info,
                              random_split)
from torch.utils.data.dataloader import default_collate
from torch.utils.data._utils.collate import default_convert

random.seed(0)
np.random.seed(0)
torch.manual_seed(0)

Point = namedtuple("Point", ["x", "y"])
VOCAB = {w: i + 2 for i, w in enumerate("the a cat dog sat ran on mat log quickly".split())}


class SentenceDataset(Dataset):
    def __init__(self, n):
        words = list(VOCAB)
        self.items = []
        for i in range(n):
            length = 2 + (i * 7) % 6
            sent = [words[(i * 3 + j * 5) % len(words)] for j in range(length)]
            self.items.append((" ".join(sent), i % 3))

    def __len__(self):
        return len(self.items)

    def __getitem__(self, idx):
        text, label = self.items[idx]
        ids = torch.tensor([VOCAB[w] for w in text.split()], dtype=torch.long)
        return {"text": text, "ids": ids, "label": label,
                "feats": np.arange(3, dtype=np.float32) * idx,
                "meta": (idx, float(idx) / 2), "pt": Point(idx, -idx)}


ds = SentenceDataset(20)
sample = ds[3]
print(sorted(sample.keys()), sample["text"], sample["ids"])

# default_collate on fixed-size fields
fixed = [{k: v for k, v in ds[i].items() if k != "ids"} for i in range(4)]
batch = default_collate(fixed)
for k in sorted(batch):
    v = batch[k]
    print(k, type(v).__name__, v if not isinstance(v, torch.Tensor) else (v.dtype, tuple(v.shape), v.tolist()))
print("default_convert", default_convert({"a": np.ones(2), "b": [np.int64(3)], "c": "s"}))
print("collate of numbers", default_collate([1, 2, 3]), default_collate([1.5, 2.5]), default_collate([True, False]))
print("collate of numpy scalars", default_collate([np.float64(1.0), np.float64(2.0)]))
print("collate of tensors", default_collate([torch.tensor([1, 2]), torch.tensor([3, 4])]))

try:
    default_collate([ds[0], ds[5]])
except RuntimeError as e:
    print("RuntimeError:", str(e).splitlines()[0])


def pad_collate(batch):
    ids = [b["ids"] for b in batch]
    lengths = torch.tensor([len(x) for x in ids])
    padded = pad_sequence(ids, batch_first=True, padding_value=0)
    labels = torch.tensor([b["label"] for b in batch])
    mask = torch.arange(padded.size(1))[None, :] < lengths[:, None]
    return {"ids": padded, "lengths": lengths, "labels": labels, "mask": mask, "texts": [b["text"] for b in batch]}


loader = DataLoader(ds, batch_size=6, shuffle=False, collate_fn=pad_collate, drop_last=True)
print("batches with drop_last:", len(loader))
for b in loader:
    print(b["ids"].shape, b["lengths"].tolist(), b["labels"].tolist(), int(b["mask"].sum()))
print(b["ids"])


class BucketBatchSampler(Sampler):
    """Batches of indices of similar length, shuffled batch order (as fairseq / torchtext do)."""

    def __init__(self, lengths, batch_size, generator=None):
        self.lengths, self.batch_size, self.generator = lengths, batch_size, generator

    def __iter__(self):
        order = sorted(range(len(self.lengths)), key=lambda i: (self.lengths[i], i))
        batches = [order[i:i + self.batch_size] for i in range(0, len(order), self.batch_size)]
        perm = torch.randperm(len(batches), generator=self.generator).tolist()
        for p in perm:
            yield batches[p]

    def __len__(self):
        return math.ceil(len(self.lengths) / self.batch_size)


lengths = [len(ds[i]["ids"]) for i in range(len(ds))]
bs = BucketBatchSampler(lengths, 4, generator=torch.Generator().manual_seed(1))
loader = DataLoader(ds, batch_sampler=bs, collate_fn=pad_collate)
print("bucketed:", [tuple(b["ids"].shape) for b in loader])
print("BatchSampler:", list(BatchSampler(SequentialSampler(range(7)), batch_size=3, drop_last=False)))
print("RandomSampler w/ replacement:", list(RandomSampler(range(10), replacement=True, num_samples=5,
                                                         generator=torch.Generator().manual_seed(3))))


class RangeStream(IterableDataset):
    def __init__(self, start, end):
        super().__init__()
        self.start, self.end = start, end

    def __iter__(self):
        worker_info = get_worker_info()
        if worker_info is None:
            iter_start, iter_end = self.start, self.end
        else:
            per_worker = int(math.ceil((self.end - self.start) / float(worker_info.num_workers)))
            iter_start = self.start + worker_info.id * per_worker
            iter_end = min(iter_start + per_worker, self.end)
        return iter(range(iter_start, iter_end))


stream = RangeStream(3, 10)
print("iterable, main process:", list(DataLoader(stream, num_workers=0)))
print("iterable batched:", [b.tolist() for b in DataLoader(stream, batch_size=3)])
print("get_worker_info in main:", get_worker_info())

train, val, test = random_split(ds, [0.6, 0.2, 0.2], generator=torch.Generator().manual_seed(42))
print("split sizes", len(train), len(val), len(test), "train indices", train.indices[:5])
both = ConcatDataset([Subset(ds, [0, 1, 2]), Subset(ds, [10, 11])])
print("concat", len(both), both.cumulative_sizes, both[3]["text"], both[-1]["label"])
loader = DataLoader(both, batch_size=2, collate_fn=lambda b: [x["meta"] for x in b])
print("lambda collate", list(loader))
