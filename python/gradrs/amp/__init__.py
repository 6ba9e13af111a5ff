"""`gradrs.amp`: automatic mixed precision, `autocast` and `GradScaler`, as in `torch.amp`."""

from .autocast_mode import autocast, is_autocast_available
from .grad_scaler import GradScaler

__all__ = ["GradScaler", "autocast", "is_autocast_available"]
