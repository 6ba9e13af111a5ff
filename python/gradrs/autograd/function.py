"""`gradrs.autograd.Function`: differentiable operations written in Python, with PyTorch's API.

A subclass defines static ``forward(ctx, *args)`` (or ``forward(*args)`` plus
``setup_context(ctx, inputs, output)``) and ``backward(ctx, *grads)``; ``apply`` runs forward
without recording and attaches one graph node (`_native._attach_node` with the context) whose
Python object is the context itself, an instance of ``<Name>Backward``. Tensors saved with
``ctx.save_for_backward`` live in the native context, version-checked when unpacked, and are
freed after backward as any node's saved tensors are. ``backward`` written in differentiable
ops records its own graph under ``create_graph``, so double backward works.
"""

import functools
import inspect
import itertools
import warnings

from .. import _native
from .._grad_mode import no_grad

__all__ = ["Function", "FunctionCtx", "BackwardCFunction", "FunctionMeta", "InplaceFunction",
           "once_differentiable"]

_FUNCTION_ID = itertools.count()


class FunctionCtx:
    """What ``forward`` / ``setup_context`` tell ``apply`` through ``ctx``."""

    def save_for_backward(self, *tensors):
        """Save tensors (or None) for ``backward``, where ``ctx.saved_tensors`` returns them."""
        self.to_save = tensors

    def save_for_forward(self, *tensors):
        """Save tensors for ``jvp``."""
        for tensor in tensors:
            if not (isinstance(tensor, _native.Tensor) or tensor is None):
                raise AssertionError(
                    "save_for_forward expects all arguments to be tensors; you should "
                    "save non-tensors as attributes on ctx.")
        self.saved_for_forward = tensors

    def mark_dirty(self, *args):
        """Mark inputs that ``forward`` modified in place (they must be returned)."""
        self.dirty_tensors = args

    def mark_shared_storage(self, *pairs):
        warnings.warn(
            "`mark_shared_storage` is deprecated. Tensors with shared storages are "
            "automatically tracked. Note that calls to `set_()` are not tracked",
            FutureWarning, stacklevel=2)

    def mark_non_differentiable(self, *args):
        """Mark outputs that get no gradient (they do not require grad)."""
        self.non_differentiable = args

    def set_materialize_grads(self, value):
        """Whether ``backward`` gets zeros (True, the default) or None for unused outputs."""
        self.materialize_grads = value


class _HookMixin:
    @staticmethod
    def _register_hook(backward_hooks, hook):
        from collections import OrderedDict

        from ..utils.hooks import RemovableHandle
        if backward_hooks is None:
            backward_hooks = OrderedDict()
        handle = RemovableHandle(backward_hooks)
        backward_hooks[handle.id] = hook
        return backward_hooks, handle


class BackwardCFunction(_native.Node, FunctionCtx, _HookMixin):
    """The type of a custom Function's ``grad_fn`` (and ``ctx``): ``<Name>Backward``."""

    __repr__ = object.__repr__

    def _get_user_fn(self):
        backward_fn = self._forward_cls.backward
        vjp_fn = self._forward_cls.vjp
        if backward_fn is not Function.backward and vjp_fn is not Function.vjp:
            raise RuntimeError(
                "Implementing both 'backward' and 'vjp' for a custom "
                "Function is not allowed. You should only implement one "
                "of them.")
        return vjp_fn if vjp_fn is not Function.vjp else backward_fn

    def apply(self, *args):
        """Run the user's backward with this context."""
        return self._get_user_fn()(self, *args)

    def apply_jvp(self, *args):
        return self._forward_cls.jvp(self, *args)


class FunctionMeta(type):
    """Gives each Function subclass its ``_backward_cls``, ``<Name>Backward``."""

    def __init__(cls, name, bases, attrs):
        backward_fn = type(name + "Backward", (BackwardCFunction,), {"_forward_cls": cls})
        backward_fn._autograd_function_id = next(_FUNCTION_ID)
        cls._backward_cls = backward_fn
        super().__init__(name, bases, attrs)


class _SingleLevelFunction(FunctionCtx, _HookMixin, metaclass=FunctionMeta):
    @staticmethod
    def forward(*args, **kwargs):
        """The computation, run without recording; see the class docstring."""
        raise NotImplementedError(
            "You must implement the forward function for custom autograd.Function.")

    @staticmethod
    def setup_context(ctx, inputs, output):
        """Fill ``ctx`` from the inputs and output of a ``forward`` that takes no ctx."""
        raise NotImplementedError("setup_context is not implemented.")

    @staticmethod
    def backward(ctx, *grad_outputs):
        """One gradient (or None) per ``forward`` input, given one per output."""
        raise NotImplementedError(
            "You must implement either the backward or vjp method for "
            "your custom autograd.Function to use it with backward "
            "mode AD.")

    # vjp and backward are aliases of each other.
    vjp = backward

    @staticmethod
    def jvp(ctx, *grad_inputs):
        """Forward-mode derivative; not implemented unless a subclass defines it."""
        raise NotImplementedError(
            "You must implement the jvp function for custom "
            "autograd.Function to use it with forward mode AD.")


class Function(_SingleLevelFunction):
    """Base class of custom autograd operations; call them with ``MyFunction.apply(...)``.

    Examples:
        >>> class Exp(gradrs.autograd.Function):
        ...     @staticmethod
        ...     def forward(ctx, x):
        ...         y = x.exp()
        ...         ctx.save_for_backward(y)
        ...         return y
        ...
        ...     @staticmethod
        ...     def backward(ctx, grad):
        ...         (y,) = ctx.saved_tensors
        ...         return grad * y
        ...
        >>> x = gradrs.tensor([0.0, 1.0], requires_grad=True)
        >>> Exp.apply(x).sum().backward()
        >>> x.grad
        tensor([1.0000, 2.7183])
    """

    def __init__(self, *args, **kwargs):
        warnings.warn(
            f"{self.__class__} should not be instantiated. Methods on autograd functions "
            "are all static, so you should invoke them on the class itself. "
            "Instantiating an autograd function will raise an "
            "error in a future version of PyTorch.",
            DeprecationWarning,
            stacklevel=2)

    def __call__(self, *args, **kwargs):
        raise RuntimeError(
            "Legacy autograd function with non-static forward method is deprecated. "
            "Please use new-style autograd function with static forward method. "
            "(Example: https://pytorch.org/docs/stable/autograd.html#gradrs.autograd.Function)")

    generate_vmap_rule = False

    @staticmethod
    def vmap(info, in_dims, *args):
        """Batching rule for ``vmap``; not implemented unless a subclass defines it."""
        raise NotImplementedError(
            "To use autograd.Function with vmap, you must either override the "
            "vmap staticmethod or set generate_vmap_rule=True.")

    @classmethod
    def apply(cls, *args, **kwargs):
        """Run ``forward`` and record one node whose backward is ``cls.backward``."""
        setup = _is_setup_context_defined(cls.setup_context)
        if setup:
            bound = inspect.signature(cls.forward).bind(*args, **kwargs)
            bound.apply_defaults()
            args, kwargs = bound.args, bound.kwargs
        return _apply(cls, args, kwargs, setup)


def _is_setup_context_defined(fn):
    return fn != _SingleLevelFunction.setup_context


def _apply(cls, args, kwargs, setup):
    if any(hasattr(type(a), "_vmap_level") for a in list(args) + list(kwargs.values())):
        # Under vmap: functorch's rules for a Function (its vmap staticmethod, or per sample).
        from .. import _vmap
        return _vmap.function_apply(cls, args, kwargs, setup)
    ctx = cls._backward_cls()
    ctx.materialize_grads = True
    ctx.needs_input_grad = tuple(isinstance(a, _native.Tensor) and a.requires_grad
                                 for a in args)
    executable = _native.is_grad_enabled() and any(ctx.needs_input_grad)
    tangents = _input_tangents(args)
    # As PyTorch, forward sees no tangents (forward grad is off while it runs).
    fw_was = _native._is_fwd_grad_enabled()
    _native._set_fwd_grad_enabled(fw_was and tangents is None)
    try:
        with no_grad():
            if setup:
                output = cls.forward(*args, **kwargs)
                cls.setup_context(ctx, args, output)
            else:
                output = cls.forward(ctx, *args, **kwargs)
    finally:
        _native._set_fwd_grad_enabled(fw_was)
    result = _wrap_outputs(ctx, args, output, executable)
    if tangents is not None:
        _forward_ad(cls, ctx, args, tangents, result)
    return result


def _input_tangents(args):
    """Each argument's tangent (zeros for a tensor without one, None for a non-tensor) when
    forward AD is on and some input has one; else None."""
    from . import forward_ad
    if forward_ad._current_level < 0 or not _native._is_fwd_grad_enabled():
        return None
    tangents = [forward_ad.unpack_dual(a).tangent if isinstance(a, _native.Tensor) else None
                for a in args]
    if all(t is None for t in tangents):
        return None
    return [_native.zeros_like(a) if t is None and isinstance(a, _native.Tensor) else t
            for a, t in zip(args, tangents)]


class _JvpCtx:
    """The context ``jvp`` sees: ``ctx`` itself, whose ``saved_tensors`` are the tensors of
    ``save_for_forward``."""

    def __init__(self, ctx):
        object.__setattr__(self, "_ctx", ctx)

    @property
    def saved_tensors(self):
        return tuple(getattr(self._ctx, "saved_for_forward", ()))

    def __getattr__(self, name):
        return getattr(self._ctx, name)

    def __setattr__(self, name, value):
        setattr(self._ctx, name, value)

    def __delattr__(self, name):
        # the forward-AD tutorial's jvp ends with `del ctx.result` (a value forward stored)
        delattr(self._ctx, name)


def _forward_ad(cls, ctx, args, tangents, result):
    """Give the outputs the tangents the Function's ``jvp`` computes (PyTorch's
    ``_process_forward_mode_AD``)."""
    outputs = result if isinstance(result, tuple) else (result,)
    _native._set_fwd_grad_enabled(False)
    try:
        out_t = cls.jvp(_JvpCtx(ctx), *tangents)
    finally:
        _native._set_fwd_grad_enabled(True)
    if not isinstance(out_t, tuple):
        out_t = (out_t,)
    if len(out_t) != len(outputs):
        raise RuntimeError("Function's jvp returned an invalid number of forward gradients "
                           f"(expected {len(outputs)} but got {len(out_t)})")
    for o, t in zip(outputs, out_t):
        if isinstance(o, _native.Tensor) and t is not None and o.dtype.is_floating_point:
            # PyTorch's set_fw_grad keeps a tangent laid out as the output as it is (its
            # history too: `gI * ctx.result` stays MulBackward0); others are copied in
            _native._set_tangent(o, t, fresh=True)
    ctx.__dict__.pop("saved_for_forward", None)


def _contains(seq, t):
    return any(t is s for s in seq)


def _wrap_outputs(ctx, args, output, executable):
    """PyTorch's `_wrap_outputs`: give the outputs their history and save what was saved."""
    is_tuple = isinstance(output, tuple)
    outputs = output if is_tuple else (output,)
    inputs = [a for a in args if isinstance(a, _native.Tensor)]
    if not executable:
        # Nothing is recorded; an input returned as is comes back as a new tensor.
        results = tuple(o.detach() if isinstance(o, _native.Tensor) and _contains(inputs, o)
                        and not _contains(getattr(ctx, "dirty_tensors", ()), o) else o
                        for o in outputs)
        return results if is_tuple else results[0]
    dirty = getattr(ctx, "dirty_tensors", ())
    non_diff = getattr(ctx, "non_differentiable", ())
    for d in dirty:
        if not _contains(outputs, d):
            raise RuntimeError(
                "Some elements marked as dirty during the forward method were not returned as "
                "output. The inputs that are modified inplace must all be outputs of the "
                "Function.")
    results, attached, metas = [], [], []
    for o in outputs:
        if not isinstance(o, _native.Tensor):
            results.append(o)
            attached.append(None)
            metas.append(None)
            continue
        if _contains(dirty, o):
            if o.is_leaf and o.requires_grad:
                raise RuntimeError(
                    "a leaf Variable that requires grad has been used in an in-place operation.")
            # PyTorch bumps a dirty tensor's version once more when it takes the new history.
            _native._bump_version(o)
        elif _contains(inputs, o):
            # An input returned as is: the output is a view of it with the node's history.
            o = o.view_as(o)
        differentiable = not _contains(non_diff, o) and o.dtype.is_floating_point
        results.append(o)
        attached.append(o if differentiable else None)
        metas.append((o.shape, o.dtype, o.device))
    to_save = getattr(ctx, "to_save", None) or ()
    for i, t in enumerate(to_save):
        if not (t is None or isinstance(t, _native.Tensor)):
            raise TypeError("save_for_backward can only save variables, but argument "
                            f"{i} is of type {type(t).__name__}")
    positions = [i for i, a in enumerate(args) if isinstance(a, _native.Tensor)]
    tensor_pos = set(positions)
    name = type(ctx).__name__
    n_args = len(args)

    def backward(grads):
        if ctx.materialize_grads:
            grads = tuple(_native.zeros(m[0], dtype=m[1], device=m[2])
                          if g is None and m is not None else g for g, m in zip(grads, metas))
        result = ctx.apply(*grads)
        if not isinstance(result, tuple):
            result = (result,)
        # Too many results are fine as long as the extra ones are None.
        if len(result) > n_args and all(r is None for r in result[n_args:]):
            result = result[:n_args]
        if len(result) != n_args:
            raise RuntimeError(f"function {name} returned an incorrect number of gradients "
                               f"(expected {n_args}, got {len(result)})")
        for i, r in enumerate(result):
            if r is not None and i not in tensor_pos:
                raise RuntimeError(
                    f"function {name} returned a gradient different than None at position "
                    f"{i + 1}, but the corresponding forward input was not a Variable")
        return [result[i] for i in positions]

    _native._attach_node(attached, inputs, name, backward, ctx=ctx, to_save=list(to_save))
    # The context is held by the node; tensors left on it (outputs among them) would make a
    # cycle through the node that Python's collector cannot see. PyTorch clears them too.
    for attr in ("to_save", "dirty_tensors", "non_differentiable"):
        ctx.__dict__.pop(attr, None)
    return tuple(results) if is_tuple else results[0]


def once_differentiable(fn):
    """Run ``backward`` without recording; differentiating its result again raises.

    Examples:
        >>> class Cube(gradrs.autograd.Function):
        ...     @staticmethod
        ...     def forward(ctx, x):
        ...         ctx.save_for_backward(x)
        ...         return x ** 3
        ...
        ...     @staticmethod
        ...     @gradrs.autograd.function.once_differentiable
        ...     def backward(ctx, grad):
        ...         (x,) = ctx.saved_tensors
        ...         return 3 * x ** 2 * grad
        ...
        >>> x = gradrs.tensor(2.0, requires_grad=True)
        >>> Cube.apply(x).backward()
        >>> x.grad
        tensor(12.)
    """

    @functools.wraps(fn)
    def wrapper(ctx, *args, **kwargs):
        with no_grad():
            outputs = fn(ctx, *args, **kwargs)
        if not _native.is_grad_enabled():
            return outputs
        # Only an approximation of requires_grad, as in PyTorch: any input requiring grad
        # makes the outputs require it, through a node that raises when reached.
        requires_grad = any(isinstance(arg, _native.Tensor) and arg.requires_grad
                            for arg in args)
        if not requires_grad:
            return outputs
        outputs_ = outputs if isinstance(outputs, tuple) else (outputs,)
        return _delayed_error("trying to differentiate twice a function that was marked "
                              "with @once_differentiable", outputs_)

    return wrapper


def _delayed_error(message, outputs):
    """PyTorch's DelayedError node (named ``Error``): aliases of ``outputs`` whose backward
    raises ``message``."""
    fakes = []
    for v in outputs:
        if v is not None:
            v = v.detach()
            v.requires_grad = True
        fakes.append(v)
    outs = [None if v is None else v.detach() for v in fakes]

    def backward(grads):
        raise RuntimeError(message)

    _native._attach_node(outs, fakes, "Error", backward)
    return tuple(outs)


class InplaceFunction(Function):
    """Kept for backward compatibility: a Function with an ``inplace`` flag."""

    def __init__(self, inplace=False):
        super().__init__()
        self.inplace = inplace
