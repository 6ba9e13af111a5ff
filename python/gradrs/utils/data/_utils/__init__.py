"""What DataLoader workers share with the main process: the exception wrapper, the status-check
interval, and the collate / fetch / worker modules (as `torch.utils.data._utils`)."""

import atexit
import sys
import traceback

IS_WINDOWS = sys.platform == "win32"

MP_STATUS_CHECK_INTERVAL = 5.0
"""Seconds between checks that the other side of a worker queue is still alive."""

python_exit_status = False
"""Set when Python is shutting down: iterators then leave their workers alone."""


def _set_python_exit_flag():
    global python_exit_status
    python_exit_status = True


atexit.register(_set_python_exit_flag)


class KeyErrorMessage(str):
    """str subclass that returns itself in repr (KeyError would repr the message)."""

    def __repr__(self):
        return self


class ExceptionWrapper:
    r"""Wraps an exception plus traceback to communicate across threads and processes."""

    def __init__(self, exc_info=None, where="in background"):
        # Keep no traceback object (it would hold frames alive): only its text.
        if exc_info is None:
            exc_info = sys.exc_info()
        self.exc_type = exc_info[0]
        self.exc_msg = "".join(traceback.format_exception(*exc_info))
        self.where = where

    def reraise(self):
        r"""Reraises the wrapped exception in the current thread."""
        msg = f"Caught {self.exc_type.__name__} {self.where}.\nOriginal {self.exc_msg}"
        if self.exc_type is KeyError:
            msg = KeyErrorMessage(msg)
        elif getattr(self.exc_type, "message", None):
            raise self.exc_type(message=msg)
        try:
            exception = self.exc_type(msg)
        except Exception:
            raise RuntimeError(msg) from None
        raise exception


from . import collate, fetch, worker  # noqa: E402,F401
