"""Several vmap levels at once (`vmap(vmap(grad(f)))`, `vmap(hessian(f))`): batched leaves,
`batched_grad_and_value`, `batched_autograd_grad`, batched duals for forward mode.
"""

from __future__ import annotations

from .. import _native
from ..func import _flatten, _unflatten
from . import (
    BatchedTensor, _expand_to, _Fallback, _is_tensor, _level, _note_leaf, _phys, _state, Tensor,
    _top,
)


# A transform's differentiated inputs become native leaves batched at EVERY live level (one
# leading dim per level, the outermost first), wrapped once per level; one backward of the
# outputs, brought to the same full layout, gives every sample's gradient at every level.


def _levels(values):
    """The vmap levels among ``values``' BatchedTensors (nested ones too) and every live level
    (a closure may bring an outer level's tensor in), innermost first, with their sizes."""
    sizes = {}
    for v in values:
        while isinstance(v, BatchedTensor):
            sizes.setdefault(v._level, v._size())
            v = v._value
    for lvl, size in getattr(_state, "sizes", {}).items():
        if lvl <= _level():
            sizes.setdefault(lvl, size)
    return sorted(sizes, reverse=True), sizes


def _full(x, levels, sizes):
    """``x`` as one native tensor with a leading dim per level of ``levels`` (the outermost
    first), expanded (a view) over the levels it is not batched at; None where a level below
    is not ours to unwrap."""
    for lvl in levels:
        if isinstance(x, BatchedTensor) and x._level == lvl:
            x = x._value
        elif isinstance(x, BatchedTensor) and x._level > lvl:
            return None
        else:
            x = x.unsqueeze(0).expand(sizes[lvl], *x.shape)
    return x if isinstance(x, Tensor) else None


def _is_full(x, levels):
    """Whether ``x`` is batched at every one of ``levels`` over a native tensor."""
    for lvl in levels:
        if not (isinstance(x, BatchedTensor) and x._level == lvl):
            return False
        x = x._value
    return isinstance(x, Tensor)


def _rewrap(t, levels):
    """A native tensor laid out as `_full` makes it, wrapped back into its levels."""
    for lvl in reversed(levels):
        t = BatchedTensor(t, lvl)
    return t


def _nested_leaves(flat_d, levels, sizes):
    """Fresh native leaves, batched at every level, for the inputs a nested transform
    differentiates; under a dual level (``hessian`` = jacfwd of jacrev) each keeps its input's
    tangent. An input in an outer graph takes the per-call fallback."""
    from ..autograd import forward_ad as _fwAD

    leaves = []
    for d in flat_d:
        if not _is_tensor(d) or (d.requires_grad and _native.is_grad_enabled()):
            raise _Fallback()
        full = _full(d, levels, sizes)
        if full is None:
            raise _Fallback()
        primal, tangent = _fwAD._unpack_dual(full)
        leaf = primal.detach()
        if tangent is not None and not _is_full(d, levels):
            # copies: a dual's tangent follows its primal's layout (an expanded one refuses)
            leaf, tangent = leaf.contiguous(), tangent.contiguous()
        leaf = _note_leaf(leaf.requires_grad_())
        leaves.append(leaf if tangent is None else _fwAD._make_dual(leaf, tangent))
    return leaves


def batched_grad_and_value(func, nums, has_aux, args, kwargs):
    """`grad_and_value` inside `vmap`: each differentiated input becomes a batched leaf (an
    unbatched one is expanded over the batch, a view, no copy), the function runs batched, and
    one backward of the per-sample outputs gives every sample's gradient at once, since no
    sample's output depends on another sample's slice of the leaves."""
    from .._grad_mode import enable_grad
    from ..autograd import forward_ad as _fwAD
    from ..autograd import grad as _grad
    from ..func import _pick, _replace

    flat_all = _flatten((args, kwargs))[0]
    lvl = _top(flat_all)
    flat_d, spec_d = _flatten(_pick(args, nums))
    levels, sizes = _levels(flat_all)
    if len(levels) > 1:
        return _nested_grad_and_value(func, nums, has_aux, args, kwargs, flat_d, spec_d,
                                      levels, sizes)
    size = next(x for x in flat_all if _phys(x, lvl) is not None)._size()
    leaves = []
    for d in flat_d:
        p = _phys(d, lvl)
        tangent = None
        # An input in an outer graph (an enclosing grad's) stays connected to it, so the
        # gradients are differentiable with respect to it (`func._create_differentiable`).
        outer = _is_tensor(d) and d.requires_grad and _native.is_grad_enabled()
        if p is None:
            if not isinstance(d, Tensor):
                raise _Fallback()
            # Under a dual level (jacfwd of this), the leaf keeps the input's tangent.
            tangent = _fwAD.unpack_dual(d).tangent
            p = (d if outer else d.detach()).unsqueeze(0).expand(size, *d.shape)
            if tangent is not None:  # copies: a dual's tangent follows its primal's layout
                p = p.contiguous()
                tangent = tangent.unsqueeze(0).expand(size, *d.shape).contiguous()
        elif not isinstance(p, Tensor) or _fwAD.unpack_dual(p).tangent is not None:
            raise _Fallback()
        if outer:
            leaf = p.view_as(p)  # made of the dual input, p already carries its tangent
            if tangent is not None and _fwAD._unpack_dual(leaf).tangent is None:
                leaf = _fwAD._make_dual(_fwAD._unpack_dual(leaf).primal, tangent)
        else:
            leaf = _note_leaf(p.detach().requires_grad_())
            leaf = leaf if tangent is None else _fwAD.make_dual(leaf, tangent)
        leaves.append(leaf)
    diff = _unflatten([BatchedTensor(leaf, lvl) for leaf in leaves], spec_d)
    with enable_grad():
        output = func(*_replace(args, nums, diff), **kwargs)
        aux = None
        if has_aux:
            if not (isinstance(output, tuple) and len(output) == 2):
                raise RuntimeError("grad_and_value(f)(*args): output of function f should be a "
                                   "tuple: (output, aux) if has_aux is True")
            output, aux = output
        if not _is_tensor(output):
            raise RuntimeError("grad_and_value(f)(*args): Expected f(*args) to return a "
                               f"Tensor, got {type(output)}")
        if output.dim() != 0:
            raise RuntimeError("grad_and_value(f)(*args): Expected f(*args) to return a scalar "
                               f"Tensor, got tensor with {output.dim()} dims. Maybe you wanted "
                               "to use the vjp or jacrev APIs instead?")
        po = _phys(output, lvl)
        if po is not None and not isinstance(po, Tensor):
            raise _Fallback()
        from ..func import _detached, _keeps_history
        keep = _keeps_history(flat_d, leaves, [po] if po is not None else [])
        if po is not None and po.requires_grad:
            grads = _grad(po, leaves, _native.ones_like(po), create_graph=keep,
                          allow_unused=True)
        else:
            grads = [None] * len(leaves)
    grads = [BatchedTensor(g if g is not None else _native.zeros_like(leaf), lvl)
             for g, leaf in zip(grads, leaves)]
    if po is not None and not (_native.is_grad_enabled() and keep):
        output = BatchedTensor(po.detach(), lvl)
    if has_aux and not keep:
        aux = _detached(aux)
    grads = _unflatten(grads, spec_d)
    return (grads, (output, aux)) if has_aux else (grads, output)


def _nested_grad_and_value(func, nums, has_aux, args, kwargs, flat_d, spec_d, levels, sizes):
    """`batched_grad_and_value` over several vmap levels (see `_full`)."""
    from .._grad_mode import enable_grad
    from ..autograd import grad as _grad
    from ..func import _detached, _keeps_history, _replace

    leaves = _nested_leaves(flat_d, levels, sizes)
    diff = _unflatten([_rewrap(leaf, levels) for leaf in leaves], spec_d)
    with enable_grad():
        output = func(*_replace(args, nums, diff), **kwargs)
        aux = None
        if has_aux:
            if not (isinstance(output, tuple) and len(output) == 2):
                raise RuntimeError("grad_and_value(f)(*args): output of function f should be a "
                                   "tuple: (output, aux) if has_aux is True")
            output, aux = output
        if not _is_tensor(output):
            raise RuntimeError("grad_and_value(f)(*args): Expected f(*args) to return a "
                               f"Tensor, got {type(output)}")
        if output.dim() != 0:
            raise RuntimeError("grad_and_value(f)(*args): Expected f(*args) to return a scalar "
                               f"Tensor, got tensor with {output.dim()} dims. Maybe you wanted "
                               "to use the vjp or jacrev APIs instead?")
        po = _full(output, levels, sizes)
        if po is None:
            raise _Fallback()
        keep = _keeps_history(flat_d, leaves, [po])
        if po.requires_grad:
            grads = _grad(po, leaves, _native.ones_like(po), create_graph=keep,
                          allow_unused=True)
        else:
            grads = [None] * len(leaves)
    grads = [_rewrap(g if g is not None else _native.zeros_like(leaf), levels)
             for g, leaf in zip(grads, leaves)]
    if not (_native.is_grad_enabled() and keep):
        output = output.detach()
    if has_aux and not keep:
        aux = _detached(aux)
    grads = _unflatten(grads, spec_d)
    return (grads, (output, aux)) if has_aux else (grads, output)


def _overlaps(t, dims):
    """Whether two elements of ``t`` along ``dims`` share memory (an expanded dim)."""
    return any(t.stride(d) == 0 and t.shape[d] > 1 for d in dims)


def batched_dual(primal, tangent, lvl, _nbatch=0):
    """A dual tensor of ``lvl`` (`jvp` inside vmap): primal and tangent batched, either expanded
    over the batch where it is not. Nested levels (``vmap(jacfwd(f))``) recurse: the dual is
    made of the innermost physicals and wrapped once per level (``_nbatch`` levels so far)."""
    from ..autograd import forward_ad as _fwAD

    if lvl == 0:
        # A tangent is stored in its primal's layout, so a physical primal expanded over a
        # batch dim (an unbatched input `vmap` or a transform's batched leaf expanded, a view)
        # would refuse it; PyTorch's per-sample primal has no such dim. A differentiable copy
        # takes the tangent (its backward reaches the expanded leaf); a primal overlapping
        # within a sample still raises PyTorch's error in `_make_dual`.
        if (_nbatch and _overlaps(primal, range(_nbatch))
                and not _overlaps(primal, range(_nbatch, primal.dim()))):
            primal = primal.contiguous()
        return _fwAD._make_dual(primal, tangent)
    pp, pt = _phys(primal, lvl), _phys(tangent, lvl)
    if pp is None and pt is None:
        return batched_dual(primal, tangent, _top((primal, tangent)), _nbatch)
    size = (pp if pp is not None else pt).shape[0]
    # Copies, not stride-0 views: a dual's tangent follows its primal's layout.
    if pp is None:
        if isinstance(primal, Tensor) and any(
                st == 0 and n > 1 for st, n in zip(primal.stride(), primal.shape)):
            # PyTorch copies the batched tangent into the primal's (overlapping) layout.
            raise RuntimeError(
                "unsupported operation: more than one element of the written-to tensor refers "
                "to a single memory location. Please clone() the tensor before performing the "
                "operation.")
        pp = primal.unsqueeze(0).expand(size, *primal.shape).contiguous()
    if pt is None:
        pt = tangent.unsqueeze(0).expand(size, *tangent.shape).contiguous()
    return BatchedTensor(batched_dual(pp, pt, _top((pp, pt)), _nbatch + 1), lvl)


def unpack_batched_dual(out, lvl):
    """``(primal, tangent)`` of a `jvp` output inside vmap (tangent None where it has none),
    through every level of a nested vmap."""
    from ..autograd import forward_ad as _fwAD

    if not isinstance(out, BatchedTensor):
        return _fwAD._unpack_dual(out)
    primal, tangent = unpack_batched_dual(out._value, lvl)
    return BatchedTensor(primal, out._level), (None if tangent is None
                                               else BatchedTensor(tangent, out._level))


def first_sample(tree, lvl):
    """``tree`` with each BatchedTensor of ``lvl`` replaced by its first sample (values a
    vmapped function computed the same for every sample)."""
    flat, spec = _flatten(tree)
    out = []
    for x in flat:
        p = _phys(x, lvl)
        out.append(x if p is None else p.select(0, 0))
    return _unflatten(out, spec)


def batched_autograd_grad(outs, ins, gos, retain_graph, create_graph, allow_unused):
    """`autograd.grad` handed BatchedTensors (Note [vmap]). Outputs and inputs batched at the
    innermost level: one backward of the physical outputs, since no sample's output reads
    another sample's slice of the inputs. Outputs and inputs unbatched with batched
    grad_outputs (a batch of vectors for one graph, as gradcheck's check_batched_grad and
    `vjp_fn` under vmap ask): `is_grads_batched`'s backward per vector over the one graph,
    never the function rerun. Anything else (an unbatched input of a batched output, whose
    per-sample gradient is not a slice of one backward) takes the per-call fallback."""
    from ..autograd import _batched_grad

    lvl = _top(list(outs) + list(ins) + list(gos or []))
    if gos is None:
        gos = [None] * len(outs)
    if len(gos) != len(outs):
        raise _Fallback()  # the per-sample call raises PyTorch's count message
    levels, sizes = _levels(list(outs) + list(ins) + list(gos))
    if len(levels) > 1:
        return _nested_autograd_grad(outs, ins, gos, levels, sizes, retain_graph,
                                     create_graph, allow_unused)
    if any(isinstance(t, BatchedTensor) for t in list(outs) + list(ins)):
        if not all(_phys(t, lvl) is not None for t in ins):
            raise _Fallback()
        pins = [_phys(t, lvl) for t in ins]
        pouts, pgos = [], []
        for o, g in zip(outs, gos):
            po = _phys(o, lvl)
            if po is None:
                if isinstance(o, BatchedTensor):
                    raise _Fallback()
                continue  # reads no batched input: nothing of it reaches the inputs
            if g is None:
                if o.numel() != 1:
                    raise RuntimeError("grad can be implicitly created only for scalar outputs")
                g = _native.ones_like(po)
            else:
                pg = _phys(g, lvl)
                g = pg if pg is not None else g.unsqueeze(0).expand(po.shape)
            pouts.append(po)
            pgos.append(g)
        if not all(isinstance(t, Tensor) for t in pins + pouts + pgos):
            raise _Fallback()
        if not pouts:
            raise _Fallback()
        grads = _native._grad(pouts, pins, pgos, retain_graph, create_graph, allow_unused)
        return tuple(None if g is None else BatchedTensor(g, lvl) for g in grads)
    size = next(g for g in gos if _phys(g, lvl) is not None)._size()
    pgos = []
    for g in gos:
        pg = _phys(g, lvl)
        if pg is None:
            if g is None:
                raise _Fallback()  # an implicit ones per sample: the per-call run says so
            pg = g.unsqueeze(0).expand(size, *g.shape)
        if not isinstance(pg, Tensor):
            raise _Fallback()
        pgos.append(pg)
    grads = _batched_grad(list(outs), list(ins), pgos, retain_graph, create_graph, allow_unused)
    return tuple(None if g is None else BatchedTensor(g, lvl) for g in grads)


def _nested_autograd_grad(outs, ins, gos, levels, sizes, retain_graph, create_graph,
                         allow_unused):
    """`batched_autograd_grad` over several vmap levels: inputs that are leaves of every level
    (`vjp` inside nested vmaps makes them so), one backward of the full-layout outputs."""
    if not all(_is_full(t, levels) for t in ins):
        raise _Fallback()
    pins = [_full(t, levels, sizes) for t in ins]
    pouts, pgos = [], []
    for o, g in zip(outs, gos):
        po = _full(o, levels, sizes) if _is_tensor(o) else None
        if po is None:
            raise _Fallback()
        if not po.requires_grad:
            continue  # reads no input of the batch: nothing of it reaches them
        if g is None:
            if o.numel() != 1:
                raise RuntimeError("grad can be implicitly created only for scalar outputs")
            pg = _native.ones_like(po)
        else:
            pg = _full(g, levels, sizes)
            if pg is None:
                raise _Fallback()
        pouts.append(po)
        pgos.append(pg)
    if not pouts:
        raise _Fallback()
    grads = _native._grad(pouts, pins, pgos, retain_graph, create_graph, allow_unused)
    return tuple(None if g is None else _rewrap(g, levels) for g in grads)


def batched_leaves(flat, lvl):
    """`vjp`'s differentiable inputs inside vmap: each a batched leaf of ``lvl`` (an unbatched
    one expanded over the batch, a view), so one backward gives every sample's products."""
    from ..autograd import forward_ad as _fwAD

    levels, sizes = _levels(flat)
    if len(levels) > 1:
        return [_rewrap(leaf, levels) for leaf in _nested_leaves(flat, levels, sizes)]
    size = next(x for x in flat if _phys(x, lvl) is not None)._size()
    leaves = []
    for d in flat:
        p = _phys(d, lvl)
        # an input in an outer graph stays connected to it (`func._create_differentiable`)
        outer = _is_tensor(d) and d.requires_grad and _native.is_grad_enabled()
        if p is None:
            if not isinstance(d, Tensor):
                raise _Fallback()
            p = _expand_to(d if outer else d.detach(), size)
            if _fwAD.unpack_dual(d).tangent is not None:
                # copies: a dual's tangent follows its primal's layout (Note [vmap])
                p = _fwAD.make_dual(_fwAD.unpack_dual(p).primal.contiguous(), _expand_to(
                    _fwAD.unpack_dual(d).tangent, size).contiguous())
        if not isinstance(p, Tensor):
            raise _Fallback()
        primal, tangent = _fwAD.unpack_dual(p)
        leaf = p.view_as(p) if outer else _note_leaf(primal.detach().requires_grad_())
        if tangent is not None and not outer:
            leaf = _fwAD.make_dual(leaf, tangent)  # jacfwd of this: the leaf keeps its tangent
        leaves.append(BatchedTensor(leaf, lvl))
    return leaves
