"""`noop_hook` (`torch.distributed.algorithms.ddp_comm_hooks.debugging_hooks`)."""

from typing import Any

from ....futures import Future
from ...._native import Tensor
from ..._grad_bucket import GradBucket

__all__ = ["noop_hook"]


def noop_hook(_: Any, bucket: GradBucket) -> Future[Tensor]:
    """Return a completed future holding the bucket's own buffer: no communication, so each
    process keeps its local (undivided) gradients; for measuring DDP's overhead without
    all-reduce."""
    fut: Future = Future()
    fut.set_result(bucket.buffer())
    return fut
