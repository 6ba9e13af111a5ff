"""gradrs.utils.data.DistributedSampler against torch 2.13: the indices of every rank for
shuffle / seed / drop_last / set_epoch over dataset sizes that divide and do not divide, its
len, its use in a DataLoader, and the errors (invalid rank, no process group)."""

from __future__ import annotations

import pytest
from conftest import G, check_error

CASES = [(n, r, kw) for n in (0, 1, 5, 10, 11, 17) for r in (1, 2, 3, 4, 7)
         for kw in ({}, {"shuffle": False}, {"drop_last": True}, {"seed": 42},
                    {"shuffle": False, "drop_last": True}, {"seed": 7, "drop_last": True})]


@pytest.mark.parametrize(("n", "replicas", "kw"), CASES)
def test_indices_match_torch(torch, n, replicas, kw):
    for m in (G, torch):
        out = []
        for rank in range(replicas):
            s = m.utils.data.DistributedSampler(range(n), num_replicas=replicas, rank=rank, **kw)
            per_epoch = []
            for epoch in (0, 1, 5):
                s.set_epoch(epoch)
                per_epoch.append(list(s))
            out.append((len(s), s.num_samples, s.total_size, s.epoch, per_epoch))
        if m is G:
            got = out
    assert got == out


def test_every_index_once_per_epoch_without_padding():
    parts = [list(G.utils.data.DistributedSampler(range(12), num_replicas=3, rank=r, seed=3))
             for r in range(3)]
    assert sorted(sum(parts, [])) == list(range(12))
    assert all(len(p) == 4 for p in parts)


def test_in_dataloader_matches_torch(torch):
    def run(m):
        ds = m.utils.data.TensorDataset(m.arange(10.0))
        s = m.utils.data.DistributedSampler(ds, num_replicas=3, rank=1, seed=5)
        dl = m.utils.data.DataLoader(ds, batch_size=2, sampler=s)
        out = []
        for epoch in range(2):
            s.set_epoch(epoch)
            out.append([b[0].tolist() for b in dl])
        return out

    assert run(G) == run(torch)


@pytest.mark.parametrize("kw", [
    {}, {"num_replicas": 2}, {"rank": 0}, {"num_replicas": 2, "rank": 2},
    {"num_replicas": 2, "rank": -1}, {"num_replicas": 0, "rank": 0},
])
def test_errors_match_torch(kw):
    check_error(lambda m: m.utils.data.DistributedSampler(range(5), **kw))


def test_module_path(torch):
    from gradrs.utils.data.distributed import DistributedSampler

    assert DistributedSampler is G.utils.data.DistributedSampler
    assert issubclass(DistributedSampler, G.utils.data.Sampler)
    assert G.utils.data.DistributedSampler[int] is not None
