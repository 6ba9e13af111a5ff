"""`gradrs.overrides`: `torch.overrides`, PyTorch's `__torch_function__` protocol.

A Tensor subclass, or any object whose class defines `__torch_function__`, passed to a gradrs
function or method gets the call (`func`, `types`, `args`, `kwargs`) instead, as in PyTorch;
`Tensor.__torch_function__` is the default that runs the function and wraps Tensor results
into the subclass; a `TorchFunctionMode` entered with `with` sees every call in its scope.
Here: the helpers a library writes its own dispatch with (`has_torch_function`,
`handle_torch_function` in PyTorch's NEP-18 order, `wrap_torch_function`, `is_tensor_like`,
`is_tensor_method_or_property`), the modes, and the listings of what dispatches
(`get_overridable_functions`, `get_ignored_functions`, `resolve_name`). How gradrs dispatches
without slowing plain tensors: Note [Torch function dispatch] in `gradrs/_torch_function.py`.

>>> from gradrs.overrides import handle_torch_function, has_torch_function
>>> class Logged:
...     @classmethod
...     def __torch_function__(cls, func, types, args=(), kwargs=None):
...         return f"{func.__name__} on Logged"
>>> def double(x):
...     if has_torch_function((x,)):
...         return handle_torch_function(double, (x,), x)
...     return x * 2
>>> double(3), double(Logged()), gradrs.add(Logged(), 1)
(6, 'double on Logged', 'add on Logged')
"""

import contextlib
import functools
import warnings

from . import _torch_function as _tf
from ._torch_function import _get_overloaded_args, get_default_nowrap_functions  # noqa: F401

__all__ = [
    "BaseTorchFunctionMode",
    "TorchFunctionMode",
    "enable_reentrant_dispatch",
    "get_default_nowrap_functions",
    "get_ignored_functions",
    "get_overridable_functions",
    "get_testing_overrides",
    "handle_torch_function",
    "has_torch_function",
    "has_torch_function_unary",
    "has_torch_function_variadic",
    "is_tensor_like",
    "is_tensor_method_or_property",
    "redispatch_function",
    "resolve_name",
    "wrap_torch_function",
]


def _tensor_type():
    import gradrs

    return gradrs.Tensor


def has_torch_function(relevant_args):
    """Whether any of `relevant_args` (an iterable) is dispatched to (its class defines
    `__torch_function__`, exact Tensors and Parameters excepted), or a mode is active.

    >>> from gradrs.overrides import has_torch_function
    >>> has_torch_function((gradrs.ones(1), 2))
    False
    """
    return _tf.has_torch_function(relevant_args)


def has_torch_function_unary(arg):
    """`has_torch_function((arg,))`.

    >>> from gradrs.overrides import has_torch_function_unary
    >>> has_torch_function_unary(gradrs.ones(1))
    False
    """
    return _tf.has_torch_function((arg,))


def has_torch_function_variadic(*args):
    """`has_torch_function(args)`.

    >>> from gradrs.overrides import has_torch_function_variadic
    >>> has_torch_function_variadic(gradrs.ones(1), None)
    False
    """
    return _tf.has_torch_function(args)


def handle_torch_function(public_api, relevant_args, *args, **kwargs):
    """Call the `__torch_function__` of the tensor-likes among `relevant_args` in PyTorch's
    order until one returns something other than `NotImplemented`.

    >>> from gradrs.overrides import handle_torch_function
    >>> class Refuses:
    ...     @classmethod
    ...     def __torch_function__(cls, func, types, args=(), kwargs=None):
    ...         return NotImplemented
    >>> def f(x):
    ...     return handle_torch_function(f, (x,), x)
    >>> f(Refuses())  # doctest: +ELLIPSIS
    Traceback (most recent call last):
    TypeError: no implementation found for '....f' on types that implement __torch_function__: [<class '...Refuses'>]
    """
    return _tf.handle(public_api, _get_overloaded_args(relevant_args), args, kwargs)


def wrap_torch_function(dispatcher):
    """Make a function dispatch to `__torch_function__` for the arguments `dispatcher` returns.

    >>> from gradrs.overrides import wrap_torch_function
    >>> @wrap_torch_function(lambda a: (a,))
    ... def plus_zero(a):
    ...     return a + 0
    >>> class Const:
    ...     @classmethod
    ...     def __torch_function__(cls, func, types, args=(), kwargs=None):
    ...         return "const"
    >>> plus_zero(1), plus_zero(Const())
    (1, 'const')
    """

    def inner(func):
        @functools.wraps(func)
        def wrapped(*args, **kwargs):
            relevant_args = dispatcher(*args, **kwargs)
            if has_torch_function(relevant_args):
                return handle_torch_function(wrapped, relevant_args, *args, **kwargs)
            return func(*args, **kwargs)

        return wrapped

    return inner


def _get_tensor_methods():
    """Tensor's overridable methods, and its properties' `__get__`."""
    return set(_tensor_functions()[_tensor_type()])


def is_tensor_method_or_property(func):
    """Whether `func` is a method of `Tensor` (or a property's `__get__`).

    >>> from gradrs.overrides import is_tensor_method_or_property
    >>> is_tensor_method_or_property(gradrs.Tensor.add), is_tensor_method_or_property(gradrs.add)
    (True, False)
    """
    try:
        return func in _get_tensor_methods() or func.__name__ == "__get__"
    except TypeError:  # an unhashable callable is no Tensor method
        return getattr(func, "__name__", None) == "__get__"


def is_tensor_like(inp):
    """Whether `inp` is a Tensor or defines `__torch_function__`.

    >>> from gradrs.overrides import is_tensor_like
    >>> is_tensor_like(gradrs.ones(1)), is_tensor_like(6), is_tensor_like(None)
    (True, False, False)
    """
    return type(inp) is _tensor_type() or hasattr(inp, "__torch_function__")


@functools.cache
def _module_functions():
    """The dispatching functions of the modules by namespace, and every dispatching function
    (modules' and Tensor's, originals and wrappers) by the name `resolve_name` gives."""
    overridable = {}
    index = {}
    for module_name, funcs in _tf.OVERRIDABLE.items():
        namespace = _module(module_name)
        for name, fn in funcs.items():
            index[fn] = f"{module_name}.{name}"
            if not name.startswith("_") and not name.endswith("_"):
                overridable.setdefault(namespace, []).append(fn)
    _tf._build_wrappers()
    for name, raw in _tf._ORIGINALS.items():
        w = _tf._WRAPPERS[name]
        if _is_property(raw):
            for f in (raw, w):
                index[f.__get__] = f"gradrs.Tensor.{name}.__get__"
                if f.fset is not None if isinstance(f, property) else True:
                    index[f.__set__] = f"gradrs.Tensor.{name}.__set__"
        else:
            index[raw] = index[w] = f"gradrs.Tensor.{name}"
    return overridable, index


def _is_property(raw):
    import types

    return isinstance(raw, (property, types.GetSetDescriptorType))


def _tensor_functions():
    """Tensor's dispatching methods and properties as `Tensor` has them now (a method a
    subclass overrides, or every one while a mode is pushed, is its dispatching wrapper)."""
    tensor = _tensor_type()
    _tf._build_wrappers()
    out = {}
    for name, raw in _tf._ORIGINALS.items():
        now = vars(tensor)[name]
        if _is_property(raw):
            # keyed by the property itself, as PyTorch's listing
            out.setdefault(now, []).append(now.__get__)
        else:
            out.setdefault(tensor, []).append(now)
    return out


def _module(name):
    import importlib

    return importlib.import_module(name)


def get_overridable_functions():
    """The functions that dispatch to `__torch_function__`, by namespace (the modules
    `gradrs`, `gradrs.nn.functional`, `gradrs.linalg`, `gradrs.special`, and the class
    `gradrs.Tensor`, whose properties are listed by their `__get__`).

    >>> from gradrs.overrides import get_overridable_functions
    >>> fns = get_overridable_functions()
    >>> gradrs.add in fns[gradrs], gradrs.Tensor.add in fns[gradrs.Tensor]
    (True, True)
    """
    out = {k: list(v) for k, v in _module_functions()[0].items()}
    out.update(_tensor_functions())
    return out


def resolve_name(f):
    """The name of a function passed to `__torch_function__` (`"gradrs.add"`), or None.

    >>> from gradrs.overrides import resolve_name
    >>> resolve_name(gradrs.add), resolve_name(gradrs.Tensor.shape.__get__)
    ('gradrs.add', 'gradrs.Tensor.shape.__get__')
    """
    try:
        return _module_functions()[1].get(f)
    except TypeError:  # unhashable
        return None


def get_ignored_functions():
    """The public functions of the dispatching namespaces that never dispatch as themselves
    (no tensor arguments, or state such as `manual_seed`; or a call of another function that
    does, as `F.sigmoid(x)` is `x.sigmoid()`), and Tensor's attributes that never dispatch
    (`as_subclass`, `_make_subclass`, ...), as PyTorch's list.

    >>> from gradrs.overrides import get_ignored_functions
    >>> gradrs.is_tensor in get_ignored_functions(), gradrs.add in get_ignored_functions()
    (True, False)
    """
    out = {fn for module, name, fn, _ in _tf._MODE_ONLY}
    for module_name in _tf.OVERRIDABLE:
        module = _module(module_name)
        for name in _tf.NOT_OVERRIDABLE | _tf.PASS_THROUGH.get(module_name, frozenset()):
            fn = getattr(module, name, None)
            if callable(fn) and not isinstance(fn, type):
                out.add(fn)
    tensor = _tensor_type()
    for name in _tf._NOT_DISPATCHED:
        attr = getattr(tensor, name, None)
        if callable(attr) and not isinstance(attr, type) and name not in (
                "__class__", "__init_subclass__", "__subclasshook__", "__torch_function__"):
            out.add(attr)
    return out


def get_testing_overrides():
    """A dummy for every function `get_overridable_functions` lists, with its signature
    (where it has one), returning -1: the table a library's own tests of its
    `__torch_function__` are generated from. Each dummy checks its arguments against the
    signature, as the function would.

    >>> from gradrs.overrides import get_testing_overrides
    >>> dummies = get_testing_overrides()
    >>> add = dummies[gradrs.add]
    >>> add(gradrs.ones(1), 2)
    -1
    >>> import inspect
    >>> list(inspect.signature(dummies[gradrs.nn.functional.relu]).parameters)
    ['input', 'inplace']
    """
    import inspect

    out = {}
    for funcs in get_overridable_functions().values():
        for fn in funcs:
            try:
                sig = inspect.signature(fn)
            except (TypeError, ValueError):
                sig = None
            out[fn] = _dummy(fn, sig)
    return out


def _dummy(fn, sig):
    def dummy(*args, **kwargs):
        if sig is not None:
            sig.bind(*args, **kwargs)
        return -1

    dummy.__name__ = dummy.__qualname__ = getattr(fn, "__name__", "dummy")
    if sig is not None:
        dummy.__signature__ = sig
    return dummy


class TorchFunctionMode:
    """A `TorchFunctionMode` overrides the meaning of every `__torch_function__`-overridable
    function within a dynamic scope (`with Mode():`): factories, functions without tensor
    arguments, and plain tensors' methods too. Modes nest; inside a mode's
    `__torch_function__`, calls go on to the next mode outward (the mode is popped while it
    runs).

    >>> from gradrs.overrides import TorchFunctionMode
    >>> class Log(TorchFunctionMode):
    ...     def __torch_function__(self, func, types, args=(), kwargs=None):
    ...         print(func.__name__)
    ...         return func(*args, **(kwargs or {}))
    >>> with Log():
    ...     y = gradrs.ones(2) + 1
    ones
    add
    """

    inner: "TorchFunctionMode"

    def __init__(self) -> None:
        pass

    def __torch_function__(self, func, types, args=(), kwargs=None):
        """The call's override; subclasses define it."""
        raise NotImplementedError

    def __enter__(self):
        _push_mode(self)
        return self

    def __exit__(self, exc_type, exc_val, exc_tb):
        _pop_mode()

    @classmethod
    def push(cls, *args, **kwargs):
        """Deprecated: `with Mode():` does it."""
        warnings.warn(
            "`Mode.push()` is no longer necessary and can be replaced with just `with Mode()`",
            stacklevel=2,
        )
        instance = cls(*args, **kwargs)
        return instance


def _len_torch_function_stack():
    return len(_tf.current_modes())


def _get_current_function_mode():
    stack = _tf.current_modes()
    return stack[-1] if stack else None


def _get_current_function_mode_stack():
    return list(_tf.current_modes())


def _push_mode(mode):
    _tf.push_mode(mode)


def _pop_mode():
    return _tf.pop_mode()


_pop_mode_temporarily = _tf._pop_mode_temporarily
_is_torch_function_mode_enabled = _tf._is_torch_function_mode_enabled


class BaseTorchFunctionMode(TorchFunctionMode):
    """A mode that runs each call unchanged: the base for a mode overriding a few calls.

    >>> from gradrs.overrides import BaseTorchFunctionMode
    >>> with BaseTorchFunctionMode():
    ...     gradrs.add(gradrs.ones(1), 1)
    tensor([2.])
    """

    def __torch_function__(self, func, types, args=(), kwargs=None):
        """Run `func` unchanged."""
        if kwargs is None:
            kwargs = {}
        return func(*args, **kwargs)


@contextlib.contextmanager
def _enable_torch_function():
    old = _tf._state.level
    try:
        _tf._state.level = 0
        _tf._sync()
        yield
    finally:
        _tf._state.level = old
        _tf._sync()


@contextlib.contextmanager
def enable_reentrant_dispatch():
    """PyTorch's re-entrant `__torch_dispatch__` guard; gradrs has no `__torch_dispatch__`,
    so there is nothing to restore.

    >>> from gradrs.overrides import enable_reentrant_dispatch
    >>> with enable_reentrant_dispatch():
    ...     pass
    """
    yield


def redispatch_function(func, types, args, kwargs):
    """Skip one level of `__torch_function__` dispatch and call the function: `func` itself
    runs as if no subclass or mode were there, the calls it makes dispatch as usual.

    >>> from gradrs.overrides import has_torch_function, handle_torch_function
    >>> class LoggingTensor(gradrs.Tensor):
    ...     @classmethod
    ...     def __torch_function__(cls, func, types, args, kwargs=None):
    ...         print(f"Calling {func.__name__}")
    ...         return gradrs.overrides.redispatch_function(func, types, args, kwargs)
    >>> def scaled_mul(a, b):
    ...     if has_torch_function((a, b)):
    ...         return handle_torch_function(scaled_mul, (a, b), a, b)
    ...     return a * b + 1
    >>> x = gradrs.tensor([3.0]).as_subclass(LoggingTensor)
    >>> scaled_mul(x, x)
    Calling scaled_mul
    Calling mul
    tensor([10.])
    """
    return _tf.skip_one_hop(func, types, args, kwargs)
