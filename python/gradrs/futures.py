"""`gradrs.futures` (`torch.futures`): `Future`, a value that becomes available later (the
result of an asynchronous collective, `Work.get_future()`, or of a DDP communication hook),
with `then` / `add_done_callback` callbacks, and `collect_all` / `wait_all`.

As PyTorch's: a callback added to a completed future runs at once, inline; otherwise it runs on
the thread that completes the future (for a collective, the process group's worker). A future is
completed once (`set_result` / `set_exception`); `wait()` and `value()` return the value or
raise the exception; an exception raised by a `then` callback completes the child future with
a RuntimeError "Got the following error when running the callback: ..." carrying the
callback's traceback, as PyTorch's."""

from __future__ import annotations

import sys
import threading
import traceback
from collections.abc import Callable
from typing import Any, Generic, TypeVar

__all__ = ["Future", "collect_all", "wait_all"]

T = TypeVar("T")
S = TypeVar("S")

_COMPLETED_TWICE = ("Attempting to mark a completed Future as complete again. Note that a Future "
                    "can only be marked completed once.")


def _callback_error(exc: BaseException) -> RuntimeError:
    """PyTorch's message for an exception escaping a callback: the exception, then its frames
    innermost first, then the frames of the code that ran the callback."""
    frames = list(reversed(traceback.extract_tb(exc.__traceback__)))
    frames += list(reversed(traceback.extract_stack(sys._getframe(2))))
    where = "".join(f"  {f.filename}({f.lineno}): {f.name}\n" for f in frames)
    return RuntimeError("Got the following error when running the callback: "
                        f"{type(exc).__name__}: {exc}\n\nAt:\n{where}")


class Future(Generic[T]):
    r"""A value that becomes available later: ``wait()`` blocks until it is set and returns it,
    ``then(callback)`` chains work on it. Create one empty and complete it with
    ``set_result`` or ``set_exception``."""

    def __init__(self, *, devices: list | None = None) -> None:
        from . import _native

        for d in devices or []:
            dev = _native.device(d)
            if dev.index is None:
                raise ValueError(f"Expected devices to have indices, got {dev}")
        self._cond = threading.Condition()
        self._done = False
        self._result: Any = None
        # set_exception stores the exception as the result, raised when it is read (PyTorch's
        # unwrap function); an error is a failure of the work itself (a callback that raised,
        # a collective that failed)
        self._unwrap = False
        self._error: BaseException | None = None
        self._callbacks: list[Callable[[Future], None]] = []

    def done(self) -> bool:
        r"""Whether the future holds a value or an exception."""
        return self._done

    def wait(self) -> T:
        r"""Block until the value is ready and return it; raise the exception if the future
        failed."""
        with self._cond:
            while not self._done:
                self._cond.wait()
        return self.value()

    def value(self) -> T:
        r"""The value of a completed future (after ``wait()``, or inside a ``then``
        callback); raises its exception if it failed."""
        if not self._done:
            raise RuntimeError("completed() INTERNAL ASSERT FAILED: value() read before the "
                               "Future was completed; call wait() first")
        if self._error is not None:
            raise self._error
        if self._unwrap:
            raise self._result
        return self._result

    def then(self, callback: Callable[[Future[T]], S]) -> Future[S]:
        r"""Run ``callback(self)`` once this future is complete (at once if it already is) and
        return a new future holding what the callback returns, or the error it raised."""
        if not callable(callback):
            raise TypeError(
                "then(): incompatible function arguments. The following argument types are "
                "supported:\n    1. (self: gradrs.futures.Future, arg0: collections.abc.Callable)"
                f" -> gradrs.futures.Future\n\nInvoked with: {self!r}, {callback!r}")
        child: Future[S] = Future()

        def run(fut: Future) -> None:
            try:
                out = callback(fut)
            except Exception as e:  # noqa: BLE001 - completes the child with PyTorch's error
                child._complete(error=_callback_error(e))
            else:
                child._complete(result=out)

        self._add(run)
        return child

    def add_done_callback(self, callback: Callable[[Future[T]], None]) -> None:
        r"""Run ``callback(self)`` once this future is complete (at once if it already is); an
        exception it raises is printed, as PyTorch logs it, and dropped."""
        if not callable(callback):
            raise TypeError(
                "add_done_callback(): incompatible function arguments. The following argument "
                "types are supported:\n    1. (self: gradrs.futures.Future, arg0: "
                f"collections.abc.Callable) -> None\n\nInvoked with: {self!r}, {callback!r}")

        def run(fut: Future) -> None:
            try:
                callback(fut)
            except Exception as e:  # noqa: BLE001 - PyTorch logs and drops it
                print(_callback_error(e), file=sys.stderr)

        self._add(run)

    def set_result(self, result: T) -> None:
        r"""Complete the future with ``result`` and run its callbacks."""
        self._complete(result=result)

    def set_exception(self, result: BaseException) -> None:
        r"""Complete the future with an exception, raised by ``wait()`` / ``value()``."""
        if not isinstance(result, Exception):
            raise AssertionError(f"{result} is of type {type(result)}, not an Exception.")
        self._complete(result=result, unwrap=True)

    # --- internals ----------------------------------------------------------------------------

    def _add(self, run: Callable[[Future], None]) -> None:
        with self._cond:
            if not self._done:
                self._callbacks.append(run)
                return
        run(self)

    def _complete(self, result: Any = None, error: BaseException | None = None,
                  unwrap: bool = False) -> None:
        with self._cond:
            if self._done:
                raise RuntimeError(_COMPLETED_TWICE)
            self._result, self._error, self._unwrap = result, error, unwrap
            self._done = True
            callbacks, self._callbacks = self._callbacks, []
            self._cond.notify_all()
        for run in callbacks:
            run(self)

    def _failure(self) -> BaseException | None:
        """The exception ``wait()`` raises, or None."""
        if self._error is not None:
            return self._error
        return self._result if self._unwrap else None


def collect_all(futures: list[Future]) -> Future[list[Future]]:
    r"""A future completed once every one of ``futures`` is, holding the list of them; it
    fails with the first failure among them."""
    out: Future[list[Future]] = Future()
    futures = list(futures)
    if not futures:
        out.set_result([])
        return out
    lock = threading.Lock()
    left = [len(futures)]

    def one_done(_fut: Future) -> None:
        with lock:
            left[0] -= 1
            last = left[0] == 0
        if last:
            failed = next((f._failure() for f in futures if f._failure() is not None), None)
            if failed is None:
                out._complete(result=futures)
            else:
                out._complete(error=failed)

    for f in futures:
        f._add(one_done)
    return out


def wait_all(futures: list[Future]) -> list:
    r"""Wait for every one of ``futures`` and return their values; raises the first error."""
    return [fut.wait() for fut in collect_all(futures).wait()]
