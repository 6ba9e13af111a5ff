"""`gradrs.overrides`: the `__torch_function__` helpers of `torch.overrides` that a library
uses to let its own functions dispatch to tensor-like objects.

gradrs's own functions and `Tensor` do not dispatch to `__torch_function__` (and `Tensor` has
none), so what is provided is the dispatch a caller writes itself: `has_torch_function`,
`handle_torch_function` (PyTorch's NEP-18 order: subclasses before their bases, then left to
right), `wrap_torch_function`, `is_tensor_like`, `is_tensor_method_or_property`. The listings
of PyTorch's overridable functions (`get_overridable_functions`, `get_testing_overrides`, ...)
and the function modes are not provided.

>>> from gradrs.overrides import handle_torch_function, has_torch_function
>>> class Logged:
...     @classmethod
...     def __torch_function__(cls, func, types, args=(), kwargs=None):
...         return f"{func.__name__} on Logged"
>>> def double(x):
...     if has_torch_function((x,)):
...         return handle_torch_function(double, (x,), x)
...     return x * 2
>>> double(3), double(Logged())
(6, 'double on Logged')
"""

import functools
import warnings

__all__ = [
    "handle_torch_function",
    "has_torch_function",
    "has_torch_function_unary",
    "has_torch_function_variadic",
    "is_tensor_like",
    "is_tensor_method_or_property",
    "wrap_torch_function",
]


def _tensor_type():
    import gradrs

    return gradrs.Tensor


def _overloads(arg_type):
    return hasattr(arg_type, "__torch_function__")


def _get_overloaded_args(relevant_args, get_type_fn=None):
    """The arguments whose type defines `__torch_function__`, one per type, in calling order:
    a subclass before its bases, otherwise left to right."""
    if get_type_fn is None:
        get_type_fn = type
    overloaded_types = set()
    overloaded_args = []
    for arg in relevant_args:
        arg_type = get_type_fn(arg)
        if arg_type not in overloaded_types and _overloads(arg_type):
            if overloaded_types:
                overloaded_types.add(arg_type)
                index = len(overloaded_args)
                for i, old_arg in enumerate(overloaded_args):
                    if issubclass(arg_type, get_type_fn(old_arg)):
                        index = i
                        break
                overloaded_args.insert(index, arg)
            else:
                overloaded_types = {arg_type}
                overloaded_args = [arg]
    return overloaded_args


def has_torch_function(relevant_args):
    """Whether any of `relevant_args` (an iterable) defines `__torch_function__`.

    >>> from gradrs.overrides import has_torch_function
    >>> has_torch_function((gradrs.ones(1), 2))
    False
    """
    tensor = _tensor_type()
    return any(type(a) is not tensor and _overloads(type(a)) for a in relevant_args)


def has_torch_function_unary(arg):
    """`has_torch_function((arg,))`.

    >>> from gradrs.overrides import has_torch_function_unary
    >>> has_torch_function_unary(gradrs.ones(1))
    False
    """
    return has_torch_function((arg,))


def has_torch_function_variadic(*args):
    """`has_torch_function(args)`.

    >>> from gradrs.overrides import has_torch_function_variadic
    >>> has_torch_function_variadic(gradrs.ones(1), None)
    False
    """
    return has_torch_function(args)


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
    overloaded_args = _get_overloaded_args(relevant_args)
    types = tuple(map(type, overloaded_args))
    for overloaded_arg in overloaded_args:
        method = overloaded_arg.__torch_function__
        if hasattr(method, "__self__") and method.__self__ is overloaded_arg:
            warnings.warn(
                "Defining your `__torch_function__ as a plain method is deprecated and "
                "will be an error in future, please define it as a classmethod.",
                DeprecationWarning,
                stacklevel=2,
            )
        result = method(public_api, types, args, kwargs)
        if result is not NotImplemented:
            return result
    func_name = f"{public_api.__module__}.{public_api.__name__}"
    raise TypeError(
        f"no implementation found for '{func_name}' on types that implement "
        f"__torch_function__: {[type(arg) for arg in overloaded_args]}"
    )


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


@functools.cache
def _get_tensor_methods():
    tensor = _tensor_type()
    methods = set()
    for cls in tensor.__mro__:
        if cls is object:
            continue
        for name, raw in vars(cls).items():
            attr = getattr(tensor, name, None)
            if isinstance(raw, property):
                methods.add(raw.__get__)
            elif callable(attr) and not isinstance(attr, type):
                methods.add(attr)
    return methods


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
    return isinstance(inp, _tensor_type()) or hasattr(inp, "__torch_function__")
