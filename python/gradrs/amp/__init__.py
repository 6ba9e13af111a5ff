"""`gradrs.amp`: automatic mixed precision, `autocast` and `GradScaler`, as in `torch.amp`."""

from .autocast_mode import autocast, custom_bwd, custom_fwd, is_autocast_available
from .grad_scaler import GradScaler

__all__ = ["GradScaler", "autocast", "custom_bwd", "custom_fwd", "is_autocast_available"]
