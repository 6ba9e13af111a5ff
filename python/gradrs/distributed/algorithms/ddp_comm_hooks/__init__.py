"""`gradrs.distributed.algorithms.ddp_comm_hooks` (`torch.distributed.algorithms.ddp_comm_hooks`):
communication hooks for `DistributedDataParallel.register_comm_hook`: `default_hooks`
(`allreduce_hook`, `fp16_compress_hook`, `bf16_compress_hook` and their wrappers),
`debugging_hooks` (`noop_hook`), and `DDPCommHookType` / `register_ddp_comm_hook`, which name
them. PyTorch's PowerSGD, quantization and optimizer-overlap hooks are not provided, nor their
`DDPCommHookType` members (`POWER_SGD`, `QUANTIZE_PER_TENSOR`, ...)."""

import enum
from enum import Enum
from functools import partial

from . import debugging_hooks as debugging, default_hooks as default  # noqa: F401 - PyTorch's aliases
from . import debugging_hooks, default_hooks  # noqa: F401

__all__ = ["DDPCommHookType", "register_ddp_comm_hook"]


# A partial is a member of itself before Python 3.11; from 3.11, `enum.member` says so (a bare
# one warns: a FutureWarning from 3.13 on)
member = getattr(enum, "member", lambda x: x)


def _ddp_comm_hook_wrapper(comm_hook, model, state):
    model.register_comm_hook(state, comm_hook)


class DDPCommHookType(Enum):
    """The hooks of `ddp_comm_hooks` by name, each member's value a partial registering its
    hook on a DDP model: ``DDPCommHookType.ALLREDUCE.value(model=model, state=process_group)``.

    >>> from gradrs.distributed.algorithms.ddp_comm_hooks import DDPCommHookType
    >>> [m.name for m in DDPCommHookType]
    ['ALLREDUCE', 'FP16_COMPRESS', 'BF16_COMPRESS', 'NOOP']
    >>> DDPCommHookType.FP16_COMPRESS.value.keywords["comm_hook"].__name__
    'fp16_compress_hook'
    """

    ALLREDUCE = member(partial(_ddp_comm_hook_wrapper, comm_hook=default.allreduce_hook))
    FP16_COMPRESS = member(partial(_ddp_comm_hook_wrapper, comm_hook=default.fp16_compress_hook))
    BF16_COMPRESS = member(partial(_ddp_comm_hook_wrapper, comm_hook=default.bf16_compress_hook))
    NOOP = member(partial(_ddp_comm_hook_wrapper, comm_hook=debugging.noop_hook))


def register_ddp_comm_hook(comm_hook_type: DDPCommHookType, model, state=None):
    """Register the hook `comm_hook_type` names on the DDP model `model`, with `state` (None:
    the default process group) as its state: ``model.register_comm_hook(state, hook)``.

    >>> from gradrs.distributed.algorithms.ddp_comm_hooks import (
    ...     DDPCommHookType, register_ddp_comm_hook)
    >>> class Recorder:  # stands in for a DistributedDataParallel model
    ...     def register_comm_hook(self, state, hook):
    ...         print(state, hook.__name__)
    >>> register_ddp_comm_hook(DDPCommHookType.ALLREDUCE, Recorder())
    None allreduce_hook
    """
    comm_hook_type.value(model=model, state=state)
