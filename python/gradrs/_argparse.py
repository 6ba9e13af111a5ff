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


# gradrs's classes for what PyTorch's C types are (printed with their module)
_C_TYPES = frozenset({_native.dtype, _native.device})


def type_name(obj) -> str:
    """What PyTorch prints for an argument's type (the C type's ``tp_name``)."""
    if isinstance(obj, Tensor):
        return "Tensor"
    t = type(obj)
    if t in _C_TYPES:  # PyTorch's C types: `torch.dtype`...
        return f"gradrs.{t.__name__}"
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
    "gradrs.Generator": lambda o: isinstance(o, _native.Generator),
    "gradrs.device": lambda o: isinstance(o, (str, _native.device)) or _is_int(o),
    "gradrs.layout": lambda o: type(o).__name__ == "layout",
    "gradrs.memory_format": lambda o: type(o).__name__ == "memory_format",
    "tuple of Scalars": lambda o: isinstance(o, (tuple, list)) and all(
        _is_number(v) for v in o),
    "tuple of floats": lambda o: _is_number(o) or (
        isinstance(o, (tuple, list)) and all(_is_number(v) for v in o)),
}
# Python's own types PyTorch's parser takes as dtypes (`dtype=float`)
_PY_DTYPES = (float, int, bool, complex)
_CHECKS["gradrs.dtype"] = lambda o: isinstance(o, _native.dtype) or o in _PY_DTYPES
# Note [Strict int lists]: the functions whose signature has an `IntList`, whose methods
# accept what the functions refuse (varargs, a bare int): checked before the call.
STRICT = frozenset({"reshape", "permute", "flip", "tile", "broadcast_to", "rot90"})


class _Param:
    __slots__ = ("type", "name", "optional", "allow_none", "kw_only", "numbers")

    def __init__(self, text, kw_only):
        decl, eq, default = text.partition(" = ")
        self.type, _, self.name = decl.rpartition(" ")
        self.optional = bool(eq)
        # Optional list parameters (`int[1]? dim`) also take None, with or without a default.
        self.allow_none = default == "None" or self.type == "tuple of ints"
        self.kw_only = kw_only
        self.numbers = False  # a Tensor parameter that takes numbers too

    def accepts(self, obj) -> bool:
        if obj is None:
            return self.allow_none
        if self.numbers and isinstance(obj, numbers.Number):
            return True
        check = _CHECKS.get(self.type)
        # a type not modelled here refuses nothing: the call's own error is kept
        return check is None or check(obj)


def _keyword(name, kwargs):
    """The keyword that gives parameter `name`: its own, else one of its NumPy names
    (`axis` for `dim`...), as PyTorch's parser looks them up; None when neither is given."""
    if name in kwargs:
        return name
    return next((a for a in _numpy_names.ALIASES.get(name, ()) if a in kwargs), None)


# python_arg_parser.cpp's `should_allow_numbers_as_tensors`: ops whose Tensor parameters also
# take a Python number
_NUMBERS_AS_TENSORS = frozenset("""
    add add_ div div_ divide divide_ mul mul_ multiply multiply_ sub sub_ subtract subtract_
    true_divide true_divide_ to _to_copy copy_ copy floor_divide floor_divide_ _conj
""".split())


class _Signature:
    def __init__(self, name, text):
        self.name, self.text = name, text
        self.params, kw_only = [], False
        for item in text[1:-1].split(", "):
            if item == "*":
                kw_only = True
            elif item:
                self.params.append(_Param(item, kw_only))
        if name in _NUMBERS_AS_TENSORS:
            for p in self.params:
                if p.type == "Tensor":
                    p.numbers = True
        self.max_pos = sum(not p.kw_only for p in self.params)
        # what PyTorch's print_error counts to find the plausible overloads
        self.min_args = sum(not p.optional for p in self.params)
        self.max_args = len(self.params)

    def error(self, args, kwargs):
        """The TypeError PyTorch raises for this call (None when it matches)."""
        name = self.name
        if len(args) > self.max_pos:
            return TypeError(_takes(name, self.min_args, self.max_pos, len(args)))
        used = set()
        for i, p in enumerate(self.params):
            if i < len(args) and not p.kw_only:
                obj, kw = args[i], False
            elif (key := _keyword(p.name, kwargs)) is not None:
                obj, kw = kwargs[key], True
                used.add(key)
            else:
                if not p.optional:
                    return _numpy_names.missing_arguments(
                        name, [q.name for q in self.params[i:] if not q.optional])
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


def _takes(name, low, n, given) -> str:
    """PyTorch's `extra_args` text: too many positional arguments."""
    if low != n:
        return f"{name}() takes from {low} to {n} positional arguments but {given} were given"
    return (f"{name}() takes {n} positional argument{'s' if n != 1 else ''} but {given} "
            f"{'was' if given == 1 else 'were'} given")


def _kw_items(kwargs):
    # PyTorch lists keywords from a std::unordered_map: in practice the reverse of the order
    # they were given.
    return list(reversed(list(kwargs.items())))


def _describe(args, kwargs) -> str:
    """invalid_arguments.cpp's `_argDesc`: the types given (a call of only keywords keeps
    its trailing ", ", as PyTorch's)."""
    text = "(" + "".join(f"{type_name(a)}, " for a in args)
    text += "".join(f"{k}={type_name(v)}, " for k, v in _kw_items(kwargs))
    return (text[:-2] if args else text) + ")"


def _tp_name(obj) -> str:
    return "Tensor" if isinstance(obj, Tensor) else type_name(obj)


def _option(text):
    """invalid_arguments.cpp's `_parseOption`: each item of a printed signature split at its
    last space into (type, name), as PyTorch reads them back (`bool keepdim = False` reads as
    type `bool keepdim =`, name `False`; `*` as an item of its own)."""
    items = text[1:-1].split(", ")
    out = []
    for item in items:
        cut = item.rfind(" ")
        out.append((item[:cut] if cut >= 0 else item, item[cut + 1:]))
    return out


def _type_matches(type_text, obj) -> bool:
    name = _tp_name(obj)
    if type_text == "float":
        return name in ("float", "int", "long")
    if type_text == "int":
        return name in ("int", "long")
    return name == type_text


def _formatted(option, args, kwargs) -> str:
    """`_formattedArgDesc`: the types given, each one no parameter takes between `!`s (ANSI
    colours on a terminal, as PyTorch's)."""
    import os

    tty = os.isatty(1) and os.isatty(2)
    red, reset_red = ("\33[31;1m", "\33[0m") if tty else ("!", "!")
    green, reset_green = ("\33[32;1m", "\33[0m") if tty else ("", "")
    kw = dict(kwargs)
    given = list(args) + [None] * len(kw)
    text = "("
    for i in range(len(given)):
        is_kwarg = i >= len(args)
        arg_name = option[i][1] if i < len(option) else None
        obj = kw.get(arg_name) if is_kwarg else given[i]
        ok = i < len(option) and _type_matches(option[i][0], obj)
        text += green if ok else red
        if is_kwarg:
            text += f"{arg_name}="
        if isinstance(obj, (tuple, list)):
            inner = ", ".join(_tp_name(v) for v in obj)
            text += (f"{type_name(obj)} of (" + inner + ("," if len(obj) == 1 else "") + ")"
                     if isinstance(obj, tuple) else f"{type_name(obj)} of [{inner}]")
        else:
            text += _tp_name(obj)
        text += (reset_green if ok else reset_red) + ", "
    return (text[:-2] if args else text) + ")"


def _unmatched_keywords(option, kwargs):
    start = max(len(option) - len(kwargs), 0)
    names = {n for _, n in option[start:]}
    return [k for k, _ in _kw_items(kwargs) if k not in names]


def invalid_arguments(name, args, kwargs, texts) -> str:
    """invalid_arguments.cpp's `format_invalid_args`: PyTorch's "received an invalid
    combination of arguments" text for the signatures `texts`."""
    msg = f"{name}() received an invalid combination of arguments - "
    if len(texts) == 1:
        option = _option(texts[0])
        unmatched = _unmatched_keywords(option, kwargs) if kwargs else []
        if unmatched:
            return msg + "got unrecognized keyword arguments: " + ", ".join(unmatched)
        got = (_formatted(option, args, kwargs) if len(args) + len(kwargs) == len(option)
               else _describe(args, kwargs))
        return msg + f"got {got}, but expected {texts[0]}"
    msg += f"got {_describe(args, kwargs)}, but expected one of:\n"
    for text in texts:
        msg += f" * {text}\n"
        option = _option(text)
        if len(args) + len(kwargs) == len(option):
            unmatched = _unmatched_keywords(option, kwargs) if kwargs else []
            if unmatched:
                msg += ("      didn't match because some of the keywords were incorrect: "
                        + ", ".join(unmatched) + "\n")
            else:
                msg += ("      didn't match because some of the arguments have invalid "
                        f"types: {_formatted(option, args, kwargs)}\n")
    return msg


def error(name, args, kwargs, texts=None, listed=False):
    """PyTorch's TypeError for ``gradrs.<name>(*args, **kwargs)``, or None if the arguments
    match one of its signatures (``texts``, by default those listed for ``name``; None when
    there are none). As PyTorch's parser: one signature raises its own first problem; of
    several, the one plausible by the number of arguments given does, else the listing.
    ``listed``: ``texts`` is a parser's listing (``_method_signatures``,
    ``_function_signatures``), whose parser has more signatures than it lists (hidden
    deprecated ones) when it lists one: that one then raises only when plausible (`x.add()`
    gets the listing)."""
    texts = SIGNATURES.get(name) if texts is None else texts
    if texts is None:
        return None
    sigs = [_Signature(name, t) for t in texts]
    if len(sigs) == 1 and not listed:
        return sigs[0].error(args, kwargs)
    if any(s.error(args, kwargs) is None for s in sigs):
        return None
    n = len(args) + len(kwargs)
    plausible = [s for s in sigs if s.min_args <= n <= s.max_args]
    if len(plausible) == 1:
        return plausible[0].error(args, kwargs)
    return TypeError(invalid_arguments(name, args, kwargs, texts))


# ---- Note [Parser errors] (src/python/parser_errors.rs): the methods' own argument errors ----

_PYO3_KEYWORD = re.compile(
    r"^Tensor\.\w+\(\) (got an unexpected keyword argument '\w+'|"
    r"got multiple values for argument '\w+')$")
_PYO3_TAKES = re.compile(
    r"^Tensor\.\w+\(\) takes (?:from (\d+) to )?(\d+) positional arguments but (\d+) (?:was|were) "
    r"given$")
_PYO3_MISSING = re.compile(r"^Tensor\.\w+\(\) missing \d+ required positional arguments?: (.*)$")
_PYO3_NOT_INSTANCE = re.compile(r"^(?:'[\w.]+' object|'None') is not an instance of '(\w+)'$")
_PYO3_INTEGER = re.compile(r"^'[\w.]+' object cannot be interpreted as an integer$")
_PROCESSING = re.compile(r"^while processing '(\w+)'$")
_UNNAMED = re.compile(r"^argument '(\w+)' must be (.+), not (.+)$", re.S)


def _parameters(name):
    """The method's parameters after `self`, from its text signature."""
    sig = getattr(vars(Tensor).get(name), "__text_signature__", None) or ""
    params = []
    for item in sig.strip("()").split(","):
        item = item.strip().partition("=")[0].strip()
        if item and not item.startswith("$") and item not in ("*", "/"):
            params.append(item.lstrip("*"))
    return params


def _argument(name, param, what, args, kwargs):
    """`name(): argument 'param' (position n) must be <what>`, as PyTorch's parser."""
    params = _parameters(name)
    pos = params.index(param) if param in params else None
    where = f" (position {pos + 1})" if pos is not None and pos < len(args) else ""
    return f"{name}(): argument '{param}'{where} must be {what}"


def _given(param, name, args, kwargs):
    params = _parameters(name)
    if param in kwargs:
        return kwargs[param]
    pos = params.index(param) if param in params else None
    return args[pos] if pos is not None and pos < len(args) else None


def _varargs_ints(texts, args, kwargs):
    """Whether PyTorch's parser reads the positional arguments as one int list, its
    `allow_varargs_intlist` (`x.view(2, 3)`): a signature whose one parameter is an int list;
    its errors are then the method's own."""
    return len(args) > 1 and not kwargs and any(
        len(ps := _Signature("", t).params) == 1 and ps[0].type == "tuple of ints"
        for t in texts)


def method_error(name, self, args, kwargs, exc):
    """The TypeError PyTorch raises for ``self.<name>(*args, **kwargs)`` in place of the one
    the native method raised (``exc``), or None to keep that: the listing of the overloads
    PyTorch's parser prints (``_method_signatures``), else pyo3's texts in PyTorch's words."""
    from ._method_signatures import METHODS

    if name in _torch_function._PYTHON_METHODS:  # a Python function in PyTorch: Python's texts
        return None
    msg = str(exc)
    texts = METHODS.get(name)
    if texts is not None and not _varargs_ints(texts, args, kwargs):
        err = error(name, args, kwargs, texts, listed=True)
        if err is not None:
            return err
    if msg.startswith(f"{name}("):  # the method's own parser already spoke as PyTorch's
        return None
    if (m := _PYO3_KEYWORD.match(msg)) is not None:
        return TypeError(f"{name}() {m.group(1)}")
    if (m := _PYO3_TAKES.match(msg)) is not None:
        low, n, given = m.group(1), int(m.group(2)), int(m.group(3))
        return TypeError(_takes(name, n if low is None else int(low), n, given))
    if (m := _PYO3_MISSING.match(msg)) is not None:
        return _numpy_names.missing_arguments(name, re.findall(r"'(\w+)'", m.group(1)))
    notes = getattr(exc, "__notes__", None) or ()
    param = next((m.group(1) for n in notes if (m := _PROCESSING.match(str(n)))), None)
    if param is not None:
        obj = _given(param, name, args, kwargs)
        if (m := _PYO3_NOT_INSTANCE.match(msg)) is not None:
            what = m.group(1)
        elif _PYO3_INTEGER.match(msg) is not None:
            what = "int"
        else:
            return None
        return TypeError(f"{_argument(name, param, what, args, kwargs)}, not {type_name(obj)}")
    if (m := _UNNAMED.match(msg)) is not None:  # a parameter parser that knew no function
        return TypeError(
            f"{_argument(name, m.group(1), m.group(2), args, kwargs)}, not {m.group(3)}")
    return None


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
                err = (listed_error(name, args, kwargs) or error(name, args, kwargs)
                       or function_error(name, args, kwargs, e))
                if err is None:
                    raise
                raise err from None
        err = listed_error(name, args, kwargs) or error(name, args, kwargs)
        if err is None:  # no signature listed that refuses it: as a method call
            return call(*args, **kwargs)
        raise err

    fn.__name__ = name
    fn.__qualname__ = name
    fn.__doc__ = f"`gradrs.{name}(input, ...)`: same as `input.{name}(...)`."
    return fn



_POSITIONAL = re.compile(r"^(\w+)\(\) takes (?:from (\d+) to )?(\d+) positional arguments? but "
                         r"(\d+) (?:was|were) given$")


def function_error(name, args, kwargs, exc):
    """The TypeError PyTorch raises for ``gradrs.<name>(*args, **kwargs)`` where the method
    the functional form calls raised ``exc`` (PyTorch's method texts, Note [Parser errors]):
    the listing of the function's overloads, or the method's text with the function's
    positions (`input` is the function's argument 1); None to keep ``exc``."""
    from ._function_signatures import FUNCTIONS

    texts = FUNCTIONS.get(name)
    if texts is not None:
        err = error(name, args, kwargs, texts, listed=True)
        if err is not None:
            return err
    msg = str(exc)
    shifted = _function_position(name, msg)
    if shifted is not None:
        return TypeError(shifted)
    m = _POSITIONAL.match(msg)
    if m is not None and m.group(1) == name:
        low, n, given = m.group(2), int(m.group(3)), int(m.group(4))
        return TypeError(_takes(name, (n if low is None else int(low)) + 1, n + 1, given + 1))
    return None


def listed_error(name, args, kwargs):
    """The TypeError PyTorch's parser raises for ``gradrs.<name>(*args, **kwargs)`` by the
    listing of the function's overloads (``_function_signatures.FUNCTIONS``), or None: what a
    top-level function's call that raised becomes (Note [Parser errors]; the parser runs before
    PyTorch's function, so a call it refuses raises its TypeError, whatever gradrs raised)."""
    from ._function_signatures import FUNCTIONS

    texts = FUNCTIONS.get(name)
    if texts is None:
        return None
    if any(hasattr(type(a), "_vmap_level") for a in (*args, *kwargs.values())):
        return None  # vmap's BatchedTensor: its own rules (a refusal naming it falls back)
    if len(args) > 1 and any(_sizes_first(t) for t in texts):
        return None  # `zeros(2, 3)`: sizes as varargs (`allow_varargs_intlist`), the call's own
    try:
        return error(name, args, kwargs, texts, listed=True)
    except Exception:  # noqa: BLE001 - a checker's bug must not hide the call's own error
        return None


_CALL_MISSING = re.compile(r"^(\w+)\(\) missing \d+ required positional arguments?: (.*)$")


def missing_text(name, exc):
    """PyTorch's parser text for pyo3's (CPython's) "missing required positional arguments"
    error `exc` of the C-bound function `name`, or None."""
    m = _CALL_MISSING.match(str(exc)) if isinstance(exc, TypeError) else None
    if m is None or m.group(1) != name:
        return None
    return _numpy_names.missing_arguments(name, re.findall(r"'(\w+)'", m.group(2)))


def _sizes_first(text):
    """Whether the signature's one positional parameter is an int list (which PyTorch's
    parser also takes as varargs)."""
    ps = [p for p in _Signature("", text).params if not p.kw_only]
    return len(ps) == 1 and ps[0].type == "tuple of ints"
