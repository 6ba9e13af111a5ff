"""NumPy's keyword names for PyTorch's (``x.sum(axis=0, keepdims=True)``, ``torch.add(x1=a, x2=b)``).

PyTorch's C++ argument parser (``numpy_compatibility_arg_names`` in
``torch/csrc/utils/python_arg_parser.cpp``) takes ``axis`` for a parameter ``dim``,
``keepdims`` for ``keepdim``, ``x`` / ``a`` / ``x1`` for ``input`` and ``x2`` for ``other``, on
every op it parses; an op PyTorch writes in Python (``Tensor.norm``, ``Tensor.split``,
``torch.functional.*``, ``nn.functional.*``) takes none. A parameter given both ways is
refused as ``<op>() got an unexpected keyword argument '<alias>'``.

Here: the native Tensor methods get a trampoline that renames them (`_native._numpy_names`,
free when no keyword is given); the Python Tensor methods a wrapper (`install`); the
functional forms rename in `_forms` / `_argparse` (``input``'s aliases, the rest forwarded
to the method); other Python functions through `accepts`.
"""

from __future__ import annotations

import functools
import inspect
import types
from typing import Any, Callable, TypeVar, cast

from . import _native

# PyTorch's table: its parameter name -> the NumPy names it also takes.
ALIASES = {"dim": ("axis",), "keepdim": ("keepdims",), "input": ("x", "a", "x1"),
           "other": ("x2",)}
INPUT_ALIASES = ALIASES["input"]
ALIAS_NAMES = frozenset(a for names in ALIASES.values() for a in names)

# Tensor methods PyTorch defines in Python (torch/_tensor.py): its parser never sees them.
TORCH_PYTHON_METHODS = frozenset("""
    backward dim_order eig index is_shared istft lstsq lu module_load norm register_hook
    register_post_accumulate_grad_hook reinforce resize resize_as share_memory_ solve split
    stft storage storage_type symeig to_sparse_coo unflatten unique unique_consecutive
""".split())


def _params(sig):
    """``[(name, position or None)]`` of a signature's parameters after ``self``/``input``
    positions counted from the first argument after ``self``."""
    out = []
    pos = 0
    for p in sig.parameters.values():
        if p.kind in (p.VAR_POSITIONAL, p.VAR_KEYWORD):
            if p.kind is p.VAR_POSITIONAL:
                pos = None
            continue
        positional = p.kind in (p.POSITIONAL_ONLY, p.POSITIONAL_OR_KEYWORD) and pos is not None
        out.append((p.name, pos if positional else None))
        if positional:
            pos += 1
    return out


def _plan(params):
    """``{alias: (PyTorch's name, position or None)}`` for the parameters that have aliases."""
    return {alias: (name, pos) for name, pos in params if name in ALIASES
            for alias in ALIASES[name]}


def rename(name, plan, nargs, kwargs, names=None):
    """``kwargs`` with the NumPy names of ``plan`` as PyTorch's, or PyTorch's TypeError when a
    parameter is also given by its own name or by position, or (``names``: the parameters'
    own names) when a keyword is none of them. PyTorch's parser then names the first keyword,
    in the call's order, that is no parameter's own name: an alias it took too
    (``softplus(x=t, y=1)`` names ``x``)."""
    out = dict(kwargs)
    for alias in [k for k in kwargs if k in plan]:
        target, pos = plan[alias]
        if target in out or (pos is not None and nargs > pos):
            raise _unexpected(name, plan, kwargs, names)
        out[target] = out.pop(alias)
    if names is not None and not names.issuperset(out):
        raise _unexpected(name, plan, kwargs, names)
    return out


def missing_error(fn, found, args, kwargs):
    """PyTorch's parser text for a call of ``fn`` (``found``: its `parsed_plan`) that leaves
    out a parameter without default (checked before unknown keywords, NumPy's names counting
    as their parameters), or None. PyTorch's text says ``1 required positional arguments`` and
    ``2 required positional argument``, and quotes the names."""
    name, plan, _ = found
    try:
        params = inspect.signature(fn).parameters.values()
    except (TypeError, ValueError):
        return None
    given = {plan[k][0] if k in plan else k for k in kwargs}
    missing = []
    npos = len(args)
    for p in params:
        if p.kind is p.VAR_POSITIONAL:
            npos = 0
        elif p.kind in (p.POSITIONAL_ONLY, p.POSITIONAL_OR_KEYWORD) and npos:
            npos -= 1
        elif p.kind is not p.VAR_KEYWORD and p.default is p.empty and p.name not in given:
            missing.append(p.name)
    if not missing:
        return None
    return missing_arguments(name, missing)


def missing_arguments(name, missing):
    """PyTorch's parser text for a call of ``name`` leaving out the parameters ``missing``:
    the names quoted with `"`, and (sic) ``1 required positional arguments`` /
    ``2 required positional argument``."""
    n = len(missing)
    return TypeError(f"{name}() missing {n} required positional argument{'s' if n == 1 else ''}"
                     f": {', '.join(chr(34) + m + chr(34) for m in missing)}")


def _unexpected(name, plan, kwargs, names):
    extra = next(k for k in kwargs if k in plan or names is not None and k not in names)
    return TypeError(f"{name}() got an unexpected keyword argument '{extra}'")


_CANONICAL = {alias: name for name, aliases in ALIASES.items() for alias in aliases}


def canonical(kwargs):
    """``kwargs`` with NumPy's names as PyTorch's, for a call that a check of the declared
    signatures (`_argparse.error`, which reads both) has already accepted."""
    if ALIAS_NAMES.isdisjoint(kwargs):
        return kwargs
    return {_CANONICAL.get(k, k): v for k, v in kwargs.items()}


def input_alias(name, kwargs):
    """The tensor given as ``x=`` / ``a=`` / ``x1=`` (taken out of ``kwargs``) for a function
    called without ``input``, or None."""
    given = [a for a in INPUT_ALIASES if a in kwargs]
    if not given:
        return None
    for extra in given[1:]:
        raise TypeError(f"{name}() got an unexpected keyword argument '{extra}'")
    return kwargs.pop(given[0])


_F = TypeVar("_F", bound=Callable[..., Any])


def parsed_plan(fn, name: str | None = None, skip_self: bool = False):
    """``(name, plan, names)`` for `rename` of a function PyTorch's parser reads (its NumPy
    aliases, its parameters' own names, None with ``**kwargs``), or None when ``fn`` has no
    signature."""
    try:
        sig = inspect.signature(fn)
    except (TypeError, ValueError):
        return None
    params = _params(sig)
    if skip_self:
        params = [(n, None if p is None else p - 1) for n, p in params[1:]]
    plan = _plan(params)
    names = None if any(p.kind is p.VAR_KEYWORD for p in sig.parameters.values()) else (
        frozenset(n for n, _ in params))
    return name or fn.__name__, plan, names


def accepts(fn: _F, name: str | None = None, skip_self: bool = False) -> _F:
    """``fn`` (a Python function standing for a PyTorch op its parser reads) also taking the
    NumPy names of its parameters; ``fn`` itself when it has none."""
    found = parsed_plan(fn, name, skip_self)
    if found is None or not found[1]:
        return fn
    name, plan, names = found
    offset = 1 if skip_self else 0
    aliases, renamed = ALIAS_NAMES, rename

    def call(*args, **kwargs):
        if kwargs and not aliases.isdisjoint(kwargs):
            kwargs = renamed(name, plan, len(args) - offset, kwargs, names)
        return fn(*args, **kwargs)

    # with `fn`'s globals, so doctest finds its examples in `fn`'s module
    call = types.FunctionType(call.__code__, getattr(fn, "__globals__", globals()), fn.__name__,
                              None, call.__closure__)
    functools.update_wrapper(call, fn)
    call._numpy_names = True  # type: ignore[attr-defined]  (for `_torch_function.wrap_module`)
    # Typed as `fn` itself, so type checkers keep seeing its signature (tests/test_typing.py).
    return cast(_F, call)


def install(cls):
    """The Tensor methods that PyTorch's parser reads take NumPy's names: the native ones
    through `_native._numpy_names`, the Python ones wrapped."""
    native = []
    for name, member in list(vars(cls).items()):
        if name.startswith("__") or name in TORCH_PYTHON_METHODS:
            continue
        if inspect.isfunction(member):
            wrapped = accepts(member, name, skip_self=True)
            if wrapped is not member:
                setattr(cls, name, wrapped)
        elif type(member).__name__ == "method_descriptor" and member.__text_signature__:
            try:
                sig = inspect.signature(member)
            except ValueError:
                continue
            params = _params(sig)[1:]  # after self
            params = [(n, None if p is None else p - 1) for n, p in params]
            plan = _plan(params)
            if plan:
                native.append((name, [(a, t, p) for a, (t, p) in plan.items()]))
    return _native._numpy_names(cls, native)
