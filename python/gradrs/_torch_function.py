"""PyTorch's `__torch_function__` protocol (torch/overrides.py, torch/_tensor.py, and the C++
`handle_torch_function` of python_arg_parser.cpp): the dispatch state, the default
`Tensor.__torch_function__`, the function-mode stack, and where gradrs checks for it.

Note [Torch function dispatch]
The native `Tensor`'s methods and dunders are Rust, and a check on every call would slow every
plain tensor down. So a plain tensor never sees a check; dispatch is put only where it can be
needed:

* Tensor subclasses: `Tensor.__init_subclass__` sets a dispatching wrapper (built once) for
  every method, dunder and property of `Tensor` on the new class itself, for each name no class
  between it and `Tensor` defines, so `sub.add(1)`, `sub + 1`, `sub[0]` and `sub.shape`
  dispatch while `Sub.__mro__` stays `(Sub, Tensor, object)` and a plain `Tensor` keeps its
  native methods. A name the subclass (or a class between) defines itself gets its wrapper on
  `Tensor` (`_ON_TENSOR`, for good), so that `super().add(...)` in the override dispatches as
  PyTorch's; a plain tensor then pays a type test on that one method. A class whose
  `__torch_function__` is `_disabled_torch_function_impl` (`nn.Parameter`, `nn.Buffer`) is
  left alone, as PyTorch treats it as a plain tensor.
* Function modes: while a `TorchFunctionMode` is pushed on any thread, the same wrappers are
  set on `Tensor` itself (and the natives put back when the last one is popped), so a mode sees
  plain tensors' methods too; each wrapper looks at its own thread's stack.
* Functions: the functional forms check inline (`_forms.py`, `_argparse.py`), the other
  public functions of `gradrs`, `gradrs.nn.functional`, `gradrs.linalg` and `gradrs.special`
  through `dispatching` (a wrapper that only tests a flag while no subclass or mode
  exists, and scans the arguments of a call that fails with TypeError / AttributeError, for
  tensor-like objects of other classes). The factories take no tensor, so only a mode can take
  their calls: their wrappers are set on `gradrs` only while a mode is pushed.

`ACTIVE` is false until a dispatching subclass is made (`SUBCLASSES`) or while a mode is
pushed (`MODES`): until then every check is one flag test. After, a check with no mode pushed
tests its arguments' types against `SIMPLE` (tensors, numbers, strings, None, dtypes, devices,
classes whose `__torch_function__` is disabled), inline as `plain` says, so a plain call
pays about 80-150 ns (one or two set lookups, no Python call) before running as before.

What `func`, `args` and `kwargs` are: a function PyTorch writes in Python (`nn.functional`'s,
torch.functional's, some Tensor methods) passes its parameters as its `handle_torch_function`
call does, those without a default by position and every other one by keyword with its value
(`_bind`: `F.relu(x)` arrives with `kwargs={'inplace': False}`); one PyTorch binds in C passes
the call as given (`kwargs` None without keywords; `C_BOUND_FUNCTIONAL` lists nn.functional's).
"""

import contextlib
import functools
import threading

from . import _native, _numpy_names
from ._torch_function_args import (  # noqa: F401 - C_BOUND_FUNCTIONAL, read by the tests
    _AS_GIVEN,
    _KINDS,
    _MODULES,
    _WITH_INDICES,
    C_BOUND_FUNCTIONAL,
    _kind,
)

Tensor = _native.Tensor

ACTIVE = False  # 0/False: no dispatching subclass nor mode; SUBCLASSES; MODES (see `plain`)
SUBCLASSES = 1  # a dispatching Tensor subclass exists (or a foreign tensor-like was seen)
MODES = 2  # a mode is pushed on some thread: every call is checked
_NO = object()  # "not dispatched": the caller runs the function itself
_FLAGS = []  # the `active` closure cells of the inline checks, kept equal to ACTIVE


def register_flag(fn):
    """Keep `fn`'s closure variable `active` equal to `ACTIVE` (a cell read is the cheapest
    test Python has: a plain call of a functional form pays nothing measurable)."""
    cell = fn.__closure__[fn.__code__.co_freevars.index("active")]
    cell.cell_contents = ACTIVE
    _FLAGS.append(cell)


def inline_public(fn, me):
    """`fn`, a function checking inline with its flag `active` and passing `me[0]` as `func`:
    itself, or the outer checking wrapper that takes it (whose name the caller sees)."""
    inner = getattr(getattr(fn, "__wrapped__", None), "_tf_me", None)
    if inner is not None:  # an inner check dispatches as this one
        inner[0] = fn
    me.append(fn)
    fn._tf_me = me
    fn._tf_inline = True
    register_flag(fn)
    return fn


def _set_active():
    global ACTIVE
    value = MODES if _pushed else SUBCLASSES if _SUBCLASSED else False
    if ACTIVE is not value:
        ACTIVE = value
        for cell in _FLAGS:
            cell.cell_contents = value


class _State(threading.local):
    def __init__(self):
        self.modes = []  # the TorchFunctionMode stack, innermost last
        self.level = 0  # 0 enabled, 1 subclasses disabled, 2 all disabled
        self.skip = False  # redispatch_function: the next check is skipped
        self.busy = False  # any of the above: a check takes the slow path


def _sync():
    _state.busy = bool(_state.modes or _state.level or _state.skip)


_state = _State()
_mode_lock = threading.Lock()
_pushed = 0  # modes pushed on every thread together: the wrappers sit on Tensor while > 0


def _disabled_torch_function_impl(func, types, args=(), kwargs=None):
    """`torch._C._disabled_torch_function_impl`: a class's `__torch_function__` set to this
    is never dispatched to (a `Parameter` counts as a plain tensor); called, it runs `func`."""
    with DisableTorchFunctionSubclass():
        return func(*args, **(kwargs or {}))


class _Disable:
    _level = 0

    def __enter__(self):
        self._old = _state.level
        if self._level > _state.level:
            _state.level = self._level
            _sync()
        return self

    def __exit__(self, *exc):
        _state.level = self._old
        _sync()


class DisableTorchFunctionSubclass(_Disable):
    """`torch._C.DisableTorchFunctionSubclass`: inside it, tensor subclasses' (and other
    types') `__torch_function__` are not dispatched to; function modes still are."""

    _level = 1


class DisableTorchFunction(_Disable):
    """`torch._C.DisableTorchFunction`: inside it, neither subclasses' `__torch_function__` nor
    function modes are dispatched to."""

    _level = 2


def _is_torch_function_enabled():
    return _state.level == 0


def _is_torch_function_mode_enabled():
    return _state.level < 2 and bool(_state.modes)


# Types known not to dispatch, so a check of the usual arguments is a set lookup: SIMPLE's
# objects hold nothing that could (a class whose __torch_function__ is disabled, as
# nn.Parameter, joins them when first seen); _PLAIN adds the lists and tuples whose items
# are checked too.
SIMPLE = {Tensor, int, float, bool, complex, str, type(None), slice, type(Ellipsis),
          _native.dtype, _native.device}
_PLAIN = SIMPLE | {list, tuple}


def plain(args, kwargs=None):
    """Whether a call with these arguments is surely not dispatched: no mode is pushed and
    every argument is of a SIMPLE type. The checks call it as one inline expression:
    ``active is not MODES and SIMPLE.issuperset(map(type, args))`` (no Python call), a plain
    call pays for that alone (Note [Torch function dispatch])."""
    return ACTIVE is not MODES and SIMPLE.issuperset(map(type, args)) and (
        not kwargs or SIMPLE.issuperset(map(type, kwargs.values())))


def _overloads(arg_type):
    """Whether objects of `arg_type` are dispatched to (plain Tensors never are)."""
    if arg_type in _PLAIN:
        return False
    tf = getattr(arg_type, "__torch_function__", None)
    if tf is _disabled_torch_function_impl and isinstance(arg_type, type) and issubclass(
            arg_type, Tensor):
        SIMPLE.add(arg_type)  # nn.Parameter and co.: plain tensors to the dispatch
        _PLAIN.add(arg_type)
        return False
    return tf is not None


def _get_overloaded_args(relevant_args, get_type_fn=None, check=None):
    """The arguments whose type defines `__torch_function__` (not disabled), one per type, in
    calling order: a subclass before its bases, otherwise left to right (NEP 18). `check`:
    which types count (by default not the plain Tensor, as PyTorch's C++ dispatch)."""
    if check is None:
        check = _overloads
    if get_type_fn is None:
        get_type_fn = type
    if _state.level:
        return []
    overloaded_types = set()
    overloaded_args = []
    for arg in relevant_args:
        arg_type = get_type_fn(arg)
        if arg_type not in overloaded_types and check(arg_type):
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
    if _state.level == 2:
        return False
    if _state.skip:
        _state.skip = False
        _sync()
        return False
    if _state.modes:  # as torch: True with a mode, for each argument
        return any(True for _ in relevant_args)
    return _state.level == 0 and any(_overloads(type(a)) for a in relevant_args)


def _relevant(args, kwargs):
    """The arguments PyTorch's parser checks: each argument, and the items of a list or tuple
    argument (a TensorList), positional ones first."""
    out = []
    for a in args:
        out.append(a)
        if type(a) in (list, tuple):
            out.extend(a)
    if kwargs:
        for a in kwargs.values():
            out.append(a)
            if type(a) in (list, tuple):
                out.extend(a)
    return out


@contextlib.contextmanager
def _pop_mode_temporarily():
    mode = _state.modes.pop()
    _sync()
    try:
        yield mode
    finally:
        _state.modes.append(mode)
        _sync()


def handle(public_api, overloaded_args, args, kwargs, native_name=None):
    """torch.overrides.handle_torch_function once the overloaded arguments are known: the
    innermost mode first (popped while it runs), then each overloaded argument's type.
    `native_name`: the name PyTorch's C++ dispatch reports for a function its argument parser
    reads (its error differs from the Python one's)."""
    types = tuple(map(type, overloaded_args))
    mode = None
    if _is_torch_function_mode_enabled():
        with _pop_mode_temporarily() as mode:
            result = mode.__torch_function__(public_api, types, args, kwargs)
        if result is not NotImplemented:
            return result
    for overloaded_arg in overloaded_args:
        method = overloaded_arg.__torch_function__
        if hasattr(method, "__self__") and method.__self__ is overloaded_arg:
            import warnings

            warnings.warn(
                "Defining your `__torch_function__ as a plain method is deprecated and "
                "will be an error in future, please define it as a classmethod.",
                DeprecationWarning,
                stacklevel=3,
            )
        result = method(public_api, types, args, kwargs)
        if result is not NotImplemented:
            return result
    if native_name is not None:
        lines = [f"Multiple dispatch failed for '{native_name}'; all __torch_function__ "
                 "handlers returned NotImplemented:\n"]
        if mode is not None:
            lines.append(f"  - mode object {mode!r}")
        lines += [f"  - tensor subclass {type(arg)!r}" for arg in overloaded_args]
        lines.append("\nFor more information, try re-running with TORCH_LOGS=not_implemented")
        raise TypeError("\n".join(lines))
    try:
        module = _MODULES.get(public_api)
    except TypeError:  # unhashable
        module = None
    module = module or getattr(public_api, "__module__", None) or "gradrs._tensor"
    func_name = f"{module}.{public_api.__name__}"
    msg = (f"no implementation found for '{func_name}' on types that implement "
           f"__torch_function__: {[type(arg) for arg in overloaded_args]}")
    if mode is not None:
        msg += f" nor in mode {mode}"
    raise TypeError(msg)


def skip_one_hop(func, types, args, kwargs):
    """`torch._C._skip_one_hop_torch_function`: call `func` with its own dispatch check
    skipped (the calls it makes dispatch as usual)."""
    _state.skip = True
    _sync()
    try:
        return func(*args, **(kwargs or {}))
    finally:
        _state.skip = False
        _sync()


def _scan(args, kwargs):
    """Whether an argument (or an item of a list or tuple argument) is tensor-like."""
    for a in args:
        t = type(a)
        if t in _PLAIN:
            if t is list or t is tuple:
                for x in a:
                    if type(x) not in _PLAIN and _overloads(type(x)):
                        return True
        elif _overloads(t):
            return True
    return bool(kwargs) and _scan(tuple(kwargs.values()), None)


def _overloads_python(arg_type):
    tf = getattr(arg_type, "__torch_function__", None)
    return tf is not None and tf is not _disabled_torch_function_impl


def dispatch(public_api, args, kwargs, native_name=None, python=False):
    """Dispatch a call of `public_api(*args, **kwargs)` if a mode is active or an argument is
    tensor-like (not a plain Tensor); else `_NO`, and the caller runs it. `python`: a function
    PyTorch writes in Python, whose `types` also name plain Tensors and whose arguments arrive
    as its `handle_torch_function` call passes them (`_bind`)."""
    if not _state.busy:  # no mode, nothing disabled: a scan for tensor-likes, no lists built
        if not _scan(args, kwargs):
            return _NO
        public_api, args, kwargs, native_name, python = _kind(public_api, args, kwargs,
                                                              native_name, python)
        return handle(public_api, _get_overloaded_args(
            _relevant(args, kwargs), check=_overloads_python if python else None),
            args, kwargs, native_name)
    level = _state.level
    if level == 2:
        return _NO
    if _state.skip:
        _state.skip = False
        _sync()
        return _NO
    if level and not _state.modes:  # the calls a default __torch_function__ makes
        return _NO
    relevant = _relevant(args, kwargs)
    overloaded = _get_overloaded_args(relevant) if level == 0 else []
    if not overloaded and not _state.modes:
        return _NO
    public_api, args, kwargs, native_name, python = _kind(public_api, args, kwargs, native_name,
                                                          python)
    if python and level == 0:
        overloaded = _get_overloaded_args(_relevant(args, kwargs), check=_overloads_python)
    return handle(public_api, overloaded, args, kwargs, native_name)


def dispatch_foreign(public_api, args, kwargs, native_name=None, python=False):
    """After `public_api` refused its arguments (TypeError / AttributeError) with no subclass
    or mode around: dispatch when one is a tensor-like object of another class."""
    if _state.level or not any(_overloads(type(a)) for a in _relevant(args, kwargs)):
        return _NO
    return dispatch(public_api, args, kwargs, native_name, python)


# ----------------------------------------------------------------------------------------------
# The default Tensor.__torch_function__ (torch/_tensor.py)


def _convert(ret, cls):
    if cls is Tensor:
        return ret
    if isinstance(ret, Tensor) and not isinstance(ret, cls):
        ret = ret.as_subclass(cls)
    if isinstance(ret, (tuple, list)):
        # Also handles things like namedtuples
        ret = type(ret)(*(_convert(r, cls) for r in ret)) if hasattr(ret, "_fields") else \
            type(ret)(_convert(r, cls) for r in ret)
    return ret


_NOWRAP = set()


def get_default_nowrap_functions():
    """The functions whose result `Tensor.__torch_function__` leaves unconverted: the getters
    of `_base` and `grad`, as PyTorch's (which also lists `_grad`, a name gradrs lacks)."""
    return _NOWRAP


def _tensor_torch_function(cls, func, types, args=(), kwargs=None):
    """This __torch_function__ implementation wraps subclasses such that methods called on
    subclasses return a subclass instance instead of a ``Tensor`` instance.

    We recommend always calling ``super().__torch_function__`` as the base case when
    overriding it in a subclass.
    """
    if kwargs is None:
        kwargs = {}
    if not all(issubclass(cls, t) for t in types):
        return NotImplemented
    with DisableTorchFunctionSubclass():
        ret = func(*args, **kwargs)
        if func in get_default_nowrap_functions():
            return ret
        return _convert(ret, cls)


_tensor_torch_function.__name__ = _tensor_torch_function.__qualname__ = "__torch_function__"

# ----------------------------------------------------------------------------------------------
# Tensor methods, dunders and properties: the wrappers (Note [Torch function dispatch])

# Never dispatched: object plumbing, what the dispatch itself calls, and `__iter__` (PyTorch's
# iterates over `self.unbind(0)`, which dispatches).
_NOT_DISPATCHED = frozenset("""
    __new__ __init__ __init_subclass__ __subclasshook__ __torch_function__ __hash__ __dict__
    __class__ __getattribute__ __getattr__ __setattr__ __delattr__ __doc__ __module__ __weakref__
    __array_priority__ __sizeof__ __reduce__ __getstate__ __name__ _make_subclass as_subclass
    _array_interface __qualname__ __iter__
""".split())

# What PyTorch passes as `func` for a dunder: the method it calls (`x + y` is `Tensor.add`).
_DUNDER_FUNC = {
    "__add__": "add", "__sub__": "sub", "__mul__": "mul", "__truediv__": "div",
    "__div__": "div", "__mod__": "remainder", "__pow__": "pow", "__matmul__": "matmul",
    "__lt__": "lt", "__le__": "le", "__gt__": "gt", "__ge__": "ge", "__ne__": "ne",
    "__neg__": "neg", "__abs__": "abs", "__pos__": "positive",
    "__iadd__": "add_", "__isub__": "sub_", "__imul__": "mul_", "__itruediv__": "div_",
    "__idiv__": "div_", "__imod__": "remainder_", "__ipow__": "pow_",
    # PyTorch's aliases are one method object: its name is the other's
    "ndimension": "dim", "nelement": "numel",
}
# Reflected dunders: with a Tensor on the left PyTorch's call is the left one's forward method
# with the operands in their order (`a + sub` is `Tensor.add(a, sub)`); with a number, the
# method named here with the subclass first (`1 + sub` is `Tensor.add(sub, 1)`).
_REFLECTED = {
    "__radd__": ("__add__", "add"), "__rsub__": ("__sub__", "__rsub__"),
    "__rmul__": ("__mul__", "mul"), "__rtruediv__": ("__truediv__", "__rdiv__"),
    "__rdiv__": ("__truediv__", "__rdiv__"), "__rfloordiv__": ("__floordiv__", "__rfloordiv__"),
    "__rmod__": ("__mod__", "__rmod__"), "__rpow__": ("__pow__", "__rpow__"),
    "__rmatmul__": ("__matmul__", "__rmatmul__"), "__rand__": ("__and__", "bitwise_and"),
    "__ror__": ("__or__", "bitwise_or"), "__rxor__": ("__xor__", "bitwise_xor"),
    "__rlshift__": ("__lshift__", "__rlshift__"), "__rrshift__": ("__rshift__", "__rrshift__"),
}

_ORIGINALS = {}  # name -> Tensor's own attribute, before any wrapper
_WRAPPERS = {}  # name -> the dispatching attribute


# Tensor methods PyTorch writes in Python (torch/_tensor.py): their dispatch's `types` also
# name plain Tensors, `kwargs` is a dict, and their error is handle_torch_function's.
_PYTHON_METHODS = frozenset("""
    __array__ __array_wrap__ __contains__ __deepcopy__ __dir__ __dlpack__ __dlpack_device__
    __floordiv__ __format__ __ipow__ __len__ __pow__ __rdiv__ __reduce_ex__ __repr__
    __reversed__ __rfloordiv__ __rlshift__ __rmatmul__ __rmod__ __rpow__ __rrshift__ __rsub__
    __rtruediv__ __setstate__ backward dim_order is_shared istft lu module_load norm
    register_hook register_post_accumulate_grad_hook resize resize_as share_memory_ split stft
    storage storage_type to_sparse_coo unflatten unique unique_consecutive
""".split())
# Of those, the ones passing their call on as given (PyTorch's reflected operators, decorated
# with `_handle_torch_function_and_wrap_type_error_to_not_implemented`, and `*args` ones)
_PYTHON_AS_GIVEN = frozenset("""
    __rsub__ __rdiv__ __rtruediv__ __rmod__ __rpow__ __floordiv__ __rfloordiv__ __rlshift__
    __rrshift__ __rmatmul__ __pow__ __ipow__ __dlpack__ resize
""".split())
# Binary operators: a refusal (TypeError) becomes NotImplemented, so Python tries the other
# operand, as PyTorch's `_handle_torch_function_and_wrap_type_error_to_not_implemented`.
_BINARY = frozenset("""
    __add__ __sub__ __mul__ __truediv__ __div__ __floordiv__ __mod__ __pow__ __matmul__
    __and__ __or__ __xor__ __lshift__ __rshift__
""".split()) | frozenset(_REFLECTED)


def _call_dispatch(public, args, kwargs, name, python):
    if python:
        return dispatch(public, args, {} if kwargs is None else kwargs, None, True)
    return dispatch(public, args, kwargs, name)


def _func(name):
    """What `func` is for Tensor's attribute `name`: its original (`Tensor.add`), or while a
    mode has the wrappers on `Tensor` (or a subclass overrides `name`), the wrapper that
    `Tensor.add` then is, so a call of it in a mode's `__torch_function__` reaches the next
    mode and the subclasses, as in PyTorch."""
    return _WRAPPERS[name] if _pushed or name in _ON_TENSOR else _ORIGINALS[name]


def _method_wrapper(name, native):
    target = _DUNDER_FUNC.get(name, name)
    if target not in _ORIGINALS:
        target = name
    python = name in _PYTHON_METHODS
    native_name = f"gradrs.Tensor.{target}"
    binary = name in _BINARY

    def dispatched(self, args, kwargs):
        try:
            return _call_dispatch(_func(target), (self,) + args, kwargs, native_name, python)
        except TypeError:
            if binary:
                return NotImplemented
            raise

    def wrapper(self, *args, **kwargs):
        if ACTIVE and (ACTIVE is MODES or type(self) is not Tensor or not plain(args, kwargs)):
            r = dispatched(self, args, kwargs or None)
            if r is not _NO:
                return r
        return native(self, *args, **kwargs)

    wrapper._dispatched = lambda self, other: dispatched(self, (other,), None)
    wrapper.__name__ = getattr(native, "__name__", name)
    wrapper.__qualname__ = f"Tensor.{name}"
    wrapper.__doc__ = getattr(native, "__doc__", None)
    wrapper.__wrapped__ = native
    return wrapper


def _reflected_wrapper(name, native):
    forward, number_name = _REFLECTED[name]
    forward_target = _DUNDER_FUNC.get(forward, forward)
    if forward_target not in _ORIGINALS:
        forward_target = forward if forward in _ORIGINALS else None
    forward_name = f"gradrs.Tensor.{forward_target}"
    forward_python = forward in _PYTHON_METHODS
    if number_name not in _ORIGINALS:
        number_name = name
    number_python = name in _PYTHON_METHODS
    number_native_name = f"gradrs.Tensor.{number_name}"

    def dispatched(self, other):
        try:
            if isinstance(other, Tensor) and forward_target is not None:
                return _call_dispatch(_func(forward_target), (other, self), None,
                                      forward_name, forward_python)
            return _call_dispatch(_func(number_name), (self, other), None,
                                  number_native_name, number_python)
        except TypeError:
            return NotImplemented

    def wrapper(self, other):
        if ACTIVE and (ACTIVE is MODES or type(self) is not Tensor or type(other) not in SIMPLE):
            r = dispatched(self, other)
            if r is not _NO:
                return r
        return native(self, other)

    wrapper._dispatched = dispatched
    wrapper.__name__ = name
    wrapper.__qualname__ = f"Tensor.{name}"
    wrapper.__wrapped__ = native
    return wrapper


def foreign_operator(name, self, other):
    """Note [Operators on tensor-likes] (`src/python/helpers.rs`): the native operator dunder
    `name` of `self` could not use `other`, whose class defines `__torch_function__`: PyTorch's
    operator dispatches to it, as the subclasses' wrappers do (`t + duck` calls
    `Duck.__torch_function__(Tensor.add, ..., (t, duck))`); NotImplemented when nothing
    dispatches, so Python tries `other`'s reflected operator."""
    if _state.level or not _overloads(type(other)):
        return NotImplemented
    _build_wrappers()
    if name == "__eq__":  # PyTorch's `==` reaches a tensor-like as `Tensor.eq`
        try:
            r = _call_dispatch(_func("eq"), (self, other), None, "gradrs.Tensor.eq", False)
        except TypeError:
            r = NotImplemented
    else:
        w = _WRAPPERS.get(name)
        r = _NO if w is None else w._dispatched(self, other)
    return NotImplemented if r is _NO else r


def _property_wrapper(name, raw):
    getter = raw.__get__
    has_setter = not isinstance(raw, property) or raw.fset is not None
    setter = raw.__set__ if has_setter else None
    get_name = f"gradrs.Tensor.{name}.__get__"
    set_name = f"gradrs.Tensor.{name}.__set__"

    def fget(self):
        if ACTIVE:
            r = dispatch(prop.__get__ if _pushed or name in _ON_TENSOR else getter, (self,),
                         None, get_name, True)
            if r is not _NO:
                return r
        return getter(self)

    def fset(self, value):
        if ACTIVE:
            r = dispatch(prop.__set__ if _pushed or name in _ON_TENSOR else setter,
                         (self, value), None, set_name, True)
            if r is not _NO:
                return
        setter(self, value)

    prop = property(fget, fset if has_setter else None, doc=getattr(raw, "__doc__", None))
    return prop


def _build_wrappers():
    """A dispatching wrapper for each method, dunder and property of `Tensor` (once)."""
    if _WRAPPERS:
        return
    for name, raw in vars(Tensor).items():
        if name in _NOT_DISPATCHED or isinstance(raw, (classmethod, staticmethod, type)):
            continue
        if isinstance(raw, property) or type(raw).__name__ == "getset_descriptor" or callable(raw):
            _ORIGINALS[name] = raw
            if getattr(raw, "__name__", None) in ("_" + name, "_" + name.strip("_")) and hasattr(
                    raw, "__code__"):
                raw.__name__ = name  # `func.__name__` as PyTorch's (`argwhere`, not `_argwhere`)
    for name, raw in _ORIGINALS.items():
        if isinstance(raw, property) or type(raw).__name__ == "getset_descriptor":
            _WRAPPERS[name] = _property_wrapper(name, raw)
        elif name in _REFLECTED:
            _WRAPPERS[name] = _reflected_wrapper(name, raw)
        else:
            _WRAPPERS[name] = _method_wrapper(name, raw)
    _NOWRAP.update(_WRAPPERS[n].__get__ for n in ("_base", "grad") if n in _WRAPPERS)
    for name in _PYTHON_AS_GIVEN & set(_WRAPPERS):
        _KINDS[_ORIGINALS[name]] = _KINDS[_WRAPPERS[name]] = _AS_GIVEN


_SUBCLASSED = False  # a dispatching subclass was made: the flag stays on
_ON_TENSOR = set()  # names a dispatching subclass overrides: their wrappers sit on Tensor


def _init_subclass(cls, **kwargs):
    """Tensor.__init_subclass__: a subclass dispatches its methods to `__torch_function__`
    unless that is `_disabled_torch_function_impl` (Note [Torch function dispatch])."""
    global _SUBCLASSED
    super(Tensor, cls).__init_subclass__(**kwargs)
    if getattr(cls, "__torch_function__", None) is _disabled_torch_function_impl:
        return
    _build_wrappers()
    mro = cls.__mro__
    chain = mro[:mro.index(Tensor)]  # the classes from `cls` down to Tensor (left out)
    with _mode_lock:
        for name, w in _WRAPPERS.items():
            if not any(name in vars(c) for c in chain):
                type.__setattr__(cls, name, w)
            elif name not in _ON_TENSOR and not any(vars(c).get(name) is w for c in chain):
                # overridden: `super().<name>(...)` in the override reaches Tensor's, which
                # must dispatch as PyTorch's
                _ON_TENSOR.add(name)
                type.__setattr__(Tensor, name, w)
        _SUBCLASSED = True
        _set_active()


def _rdiv(self, other):
    """`other / self`: PyTorch's Tensor.__rdiv__, the method `2 / x` dispatches as."""
    return self.__rtruediv__(other)


_rdiv.__name__ = _rdiv.__qualname__ = "__rdiv__"


def _make_subclass(cls, data, require_grad=False, dispatch_sizes_strides_policy=None,
                   dispatch_device=False, dispatch_layout=False, _extra_dispatch_keys=None,
                   storage_size=None):
    """`Tensor._make_subclass(cls, data, require_grad=False)`: a `cls` object aliasing
    `data`'s storage, a leaf without history (how a subclass's `__new__` makes its object).
    The dispatch policies of PyTorch's wrapper subclasses are accepted and have no effect."""
    if not isinstance(cls, type) or not issubclass(cls, Tensor):
        raise TypeError(f"cls must be a type (got {type(cls).__name__})" if not
                        isinstance(cls, type) else
                        "Creating a Tensor subclass from a class that does not inherit from "
                        "Tensor is not possible. Make sure your class inherits from Tensor.")
    if not isinstance(data, Tensor):
        raise TypeError("_make_subclass(): argument 'data' (position 2) must be Tensor, not "
                        f"{type(data).__name__}")
    t = Tensor.__new__(cls, data)
    with DisableTorchFunction():
        t.requires_grad_(require_grad)
    return t


def install():
    """Give the native Tensor its `__torch_function__` and `__init_subclass__`."""
    _NOWRAP.update(vars(Tensor)[n].__get__ for n in ("_base", "grad", "_grad")
                   if n in vars(Tensor))
    if "__rdiv__" not in vars(Tensor):
        Tensor.__rdiv__ = _rdiv
    if "_make_subclass" not in vars(Tensor):
        Tensor._make_subclass = staticmethod(_make_subclass)
    Tensor.__torch_function__ = classmethod(_tensor_torch_function)
    Tensor.__init_subclass__ = classmethod(_init_subclass)


# ----------------------------------------------------------------------------------------------
# The mode stack


def push_mode(mode):
    global _pushed
    with _mode_lock:
        if _pushed == 0:
            _build_wrappers()
            for name, w in _WRAPPERS.items():
                setattr(Tensor, name, w)
            for module, name, _, w in _MODE_ONLY:
                setattr(module, name, w)
        _pushed += 1
        _set_active()
    _state.modes.append(mode)
    _sync()


def pop_mode():
    global _pushed
    if not _state.modes:
        raise RuntimeError("Trying to pop from an empty mode stack")
    mode = _state.modes.pop()
    _sync()
    with _mode_lock:
        _pushed -= 1
        if _pushed == 0:
            _set_active()
            for name, raw in _ORIGINALS.items():
                if name not in _ON_TENSOR:
                    setattr(Tensor, name, raw)
            for module, name, fn, _ in _MODE_ONLY:
                setattr(module, name, fn)
    return mode


def current_modes():
    return _state.modes


# ----------------------------------------------------------------------------------------------
# Public functions


def _listed_error(name, args, kwargs):
    from ._argparse import listed_error  # (imported here: _argparse imports this module)

    return listed_error(name, args, kwargs)


def dispatching(fn, native_name=None):
    """`fn` dispatching to `__torch_function__` / modes, passing the returned wrapper (which
    stands for `fn` in its module) as `func`. `native_name`: the name PyTorch's C++ dispatch
    reports (None for a function PyTorch writes in Python: plain Tensors count in its `types`,
    `kwargs` is a dict). `wrapper._tf_numpy[0]`, where `wrap_module` sets it, is the
    `_numpy_names.parsed_plan` of a C-bound function: its NumPy keyword names (`x=` for
    `input`) are renamed once dispatched. The wrapper keeps `fn`'s globals, so doctest still
    finds its examples in `fn`'s module."""
    import sys
    import types

    state = sys.modules[__name__]
    me = []
    python = native_name is None
    active = ACTIVE
    simple, modes = SIMPLE, MODES  # `plain`, inline
    # a top-level function PyTorch's parser checks: its TypeError replaces a failed call's
    parsed = (native_name[len("gradrs."):] if native_name and native_name.count(".") == 1
              else None)
    renames = [None]
    aliases, rename, missing = _numpy_names.ALIAS_NAMES, _numpy_names.rename, (
        _numpy_names.missing_error)  # (closure cells: the wrapper runs with `fn`'s globals)

    def wrapper(*args, **kwargs):
        if active and (active is modes or args and (
                type(args[0]) not in simple or len(args) > 1 and (
                    type(args[1]) not in simple or len(args) > 2
                    and not simple.issuperset(map(type, args))))
                       or kwargs and not simple.issuperset(map(type, kwargs.values()))):
            r = state.dispatch(me[0], args, kwargs if python else kwargs or None,
                               native_name, python)
            if r is not state._NO:
                return r
        given = kwargs  # PyTorch's texts name the keywords as given
        try:
            if kwargs and renames[0] is not None and not aliases.isdisjoint(kwargs):
                kwargs = rename(*renames[0][:2], len(args), kwargs, renames[0][2])
            return fn(*args, **kwargs)
        except Exception as e:
            kwargs = given
            if isinstance(e, (TypeError, AttributeError)):
                r = state.dispatch_foreign(me[0], args, kwargs if python else kwargs or None,
                                           native_name, python)
                if r is not state._NO:
                    return r
            if parsed is not None:
                err = state._listed_error(parsed, args, kwargs)
                if err is not None:
                    raise err from None
            if renames[0] is not None and isinstance(e, TypeError):
                err = missing(fn, renames[0], args, kwargs)
                if err is not None:
                    raise err from None
            raise

    globs = getattr(fn, "__globals__", None)
    if globs is not None:
        wrapper = types.FunctionType(wrapper.__code__, globs, fn.__name__, None,
                                     wrapper.__closure__)
    functools.update_wrapper(wrapper, fn)
    wrapper._torch_function_wrapped = True
    wrapper._tf_numpy = renames
    me.append(wrapper)
    register_flag(wrapper)
    return wrapper


# Public callables PyTorch never dispatches (no tensor arguments, or state; its
# get_ignored_functions() less the factories its argument parser reads, which modes see).
NOT_OVERRIDABLE = frozenset("""
    are_deterministic_algorithms_enabled autocast_decrement_nesting autocast_increment_nesting
    broadcast_shapes can_cast clear_autocast_cache compile device dtype enable_grad finfo
    get_autocast_cpu_dtype get_autocast_dtype get_autocast_gpu_dtype get_default_device
    get_default_dtype get_deterministic_debug_mode get_device_module get_float32_matmul_precision
    get_num_interop_threads get_num_threads get_rng_state iinfo inference_mode init_num_threads
    initial_seed is_anomaly_check_nan_enabled is_anomaly_enabled is_autocast_cache_enabled
    is_autocast_cpu_enabled is_autocast_enabled is_deterministic_algorithms_warn_only_enabled
    is_grad_enabled is_inference_mode_enabled is_storage is_tensor is_warn_always_enabled
    layout load manual_seed memory_format no_grad promote_types result_type save seed
    set_anomaly_enabled set_autocast_cache_enabled set_autocast_cpu_dtype
    set_autocast_cpu_enabled set_autocast_dtype set_autocast_enabled set_autocast_gpu_dtype
    set_default_device set_default_dtype set_default_tensor_type set_deterministic_debug_mode
    set_float32_matmul_precision set_flush_denormal set_grad_enabled set_num_interop_threads
    set_num_threads set_printoptions set_rng_state set_warn_always typename
    use_deterministic_algorithms vmap get_printoptions fork wait as_torch
    handle_torch_function has_torch_function assert_int_or_pair boolean_dispatch range
""".split())

# torch.functional's functions (Python in PyTorch, re-exported at the top level)
_TORCH_FUNCTIONAL = frozenset("""
    atleast_1d atleast_2d atleast_3d block_diag broadcast_tensors cartesian_prod cdist
    chain_matmul einsum lu meshgrid norm split stft tensordot unique unique_consecutive
    unravel_index istft
""".split())

# The other public functions PyTorch writes in Python (their calls pass every parameter, `_bind`)
_TORCH_PYTHON = _TORCH_FUNCTIONAL | frozenset("""
    lobpcg pca_lowrank svd_lowrank sym_float sym_int sym_max sym_min sym_not sym_sqrt sym_sum
    sym_ite
""".split())

# Public functions that do not dispatch as themselves: PyTorch's call a function or method
# that does (`F.sigmoid(x)` is `x.sigmoid()`, `F.upsample` is `interpolate`, `from_dlpack`
# calls `__dlpack__`), or none (`cond` calls its branches). get_ignored_functions lists them.
PASS_THROUGH = {
    # (eig, lstsq, solve, symeig: the functions removed in 1.9, which only raise; torch lists
    # its Tensor methods of those names as ignored)
    "gradrs": frozenset("cond from_dlpack eig lstsq solve symeig".split()),
    "gradrs.nn.functional": frozenset("""
        sigmoid tanh upsample upsample_nearest upsample_bilinear""".split()),
}

# Factories: no tensor argument, so only a mode can take their calls; their wrappers are set on
# `gradrs` while a mode is pushed (as the Tensor methods'), so outside modes they cost nothing.
# PyTorch lists them among its ignored functions, yet its modes see them.
FACTORIES = frozenset("""
    arange as_strided as_tensor asarray bartlett_window blackman_window empty empty_strided eye
    from_numpy frombuffer full hamming_window hann_window kaiser_window linspace logspace normal
    ones rand randint randn randperm scalar_tensor tensor tril_indices triu_indices zeros
""".split())
_MODE_ONLY = []  # (module, name, original, wrapper)

OVERRIDABLE = {}  # module name -> {name: wrapper}, what get_overridable_functions lists


# Functions whose parser texts name them otherwise than gradrs's attribute (`F.logsigmoid` is
# ATen's `log_sigmoid`, its `__name__` too)
_PARSER_NAMES = {"logsigmoid": "log_sigmoid"}


def _numpy_names_for(fn, name):
    """PyTorch's parser takes NumPy's names (`x=` for `input`, `axis=` for `dim`...) for a
    C-bound function: `fn`'s inline check (`dispatching`'s, `_helpers`') renames them once
    dispatched (`_forms` rename them themselves). PyTorch's texts of a call without a
    required argument come with it (`_numpy_names.missing_error`)."""
    renames = getattr(fn, "_tf_numpy", None)
    if renames is not None and renames[0] is None:
        renames[0] = _numpy_names.parsed_plan(fn, _PARSER_NAMES.get(name, name))


def wrap_module(module, names=None, skip=()):
    """Replace the public functions of `module` (its `__all__`, else every public callable
    that is no class or module) by `dispatching` wrappers; the functional forms (which check
    inline) and names already wrapped are kept."""
    import sys
    import types

    listed = OVERRIDABLE.setdefault(module.__name__, {})
    if names is None:
        names = getattr(module, "__all__", None) or [n for n in vars(module)
                                                       if not n.startswith("_")]
    for name in names:
        fn = getattr(module, name, None)
        if (name in NOT_OVERRIDABLE or name in skip
                or name in PASS_THROUGH.get(module.__name__, ())
                or not isinstance(fn, (types.FunctionType, types.BuiltinFunctionType))):
            continue
        c_bound = module.__name__ != "gradrs.nn.functional" and not (
            module.__name__ == "gradrs" and name in _TORCH_PYTHON) or (
            module.__name__ == "gradrs.nn.functional" and name in C_BOUND_FUNCTIONAL)
        if c_bound and module.__name__ == "gradrs" and name not in C_BOUND_FUNCTIONAL and (
                fn is getattr(sys.modules.get("gradrs.nn.functional"), name, None)):
            # also F's, which PyTorch writes in Python (`rms_norm`): PyTorch's two are two
            fn = dispatching(fn, f"gradrs.{name}")
            setattr(module, name, fn)
        if c_bound:
            _numpy_names_for(fn, name)
        if getattr(fn, "_torch_function_wrapped", False) or getattr(fn, "_tf_inline", False):
            listed[name] = fn
            if module.__name__ == "gradrs" and name in _TORCH_PYTHON:
                _KINDS[fn] = ""  # an inline check (`split`, `norm`) of a Python function
            if module.__name__ == "gradrs" and name in _TORCH_FUNCTIONAL:
                _MODULES[fn] = "gradrs.functional"
            continue
        python = module.__name__ == "gradrs.nn.functional" or (
            module.__name__ == "gradrs" and name in _TORCH_PYTHON)
        wrapped = dispatching(fn, None if python else f"{module.__name__}.{name}")
        if c_bound:
            _numpy_names_for(wrapped, name)
        if module.__name__ == "gradrs" and name in _TORCH_FUNCTIONAL:
            _MODULES[wrapped] = "gradrs.functional"
        if module.__name__ == "gradrs" and name in FACTORIES:
            _MODE_ONLY.append((module, name, fn, wrapped))
            continue
        setattr(module, name, wrapped)
        listed[name] = wrapped
        # the same object in the module defining it (`gradrs.lobpcg is gradrs._lobpcg.lobpcg`,
        # as torch's re-exports)
        # (`F.upsample` calls `interpolate`, which dispatches as itself)
        home = sys.modules.get(getattr(fn, "__module__", None) or "")
        if home not in (None, module) and getattr(home, name, None) is fn:
            setattr(home, name, wrapped)
    if module.__name__ == "gradrs.nn.functional":
        for name, prefix in C_BOUND_FUNCTIONAL.items():
            if name in listed:
                _KINDS[listed[name]] = prefix + name
        for name, fn in listed.items():
            with_indices = listed.get(name + "_with_indices")
            if with_indices is not None:
                _KINDS[fn] = ""
                _WITH_INDICES[fn] = with_indices
