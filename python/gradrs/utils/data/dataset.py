"""Datasets: `Dataset`, `IterableDataset`, `TensorDataset`, `StackDataset`, `ConcatDataset`,
`ChainDataset`, `Subset` and `random_split`, as in `torch.utils.data.dataset`."""

import bisect
import itertools
import math
import warnings
from collections.abc import Iterable

import gradrs

__all__ = [
    "Dataset",
    "IterableDataset",
    "TensorDataset",
    "StackDataset",
    "ConcatDataset",
    "ChainDataset",
    "Subset",
    "random_split",
]


class Dataset:
    r"""An abstract class representing a :class:`Dataset`.

    All datasets that represent a map from keys to data samples should subclass it and
    overwrite :meth:`__getitem__`; they may overwrite :meth:`__len__` (used by samplers and
    the DataLoader's defaults) and :meth:`__getitems__` (a batch of samples at once).

    Examples:
        >>> class Squares(gradrs.utils.data.Dataset):
        ...     def __len__(self):
        ...         return 4
        ...
        ...     def __getitem__(self, i):
        ...         return i * i
        ...
        >>> list(gradrs.utils.data.DataLoader(Squares(), batch_size=2))
        [tensor([0, 1]), tensor([4, 9])]
    """

    def __getitem__(self, index):
        raise NotImplementedError("Subclasses of Dataset should implement __getitem__.")

    def __add__(self, other):
        return ConcatDataset([self, other])

    def __class_getitem__(cls, item):
        # `Dataset[int]` in annotations, as PyTorch's Generic base allows.
        return cls


class IterableDataset(Dataset, Iterable):
    r"""An iterable Dataset: subclasses overwrite :meth:`__iter__`.

    With ``num_workers > 0`` every worker holds its own copy of the dataset; use
    :func:`~gradrs.utils.data.get_worker_info` in ``__iter__`` or in ``worker_init_fn`` to
    give each copy its own share of the data.

    Examples:
        >>> class Count(gradrs.utils.data.IterableDataset):
        ...     def __iter__(self):
        ...         return iter(range(5))
        ...
        >>> [b.tolist() for b in gradrs.utils.data.DataLoader(Count(), batch_size=2)]
        [[0, 1], [2, 3], [4]]
    """

    def __add__(self, other):
        return ChainDataset([self, other])


class TensorDataset(Dataset):
    r"""Dataset wrapping tensors: sample ``i`` is ``tuple(t[i] for t in tensors)``.

    Args:
        *tensors (Tensor): tensors that have the same size of the first dimension.

    Examples:
        >>> ds = gradrs.utils.data.TensorDataset(gradrs.arange(3.0), gradrs.tensor([0, 1, 0]))
        >>> len(ds), ds[1]
        (3, (tensor(1.), tensor(1)))
    """

    def __init__(self, *tensors):
        if any(tensors[0].size(0) != tensor.size(0) for tensor in tensors):
            raise AssertionError("Size mismatch between tensors")
        self.tensors = tensors

    def __getitem__(self, index):
        return tuple(tensor[index] for tensor in self.tensors)

    def __len__(self):
        return self.tensors[0].size(0)


class StackDataset(Dataset):
    r"""Dataset as a stacking of multiple datasets: a tuple (``*args``) or a dict
    (``**kwargs``) of their samples at the same index.

    Examples:
        >>> s = gradrs.utils.data.StackDataset(x=range(3), y='abc')
        >>> s[1]
        {'x': 1, 'y': 'b'}
    """

    def __init__(self, *args, **kwargs):
        if args:
            if kwargs:
                raise ValueError(
                    "Supported either ``tuple``- (via ``args``) or"
                    "``dict``- (via ``kwargs``) like input/output, but both types are given.")
            self._length = len(args[0])
            if any(self._length != len(dataset) for dataset in args):
                raise ValueError("Size mismatch between datasets")
            self.datasets = args
        elif kwargs:
            tmp = list(kwargs.values())
            self._length = len(tmp[0])
            if any(self._length != len(dataset) for dataset in tmp):
                raise ValueError("Size mismatch between datasets")
            self.datasets = kwargs
        else:
            raise ValueError("At least one dataset should be passed")

    def __getitem__(self, index):
        if isinstance(self.datasets, dict):
            return {k: dataset[index] for k, dataset in self.datasets.items()}
        return tuple(dataset[index] for dataset in self.datasets)

    def _column(self, dataset, indices):
        if callable(getattr(dataset, "__getitems__", None)):
            items = dataset.__getitems__(indices)
            if len(items) != len(indices):
                raise ValueError(
                    "Nested dataset's output size mismatch."
                    f" Expected {len(indices)}, got {len(items)}")
            return items
        return [dataset[idx] for idx in indices]

    def __getitems__(self, indices):
        if isinstance(self.datasets, dict):
            batch = [{} for _ in indices]
            for k, dataset in self.datasets.items():
                for data, sample in zip(self._column(dataset, indices), batch):
                    sample[k] = data
            return batch
        rows = [[] for _ in indices]
        for dataset in self.datasets:
            for data, sample in zip(self._column(dataset, indices), rows):
                sample.append(data)
        return [tuple(sample) for sample in rows]

    def __len__(self):
        return self._length


class ConcatDataset(Dataset):
    r"""Dataset as a concatenation of multiple datasets.

    Args:
        datasets (sequence): List of datasets to be concatenated

    Examples:
        >>> c = gradrs.utils.data.ConcatDataset([range(3), range(10, 12)])
        >>> len(c), c[3]
        (5, 10)
    """

    @staticmethod
    def cumsum(sequence):
        """The running totals of the lengths of `sequence`'s datasets: where each one ends
        in the concatenation.

        Args:
            sequence: datasets (anything with a length).

        Examples:
            >>> gradrs.utils.data.ConcatDataset.cumsum([range(3), range(2)])
            [3, 5]
        """
        r, s = [], 0
        for e in sequence:
            n = len(e)
            r.append(n + s)
            s += n
        return r

    def __init__(self, datasets):
        super().__init__()
        self.datasets = list(datasets)
        if len(self.datasets) == 0:
            raise AssertionError("datasets should not be an empty iterable")
        for d in self.datasets:
            if isinstance(d, IterableDataset):
                raise AssertionError("ConcatDataset does not support IterableDataset")
        self.cumulative_sizes = self.cumsum(self.datasets)

    def __len__(self):
        return self.cumulative_sizes[-1]

    def __getitem__(self, idx):
        if idx < 0:
            if -idx > len(self):
                raise ValueError("absolute value of index should not exceed dataset length")
            idx = len(self) + idx
        dataset_idx = bisect.bisect_right(self.cumulative_sizes, idx)
        if dataset_idx == 0:
            sample_idx = idx
        else:
            sample_idx = idx - self.cumulative_sizes[dataset_idx - 1]
        return self.datasets[dataset_idx][sample_idx]

    @property
    def cummulative_sizes(self):
        """Deprecated misspelling of `cumulative_sizes` (warns).
        """
        warnings.warn("`cummulative_sizes` attribute is renamed to `cumulative_sizes`",
                      FutureWarning, stacklevel=2)
        return self.cumulative_sizes


class ChainDataset(IterableDataset):
    r"""Dataset for chaining multiple :class:`IterableDataset` s, on the fly.

    Args:
        datasets (iterable of IterableDataset): datasets to be chained together
    """

    def __init__(self, datasets):
        super().__init__()
        self.datasets = datasets

    def __iter__(self):
        for d in self.datasets:
            if not isinstance(d, IterableDataset):
                raise AssertionError("ChainDataset only supports IterableDataset")
            yield from d

    def __len__(self):
        total = 0
        for d in self.datasets:
            if not isinstance(d, IterableDataset):
                raise AssertionError("ChainDataset only supports IterableDataset")
            total += len(d)
        return total


class Subset(Dataset):
    r"""Subset of a dataset at specified indices.

    Args:
        dataset (Dataset): The whole Dataset
        indices (sequence): Indices in the whole set selected for subset

    Examples:
        >>> s = gradrs.utils.data.Subset(range(10), [2, 5])
        >>> len(s), s[1]
        (2, 5)
    """

    def __init__(self, dataset, indices):
        self.dataset = dataset
        self.indices = indices
        if (type(self).__getitem__ is not Subset.__getitem__
                and type(self).__getitems__ is Subset.__getitems__):
            raise NotImplementedError(
                f"{type(self).__name__} overrides __getitem__ but not __getitems__. "
                "When subclassing Subset and overriding __getitem__, you must also override "
                "__getitems__ to ensure DataLoader works correctly with your custom logic. "
                "A simple implementation:\n\n"
                "def __getitems__(self, indices):\n"
                "    return [self.__getitem__(idx) for idx in indices]")

    def __getitem__(self, idx):
        if isinstance(idx, list):
            return self.dataset[[self.indices[i] for i in idx]]
        return self.dataset[self.indices[idx]]

    def __getitems__(self, indices):
        if callable(getattr(self.dataset, "__getitems__", None)):
            return self.dataset.__getitems__([self.indices[idx] for idx in indices])
        return [self.dataset[self.indices[idx]] for idx in indices]

    def __len__(self):
        return len(self.indices)


def random_split(dataset, lengths, generator=None):
    r"""Randomly split a dataset into non-overlapping new datasets of given lengths.

    If a list of fractions that sum up to 1 is given, the lengths are
    ``floor(frac * len(dataset))``, and any remainder is handed out one by one, round-robin.

    Args:
        dataset (Dataset): Dataset to be split
        lengths (sequence): lengths or fractions of splits to be produced
        generator (Generator): Generator used for the random permutation (default: the
            global generator).

    Examples:
        >>> g = gradrs.Generator().manual_seed(42)
        >>> a, b = gradrs.utils.data.random_split(range(10), [0.7, 0.3], generator=g)
        >>> len(a), len(b), sorted(list(a) + list(b)) == list(range(10))
        (7, 3, True)
    """
    if math.isclose(sum(lengths), 1) and sum(lengths) <= 1:
        subset_lengths = []
        for i, frac in enumerate(lengths):
            if frac < 0 or frac > 1:
                raise ValueError(f"Fraction at index {i} is not between 0 and 1")
            subset_lengths.append(math.floor(len(dataset) * frac))
        remainder = len(dataset) - sum(subset_lengths)
        for i in range(remainder):
            subset_lengths[i % len(subset_lengths)] += 1
        lengths = subset_lengths
        for i, length in enumerate(lengths):
            if length == 0:
                warnings.warn(
                    f"Length of split at index {i} is 0. "
                    f"This might result in an empty dataset.",
                    stacklevel=2)
    if sum(lengths) != len(dataset):
        raise ValueError("Sum of input lengths does not equal the length of the input dataset!")
    indices = gradrs.randperm(sum(lengths), generator=generator).tolist()
    return [
        Subset(dataset, indices[offset - length: offset])
        for offset, length in zip(itertools.accumulate(lengths), lengths)
    ]
