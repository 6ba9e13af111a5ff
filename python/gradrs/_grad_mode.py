"""Grad-mode context managers and decorators (`no_grad`, `enable_grad`, `set_grad_enabled`).

The mode itself is thread-local state in the Rust core; these objects only switch it.
"""

import functools
import inspect

from . import _native


class _GradModeContext:
    """Base: usable as a context manager and as a decorator (functions and generators)."""

    _enabled = True

    def __enter__(self):
        self._prev = _native.is_grad_enabled()
        _native._set_grad_enabled(self._enabled)
        return None

    def __exit__(self, *exc):
        _native._set_grad_enabled(self._prev)
        return False

    def clone(self):
        return self.__class__()

    def __call__(self, func):
        if inspect.isclass(func):
            raise RuntimeError("Decorating classes is deprecated and will be disabled in future versions.")
        if inspect.isgeneratorfunction(func):

            @functools.wraps(func)
            def gen_wrapper(*args, **kwargs):
                gen = func(*args, **kwargs)
                with self.clone():
                    response = gen.send(None)
                while True:
                    try:
                        request = yield response
                    except GeneratorExit:
                        with self.clone():
                            gen.close()
                        raise
                    try:
                        with self.clone():
                            response = gen.send(request)
                    except StopIteration as e:
                        return e.value

            return gen_wrapper

        @functools.wraps(func)
        def wrapper(*args, **kwargs):
            with self.clone():
                return func(*args, **kwargs)

        return wrapper


class no_grad(_GradModeContext):
    """Disable gradient recording in a block or function."""

    _enabled = False

    def __new__(cls, orig_func=None):
        # `@no_grad` without parentheses decorates directly, as in PyTorch.
        if orig_func is None:
            return super().__new__(cls)
        return cls()(orig_func)


class enable_grad(_GradModeContext):
    """Enable gradient recording in a block or function."""

    _enabled = True

    def __new__(cls, orig_func=None):
        if orig_func is None:
            return super().__new__(cls)
        return cls()(orig_func)


class set_grad_enabled(_GradModeContext):
    """Set grad mode on or off; takes effect at once, and as a context manager restores it."""

    def __init__(self, mode: bool) -> None:
        self._prev = _native.is_grad_enabled()
        self._enabled = bool(mode)
        _native._set_grad_enabled(self._enabled)

    def __call__(self, func):
        _native._set_grad_enabled(self._prev)
        return super().__call__(func)

    def __enter__(self):
        return None

    def __exit__(self, *exc):
        _native._set_grad_enabled(self._prev)
        return False

    def clone(self):
        return self.__class__(self._enabled)


class inference_mode(_GradModeContext):
    """Like `no_grad` (gradrs has no separate inference tensors)."""

    def __init__(self, mode: bool = True) -> None:
        self._enabled = not mode

    def clone(self):
        return self.__class__(not self._enabled)


def is_grad_enabled() -> bool:
    return _native.is_grad_enabled()
