"""vmap's rule for `gradrs.linalg`: the batch as one more leading batch dim (`leading_batch`),
and the linalg Tensor methods of BatchedTensor.
"""

from __future__ import annotations

import inspect

from . import BatchedTensor, _expand_to, _Fallback, _is_tensor, _phys, Tensor, _top, _wrap


_CORE_DIMS = {"pivots": 1, "tau": 1, "atol": 0, "rtol": 0, "tol": 0, "rcond": 0}


def leading_batch(fn, args, kwargs, vector_arg=None):
    """A linalg function (batched over its inputs' leading dims) with batched arguments: the
    vmap batch is one more leading dim, so ``fn`` runs once on the physical tensors, unbatched
    ones expanded over the batch (stride-0 views). ``vector_arg``: the position of a B that a
    sample may give 1-D (solve's vector right-hand side), made a column for the call."""
    lvl = _top(list(args) + list(kwargs.values()))
    if kwargs.get("out") is not None or not args or not _is_tensor(args[0]) or args[0].dim() < 2:
        raise _Fallback()  # a sample's error (or out=) from the per-sample call
    size = next(x for x in list(args) + list(kwargs.values()) if _phys(x, lvl) is not None)
    size = size._size()

    def physical(x):
        # (a physical tensor may be a BatchedTensor of an outer level: fn recurses into its rule)
        p = _phys(x, lvl)
        if p is None:
            return _expand_to(x, size) if _is_tensor(x) else x
        return p

    # Batch dims broadcast right-aligned: the samples' batch ranks must agree for the vmap dim
    # to stay leading (a matrix argument has 2 core dims, pivots / tau 1, tolerances 0).
    try:
        bound = inspect.signature(fn).bind(*args, **kwargs).arguments
    except TypeError:
        raise _Fallback() from None  # the per-sample call raises the argument error
    ranks = set()
    for pname, value in bound.items():
        if not _is_tensor(value):
            continue
        core = _CORE_DIMS.get(pname, 2)
        if pname == "B" and (vector_arg is not None and value.dim() == 1 or (
                fn.__name__ == "lstsq" and value.dim() == args[0].dim() - 1)):
            core = 1
        ranks.add(value.dim() - core)
    if len(ranks) > 1:
        raise _Fallback()
    args = list(args)
    vector = False
    if vector_arg is not None:
        key = vector_arg if vector_arg < len(args) else "B"
        b = args[key] if isinstance(key, int) else kwargs.get(key)
        vector = _is_tensor(b) and b.dim() == 1
    pargs = [physical(a) for a in args]
    pkw = {k: physical(v) for k, v in kwargs.items()}
    if vector:
        if isinstance(key, int):
            pargs[key] = pargs[key].unsqueeze(-1)
        else:
            pkw[key] = pkw[key].unsqueeze(-1)
    out = fn(*pargs, **pkw)
    if vector:
        if _is_tensor(out):
            out = out.squeeze(-1)
        else:  # solve_ex's (result, info)
            out = type(out)(out[0].squeeze(-1), *out[1:])
    return _wrap(out, lvl)


# The linalg Tensor methods are Python functions of gradrs.linalg's (their rules above).
for _meth in ("det", "logdet", "slogdet", "inverse", "pinverse", "cholesky", "cholesky_solve",
              "cholesky_inverse", "svd", "qr", "matrix_power", "matrix_exp"):
    setattr(BatchedTensor, _meth,
            lambda self, *a, _n=_meth, **k: getattr(Tensor, _n)(self, *a, **k))
