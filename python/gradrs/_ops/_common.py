"""What the compositions of `gradrs._ops` share: `_node` (a result computed without recording
gets one node of PyTorch's name whose backward is a formula in gradrs ops), `_forward_tangent`
(PyTorch's forward formula for it), `_reduce_to` / `sum_to_size`, and the in-place writers
(`_write_in_place`, `_recomputed_in_place`: `self` gets the op's node over a recorded clone).
"""

import builtins
import sys

from .. import _argparse
from .. import _native, _numpy_names
from .._grad_mode import no_grad as _no_grad
from .._native import Tensor
from ..functional import _dtype_name, _method


# The gradrs package (still loading when this module is: read at call time).
_G = sys.modules[__package__.rpartition(".")[0]]


def _node(name, out, inputs, backward, saved=None, save_inputs=None):
    """`out` (computed with grad mode off) becomes the output of one node `name` over `inputs`
    (tensors or None) when grad mode is on and one of them requires grad; `backward(g)` returns
    one gradient (or None) per input, in gradrs ops so they record under create_graph.
    `saved`: the `(name, value)`s PyTorch's node shows as `_saved_<name>` (`...` for a tensor
    it saves only when a gradient needs it); only those are then version-checked, as there.
    `save_inputs`: else the positions of the inputs PyTorch's node saves (None: all)."""
    _unbatched(inputs, _native.is_grad_enabled())
    live = [t if isinstance(t, Tensor) else None for t in inputs]
    if _native.is_grad_enabled() and any(t is not None and t.requires_grad for t in live):
        if save_inputs is None and saved is not None:
            save_inputs = ()
        # A result reshaped or squeezed without recording is a view of a temporary; PyTorch's
        # is a tensor of its own. Left a view, an in-place op on it would rebase it onto that
        # temporary (CopySlices over a base without history) and cut the graph: detached, it
        # is not a view, and in-place ops stack on this node as on PyTorch's.
        own = ([_own(t) for t in out] if isinstance(out, list) else _own(out))
        _native._attach_node(own, live, name, lambda g: list(backward(g)),
                             saved=saved(live) if callable(saved) else saved,
                             save_inputs=save_inputs)
        if not isinstance(out, list) and not _tangent_history(own, out, live, backward):
            if own is not out:
                _set_tangent_of(own, out)  # the detach of a view left its tangent behind
        out = own
    return out


def _tangent_history(out, computed, inputs, backward):
    """Forward over reverse (`jacrev(jacfwd(f))`): `out` was computed with grad mode off, so
    its tangent (the composition's) has no history to the inputs (or their tangents) that
    require grad, and its derivative would be lost (``computed``: `out` before `_own`, whose
    tangent that is). The tangent is then ``J t`` by the double-vjp trick on the node's own
    backward (linear in its gradient ``u``, differentiable in the inputs):
    ``d/du <backward(u), t>``, recorded. Returns whether it set one."""
    from ..autograd import forward_ad

    if forward_ad._current_level < 0 or not _native._is_fwd_grad_enabled():
        return False
    t = forward_ad._unpack_dual(computed).tangent
    if t is None or t.grad_fn is not None:  # none, or a formula's, recorded
        return False
    tangents = [forward_ad._unpack_dual(x).tangent if x is not None else None for x in inputs]
    if not any(x is not None and tt is not None and (x.requires_grad or tt.requires_grad)
               for x, tt in zip(inputs, tangents)):
        return False
    _native._set_fwd_grad_enabled(False)
    try:
        # ones, not zeros: a formula such as logcumsumexp's takes log|u|, smooth only off 0
        u = _G.ones_like(out).requires_grad_()
        total = None
        for g, tt in zip(backward(u), tangents):
            if g is not None and tt is not None and g.requires_grad:
                term = (g * tt).sum()
                total = term if total is None else total + term
        if total is None:
            return False
        jt, = _native._grad([total], [u], [_G.ones_like(total)], True, True, True)
    finally:
        _native._set_fwd_grad_enabled(True)
    if jt is None:
        return False
    from ..linalg import _fresh_layout

    _native._set_tangent(out, _fresh_layout(jt.to(out.dtype), out), fresh=True)
    return True


def _unbatched(inputs, grad):
    """Under vmap, a node over BatchedTensors (whose physicals require grad, or carry a
    tangent) cannot be attached here: they are not native tensors, and the node was silently
    left out (`vmap(grad(f))` through baddbmm / addmv / addr... gave zeros). The per-sample
    call takes it (`_vmap._Fallback`)."""
    batched = [t for t in inputs if hasattr(type(t), "_vmap_level")]
    if not batched:
        return
    from .. import _vmap
    from ..autograd import forward_ad

    if (grad and any(t.requires_grad for t in batched)) or (
            forward_ad._current_level >= 0 and _native._is_fwd_grad_enabled()
            and any(forward_ad._unpack_dual(t).tangent is not None for t in batched)):
        raise _vmap._Fallback()


def _own(t):
    """`t`, or a tensor sharing its memory that is not a view when `t` is a view."""
    return t.detach() if isinstance(t, Tensor) and t._is_view() else t


def _if(t, needed):
    """`t` saved when the gradient that reads it is needed, else not (`...`), as PyTorch's
    generated nodes save."""
    return t if needed else ...


def _forward_tangent(out, inputs, jvp):
    """Forward mode: `out`'s tangent by PyTorch's forward formula ``jvp(*tangents)`` (zeros for
    an input without one) in place of the one its composition carried."""
    from ..autograd import forward_ad

    if forward_ad._current_level < 0 or not _native._is_fwd_grad_enabled():
        return
    _unbatched(inputs, False)
    tangents = [forward_ad.unpack_dual(t).tangent if isinstance(t, Tensor) else None
                for t in inputs]
    if all(t is None for t in tangents):
        return
    tangents = [_G.zeros_like(x) if t is None and isinstance(x, Tensor) else t
                for x, t in zip(inputs, tangents)]
    _native._set_fwd_grad_enabled(False)  # the formula's own ops carry no tangents
    try:
        t = jvp(*tangents).to(out.dtype)
    finally:
        _native._set_fwd_grad_enabled(True)
    if tuple(t.shape) != tuple(out.shape):
        t = t.expand(out.shape).contiguous()
    from ..linalg import _fresh_layout

    _native._set_tangent(out, _fresh_layout(t, out), fresh=True)  # kept with its history


def _set_tangent_of(out, other):
    """`out` given `other`'s tangent, history kept (`other`: the same values computed another
    way, a composition whose tangent is the op's)."""
    from ..autograd import forward_ad
    from ..linalg import _fresh_layout

    t = forward_ad._unpack_dual(other).tangent
    if t is not None:
        _native._set_tangent(out, _fresh_layout(t, out), fresh=True)


def _reduce_to(g, shape):
    """`g` summed down to `shape` (the broadcasting an input went through)."""
    return g if tuple(g.shape) == tuple(shape) else sum_to_size(g, *shape)


def _strict(name, *args):
    """PyTorch's TypeError for a function whose size argument must be one sequence (Note
    [Strict int lists] in `_argparse`)."""
    err = _argparse.error(name, args, {})
    if err is not None:
        raise err



def _sizes(size):
    return tuple(size[0]) if len(size) == 1 and not isinstance(size[0], int) else tuple(size)



def _wrap(dim, n):
    if not -n <= dim < n:
        raise IndexError(f"Dimension out of range (expected to be in range of [{-n}, {n - 1}], "
                         f"but got {dim})")
    return dim + n if dim < 0 else dim


def sum_to_size(input, *size):
    """`input.sum_to_size(*size)`: `input` summed down to `size` (which must expand to its
    shape): SumBackward1 over the size-1 dims, a view off the leading ones."""
    size = _sizes(size)
    shape = tuple(input.shape)
    lead = len(shape) - len(size)
    if lead < 0 or builtins.any(s != 1 and s != shape[lead + i] for i, s in enumerate(size)):
        raise RuntimeError(f"size {{{list(size)}}} is not expandable to size {{{list(shape)}}}.")
    if shape == size:
        return input
    dims = list(range(lead)) + [lead + i for i, s in enumerate(size)
                                if s == 1 and shape[lead + i] != 1]
    out = input.sum(dims, keepdim=True) if dims else input
    return out.view(size) if lead else out



def _as_method(fn):
    """`fn(input, ...)` as a Tensor method, its signature `fn`'s with `self` first."""
    return _method(fn)



def _dt(t):
    return t.dtype if isinstance(t, Tensor) else None


def _fmt(v):
    return "-nan" if v != v else repr(v)

# The gradrs package (still loading when this module is: read at call time).
_G = sys.modules[__package__.rpartition(".")[0]]


def _check_leaf(self):
    """PyTorch refuses an in-place op on a leaf that requires grad before any other check."""
    if _native.is_grad_enabled() and self.is_leaf and self.requires_grad:
        raise RuntimeError("a leaf Variable that requires grad is being used in an in-place "
                           "operation.")


def _write_in_place(self, name, result, others, backward, saves=None):
    """`self` overwritten with `result` (computed without recording) as PyTorch's in-place op
    `name`: a leaf that requires grad is refused; `self` gets one node `name` over (self's
    history, *others); `backward(g, prior)` returns their gradients, `prior` being `self`
    before the write. A view goes through `copy_`, whose CopySlices node keeps its base's
    history right.

    The node's first edge goes to `self`'s history itself, as PyTorch's; `prior` is a recorded
    clone (PyTorch's `original_self`), so higher-order gradients reach that history through
    it. `self` is not version-checked (later in-place ops PyTorch allows write it again);
    of `others`, those at the positions `saves` (None: all) are, as PyTorch's node saves."""
    recording = _native.is_grad_enabled() and builtins.any(
        isinstance(t, Tensor) and t.requires_grad for t in (self, *others))
    _check_leaf(self)
    if not recording:
        with _no_grad():
            return self.copy_(result)
    prior = self.clone() if self.requires_grad else None
    inputs = [self if self.requires_grad else None, *others]
    keep = [1 + i for i, t in enumerate(others)
            if isinstance(t, Tensor) and (saves is None or i in saves)]
    if self._base is not None:
        return self.copy_(_node(name, result, inputs, lambda g: backward(g, prior),
                                save_inputs=keep))
    with _no_grad():
        self.copy_(result)
    _native._attach_node(self, [t if isinstance(t, Tensor) else None for t in inputs],
                         name, lambda g: list(backward(g, prior)), save_inputs=keep)
    return self


def _type_str(t):
    """ATen's `CPUBoolType` spelling of a tensor's type in expand's message."""
    names = {"bool": "Bool", "float32": "Float", "float64": "Double", "int64": "Long",
             "int32": "Int", "float16": "Half", "bfloat16": "BFloat16", "uint8": "Byte",
             "int8": "Char", "int16": "Short"}
    return f"CPU{names.get(str(t.dtype).split('.')[-1], 'Float')}Type"


def _c_type(t):
    """A dtype as ATen's TypeMeta prints it (`float`, `double`, `c10::Half`...)."""
    return {"float32": "float", "float64": "double", "float16": "c10::Half", "int64": "long int",
            "int32": "int", "bool": "bool"}.get(str(t.dtype).split(".")[-1], str(t.dtype))


def _c_num(v):
    """A float as PyTorch's messages print it (C++ ostream, `%g`)."""
    return f"{float(v):g}"



def _recomputed_in_place(name, node, op, cast_error=None, out_shape=None):
    """Tensor method `name`: `op(self, ...)` written into `self`, which gets one node `node`.
    Its backward runs `op` again on `self`'s prior value (a recorded clone) and differentiates
    it, so each gradient is the out-of-place op's own (first and higher order)."""
    found = _numpy_names.parsed_plan(op, name, skip_self=True)
    renames = found if found is not None and found[1] else None

    def method(self, *args, **kwargs):
        if kwargs and renames is not None and not _numpy_names.ALIAS_NAMES.isdisjoint(kwargs):
            # NumPy's names (`axis=`), as PyTorch's parser takes them for the in-place op
            kwargs = _numpy_names.rename(renames[0], renames[1], len(args), kwargs, renames[2])
        _check_leaf(self)
        dtype = kwargs.get("dtype")
        if dtype is not None and dtype != self.dtype:
            raise RuntimeError(f"Bad in-place call: input tensor dtype {_c_type(self)} and "
                               f"output tensor dtype {_c_type(_G.empty(0, dtype=dtype))} "
                               "should match")
        shape = _shape_of(out_shape, args)
        if shape is not None and shape != tuple(self.shape):
            raise RuntimeError(f"Bad in-place call: input tensor size {list(self.shape)} and "
                               f"output tensor size {list(shape)} should match")
        with _no_grad():
            res = op(self, *args, **kwargs)
        if not _G.can_cast(res.dtype, self.dtype):
            what = cast_error or f"result type {_dtype_name(res.dtype)}"
            raise RuntimeError(f"{what} can't be cast to the desired output type "
                               f"{_dtype_name(self.dtype)}")
        if tuple(res.shape) != tuple(self.shape):
            raise RuntimeError(f"output with shape {list(self.shape)} doesn't match the "
                               f"broadcast shape {list(res.shape)}")
        keys = list(kwargs)
        values = [*args, *kwargs.values()]
        others = [v for v in values if isinstance(v, Tensor)]
        before = None if self.requires_grad else self.detach().clone()

        def backward(g, prior):
            base = prior if prior is not None else before
            create = _native.is_grad_enabled()
            with _G.enable_grad():
                # an alias per tensor argument: one tensor passed twice (`y.addmm_(x, x)`)
                # gets each position's gradient on its own edge
                vals = [v.view_as(v) if isinstance(v, Tensor) and v.requires_grad else v
                        for v in values]
                y = op(base, *vals[:len(args)], **dict(zip(keys, vals[len(args):])))
                inputs = [prior, *[v for v in vals if isinstance(v, Tensor)]]
                wrt = [t for t in inputs if t is not None and t.requires_grad]
                found = iter(_G.autograd.grad(y, wrt, g.to(y.dtype), create_graph=create,
                                              allow_unused=True, retain_graph=create))
            return [next(found) if t is not None and t.requires_grad else None
                    for t in inputs]

        return _write_in_place(self, node, res, others, backward)

    method.__name__ = method.__qualname__ = name
    method.__doc__ = f"`Tensor.{name}(...)`: `{name[:-1]}` written into `self` ({node})."
    return method


def _shape_of(out_shape, args):
    """The result shape a matmul-family in-place op checks `self` against first (None when
    the operands are not yet valid: the op's own checks speak then)."""
    if out_shape is None:
        return None
    try:
        shape = out_shape(*args)
    except (AttributeError, IndexError, TypeError):
        return None
    return None if shape is None else tuple(shape)


def _method_of(fn):
    def method(self, *args, **kwargs):
        return fn(self, *args, **kwargs)

    method.__name__ = method.__qualname__ = fn.__name__
    method.__doc__ = f"`Tensor.{fn.__name__}(...)`: `gradrs.{fn.__name__}(self, ...)`."
    return method
