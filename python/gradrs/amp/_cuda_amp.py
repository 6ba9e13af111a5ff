"""`gradrs.cuda.amp`: the deprecated `torch.cuda.amp` spellings of `autocast('cuda', ...)` and
`GradScaler('cuda', ...)`, which warn (FutureWarning) as PyTorch's do and then behave the same.
"""

import functools
import warnings

from .. import _native
from . import autocast_mode as _autocast_mode
from . import grad_scaler as _grad_scaler

__all__ = ["GradScaler", "autocast", "custom_bwd", "custom_fwd"]


class autocast(_autocast_mode.autocast):
    """`gradrs.cuda.amp.autocast(enabled=True, dtype=gradrs.float16, cache_enabled=True)`:
    deprecated, use `gradrs.amp.autocast('cuda', ...)`."""

    def __init__(self, enabled: bool = True, dtype=_native.float16, cache_enabled: bool = True):
        warnings.warn("`gradrs.cuda.amp.autocast(args...)` is deprecated. Please use "
                      "`gradrs.amp.autocast('cuda', args...)` instead.", FutureWarning,
                      stacklevel=2)
        super().__init__("cuda", enabled=enabled, dtype=dtype, cache_enabled=cache_enabled)


class GradScaler(_grad_scaler.GradScaler):
    """`gradrs.cuda.amp.GradScaler(init_scale=2.**16, ...)`: deprecated, use
    `gradrs.amp.GradScaler('cuda', ...)`."""

    def __init__(self, init_scale: float = 2.0**16, growth_factor: float = 2.0,
                 backoff_factor: float = 0.5, growth_interval: int = 2000,
                 enabled: bool = True) -> None:
        warnings.warn("`gradrs.cuda.amp.GradScaler(args...)` is deprecated. Please use "
                      "`gradrs.amp.GradScaler('cuda', args...)` instead.", FutureWarning,
                      stacklevel=2)
        super().__init__("cuda", init_scale=init_scale, growth_factor=growth_factor,
                         backoff_factor=backoff_factor, growth_interval=growth_interval,
                         enabled=enabled)


def custom_fwd(fwd=None, *, cast_inputs=None):
    """Deprecated: `gradrs.amp.custom_fwd(args..., device_type='cuda')`."""
    warnings.warn("`gradrs.cuda.amp.custom_fwd(args...)` is deprecated. Please use "
                  "`gradrs.amp.custom_fwd(args..., device_type='cuda')` instead.", FutureWarning,
                  stacklevel=2)
    return functools.partial(_autocast_mode.custom_fwd, device_type="cuda")(
        fwd=fwd, cast_inputs=cast_inputs)


def custom_bwd(bwd):
    """Deprecated: `gradrs.amp.custom_bwd(args..., device_type='cuda')`."""
    warnings.warn("`gradrs.cuda.amp.custom_bwd(args...)` is deprecated. Please use "
                  "`gradrs.amp.custom_bwd(args..., device_type='cuda')` instead.", FutureWarning,
                  stacklevel=2)
    return functools.partial(_autocast_mode.custom_bwd, device_type="cuda")(bwd)
