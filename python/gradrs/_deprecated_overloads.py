"""PyTorch's deprecated positional overloads of the accumulating methods, which PyTorch 2.x still
takes (with one deprecation warning) and which optimizers written for PyTorch 1.x use on every
step: `exp_avg.mul_(beta1).add_(1 - beta1, grad)`, `exp_avg_sq.addcmul_(1 - beta2, grad, grad)`,
`p.data.addcdiv_(-step_size, exp_avg, denom)`, `x.sub(alpha, other)`, `torch.add(x, alpha, y)`:
the scalar first, as `alpha=` / `value=`. The methods keep their native path for every other
call; these forms are rewritten into the current signature (python_arg_parser.cpp's deprecated
signatures).
"""

from __future__ import annotations

import functools
import numbers
import warnings

from . import _native

_warned = False


def _warn(name: str, old: str, new: str) -> None:
    # PyTorch warns once per process (TORCH_WARN_ONCE), whichever overload comes first
    global _warned
    if not _warned:
        _warned = True
        warnings.warn(f"This overload of {name} is deprecated:\n\t{name}({old})\nConsider using "
                      f"one of the following signatures instead:\n\t{name}({new})",
                      UserWarning, stacklevel=3)


def _is_number(v) -> bool:
    return isinstance(v, numbers.Number) and not isinstance(v, _native.Tensor)


def _alpha_first(name: str):
    native = getattr(_native.Tensor, name)

    @functools.wraps(native)
    def method(self, *args, **kwargs):
        if len(args) == 2 and _is_number(args[0]) and isinstance(args[1], _native.Tensor) \
                and not kwargs:
            _warn(name, "Number alpha, Tensor other", "Tensor other, *, Number alpha = 1")
            return native(self, args[1], alpha=args[0])
        if len(args) == 1 and _is_number(args[0]) and set(kwargs) == {"other"} \
                and isinstance(kwargs["other"], _native.Tensor):
            _warn(name, "Number alpha, Tensor other", "Tensor other, *, Number alpha = 1")
            return native(self, kwargs["other"], alpha=args[0])
        return native(self, *args, **kwargs)

    return method


def _value_first(name: str):
    native = getattr(_native.Tensor, name)

    @functools.wraps(native)
    def method(self, *args, **kwargs):
        if len(args) == 3 and _is_number(args[0]) and not kwargs \
                and all(isinstance(a, _native.Tensor) for a in args[1:]):
            _warn(name, "Number value, Tensor tensor1, Tensor tensor2",
                  "Tensor tensor1, Tensor tensor2, *, Number value = 1")
            return native(self, args[1], args[2], value=args[0])
        return native(self, *args, **kwargs)

    return method


for _name, _make in (("add", _alpha_first), ("add_", _alpha_first), ("sub", _alpha_first),
                     ("sub_", _alpha_first), ("addcmul", _value_first),
                     ("addcmul_", _value_first), ("addcdiv", _value_first),
                     ("addcdiv_", _value_first)):
    _method = _make(_name)
    _method.__text_signature__ = getattr(_native.Tensor, _name).__text_signature__
    setattr(_native.Tensor, _name, _method)
del _name, _make, _method
