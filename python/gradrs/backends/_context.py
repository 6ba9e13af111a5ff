"""The process-wide flags behind `gradrs.backends.*`, determinism and float32 matmul precision.

These are PyTorch's global context flags (ATen's `Context`), with its defaults, its type
checks and its rules for the legacy (`allow_tf32`, `set_float32_matmul_precision`) and new
(`fp32_precision`) TF32 APIs, including the errors PyTorch raises when the two were mixed.
gradrs's kernels do not read them: its float32 matmuls always compute in float32 ('highest'),
and its ops are deterministic on the CPU. Code that sets them runs unchanged.
"""

from __future__ import annotations

import builtins
import warnings

_deterministic = False
_deterministic_warn_only = False
_matmul_precision = "highest"  # ATen's float32_matmul_precision (the legacy setting)
_allow_tf32_cudnn = True

# ATen's fp32_precision table, (backend, op) -> precision; 'none' defers to (backend, 'all'),
# then to ('generic', 'all').
_fp32 = {
    ("generic", "all"): "none",
    ("cuda", "all"): "none",
    ("cuda", "matmul"): "none",
    ("cuda", "conv"): "tf32",
    ("cuda", "rnn"): "tf32",
    ("mkldnn", "all"): "none",
    ("mkldnn", "matmul"): "none",
    ("mkldnn", "conv"): "none",
    ("mkldnn", "rnn"): "none",
}
_PRECISIONS = ("ieee", "tf32", "bf16", "none")
_OPS = ("all", "matmul", "conv", "rnn")

_MIX_NOTE = ("See also: https://pytorch.org/docs/main/notes/cuda.html"
             "#tensorfloat-32-tf32-on-ampere-and-later-devices")

# Plain boolean flags, each with the name its setter has in PyTorch's type-check error.
_flags = {
    "cudnn_enabled": True,
    "cudnn_benchmark": False,
    "cudnn_deterministic": False,
    "mkldnn_enabled": True,
    "mkldnn_deterministic": False,
}
_SETTER_NAMES = {
    "cudnn_enabled": "set_enabled_cudnn",
    "cudnn_benchmark": "set_benchmark_cudnn",
    "cudnn_deterministic": "set_deterministic_cudnn",
    "mkldnn_enabled": "set_enabled_mkldnn",
    "mkldnn_deterministic": "set_deterministic_mkldnn",
}


def check_bool(setter: str, value) -> None:
    """PyTorch's flag setters take a bool and nothing else (not even 0/1)."""
    if not isinstance(value, builtins.bool):
        raise RuntimeError(f"{setter} expects a bool, but got {type(value).__name__}")


def get_flag(name: str) -> bool:
    return _flags[name]


def set_flag(name: str, value) -> None:
    check_bool(_SETTER_NAMES[name], value)
    _flags[name] = value


def _check_key(backend: str, op: str) -> None:
    if backend not in ("generic", "cuda", "mkldnn"):
        raise RuntimeError(f"Unknown backend: {backend}")
    if op not in _OPS:
        raise RuntimeError(f"Unknown op: {op}")
    if (backend, op) not in _fp32:  # 'generic' has only 'all'
        raise RuntimeError(f"Invalid (backend, op) pair: ({backend}, {op})")


def fp32_precision(backend: str, op: str) -> str:
    """The precision in effect for (backend, op), after the fallbacks."""
    _check_key(backend, op)
    precision = _fp32[(backend, op)]
    if precision == "none":
        precision = _fp32[(backend, "all")]
    if precision == "none":
        precision = _fp32[("generic", "all")]
    if backend == "cuda" and precision == "bf16":  # cuda has no bf16 matmul/conv precision
        return "none"
    return precision


def set_fp32_precision(backend: str, op: str, precision: str) -> None:
    _check_key(backend, op)
    if precision not in _PRECISIONS:
        raise RuntimeError(f"Unknown precision: {precision}")
    if backend == "cuda" and precision == "bf16":
        raise RuntimeError("backend 'cuda' does not support precision 'bf16'")
    _fp32[(backend, op)] = precision


def allow_tf32_cublas() -> bool:
    legacy = _matmul_precision != "highest"
    new = fp32_precision("cuda", "matmul") == "tf32"
    if legacy != new:
        raise RuntimeError(
            "PyTorch is checking whether allow_tf32_new is enabled for cuBlas matmul,"
            "Current status indicate that you have used mix of the legacy and new APIs to set "
            "the TF32 status for cublas matmul. We suggest only using the new API to set the "
            "TF32 flag. " + _MIX_NOTE)
    return new


def set_allow_tf32_cublas(value) -> None:
    global _matmul_precision
    check_bool("set_allow_tf32_cublas", value)
    _matmul_precision = "high" if value else "highest"
    set_fp32_precision("cuda", "matmul", "tf32" if value else "ieee")


def allow_tf32_cudnn() -> bool:
    rnn = fp32_precision("cuda", "rnn") == "tf32"
    conv = fp32_precision("cuda", "conv") == "tf32"
    if not (rnn == conv == _allow_tf32_cudnn):
        raise RuntimeError(
            "PyTorch is checking whether allow_tf32 is enabled for cuDNN without a specific "
            "operator name,but the current flag(s) indicate that cuDNN conv and cuDNN RNN have "
            "different TF32 flags.This combination indicates that you have used a mix of the "
            "legacy and new APIs to set the TF32 flags. We suggest only using the new API to "
            "set the TF32 flag(s). " + _MIX_NOTE)
    return _allow_tf32_cudnn


def set_allow_tf32_cudnn(value) -> None:
    global _allow_tf32_cudnn
    check_bool("set_allow_tf32_cublas", value)  # sic: PyTorch's message names cuBLAS here too
    set_fp32_precision("cuda", "rnn", "tf32" if value else "none")
    set_fp32_precision("cuda", "conv", "tf32" if value else "none")
    _allow_tf32_cudnn = value


def get_float32_matmul_precision() -> str:
    """The float32 matmul precision ('highest', 'high' or 'medium'); see the setter.

    Examples:
        >>> gradrs.get_float32_matmul_precision()
        'highest'
    """
    mkldnn = fp32_precision("mkldnn", "matmul")
    invalid = (
        (fp32_precision("cuda", "matmul") == "tf32" and _matmul_precision == "highest")
        or (mkldnn == "bf16" and _matmul_precision != "medium")
        or (mkldnn == "tf32" and _matmul_precision != "high")
    )
    if invalid:
        raise RuntimeError(
            "PyTorch is checking the matmul precision without a specific backend name,"
            "Current status indicate that you have used mix of the legacy and new APIs to set "
            "the matmul precision. We suggest only using the new API for matmul precision. "
            + _MIX_NOTE)
    return _matmul_precision


_MATMUL_SETTINGS = {
    "highest": ("ieee", "ieee"),
    "high": ("tf32", "tf32"),
    "medium": ("tf32", "bf16"),
}


def set_float32_matmul_precision(precision: str) -> None:
    """Set the internal precision of float32 matrix multiplications: 'highest' (the default),
    'high' or 'medium', as PyTorch does (it also sets `backends.cuda.matmul.allow_tf32`).

    gradrs records the setting and always computes float32 matmuls in float32, which PyTorch
    documents as what 'high' and 'medium' fall back to without a faster algorithm.

    Examples:
        >>> gradrs.set_float32_matmul_precision('high')
        >>> gradrs.get_float32_matmul_precision()
        'high'
        >>> gradrs.set_float32_matmul_precision('highest')
    """
    global _matmul_precision
    if not isinstance(precision, str):
        raise RuntimeError(
            f"set_float32_matmul_precision expects a str, but got {type(precision).__name__}")
    # Exact names only: PyTorch's case-insensitive retry lowercases into an empty string, so
    # 'HIGH' warns there too.
    if precision in _MATMUL_SETTINGS:
        _matmul_precision = precision
        cuda, mkldnn = _MATMUL_SETTINGS[precision]
        set_fp32_precision("cuda", "matmul", cuda)
        set_fp32_precision("mkldnn", "matmul", mkldnn)
        return
    warnings.warn(f"{precision} is not one of 'highest', 'high', or 'medium'; the current"
                  "setFloat32MatmulPrecision call has no effect.", UserWarning, stacklevel=2)


def _bool_arg(fn: str, name: str, position: int | None, value) -> None:
    if not isinstance(value, builtins.bool):
        where = f"(position {position}) " if position is not None else ""
        raise TypeError(
            f"{fn}(): argument '{name}' {where}must be bool, not {type(value).__name__}")


def use_deterministic_algorithms(mode: bool, *, warn_only: bool = False) -> None:
    """Set whether operations must use deterministic algorithms (PyTorch's flag).

    gradrs's CPU ops are deterministic already and no gradrs op has a nondeterministic-only
    implementation, so no op raises or warns under this flag; it is recorded and reported.

    Examples:
        >>> gradrs.use_deterministic_algorithms(True)
        >>> gradrs.are_deterministic_algorithms_enabled()
        True
        >>> gradrs.use_deterministic_algorithms(False)
    """
    global _deterministic, _deterministic_warn_only
    _bool_arg("_set_deterministic_algorithms", "mode", 1, mode)
    _bool_arg("_set_deterministic_algorithms", "warn_only", None, warn_only)
    _deterministic, _deterministic_warn_only = mode, warn_only


def are_deterministic_algorithms_enabled() -> bool:
    """Whether `use_deterministic_algorithms(True)` is in effect.

    Examples:
        >>> gradrs.are_deterministic_algorithms_enabled()
        False
    """
    return _deterministic


def is_deterministic_algorithms_warn_only_enabled() -> bool:
    """Whether `use_deterministic_algorithms(True, warn_only=True)` is in effect."""
    return _deterministic and _deterministic_warn_only


def set_deterministic_debug_mode(debug_mode: int | str) -> None:
    """0 / 'default', 1 / 'warn' or 2 / 'error': another spelling of
    `use_deterministic_algorithms`."""
    if not isinstance(debug_mode, (builtins.int, str)):
        raise TypeError(f"debug_mode must be str or int, but got {type(debug_mode)}")
    if isinstance(debug_mode, str):
        names = {"default": 0, "warn": 1, "error": 2}
        if debug_mode not in names:
            raise RuntimeError("invalid value of debug_mode, expected one of `default`, "
                               f"`warn`, `error`, but got {debug_mode}")
        debug_mode = names[debug_mode]
    if debug_mode == 0:
        use_deterministic_algorithms(False)
    elif debug_mode == 1:
        use_deterministic_algorithms(True, warn_only=True)
    elif debug_mode == 2:
        use_deterministic_algorithms(True)
    else:
        raise RuntimeError(
            f"invalid value of debug_mode, expected 0, 1, or 2, but got {debug_mode}")


def get_deterministic_debug_mode() -> int:
    """0, 1 or 2, as set by `set_deterministic_debug_mode`.

    Examples:
        >>> gradrs.get_deterministic_debug_mode()
        0
    """
    if _deterministic:
        return 1 if _deterministic_warn_only else 2
    return 0


class FP32Precision:
    """`backends.<backend>.<op>`: an object whose only attribute is `fp32_precision`."""

    def __init__(self, backend: str, op: str):
        object.__setattr__(self, "backend", backend)
        object.__setattr__(self, "op", op)

    def __setattr__(self, name, value):
        if name == "fp32_precision":
            set_fp32_precision(self.backend, self.op, value)
        elif name in ("backend", "op"):
            object.__setattr__(self, name, value)
        else:
            raise AttributeError("Unknown attribute " + name)

    def __getattr__(self, name):
        if name == "fp32_precision":
            return fp32_precision(self.backend, self.op)
        raise AttributeError("Unknown attribute " + name)
