"""`gradrs.autograd.anomaly_mode`: `detect_anomaly` / `set_detect_anomaly`, as PyTorch's, and
the two callbacks the Rust core calls while anomaly mode is on (`src/autograd/anomaly.rs`):
one fills a new node's `metadata` with the traceback of the forward call that made it, the
other warns with that traceback when the node fails in backward."""

import traceback
import warnings

from .. import _native

__all__ = ["detect_anomaly", "set_detect_anomaly"]

_TRACE_KEY = "traceback_"
_PARENT_KEY = "parent_"


def _capture(parent):
    """Metadata for a node being created: the Python stack of this forward call, without this
    function's own frame (PyTorch's `torch.fx.traceback.format_stack`), and under create_graph
    the node whose backward made it."""
    metadata = {_TRACE_KEY: traceback.format_list(traceback.extract_stack()[:-1])}
    if parent is not None:
        metadata[_PARENT_KEY] = parent
    return metadata


def _warn_stack(stack, name, is_parent):
    # stacklevel 3: the frame that called into the engine (`backward`), past this module.
    if stack is None:
        warnings.warn(
            f"Error detected in {name}. No forward pass information available. Enable detect "
            "anomaly during forward pass for more information. (Triggered internally at "
            "/__w/pytorch/pytorch/torch/csrc/autograd/python_anomaly_mode.cpp:100.)",
            stacklevel=3,
        )
    elif not is_parent:
        warnings.warn(
            f"Error detected in {name}. Traceback of forward call that caused the error:\n"
            f"{''.join(stack)} (Triggered internally at "
            "/__w/pytorch/pytorch/torch/csrc/autograd/python_anomaly_mode.cpp:122.)",
            stacklevel=3,
        )
    else:
        warnings.warn(
            f"\n\nPrevious calculation was induced by {name}. Traceback of forward call that "
            f"induced the previous calculation:\n{''.join(stack)} (Triggered internally at "
            "/__w/pytorch/pytorch/torch/csrc/autograd/python_anomaly_mode.cpp:129.)",
            stacklevel=3,
        )


def _report(node):
    """PyTorch's `PyAnomalyMetadata::print_stack`: the failing node's forward traceback, then
    those of the nodes whose backward made it (create_graph), outermost last."""
    metadata = node.metadata
    _warn_stack(metadata.get(_TRACE_KEY), node.name(), False)
    parent = metadata.get(_PARENT_KEY)
    while parent is not None:
        metadata = parent.metadata
        _warn_stack(metadata.get(_TRACE_KEY), parent.name(), True)
        parent = metadata.get(_PARENT_KEY)


_native._register_anomaly(_capture, _report)


class detect_anomaly:
    """Context-manager that enables anomaly detection for the autograd engine.

    Running the forward pass inside keeps, for each graph node, the traceback of the call
    that created it (`grad_fn.metadata['traceback_']`); a backward error is then preceded by
    a warning showing it. With ``check_nan=True`` (the default) a backward function that
    returns NaN raises ``RuntimeError``. It slows everything down: debugging only.

    Examples:
        >>> x = gradrs.ones(1, requires_grad=True)
        >>> with gradrs.autograd.detect_anomaly():
        ...     (x * 2).sum().backward()
        ...
        >>> x.grad
        tensor([2.])
    """

    def __init__(self, check_nan=True) -> None:
        self.prev = _native.is_anomaly_enabled()
        self.check_nan = check_nan
        self.prev_check_nan = _native.is_anomaly_check_nan_enabled()
        warnings.warn(
            "Anomaly Detection has been enabled. "
            "This mode will increase the runtime "
            "and should only be enabled for debugging.",
            stacklevel=2,
        )

    def __enter__(self) -> None:
        _native.set_anomaly_enabled(True, self.check_nan)

    def __exit__(self, *args: object) -> None:
        _native.set_anomaly_enabled(self.prev, self.prev_check_nan)


class set_detect_anomaly:
    """Sets anomaly detection on or off: at once when called, and back on exit when used as a
    context manager.

    Examples:
        >>> with gradrs.autograd.set_detect_anomaly(True):
        ...     print(gradrs.is_anomaly_enabled())
        ...
        True
    """

    def __init__(self, mode: bool, check_nan: bool = True) -> None:
        self.prev = _native.is_anomaly_enabled()
        self.prev_check_nan = _native.is_anomaly_check_nan_enabled()
        _native.set_anomaly_enabled(mode, check_nan)

    def __enter__(self) -> None:
        pass

    def __exit__(self, *args: object) -> None:
        _native.set_anomaly_enabled(self.prev, self.prev_check_nan)
