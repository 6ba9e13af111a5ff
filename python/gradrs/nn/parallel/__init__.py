"""`gradrs.nn.parallel`: `DataParallel` and `data_parallel` (PyTorch's `torch.nn.parallel`, without
the distributed parts gradrs does not have)."""

from .data_parallel import DataParallel as DataParallel, data_parallel as data_parallel

__all__ = ["DataParallel", "data_parallel"]
