"""PyTorch's argument-parser errors for the functional forms (``gradrs.prod(x, (0, 1))``).

PyTorch checks a call against the op's Python signatures (``native_functions.yaml``) before
running it, and a call that matches none raises a ``TypeError`` naming what was wrong. The
functional forms here call the tensor method; only when that raises ``TypeError`` is the call
matched against :data:`SIGNATURES` (so the common path costs nothing), and PyTorch's message
replaces the method's when no signature accepts the arguments. The rules follow
``torch/csrc/utils/python_arg_parser.cpp``:

* one signature: the first problem found, in parameter order -- too many positional arguments,
  a missing required one, an argument of the wrong type, an unknown keyword;
* several: ``received an invalid combination of arguments - got (...)`` and the signatures.
"""

from __future__ import annotations

import numbers
import re

from . import _declared, _native, _numpy_names, _torch_function

Tensor = _native.Tensor

# Signatures as PyTorch prints them (``torch.`` spelled ``gradrs.``), per function.
_BINARY = "(Tensor input, Tensor other, *, Tensor out = None)"
_UNARY = "(Tensor input, *, Tensor out = None)"
_VAR = [
    "(Tensor input, tuple of ints dim, bool unbiased = True, bool keepdim = False, *, "
    "Tensor out = None)",
    "(Tensor input, tuple of ints dim = None, *, Number correction = None, bool keepdim = False, "
    "Tensor out = None)",
    "(Tensor input, bool unbiased = True)",
]
_CLAMP = [
    "(Tensor input, Tensor min = None, Tensor max = None, *, Tensor out = None)",
    "(Tensor input, Number min = None, Number max = None, *, Tensor out = None)",
]
_SCAN = "(Tensor input, int dim, *, gradrs.dtype dtype = None, Tensor out = None)"

SIGNATURES: dict[str, list[str]] = {
    **{name: [_BINARY] for name in (
        "maximum", "minimum", "fmax", "logical_and", "logical_or",
        "logical_xor")},
    # The declared ops' signatures come from their declarations (_declared.py, generated).
    **{name: [sig] if isinstance(sig, str) else list(sig)
       for name, sig in _declared.FUNCTIONS.items()},
    **{name: [_UNARY] for name in ("square", "logical_not")},
    "prod": [
        "(Tensor input, *, gradrs.dtype dtype = None)",
        "(Tensor input, int dim, bool keepdim = False, *, gradrs.dtype dtype = None, "
        "Tensor out = None)",
    ],
    "logsumexp": ["(Tensor input, tuple of ints dim, bool keepdim = False, *, Tensor out = None)"],
    "cumsum": [_SCAN],
    "cumprod": [_SCAN],
    # Shapes and dim lists without a size (`SymInt[] shape`): the methods take them as varargs
    # (`x.reshape(2, 3)`), the functions only as one sequence (`IntList`, printed as PyTorch's
    # "tuple of ints"); these are checked before the call (Note [Strict int lists]).
    "reshape": ["(Tensor input, IntList shape)"],
    "permute": ["(Tensor input, IntList dims)"],
    "flip": ["(Tensor input, IntList dims)"],
    "tile": ["(Tensor input, IntList dims)"],
    "broadcast_to": ["(Tensor input, IntList size)"],
    "rot90": ["(Tensor input, int k = 1, IntList dims = [0,1])"],
    # xlogy's declaration names its tensor overload; PyTorch's parser lists all three.
    "xlogy": [_BINARY, "(Number self, Tensor other, *, Tensor out = None)",
              "(Tensor input, Number other, *, Tensor out = None)"],
    "xlogy_": ["(Tensor input, Tensor other)", "(Tensor input, Number other)"],
    "clamp": _CLAMP,
    "clip": _CLAMP,
    "var": _VAR,
    "std": _VAR,
}


def type_name(obj) -> str:
    """What PyTorch prints for an argument's type (the C type's ``tp_name``)."""
    if isinstance(obj, Tensor):
        return "Tensor"
    t = type(obj)
    if t.__module__ == "builtins" or t.__flags__ & (1 << 9):  # Py_TPFLAGS_HEAPTYPE
        return t.__name__
    return f"{t.__module__}.{t.__name__}"


def _is_int(obj) -> bool:
    if isinstance(obj, bool):
        return False
    if isinstance(obj, Tensor):
        return obj.dim() == 0 and not obj.is_floating_point() and obj.dtype != _native.bool
    return isinstance(obj, numbers.Integral)


def _is_number(obj) -> bool:
    if isinstance(obj, Tensor):
        return obj.dim() == 0
    return isinstance(obj, numbers.Number)


_CHECKS = {
    "Tensor": lambda o: isinstance(o, Tensor),
    "Number": _is_number,
    "int": _is_int,
    "bool": lambda o: isinstance(o, bool) or type(o).__name__ == "bool_",
    "tuple of ints": lambda o: _is_int(o) or (
        isinstance(o, (tuple, list)) and all(_is_int(v) for v in o)),
    "gradrs.dtype": lambda o: isinstance(o, _native.dtype),
    "str": lambda o: isinstance(o, str),
    "float": lambda o: isinstance(o, numbers.Real) and not isinstance(o, Tensor),
    "tuple of Tensors": lambda o: isinstance(o, (tuple, list)) and all(
        isinstance(v, Tensor) for v in o),
    "IntList": lambda o: isinstance(o, (tuple, list)) and all(_is_int(v) for v in o),
}
# Note [Strict int lists]: the functions whose signature has an `IntList`, whose methods
# accept what the functions refuse (varargs, a bare int): checked before the call.
STRICT = frozenset({"reshape", "permute", "flip", "tile", "broadcast_to", "rot90"})


class _Param:
    __slots__ = ("type", "name", "optional", "allow_none", "kw_only")

    def __init__(self, text, kw_only):
        decl, eq, default = text.partition(" = ")
        self.type, _, self.name = decl.rpartition(" ")
        self.optional = bool(eq)
        # Optional list parameters (`int[1]? dim`) also take None, with or without a default.
        self.allow_none = default == "None" or self.type == "tuple of ints"
        self.kw_only = kw_only

    def accepts(self, obj) -> bool:
        if obj is None:
            return self.allow_none
        return _CHECKS[self.type](obj)


def _keyword(name, kwargs):
    """The keyword that gives parameter `name`: its own, else one of its NumPy names
    (`axis` for `dim`...), as PyTorch's parser looks them up; None when neither is given."""
    if name in kwargs:
        return name
    return next((a for a in _numpy_names.ALIASES.get(name, ()) if a in kwargs), None)


class _Signature:
    def __init__(self, name, text):
        self.name, self.text = name, text
        self.params, kw_only = [], False
        for item in text[1:-1].split(", "):
            if item == "*":
                kw_only = True
            elif item:
                self.params.append(_Param(item, kw_only))
        self.max_pos = sum(not p.kw_only for p in self.params)

    def error(self, args, kwargs):
        """The TypeError PyTorch raises for this call (None when it matches)."""
        name = self.name
        if len(args) > self.max_pos:
            n = self.max_pos
            low = sum(not p.kw_only and not p.optional for p in self.params)
            takes = f"from {low} to {n}" if low != n else str(n)
            return TypeError(
                f"{name}() takes {takes} positional argument{'s' if n != 1 else ''} but "
                f"{len(args)} {'was' if len(args) == 1 else 'were'} given")
        used = set()
        for i, p in enumerate(self.params):
            if i < len(args) and not p.kw_only:
                obj, kw = args[i], False
            elif (key := _keyword(p.name, kwargs)) is not None:
                obj, kw = kwargs[key], True
                used.add(key)
            else:
                if not p.optional:
                    missing = [q.name for q in self.params[i:] if not q.optional]
                    # sic: PyTorch's plural for exactly one missing argument
                    return TypeError(
                        f"{name}() missing {len(missing)} required positional argument"
                        f"{'s' if len(missing) == 1 else ''}: "
                        + ", ".join(f'"{m}"' for m in missing))
                continue
            if not p.accepts(obj):
                where = "" if kw else f" (position {i + 1})"
                shown = "tuple of ints" if p.type == "IntList" else p.type
                if p.type == "IntList" and isinstance(obj, (tuple, list)):
                    at = next(j for j, v in enumerate(obj) if not _is_int(v))
                    return TypeError(
                        f"{name}(): argument '{p.name}'{where} must be {shown}, but found "
                        f"element of type {type_name(obj[at])} at pos {at}")
                return TypeError(f"{name}(): argument '{p.name}'{where} must be {shown}, "
                                 f"not {type_name(obj)}")
        for k in kwargs:
            if k not in used:
                pos = next((i for i, p in enumerate(self.params) if p.name == k), None)
                if pos is not None and pos < len(args):
                    return TypeError(f"{name}() got multiple values for argument '{k}'")
                return TypeError(f"{name}() got an unexpected keyword argument '{k}'")
        return None


def _describe(args, kwargs) -> str:
    # PyTorch lists keywords from a std::unordered_map: in practice the reverse of the order
    # they were given.
    parts = [type_name(a) for a in args]
    parts += [f"{k}={type_name(v)}" for k, v in reversed(list(kwargs.items()))]
    return "(" + ", ".join(parts) + ")"


def error(name, args, kwargs, texts=None):
    """PyTorch's TypeError for ``gradrs.<name>(*args, **kwargs)``, or None if the arguments
    match one of its signatures (``texts``, by default those listed for ``name``; None when
    there are none)."""
    texts = SIGNATURES.get(name) if texts is None else texts
    if texts is None:
        return None
    sigs = [_Signature(name, t) for t in texts]
    if len(sigs) == 1:
        return sigs[0].error(args, kwargs)
    if any(s.error(args, kwargs) is None for s in sigs):
        return None
    listing = "".join(f" * {s.text}\n" for s in sigs)
    return TypeError(f"{name}() received an invalid combination of arguments - got "
                     f"{_describe(args, kwargs)}, but expected one of:\n{listing}")


_POSITION = re.compile(r"^(\w+)\(\): argument '(\w+)' \(position (\d+)\)")


def _function_position(name, msg):
    """The method's parser error ``msg`` as the function's: the function's `input` is its
    argument 1, so the method's argument n is its n + 1 (None when ``msg`` names none)."""
    m = _POSITION.match(msg)
    if m is None or m.group(1) != name:
        return None
    return f"{name}(): argument '{m.group(2)}' (position {int(m.group(3)) + 1})" + msg[m.end():]


def functional(name, call):
    """``gradrs.<name>(input, ...)``: ``call(input, ...)`` (the method, with ``out=``) with
    PyTorch's argument errors."""

    strict = name in STRICT

    def fn(*args, **kwargs):
        if args and hasattr(type(args[0]), "_vmap_level"):  # vmap's BatchedTensor: its rule
            return call(*args, **kwargs)
        if strict and not (len(args) == 2 and not kwargs and isinstance(args[1], (tuple, list))):
            err = error(name, args, kwargs)
            if err is not None:
                raise err
        if args and isinstance(args[0], Tensor):
            input, rest, kw = args[0], args[1:], kwargs
        elif not args and isinstance(kwargs.get(key := _keyword("input", kwargs)), Tensor):
            kw = dict(kwargs)
            input, rest = kw.pop(key), ()
        else:
            input = None
            # a tensor-like object of another class (Note [Torch function dispatch])
            r = _torch_function.dispatch_foreign(fn, args, kwargs or None, f"gradrs.{name}")
            if r is not _torch_function._NO:
                return r
        if input is not None:
            try:
                return call(input, *rest, **kw)
            except TypeError as e:
                err = error(name, args, kwargs)
                if err is None:
                    shifted = _function_position(name, str(e))
                    if shifted is None:
                        raise
                    raise TypeError(shifted) from None
                raise err from None
        err = error(name, args, kwargs)
        if err is None:  # no signature listed that refuses it: as a method call
            return call(*args, **kwargs)
        raise err

    fn.__name__ = name
    fn.__qualname__ = name
    fn.__doc__ = f"`gradrs.{name}(input, ...)`: same as `input.{name}(...)`."
    return fn

