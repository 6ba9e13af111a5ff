"""Writes whose target shares memory with itself or with an input (issue 25), vs torch 2.13:
`out=` that partly overlaps an input, fills of expanded tensors, and the argument types of
`std` / `var`, `size` / `stride` and `randint` the hardening corpus found accepted."""

from __future__ import annotations

import numpy as np
import pytest
from conftest import G, assert_same_warning, check, check_error


def _a(M):
    return M.arange(8.0) + 0.5


# ---- out= overlapping an input ---------------------------------------------------------------

OUT_OVERLAP = {
    "exp shifted": lambda M, a: M.exp(a[:2], out=a[1:3]),
    "add shifted": lambda M, a: M.add(a[:2], a[2:], out=a[1:3]),
    "add number": lambda M, a: M.add(a[:4], 1, out=a[2:6]),
    "mul second input": lambda M, a: M.mul(a[4:], a[:4], out=a[1:5]),
    "exp transposed": lambda M, a: M.exp(a.view(2, 4).t(), out=a.view(4, 2)),
    "add transposed": lambda M, a: M.add(a[:4].view(2, 2).t(), 1, out=a[:4].view(2, 2)),
    "where": lambda M, a: M.where(a[:4] > 2, a[:4], a[4:], out=a[1:5]),
    "pow": lambda M, a: M.pow(a[:4], 2, out=a[1:5]),
    "clamp": lambda M, a: M.clamp(a[:4], 1, 3, out=a[1:5]),
    "cat": lambda M, a: M.cat([a[:2], a[2:4]], out=a[1:5]),
    "cat exact": lambda M, a: M.cat([a[:2], a[2:4]], out=a[:4]),
    "special.expit": lambda M, a: M.special.expit(a[:4], out=a[1:5]),
    "special.entr": lambda M, a: M.special.entr(a[:4], out=a[1:5]),
    "special.bessel_j0": lambda M, a: M.special.bessel_j0(a[:4], out=a[1:5]),
    "special.zeta": lambda M, a: M.special.zeta(a[:4] + 1, a[4:], out=a[1:5]),
    "expanded out": lambda M, a: M.exp(a[:2], out=M.zeros(1).expand(2)),
}


@pytest.mark.parametrize("name", sorted(OUT_OVERLAP))
def test_out_overlapping_input_raises(name):
    check_error(lambda M: OUT_OVERLAP[name](M, _a(M)))


OUT_ALLOWED = {
    # the very same elements, disjoint memory, a strided input (too hard to prove, as ATen),
    # an op PyTorch does not check
    "exp in place": lambda M, a: M.exp(a, out=a),
    "add same view": lambda M, a: M.add(a[:4], a[:4], out=a[:4]),
    "disjoint": lambda M, a: M.add(a[:4], 1, out=a[4:]),
    "strided": lambda M, a: M.exp(a[::2], out=a[1::2]),
    "special.ndtr": lambda M, a: M.special.ndtr(a[:4], out=a[1:5]),
    "cat disjoint": lambda M, a: M.cat([a[4:6], a[6:8]], out=a[:4]),
}


@pytest.mark.parametrize("name", sorted(OUT_ALLOWED))
def test_out_allowed_overlaps(name):
    def f(M):
        a = _a(M)
        r = OUT_ALLOWED[name](M, a)
        return r, a

    check(f)


OUT_UNCHECKED = {
    # ATen cannot prove this overlap (the input is not dense), or the op does not check; the
    # values then depend on the order its kernel writes in, so only the outcome is compared.
    "expanded input": lambda M, a: M.add(a[:1].expand(4), 1, out=a[:4]),
    "sum": lambda M, a: M.sum(a[:4], 0, out=a[1:2].view(())),
    "mm": lambda M, a: M.mm(a[:4].view(2, 2), a[4:].view(2, 2), out=a[1:5].view(2, 2)),
}


@pytest.mark.parametrize("name", sorted(OUT_UNCHECKED))
def test_out_overlap_let_through(name, torch):
    for M in (G, torch):
        a = _a(M)
        assert OUT_UNCHECKED[name](M, a) is not None


def test_out_overlap_checked_before_the_op_runs():
    a = _a(G)
    before = a.tolist()
    with pytest.raises(RuntimeError, match="some elements of the input tensor"):
        G.exp(a[:2], out=a[1:3])
    assert a.tolist() == before


# ---- fills of an expanded tensor: PyTorch warns and writes through ---------------------------

EXPANDED_FILLS = {
    "index_fill_": lambda M: M.zeros(1).expand(3).index_fill_(0, M.tensor([0]), 1.0),
    "index_fill_ 2d": lambda M: M.zeros(2, 1).expand(2, 3).index_fill_(1, M.tensor([2]), 1.0),
    "index_fill_ 2d dim 0": lambda M: M.zeros(2, 1).expand(2, 3).index_fill_(
        0, M.tensor([1]), 1.0),
    "masked_fill_": lambda M: M.zeros(1).expand(3).masked_fill_(
        M.tensor([True, False, False]), 1.0),
    "masked_fill_ 2d": lambda M: M.zeros(2, 1).expand(2, 3).masked_fill_(
        M.tensor([[False, True, False], [False, False, False]]), 2.0),
    "masked_fill_ broadcast mask": lambda M: M.zeros(1, 3).expand(2, 3).masked_fill_(
        M.tensor([False, True, False]), 2.0),
    "masked_fill_ tensor value": lambda M: M.zeros(1).expand(3).masked_fill_(
        M.tensor([False, False, True]), M.tensor(4.0)),
    "masked_fill_ nothing": lambda M: M.zeros(1).expand(3).masked_fill_(
        M.tensor([False, False, False]), 1.0),
}


@pytest.mark.parametrize("name", sorted(EXPANDED_FILLS))
def test_fill_expanded_writes_through(name, torch):
    def f(M):
        x = EXPANDED_FILLS[name](M)
        return x, x._base is not None

    check(f)
    assert_same_warning(lambda: EXPANDED_FILLS[name](G), lambda: EXPANDED_FILLS[name](torch))


def test_fill_expanded_of_a_graph():
    # (PyTorch's backward through it then raises the internal-overlap error, in CopySlices:
    # only the forward is compared.)
    def f(M):
        x = M.tensor([1.0, 2.0], requires_grad=True)
        y = (x * 1).unsqueeze(1)
        e = y.expand(2, 3)
        e.masked_fill_(M.tensor([[True, False, False], [False, False, False]]), 5.0)
        return y, e, e.requires_grad

    check(f)


EXPANDED_FILL_ERRORS = {
    "mask not bool": lambda M: M.zeros(1).expand(3).masked_fill_(M.tensor([1, 0, 0]), 1.0),
    "value with dims": lambda M: M.zeros(1).expand(3).masked_fill_(
        M.tensor([True, False, False]), M.ones(3)),
    "index_fill_ out of range": lambda M: M.zeros(1).expand(3).index_fill_(
        0, M.tensor([3]), 1.0),
    "add_": lambda M: M.zeros(1).expand(3).add_(1.0),
}


@pytest.mark.parametrize("name", sorted(EXPANDED_FILL_ERRORS))
def test_fill_expanded_errors(name):
    check_error(EXPANDED_FILL_ERRORS[name])


# ---- arguments PyTorch's parser refuses ------------------------------------------------------

BAD_ARGS = {
    "std unbiased np.bool_": lambda M: M.ones(2).std(unbiased=np.bool_(1)),
    "var unbiased np.bool_": lambda M: M.ones(2).var(unbiased=np.bool_(1)),
    "std unbiased int": lambda M: M.ones(2).std(unbiased=1),
    "std dim unbiased np.bool_": lambda M: M.ones(2).std(0, unbiased=np.bool_(1)),
    "size True": lambda M: M.ones(2, 3).size(True),
    "size np.bool_": lambda M: M.ones(2, 3).size(np.bool_(1)),
    "size float": lambda M: M.ones(2, 3).size(1.0),
    "stride True": lambda M: M.ones(2, 3).stride(True),
    "randint low high bool": lambda M: M.randint(0, True, (2,)),
    "randint high bool": lambda M: M.randint(True, (2,)),
    "randint high np.bool_": lambda M: M.randint(np.bool_(1), (2,)),
    "randint high float": lambda M: M.randint(2.5, (2,)),
    "randint low bool": lambda M: M.randint(True, 3, (2,)),
    "randint low float": lambda M: M.randint(0, 2.5, (2,)),
    "randint one argument": lambda M: M.randint(3),
    "randint extra argument": lambda M: M.randint(0, 3, (2,), True),
    "randint keywords": lambda M: M.randint(low=0, high=True, size=(2,)),
}


@pytest.mark.parametrize("name", sorted(BAD_ARGS))
def test_parser_refuses(name):
    check_error(BAD_ARGS[name])


def test_parser_still_takes():
    def f(M):
        return [M.ones(2, 3).size(np.int64(1)), M.ones(2, 3).stride(-1),
                M.ones(2, 3).std(unbiased=False), M.ones(3).var(0, True),
                M.ones(2, 3).size(dim=0), M.randint(np.int64(3), (2,)).shape,
                M.randint(low=1, high=2, size=(2,))]

    check(f)
