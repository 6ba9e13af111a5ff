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


def _warn(name: str, old: str, *new: str, stacklevel: int = 3) -> None:
    # PyTorch warns once per process (TORCH_WARN_ONCE), whichever overload comes first
    global _warned
    if not _warned:
        _warned = True
        alternatives = "".join(f"\n\t{name}({n})" for n in new)
        warnings.warn(f"This overload of {name} is deprecated:\n\t{name}({old})\nConsider using "
                      f"one of the following signatures instead:{alternatives}",
                      UserWarning, stacklevel=stacklevel)


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
        try:
            return native(self, *args, **kwargs)
        except TypeError as e:
            _parser_error(name, self, args, kwargs, e)

    return method


def _parser_error(name, self, args, kwargs, e):
    """Raise the native method's TypeError `e` as PyTorch's parser words it (Note [Parser
    errors]: these wrappers hold the native method from before its errors were rerouted)."""
    from ._argparse import method_error

    err = method_error(name, self, args, kwargs, e)
    if err is None:
        raise e
    raise err from None


def _value_first(name: str):
    native = getattr(_native.Tensor, name)

    @functools.wraps(native)
    def method(self, *args, **kwargs):
        if len(args) == 3 and _is_number(args[0]) and not kwargs \
                and all(isinstance(a, _native.Tensor) for a in args[1:]):
            _warn(name, "Number value, Tensor tensor1, Tensor tensor2",
                  "Tensor tensor1, Tensor tensor2, *, Number value = 1")
            return native(self, args[1], args[2], value=args[0])
        try:
            return native(self, *args, **kwargs)
        except TypeError as e:
            _parser_error(name, self, args, kwargs, e)

    return method


for _name, _make in (("add", _alpha_first), ("add_", _alpha_first), ("sub", _alpha_first),
                     ("sub_", _alpha_first), ("addcmul", _value_first),
                     ("addcmul_", _value_first), ("addcdiv", _value_first),
                     ("addcdiv_", _value_first)):
    _method = _make(_name)
    _method.__text_signature__ = getattr(_native.Tensor, _name).__text_signature__
    setattr(_native.Tensor, _name, _method)
del _name, _make, _method

# The matrix-product accumulations' deprecated forms (deprecated.yaml): beta, and alpha, first:
# `out.addmm_(0, 1, input, weight.t())` as PyTorch 0.x layers wrote it, `torch.addmm(beta,
# input, alpha, mat1, mat2)`.
_PRODUCTS = {"addmm": ("mat1", "mat2"), "addmv": ("mat", "vec"), "addr": ("vec1", "vec2"),
             "baddbmm": ("batch1", "batch2"), "addbmm": ("batch1", "batch2")}


def _tensors(*values) -> bool:
    return all(isinstance(v, _native.Tensor) for v in values)


def _beta_first_method(name: str):
    native = getattr(_native.Tensor, name)
    t1, t2 = _PRODUCTS[name.rstrip("_")]
    new = f"Tensor {t1}, Tensor {t2}, *, Number beta = 1, Number alpha = 1"

    @functools.wraps(native)
    def method(self, *args, **kwargs):
        if not kwargs and args and _is_number(args[0]):
            if len(args) == 4 and _is_number(args[1]) and _tensors(*args[2:]):
                _warn(name, f"Number beta, Number alpha, Tensor {t1}, Tensor {t2}", new)
                return native(self, args[2], args[3], beta=args[0], alpha=args[1])
            if len(args) == 3 and _tensors(*args[1:]):
                _warn(name, f"Number beta, Tensor {t1}, Tensor {t2}", new)
                return native(self, args[1], args[2], beta=args[0])
        return native(self, *args, **kwargs)

    return method


def beta_first_function(fn):
    """`gradrs.addmm` & co. taking PyTorch's deprecated `(beta, input, [alpha,] m1, m2)`."""
    name = fn.__name__
    t1, t2 = _PRODUCTS[name]
    new = [f"Tensor input, Tensor {t1}, Tensor {t2}, *, Number beta = 1, Number alpha = 1, "
           "Tensor out = None"]
    if name in ("addmm", "baddbmm"):
        new.append(f"Tensor input, Tensor {t1}, Tensor {t2}, gradrs.dtype out_dtype, *, "
                   "Number beta = 1, Number alpha = 1, Tensor out = None")

    @functools.wraps(fn)
    def function(*args, **kwargs):
        if args and _is_number(args[0]) and set(kwargs) <= {"out"}:
            if len(args) == 5 and _is_number(args[2]) and _tensors(args[1], *args[3:]):
                _warn(name, f"Number beta, Tensor input, Number alpha, Tensor {t1}, Tensor {t2}, "
                      "*, Tensor out = None", *new)
                return fn(args[1], args[3], args[4], beta=args[0], alpha=args[2], **kwargs)
            if len(args) == 4 and _tensors(*args[1:]):
                _warn(name, f"Number beta, Tensor input, Tensor {t1}, Tensor {t2}, *, "
                      "Tensor out = None", *new)
                return fn(args[1], args[2], args[3], beta=args[0], **kwargs)
        return fn(*args, **kwargs)

    return function


def install_product_methods() -> None:
    """Called once the Python-defined product methods exist (gradrs/__init__)."""
    for base in _PRODUCTS:
        for name in (base, base + "_"):
            method = _beta_first_method(name)
            text = getattr(getattr(_native.Tensor, name), "__text_signature__", None)
            if text is not None:
                method.__text_signature__ = text
            setattr(_native.Tensor, name, method)
