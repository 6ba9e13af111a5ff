"""Grad-mode context managers and decorators (`no_grad`, `enable_grad`, `set_grad_enabled`,
`inference_mode`, `set_multithreading_enabled`, `enforce_grad_layout_policy`), as PyTorch's
`torch.autograd.grad_mode` and `torch.utils._contextlib`.

Grad mode and inference mode are thread-local state in the Rust core (Note [Inference mode]
in `src/autograd/grad_mode.rs`); these objects only switch them. The multithreading and
layout-policy flags are thread-local Python state that PyTorch programs read back
(`is_multithreading_enabled`): gradrs's backward runs on the calling thread, so no kernel
reads them.
"""

import functools
import inspect
import sys
import threading
import warnings

from . import _native

# The classes print and pickle under PyTorch's module path (`torch.typename` gives
# `gradrs.autograd.grad_mode.set_grad_enabled(mode=True)`); gradrs.autograd.grad_mode
# re-exports them.
_MODULE = "gradrs.autograd.grad_mode"


class _State(threading.local):
    multithreading = True
    layout_policy = True


_state = _State()


def _check_bool(fn, value):
    """PyTorch's argument-parser error for a flag that is not a Python bool."""
    if not isinstance(value, bool):
        raise TypeError(f"{fn}(): argument 'enabled' (position 1) must be bool, not {type(value).__name__}")


def _wrap_generator(ctx_factory, func):
    """Wrap each generator invocation: the mode holds while the generator body runs and is
    restored whenever control goes back to the caller through a `yield`."""

    @functools.wraps(func)
    def generator_context(*args, **kwargs):
        gen = func(*args, **kwargs)
        try:
            with ctx_factory():
                response = gen.send(None)
            while True:
                try:
                    request = yield response
                except GeneratorExit:
                    with ctx_factory():
                        gen.close()
                    raise
                except BaseException:
                    # An exception thrown into us by the caller goes on into the generator.
                    with ctx_factory():
                        response = gen.throw(*sys.exc_info())
                else:
                    with ctx_factory():
                        response = gen.send(request)
        except StopIteration as e:
            return e.value

    return generator_context


def context_decorator(ctx, func):
    """`func` run inside a fresh context from the factory `ctx` on each call (generators per
    resumption, see `_wrap_generator`); classes are refused as in PyTorch."""
    if callable(ctx) and hasattr(ctx, "__enter__"):
        raise AssertionError(
            f"Passed in {ctx} is both callable and also a valid context manager "
            "(has __enter__), making it ambiguous which interface to use.  If you "
            "intended to pass a context manager factory, rewrite your call as "
            "context_decorator(lambda: ctx()); if you intended to pass a context "
            "manager directly, rewrite your call as context_decorator(lambda: ctx)"
        )
    ctx_factory = ctx if callable(ctx) else (lambda: ctx)
    if inspect.isclass(func):
        raise RuntimeError(
            "Cannot decorate classes; it is ambiguous whether or not only the "
            "constructor or all methods should have the context manager applied; "
            "additionally, decorating a class at definition-site will prevent "
            "use of the identifier as a conventional type.  "
            "To specify which methods to decorate, decorate each of them "
            "individually."
        )
    if inspect.isgeneratorfunction(func):
        return _wrap_generator(ctx_factory, func)

    @functools.wraps(func)
    def decorate_context(*args, **kwargs):
        with ctx_factory():
            return func(*args, **kwargs)

    return decorate_context


class _DecoratorContextManager:
    """Allow a context manager to be used as a decorator."""

    def __call__(self, orig_func):
        if inspect.isclass(orig_func):
            warnings.warn(
                "Decorating classes is deprecated and will be disabled in "
                "future versions. You should only decorate functions or methods. "
                "To preserve the current behavior of class decoration, you can "
                "directly decorate the `__init__` method and nothing else.",
                FutureWarning,
                stacklevel=2,
            )
            func = lambda *args, **kwargs: orig_func(*args, **kwargs)  # noqa: E731
        else:
            func = orig_func
        return context_decorator(self.clone, func)

    def __enter__(self):
        raise NotImplementedError

    def __exit__(self, exc_type, exc_value, traceback):
        raise NotImplementedError

    def clone(self):
        return self.__class__()


class _NoParamDecoratorContextManager(_DecoratorContextManager):
    """Allow a context manager to be used as a decorator without parentheses."""

    def __new__(cls, orig_func=None):
        if orig_func is None:
            return super().__new__(cls)
        return cls()(orig_func)


class no_grad(_NoParamDecoratorContextManager):
    """Context-manager (and decorator) that disables gradient calculation.

    Examples:
        >>> x = gradrs.tensor(1.0, requires_grad=True)
        >>> with gradrs.no_grad():
        ...     y = x * 2
        ...
        >>> y.requires_grad
        False
        >>> @gradrs.no_grad()
        ... def double(t):
        ...     return t * 2
        ...
        >>> double(x).requires_grad
        False
    """

    __module__ = _MODULE

    def __init__(self) -> None:
        self.prev = False

    def __enter__(self) -> None:
        self.prev = _native.is_grad_enabled()
        _native._set_grad_enabled(False)

    def __exit__(self, exc_type, exc_value, traceback) -> None:
        _native._set_grad_enabled(self.prev)


class enable_grad(_NoParamDecoratorContextManager):
    """Context-manager (and decorator) that enables gradient calculation.

    Examples:
        >>> x = gradrs.tensor(1.0, requires_grad=True)
        >>> with gradrs.no_grad():
        ...     with gradrs.enable_grad():
        ...         y = x * 2
        ...
        >>> y.requires_grad
        True
    """

    __module__ = _MODULE

    def __enter__(self) -> None:
        self.prev = _native.is_grad_enabled()
        _native._set_grad_enabled(True)

    def __exit__(self, exc_type, exc_value, traceback) -> None:
        _native._set_grad_enabled(self.prev)


class set_grad_enabled(_DecoratorContextManager):
    """Sets gradient calculation on or off: at once when called, and restored on exit.

    Examples:
        >>> x = gradrs.tensor(1.0, requires_grad=True)
        >>> with gradrs.set_grad_enabled(False):
        ...     y = x * 2
        ...
        >>> y.requires_grad
        False
    """

    __module__ = _MODULE

    def __init__(self, mode: bool) -> None:
        self.prev = _native.is_grad_enabled()
        self.mode = mode
        _check_bool("set_grad_enabled", mode)
        _native._set_grad_enabled(mode)

    def __call__(self, orig_func):
        _native._set_grad_enabled(self.prev)
        return super().__call__(orig_func)

    def __enter__(self) -> None:
        _native._set_grad_enabled(self.mode)

    def __exit__(self, exc_type, exc_value, traceback) -> None:
        _native._set_grad_enabled(self.prev)

    def __str__(self) -> str:
        return f"{_MODULE}.set_grad_enabled(mode={self.mode})"

    def __repr__(self) -> str:
        return str(self)

    def clone(self):
        """A new `set_grad_enabled` context manager with the same setting (used when it decorates a function).
        """
        return self.__class__(self.mode)


class _InferenceModeGuard:
    """PyTorch's `c10::InferenceMode(mode)`: grad mode (and multithreading) become `not mode`,
    inference mode becomes `mode`; all three are restored on exit."""

    def __init__(self, mode):
        self.mode = mode

    def __enter__(self):
        self.prev = (_native._enter_inference_mode(bool(self.mode)), _state.multithreading)
        _state.multithreading = not self.mode
        return self

    def __exit__(self, *exc):
        state, _state.multithreading = self.prev
        _native._exit_inference_mode(state)


class inference_mode(_DecoratorContextManager):
    """Context manager (and decorator, with or without parentheses) for inference mode.

    Inside, nothing is recorded for autograd (even under `enable_grad`) and every tensor
    allocated is an inference tensor (`Tensor.is_inference()`): it keeps no version counter,
    cannot be saved for backward, and cannot be modified in place outside inference mode.
    Views of normal tensors stay normal. `inference_mode(False)` inside turns it off again.

    Examples:
        >>> x = gradrs.ones(2, requires_grad=True)
        >>> with gradrs.inference_mode():
        ...     y = x * 2
        ...
        >>> y.requires_grad, y.is_inference()
        (False, True)
    """

    __module__ = _MODULE

    def __init__(self, mode: bool = True) -> None:
        self.mode = mode

    def __new__(cls, mode=True):
        if isinstance(mode, bool):
            return super().__new__(cls)
        return cls()(mode)

    def __enter__(self) -> None:
        self._inference_mode_context = _InferenceModeGuard(self.mode)
        self._inference_mode_context.__enter__()

    def __exit__(self, exc_type, exc_value, traceback) -> None:
        self._inference_mode_context.__exit__(exc_type, exc_value, traceback)

    def clone(self):
        """A new `inference_mode` context manager with the same setting (used when it decorates a function).
        """
        return self.__class__(self.mode)


class set_multithreading_enabled(_DecoratorContextManager):
    """Enables or disables multithreaded backward: at once when called, restored on exit.

    gradrs's backward always runs on the calling thread; the flag is kept for programs that
    set and read it.
    """

    __module__ = _MODULE

    def __init__(self, mode: bool) -> None:
        self.prev = _state.multithreading
        _check_bool("set_multithreading_enabled", mode)
        _state.multithreading = mode
        self.mode = mode

    def __enter__(self) -> None:
        pass

    def __exit__(self, exc_type, exc_value, traceback) -> None:
        _state.multithreading = self.prev

    def clone(self):
        """A new `set_multithreading_enabled` context manager with the same setting (used when it decorates a function).
        """
        return self.__class__(self.mode)


class enforce_grad_layout_policy(_DecoratorContextManager):
    """Controls whether accumulated gradients are forced to their parameter's layout.

    gradrs's gradients are always contiguous in the parameter's shape; the flag is kept for
    programs that set it.
    """

    __module__ = _MODULE

    def __init__(self, enable: bool = True) -> None:
        self.prev = _state.layout_policy
        _check_bool("set_grad_layout_enforcement_enabled", enable)
        _state.layout_policy = enable
        self.mode = enable

    def __call__(self, orig_func):
        _state.layout_policy = self.prev
        return super().__call__(orig_func)

    def __enter__(self) -> None:
        pass

    def __exit__(self, exc_type, exc_value, traceback) -> None:
        _state.layout_policy = self.prev

    def clone(self):
        """A new `enforce_grad_layout_policy` context manager with the same setting (used when it decorates a function).
        """
        return self.__class__(self.mode)


class _unsafe_preserve_version_counter(_DecoratorContextManager):
    """DO NOT USE THIS UNLESS YOU KNOW EXACTLY WHAT YOU'RE DOING: on exit, puts back the
    version counters the tensors had on entry, hiding in-place writes made meanwhile from
    autograd's saved-tensor check."""

    __module__ = _MODULE

    def __init__(self, tensors) -> None:
        self.tensors = (tensors,) if isinstance(tensors, _native.Tensor) else tensors
        if not isinstance(self.tensors, tuple):
            raise AssertionError("Expected tensors to be a tuple")
        self.prev_versions = tuple(t._version for t in self.tensors)

    def __enter__(self) -> None:
        pass

    def __exit__(self, *args) -> None:
        _native._unsafe_set_version_counter(self.tensors, self.prev_versions)


def is_grad_enabled() -> bool:
    """Whether grad mode is on in this thread: operations on tensors that
    require grad record the backward graph.

    Examples:
        >>> gradrs.is_grad_enabled()
        True
        >>> with gradrs.no_grad():
        ...     print(gradrs.is_grad_enabled())
        False
    """
    return _native.is_grad_enabled()


def is_inference_mode_enabled() -> bool:
    """Whether inference mode (`gradrs.inference_mode`) is on in this
    thread.

    Examples:
        >>> with gradrs.inference_mode():
        ...     print(gradrs.is_inference_mode_enabled())
        True
    """
    return _native.is_inference_mode_enabled()


def _enter_inference_mode(mode):
    """PyTorch's helper: enter inference mode `mode` and return the context to exit."""
    ctx = _InferenceModeGuard(mode)
    ctx.__enter__()
    return ctx


def _exit_inference_mode(mode):
    mode.__exit__(None, None, None)


def is_multithreading_enabled() -> bool:
    """Whether backward may use several threads: on by default, as in PyTorch, and switched
    by `set_multithreading_enabled` (gradrs's engine runs each backward on the calling thread
    either way).

    Examples:
        >>> gradrs.autograd.is_multithreading_enabled()
        True
    """
    return _state.multithreading
