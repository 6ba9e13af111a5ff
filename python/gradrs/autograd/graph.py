"""`gradrs.autograd.graph`: the type of every `grad_fn` (`Node`) and
`register_multi_grad_hook`, which waits for the gradients of several tensors in one backward."""

import functools
import threading
from collections import defaultdict

from .. import _native
from .._grad_mode import enable_grad
from .._native import Node
from ..utils.hooks import RemovableHandle

__all__ = ["Node", "register_multi_grad_hook"]


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
    first of them. Returns a handle whose ``remove()`` removes the hook."""
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
