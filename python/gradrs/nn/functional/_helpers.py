"""`gradrs.nn.functional`'s shared helpers: `_one_node` (a composition recorded as one node of
PyTorch's name), argument normalizers, and the wrappers that give functions PyTorch's argument
errors (`_check_tensor_args`) and vmap batching rules (`_vmap_rule`).
"""

from __future__ import annotations

import functools

from ... import _native, _numpy_names
from ... import _torch_function as _tf
from ..._native import Tensor as _Tensor


# PyTorch computes mse_loss, conv2d, layer_norm, ... as single ops whose grad_fn is one node
# (MseLossBackward0, ConvolutionBackward0, ...). Here they are compositions of differentiable
# ops: `_one_node` runs the composition on detached leaves (a local graph), returns its result
# detached with one node of PyTorch's name attached to the real inputs, and that node's
# backward differentiates the local graph. Under create_graph the gradients are lifted the
# same way (a node over the inputs and the incoming gradient), so any order of derivative is
# the composition's own.


def _one_node(name, fn, *inputs, linear=False, saves=None, saved=None):
    """`fn(*inputs)` recorded as one node called `name` (inputs: tensors or other values).

    ``linear``: `fn` is linear in its one tensor input and PyTorch's backward is an op of
    (grad_output, self), as avg_pool2d_backward: under create_graph the first derivative is
    always a node over both (requires_grad even for a constant grad_output), and the second
    derivative with respect to the input is zeros (``self: zeros_like(self)``).
    ``saves``: the positions in `inputs` of the tensors PyTorch's node saves (derivatives.yaml);
    None saves them all.
    ``saved``: instead, the ``(name, value)``s PyTorch's node shows as ``_saved_<name>``
    (tensors among them the real inputs, saved and version-checked as there; a callable
    returning them, called only when the node is recorded). `_i64` marks an int64_t value.
    """
    if not _native.is_grad_enabled() or not any(
            isinstance(t, _native.Tensor) and t.requires_grad for t in inputs):
        return fn(*inputs)
    if any(_live_tangent(t) is not None for t in inputs):
        return _dual_node(name, fn, inputs, saves, saved)
    leaves = [t.detach().requires_grad_() if isinstance(t, _native.Tensor) and t.requires_grad
              else t for t in inputs]
    return _lift(name, fn(*leaves), leaves, inputs, linear, saves=saves, saved=saved)


def _i64(value):
    """An int64_t attribute of a node's `saved` (a dim, ignore_index, padding_idx): PyTorch
    shows it unsigned (dim=-1 as 18446744073709551615), which `_attach_node` reads from its
    two's complement."""
    return value % (1 << 64)


def _attach_saved(saved, saves, pos):
    """`_attach_node`'s (saved, save_inputs) for `_one_node`'s `saved` / `saves`."""
    if saved is not None:
        return (saved() if callable(saved) else saved), ()
    return None, (None if saves is None else [k for k, i in enumerate(pos) if i in saves])


def _dual_node(name, fn, inputs, saves, saved=None):
    """`_one_node` under forward AD (an input with a tangent): detached leaves would carry no
    tangent, so the composition runs on the real inputs; its tangent is the output's and its
    graph the node's backward, whose gradients so carry tangents too (forward over reverse,
    `hessian`) and stay differentiable through the inputs' history (`jacrev(jacfwd(f))`)."""
    from ..._ops._common import _set_tangent_of

    # Aliases (views keep the tangents): the gradient with respect to each is its direct use
    # only, not also a path through another input computed from it (`dist(x, 0.3 * x)`).
    aliases = [t.view_as(t) if isinstance(t, _native.Tensor) and t.requires_grad else t
               for t in inputs]
    real = fn(*aliases)
    if not (isinstance(real, _native.Tensor) and real.requires_grad):
        return real
    pos = [i for i, t in enumerate(inputs) if isinstance(t, _native.Tensor)]
    node_inputs = [inputs[i] for i in pos]
    wanted = [k for k, t in enumerate(node_inputs) if t.requires_grad]
    out = real.detach()

    def backward(g):
        res = _native._grad([real], [aliases[pos[k]] for k in wanted], [g], True,
                            _native.is_grad_enabled(), True)
        grads = [None] * len(pos)
        for k, r in zip(wanted, res):
            grads[k] = r
        return grads

    named, save_inputs = _attach_saved(saved, saves, pos)
    _native._attach_node(out, node_inputs, name, backward, saved=named, save_inputs=save_inputs)
    _set_tangent_of(out, real)
    return out


def _live_tangent(t):
    """``t``'s tangent at the live forward-AD level (None: none, or not a tensor)."""
    from ...autograd import forward_ad

    if forward_ad._current_level < 0 or not _native._is_fwd_grad_enabled() or not (
            isinstance(t, _native.Tensor) or hasattr(type(t), "_vmap_level")):
        return None
    return forward_ad._unpack_dual(t).tangent  # (a BatchedTensor's through its levels)


def _lift(name, local, leaves, reals, linear=False, zeros_if_unused=False, saves=None,
          saved=None):
    pos = [i for i, t in enumerate(reals) if isinstance(t, _native.Tensor)]
    wanted = [k for k, i in enumerate(pos) if reals[i].requires_grad]
    node_inputs = [reals[i] for i in pos]
    node_leaves = [leaves[i] for i in pos]
    out = local.detach()

    def backward(g):
        create = _native.is_grad_enabled()
        gl = (g.detach().requires_grad_() if create and (linear or g.requires_grad)
              else g.detach())
        res = _native._grad([local], [node_leaves[k] for k in wanted], [gl], True, create, True)
        grads = [None] * len(pos)
        for k, r in zip(wanted, res):
            if r is None and zeros_if_unused:
                r = _native.zeros_like(node_leaves[k])
            if r is not None and create and r.requires_grad:
                r = _lift(name.replace("Backward0", "BackwardBackward0"), r,
                          node_leaves + [gl], node_inputs + [g], zeros_if_unused=linear)
            grads[k] = r
        return grads

    # Only the inputs PyTorch's node saves are version-checked (`saves`: their positions in
    # `reals`; None: all; or those `saved` names), so an in-place change to another one is
    # allowed, as there.
    named, save_inputs = _attach_saved(saved, saves, pos)
    _native._attach_node(out, node_inputs, name, backward, saved=named, save_inputs=save_inputs)
    return out


def _opmath(fn):
    """``fn`` computed in float32 when its first argument is float16 or bfloat16, the result
    rounded to that dtype once, as PyTorch's fused kernels (normalizations) compute them."""
    def run(x, *rest):
        half = x.dtype
        if half not in (_native.float16, _native.bfloat16):
            return fn(x, *rest)
        wide = [t.float() if isinstance(t, _native.Tensor) and t.dtype == half
                else t for t in (x, *rest)]
        return fn(*wide).to(half)

    return run


def _pair(v):
    return (v, v) if isinstance(v, int) else tuple(v)


_CPP_NAMES = {"float16": "c10::Half", "float32": "float", "float64": "double", "int32": "int",
              "int64": "long int", "bool": "bool", "bfloat16": "c10::BFloat16",
              "uint8": "unsigned char", "int8": "signed char", "int16": "short int"}


def _ints(v, nd):
    """An int argument as PyTorch's parser gives it: repeated to the op's `nd` dimensions."""
    return [v] * nd if isinstance(v, int) else list(v)


def _single(v):
    return v[0] if isinstance(v, (tuple, list)) else v


def _pool_arg(v, name, allow_empty=False):
    v = (v,) if isinstance(v, int) else tuple(v)
    if not (len(v) in (1, 2) or (allow_empty and not v)):
        what = ("either be omitted, a single int, or a tuple of two ints" if allow_empty
                else "either be a single int, or a tuple of two ints")
        raise RuntimeError(f"avg_pool2d: {name} must {what}")
    return v



_INF = float("inf")
_SCALAR_NAMES = {"float16": "Half", "float32": "Float", "float64": "Double", "int32": "Int",
                 "int64": "Long", "bool": "Bool", "bfloat16": "BFloat16", "uint8": "Byte",
                 "int8": "Char", "int16": "Short"}


def _scalar_name(dtype):
    return _SCALAR_NAMES[str(dtype).split(".")[-1]]


def _in_dtype(value, dtype):
    """`value` rounded to a half tensor's precision: PyTorch's half kernels compare with the
    scalar converted to the tensor's type (the declared kernel computes half in float32)."""
    import numpy as np

    return float(np.float16(value)) if dtype == _native.float16 else value


# -- interpolate --


def _is_integer(x):
    import numbers

    return isinstance(x, numbers.Integral) and not isinstance(x, bool) or (
        isinstance(x, _native.Tensor) and not x.is_floating_point() and x.dim() == 0)


# -- 3-D pooling and transposed convolution --
#
# Composed of strided slices of the (padded) input, one per kernel tap, so each output is a
# reduction over a stacked tap axis: the reductions' own backward formulas route gradients as
# PyTorch's kernels do (max: to the first maximum of the window; mean: evenly), and each
# function is one node of PyTorch's name.


def _list_with_default(out_size, defaults):
    from ..modules.utils import _list_with_default

    return _list_with_default(out_size, defaults)


def _arg3(v, message):
    v = (v,) if isinstance(v, int) else tuple(v)
    if len(v) not in (1, 3):
        raise RuntimeError(message)
    return v * 3 if len(v) == 1 else v


def _triple3(v):
    return (v, v, v) if isinstance(v, int) else tuple(v)


def _check_tensor_args(fn, spec):
    """`fn` failing as PyTorch's function does where `spec` (see above) says."""
    import inspect

    from ... import _argparse

    names = list(inspect.signature(fn).parameters)
    op, _, params = spec[:-1].partition("(")
    checks = []  # (index in fn's arguments, name in fn, name in the op, position, None allowed)
    for pos, param in enumerate(params.split(", "), 1):
        native, _, own = param.rstrip("?").partition("=")
        own = own or native
        checks.append((names.index(own), own, native, pos, param.endswith("?")))
    attr = op[1:] if op.startswith(".") else None
    missing = object()
    # __torch_function__ (Note [Torch function dispatch]): `active` is a flag cell the
    # dispatch keeps, `me[0]` the function as F exposes it (an outer `_vmap_rule` sets it)
    active = _tf.ACTIVE
    simple, modes = _tf.SIMPLE, _tf.MODES  # `_tf.plain`, inline
    me = []
    renames = [None]  # a C-bound function's NumPy keyword names (`_tf.wrap_module` sets it)
    aliases = _numpy_names.ALIAS_NAMES

    @functools.wraps(fn)
    def checked(*args, **kwargs):
        if active and (active is modes or args and (
                type(args[0]) not in simple or len(args) > 1 and (
                    type(args[1]) not in simple or len(args) > 2
                    and not simple.issuperset(map(type, args))))
                       or kwargs and not simple.issuperset(map(type, kwargs.values()))):
            r = _tf.dispatch(me[0], args, kwargs, None, True)
            if r is not _tf._NO:
                return r
        if kwargs and renames[0] is not None and not aliases.isdisjoint(kwargs):
            kwargs = _renamed(renames[0], fn, args, kwargs)
        for i, own, native, pos, optional in checks:
            value = args[i] if i < len(args) else kwargs.get(own, missing)
            if value is missing or isinstance(value, _Tensor) or (optional and value is None):
                continue
            if hasattr(type(value), "_vmap_level"):  # vmap's BatchedTensor: batching rules
                continue
            r = _tf.dispatch_foreign(me[0], args, kwargs, None, True)  # a tensor-like
            if r is not _tf._NO:
                return r
            if attr is not None:
                getattr(value, attr)  # raises PyTorch's AttributeError
                continue
            raise TypeError(f"{op}(): argument '{native}' (position {pos}) must be Tensor, "
                            f"not {_argparse.type_name(value)}")
        try:
            return fn(*args, **kwargs)
        except (TypeError, AttributeError) as e:
            r = _tf.dispatch_foreign(me[0], args, kwargs, None, True)
            if r is _tf._NO:
                _raise_missing(renames[0], fn, args, kwargs, e)
                raise
            return r
    checked._tf_numpy = renames
    return _tf.inline_public(checked, me)


def _renamed(found, fn, args, kwargs):
    """`kwargs` with NumPy's names (`x=`) of a C-bound function (`found`: its
    `_numpy_names.parsed_plan`) renamed, or PyTorch's parser error."""
    try:
        return _numpy_names.rename(found[0], found[1], len(args), kwargs, found[2])
    except TypeError as e:
        _raise_missing(found, fn, args, kwargs, e)
        raise


def _raise_missing(found, fn, args, kwargs, e):
    """Raise PyTorch's text of a C-bound function's call without a required argument, where
    that made `e`."""
    if found is not None and isinstance(e, TypeError):
        err = _numpy_names.missing_error(fn, found, args, kwargs)
        if err is not None:
            raise err from None


def _vmap_rule(fn, rule, *extra):
    """`fn` of one input tensor under vmap: ``rule(..., fn, *extra, input, args, kwargs)``,
    its batching rule in `_vmap` (Note [vmap])."""
    active = _tf.ACTIVE  # as `_check_tensor_args`'s
    simple, modes = _tf.SIMPLE, _tf.MODES
    me = []
    renames = [None]  # as `_check_tensor_args`'s
    aliases = _numpy_names.ALIAS_NAMES

    @functools.wraps(fn)
    def wrapped(*args, **kwargs):
        if active and (active is modes or args and (
                type(args[0]) not in simple or len(args) > 1 and (
                    type(args[1]) not in simple or len(args) > 2
                    and not simple.issuperset(map(type, args))))
                       or kwargs and not simple.issuperset(map(type, kwargs.values()))):
            r = _tf.dispatch(me[0], args, kwargs, None, True)
            if r is not _tf._NO:
                return r
        if kwargs and renames[0] is not None and not aliases.isdisjoint(kwargs):
            kwargs = _renamed(renames[0], fn, args, kwargs)
        input = args[0] if args else kwargs.get("input")
        if hasattr(type(input), "_vmap_level"):
            from ... import _vmap

            rest = dict(kwargs)
            rest.pop("input", None)
            return getattr(_vmap, rule)(fn, *extra, input, args[1:], rest)
        try:
            return fn(*args, **kwargs)
        except (TypeError, AttributeError) as e:
            r = _tf.dispatch_foreign(me[0], args, kwargs, None, True)
            if r is _tf._NO:
                _raise_missing(renames[0], fn, args, kwargs, e)
                raise
            return r
    wrapped._tf_numpy = renames
    return _tf.inline_public(wrapped, me)
