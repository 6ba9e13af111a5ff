"""`gradrs.distributed.algorithms.ddp_comm_hooks` (`torch.distributed.algorithms.ddp_comm_hooks`):
communication hooks for `DistributedDataParallel.register_comm_hook`: `default_hooks`
(`allreduce_hook`, `fp16_compress_hook`, `bf16_compress_hook` and their wrappers) and
`debugging_hooks` (`noop_hook`). PyTorch's PowerSGD, quantization and optimizer-overlap hooks,
and the `DDPCommHookType` enum that names them with these, are not provided."""

from . import debugging_hooks as debugging, default_hooks as default  # noqa: F401 - PyTorch's aliases
from . import debugging_hooks, default_hooks  # noqa: F401

__all__: list[str] = []
