"""DDP's default communication hooks (`torch.distributed.algorithms.ddp_comm_hooks.default_hooks`):
`allreduce_hook` (what DDP does without a hook), `fp16_compress_hook` / `bf16_compress_hook`
(the bucket cast to a half type and divided by the world size before the all-reduce, cast back
into the bucket after), and `fp16_compress_wrapper` / `bf16_compress_wrapper` (any hook run on a
half-type copy of the bucket).

Over gradrs's MPI backend, as over PyTorch's, a float16 / bfloat16 tensor has no MPI datatype:
the all-reduce of a compressed bucket fails with IndexError("map::at"), which the DDP backward
raises; the wrappers serve hooks that communicate in another dtype."""

from collections.abc import Callable
from typing import Any

from .... import _native
from ....futures import Future
from ...._native import Tensor
from ... import distributed_c10d as dist
from ..._grad_bucket import GradBucket

__all__ = ["allreduce_hook", "fp16_compress_hook", "bf16_compress_hook", "fp16_compress_wrapper",
           "bf16_compress_wrapper"]


def _allreduce_fut(process_group: Any, tensor: Any) -> Future[Tensor]:
    """Average ``tensor`` over the group by an all-reduce; a future of the result."""
    group_to_use = process_group if process_group is not None else dist.group.WORLD
    # divided first, so that float16 does not overflow
    tensor.div_(group_to_use.size())
    return (dist.all_reduce(tensor, group=group_to_use, async_op=True)
            .get_future()
            .then(lambda fut: fut.value()[0]))


def allreduce_hook(process_group: Any, bucket: GradBucket) -> Future[Tensor]:
    """All-reduce the bucket's gradients and average them: DDP's own behaviour, as a hook to
    start from (``ddp.register_comm_hook(process_group, allreduce_hook)``)."""
    return _allreduce_fut(process_group, bucket.buffer())


def _compress_hook(dtype: Any, process_group: Any, bucket: Any) -> Future[Tensor]:
    group_to_use = process_group if process_group is not None else dist.group.WORLD
    world_size = group_to_use.size()
    buffer = bucket[0] if isinstance(bucket, tuple) else bucket.buffer()
    compressed_tensor = buffer.to(dtype).div_(world_size)

    def decompress(fut: Any) -> Any:
        decompressed_tensor = buffer
        # in place, to keep the peak memory down
        value = fut if isinstance(fut, _native.Tensor) else fut.value()[0]
        decompressed_tensor.copy_(value)
        return decompressed_tensor

    fut = dist.all_reduce(compressed_tensor, group=group_to_use, async_op=True).get_future()
    return fut.then(decompress)


def fp16_compress_hook(process_group: Any, bucket: GradBucket) -> Future[Tensor]:
    """Cast the bucket to float16, divide it by the group's size, all-reduce it, and cast the
    sum back into the bucket."""
    return _compress_hook(_native.float16, process_group, bucket)


def bf16_compress_hook(process_group: Any, bucket: GradBucket) -> Future[Tensor]:
    """As `fp16_compress_hook` in bfloat16. DistributedDataParallel refuses it without CUDA and
    NCCL (or XPU and XCCL), as PyTorch's."""
    return _compress_hook(_native.bfloat16, process_group, bucket)


def _compress_wrapper(dtype: Any, hook: Callable, name: str) -> Callable:
    def wrapper_hook(hook_state: Any, bucket: GradBucket) -> Future[Tensor]:
        bucket.set_buffer(bucket.buffer().to(dtype))
        fut = hook(hook_state, bucket)

        def decompress(fut: Any) -> Any:
            decompressed_tensor = bucket.buffer()
            decompressed_tensor.copy_(fut.value())
            return decompressed_tensor

        return fut.then(decompress)

    wrapper_hook.__name__ = wrapper_hook.__qualname__ = name
    return wrapper_hook


def fp16_compress_wrapper(hook: Callable[[Any, GradBucket], Future]) -> Callable:
    """Run ``hook`` on a float16 copy of the bucket and cast its result back:
    ``fp16_compress_wrapper(allreduce_hook)`` is ``fp16_compress_hook``."""
    return _compress_wrapper(_native.float16, hook, "fp16_compress_wrapper_hook")


def bf16_compress_wrapper(hook: Callable[[Any, GradBucket], Future]) -> Callable:
    """As `fp16_compress_wrapper` in bfloat16."""
    return _compress_wrapper(_native.bfloat16, hook, "bf16_compress_wrapper_hook")
