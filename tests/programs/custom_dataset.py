"""A custom map-style Dataset with variable-length items, a collate_fn padding them, num_workers=2."""
# Written as the tutorial or repository it imitates writes it:
# ruff: noqa: B007
import numpy as np
import torch
from torch.nn.utils.rnn import pad_sequence
from torch.utils.data import DataLoader, Dataset


class SequenceDataset(Dataset):
    """Deterministic variable-length sequences with a label: the parity of their sum."""

    def __init__(self, n, transform=None):
        self.n = n
        self.transform = transform

    def __len__(self):
        return self.n

    def __getitem__(self, idx):
        if torch.is_tensor(idx):
            idx = idx.tolist()
        length = 3 + idx % 5
        seq = torch.arange(idx, idx + length, dtype=torch.float32) / 10
        sample = {"seq": seq, "label": idx % 2, "meta": np.array([idx, length])}
        if self.transform:
            sample = self.transform(sample)
        return sample


class Scale:
    def __init__(self, factor):
        self.factor = factor

    def __call__(self, sample):
        return {**sample, "seq": sample["seq"] * self.factor}


def collate_fn(batch):
    seqs = [item["seq"] for item in batch]
    lengths = torch.tensor([len(s) for s in seqs])
    padded = pad_sequence(seqs, batch_first=True, padding_value=0.0)
    labels = torch.tensor([item["label"] for item in batch], dtype=torch.long)
    return padded, lengths, labels


def worker_init_fn(worker_id):
    np.random.seed(np.random.get_state()[1][0] + worker_id)


if __name__ == "__main__":
    ds = SequenceDataset(20, transform=Scale(2.0))
    print(len(ds), ds[3]["seq"], ds[3]["label"], ds[torch.tensor(4)]["meta"])
    loader = DataLoader(ds, batch_size=6, shuffle=False, num_workers=2, collate_fn=collate_fn,
                        worker_init_fn=worker_init_fn, persistent_workers=True)
    for epoch in range(2):
        for i, (padded, lengths, labels) in enumerate(loader):
            print(epoch, i, tuple(padded.shape), lengths.tolist(), labels.tolist())
    print(padded)
    default = DataLoader(ds, batch_size=4, num_workers=2, drop_last=True)
    print("default collate on dicts of unequal seqs:")
    try:
        for b in default:
            pass
    except RuntimeError as e:
        print("RuntimeError:", str(e).splitlines()[-1][:60])
    fixed = DataLoader(SequenceDataset(10, transform=lambda s: {"x": s["seq"][:3], "y": s["label"], "m": s["meta"]}),
                       batch_size=4, num_workers=0)
    b = next(iter(fixed))
    print(b["x"].shape, b["y"], b["m"].dtype, b["m"].shape)
    print(len(fixed), len(DataLoader(ds, batch_size=6, drop_last=True)))
    g = torch.Generator()
    g.manual_seed(0)
    shuffled = DataLoader(range(10), batch_size=5, shuffle=True, generator=g)
    print([batch.tolist() for batch in shuffled])
