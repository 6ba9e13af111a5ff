"""`gradrs.func`: PyTorch's function transforms: `jvp` and `jacfwd` on forward-mode AD
(`autograd.forward_ad`), `grad`, `grad_and_value`, `vjp`, `jacrev` on `autograd.grad`,
`hessian` (forward over reverse), `linearize`, `functional_call`, `stack_module_state`, and
`vmap` (its engine in `_vmap.py`;
`grad` and `jvp` inside `vmap` work on batched leaves / duals there). `jacrev` / `jacfwd` vmap
over the basis as PyTorch's.

Native forward AD has one level: a `jvp` inside a `jvp` (`jacfwd(jacfwd(f))`) computes its
product by the double-vjp trick with ops the outer level's tangents flow through (PyTorch gives
each its own functorch level). `jacrev` vmaps ``grad(sum(f(x) * row))`` over the
basis rows (one batched forward and backward) where PyTorch vmaps the backward of one forward.
"""

from __future__ import annotations

import contextlib
import functools
import threading

from . import _native
from ._grad_mode import enable_grad
from .autograd import forward_ad as _fwAD

__all__ = ["debug_unwrap", "functional_call", "grad", "grad_and_value", "hessian", "jacfwd",
           "jacrev", "jvp", "linearize", "replace_all_batch_norm_modules_",
           "stack_module_state", "vjp", "vmap"]

_JVP = "jvp(f, primals, tangents)"
_jvp_state = threading.local()  # depth: the jvps running (their dual level is the live one)


# ---- small pytrees: tensors (and other leaves) in nested tuples, lists and dicts -----------


def _flatten(tree):
    if isinstance(tree, (tuple, list)):
        leaves, specs = [], []
        for x in tree:
            lv, sp = _flatten(x)
            leaves += lv
            specs.append(sp)
        return leaves, (type(tree), specs)
    if isinstance(tree, dict):
        leaves, specs = [], []
        for k, x in tree.items():
            lv, sp = _flatten(x)
            leaves += lv
            specs.append((k, sp))
        return leaves, (dict, specs)
    return [tree], None


def _unflatten(leaves, spec):
    it = iter(leaves)

    def build(sp):
        if sp is None:
            return next(it)
        kind, subs = sp
        if kind is dict:
            return {k: build(s) for k, s in subs}
        return kind(build(s) for s in subs)

    return build(spec)


def _spec_str(spec, indent=0):
    """The spec as PyTorch's ``TreeSpec`` prints it (in its error messages)."""
    if spec is None:
        return "*"
    kind, subs = spec
    context = [k for k, _ in subs] if kind is dict else None
    children = [s for _, s in subs] if kind is dict else subs
    text = ""
    if children:
        indent += 2
        text = _spec_str(children[0], indent) + ("," if len(children) > 1 else "")
        text += ",".join("\n" + " " * indent + _spec_str(c, indent) for c in children[1:])
    return f"TreeSpec({kind.__name__}, {context}, [{text}])"


def _check_tensors(leaves, api, argname):
    if len(leaves) == 0:
        raise RuntimeError(f"{api}: Expected {argname} to contain at least one Tensor.")
    for x in leaves:
        if not (isinstance(x, _native.Tensor) or _vmap._is_tensor(x)):
            raise RuntimeError(f"{api}: Expected {argname} to only contain Tensors, got {type(x)}")


# ---- argnums -----------------------------------------------------------------------------


def _check_argnum(argnum, num_args):
    if not isinstance(argnum, int):
        raise RuntimeError(f"argnum must be int, got: {type(argnum)}")
    if -num_args <= argnum < num_args:
        return argnum % num_args
    raise RuntimeError(f"Got argnum={argnum}, but only {num_args} positional inputs")


def _argnums(argnums, num_args):
    if isinstance(argnums, int):
        return _check_argnum(argnums, num_args)
    if isinstance(argnums, tuple):
        if len(argnums) == 0:
            raise RuntimeError("argnums must be non-empty")
        if len(set(argnums)) != len(argnums):
            raise RuntimeError(f"argnums elements must be unique, got {argnums}")
        return tuple(_check_argnum(a, num_args) for a in argnums)
    raise RuntimeError(f"argnums must be int or Tuple[int, ...], got: {type(argnums)}")


def _pick(args, argnums):
    return args[argnums] if isinstance(argnums, int) else tuple(args[a] for a in argnums)


def _replace(args, argnums, new):
    args = list(args)
    if isinstance(argnums, int):
        args[argnums] = new
    else:
        for a, n in zip(argnums, new):
            args[a] = n
    return tuple(args)


# ---- forward mode ------------------------------------------------------------------------


def jvp(func, primals, tangents, *, strict=False, has_aux=False):
    """``(func(*primals), J tangents)``, the Jacobian-vector product by forward-mode AD."""
    return _jvp(func, primals, tangents, None, strict=strict, has_aux=has_aux)


def _jvp(func, primals, tangents, argnums, *, strict=False, has_aux=False):
    if not isinstance(primals, tuple):
        raise RuntimeError(f"{_JVP}: Expected primals to be a tuple. "
                           "E.g. it should be valid to call f(*primals).")
    diff = primals if argnums is None else _pick(primals, argnums)
    flat_p, spec_p = _flatten(diff)
    flat_t, spec_t = _flatten(tangents)
    if spec_p != spec_t:
        raise RuntimeError(
            f"{_JVP}: Expected primals and tangents to have the same python structure. For "
            "example, if primals is a tuple of 3 tensors, tangents also must be. Got primals "
            f"with structure {_spec_str(spec_p)} and tangents with structure "
            f"{_spec_str(spec_t)}")
    _check_tensors(flat_p, _JVP, "primals")
    _check_tensors(flat_t, _JVP, "tangents")
    if _fwAD._current_level >= 0 and getattr(_jvp_state, "depth", 0):
        # A jvp inside a jvp (jacfwd of jacfwd): the one native dual level is the outer one's.
        # (Inside the user's own dual level PyTorch refuses, as entering a level below does.)
        return _jvp_inside_jvp(func, primals, argnums, flat_p, spec_p, flat_t, strict, has_aux)
    # Inside vmap: batched duals (an unbatched primal or tangent expanded over the batch).
    lvl = _vmap._top(flat_p + flat_t)
    _jvp_state.depth = getattr(_jvp_state, "depth", 0) + 1
    scopes = getattr(_vmap._state, "leaf_scopes", ())
    inner = []  # the leaves transforms inside this jvp make (`_vmap._note_leaf`)
    _vmap._state.leaf_scopes = scopes + (inner,)
    try:
        out = _jvp_at_new_level(func, primals, argnums, flat_p, spec_p, flat_t, lvl, strict,
                                has_aux)
    finally:
        _jvp_state.depth -= 1
        _vmap._state.leaf_scopes = scopes
    # A tangent computed through an inner grad / vjp (forward over reverse: jacfwd(jacrev),
    # hessian) has a graph to that transform's leaves: kept only where it also reaches the
    # caller's graph (a captured tensor that requires grad, tests/programs_gaps.md 46).
    flat_t_out, spec_t_out = _flatten(out[1])
    flat_t_out = [t if not (_vmap._is_tensor(t) and t.grad_fn is not None) or (
        _native.is_grad_enabled() and _outer_graph([t], inner)) else t.detach()
        for t in flat_t_out]
    return (out[0], _unflatten(flat_t_out, spec_t_out)) + tuple(out[2:])


def _jvp_at_new_level(func, primals, argnums, flat_p, spec_p, flat_t, lvl, strict, has_aux):
    with _fwAD._set_fwd_grad_enabled(True), _fwAD.dual_level():
        duals = _unflatten([_vmap.batched_dual(p, t, lvl) if lvl else _fwAD.make_dual(p, t)
                            for p, t in zip(flat_p, flat_t)], spec_p)
        args = duals if argnums is None else _replace(primals, argnums, duals)
        result = func(*args)
        aux = None
        if has_aux:
            if not (isinstance(result, tuple) and len(result) == 2):
                raise RuntimeError(f"{_JVP}: output of function f should be a tuple: "
                                   "(output, aux) if has_aux is True")
            result, aux = result
        flat_out, spec_out = _flatten(result)
        if (len(flat_out) == 1 and flat_out[0] is None) or len(flat_out) < 1:
            raise RuntimeError(f"{_JVP}: Expected f to be a function that has non-empty "
                               f"output (got output = {flat_out})")
        prim_out, tan_out = [], []
        for o in flat_out:
            if not _vmap._is_tensor(o):
                raise RuntimeError(f"{_JVP}: expected f(*primals) to return only tensors, "
                                   f"got unsupported type {type(o)}")
            p, t = _vmap.unpack_batched_dual(o, lvl) if lvl else _fwAD._unpack_dual(o)
            if t is None:
                if strict:
                    raise RuntimeError(
                        "jvp(f, primals, tangents, strict=True): The output of f is "
                        "independent of the inputs. This is not allowed with strict=True.")
                t = _native.zeros_like(p)
            prim_out.append(p.detach() if not p.requires_grad else p)
            tan_out.append(t)
        out = (_unflatten(prim_out, spec_out), _unflatten(tan_out, spec_out))
        return (*out, aux) if has_aux else out


def _jvp_inside_jvp(func, primals, argnums, flat_p, spec_p, flat_t, strict, has_aux):
    """`jvp` while an outer forward level is live: J t by the double-vjp trick (``u -> J^T u``
    is linear, so its vjp with ``t`` is ``J t``), computed with differentiable ops through which
    the outer level's tangents flow (forward over reverse), so the outer jvp sees the inner
    one's results as functions of its primals."""
    from .autograd import grad as _grad

    lvl = _vmap._top(flat_p)
    with enable_grad():
        if lvl:  # inside vmap: batched leaves, one backward for the batch (as `vjp`'s)
            diff = _vmap.batched_leaves(flat_p, lvl)
        else:
            diff = [_create_differentiable(p) for p in flat_p]
        # the fresh leaves (under the duals `_create_differentiable` makes of them)
        phys = [getattr(d, "_value", d) for d in diff]
        fresh = [d if d._base is None else d._base for d in phys]
        args = _unflatten(diff, spec_p)
        result = func(*(args if argnums is None else _replace(primals, argnums, args)))
        aux = None
        if has_aux:
            if not (isinstance(result, tuple) and len(result) == 2):
                raise RuntimeError(f"{_JVP}: output of function f should be a tuple: "
                                   "(output, aux) if has_aux is True")
            result, aux = result
        flat_out, spec_out = _flatten(result)
        if (len(flat_out) == 1 and flat_out[0] is None) or len(flat_out) < 1:
            raise RuntimeError(f"{_JVP}: Expected f to be a function that has non-empty "
                               f"output (got output = {flat_out})")
        for o in flat_out:
            if not _vmap._is_tensor(o):
                raise RuntimeError(f"{_JVP}: expected f(*primals) to return only tensors, "
                                   f"got unsupported type {type(o)}")
        live = [k for k, o in enumerate(flat_out) if o.requires_grad]
        us = [_vmap.zeros_like(flat_out[k]).requires_grad_() for k in live]
        for u in us:
            _vmap._note_leaf(getattr(u, "_value", u))
        products = [None] * len(flat_out)
        if live:
            vjps = _grad([flat_out[k] for k in live], diff, us, create_graph=True,
                         allow_unused=True)
            # A vjp without graph back to `us` (sign's, a step's: constant zeros) adds nothing
            # to the product, and the second grad would refuse it.
            pairs = [(g, t) for g, t in zip(vjps, flat_t) if g is not None and g.requires_grad]
            if pairs:
                jv = _grad([g for g, _ in pairs], us, [t for _, t in pairs], create_graph=True,
                           allow_unused=True)
                for k, j in zip(live, jv):
                    products[k] = j
    # The outer level's tangents flow forward without the graph: keep it only for the caller's
    # (an input requiring grad outside, or outputs reaching its graph).
    keep = any(_vmap._is_tensor(p) and p.requires_grad for p in flat_p) or (
        _native.is_grad_enabled() and _outer_graph(flat_out, fresh))
    tan_out = []
    for o, j in zip(flat_out, products):
        if j is None:
            if strict:
                raise RuntimeError("jvp(f, primals, tangents, strict=True): The output of f is "
                                   "independent of the inputs. This is not allowed with "
                                   "strict=True.")
            j = _vmap.zeros_like(o)
        tan_out.append(j)
    prim_out = list(flat_out)
    if not keep:
        prim_out = [_drop_graph(o) for o in prim_out]
        tan_out = [_drop_graph(t) for t in tan_out]
        if has_aux:
            flat_a, spec_a = _flatten(aux)
            aux = _unflatten([_drop_graph(a) if _vmap._is_tensor(a) else a for a in flat_a],
                             spec_a)
    out = (_unflatten(prim_out, spec_out), _unflatten(tan_out, spec_out))
    return (*out, aux) if has_aux else out


def _drop_graph(t):
    """``t`` without its autograd history but with its tangent at the live level."""
    if isinstance(t, _vmap.BatchedTensor):
        return _vmap.BatchedTensor(_drop_graph(t._value), t._level)
    primal, tangent = _fwAD._unpack_dual(t)
    if tangent is None:
        return t.detach()
    return _fwAD._make_dual(primal.detach(), tangent.detach())


def linearize(func, *primals):
    """``(func(*primals), jvp_fn)``: ``jvp_fn(*tangents)`` is the Jacobian-vector product of
    ``func`` at ``primals``. PyTorch traces it once into a graph; here each call is a `jvp` at
    the primals kept (the same values; ``func`` runs again per call)."""
    output = func(*primals)
    flat_p, spec_p = _flatten(primals)
    flat_p = [p.detach() for p in flat_p]
    shapes = [p.shape for p in flat_p]
    devices = [p.device for p in flat_p]
    dtypes = [p.dtype for p in flat_p]

    def jvp_fn(*tangents):
        flat_t, spec_t = _flatten(tangents)
        if spec_t != spec_p:
            raise RuntimeError(f"Expected the tangents {_spec_str(spec_t)} to have the same "
                               f"argspec as the primals {_spec_str(spec_p)}")
        for idx, t in enumerate(flat_t):
            for what, have, want in (("shape", t.shape, shapes[idx]),
                                     ("device", t.device, devices[idx]),
                                     ("dtype", t.dtype, dtypes[idx])):
                if have != want:
                    raise RuntimeError(
                        f"tangent:{idx} with {what} {have} in flattened pytree doesn't match "
                        f"the {what} {want} of the corresponding primal.")
        return _jvp(func, _unflatten(flat_p, spec_p), tangents, None)[1]

    return output, jvp_fn


def _basis(t):
    """One-hot tensors of ``t``'s shape, one per element."""
    n = t.numel()
    eye = _native.eye(n, dtype=t.dtype, device=t.device) if n else None
    return [eye[i].reshape(t.shape) for i in range(n)]


def _stack_jac(columns, out_shape, in_shape, dtype, device):
    """Columns (one per input element, each of the output's shape) as ``out + in`` shape."""
    if not columns:
        return _native.zeros(tuple(out_shape) + tuple(in_shape), dtype=dtype, device=device)
    stacked = _native.stack([c.reshape(-1) for c in columns], -1)
    return stacked.reshape(tuple(out_shape) + tuple(in_shape))


def jacfwd(func, argnums=0, has_aux=False, *, randomness="error"):
    """The Jacobian of ``func`` w.r.t. the ``argnums`` inputs, by forward-mode AD: as PyTorch's,
    the Jacobian-vector products of the inputs' basis run under `vmap` (with ``randomness``),
    one batched forward for all columns where the batching rules cover the function."""
    if randomness not in ("error", "different", "same"):
        raise RuntimeError(f"Only allowed values for randomness are 'error', 'different', or "
                           f"'same'. Got {randomness}")

    @functools.wraps(func)
    def wrapper(*args):
        nums = _argnums(argnums, len(args))
        primals = _pick(args, nums)
        flat_p, spec_p = _flatten(primals)
        sizes = [p.numel() for p in flat_p]
        n = sum(sizes)
        if n == 0:  # every input is empty: evaluate once for the output's structure
            res = func(*args)
            outs, aux = res if has_aux else (res, None)
            flat_o, spec_o = _flatten(outs)
            jac = _unflatten([_unflatten([_stack_jac([], o.shape, p.shape, o.dtype, o.device)
                                          for p in flat_p], spec_p) for o in flat_o], spec_o)
            return (jac, aux) if has_aux else jac
        eye = _native.eye(n, dtype=flat_p[0].dtype, device=flat_p[0].device)
        basis, off = [], 0
        for p, k in zip(flat_p, sizes):
            basis.append(eye[:, off:off + k].to(p.dtype).reshape((n,) + tuple(p.shape)))
            off += k
        seen = {}

        def push(*columns):
            r = _jvp(func, args, _unflatten(list(columns), spec_p), nums, has_aux=has_aux)
            seen["out"], seen["aux"] = r[0], (r[2] if has_aux else None)
            return r[1]

        level = _vmap._level() + 1  # the level of the vmap below
        tangents = vmap(push, randomness=randomness)(*basis)
        # The primal outputs and aux, the same for every column: the first one's.
        outs = _vmap.first_sample(seen["out"], level)
        aux = _vmap.first_sample(seen["aux"], level)
        flat_o, spec_o = _flatten(outs)
        flat_t = _flatten(tangents)[0]
        jac_by_out = []
        for o, t in zip(flat_o, flat_t):
            per_in, off = [], 0
            for p, k in zip(flat_p, sizes):
                cols = t[off:off + k].movedim(0, -1) if t.dim() > 1 else t[off:off + k]
                per_in.append(cols.reshape(tuple(o.shape) + tuple(p.shape)))
                off += k
            jac_by_out.append(_unflatten(per_in, spec_p))
        jac = _unflatten(jac_by_out, spec_o)
        return (jac, aux) if has_aux else jac

    return wrapper


# ---- reverse mode ------------------------------------------------------------------------


def _create_differentiable(x):
    """What a reverse transform differentiates with respect to: a fresh leaf of ``x``'s values
    that requires grad or, where ``x`` itself requires grad (an outer `grad`'s input, or the
    caller's graph), an alias of ``x`` in that graph, so the transform's result stays
    differentiable with respect to ``x`` (nested transforms: ``grad(grad(f))``), as
    functorch's levels make it. Under a live dual level it keeps ``x``'s tangent, so reverse
    mode inside ``jacfwd`` / ``jvp`` is forward-differentiated."""
    if not isinstance(x, _native.Tensor):
        return x
    tangent = _fwAD.unpack_dual(x).tangent
    if x.requires_grad and _native.is_grad_enabled():
        # AliasBackward0, passing the gradient through; `next_functions` skips it (no node
        # between the transforms' graphs, as functorch's)
        d = _native._transparent_alias(x)
        if tangent is not None:
            d = _fwAD.make_dual(_fwAD.unpack_dual(d).primal, tangent)
        return d
    d = _vmap._note_leaf(x.detach().requires_grad_())
    return d if tangent is None else _fwAD.make_dual(d, tangent)


def _outer_graph(outputs, fresh):
    """Whether ``outputs`` reach a leaf of the caller's graph (a tensor requiring grad that is
    not one of the transform's own ``fresh`` leaves): then the transform's results keep their
    history (``create_graph``); otherwise they come back without it, as functorch unwraps them
    at the outermost level (``grad(f)(x)`` prints no ``grad_fn``)."""
    todo = [o.grad_fn for o in outputs if _vmap._is_tensor(o) and o.grad_fn is not None]
    seen = set()
    while todo:
        node = todo.pop()
        if node in seen:
            continue
        seen.add(node)
        if type(node).__name__ == "AccumulateGrad":
            if not any(node.variable is f for f in fresh):
                return True
            continue
        todo.extend(f for f, _ in node.next_functions if f is not None)
    return False


def _keeps_history(inputs, fresh, outputs):
    """A transform's results stay differentiable where an input requires grad (an enclosing
    transform's, or the caller's), carries a tangent, or the outputs reach the caller's graph."""
    for x in inputs:
        if _vmap._is_tensor(x) and (
                x.requires_grad or _fwAD._unpack_dual(x).tangent is not None):
            return True
    return _native.is_grad_enabled() and _outer_graph(
        outputs, [getattr(f, "_value", f) for f in fresh])


def _detached(tree):
    flat, spec = _flatten(tree)
    return _unflatten([x.detach() if _vmap._is_tensor(x) else x for x in flat], spec)


def vjp(func, *primals, has_aux=False):
    """``(func(*primals), vjp_fn)``: ``vjp_fn(v)`` is ``v^T J`` for each primal."""
    from .autograd import grad as _grad
    with enable_grad():
        flat_p, spec_p = _flatten(primals)
        lvl = _vmap._top(flat_p)
        # Inside vmap: batched leaves, so vjp_fn is one backward for the batch (Note [vmap]).
        diff = (_vmap.batched_leaves(flat_p, lvl) if lvl else
                [_create_differentiable(p) for p in flat_p])
        result = func(*_unflatten(diff, spec_p))
        aux = None
        if has_aux:
            if not (isinstance(result, tuple) and len(result) == 2):
                raise RuntimeError("vjp(f, *primals): output of function f should be a tuple: "
                                   "(output, aux) if has_aux is True")
            result, aux = result
        flat_out, spec_out = _flatten(result)
        for o in flat_out:
            if not _vmap._is_tensor(o):
                raise RuntimeError("vjp(f, *primals): Expected f to be a function that has "
                                   f"only tensor outputs, got {type(o)}")

    keep = _keeps_history(flat_p, diff, flat_out)

    def vjp_fn(cotangents, *, retain_graph=True, create_graph=None):
        flat_c, spec_c = _flatten(cotangents)
        if spec_c != spec_out:
            raise RuntimeError(
                "Expected pytree structure of cotangents to be the same as pytree structure of "
                f"outputs to the function. cotangents: {_spec_str(spec_c)}, primal output: "
                f"{_spec_str(spec_out)}")
        if create_graph is None:
            create_graph = _native.is_grad_enabled() and (
                keep or any(_vmap._is_tensor(c) and c.requires_grad for c in flat_c))
        pairs = [(o, c) for o, c in zip(flat_out, flat_c) if o.requires_grad]
        grads = _grad([o for o, _ in pairs], diff, [c for _, c in pairs],
                      retain_graph=retain_graph, create_graph=create_graph,
                      allow_unused=True) if pairs else [None] * len(diff)
        grads = [g if g is not None else _vmap.zeros_like(p) for g, p in zip(grads, diff)]
        return _unflatten(grads, spec_p)

    def batched_vjp_fn(flat_c):
        """The flattened vector-Jacobian products of a batch of cotangents (dim 0 of each
        of ``flat_c``, one per output): one batched backward (`grad(is_grads_batched=True)`),
        as PyTorch's jacrev vmaps `vjp_fn` over the basis."""
        create_graph = _native.is_grad_enabled() and keep
        size = flat_c[0].shape[0]
        pairs = [(o, c) for o, c in zip(flat_out, flat_c) if o.requires_grad]
        grads = _grad([o for o, _ in pairs], diff, [c for _, c in pairs], retain_graph=True,
                      create_graph=create_graph, allow_unused=True,
                      is_grads_batched=True) if pairs else [None] * len(diff)
        return [g if g is not None else _native.zeros((size, *p.shape), dtype=p.dtype,
                                                      device=p.device)
                for g, p in zip(grads, diff)]

    # jacrev's batched path, outside vmap only (BatchedTensors take vmap's own rules)
    if not lvl and not _vmap._top(flat_out):
        vjp_fn._batched = batched_vjp_fn
    outs = _unflatten([o.detach() for o in flat_out], spec_out)
    return (outs, vjp_fn, aux) if has_aux else (outs, vjp_fn)


def grad_and_value(func, argnums=0, has_aux=False):
    """A function returning ``(gradient of func w.r.t. argnums, func's value)``; ``func``
    must return a one-element tensor."""
    from .autograd import grad as _grad

    @functools.wraps(func)
    def wrapper(*args, **kwargs):
        nums = _argnums(argnums, len(args))
        if _vmap._top(_flatten((args, kwargs))[0]):
            return _vmap.batched_grad_and_value(func, nums, has_aux, args, kwargs)
        with enable_grad():
            diff = _pick(args, nums)
            flat_d, spec_d = _flatten(diff)
            flat_d = [_create_differentiable(d) for d in flat_d]
            diff = _unflatten(flat_d, spec_d)
            output = func(*_replace(args, nums, diff), **kwargs)
            aux = None
            if has_aux:
                if not (isinstance(output, tuple) and len(output) == 2):
                    raise RuntimeError("grad_and_value(f)(*args): output of function f should "
                                       "be a tuple: (output, aux) if has_aux is True")
                output, aux = output
            if not isinstance(output, _native.Tensor):
                raise RuntimeError("grad_and_value(f)(*args): Expected f(*args) to return a "
                                   f"Tensor, got {type(output)}")
            if output.dim() != 0:
                raise RuntimeError("grad_and_value(f)(*args): Expected f(*args) to return a "
                                   "scalar Tensor, got tensor with "
                                   f"{output.dim()} dims. Maybe you wanted to use the vjp or "
                                   "jacrev APIs instead?")
            keep = _keeps_history(_flatten(_pick(args, nums))[0], flat_d, [output])
            if output.requires_grad:
                grads = _grad(output, flat_d, create_graph=keep, allow_unused=True)
            else:
                grads = [None] * len(flat_d)
            grads = [g if g is not None else _native.zeros_like(d) for g, d in zip(grads, flat_d)]
            grads = _unflatten(grads, spec_d)
        value = output.detach() if not (_native.is_grad_enabled() and keep) else output
        if has_aux and not keep:
            aux = _detached(aux)
        return ((grads, (value, aux)) if has_aux else (grads, value))

    return wrapper


def grad(func, argnums=0, has_aux=False):
    """A function returning the gradient of ``func`` w.r.t. its ``argnums`` inputs."""
    gv = grad_and_value(func, argnums, has_aux)

    @functools.wraps(func)
    def wrapper(*args, **kwargs):
        g, value = gv(*args, **kwargs)
        return (g, value[1]) if has_aux else g

    return wrapper


def jacrev(func, argnums=0, *, has_aux=False, chunk_size=None, _preallocate_and_copy=False):
    """The Jacobian of ``func`` w.r.t. the ``argnums`` inputs, by reverse-mode AD: as PyTorch's,
    ``func`` runs once (`vjp`), then the vector-Jacobian products of the basis of the outputs
    run over that one graph as one batched backward (`grad(is_grads_batched=True)`, chunks of
    ``chunk_size`` rows), as PyTorch vmaps `vjp_fn` over the basis; under vmap, one backward
    per basis vector."""
    if not (chunk_size is None or chunk_size > 0):
        raise ValueError("jacrev: `chunk_size` should be greater than 0.")

    @functools.wraps(func)
    def wrapper(*args):
        nums = _argnums(argnums, len(args))
        primals = _pick(args, nums)

        def f(*p):
            return func(*_replace(args, nums, p if isinstance(nums, tuple) else p[0]))

        # The one call: PyTorch's checks, the outputs' structure and shapes, aux, the graph.
        res = vjp(f, *(primals if isinstance(nums, tuple) else (primals,)), has_aux=has_aux)
        outs, vjp_fn = res[0], res[1]
        flat_o, spec_o = _flatten(outs)
        flat_p, spec_p = _flatten(primals)
        sizes = [o.numel() for o in flat_o]
        n = sum(sizes)
        batched = getattr(vjp_fn, "_batched", None)
        if n and batched is not None:
            eye = _native.eye(n, dtype=flat_o[0].dtype, device=flat_o[0].device)
            step = chunk_size or n
            chunks = []
            for start in range(0, n, step):
                rows_ = eye[start:start + step]
                cot, off = [], 0
                for o, k in zip(flat_o, sizes):
                    cot.append(rows_[:, off:off + k].to(o.dtype).reshape(
                        (rows_.shape[0], *o.shape)))
                    off += k
                chunks.append(batched(cot))
            flat_g = [chunks[0][j] if len(chunks) == 1 else
                      _native.cat([c[j] for c in chunks]) for j in range(len(flat_p))]
        elif n:
            eye = _native.eye(n, dtype=flat_o[0].dtype, device=flat_o[0].device)
            rows = []
            for i in range(n):
                cot, off = [], 0
                for o, k in zip(flat_o, sizes):
                    cot.append(eye[i, off:off + k].to(o.dtype).reshape(tuple(o.shape)))
                    off += k
                rows.append(_flatten(vjp_fn(_unflatten(cot, spec_o)))[0])
            flat_g = [_stack_rows([r[j] for r in rows]) for j in range(len(flat_p))]
        jac_by_out, off = [], 0
        for o, k in zip(flat_o, sizes):
            per_in = []
            for i, p in enumerate(flat_p):
                shape = tuple(o.shape) + tuple(p.shape)
                per_in.append(flat_g[i][off:off + k].reshape(shape) if k else
                              _native.zeros(shape, dtype=p.dtype, device=p.device))
            off += k
            jac_by_out.append(_unflatten(per_in, spec_p))
        jac = _unflatten(jac_by_out, spec_o)
        return (jac, res[2]) if has_aux else jac

    return wrapper


def _stack_rows(rows):
    """``rows`` stacked along a new dim 0 (BatchedTensors under vmap: its rule)."""
    return _vmap._stack_fn(rows, 0) if _vmap._top(rows) else _native.stack(rows)


def hessian(func, argnums=0):
    """The Hessian of ``func`` w.r.t. ``argnums``: ``jacfwd(jacrev(func))``."""
    return jacfwd(jacrev(func, argnums), argnums)


# ---- functional_call -----------------------------------------------------------------------


def _set_tensor(module, name, value):
    *path, leaf = name.split(".")
    for p in path:
        module = getattr(module, p)
    if leaf in module._parameters:
        old = module._parameters[leaf]
        module._parameters[leaf] = value
        return lambda: module._parameters.__setitem__(leaf, old)
    if leaf in module._buffers:
        old = module._buffers[leaf]
        module._buffers[leaf] = value
        return lambda: module._buffers.__setitem__(leaf, old)
    had = hasattr(module, leaf)
    old = getattr(module, leaf, None)
    object.__setattr__(module, leaf, value)
    return (lambda: object.__setattr__(module, leaf, old)) if had else (
        lambda: object.__delattr__(module, leaf))


def _untie(module, given):
    """``given`` with each name tied to a given one (one tensor under several names) mapped to
    its value, as PyTorch's `_untie_named_tensors_map`: two different values for names of one
    tied tensor are refused."""
    named = dict(module.named_parameters(remove_duplicate=False))
    named.update(module.named_buffers(remove_duplicate=False))
    by_tensor: dict = {}
    for name, tensor in named.items():
        by_tensor.setdefault(id(tensor), set()).add(name)
    tied = {n: names for names in by_tensor.values() if len(names) > 1 for n in names}
    given_tied = {n for n in given if n in tied}
    for name in given_tied:
        names = tied[name]
        # PyTorch reads every tied name here (a KeyError where one of them is not given).
        if len(names & given_tied) > 1 and len({id(given[n]) for n in names}) != 1:
            raise ValueError(f"functional_call got multiple values for keys {sorted(names)}, "
                             "which are tied. Consider using tie_weights=False")
    untied = dict(given)
    for name in given_tied:
        for other in tied[name]:
            untied[other] = given[name]
    return untied


def functional_call(module, parameter_and_buffer_dicts, args=None, kwargs=None, *,
                    tie_weights=True, strict=False):
    """Call ``module`` with its parameters and buffers replaced by the given tensors."""
    dicts = parameter_and_buffer_dicts
    if isinstance(dicts, dict):
        merged = dict(dicts)
    elif isinstance(dicts, (list, tuple)):
        merged = {}
        for d in dicts:
            for k in d:
                if k in merged:
                    raise ValueError(f"{k} appeared in multiple dictionaries; behavior of "
                                     "functional call is ambiguous")
            merged.update(d)
    else:
        raise ValueError(f"Expected parameter_and_buffer_dicts to be a dict, or a list/tuple of "
                         f"dicts, but got {type(dicts)}")
    if tie_weights:
        merged = _untie(module, merged)
    if strict:
        expected = {n for n, _ in module.named_parameters(remove_duplicate=False)} | {
            n for n, _ in module.named_buffers(remove_duplicate=False)}
        missing = sorted(expected - set(merged))
        unexpected = sorted(set(merged) - expected)
        if missing or unexpected:
            msg = []
            if unexpected:
                msg.append("Unexpected key(s): " + ", ".join(repr(k) for k in unexpected) + ".")
            if missing:
                msg.append("Missing key(s): " + ", ".join(repr(k) for k in missing) + ".")
            raise RuntimeError("Error(s) in reparametrizing for {}:\n\t{}".format(
                module._get_name(), "\n\t".join(msg)))
    if args is None:
        args = ()
    elif not isinstance(args, tuple):
        args = (args,)
    kwargs = kwargs or {}
    with contextlib.ExitStack() as stack:
        for name, value in merged.items():
            stack.callback(_set_tensor(module, name, value))
        return module(*args, **kwargs)



def stack_module_state(models):
    """``(params, buffers)``: each parameter and buffer of ``models`` (modules of one class)
    stacked along a new dim 0, by name, for ensembling with `vmap`; the stacked parameters are
    new leaves."""
    if len(models) == 0:
        raise RuntimeError("stack_module_state: Expected at least one model, got 0.")
    if not (all(m.training for m in models) or all(not m.training for m in models)):
        raise RuntimeError(
            "stack_module_state: Expected all models to have the same training/eval mode.")
    if not all(type(m) is type(models[0]) for m in models):
        raise RuntimeError("stack_module_state: Expected all models to be of the same class.")

    def stacked(tensors, name):
        if len({t.requires_grad for t in tensors}) != 1:
            raise RuntimeError(f"Expected {name} from each model to have the same .requires_grad")
        out = _native.stack(tensors)
        return out.detach().requires_grad_() if tensors[0].requires_grad else out

    all_params = [dict(m.named_parameters()) for m in models]
    all_buffers = [dict(m.named_buffers()) for m in models]
    params = {k: stacked(tuple(p[k] for p in all_params), k) for k in all_params[0]}
    buffers = {k: stacked(tuple(b[k] for b in all_buffers), k) for k in all_buffers[0]}
    return params, buffers


def replace_all_batch_norm_modules_(root):
    """``root`` with every batch-norm module in it (itself included) made to use batch
    statistics only: running stats None, ``track_running_stats`` False (in place)."""
    from .nn.modules.batchnorm import _BatchNorm

    for module in [root, *root.modules()]:
        if isinstance(module, _BatchNorm) and module.track_running_stats:
            module.running_mean = None
            module.running_var = None
            module.num_batches_tracked = None
            module.track_running_stats = False
    return root


def debug_unwrap(tensor, *, recurse=True):
    """The tensor a vmap `BatchedTensor` wraps (every level with ``recurse``); any other
    tensor as is. For debugging only, as PyTorch's."""
    if not isinstance(tensor, _vmap.BatchedTensor):
        return tensor
    return debug_unwrap(tensor._value) if recurse else tensor._value


from . import _vmap  # noqa: E402 - it builds on the pytrees above
from ._vmap import vmap  # noqa: E402
