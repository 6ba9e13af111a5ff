"""`gradrs.utils.hooks`: `RemovableHandle`, what registering a hook returns, and
`BackwardHook`, the identity nodes around a module's forward that run its full backward hooks."""

import warnings
import weakref
from collections import OrderedDict

from .. import _native

__all__ = ["RemovableHandle", "unserializable_hook", "warn_if_has_hooks", "BackwardHook"]


class RemovableHandle:
    r"""A handle which provides the capability to remove a hook.

    Args:
        hooks_dict (dict): A dictionary of hooks, indexed by hook ``id``.
        extra_dict (Union[dict, List[dict]]): An additional dictionary or list of
            dictionaries whose keys will be deleted when the same keys are
            removed from ``hooks_dict``.
    """

    next_id = 0

    def __init__(self, hooks_dict, *, extra_dict=None):
        self.hooks_dict_ref = weakref.ref(hooks_dict)
        self.id = RemovableHandle.next_id
        RemovableHandle.next_id += 1
        self.extra_dict_ref = ()
        if isinstance(extra_dict, dict):
            self.extra_dict_ref = (weakref.ref(extra_dict),)
        elif isinstance(extra_dict, list):
            self.extra_dict_ref = tuple(weakref.ref(d) for d in extra_dict)

    def remove(self):
        hooks_dict = self.hooks_dict_ref()
        if hooks_dict is not None and self.id in hooks_dict:
            del hooks_dict[self.id]
        for ref in self.extra_dict_ref:
            extra_dict = ref()
            if extra_dict is not None and self.id in extra_dict:
                del extra_dict[self.id]

    def __getstate__(self):
        return (self.hooks_dict_ref(), self.id, tuple(ref() for ref in self.extra_dict_ref))

    def __setstate__(self, state):
        if state[0] is None:
            # a dead reference
            self.hooks_dict_ref = weakref.ref(OrderedDict())
        else:
            self.hooks_dict_ref = weakref.ref(state[0])
        self.id = state[1]
        RemovableHandle.next_id = max(RemovableHandle.next_id, self.id + 1)
        if len(state) < 3 or state[2] is None:
            self.extra_dict_ref = ()
        else:
            self.extra_dict_ref = tuple(weakref.ref(d) for d in state[2])

    def __enter__(self):
        return self

    def __exit__(self, type, value, tb):
        self.remove()


def unserializable_hook(f):
    """Mark a function as an unserializable hook (suppresses the warning on serialization)."""
    f.__torch_unserializable__ = True
    return f


def warn_if_has_hooks(tensor):
    """Warn about each backward hook of `tensor` that pickling it would drop (hooks marked
    with :func:`unserializable_hook` excepted)."""
    if tensor._backward_hooks:
        for k in tensor._backward_hooks:
            hook = tensor._backward_hooks[k]
            if not hasattr(hook, "__torch_unserializable__"):
                warnings.warn(f"backward hook {hook!r} on tensor will not be serialized.  If "
                              "this is expected, you can decorate the function with "
                              "@gradrs.utils.hooks.unserializable_hook to suppress this "
                              "warning", stacklevel=2)


_NODE = "BackwardHookFunctionBackward"
_NODE_CLS = None


def _node_ctx():
    """A context object for one identity node: PyTorch's node is the grad_fn of a custom
    Function (BackwardHookFunction), so it prints as
    `<gradrs.autograd.function.BackwardHookFunctionBackward object at 0x...>`."""
    global _NODE_CLS
    if _NODE_CLS is None:
        from ..autograd.function import BackwardCFunction

        _NODE_CLS = type(_NODE, (BackwardCFunction,),
                         {"__module__": "gradrs.autograd.function", "_forward_cls": None})
    return _NODE_CLS()


def _identity_nodes(tensors, backward):
    """Identity views of `tensors` whose gradients all reach `backward(grads) -> grads` once,
    together: PyTorch's BackwardHookFunction, one node over every tensor, None for the
    outputs the loss did not use.

    Each output is a view of its input, as PyTorch's outputs (the inputs returned as is):
    `_attach_node` marks it as made in a custom Function, so in-place writes are refused with
    PyTorch's message naming the output's index."""
    outs = [x.view_as(x) for x in tensors]
    if len(outs) == 1:
        _native._attach_node(outs[0], list(tensors), _NODE, lambda g: list(backward((g,))),
                             ctx=_node_ctx())
    else:
        _native._attach_node(outs, list(tensors), _NODE, lambda gs: list(backward(tuple(gs))),
                             ctx=_node_ctx())
    return tuple(outs)


class BackwardHook:
    """Runs a module's full backward (pre-)hooks: identity nodes on the module's tensor inputs
    and outputs catch the gradients flowing through them; the output side runs the pre-hooks
    (which may replace grad_output), the input side the hooks (which may replace grad_input).
    Non-tensor arguments show as None in the tuples the hooks get."""

    def __init__(self, module, user_hooks, user_pre_hooks):
        self.user_hooks = user_hooks
        self.user_pre_hooks = user_pre_hooks
        self.module = module
        self.grad_outputs = None
        self.n_outputs = -1
        self.output_tensors_index = None
        self.n_inputs = -1
        self.input_tensors_index = None

    def _pack_with_none(self, indices, values, size):
        res = [None] * size
        for idx, val in zip(indices, values, strict=True):
            res[idx] = val
        return tuple(res)

    def _unpack_none(self, indices, values):
        return tuple(values[idx] for idx in indices)

    def _input_backward(self, grad_input):
        # PyTorch's BackwardHookFunction materializes the gradients it did not get (inputs
        # that do not require grad, or that the loss does not reach) as zeros.
        grad_input = tuple(_native.zeros_like(t) if g is None else g
                           for g, t in zip(grad_input, self._input_tensors))
        if self.grad_outputs is None:
            # The gradient reached the module's inputs without passing through its outputs
            # (double backward): no hook call.
            return grad_input
        res = self._pack_with_none(self.input_tensors_index, grad_input, self.n_inputs)
        for hook in self.user_hooks:
            out = hook(self.module, res, self.grad_outputs)
            if out is None:
                continue
            if len(out) != len(res):
                raise RuntimeError("Backward hook returned an invalid number of grad_input, "
                                   f"got {len(out)}, but expected {len(res)}")
            res = out
        self.grad_outputs = None
        return self._unpack_none(self.input_tensors_index, res)

    def _output_backward(self, grad_output):
        self.grad_outputs = self._pack_with_none(self.output_tensors_index, grad_output,
                                                 self.n_outputs)
        if self.user_pre_hooks:
            expected_len = len(self.grad_outputs)
            for user_pre_hook in self.user_pre_hooks:
                hook_grad_outputs = user_pre_hook(self.module, self.grad_outputs)
                if hook_grad_outputs is None:
                    continue
                actual_len = len(hook_grad_outputs)
                if actual_len != expected_len:
                    raise RuntimeError("Backward pre hook returned an invalid number of "
                                       f"grad_output, got {actual_len}, but expected "
                                       f"{expected_len}")
                self.grad_outputs = hook_grad_outputs
        local_grad_outputs = self.grad_outputs
        # No input requires grad: the hooks fire here, with grad_input all None.
        if self.input_tensors_index is None:
            warnings.warn("Full backward hook is firing when gradients are computed with "
                          "respect to module outputs since no inputs require gradients. See "
                          "https://docs.pytorch.org/docs/main/generated/gradrs.nn.Module.html#gradrs.nn.Module.register_full_backward_hook "
                          "for more details.", stacklevel=5)
            grad_inputs = self._pack_with_none([], [], self.n_inputs)
            for user_hook in self.user_hooks:
                res = user_hook(self.module, grad_inputs, self.grad_outputs)
                if res is not None and not (isinstance(res, tuple)
                                            and all(el is None for el in res)):
                    raise RuntimeError("Backward hook for Modules where no input requires "
                                       "gradient should always return None or None for all "
                                       "gradients.")
            self.grad_outputs = None
        return tuple(local_grad_outputs[i] for i in self.output_tensors_index)

    def _apply_on_tensors(self, backward, args):
        tensors_idx = []
        tensors = []
        requires_grad = False
        for i, arg in enumerate(args):
            if isinstance(arg, _native.Tensor):
                tensors_idx.append(i)
                tensors.append(arg)
                requires_grad |= arg.requires_grad
        if not (requires_grad and _native.is_grad_enabled()):
            return args, None
        # Tensors that do not require grad pass through, as PyTorch marks them
        # non-differentiable; their gradient slot stays None.
        wanted = [k for k, t in enumerate(tensors) if t.requires_grad]

        def on_grads(grads):
            full = [None] * len(tensors)
            for k, g in zip(wanted, grads):
                full[k] = g
            full = backward(tuple(full))
            return [full[k] for k in wanted]

        new = list(tensors)
        for k, t in zip(wanted, _identity_nodes([tensors[k] for k in wanted], on_grads)):
            new[k] = t
        arg_list = list(args)
        for idx, val in zip(tensors_idx, new, strict=True):
            arg_list[idx] = val
        if type(args) is tuple:
            out = tuple(arg_list)
        else:
            out = type(args)(*arg_list)
        return out, tensors_idx

    def setup_input_hook(self, args):
        self._input_tensors = [a for a in args if isinstance(a, _native.Tensor)]
        res, input_idx = self._apply_on_tensors(self._input_backward, args)
        self.n_inputs = len(args)
        self.input_tensors_index = input_idx
        return res

    def setup_output_hook(self, args):
        is_tuple = True
        if not isinstance(args, tuple):
            args = (args,)
            is_tuple = False
        res, output_idx = self._apply_on_tensors(self._output_backward, args)
        self.n_outputs = len(args)
        self.output_tensors_index = output_idx
        if not is_tuple:
            res = res[0]
        return res
