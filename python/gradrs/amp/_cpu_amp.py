"""`gradrs.cpu.amp`: the deprecated `torch.cpu.amp` spellings of `autocast('cpu', ...)` and
`GradScaler('cpu', ...)`, which warn (FutureWarning) as PyTorch's do and then behave the same.
Their default dtype is PyTorch's, bfloat16.
"""

import warnings

from . import autocast_mode as _autocast_mode
from . import grad_scaler as _grad_scaler

__all__ = ["GradScaler", "autocast"]


class autocast(_autocast_mode.autocast):
    """`gradrs.cpu.amp.autocast(enabled=True, dtype=None, cache_enabled=True)`: deprecated,
    use `gradrs.amp.autocast('cpu', ...)`."""

    def __init__(self, enabled: bool = True, dtype=None, cache_enabled: bool = True):
        warnings.warn("`gradrs.cpu.amp.autocast(args...)` is deprecated. Please use "
                      "`gradrs.amp.autocast('cpu', args...)` instead.", FutureWarning,
                      stacklevel=2)
        super().__init__("cpu", enabled=enabled, dtype=dtype, cache_enabled=cache_enabled)


class GradScaler(_grad_scaler.GradScaler):
    """`gradrs.cpu.amp.GradScaler(init_scale=2.**16, ...)`: deprecated, use
    `gradrs.amp.GradScaler('cpu', ...)`."""

    def __init__(self, init_scale: float = 2.0**16, growth_factor: float = 2.0,
                 backoff_factor: float = 0.5, growth_interval: int = 2000,
                 enabled: bool = True) -> None:
        warnings.warn("`gradrs.cpu.amp.GradScaler(args...)` is deprecated. Please use "
                      "`gradrs.amp.GradScaler('cpu', args...)` instead.", FutureWarning,
                      stacklevel=2)
        super().__init__("cpu", init_scale=init_scale, growth_factor=growth_factor,
                         backoff_factor=backoff_factor, growth_interval=growth_interval,
                         enabled=enabled)
