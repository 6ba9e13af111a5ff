"""`gradrs.nn.parallel`: `DataParallel`, `data_parallel` and `DistributedDataParallel` (over
`gradrs.distributed`'s MPI backend), as PyTorch's `torch.nn.parallel`."""

from .data_parallel import DataParallel as DataParallel, data_parallel as data_parallel
from .distributed import DistributedDataParallel as DistributedDataParallel

__all__ = ["DataParallel", "DistributedDataParallel", "data_parallel"]
