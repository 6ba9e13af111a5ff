"""DistributedSampler: each of `num_replicas` processes draws its own share of a dataset, as
`torch.utils.data.distributed.DistributedSampler` (same index order for every option)."""

import math

import gradrs
from gradrs import distributed as dist

from .sampler import Sampler

__all__ = ["DistributedSampler"]


class DistributedSampler(Sampler):
    r"""Sampler that restricts data loading to a subset of the dataset: process ``rank`` of
    ``num_replicas`` gets every ``num_replicas``-th index of one (optionally shuffled, seeded
    with ``seed + epoch``) permutation, padded by repeating indices to a multiple of
    ``num_replicas`` unless ``drop_last`` drops the tail. Call :meth:`set_epoch` before each
    epoch to reshuffle. ``num_replicas`` and ``rank`` default to the world size and rank of
    ``gradrs.distributed``'s default process group."""

    def __init__(self, dataset, num_replicas=None, rank=None, shuffle=True, seed=0,
                 drop_last=False):
        # Without num_replicas / rank, the default process group's (gradrs.distributed over
        # MPI: launch with mpirun); PyTorch's ValueError when none was initialized.
        if num_replicas is None:
            num_replicas = dist.get_world_size()
        if rank is None:
            rank = dist.get_rank()
        if rank >= num_replicas or rank < 0:
            raise ValueError(
                f"Invalid rank {rank}, rank should be in the interval [0, {num_replicas - 1}]")
        self.dataset = dataset
        self.num_replicas = num_replicas
        self.rank = rank
        self.epoch = 0
        self.drop_last = drop_last
        # With drop_last the tail that does not divide evenly is dropped; otherwise the
        # indices are padded so that every replica gets the same number.
        if self.drop_last and len(self.dataset) % self.num_replicas != 0:
            self.num_samples = math.ceil((len(self.dataset) - self.num_replicas)
                                         / self.num_replicas)
        else:
            self.num_samples = math.ceil(len(self.dataset) / self.num_replicas)
        self.total_size = self.num_samples * self.num_replicas
        self.shuffle = shuffle
        self.seed = seed

    def __iter__(self):
        if self.shuffle:
            g = gradrs.Generator()
            g.manual_seed(self.seed + self.epoch)
            indices = gradrs.randperm(len(self.dataset), generator=g).tolist()
        else:
            indices = list(range(len(self.dataset)))

        if not self.drop_last:
            padding_size = self.total_size - len(indices)
            if padding_size <= len(indices):
                indices += indices[:padding_size]
            else:
                indices += (indices * math.ceil(padding_size / len(indices)))[:padding_size]
        else:
            indices = indices[: self.total_size]
        if len(indices) != self.total_size:
            raise AssertionError(f"Number of indices ({len(indices)}) does not match "
                                 f"total_size ({self.total_size})")

        indices = indices[self.rank : self.total_size : self.num_replicas]
        if len(indices) != self.num_samples:
            raise AssertionError(f"Number of subsampled indices ({len(indices)}) does not match "
                                 f"num_samples ({self.num_samples})")
        return iter(indices)

    def __len__(self):
        return self.num_samples

    def set_epoch(self, epoch):
        r"""Set the epoch: with ``shuffle=True`` each epoch gets its own order (seed + epoch),
        the same on every replica."""
        self.epoch = epoch
