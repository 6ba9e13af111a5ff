"""PyTorch's parser errors for int lists, devices and attribute setters, and the writes it lets
through an expanded tensor with a warning (issue 25), vs torch 2.13."""

from __future__ import annotations

import numpy as np
import pytest
from conftest import G, assert_same_warning, check, check_error

# ---- int lists (`IntArrayRef`): sizes, shapes, dims ------------------------------------------
# Only a sequence's first item decides whether it matches (a bool there is refused, later a
# Python bool counts as 1); a later item that is no int fails to unpack at its 1-based position.
INT_LISTS = {
    "ones float": lambda m: m.ones(1.5),
    "ones str": lambda m: m.ones("a"),
    "ones None": lambda m: m.ones(None),
    "ones bool": lambda m: m.ones(True),
    "ones numpy bool": lambda m: m.ones(np.bool_(1)),
    "ones numpy float": lambda m: m.zeros(np.float64(2)),
    "ones float tensor": lambda m: m.ones(m.tensor(2.0)),
    "ones varargs float": lambda m: m.ones(2, 1.5),
    "ones varargs None": lambda m: m.ones(2, None),
    "ones tuple float": lambda m: m.ones((2, 1.5)),
    "ones tuple bool first": lambda m: m.ones((True, 2)),
    "ones nested": lambda m: m.ones([[2]]),
    "ones varargs numpy bool": lambda m: m.ones(2, np.bool_(1)),
    "zeros str": lambda m: m.zeros(2, "a"),
    "empty float": lambda m: m.empty(1.5),
    "rand float": lambda m: m.rand(1.5),
    "randn bool": lambda m: m.randn(True),
    "full float": lambda m: m.full(1.5, 2.0),
    "full int": lambda m: m.full(3, 2.0),
    "full bool element": lambda m: m.full((True,), 2.0),
    "view varargs float": lambda m: m.ones(2).view(2, 1.5),
    "reshape float": lambda m: m.ones(2).reshape(1.5),
    "reshape varargs float": lambda m: m.ones(2).reshape(2, 1.5),
    "reshape keyword float": lambda m: m.ones(2).reshape(shape=1.5),
    "reshape keyword int": lambda m: m.ones(2).reshape(shape=2),
    "reshape numpy bool": lambda m: m.ones(2).reshape(np.bool_(2)),
    "reshape tuple numpy bool": lambda m: m.ones(2).reshape((np.bool_(2),)),
    "functional reshape float": lambda m: m.reshape(m.ones(2), 1.5),
    "repeat float": lambda m: m.ones(2).repeat(1.5),
    "repeat bool": lambda m: m.ones(2).repeat(True),
    "expand float": lambda m: m.ones(2).expand(1.5),
    "permute float": lambda m: m.ones(2).permute(1.5),
    "flip float": lambda m: m.ones(2).flip(1.5),
    "flip tuple float": lambda m: m.ones(2).flip((0, 1.5)),
    "flip bool": lambda m: m.ones(2, 3).flip(True),
    "flip keyword bool": lambda m: m.ones(2).flip(dims=True),
    "new_ones float": lambda m: m.ones(2).new_ones(1.5),
    "new_zeros numpy bool": lambda m: m.ones(2).new_zeros(np.bool_(1)),
    "new_zeros keyword float": lambda m: m.ones(2).new_zeros(size=1.5),
    "resize_ float": lambda m: m.ones(2).resize_(1.5),
    "resize_ bool": lambda m: m.ones(2).resize_(True),
}


@pytest.mark.parametrize("name", sorted(INT_LISTS))
def test_int_list_errors(name):
    check_error(INT_LISTS[name])


INT_LISTS_FINE = {
    "later bool counts as 1": lambda m: m.ones(2, True),
    "later bool in a list": lambda m: m.ones([2, True]),
    "view later bool": lambda m: m.ones(2).view(2, True),
    "reshape tuple later bool": lambda m: m.ones(2).reshape((2, True)),
    "permute later bool": lambda m: m.ones(2, 1).permute(0, True),
    "numpy int": lambda m: m.ones(np.int64(2), 2),
    "integer tensor": lambda m: m.ones(m.tensor(2)),
    "empty list": lambda m: m.ones([]),
    "empty tuple": lambda m: m.ones(()),
}


@pytest.mark.parametrize("name", sorted(INT_LISTS_FINE))
def test_int_lists_torch_takes(name):
    check(INT_LISTS_FINE[name])


# ---- devices -----------------------------------------------------------------------------------


@pytest.mark.parametrize("fn", [
    lambda m: m.tensor([1.5], device=5.5),
    lambda m: m.ones(2, device=5.5),
    lambda m: m.ones(2, device="xyz"),
    lambda m: m.zeros(2, device="cpu:x"),
])
def test_device_errors(fn):
    check_error(fn)


def test_cpu_index_is_the_cpu():
    check(lambda m: m.ones(2, device="cpu:1"))
    assert str(G.ones(2, device="cpu:1").device) == "cpu"


def test_torch_device_types_gradrs_lacks():
    with pytest.raises(RuntimeError, match="gradrs has no 'mps' device"):
        G.ones(2, device="mps")


# ---- attribute setters and loss targets ---------------------------------------------------------


@pytest.mark.parametrize("fn", [
    lambda m: setattr(m.ones(2), "requires_grad", 1),
    lambda m: setattr(m.ones(2), "requires_grad", None),
    lambda m: setattr(m.ones(2, requires_grad=True), "grad", m.ones(3)),
    lambda m: setattr(m.ones(2, 2, requires_grad=True), "grad", m.ones(3, 1)),
    lambda m: setattr(m.ones(2, requires_grad=True), "grad", m.ones(2, dtype=m.int64)),
    lambda m: setattr(m.ones(2, requires_grad=True), "grad", m.ones(2, dtype=m.float64)),
    lambda m: m.nn.functional.nll_loss(m.ones(2, 3), m.tensor([0.0, 1.0])),
    lambda m: m.nn.functional.cross_entropy(m.ones(2, 3), m.tensor([0, 1], dtype=m.int32)),
])
def test_setter_and_target_errors(fn):
    check_error(fn)


def test_byte_targets():
    x = [[0.1, 0.7, 0.2], [0.5, 0.2, 0.3]]
    check(lambda m: m.nn.functional.nll_loss(m.tensor(x).log(), m.tensor([1, 2], dtype=m.uint8)))
    check(lambda m: m.nn.functional.cross_entropy(m.tensor(x), m.tensor([0, 2], dtype=m.uint8)))


def test_numpy_bool_alpha_is_a_number():
    check(lambda m: m.ones(2).add(1, alpha=np.bool_(1)))
    check(lambda m: m.ones(2).sub(1, alpha=np.bool_(0)))
    check_error(lambda m: m.ones(2, dtype=m.bool).add(True, alpha=np.bool_(1)))


def test_repeat_interleave_past_memory():
    check_error(lambda m: m.ones(3).repeat_interleave(2**40))


# ---- index_put_ / advanced-index writes into an expanded tensor: a warning, then the write -----

EXPANDED_PUTS = {
    "index_put_": lambda m: m.zeros(1).expand(3).index_put_((m.tensor([0]),), m.tensor(1.0)),
    "index_put_ accumulate": lambda m: m.zeros(1).expand(3).index_put_(
        (m.tensor([0, 2]),), m.tensor([1.0, 2.0]), accumulate=True),
    "index_put_ 2-d accumulate": lambda m: m.zeros(2, 1).expand(2, 3).index_put_(
        (m.tensor([0]),), m.tensor([1.0, 2.0, 3.0]), accumulate=True),
    "functional index_put_": lambda m: m.index_put_(
        m.zeros(1).expand(3), (m.tensor([1]),), m.tensor(4.0)),
    "index_put_ mask": lambda m: m.zeros(1).expand(3).index_put_(
        (m.tensor([True, False, False]),), m.tensor(1.0)),
    "index_put_ mask accumulate": lambda m: m.zeros(1).expand(3).index_put_(
        (m.tensor([True, False, True]),), m.tensor(1.0), accumulate=True),
    "setitem mask and slice": lambda m: (lambda b: b.__setitem__(
        (m.tensor([True, False]), slice(None)), 2.0) or b)(m.zeros(2, 1).expand(2, 3)),
    "setitem mask row values": lambda m: (lambda b: b.__setitem__(
        m.tensor([True, False]), m.tensor([1.0, 2.0, 3.0])) or b)(m.zeros(2, 1).expand(2, 3)),
    "setitem mask": lambda m: (lambda b: b.__setitem__(m.tensor([True, False, False]), 2.0) or b)(
        m.zeros(1).expand(3)),
    "setitem index": lambda m: (lambda b: b.__setitem__(m.tensor([1]), 3.0) or b)(
        m.zeros(1).expand(3)),
}


@pytest.mark.parametrize("name", sorted(EXPANDED_PUTS))
def test_expanded_index_put_warns_and_writes(name, torch):
    rg, rt = assert_same_warning(lambda: EXPANDED_PUTS[name](G), lambda: EXPANDED_PUTS[name](torch))
    assert rg.tolist() == rt.tolist()


def test_expanded_basic_setitem_does_not_warn(torch):
    def f(m):
        b = m.zeros(1).expand(3)
        b[0] = 5.0
        return b

    rg, rt = assert_same_warning(lambda: f(G), lambda: f(torch))
    assert rg.tolist() == rt.tolist()
