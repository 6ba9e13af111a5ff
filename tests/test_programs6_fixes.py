"""Fixes found by the programs of helper programs6 (tests/programs/margin_svm.py & co.), each
against torch 2.13: circular padding's checks and empty results, and the in-place logical
methods' keywords."""

import itertools

import pytest
from conftest import check, check_error


def _sig(m):
    return m.arange(6.0).reshape(1, 1, 6)


def _img(m):
    return m.arange(12.0).reshape(1, 1, 3, 4)


@pytest.mark.parametrize("pad", [(7, 7), (0, 7), (7, 0), (-4, -3), (-6, -1)])
def test_circular_pad_refuses_as_aten(pad):
    """ATen's _pad_circular: a pad wider than the input ("wrapping around more than once"),
    or negative pads leaving a negative size."""
    check_error(lambda m: m.nn.functional.pad(_sig(m), pad, mode="circular"))


@pytest.mark.parametrize("pad", [(1, 1, 4, 0), (5, 0, 0, 0), (0, 0, 0, -4)])
def test_circular_pad_2d_refuses_as_aten(pad):
    check_error(lambda m: m.nn.functional.pad(_img(m), pad, mode="circular"))


def test_circular_pad_module_refuses():
    check_error(lambda m: m.nn.CircularPad1d(7)(_sig(m)))


@pytest.mark.parametrize("pad", [(-3, -3), (-6, 0), (0, -6)])
def test_circular_pad_to_empty(pad):
    """A pad leaving zero elements gives an empty tensor (the index of no positions was a
    float tensor, which index_select refused)."""
    check(lambda m: m.nn.functional.pad(_sig(m), pad, mode="circular"))


def test_circular_pad_nonnegative_values():
    """Every non-negative pad up to the size wraps as ATen's (negative mixed with positive
    pads read uninitialised memory in torch 2.13, so only these are compared)."""
    for left, right in itertools.product(range(0, 7), repeat=2):
        check(lambda m, p=(left, right): m.nn.functional.pad(_sig(m), p, mode="circular"))


@pytest.mark.parametrize("call", [
    lambda t: t.logical_and_(other=t > 0),
    lambda t: t.logical_or_(other=t),
    lambda t: t.logical_xor_(x2=t),
    lambda t: t.logical_and_(t),
    lambda t: t.logical_not_(),
])
def test_logical_in_place_keywords(call):
    """`t.logical_and_(other=u)` (and NumPy's `x2=`): the in-place logical methods took
    positional arguments only."""
    check(lambda m: call(m.tensor([[1.0, 0.0], [2.0, 0.0]])))


@pytest.mark.parametrize("call", [
    lambda t: t.logical_and_(y=t),
    lambda t: t.logical_and_(t, y=t),
    lambda t: t.logical_or_(),
    lambda t: t.logical_not_(t),
])
def test_logical_in_place_errors(call):
    check_error(lambda m: call(m.tensor([1.0, 0.0])))


PAD_SHAPES = [((1, 1, 6), 1), ((2, 6), 1), ((1, 1, 3, 4), 2), ((1, 3, 4), 2), ((1, 1, 2, 3, 4), 3)]


@pytest.mark.parametrize("mode", ["reflect", "replicate"])
@pytest.mark.parametrize("shape,npad", PAD_SHAPES)
def test_reflect_replicate_negative_pads(mode, shape, npad):
    """Negative pads as ATen's reflection / replication kernels take them: an empty result
    where one padded dim is empty, "input (W: 6) is too small. Calculated output W: -1" where
    every one is, the allocation's refusal of a negative size, and the reflect size check's
    argument number (#4 for W, #6 for H, #8 for D). gradrs returned empty tensors."""
    import math

    vals = range(-5, 4) if npad < 3 else range(-2, 3)
    cases = list(itertools.product(vals, repeat=2 * npad))
    for p in cases[::max(1, len(cases) // 30)]:  # ~30 spread over the grid
        check_error_or_value(lambda m, p=p: m.nn.functional.pad(
            m.arange(float(math.prod(shape))).reshape(shape), p, mode=mode))


def check_error_or_value(fn):
    import torch

    try:
        fn(torch)
    except Exception:
        check_error(fn)
    else:
        check(fn)
