"""`autocast`: PyTorch's automatic mixed precision, with its per-op cast lists.

Inside an enabled `autocast(device_type)` region, an op in PyTorch's lower-precision list
(matmul, mm, bmm, addmm, linear, convolutions, prelu, attention...) casts its floating-point
inputs on that device to the region's dtype (bfloat16 on the CPU, float16 on the GPU by
default); an op in the float32 list (exp, log,
pow, softmax, sum, norms, the losses...) casts them to float32; an op in the promote list
(addcmul, atan2, dot, bilinear...) casts them to the widest dtype among them. float64 tensors,
integer tensors, tensors on another device, in-place ops and calls with an explicit `dtype=`
are left alone, as in PyTorch. Parameters cast to the region's dtype are cached for the outermost region
(`cache_enabled`), so each is cast once per region.

PyTorch autocasts in its dispatcher; gradrs wraps the Python entry points instead (the
`Tensor` methods, `gradrs.<fn>` and `gradrs.nn.functional.<fn>`), and only while some thread
has an autocast region open, so code outside autocast pays nothing. The wrappers look up the
calling thread's state, so autocast stays per thread as in PyTorch. Code that reached a
native function directly (`gradrs._native`) bypasses the wrappers.

Devices: 'cuda' (or 'gpu') is gradrs's GPU, with PyTorch's CUDA lists and float16 by default;
'cpu' has PyTorch's CPU lists and bfloat16 by default (float16 too). The GPU holds no bfloat16
tensors, so a GPU region asking for it raises PyTorch's error for a device without bfloat16.
"""

from __future__ import annotations

import collections.abc
import functools
import threading
import warnings

import numpy as np

from .. import _native
from .. import gpu as _gpu

__all__ = ["autocast", "autocast_decorator", "custom_bwd", "custom_fwd", "is_autocast_available"]

_float16, _float32, _float64 = _native.float16, _native.float32, _native.float64
_bfloat16 = _native.bfloat16

# ---------------------------------------------------------------------------------------------
# per-thread state (PyTorch keeps autocast state thread-local)
# ---------------------------------------------------------------------------------------------


class _State(threading.local):
    def __init__(self):
        self.enabled = {"cpu": False, "gpu": False}
        # The default lower-precision dtypes, PyTorch's: bfloat16 on the CPU, float16 on the GPU.
        self.dtype = {"cpu": _bfloat16, "gpu": _float16}
        self.cache_enabled = True
        self.nesting = 0
        self.cache = {}  # id(param) -> (param, its cast); see _cast
        self.switched_on = {}  # device -> switched on by set_autocast_enabled (_set_enabled)


_state = _State()


def _device_key(device_type: str) -> str | None:
    """'cpu' / 'gpu' for a device type autocast supports ('cuda' is the GPU), else None.

    A string that is no device at all raises gradrs's device error, as PyTorch raises its own.
    """
    kind = _native.device(device_type).type
    return {"cpu": "cpu", "gpu": "gpu", "cuda": "gpu"}.get(kind)


def is_autocast_available(device_type: str) -> bool:
    """Whether autocast supports `device_type` ('cpu', 'cuda' and 'gpu' in gradrs).

    Examples:
        >>> gradrs.amp.is_autocast_available('cpu')
        True
    """
    return _device_key(device_type) is not None


def _check_type(fn, name, position, value, kind, kind_name):
    if not isinstance(value, kind):
        raise TypeError(f"{fn}(): argument '{name}' (position {position}) must be {kind_name}, "
                        f"not {type(value).__name__}")


def is_autocast_enabled(device_type: str | None = None) -> bool:
    """Whether autocast is enabled for `device_type` in this thread (no argument: the GPU,
    `torch.is_autocast_enabled()`'s CUDA).

    Examples:
        >>> gradrs.is_autocast_enabled('cpu')
        False
        >>> with gradrs.autocast('cpu', dtype=gradrs.float16):
        ...     print(gradrs.is_autocast_enabled('cpu'))
        ...
        True
    """
    if device_type is not None:
        _check_type("is_autocast_enabled", "device_type", 1, device_type, str, "str")
    key = "gpu" if device_type is None else _device_key(device_type)
    return key is not None and _state.enabled[key]


def _set_enabled(key, enabled):
    """Turn autocast on or off for a device outside any region (`set_autocast_enabled`). The
    op wrappers are installed while some region is open; being switched on by this call counts
    as one open region of the thread until it is switched off again."""
    _state.enabled[key] = enabled
    opened = _state.switched_on.get(key, False)
    if enabled and not opened:
        _state.switched_on[key] = True
        _region_opened()
    elif not enabled and opened:
        _state.switched_on[key] = False
        _region_closed()


def set_autocast_enabled(*args) -> None:
    """`set_autocast_enabled(device_type, enabled)` (or `set_autocast_enabled(enabled)` for
    the GPU): switch autocast on or off for that device in this thread.

    Examples:
        >>> gradrs.set_autocast_enabled('cpu', True)
        >>> gradrs.is_autocast_enabled('cpu')
        True
        >>> gradrs.set_autocast_enabled('cpu', False)
    """
    if len(args) == 1:
        _check_type("set_autocast_enabled", "enabled", 1, args[0], bool, "bool")
        _set_enabled("gpu", args[0])
        return
    if len(args) != 2:
        raise TypeError(f"set_autocast_enabled() takes 1 or 2 arguments ({len(args)} given)")
    device_type, enabled = args
    _check_type("set_autocast_enabled", "device_type", 1, device_type, str, "str")
    _check_type("set_autocast_enabled", "enabled", 2, enabled, bool, "bool")
    key = _device_key(device_type)
    if key is not None:
        _set_enabled(key, enabled)


def get_autocast_dtype(device_type: str):
    """The lower-precision dtype autocast uses on `device_type` in this thread (bfloat16 on the
    CPU, float16 on the GPU, until `set_autocast_dtype` changes it).

    Examples:
        >>> gradrs.get_autocast_dtype('cpu')
        gradrs.bfloat16
    """
    _check_type("get_autocast_dtype", "device_type", 1, device_type, str, "str")
    key = _device_key(device_type)
    if key is None:
        raise RuntimeError(f"User specified an unsupported autocast device_type '{device_type}'")
    return _state.dtype[key]


def set_autocast_dtype(device_type: str, dtype) -> None:
    """Set the lower-precision dtype autocast regions on `device_type` use in this thread."""
    _check_type("set_autocast_dtype", "device_type", 1, device_type, str, "str")
    _check_type("set_autocast_dtype", "dtype", 2, dtype, _native.dtype, "gradrs.dtype")
    key = _device_key(device_type)
    if key is not None:
        _state.dtype[key] = dtype


def autocast_increment_nesting() -> int:
    """One more autocast region open in this thread; returns how many are."""
    _state.nesting += 1
    return _state.nesting


def autocast_decrement_nesting() -> int:
    """One autocast region fewer in this thread; returns how many are left."""
    _state.nesting -= 1
    return _state.nesting


def _deprecated(old, new):
    warnings.warn(f"gradrs.{old} is deprecated. Please use gradrs.{new} instead.",
                  DeprecationWarning, stacklevel=3)


def is_autocast_cpu_enabled() -> bool:
    """Deprecated: `is_autocast_enabled('cpu')`.

    Examples:
        >>> gradrs.is_autocast_cpu_enabled()
        False
    """
    _deprecated("is_autocast_cpu_enabled()", "is_autocast_enabled('cpu')")
    return _state.enabled["cpu"]


def set_autocast_cpu_enabled(enabled) -> None:
    """Deprecated: `set_autocast_enabled('cpu', enabled)`."""
    _deprecated("set_autocast_cpu_enabled(enabled)", "set_autocast_enabled('cpu', enabled)")
    if not isinstance(enabled, bool):
        raise TypeError(f"enabled must be a bool (got {type(enabled).__name__})")
    _set_enabled("cpu", enabled)


def get_autocast_cpu_dtype():
    """Deprecated: `get_autocast_dtype('cpu')`."""
    _deprecated("get_autocast_cpu_dtype()", "get_autocast_dtype('cpu')")
    return get_autocast_dtype("cpu")


def get_autocast_gpu_dtype():
    """Deprecated: `get_autocast_dtype('cuda')`."""
    _deprecated("get_autocast_gpu_dtype()", "get_autocast_dtype('cuda')")
    return get_autocast_dtype("cuda")


def set_autocast_cpu_dtype(dtype) -> None:
    """Deprecated: `set_autocast_dtype('cpu', dtype)`."""
    _deprecated("set_autocast_cpu_dtype(dtype)", "set_autocast_dtype('cpu', dtype)")
    if not isinstance(dtype, _native.dtype):
        raise TypeError(f"dtype must be a gradrs.dtype (got {type(dtype).__name__})")
    _state.dtype["cpu"] = dtype


def set_autocast_gpu_dtype(dtype) -> None:
    """Deprecated: `set_autocast_dtype('cuda', dtype)`."""
    _deprecated("set_autocast_gpu_dtype(dtype)", "set_autocast_dtype('cuda', dtype)")
    if not isinstance(dtype, _native.dtype):
        raise TypeError(f"dtype must be a gradrs.dtype (got {type(dtype).__name__})")
    _state.dtype["gpu"] = dtype


def is_autocast_cache_enabled() -> bool:
    """Whether autocast caches the casts of parameters within a region.

    Examples:
        >>> gradrs.is_autocast_cache_enabled()
        True
    """
    return _state.cache_enabled


def set_autocast_cache_enabled(enabled: bool) -> None:
    """Whether regions entered from now on cache the casts of parameters."""
    if not isinstance(enabled, bool):
        raise TypeError(f"enabled must be a bool (got {type(enabled).__name__})")
    _state.cache_enabled = enabled


def clear_autocast_cache() -> None:
    """Drop the cached casts of parameters."""
    _state.cache.clear()


# ---------------------------------------------------------------------------------------------
# the cast lists (PyTorch's aten/src/ATen/autocast_mode, as far as gradrs has the ops)
# ---------------------------------------------------------------------------------------------

LOWER, FP32, SET_OPT_DTYPE, PROMOTE, BANNED = "lower", "fp32", "set_opt_dtype", "promote", "banned"

_GPU_LOWER = """
    Tensor.matmul Tensor.__matmul__ Tensor.__rmatmul__ Tensor.mm Tensor.bmm Tensor.addmm Tensor.mv
    Tensor.addmv Tensor.addr Tensor.baddbmm Tensor.addbmm gradrs.einsum gradrs.chain_matmul
    F.linear F.conv1d F.conv2d F.conv3d F.conv_transpose1d F.conv_transpose2d F.conv_transpose3d
    F.prelu F.scaled_dot_product_attention
    gradrs.conv1d gradrs.conv2d gradrs.conv3d gradrs.conv_transpose1d gradrs.conv_transpose2d
    gradrs.conv_transpose3d gradrs.prelu
"""
_GPU_FP32 = """
    Tensor.acos Tensor.asin Tensor.cosh Tensor.erfinv Tensor.exp Tensor.expm1 Tensor.log
    Tensor.log10 Tensor.log2 Tensor.log1p Tensor.reciprocal Tensor.rsqrt Tensor.sinh Tensor.tan
    Tensor.pow Tensor.__pow__ Tensor.__rpow__ Tensor.__rtruediv__ Tensor.__rdiv__ Tensor.norm
    Tensor.dist Tensor.renorm Tensor.logsumexp gradrs.cdist
    F.softplus F.layer_norm F.group_norm F.cosine_similarity F.poisson_nll_loss
    F.cosine_embedding_loss F.nll_loss F.hinge_embedding_loss F.kl_div F.l1_loss F.smooth_l1_loss
    F.huber_loss F.mse_loss F.margin_ranking_loss F.multilabel_margin_loss F.soft_margin_loss
    F.triplet_margin_loss F.multi_margin_loss F.binary_cross_entropy_with_logits F.pdist
    F.normalize F.cross_entropy gradrs.cosine_similarity gradrs.pdist
"""
# Ops whose output PyTorch makes float32 by passing dtype=float32 (when the caller gave none);
# casting the input to float32 first computes the same values.
_GPU_SET_OPT_DTYPE = """
    Tensor.prod Tensor.softmax Tensor.log_softmax Tensor.cumprod Tensor.cumsum Tensor.sum
    F.softmax F.log_softmax F.softmin
"""
_GPU_PROMOTE = """
    Tensor.addcdiv Tensor.addcmul Tensor.atan2 Tensor.cross Tensor.dot Tensor.scatter_add
    gradrs.tensordot F.bilinear F.grid_sample gradrs.bilinear
"""
_CPU_LOWER = """
    Tensor.matmul Tensor.__matmul__ Tensor.__rmatmul__ Tensor.mm Tensor.bmm Tensor.addmm
    Tensor.baddbmm Tensor.addbmm F.linear F.conv1d F.conv2d F.conv3d F.conv_transpose1d
    F.conv_transpose2d F.conv_transpose3d F.prelu F.scaled_dot_product_attention
    gradrs.conv1d gradrs.conv2d gradrs.conv3d gradrs.conv_transpose1d gradrs.conv_transpose2d
    gradrs.conv_transpose3d gradrs.prelu
"""
_CPU_FP32 = """
    Tensor.prod gradrs.cdist F.binary_cross_entropy F.mse_loss F.cosine_embedding_loss F.nll_loss
    F.hinge_embedding_loss F.poisson_nll_loss F.smooth_l1_loss F.cross_entropy F.l1_loss
    F.huber_loss F.margin_ranking_loss F.soft_margin_loss F.triplet_margin_loss
    F.multi_margin_loss F.kl_div F.multilabel_margin_loss F.binary_cross_entropy_with_logits
    F.grid_sample
"""


def _table():
    """{(owner name, attribute): {device: policy}}."""
    table = {}
    for device, lists in (
        ("gpu", ((_GPU_LOWER, LOWER), (_GPU_FP32, FP32), (_GPU_SET_OPT_DTYPE, SET_OPT_DTYPE),
                 (_GPU_PROMOTE, PROMOTE), ("F.binary_cross_entropy", BANNED))),
        ("cpu", ((_CPU_LOWER, LOWER), (_CPU_FP32, FP32))),
    ):
        for names, policy in lists:
            for entry in names.split():
                owner, attr = entry.split(".")
                table.setdefault((owner, attr), {})[device] = policy
                if owner == "Tensor" and not attr.startswith("__"):
                    # the functional form too (`gradrs.mm(a, b, out=c)`: see _wrap)
                    table.setdefault(("gradrs", attr), {})[device] = policy
    return table


_TABLE = _table()

_BANNED_MESSAGE = (
    "gradrs.nn.functional.binary_cross_entropy and gradrs.nn.BCELoss are unsafe to autocast.\n"
    "Many models use a sigmoid layer right before the binary cross entropy layer.\n"
    "In this case, combine the two layers using gradrs.nn.functional."
    "binary_cross_entropy_with_logits\n"
    "or gradrs.nn.BCEWithLogitsLoss.  binary_cross_entropy_with_logits and BCEWithLogits are\n"
    "safe to autocast."
)


def _first_tensor(values):
    for v in values:
        if isinstance(v, _native.Tensor):
            return v
        if isinstance(v, (list, tuple)):
            t = _first_tensor(v)
            if t is not None:
                return t
    return None


def _eligible(t, device):
    return (t.is_floating_point() and t.dtype is not _float64
            and (t.is_cuda if device == "gpu" else not t.is_cuda))


def _cast(value, device, dtype):
    """`value` with its eligible tensors (recursively in lists/tuples) cast to `dtype`."""
    if isinstance(value, _native.Tensor):
        if not _eligible(value, device) or value.dtype is dtype:
            return value
        # PyTorch caches the lower-precision copy of a float32 leaf that requires grad (a
        # parameter) for the outermost autocast region.
        cacheable = (_state.cache_enabled and dtype is not _float32 and value.is_leaf
                     and value.requires_grad and value.dtype is _float32)
        if cacheable:
            hit = _state.cache.get(id(value))
            if hit is not None and hit[0] is value:
                return hit[1]
        cast = value.to(dtype)
        if cacheable:
            _state.cache[id(value)] = (value, cast)
        return cast
    if isinstance(value, (list, tuple)):
        return type(value)(_cast(v, device, dtype) for v in value)
    return value


def _widest(values, device, widest):
    for v in values:
        if isinstance(v, _native.Tensor):
            if _eligible(v, device) and v.dtype is _float32:
                return _float32
        elif isinstance(v, (list, tuple)) and _widest(v, device, widest) is _float32:
            return _float32
    return widest


# Where a positional `dtype` sits in the SET_OPT_DTYPE ops that take one positionally.
_DTYPE_POSITION = {("F", "softmax"): 3, ("F", "log_softmax"): 3, ("F", "softmin"): 3,
                   ("Tensor", "softmax"): 2, ("Tensor", "log_softmax"): 2}


def _wrap(fn, policies, key):
    dtype_position = _DTYPE_POSITION.get(key)

    @functools.wraps(fn)
    def autocast_wrapper(*args, **kwargs):
        first = _first_tensor(args)
        if first is None:
            first = _first_tensor(kwargs.values())
        if first is None:
            return fn(*args, **kwargs)
        device = "gpu" if first.is_cuda else "cpu"
        policy = policies.get(device)
        if policy is None or not _state.enabled[device]:
            return fn(*args, **kwargs)
        if kwargs.get("out") is not None:
            return _without_autocast(device, fn, args, kwargs)  # out= calls are not eligible
        if policy == BANNED:
            raise RuntimeError(_BANNED_MESSAGE)
        if policy == SET_OPT_DTYPE:
            explicit = kwargs.get("dtype") is not None or (
                dtype_position is not None and len(args) > dtype_position
                and args[dtype_position] is not None)
            if explicit:
                return fn(*args, **kwargs)  # an explicit dtype wins
            dtype = _float32
        elif policy == FP32:
            dtype = _float32
        elif policy == LOWER:
            dtype = _state.dtype[device]
        else:  # PROMOTE
            dtype = _widest(kwargs.values(), device, _widest(args, device, _state.dtype[device]))
        args = _cast(args, device, dtype)
        kwargs = {k: _cast(v, device, dtype) for k, v in kwargs.items()}
        return _without_autocast(device, fn, args, kwargs)

    return autocast_wrapper


def _without_autocast(device, fn, args, kwargs):
    """Run a wrapped op with autocast off, as PyTorch's autocast kernels redispatch with the
    autocast key excluded: the ops it is made of keep the dtypes it was given."""
    _state.enabled[device] = False
    try:
        return fn(*args, **kwargs)
    finally:
        _state.enabled[device] = True


# ---------------------------------------------------------------------------------------------
# installing the wrappers while any thread has an autocast region open
# ---------------------------------------------------------------------------------------------

_install_lock = threading.Lock()
_open_regions = 0
_originals = []  # (owner object, attribute, original value) of the installed wrappers


def _owners():
    import gradrs
    import gradrs.nn.functional as functional

    return {"Tensor": _native.Tensor, "gradrs": gradrs, "F": functional}


def _install():
    owners = _owners()
    for (owner_name, attr), policies in _TABLE.items():
        owner = owners[owner_name]
        original = (owner.__dict__.get(attr) if isinstance(owner, type)
                    else getattr(owner, attr, None))
        if original is None:
            continue  # gradrs does not have this op
        fn = getattr(owner, attr)
        _originals.append((owner, attr, original))
        setattr(owner, attr, _wrap(fn, policies, (owner_name, attr)))


def _uninstall():
    while _originals:
        owner, attr, original = _originals.pop()
        setattr(owner, attr, original)


def _region_opened():
    global _open_regions
    with _install_lock:
        if _open_regions == 0:
            _install()
        _open_regions += 1


def _region_closed():
    global _open_regions
    with _install_lock:
        _open_regions -= 1
        if _open_regions == 0:
            _uninstall()


# ---------------------------------------------------------------------------------------------
# the context manager
# ---------------------------------------------------------------------------------------------


def autocast_decorator(autocast_instance, func):
    @functools.wraps(func)
    def decorate_autocast(*args, **kwargs):
        with autocast_instance:
            return func(*args, **kwargs)

    return decorate_autocast


class autocast:
    """`autocast(device_type, dtype=None, enabled=True, cache_enabled=None)`: run the ops of a
    region (a `with` block, or a decorated function) in mixed precision; see the module doc.

    Examples:
        >>> a, b = gradrs.randn(2, 2), gradrs.randn(2, 2)
        >>> with gradrs.autocast(device_type='cpu', dtype=gradrs.float16):
        ...     print((a @ b).dtype)
        ...
        gradrs.float16
    """

    def __init__(self, device_type: str, dtype=None, enabled: bool = True,
                 cache_enabled: bool | None = None):
        if not isinstance(device_type, str):
            raise ValueError(
                f"Expected `device_type` of type `str`, got: `{type(device_type)}`")
        key = _device_key(device_type)
        if key is None:
            raise RuntimeError(
                f"User specified an unsupported autocast device_type '{device_type}'")
        self.device = device_type
        self._key = key
        self.fast_dtype = _state.dtype[key] if dtype is None else dtype
        self._cache_enabled = _state.cache_enabled if cache_enabled is None else cache_enabled
        if enabled:
            if key == "gpu" and not _gpu.is_available():
                warnings.warn("CUDA is not available or torch_xla is imported. "
                              "Disabling autocast.", stacklevel=2)
                enabled = False
            elif key == "gpu" and self.fast_dtype is _bfloat16:
                # gradrs's GPU holds no bfloat16 tensors: PyTorch's error for such a device.
                raise RuntimeError("Current CUDA Device does not support bfloat16. Please "
                                   "switch dtype to float16.")
            elif key == "cpu" and self.fast_dtype not in (_bfloat16, _float16):
                warnings.warn(
                    "In CPU autocast, but the target dtype is not supported. Disabling "
                    f"autocast.\nCPU Autocast only supports dtypes of {_bfloat16}, {_float16} "
                    "currently.", stacklevel=2)
                enabled = False
        self._enabled = enabled

    def __enter__(self):
        self.prev_cache_enabled = _state.cache_enabled
        self.prev = _state.enabled[self._key]
        self.prev_fastdtype = _state.dtype[self._key]
        _state.enabled[self._key] = self._enabled
        _state.dtype[self._key] = self.fast_dtype
        _state.nesting += 1
        _state.cache_enabled = self._cache_enabled
        _region_opened()
        return self

    def __exit__(self, exc_type, exc_val, exc_tb):
        _state.nesting -= 1
        if _state.nesting == 0:
            clear_autocast_cache()
        _state.enabled[self._key] = self.prev
        _state.dtype[self._key] = self.prev_fastdtype
        _state.cache_enabled = self.prev_cache_enabled
        _region_closed()
        return False

    def __call__(self, func):
        if not callable(func):
            raise TypeError(
                f"autocast()(func) requires a callable, but got {type(func).__name__}. "
                "Did you mean to use autocast as a context manager? For example:\n"
                "    with gradrs.autocast(device_type=...):\n"
                "        output = model(input)")
        return autocast_decorator(self, func)


# ---------------------------------------------------------------------------------------------
# custom autograd Functions under autocast
# ---------------------------------------------------------------------------------------------


def _cast_inputs(value, key, dtype):
    """`value` with its floating tensors on the device (not float64) cast to `dtype`,
    through mappings and iterables, as PyTorch's `torch.amp.autocast_mode._cast`."""
    if isinstance(value, _native.Tensor):
        eligible = (value.is_floating_point() and _device_key(value.device.type) == key
                    and value.dtype is not _float64)
        return value.to(dtype) if eligible else value
    if isinstance(value, (str, bytes, np.ndarray)):
        return value
    if isinstance(value, collections.abc.Mapping):
        return {_cast_inputs(k, key, dtype): _cast_inputs(v, key, dtype)
                for k, v in value.items()}
    if isinstance(value, collections.abc.Iterable):
        iterable = (_cast_inputs(v, key, dtype) for v in value)
        return type(value)(iterable) if isinstance(value, (list, tuple)) else iterable
    return value


def custom_fwd(fwd=None, *, device_type: str, cast_inputs=None):
    """Decorator for the ``forward`` of a custom autograd Function: inside an autocast region
    of `device_type` with `cast_inputs` given, the floating tensors coming in are cast to it
    and ``forward`` runs with autocast off; otherwise ``forward`` runs in the current state.
    Pairs with :func:`custom_bwd`."""
    if not isinstance(device_type, str):
        raise ValueError(f"Expected `device_type` of type `str`, got: `{type(device_type)}`")
    if fwd is None:
        return functools.partial(custom_fwd, device_type=device_type, cast_inputs=cast_inputs)

    @functools.wraps(fwd)
    def decorate_fwd(*args, **kwargs):
        key = _device_key(device_type)
        args[0]._dtype = _state.dtype.get(key) if key is not None else None
        if cast_inputs is None:
            args[0]._fwd_used_autocast = is_autocast_enabled(device_type)
            return fwd(*args, **kwargs)
        in_region = is_autocast_enabled(device_type)
        args[0]._fwd_used_autocast = False
        if in_region:
            with autocast(device_type=device_type, enabled=False):
                return fwd(*_cast_inputs(args, key, cast_inputs),
                           **_cast_inputs(kwargs, key, cast_inputs))
        return fwd(*args, **kwargs)

    return decorate_fwd


def custom_bwd(bwd=None, *, device_type: str):
    """Decorator for the ``backward`` of a custom autograd Function: it runs in the autocast
    state its ``forward`` ran in (see :func:`custom_fwd`)."""
    if not isinstance(device_type, str):
        raise ValueError(f"Expected `device_type` of type `str`, got: `{type(device_type)}`")
    if bwd is None:
        return functools.partial(custom_bwd, device_type=device_type)

    @functools.wraps(bwd)
    def decorate_bwd(*args, **kwargs):
        with autocast(device_type=device_type, enabled=args[0]._fwd_used_autocast,
                      dtype=args[0]._dtype):
            return bwd(*args, **kwargs)

    return decorate_bwd
