"""`gradrs._C`: the few names of `torch._C` that programs use directly with
`__torch_function__` (`with torch._C.DisableTorchFunctionSubclass():` in a subclass's
`__torch_function__`, `__torch_function__ = torch._C._disabled_torch_function_impl`).
gradrs's native module is `gradrs._native`; this holds nothing else of torch._C.
"""

from ._torch_function import (  # noqa: F401 - torch._C's private names, reached by name
    DisableTorchFunction,
    DisableTorchFunctionSubclass,
    _disabled_torch_function_impl,
    _is_torch_function_enabled,
    _is_torch_function_mode_enabled,
)
from ._torch_function import has_torch_function as _has_torch_function

__all__ = ["DisableTorchFunction", "DisableTorchFunctionSubclass"]


def _has_torch_function_unary(arg):
    return _has_torch_function((arg,))


def _has_torch_function_variadic(*args):
    return _has_torch_function(args)
