"""`GradScaler`: PyTorch's dynamic loss scaling for float16 training.

`scale(loss)` multiplies by the scale (65536 at first); `unscale_(optimizer)` divides the
gradients of the optimizer's parameters by it and records whether any is inf or NaN;
`step(optimizer)` unscales if not done yet and skips `optimizer.step()` when one was;
`update()` halves the scale after a skipped step (`backoff_factor`) and doubles it after
`growth_interval` steps in a row without infs (`growth_factor`). Written against PyTorch's
optimizer interface (`param_groups`, `step`), with PyTorch's errors for misuse.
"""

from __future__ import annotations

import math
from collections import abc, defaultdict
from enum import Enum

from .. import _native
from .. import gpu as _gpu
from .._grad_mode import no_grad

__all__ = ["GradScaler", "OptState"]


class OptState(Enum):
    READY = 0
    UNSCALED = 1
    STEPPED = 2


def _refresh_per_optimizer_state():
    return {"stage": OptState.READY, "found_inf_per_device": {}}


def _device_type(device) -> str:
    """'cuda' and 'gpu' name the same device."""
    kind = device if isinstance(device, str) else device.type
    return "gpu" if kind in ("cuda", "gpu") else kind


def _non_finite_check_and_unscale_(grads, found_inf, inv_scale):
    """PyTorch's `_amp_foreach_non_finite_check_and_unscale_`: multiply each gradient by
    `inv_scale` in place, and set `found_inf` to 1.0 if any gradient holds an inf or a NaN."""
    for g in grads:
        # g * 0 is 0 where g is finite and NaN where it is not, and the NaN survives the sum;
        # no host read, so a GPU gradient is checked on the GPU.
        non_finite = (g * 0).sum() != 0
        found_inf.copy_(found_inf.maximum(non_finite.to(found_inf.dtype)))
        g.mul_(inv_scale)


class GradScaler:
    """`GradScaler(device='cuda', init_scale=2.**16, growth_factor=2.0, backoff_factor=0.5,
    growth_interval=2000, enabled=True)`; see the module doc.

    Examples:
        >>> scaler = gradrs.amp.GradScaler('cpu', init_scale=2.0 ** 10)
        >>> w = gradrs.nn.Parameter(gradrs.tensor([1.0]))
        >>> opt = gradrs.optim.SGD([w], lr=0.1)
        >>> scaler.scale((w * 3).sum()).backward()
        >>> w.grad
        tensor([3072.])
        >>> scaler.step(opt)
        >>> scaler.update()
        >>> w
        Parameter containing:
        tensor([0.7000], requires_grad=True)
    """

    def __init__(self, device: str = "cuda", init_scale: float = 2.0**16,
                 growth_factor: float = 2.0, backoff_factor: float = 0.5,
                 growth_interval: int = 2000, enabled: bool = True) -> None:
        self._device = device
        self._enabled = enabled
        if _device_type(device) == "gpu" and enabled and not _gpu.is_available():
            import warnings

            warnings.warn("gradrs.cuda.amp.GradScaler is enabled, but CUDA is not available.  "
                          "Disabling.", stacklevel=2)
            self._enabled = False
        if self._enabled:
            if growth_factor <= 1.0:
                raise AssertionError("The growth factor must be > 1.0.")
            if backoff_factor >= 1.0:
                raise AssertionError("The backoff factor must be < 1.0.")
            self._init_scale = init_scale
            self._scale = None
            self._growth_factor = growth_factor
            self._backoff_factor = backoff_factor
            self._growth_interval = growth_interval
            self._init_growth_tracker = 0
            self._growth_tracker = None
            self._per_optimizer_states = defaultdict(_refresh_per_optimizer_state)

    def _check_scale_growth_tracker(self, funcname):
        fix = ("This may indicate your script did not use scaler.scale(loss or outputs) "
               "earlier in the iteration.")
        if self._scale is None:
            raise AssertionError(f"Attempted {funcname} but _scale is None.  " + fix)
        if self._growth_tracker is None:
            raise AssertionError(f"Attempted {funcname} but _growth_tracker is None.  " + fix)
        return self._scale, self._growth_tracker

    def _lazy_init_scale_growth_tracker(self, dev):
        self._scale = _native.full((), self._init_scale, dtype=_native.float32, device=dev)
        self._growth_tracker = _native.full((), self._init_growth_tracker,
                                            dtype=_native.int32, device=dev)

    def scale(self, outputs):
        """`outputs` (a tensor, or an iterable of them) multiplied by the scale."""
        if not self._enabled:
            return outputs
        if isinstance(outputs, _native.Tensor):
            if self._scale is None:
                self._lazy_init_scale_growth_tracker(outputs.device)
            return outputs * self._scale.to(device=outputs.device, non_blocking=True)

        def apply_scale(val):
            if isinstance(val, _native.Tensor):
                if self._scale is None:
                    self._lazy_init_scale_growth_tracker(val.device)
                return val * self._scale.to(device=val.device)
            if isinstance(val, abc.Iterable):
                iterable = map(apply_scale, val)
                if isinstance(val, (list, tuple)):
                    return type(val)(iterable)
                return iterable
            raise ValueError("outputs must be a Tensor or an iterable of Tensors")

        return apply_scale(outputs)

    def _unscale_grads_(self, optimizer, inv_scale, found_inf, allow_fp16):
        per_device = defaultdict(lambda: defaultdict(list))
        with no_grad():
            for group in optimizer.param_groups:
                for param in group["params"]:
                    if not isinstance(param, _native.Tensor):
                        raise AssertionError(
                            f"expected param to be gradrs.Tensor, got {type(param).__name__}")
                    if param.grad is None:
                        continue
                    if (not allow_fp16) and param.grad.dtype == _native.float16:
                        raise ValueError("Attempting to unscale FP16 gradients.")
                    grad = param.grad
                    per_device[str(grad.device)][grad.dtype].append(grad)
            found = {}
            for device, per_dtype in per_device.items():
                found[device] = found_inf.to(device=device, copy=True)
                scale_here = inv_scale.to(device=device, copy=True)
                for grads in per_dtype.values():
                    _non_finite_check_and_unscale_(grads, found[device], scale_here)
        return found

    def unscale_(self, optimizer) -> None:
        """Divide the gradients of `optimizer`'s parameters by the scale, in place."""
        if not self._enabled:
            return
        self._check_scale_growth_tracker("unscale_")
        optimizer_state = self._per_optimizer_states[id(optimizer)]
        if optimizer_state["stage"] is OptState.UNSCALED:
            raise RuntimeError(
                "unscale_() has already been called on this optimizer since the last update().")
        if optimizer_state["stage"] is OptState.STEPPED:
            raise RuntimeError("unscale_() is being called after step().")
        # The reciprocal is taken in float64 then rounded, except on the GPU, which has no
        # float64 (PyTorch does the same on MPS, which has none either).
        inv_scale = (self._scale.reciprocal() if self._scale.is_cuda
                     else self._scale.double().reciprocal().float())
        found_inf = _native.full((), 0.0, dtype=_native.float32, device=self._scale.device)
        optimizer_state["found_inf_per_device"] = self._unscale_grads_(
            optimizer, inv_scale, found_inf, False)
        optimizer_state["stage"] = OptState.UNSCALED

    def _maybe_opt_step(self, optimizer, optimizer_state, *args, **kwargs):
        if not sum(v.item() for v in optimizer_state["found_inf_per_device"].values()):
            return optimizer.step(*args, **kwargs)
        return None

    def step(self, optimizer, *args, **kwargs):
        """Unscale (unless `unscale_` ran) and call `optimizer.step(*args, **kwargs)` unless
        a gradient held an inf or a NaN; returns what `step` returned, or None if skipped."""
        if not self._enabled:
            return optimizer.step(*args, **kwargs)
        if "closure" in kwargs:
            raise RuntimeError(
                "Closure use is not currently supported if GradScaler is enabled.")
        self._check_scale_growth_tracker("step")
        optimizer_state = self._per_optimizer_states[id(optimizer)]
        if optimizer_state["stage"] is OptState.STEPPED:
            raise RuntimeError("step() has already been called since the last update().")
        if optimizer_state["stage"] is OptState.READY:
            self.unscale_(optimizer)
        if len(optimizer_state["found_inf_per_device"]) == 0:
            raise AssertionError("No inf checks were recorded for this optimizer.")
        retval = self._maybe_opt_step(optimizer, optimizer_state, *args, **kwargs)
        optimizer_state["stage"] = OptState.STEPPED
        return retval

    def update(self, new_scale=None) -> None:
        """Set the scale for the next iteration: `new_scale` if given, else back off after
        infs and grow after `growth_interval` clean steps."""
        if not self._enabled:
            return
        _scale, _growth_tracker = self._check_scale_growth_tracker("update")
        if new_scale is not None:
            if isinstance(new_scale, float):
                self._scale.fill_(new_scale)
            else:
                reason = ("new_scale should be a float or a 1-element gradrs.cuda.FloatTensor or "
                          "gradrs.FloatTensor with requires_grad=False.")
                if _device_type(new_scale.device) != _device_type(self._device):
                    raise AssertionError(reason)
                if new_scale.numel() != 1:
                    raise AssertionError(reason)
                if new_scale.requires_grad is True:
                    raise AssertionError(reason)
                self._scale.copy_(new_scale)
        else:
            found_infs = [found_inf.to(device=_scale.device)
                          for state in self._per_optimizer_states.values()
                          for found_inf in state["found_inf_per_device"].values()]
            if len(found_infs) == 0:
                raise AssertionError("No inf checks were recorded prior to update.")
            found_inf_combined = sum(f.item() for f in found_infs)
            self._update_scale(found_inf_combined)
        self._per_optimizer_states = defaultdict(_refresh_per_optimizer_state)

    def _update_scale(self, found_inf):
        """PyTorch's `_amp_update_scale_`: the scale is float32, the factors are doubles."""
        if found_inf:
            self._scale.fill_(self._scale.item() * self._backoff_factor)
            self._growth_tracker.fill_(0)
            return
        successful = int(self._growth_tracker.item()) + 1
        if successful == self._growth_interval:
            grown = _native.tensor(self._scale.item() * self._growth_factor,
                                   dtype=_native.float32)
            if math.isfinite(grown.item()):  # a float32 overflow keeps the old scale
                self._scale.fill_(grown.item())
            self._growth_tracker.fill_(0)
        else:
            self._growth_tracker.fill_(successful)

    def _get_scale_async(self):
        return self._scale

    def get_scale(self) -> float:
        """The current scale as a Python float (1.0 when disabled)."""
        if self._enabled:
            return self._init_scale if self._scale is None else self._scale.item()
        return 1.0

    def get_growth_factor(self) -> float:
        """The factor the scale is multiplied by after `growth_interval` clean steps.

        Examples:
            >>> gradrs.amp.GradScaler('cpu').get_growth_factor()
            2.0
        """
        return self._growth_factor

    def set_growth_factor(self, new_factor: float) -> None:
        """Sets the factor the scale grows by after `growth_interval` clean steps.

        Args:
            new_factor: the new growth factor (above 1).
        """
        self._growth_factor = new_factor

    def get_backoff_factor(self) -> float:
        """The factor the scale is multiplied by when a step finds inf or NaN gradients.

        Examples:
            >>> gradrs.amp.GradScaler('cpu').get_backoff_factor()
            0.5
        """
        return self._backoff_factor

    def set_backoff_factor(self, new_factor: float) -> None:
        """Sets the factor the scale is multiplied by when inf or NaN gradients are found.

        Args:
            new_factor: the new backoff factor (below 1).
        """
        self._backoff_factor = new_factor

    def get_growth_interval(self) -> int:
        """How many consecutive steps without inf or NaN gradients make the scale grow.

        Examples:
            >>> gradrs.amp.GradScaler('cpu').get_growth_interval()
            2000
        """
        return self._growth_interval

    def set_growth_interval(self, new_interval: int) -> None:
        """Sets how many clean steps make the scale grow.

        Args:
            new_interval: the new number of steps.
        """
        self._growth_interval = new_interval

    def _get_growth_tracker(self) -> int:
        if self._enabled:
            return (self._init_growth_tracker if self._growth_tracker is None
                    else int(self._growth_tracker.item()))
        return 0

    def is_enabled(self) -> bool:
        """Whether this scaler scales (`enabled=True` at construction); a disabled one passes every call through.

        Examples:
            >>> gradrs.amp.GradScaler('cpu', enabled=False).is_enabled()
            False
        """
        return self._enabled

    def state_dict(self) -> dict:
        """scale, growth_factor, backoff_factor, growth_interval and _growth_tracker
        (empty when disabled)."""
        if self._enabled:
            return {
                "scale": self.get_scale(),
                "growth_factor": self._growth_factor,
                "backoff_factor": self._backoff_factor,
                "growth_interval": self._growth_interval,
                "_growth_tracker": self._get_growth_tracker(),
            }
        return {}

    def load_state_dict(self, state_dict: dict) -> None:
        """Restores the scale and growth settings from a `state_dict()` (does nothing when the
        scaler is disabled).

        Args:
            state_dict: what `state_dict()` returned.

        Examples:
            >>> s = gradrs.amp.GradScaler('cpu', init_scale=1024.0)
            >>> t = gradrs.amp.GradScaler('cpu')
            >>> t.load_state_dict(s.state_dict())
            >>> t.get_scale()
            1024.0
        """
        if not self._enabled:
            return
        if len(state_dict) == 0:
            raise RuntimeError("The source state dict is empty, possibly because it was saved "
                               "from a disabled instance of GradScaler.")
        self._init_scale = state_dict["scale"]
        if self._scale is not None:
            self._scale.fill_(state_dict["scale"])
        self._growth_factor = state_dict["growth_factor"]
        self._backoff_factor = state_dict["backoff_factor"]
        self._growth_interval = state_dict["growth_interval"]
        self._init_growth_tracker = state_dict["_growth_tracker"]
        if self._growth_tracker is not None:
            self._growth_tracker.fill_(state_dict["_growth_tracker"])

    def __getstate__(self):
        state = self.__dict__.copy()
        if self._enabled:
            if len(self._per_optimizer_states) != 0:
                raise AssertionError("A GradScaler instance may only be pickled at the "
                                     "beginning of an iteration, or at the end after "
                                     "scaler.update().")
            state["_init_scale"] = self.get_scale()
            state["_init_growth_tracker"] = self._get_growth_tracker()
            state["_scale"] = None
            state["_growth_tracker"] = None
        return state

    def __setstate__(self, state):
        self.__dict__.update(state)
