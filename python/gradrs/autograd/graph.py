"""`gradrs.autograd.graph`: the type of every `grad_fn` (`Node`), saved-tensor hooks
(`saved_tensors_hooks`, `save_on_cpu`, `disable_saved_tensors_hooks`) and
`register_multi_grad_hook`, which waits for the gradients of several tensors in one backward."""

import contextlib
import functools
import threading
from collections import defaultdict

from .. import _native
from .._grad_mode import enable_grad, no_grad
from .._native import Node, SavedTensor
from ..utils.hooks import RemovableHandle

__all__ = ["Node", "SavedTensor", "disable_saved_tensors_hooks", "increment_version",
           "register_multi_grad_hook", "save_on_cpu", "saved_tensors_hooks"]


class saved_tensors_hooks:
    """Context manager setting a pair of pack / unpack hooks for saved tensors.

    While it is active, ``pack_hook(tensor)`` is called each time an operation saves a tensor
    for backward (its inputs or outputs, and what ``ctx.save_for_backward`` saves), and the
    graph keeps what it returns (any object) instead of the tensor; ``unpack_hook(packed)``
    is called each time the tensor is needed (backward, ``grad_fn._saved_<name>``) and must
    return a tensor with the original's content. Only the innermost pair applies when nested.
    The pack hook must not modify its input in place, and what it returns should not hold
    the input (that would be a reference cycle through the graph).

    Examples:
        >>> def pack(t):
        ...     print('packing', tuple(t.shape))
        ...     return t
        ...
        >>> x = gradrs.ones(2, requires_grad=True)
        >>> with gradrs.autograd.graph.saved_tensors_hooks(pack, lambda t: t):
        ...     y = x.exp()
        ...
        packing (2,)
    """

    def __init__(self, pack_hook, unpack_hook):
        self.pack_hook = pack_hook
        self.unpack_hook = unpack_hook

    def __enter__(self):
        _native._push_saved_tensors_default_hooks(self.pack_hook, self.unpack_hook)

    def __exit__(self, *args):
        _native._pop_saved_tensors_default_hooks()


class save_on_cpu(saved_tensors_hooks):
    """Context manager under which tensors saved by the forward pass are stored on the CPU
    and copied back to their device for backward (a CPU tensor is kept as it is).

    ``pin_memory=True`` packs into pinned host memory when the device module is available.

    Examples:
        >>> x = gradrs.ones(2, requires_grad=True)
        >>> with gradrs.autograd.graph.save_on_cpu():
        ...     y = (x * x).sum()
        ...
        >>> y.backward()
        >>> x.grad
        tensor([2., 2.])
    """

    def __init__(self, pin_memory=False, device_type="cuda"):
        import gradrs

        device_module = getattr(gradrs, device_type, gradrs.cuda)

        def pack_to_cpu(tensor):
            if not pin_memory:
                return (tensor.device, tensor.cpu())
            # gradrs has no sparse tensors, so every tensor is pinnable when the device is.
            is_pinnable = device_module.is_available()
            # gradrs tensors are all strided; pinning is Tensor.pin_memory's.
            packed = gradrs.empty(tensor.size(), dtype=tensor.dtype)
            if is_pinnable:
                packed = packed.pin_memory()
            # gradrs copies synchronously (its copy_ takes no non_blocking).
            packed.copy_(tensor)
            return (tensor.device, packed)

        def unpack_from_cpu(packed):
            device, tensor = packed
            return tensor.to(device, non_blocking=pin_memory)

        super().__init__(pack_to_cpu, unpack_from_cpu)


@contextlib.contextmanager
def disable_saved_tensors_hooks(error_message):
    """Context manager under which saved-tensor hooks are refused: entering
    ``saved_tensors_hooks`` (or entering this while hooks are active) raises
    ``RuntimeError(error_message)``."""
    maybe_prev_message = None
    try:
        maybe_prev_message = _native._saved_tensors_hooks_get_disabled_error_message()
        _native._saved_tensors_hooks_disable(error_message)
        yield
    finally:
        if maybe_prev_message is None:
            _native._saved_tensors_hooks_enable()
        else:
            _native._saved_tensors_hooks_disable(maybe_prev_message)


class _MultiHandle(RemovableHandle):
    """Removes every hook a multi-grad hook registered."""

    def __init__(self, handles):
        self.handles = handles

    def remove(self):
        for handle in self.handles:
            handle.remove()

    def __getstate__(self):
        return self.handles

    def __setstate__(self, state):
        self.handles = state


def _get_grad_fn_or_grad_acc(t):
    """The node a tensor's gradient reaches first: its grad_fn, or a leaf's AccumulateGrad."""
    if t.requires_grad and t.grad_fn is None:
        with enable_grad():
            return t.view_as(t).grad_fn.next_functions[0][0]
    return t.grad_fn


def register_multi_grad_hook(tensors, fn, *, mode="all"):
    """Call ``fn`` once per backward: with mode ``"all"``, after the gradients of every tensor
    of ``tensors`` that this backward computes (None for the others); with ``"any"``, with the
    first of them. Returns a handle whose ``remove()`` removes the hook.

    Examples:
        >>> a, b = gradrs.ones(2, requires_grad=True), gradrs.ones(2, requires_grad=True)
        >>> h = gradrs.autograd.graph.register_multi_grad_hook((a, b), lambda grads: print([g is not None for g in grads]))
        >>> (a * 2 + b).sum().backward()
        [True, True]
    """
    supported_modes = ("all", "any")
    lock = threading.Lock()
    if mode not in supported_modes:
        raise ValueError(f"Expects mode to be one of {supported_modes} but got {mode}")
    if mode == "all":
        count = {}
        nb_calls = None
        buffer = {}
        grad_fns = list(map(_get_grad_fn_or_grad_acc, tensors))
        len_tensors = len(tensors)

        def get_inner_hook(idx):
            def inner_hook(grad):
                nonlocal nb_calls
                id = _native._current_graph_task_id()
                if id == -1:
                    raise AssertionError("expected this hook to be called inside a backward call")
                count[id] = count.get(id, 0)
                buffer[id] = buffer.get(id, [None] * len_tensors)
                with lock:
                    curr_count, count[id] = count[id], count[id] + 1
                    if curr_count == 0:
                        # How many of the tensors this backward reaches: the hook waits for them.
                        nb_calls = sum(map(_native._will_engine_execute_node, grad_fns))
                buffer[id][idx] = grad
                if curr_count == nb_calls - 1:
                    fn(buffer[id])
                    del count[id]
                    del buffer[id]

            return inner_hook

        handles = tuple(t.register_hook(get_inner_hook(i)) for i, t in enumerate(tensors))
    else:
        ran_hook = defaultdict(bool)

        @functools.wraps(fn)
        def wrapped_fn(grad):
            id = _native._current_graph_task_id()
            if id == -1:
                raise AssertionError("expected this hook to be called inside a backward call")
            with lock:
                prev, ran_hook[id] = ran_hook[id], True
            if prev:
                return
            fn(grad)

        handles = tuple(tensor.register_hook(wrapped_fn) for tensor in tensors
                        if tensor.requires_grad)
    return _MultiHandle(handles)


def increment_version(tensor):
    """Bump the version counter of a tensor (or of each tensor of an iterable) whose data was
    changed in a way autograd does not see, so that backward through a graph that saved it
    raises. Inference tensors have no version counter and are left alone.

    Examples:
        >>> t = gradrs.ones(1)
        >>> v = t._version
        >>> gradrs.autograd.graph.increment_version(t)
        >>> t._version - v
        1
    """
    if isinstance(tensor, _native.Tensor):
        tensor = (tensor,)
    try:
        tensors = list(tensor)
    except TypeError:
        raise RuntimeError("increment_version expect a Iterable[Tensor] as input") from None
    if not all(isinstance(t, _native.Tensor) for t in tensors):
        raise RuntimeError("increment_version expects each element of the iterable to be a "
                           "tensor")
    for t in tensors:
        if not t.is_inference():
            _native._bump_version(t)


_native_register_hooks = SavedTensor.register_hooks


def _register_hooks(self, pack_hook, unpack_hook):
    """Pack what is saved now with `pack_hook`; `unpack_hook` gives it back when used.

    As PyTorch's `SavedVariable::register_hooks`, the pack hook sees the saved tensor without
    its autograd history (`data.detach()`, under no_grad): the hooks tutorial's prints show
    `tensor([1., 1.])` there, where the context manager's hooks see the tensor as saved."""
    if callable(pack_hook):
        user_pack = pack_hook

        def pack_hook(tensor):
            with no_grad():
                return user_pack(tensor.detach())

    return _native_register_hooks(self, pack_hook, unpack_hook)


SavedTensor.register_hooks = _register_hooks
