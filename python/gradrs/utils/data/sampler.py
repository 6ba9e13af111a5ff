"""Samplers: the index streams a DataLoader draws from (`SequentialSampler`, `RandomSampler`,
`SubsetRandomSampler`, `WeightedRandomSampler`, `BatchSampler`), as in
`torch.utils.data.sampler`, drawing their randomness exactly as PyTorch's do (randperm,
randint and multinomial on a `gradrs.Generator`)."""

import itertools

import gradrs

__all__ = [
    "BatchSampler",
    "RandomSampler",
    "Sampler",
    "SequentialSampler",
    "SubsetRandomSampler",
    "WeightedRandomSampler",
]


class Sampler:
    r"""Base class for all Samplers.

    Every Sampler subclass has to provide an :meth:`__iter__` method, providing a way to
    iterate over indices or lists of indices (batches) of dataset elements, and may provide a
    :meth:`__len__` method that returns the length of the returned iterators.
    """

    def __iter__(self):
        raise NotImplementedError

    def __class_getitem__(cls, item):
        return cls


class SequentialSampler(Sampler):
    r"""Samples elements sequentially, always in the same order.

    Args:
        data_source (Sized): data source to sample from. Must implement __len__.

    Examples:
        >>> list(gradrs.utils.data.SequentialSampler(range(4)))
        [0, 1, 2, 3]
    """

    def __init__(self, data_source):
        self.data_source = data_source

    def __iter__(self):
        return iter(range(len(self.data_source)))

    def __len__(self):
        return len(self.data_source)


def _random_seed(generator=None):
    """A fresh int64 seed drawn as PyTorch draws one: `empty((), int64).random_()`."""
    return int(gradrs.empty((), dtype=gradrs.int64).random_(generator=generator).item())


class RandomSampler(Sampler):
    r"""Samples elements randomly. If without replacement, then sample from a shuffled
    dataset. If with replacement, then user can specify :attr:`num_samples` to draw.

    Args:
        data_source (Sized): data source to sample from. Must implement __len__.
        replacement (bool): samples are drawn on-demand with replacement if ``True``,
            default=``False``
        num_samples (int): number of samples to draw, default=`len(dataset)`.
        generator (Generator): Generator used in sampling.

    Examples:
        >>> g = gradrs.Generator().manual_seed(0)
        >>> sorted(gradrs.utils.data.RandomSampler(range(4), generator=g))
        [0, 1, 2, 3]
    """

    def __init__(self, data_source, replacement=False, num_samples=None, generator=None):
        self.data_source = data_source
        self.replacement = replacement
        self._num_samples = num_samples
        self.generator = generator
        if not isinstance(self.replacement, bool):
            raise TypeError(
                "replacement should be a boolean value, but got "
                f"replacement={self.replacement}")
        if not isinstance(self.num_samples, int) or self.num_samples <= 0:
            raise ValueError(
                "num_samples should be a positive integer value, but got "
                f"num_samples={self.num_samples}")

    @property
    def num_samples(self):
        """How many indices one pass draws: `num_samples` when given, else the dataset's length.

        Examples:
            >>> gradrs.utils.data.RandomSampler(range(5)).num_samples
            5
        """
        if self._num_samples is None:
            return len(self.data_source)
        return self._num_samples

    def __iter__(self):
        n = len(self.data_source)
        if self.generator is None:
            generator = gradrs.Generator()
            generator.manual_seed(_random_seed())
        else:
            generator = self.generator
        if self.replacement:
            for _ in range(self.num_samples // 32):
                yield from gradrs.randint(0, n, (32,), dtype=gradrs.int64,
                                          generator=generator).tolist()
            yield from gradrs.randint(0, n, (self.num_samples % 32,), dtype=gradrs.int64,
                                      generator=generator).tolist()
        else:
            for _ in range(self.num_samples // n):
                yield from gradrs.randperm(n, generator=generator).tolist()
            yield from gradrs.randperm(n, generator=generator).tolist()[:self.num_samples % n]

    def __len__(self):
        return self.num_samples


class SubsetRandomSampler(Sampler):
    r"""Samples elements randomly from a given list of indices, without replacement.

    Args:
        indices (sequence): a sequence of indices
        generator (Generator): Generator used in sampling.

    Examples:
        >>> sorted(gradrs.utils.data.SubsetRandomSampler([1, 5, 7]))
        [1, 5, 7]
    """

    def __init__(self, indices, generator=None):
        self.indices = indices
        self.generator = generator

    def __iter__(self):
        for i in gradrs.randperm(len(self.indices), generator=self.generator).tolist():
            yield self.indices[i]

    def __len__(self):
        return len(self.indices)


class WeightedRandomSampler(Sampler):
    r"""Samples elements from ``[0,..,len(weights)-1]`` with given probabilities (weights).

    Args:
        weights (sequence): a sequence of weights, not necessary summing up to one
        num_samples (int): number of samples to draw
        replacement (bool): if ``True``, samples are drawn with replacement. If not, they are
            drawn without replacement: a sample index drawn for a row cannot be drawn again.
        generator (Generator): Generator used in sampling.

    Examples:
        >>> g = gradrs.Generator().manual_seed(0)
        >>> s = gradrs.utils.data.WeightedRandomSampler([0.0, 1.0, 0.0], 3, generator=g)
        >>> list(s)
        [1, 1, 1]
    """

    def __init__(self, weights, num_samples, replacement=True, generator=None):
        if not isinstance(num_samples, int) or isinstance(num_samples, bool) or num_samples <= 0:
            raise ValueError(
                "num_samples should be a positive integer value, but got "
                f"num_samples={num_samples}")
        if not isinstance(replacement, bool):
            raise ValueError(
                f"replacement should be a boolean value, but got replacement={replacement}")
        weights_tensor = gradrs.as_tensor(weights, dtype=gradrs.double)
        if len(weights_tensor.shape) != 1:
            raise ValueError(
                "weights should be a 1d sequence but given "
                f"weights have shape {tuple(weights_tensor.shape)}")
        self.weights = weights_tensor
        self.num_samples = num_samples
        self.replacement = replacement
        self.generator = generator

    def __iter__(self):
        rand_tensor = gradrs.multinomial(self.weights, self.num_samples, self.replacement,
                                         generator=self.generator)
        yield from iter(rand_tensor.tolist())

    def __len__(self):
        return self.num_samples


class BatchSampler(Sampler):
    r"""Wraps another sampler to yield a mini-batch of indices.

    Args:
        sampler (Sampler or Iterable): Base sampler. Can be any iterable object
        batch_size (int): Size of mini-batch.
        drop_last (bool): If ``True``, the sampler will drop the last batch if
            its size would be less than ``batch_size``

    Examples:
        >>> list(gradrs.utils.data.BatchSampler(range(5), batch_size=2, drop_last=False))
        [[0, 1], [2, 3], [4]]
    """

    def __init__(self, sampler, batch_size, drop_last):
        if not isinstance(batch_size, int) or isinstance(batch_size, bool) or batch_size <= 0:
            raise ValueError(
                "batch_size should be a positive integer value, but got "
                f"batch_size={batch_size}")
        if not isinstance(drop_last, bool):
            raise ValueError(f"drop_last should be a boolean value, but got drop_last={drop_last}")
        self.sampler = sampler
        self.batch_size = batch_size
        self.drop_last = drop_last

    def __iter__(self):
        sampler_iter = iter(self.sampler)
        if self.drop_last:
            args = [sampler_iter] * self.batch_size
            for batch_droplast in zip(*args):
                yield [*batch_droplast]
        else:
            batch = [*itertools.islice(sampler_iter, self.batch_size)]
            while batch:
                yield batch
                batch = [*itertools.islice(sampler_iter, self.batch_size)]

    def __len__(self):
        if self.drop_last:
            return len(self.sampler) // self.batch_size
        return (len(self.sampler) + self.batch_size - 1) // self.batch_size
