"""`gradrs.jit`: the parts of `torch.jit` that model code calls while running eagerly. gradrs
has no TorchScript, so code is never being scripted or traced: `is_scripting()` and
`is_tracing()` say False (as they do in eager PyTorch), and the decorators mark functions
the way PyTorch does and give them back. `script`, `trace`, `save` and `load` are not here."""

from __future__ import annotations

import warnings
from enum import Enum
from typing import Final

__all__ = ["Final", "annotate", "export", "ignore", "is_scripting", "is_tracing", "unused"]


class FunctionModifiers(Enum):
    """What a TorchScript decorator marks a function with (its `_torchscript_modifier`)."""

    UNUSED = "unused (ignored and replaced with raising of an exception)"
    IGNORE = "ignore (leave as a call to Python, cannot be torch.jit.save'd)"
    EXPORT = "export (compile this function even if nothing calls it)"
    DEFAULT = "default (compile if called from a exported function / forward)"
    COPY_TO_SCRIPT_WRAPPER = ("if this method is not scripted, copy the python method onto "
                              "the scripted model")
    _DROP = "_drop (function is fully ignored, declaration can be unscriptable)"

    def __str__(self):
        return self.value


def is_scripting() -> bool:
    """True inside TorchScript-compiled code; gradrs runs everything eagerly."""
    return False


def is_tracing() -> bool:
    """True while torch.jit.trace records a function; never here."""
    return False


def annotate(the_type, the_value):
    """A type hint for TorchScript; in eager mode the value itself."""
    return the_value


def export(fn):
    """Mark a method to be compiled even when forward does not call it."""
    fn._torchscript_modifier = FunctionModifiers.EXPORT
    return fn


def unused(fn):
    """Mark a method (or property) that scripting replaces with a raise; eagerly it runs."""
    if isinstance(fn, property):
        prop = fn
        prop.fget._torchscript_modifier = FunctionModifiers.UNUSED
        if prop.fset:
            prop.fset._torchscript_modifier = FunctionModifiers.UNUSED
        return prop
    fn._torchscript_modifier = FunctionModifiers.UNUSED
    return fn


def ignore(drop=False, **kwargs):
    """Mark a function that scripting leaves as a Python call (`drop=True`: replaced with a
    raise); as a bare decorator or called with `drop=`."""
    if callable(drop):
        drop._torchscript_modifier = FunctionModifiers.IGNORE
        return drop
    if not isinstance(drop, bool):
        raise RuntimeError(f"Argument to @gradrs.jit.ignore must be a bool or a function but "
                           f"got {drop}")
    # PyTorch's two deprecation texts end in a literal "{}"
    drop_on_export = kwargs.pop("drop_on_export", None)
    if drop_on_export:
        warnings.warn("ignore(drop_on_export=True) has been deprecated. TorchScript will now "
                      "drop the function call on compilation. Use gradrs.jit.unused now. {}",
                      category=FutureWarning, stacklevel=2)
        drop = drop_on_export
    elif drop:
        warnings.warn("ignore(True) has been deprecated. TorchScript will now drop the "
                      "function call on compilation. Use gradrs.jit.unused now. {}",
                      category=FutureWarning, stacklevel=2)

    def decorator(fn):
        fn._torchscript_modifier = FunctionModifiers.UNUSED if drop else FunctionModifiers.IGNORE
        return fn

    return decorator
