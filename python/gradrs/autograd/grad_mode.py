"""`gradrs.autograd.grad_mode`: PyTorch's module of grad-mode context managers (defined in
`gradrs._grad_mode`, which the rest of the package imports early)."""

from .._grad_mode import (  # noqa: F401  (the two bases: PyTorch's module has them too)
    _DecoratorContextManager,
    _NoParamDecoratorContextManager,
    _enter_inference_mode,
    _exit_inference_mode,
    _unsafe_preserve_version_counter,
    enable_grad,
    enforce_grad_layout_policy,
    inference_mode,
    no_grad,
    set_grad_enabled,
    set_multithreading_enabled,
)

__all__ = [
    "no_grad",
    "enable_grad",
    "set_grad_enabled",
    "inference_mode",
    "set_multithreading_enabled",
    "enforce_grad_layout_policy",
]

