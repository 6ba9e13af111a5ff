"""vmap's batching rules for matrix products: matmul / mm / bmm / mv / dot, addmm, einsum.
"""

from __future__ import annotations

import sys

from .. import _native
from . import BatchedTensor, _Fallback, _ldim, _pad, _phys, _plain, _top

# The package, read at call time: tests refuse its per-sample fallbacks by monkeypatching
# `gradrs._vmap._per_sample` / `_loop_call`, which every rule must see.
_vmap = sys.modules[__package__]


def _matmul(lvl, a, b):
    """``a @ b`` with either operand batched at ``lvl``: one native matmul."""
    pa, pb = _phys(a, lvl), _phys(b, lvl)
    ra, rb = _ldim(a), _ldim(b)
    if pa is None and pb is None:
        return a @ b
    if ra == 0 or rb == 0:  # PyTorch's error, from a sample
        return _vmap._per_sample("matmul", (a, b), {}, lvl)
    # One GEMM over the batch's rows where a vector meets an unbatched matrix.
    if pb is None and ra == 1 and rb <= 2:
        return BatchedTensor(pa @ b, lvl)
    if pa is None and rb == 1 and ra == 2:
        return BatchedTensor(pb @ a.mT, lvl)
    xa = a if pa is None else pa
    xb = b if pb is None else pb
    if ra == 1:  # (k) -> (1, k)
        xa = xa.unsqueeze(-2)
    if rb == 1:  # (k) -> (k, 1)
        xb = xb.unsqueeze(-1)
    r = max(ra, rb, 2)
    if pa is not None:
        xa = _pad(xa, r - max(ra, 2))
    if pb is not None:
        xb = _pad(xb, r - max(rb, 2))
    out = xa @ xb
    if ra == 1:
        out = out.squeeze(-2)
    if rb == 1:
        out = out.squeeze(-1)
    return BatchedTensor(out, lvl)


def _matmul_method(self, other):
    return _matmul(_top((self, other)), self, other)


BatchedTensor.matmul = BatchedTensor.__matmul__ = _matmul_method
BatchedTensor.__rmatmul__ = lambda self, other: _matmul(_top((self, other)), other, self)


def _fixed_rank(name, ra, rb):
    def fn(self, other):
        if (_ldim(self), _ldim(other)) != (ra, rb):
            return _vmap._per_sample(name, (self, other), {}, _top((self, other)))
        return _matmul(_top((self, other)), self, other)
    return fn


BatchedTensor.mm = _fixed_rank("mm", 2, 2)
BatchedTensor.bmm = _fixed_rank("bmm", 3, 3)
BatchedTensor.mv = _fixed_rank("mv", 2, 1)
BatchedTensor.dot = _fixed_rank("dot", 1, 1)


def _addmm(self, mat1, mat2, *, beta=1, alpha=1):
    prod = _matmul(_top((mat1, mat2)), mat1, mat2)
    if alpha != 1:
        prod = prod * alpha
    return prod + (self if beta == 1 else self * beta)


BatchedTensor.addmm = _addmm


def einsum(equation, operands):
    """`einsum` with batched operands: a new subscript for the batch on each batched operand
    and in front of the output (the implicit output spelled out as PyTorch orders it), one
    native einsum."""
    lvl = _top(operands)
    phys = [_phys(o, lvl) for o in operands]
    if not _plain(*phys) or any(isinstance(o, BatchedTensor) and p is None
                                for o, p in zip(operands, phys)):
        raise _Fallback()
    eq = equation.replace(" ", "")
    lhs, arrow, rhs = eq.partition("->")
    terms = lhs.split(",")
    free = [c for c in "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ" if c not in eq]
    if len(terms) != len(operands) or not free:
        raise _Fallback()  # the per-sample call gives PyTorch's error
    if not arrow:
        letters = [c for c in lhs if c.isalpha()]
        rhs = ("..." if "..." in lhs else "") + "".join(
            sorted(c for c in set(letters) if letters.count(c) == 1))
    b = free[0]
    new = ",".join(b + t if p is not None else t for t, p in zip(terms, phys))
    args = [p if p is not None else o for o, p in zip(operands, phys)]
    return BatchedTensor(_native.einsum(f"{new}->{b}{rhs}", *args), lvl)
