"""``gradrs.multiprocessing`` (torch.multiprocessing): the standard :mod:`multiprocessing` module
re-exported, with PyTorch's sharing-strategy switches and ``spawn`` / ``start_processes``.

Training scripts import it for ``mp.spawn(main_worker, nprocs=..., args=...)`` (one process per
rank) and data scripts for ``set_sharing_strategy("file_system")``. Tensors sent through its
queues travel as gradrs's ForkingPickler reduction sends them to DataLoader workers
(``gradrs._pickle.reduce_for_ipc``): copied, since gradrs has no shared-memory storages
(``Tensor.share_memory_`` is absent); the strategy is recorded and reported as PyTorch's.
"""

import multiprocessing
import sys
from multiprocessing import *  # noqa: F403 - the API is the standard module's

from .spawn import (  # noqa: F401 - re-exported, not in __all__ (as PyTorch's)
    ENV_VAR_PARALLEL_START,
    ProcessContext,
    ProcessException,
    ProcessExitedException,
    ProcessRaisedException,
    SpawnContext,
    spawn,
    start_processes,
)

__all__ = ["set_sharing_strategy", "get_sharing_strategy", "get_all_sharing_strategies"]
__all__ += multiprocessing.__all__  # type: ignore[attr-defined]

if sys.platform in ("darwin", "win32"):
    _sharing_strategy = "file_system"
    _all_sharing_strategies = {"file_system"}
else:
    _sharing_strategy = "file_descriptor"
    _all_sharing_strategies = {"file_descriptor", "file_system"}


def set_sharing_strategy(new_strategy):
    """Sets the strategy for sharing CPU tensors between processes: one of
    :func:`get_all_sharing_strategies` (AssertionError otherwise, as PyTorch).

    Examples:
        >>> gradrs.multiprocessing.set_sharing_strategy("file_system")
        >>> gradrs.multiprocessing.get_sharing_strategy()
        'file_system'
        >>> gradrs.multiprocessing.set_sharing_strategy("file_descriptor")
    """
    global _sharing_strategy
    if new_strategy not in _all_sharing_strategies:
        raise AssertionError(f"invalid sharing strategy {new_strategy!r}, "
                             f"expected one of {_all_sharing_strategies}")
    _sharing_strategy = new_strategy


def get_sharing_strategy():
    """The current strategy for sharing CPU tensors ('file_descriptor' by default on Linux).

    Examples:
        >>> gradrs.multiprocessing.get_sharing_strategy() in ("file_descriptor", "file_system")
        True
    """
    return _sharing_strategy


def get_all_sharing_strategies():
    """The set of sharing strategies this platform supports.

    Examples:
        >>> sorted(gradrs.multiprocessing.get_all_sharing_strategies())[-1]
        'file_system'
    """
    return _all_sharing_strategies
