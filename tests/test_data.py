"""`gradrs.utils.data` against `torch.utils.data`: collate and convert outputs, datasets,
samplers, DataLoader batches / order / len / errors, and worker processes (same batches as
in-process loading, `get_worker_info`, PyTorch's worker seeds)."""

import collections
import math
import random
from typing import NamedTuple

import numpy as np
import pytest
from conftest import G, check_error, dtype_name, to_np

D = G.utils.data

# Every DataLoader iterator draws its workers' base seed with Tensor.random_, as PyTorch's does;
# shuffling needs Generator and randperm, WeightedRandomSampler multinomial.
_MISSING = [name for name, ok in (
    ("gradrs.Tensor.random_", hasattr(G.Tensor, "random_")),
    ("gradrs.Generator", hasattr(G, "Generator")),
    ("gradrs.randperm", hasattr(G, "randperm")),
    ("gradrs.multinomial", hasattr(G, "multinomial")),
) if not ok]


def needs(*names):
    missing = [n for n in names if n in _MISSING]
    return pytest.mark.skipif(bool(missing), reason=f"{', '.join(missing)} is missing "
                              "(PyTorch's random streams are not in gradrs yet)")


needs_loader = needs("gradrs.Tensor.random_")
needs_shuffle = needs("gradrs.Tensor.random_", "gradrs.Generator", "gradrs.randperm")


def tdata(M):
    return M.utils.data


def same(g, t):
    """Collated structures equal: container types, tensors (dtype, shape, values), leaves."""
    import torch

    if isinstance(t, torch.Tensor):
        assert isinstance(g, G.Tensor), f"expected a tensor, got {type(g)}"
        assert dtype_name(g.dtype) == dtype_name(t.dtype)
        assert tuple(g.shape) == tuple(t.shape)
        np.testing.assert_array_equal(to_np(g), to_np(t))
    elif isinstance(t, dict):
        assert type(g) is type(t) and list(g) == list(t)
        for k in t:
            same(g[k], t[k])
    elif isinstance(t, (list, tuple)):
        assert type(g).__name__ == type(t).__name__ and len(g) == len(t), (g, t)
        for a, b in zip(g, t):
            same(a, b)
    elif isinstance(t, np.ndarray):
        assert isinstance(g, np.ndarray)
        np.testing.assert_array_equal(g, t)
    else:
        assert type(g) is type(t) and g == t, (g, t)


def convert(x, M):
    """Rebuild a sample for module M (torch tensors stay gradrs tensors for G)."""
    if isinstance(x, G.Tensor):
        return M.tensor(x.tolist(), dtype=getattr(M, dtype_name(x.dtype)))
    if isinstance(x, dict):
        return type(x)((k, convert(v, M)) for k, v in x.items())
    if isinstance(x, tuple) and hasattr(x, "_fields"):
        return type(x)(*(convert(v, M) for v in x))
    if isinstance(x, (list, tuple)):
        return type(x)(convert(v, M) for v in x)
    return x


class Point(NamedTuple):
    x: object
    y: object

BATCHES = {
    "ints": [0, 1, 2, 3],
    "floats": [0.5, 1.5],
    "bools": [True, False],
    "strings": ["a", "b", "c"],
    "bytes": [b"a", b"b"],
    "tensors": [G.tensor([1.0, 2.0]), G.tensor([3.0, 4.0])],
    "int tensors": [G.tensor([1, 2]), G.tensor([3, 4])],
    "half tensors": [G.ones(2, 2, dtype=G.float16), G.zeros(2, 2, dtype=G.float16)],
    "bool tensors": [G.tensor(True), G.tensor(False)],
    "0-d tensors": [G.tensor(1.5), G.tensor(2.5)],
    "numpy arrays": [np.arange(3), np.arange(3, 6)],
    "numpy float32": [np.ones((2, 2), np.float32), np.zeros((2, 2), np.float32)],
    "numpy scalars": [np.float32(1.5), np.float32(2.5)],
    "numpy int scalars": [np.int64(1), np.int64(7)],
    "numpy bool scalars": [np.bool_(True), np.bool_(False)],
    "numpy float64 0-d": [np.array(1.0), np.array(2.0)],
    "tuples": [(1, 2.0), (3, 4.0)],
    "lists": [[1, 2], [3, 4]],
    "namedtuples": [Point(1, 2.0), Point(3, 4.0)],
    "dicts": [{"a": 1, "b": [1.0, 2.0]}, {"a": 2, "b": [3.0, 4.0]}],
    "ordered dicts": [collections.OrderedDict([("z", 1), ("a", 2)]),
                      collections.OrderedDict([("z", 3), ("a", 4)])],
    "nested": [{"img": G.ones(2), "label": (1, "cat")}, {"img": G.zeros(2), "label": (0, "dog")}],
}


@pytest.mark.parametrize("name", list(BATCHES))
def test_default_collate_matches_torch(torch, name):
    batch = BATCHES[name]
    same(D.default_collate(batch), torch.utils.data.default_collate(convert(batch, torch)))


@pytest.mark.parametrize("name", list(BATCHES))
def test_default_convert_matches_torch(torch, name):
    for sample in BATCHES[name]:
        same(D.default_convert(sample), torch.utils.data.default_convert(convert(sample, torch)))


def test_collate_errors(torch):
    check_error(lambda M: tdata(M).default_collate([object(), object()]))
    check_error(lambda M: tdata(M).default_collate([np.array(["a"]), np.array(["b"])]))
    check_error(lambda M: tdata(M).default_collate([[1, 2], [3]]))
    check_error(lambda M: tdata(M).default_collate([M.ones(2), M.ones(3)]))


# --------------------------------------------------------------------------------------------
# datasets
# --------------------------------------------------------------------------------------------


class Squares(D.Dataset):
    def __init__(self, n):
        self.n = n

    def __getitem__(self, i):
        if i >= self.n:
            raise IndexError(i)
        return i * i

    def __len__(self):
        return self.n


def _make_stream(M):
    class Stream(tdata(M).IterableDataset):
        """range(start, end), split between workers through get_worker_info()."""

        def __init__(self, start, end):
            self.start, self.end = start, end

        def __iter__(self):
            info = tdata(M).get_worker_info()
            if info is None:
                return iter(range(self.start, self.end))
            per_worker = int(math.ceil((self.end - self.start) / float(info.num_workers)))
            lo = self.start + info.id * per_worker
            return iter(range(lo, min(lo + per_worker, self.end)))

        def __len__(self):
            return self.end - self.start

    return Stream


_streams = {}


def stream(M, start, end):
    """An IterableDataset of module M's over range(start, end)."""
    if M not in _streams:
        _streams[M] = _make_stream(M)
    return _streams[M](start, end)


def Stream(start, end):
    return stream(G, start, end)


def test_tensor_dataset(torch):
    ds = D.TensorDataset(G.arange(5.0), G.arange(10).reshape(5, 2))
    assert len(ds) == 5
    x, y = ds[2]
    assert x.item() == 2.0 and y.tolist() == [4, 5]
    check_error(lambda M: tdata(M).TensorDataset(M.ones(3), M.ones(4)))


def test_concat_subset_stack_chain(torch):
    a, b = Squares(3), Squares(4)
    cat = a + b
    assert isinstance(cat, D.ConcatDataset) and len(cat) == 7
    assert [cat[i] for i in range(7)] == [0, 1, 4, 0, 1, 4, 9]
    assert cat[-1] == 9 and cat.cumulative_sizes == [3, 7]
    check_error(lambda M: tdata(M).ConcatDataset([]))
    with pytest.raises(ValueError, match="absolute value of index should not exceed"):
        cat[-8]
    sub = D.Subset(b, [3, 1])
    assert len(sub) == 2 and sub[0] == 9 and sub.__getitems__([0, 1]) == [9, 1]
    st = D.StackDataset(a, Squares(3))
    assert st[2] == (4, 4) and st.__getitems__([1, 2]) == [(1, 1), (4, 4)]
    sd = D.StackDataset(x=a, y=Squares(3))
    assert sd[1] == {"x": 1, "y": 1}
    with pytest.raises(ValueError, match="Size mismatch between datasets"):
        D.StackDataset(a, b)
    chain = Stream(0, 2) + Stream(5, 7)
    assert isinstance(chain, D.ChainDataset) and list(chain) == [0, 1, 5, 6]
    assert len(chain) == 4
    check_error(lambda M: tdata(M).ConcatDataset([stream(M, 0, 1)]))


def test_dataset_base_errors(torch):
    check_error(lambda M: tdata(M).Dataset()[0])


@needs("gradrs.randperm", "gradrs.Generator")
def test_random_split_matches_torch(torch):
    for lengths in ([3, 7], [0.3, 0.3, 0.4], [0.5, 0.5]):
        g = D.random_split(range(10), lengths, generator=G.Generator().manual_seed(42))
        t = torch.utils.data.random_split(range(10), lengths,
                                          generator=torch.Generator().manual_seed(42))
        assert [list(s.indices) for s in g] == [list(s.indices) for s in t]
    check_error(lambda M: tdata(M).random_split(range(10), [3, 3]))


def test_random_split_errors(torch):
    check_error(lambda M: tdata(M).random_split(range(10), [1.5, -0.5]))


# --------------------------------------------------------------------------------------------
# samplers
# --------------------------------------------------------------------------------------------


def test_sequential_and_batch_samplers(torch):
    for drop_last in (False, True):
        for bs in (1, 3, 4, 10, 11):
            g = D.BatchSampler(D.SequentialSampler(range(10)), bs, drop_last)
            t = torch.utils.data.BatchSampler(range(10), bs, drop_last)
            assert list(g) == list(t) and len(g) == len(t)
    assert list(D.SequentialSampler(Squares(4))) == [0, 1, 2, 3]


def test_sampler_errors(torch):
    check_error(lambda M: tdata(M).BatchSampler(range(3), 0, False))
    check_error(lambda M: tdata(M).BatchSampler(range(3), True, False))
    check_error(lambda M: tdata(M).BatchSampler(range(3), 2, 1))
    check_error(lambda M: tdata(M).RandomSampler(range(3), replacement=1))
    check_error(lambda M: tdata(M).RandomSampler(range(3), num_samples=0))
    check_error(lambda M: tdata(M).RandomSampler([]))
    check_error(lambda M: tdata(M).WeightedRandomSampler([1.0], 0))
    check_error(lambda M: tdata(M).WeightedRandomSampler([1.0], 2, replacement=0))
    check_error(lambda M: tdata(M).WeightedRandomSampler([[1.0]], 2))
    assert len(D.RandomSampler(range(3), replacement=True, num_samples=7)) == 7


@needs_shuffle
def test_random_samplers_match_torch(torch):
    for kw in ({}, {"replacement": True}, {"num_samples": 25}, {"replacement": True,
                                                                "num_samples": 70}):
        g = list(D.RandomSampler(range(10), generator=G.Generator().manual_seed(1), **kw))
        t = list(torch.utils.data.RandomSampler(
            range(10), generator=torch.Generator().manual_seed(1), **kw))
        assert g == t, kw
    G.manual_seed(5)
    torch.manual_seed(5)
    assert list(D.RandomSampler(range(9))) == list(torch.utils.data.RandomSampler(range(9)))
    g = list(D.SubsetRandomSampler([5, 6, 7, 8], generator=G.Generator().manual_seed(2)))
    t = list(torch.utils.data.SubsetRandomSampler(
        [5, 6, 7, 8], generator=torch.Generator().manual_seed(2)))
    assert g == t


@needs("gradrs.multinomial", "gradrs.Generator")
def test_weighted_sampler_matches_torch(torch):
    w = [0.1, 0.9, 0.4, 0.7, 3.0, 0.6]
    for replacement in (True, False):
        g = list(D.WeightedRandomSampler(w, 5, replacement,
                                         generator=G.Generator().manual_seed(3)))
        t = list(torch.utils.data.WeightedRandomSampler(
            w, 5, replacement, generator=torch.Generator().manual_seed(3)))
        assert g == t


# --------------------------------------------------------------------------------------------
# DataLoader
# --------------------------------------------------------------------------------------------


def test_loader_argument_errors(torch):
    def loader(M, **kw):
        return lambda M=M: tdata(M).DataLoader(Squares(10), **kw)

    for kw in (
        {"num_workers": -1},
        {"timeout": -1},
        {"prefetch_factor": 2},
        {"num_workers": 1, "prefetch_factor": -1},
        {"persistent_workers": True},
        {"sampler": [0, 1], "shuffle": True},
        {"batch_sampler": [[0]], "batch_size": 2},
        {"batch_sampler": [[0]], "shuffle": True},
        {"batch_sampler": [[0]], "sampler": [0]},
        {"batch_sampler": [[0]], "drop_last": True},
        {"batch_size": None, "drop_last": True},
        {"multiprocessing_context": "fork"},
        {"num_workers": 1, "multiprocessing_context": "nope"},
        {"num_workers": 1, "multiprocessing_context": 3},
    ):
        check_error(lambda M, kw=kw: tdata(M).DataLoader(Squares(10), **kw))
    for kw in ({"shuffle": True}, {"sampler": [0]}, {"batch_sampler": [[0]]}):
        check_error(lambda M, kw=kw: tdata(M).DataLoader(stream(M, 0, 3), **kw))

    def reassign(M):
        dl = tdata(M).DataLoader(Squares(10))
        dl.batch_size = 3

    check_error(reassign)


def test_loader_len(torch):
    for kw in ({}, {"batch_size": 3}, {"batch_size": 3, "drop_last": True},
               {"batch_size": None}, {"batch_sampler": [[0, 1], [2]]},
               {"sampler": [0, 1, 2, 3], "batch_size": 3}):
        g = len(D.DataLoader(Squares(10), **kw))
        t = len(torch.utils.data.DataLoader(Squares(10), **kw))
        assert g == t, kw
    for kw in ({}, {"batch_size": 3}, {"batch_size": 3, "drop_last": True},
               {"batch_size": None}):
        assert len(D.DataLoader(Stream(0, 10), **kw)) == len(
            torch.utils.data.DataLoader(stream(torch, 0, 10), **kw)), kw


def batches(M, dataset, **kw):
    return [to_list(b) for b in tdata(M).DataLoader(dataset, **kw)]


def to_list(x):
    if hasattr(x, "tolist"):
        return (dtype_name(x.dtype), x.tolist())
    if isinstance(x, dict):
        return {k: to_list(v) for k, v in x.items()}
    if isinstance(x, (list, tuple)):
        return [to_list(v) for v in x]
    return x


def pairs(M):
    return tdata(M).TensorDataset(M.arange(23.0).reshape(23, 1), M.arange(23))


def collate_sum(batch):
    return sum(batch)


@needs_loader
@pytest.mark.parametrize("kw", [
    {}, {"batch_size": 4}, {"batch_size": 4, "drop_last": True}, {"batch_size": None},
    {"batch_sampler": [[3, 1], [0], [22, 5, 7]]}, {"sampler": [5, 0, 2], "batch_size": 2},
    {"batch_size": 5, "collate_fn": lambda b: len(b)},
])
def test_loader_batches_match_torch(torch, kw):
    assert batches(G, pairs(G), **kw) == batches(torch, pairs(torch), **kw)


@needs_loader
def test_loader_sample_types_match_torch(torch):
    samples = [{"x": np.float32(i), "y": (i, "s"), "z": [float(i)]} for i in range(5)]
    assert batches(G, samples, batch_size=2) == batches(torch, samples, batch_size=2)
    assert batches(G, Stream(0, 7), batch_size=3) == batches(
        torch, stream(torch, 0, 7), batch_size=3)
    assert batches(G, Stream(0, 7), batch_size=3, drop_last=True) == batches(
        torch, stream(torch, 0, 7), batch_size=3, drop_last=True)
    assert batches(G, Stream(0, 3), batch_size=None) == [0, 1, 2]


@needs_loader
def test_loader_moves_the_global_generator_as_torch(torch):
    # Each iterator draws one int64 from the generator (the workers' base seed).
    G.manual_seed(0)
    torch.manual_seed(0)
    list(D.DataLoader(Squares(3)))
    list(torch.utils.data.DataLoader(Squares(3)))
    np.testing.assert_array_equal(G.rand(3).numpy(), torch.rand(3).numpy())


@needs_shuffle
def test_loader_shuffle_matches_torch(torch):
    for kw in ({"shuffle": True, "batch_size": 5}, {"shuffle": True, "batch_size": 4,
                                                    "drop_last": True}):
        g = batches(G, pairs(G), generator=G.Generator().manual_seed(7), **kw)
        t = batches(torch, pairs(torch), generator=torch.Generator().manual_seed(7), **kw)
        assert g == t
    G.manual_seed(3)
    torch.manual_seed(3)
    for _ in range(2):  # a new order every epoch, the same as torch's
        assert batches(G, pairs(G), shuffle=True, batch_size=6) == batches(
            torch, pairs(torch), shuffle=True, batch_size=6)


def seeds_seen(_):
    info = D.get_worker_info()
    return [(info.id, info.num_workers, info.seed, random.random(), float(G.rand(1)),
             float(np.random.rand()), type(info.dataset).__name__)]


def worker_info_collate(batch):
    info = D.get_worker_info()
    return (info.id, info.num_workers, batch)


class Faulty(D.Dataset):
    def __getitem__(self, i):
        if i == 3:
            raise ValueError("bad sample 3")
        return i

    def __len__(self):
        return 6


@needs_loader
def test_workers_give_the_same_batches():
    for kw in ({"batch_size": 3}, {"batch_size": 4, "drop_last": True}, {"batch_size": None},
               {"batch_sampler": [[3, 1], [0], [22, 5, 7]]}):
        assert batches(G, pairs(G), num_workers=2, **kw) == batches(G, pairs(G), **kw), kw
    out = list(D.DataLoader(Squares(7), batch_size=2, num_workers=2,
                            collate_fn=worker_info_collate))
    assert out == [(0, 2, [0, 1]), (1, 2, [4, 9]), (0, 2, [16, 25]), (1, 2, [36])]
    # An IterableDataset sharded through get_worker_info: worker 0 then 1, interleaved.
    assert batches(G, Stream(3, 7), num_workers=2) == [
        ("int64", [3]), ("int64", [5]), ("int64", [4]), ("int64", [6])]
    assert batches(G, Stream(0, 7), num_workers=2, batch_size=2) == [
        ("int64", [0, 1]), ("int64", [4, 5]), ("int64", [2, 3]), ("int64", [6])]


@needs_loader
def test_workers_persistent_and_errors():
    dl = D.DataLoader(Squares(5), batch_size=2, num_workers=2, persistent_workers=True)
    first = [b.tolist() for b in dl]
    it = dl._iterator
    assert [b.tolist() for b in dl] == first == [[0, 1], [4, 9], [16]]
    assert dl._iterator is it and all(w.is_alive() for w in it._workers)
    it._shutdown_workers()
    assert not any(w.is_alive() for w in it._workers)
    it = iter(D.DataLoader(Faulty(), batch_size=2, num_workers=2))
    with pytest.raises(ValueError, match="Caught ValueError in DataLoader worker process 1"):
        list(it)
    # Shut down now: left to the garbage collector, the iterator's queues may be finalized
    # first and its workers then wait out two 5 s status checks (as PyTorch's do).
    it._shutdown_workers()
    with pytest.raises(ValueError, match="bad sample 3"):
        list(D.DataLoader(Faulty(), batch_size=2))


@needs("gradrs.Tensor.random_", "gradrs.Generator")
def test_worker_seeds_match_torch(torch):
    # base_seed comes from the loader's generator; worker i gets base_seed + i for `random`
    # and gradrs, and PyTorch's SeedSequence mix for numpy.
    def run(M, fn):
        dl = tdata(M).DataLoader(Squares(4), batch_size=1, num_workers=2, collate_fn=fn,
                                 generator=M.Generator().manual_seed(11))
        return [b for batch in dl for b in batch][:2]

    def torch_seeds(_):
        info = torch.utils.data.get_worker_info()
        return [(info.id, info.num_workers, info.seed, random.random(), float(torch.rand(1)),
                 float(np.random.rand()), type(info.dataset).__name__)]

    assert run(G, seeds_seen) == run(torch, torch_seeds)


class Slow(D.Dataset):
    def __getitem__(self, i):
        import time

        time.sleep(0.5)
        return i

    def __len__(self):
        return 2


@needs_loader
def test_workers_out_of_order_and_timeout():
    out = [b.tolist() for b in D.DataLoader(Squares(9), batch_size=2, num_workers=2,
                                             in_order=False)]
    assert sorted(out) == [[0, 1], [4, 9], [16, 25], [36, 49], [64]]
    it = iter(D.DataLoader(Slow(), num_workers=1, timeout=0.1))
    with pytest.raises(RuntimeError, match=r"^DataLoader timed out after 0.1 seconds$"):
        next(it)
    it._shutdown_workers()


@needs_loader
def test_iterable_length_warning():
    class Liar(D.IterableDataset):
        def __iter__(self):
            return iter(range(3))

        def __len__(self):
            return 2

    dl = D.DataLoader(Liar(), batch_size=None)
    assert len(dl) == 2
    with pytest.warns(UserWarning, match=r"was reported to be 2\(when accessing len\(dataloader\)\), "
                      r"but 3 samples have been fetched"):
        assert list(dl) == [0, 1, 2]


class Heavy(D.Dataset):
    """Samples whose computation is large enough for gradrs to use its thread pool."""

    def __getitem__(self, i):
        return (G.ones(3, 224, 224) * i).sum()

    def __len__(self):
        return 4


@needs_loader
def test_workers_run_large_ops():
    # Forked workers must not wait on the parent's pool threads (Note [Fork]); `timeout` turns
    # a regression into an error instead of a hang.
    G.ones(1000, 100).sum()  # the parent's pool is up, as in any real program
    dl = D.DataLoader(Heavy(), batch_size=2, num_workers=2, timeout=30)
    assert [b.tolist() for b in dl] == [[0.0, 150528.0], [301056.0, 451584.0]]


def test_worker_info_outside_workers():
    assert D.get_worker_info() is None
