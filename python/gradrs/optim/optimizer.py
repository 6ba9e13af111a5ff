"""The `Optimizer` base class: parameter groups, per-parameter state, state_dict and step hooks."""

from __future__ import annotations

import functools
import warnings
from collections import OrderedDict, defaultdict
from collections.abc import Iterable
from copy import deepcopy
from itertools import chain
from typing import Any, Union

from .. import _native, get_default_dtype
from .._grad_mode import is_grad_enabled, set_grad_enabled
from ..utils.hooks import RemovableHandle

Tensor = _native.Tensor
# What an optimizer takes as `params`, as PyTorch types it: tensors, parameter groups, or
# (name, tensor) pairs.
ParamsT = Union[Iterable[Tensor], Iterable[dict[str, Any]], Iterable[tuple[str, Tensor]]]

__all__ = ["Optimizer", "register_optimizer_step_pre_hook", "register_optimizer_step_post_hook"]

_global_optimizer_pre_hooks: OrderedDict = OrderedDict()
_global_optimizer_post_hooks: OrderedDict = OrderedDict()


class _RequiredParameter:
    """Singleton marking an optimizer option a parameter group must give."""

    def __repr__(self) -> str:
        return "<required parameter>"


required = _RequiredParameter()


def _typename(obj) -> str:
    """What `torch.typename` prints: a tensor's legacy type, else the qualified class name."""
    if isinstance(obj, Tensor):
        return obj.type()
    cls = type(obj)
    module = cls.__module__
    if module in ("", "builtins"):
        return cls.__qualname__
    return f"{module}.{cls.__qualname__}"


def _get_value(x):
    """A Python number from a 0-dim tensor: PyTorch reads `step` with .item(), and reads a
    tensor passed as an op's `alpha=`/`value=` (a tensor lr) as its value, which gradrs's
    bindings do not, so such hyperparameters go through here too."""
    return x.item() if isinstance(x, Tensor) else x


def _to_scalar(x):
    """A 1-element hyperparameter tensor with dimensions becomes 0-dim; other values unchanged."""
    if isinstance(x, Tensor) and x.dim() != 0:
        return x.squeeze()
    return x


def _get_scalar_dtype(is_fused=None):
    """The dtype of scalar state such as `step`: float32, or float64 under that default."""
    if is_fused:
        return _native.float32
    return _native.float64 if get_default_dtype() == _native.float64 else _native.float32


def _step_tensor(value, p, on_param_device, is_fused=None):
    """A scalar state tensor (`step`, `mu_product`) as PyTorch makes it: on the CPU unless
    capturable/fused put it on the parameter's device."""
    if on_param_device:
        return _native.tensor(value, dtype=_get_scalar_dtype(is_fused=is_fused), device=p.device)
    return _native.tensor(value, dtype=_get_scalar_dtype())


# PyTorch's lists, which its error messages print; gradrs's "gpu" device stands for cuda.
_CAPTURABLE_DEVICES = ["cuda", "xpu", "hpu", "privateuseone", "xla"]
_FUSED_DEVICES = ["mps", "cuda", "xpu", "hpu", "cpu", "mtia", "privateuseone"]


def _device_kind(t) -> str:
    kind = t.device.type
    return "cuda" if kind == "gpu" else kind


def _check_capturable(param, *steps, supports_xla=True, what="params and state_steps"):
    """PyTorch's assertion that capturable state lives with its parameter on an accelerator."""
    devices = _CAPTURABLE_DEVICES if supports_xla else _CAPTURABLE_DEVICES[:-1]
    kind = _device_kind(param)
    if not (all(_device_kind(s) == kind for s in steps) and kind in devices):
        raise AssertionError(
            f"If capturable=True, {what} must be on supported devices: {devices}."
        )


def _device_dtype_check_for_fused(p) -> None:
    if not (_device_kind(p) in _FUSED_DEVICES and p.is_floating_point()):
        raise RuntimeError(
            "`fused=True` requires all the params to be floating point Tensors of "
            f"supported devices: {_FUSED_DEVICES} but {p.dtype} and {p.device.type}"
        )


def _use_grad_for_differentiable(func):
    """Runs `step` with grad mode set to the optimizer's `differentiable` flag."""

    @functools.wraps(func)
    def _use_grad(self, *args, **kwargs):
        prev_grad = is_grad_enabled()
        try:
            set_grad_enabled(self.defaults["differentiable"])
            return func(self, *args, **kwargs)
        finally:
            set_grad_enabled(prev_grad)

    return _use_grad


def register_optimizer_step_pre_hook(hook):
    """Register a pre hook common to all optimizers: ``hook(optimizer, args, kwargs)``."""
    handle = RemovableHandle(_global_optimizer_pre_hooks)
    _global_optimizer_pre_hooks[handle.id] = hook
    return handle


def register_optimizer_step_post_hook(hook):
    """Register a post hook common to all optimizers: ``hook(optimizer, args, kwargs)``."""
    handle = RemovableHandle(_global_optimizer_post_hooks)
    _global_optimizer_post_hooks[handle.id] = hook
    return handle


class Optimizer:
    """Base class for all optimizers.

    Args:
        params (iterable): an iterable of Tensors, of (name, Tensor) pairs, or of dicts
            (parameter groups).
        defaults (dict): default values of the optimization options.
    """

    def __init__(self, params: ParamsT, defaults: dict[str, Any]) -> None:
        self.defaults = defaults
        self._optimizer_step_pre_hooks = OrderedDict()
        self._optimizer_step_post_hooks = OrderedDict()
        self._optimizer_state_dict_pre_hooks = OrderedDict()
        self._optimizer_state_dict_post_hooks = OrderedDict()
        self._optimizer_load_state_dict_pre_hooks = OrderedDict()
        self._optimizer_load_state_dict_post_hooks = OrderedDict()

        self._patch_step_function()

        if isinstance(params, Tensor):
            raise TypeError(
                "params argument given to the optimizer should be "
                "an iterable of Tensors or dicts, but got " + _typename(params)
            )

        self.state = defaultdict(dict)
        self.param_groups = []

        param_groups = list(params)
        if len(param_groups) == 0:
            raise ValueError("optimizer got an empty parameter list")
        if not isinstance(param_groups[0], dict):
            param_groups = [{"params": param_groups}]

        for param_group in param_groups:
            self.add_param_group(param_group)

        self._warned_capturable_if_run_uncaptured = True

    def __getstate__(self):
        return {
            "defaults": self.defaults,
            "state": self.state,
            "param_groups": self.param_groups,
        }

    def __setstate__(self, state) -> None:
        self.__dict__.update(state)
        for name in (
            "_optimizer_step_pre_hooks",
            "_optimizer_step_post_hooks",
            "_optimizer_state_dict_pre_hooks",
            "_optimizer_state_dict_post_hooks",
            "_optimizer_load_state_dict_pre_hooks",
            "_optimizer_load_state_dict_post_hooks",
        ):
            if name not in self.__dict__:
                setattr(self, name, OrderedDict())
        self._patch_step_function()
        self.defaults.setdefault("differentiable", False)

    def __repr__(self) -> str:
        format_string = self.__class__.__name__ + " ("
        for i, group in enumerate(self.param_groups):
            format_string += "\n"
            format_string += f"Parameter Group {i}\n"
            for key in sorted(group.keys()):
                if key != "params":
                    format_string += f"    {key}: {group[key]}\n"
        format_string += ")"
        return format_string

    def _optimizer_step_code(self) -> None:
        """Called after each step (PyTorch's profiler entry point); does nothing."""

    @staticmethod
    def profile_hook_step(func):
        """Wraps a `step` so the global and per-instance step hooks run around it."""

        @functools.wraps(func)
        def wrapper(*args, **kwargs):
            self = args[0]
            for pre_hook in chain(
                _global_optimizer_pre_hooks.values(), self._optimizer_step_pre_hooks.values()
            ):
                result = pre_hook(self, args, kwargs)
                if result is not None:
                    if isinstance(result, tuple) and len(result) == 2:
                        args, kwargs = result
                    else:
                        raise RuntimeError(
                            f"{func} must return None or a tuple of (new_args, new_kwargs), "
                            f"but got {result}."
                        )
            out = func(*args, **kwargs)
            self._optimizer_step_code()
            for post_hook in chain(
                self._optimizer_step_post_hooks.values(), _global_optimizer_post_hooks.values()
            ):
                post_hook(self, args, kwargs)
            return out

        return wrapper

    def _patch_step_function(self) -> None:
        # As PyTorch: the class's step is wrapped once, the first time an instance is made.
        self._zero_grad_profile_name = f"Optimizer.zero_grad#{self.__class__.__name__}.zero_grad"
        hooked = getattr(self.__class__.step, "hooked", None)
        if not hooked:
            self.__class__.step = self.profile_hook_step(self.__class__.step)
            self.__class__.step.hooked = True

    def register_step_pre_hook(self, hook):
        """Register ``hook(optimizer, args, kwargs) -> None or (args, kwargs)`` run before step."""
        handle = RemovableHandle(self._optimizer_step_pre_hooks)
        self._optimizer_step_pre_hooks[handle.id] = hook
        return handle

    def register_step_post_hook(self, hook):
        """Register ``hook(optimizer, args, kwargs) -> None`` run after step."""
        handle = RemovableHandle(self._optimizer_step_post_hooks)
        self._optimizer_step_post_hooks[handle.id] = hook
        return handle

    def _register(self, hooks, hook, prepend):
        handle = RemovableHandle(hooks)
        hooks[handle.id] = hook
        if prepend:
            hooks.move_to_end(handle.id, last=False)
        return handle

    def register_state_dict_pre_hook(self, hook, prepend: bool = False):
        """Register ``hook(optimizer) -> None`` run before :meth:`state_dict`."""
        return self._register(self._optimizer_state_dict_pre_hooks, hook, prepend)

    def register_state_dict_post_hook(self, hook, prepend: bool = False):
        """Register ``hook(optimizer, state_dict) -> state_dict or None`` run after it."""
        return self._register(self._optimizer_state_dict_post_hooks, hook, prepend)

    def register_load_state_dict_pre_hook(self, hook, prepend: bool = False):
        """Register ``hook(optimizer, state_dict) -> state_dict or None`` run before loading."""
        return self._register(self._optimizer_load_state_dict_pre_hooks, hook, prepend)

    def register_load_state_dict_post_hook(self, hook, prepend: bool = False):
        """Register ``hook(optimizer) -> None`` run after :meth:`load_state_dict`."""
        return self._register(self._optimizer_load_state_dict_post_hooks, hook, prepend)

    def state_dict(self):
        """The optimizer's state: ``{'state': {index: {...}}, 'param_groups': [...]}``, with
        each parameter replaced by its index in the order of the groups."""
        for pre_hook in self._optimizer_state_dict_pre_hooks.values():
            pre_hook(self)

        param_mappings = {}
        start_index = 0

        def pack_group(group):
            nonlocal start_index
            packed = {k: v for k, v in group.items() if k != "params"}
            param_mappings.update(
                {
                    id(p): i
                    for i, p in enumerate(group["params"], start_index)
                    if id(p) not in param_mappings
                }
            )
            packed["params"] = [param_mappings[id(p)] for p in group["params"]]
            start_index += len(packed["params"])
            return packed

        param_groups = [pack_group(g) for g in self.param_groups]
        packed_state = {
            (param_mappings[id(k)] if isinstance(k, Tensor) else k): v
            for k, v in self.state.items()
        }
        state_dict = {"state": packed_state, "param_groups": param_groups}

        for post_hook in self._optimizer_state_dict_post_hooks.values():
            hook_result = post_hook(self, state_dict)
            if hook_result is not None:
                state_dict = hook_result
        return state_dict

    @staticmethod
    def _process_value_according_to_param_policy(param, value, param_id, param_groups, key=None):
        fused = False
        capturable = False
        for pg in param_groups:
            if param_id in pg["params"]:
                fused = pg.get("fused", False)
                capturable = pg.get("capturable", False)
                break
        if key == "step":
            if capturable or fused:
                return value.to(dtype=_native.float32, device=param.device)
            return value
        if param.is_floating_point():
            return value.to(dtype=param.dtype, device=param.device)
        return value.to(device=param.device)

    def load_state_dict(self, state_dict) -> None:
        """Load a state returned by :meth:`state_dict`; tensors are cast to their parameter's
        dtype and device (a float `step` stays as saved)."""
        state_dict = state_dict.copy()

        for pre_hook in self._optimizer_load_state_dict_pre_hooks.values():
            hook_result = pre_hook(self, state_dict)
            if hook_result is not None:
                state_dict = hook_result

        groups = self.param_groups
        saved_groups = deepcopy(state_dict["param_groups"])

        if len(groups) != len(saved_groups):
            raise ValueError("loaded state dict has a different number of parameter groups")
        param_lens = (len(g["params"]) for g in groups)
        saved_lens = (len(g["params"]) for g in saved_groups)
        if any(p_len != s_len for p_len, s_len in zip(param_lens, saved_lens)):
            raise ValueError(
                "loaded state dict contains a parameter group "
                "that doesn't match the size of optimizer's group"
            )

        id_map = dict(
            zip(
                chain.from_iterable(g["params"] for g in saved_groups),
                chain.from_iterable(g["params"] for g in groups),
            )
        )

        def _cast(param, value, param_id=None, param_groups=None, key=None):
            if isinstance(value, Tensor):
                return Optimizer._process_value_according_to_param_policy(
                    param, value, param_id, param_groups, key
                )
            if isinstance(value, dict):
                return {
                    k: _cast(param, v, param_id=param_id, param_groups=param_groups, key=k)
                    for k, v in value.items()
                }
            if isinstance(value, Iterable) and not isinstance(value, str):
                return type(value)(
                    _cast(param, v, param_id=param_id, param_groups=param_groups) for v in value
                )
            return value

        state = defaultdict(dict)
        for k, v in state_dict["state"].items():
            if k in id_map:
                param = id_map[k]
                state[param] = _cast(param, v, param_id=k, param_groups=state_dict["param_groups"])
            else:
                state[k] = v

        def update_group(group, new_group):
            new_group["params"] = group["params"]
            if "param_names" in group and "param_names" not in new_group:
                new_group["param_names"] = group["param_names"]
            return new_group

        param_groups = [update_group(g, ng) for g, ng in zip(groups, saved_groups)]
        self.__setstate__({"state": state, "param_groups": param_groups})

        for post_hook in self._optimizer_load_state_dict_post_hooks.values():
            post_hook(self)

    def zero_grad(self, set_to_none: bool = True) -> None:
        """Reset the gradients of all optimized tensors: to None, or to zeros in place."""
        # As PyTorch: a subclass that never ran Optimizer.__init__ (a Lookahead-style wrapper)
        # gets its step wrapped here, so its step then needs the hook dicts __init__ makes.
        if not hasattr(self, "_zero_grad_profile_name"):
            self._patch_step_function()
        for group in self.param_groups:
            for p in group["params"]:
                if p.grad is not None:
                    if set_to_none:
                        p.grad = None
                    else:
                        if p.grad.grad_fn is not None:
                            p.grad.detach_()
                        else:
                            p.grad.requires_grad_(False)
                        p.grad.zero_()

    def step(self, closure=None):
        """Perform a single optimization step; `closure` re-evaluates the loss."""
        raise NotImplementedError

    def add_param_group(self, param_group) -> None:
        """Add a parameter group (a dict with 'params' and any per-group options)."""
        if not isinstance(param_group, dict):
            raise TypeError(f"param_group must be a dict, but got {type(param_group)}")

        params = param_group["params"]
        if isinstance(params, Tensor):
            param_group["params"] = [params]
        elif isinstance(params, set):
            raise TypeError(
                "optimizer parameters need to be organized in ordered collections, but "
                "the ordering of tensors in sets will change between runs. "
                "Please use a list instead."
            )
        else:
            param_group["params"] = list(params)

        extracted_param_tensors = []
        extracted_param_names = []
        for param in param_group["params"]:
            if isinstance(param, tuple):
                extracted_param_names.append(param[0])
                extracted_param_tensors.append(param[1])
            else:
                extracted_param_tensors.append(param)

        param_group["params"] = extracted_param_tensors
        if len(extracted_param_names) != 0:
            if len(extracted_param_names) == len(extracted_param_tensors):
                param_group["param_names"] = extracted_param_names
            else:
                raise ValueError(
                    "all optimizer params should be with/without names. "
                    "Some param names are missing"
                )

        for param in param_group["params"]:
            if not isinstance(param, Tensor):
                raise TypeError(
                    "optimizer can only optimize Tensors, "
                    "but one of the params is " + _typename(param)
                )
            if not self.defaults.get("differentiable", None) and not (
                param.is_leaf or param.retains_grad
            ):
                raise ValueError("can't optimize a non-leaf Tensor")

        for name, default in self.defaults.items():
            if default is required and name not in param_group:
                raise ValueError(
                    "parameter group didn't specify a value of required "
                    f"optimization parameter {name}"
                )
            param_group.setdefault(name, default)

        params = param_group["params"]
        if len(params) != len(set(params)):
            warnings.warn(
                "optimizer contains a parameter group with duplicate parameters; "
                "in future, this will cause an error; "
                "see github.com/pytorch/pytorch/issues/40967 for more information",
                stacklevel=3,
            )

        param_set = set()
        for group in self.param_groups:
            param_set.update(set(group["params"]))
            if ("param_names" in param_group) != ("param_names" in group):
                current_group_txt = (
                    "with names" if "param_names" in param_group else "without names"
                )
                raise ValueError(
                    "all optimizer param groups should be with/without names. "
                    f"cannot add param group {current_group_txt} to the optimizer"
                )

        if not param_set.isdisjoint(set(param_group["params"])):
            raise ValueError("some parameters appear in more than one parameter group")

        self.param_groups.append(param_group)
