"""PyTorch's parser errors for the top-level functions and the hidden overloads of the methods
(Note [Parser errors], issue 25), take_along_dim's index wrap and the sizes checked before a
device, vs torch 2.13."""

from __future__ import annotations

import numpy as np
import pytest
from conftest import G, check, check_error, need_torch

from gradrs._function_signatures import FUNCTIONS

# ---- calls PyTorch's parser refuses, with the text it prints ---------------------------------
CALLS = {
    "arange unknown keyword": lambda m: m.arange(3, foo=1),
    "arange str": lambda m: m.arange("a"),
    "arange no arguments": lambda m: m.arange(),
    "add no arguments": lambda m: m.add(),
    "add one tensor": lambda m: m.add(m.ones(2)),
    "add unknown keyword": lambda m: m.add(m.ones(2), foo=1),
    "add str input": lambda m: m.add("a"),
    "add None input": lambda m: m.add(None),
    "add int input keyword": lambda m: m.add(3, foo=1),
    "addcmul str input": lambda m: m.addcmul("a"),
    "all None": lambda m: m.all(None),
    "pow one tensor": lambda m: m.pow(m.ones(2)),
    "pinverse int": lambda m: m.pinverse(3),
    "copysign no arguments": lambda m: m.copysign(),
    "copysign tensor str": lambda m: m.copysign(m.ones(2), "a"),
    "method add no arguments": lambda m: m.ones(2).add(),
    "method add unknown keyword": lambda m: m.ones(2).add(foo=1),
    "method sub no arguments": lambda m: m.ones(2).sub(),
    "method addcmul no arguments": lambda m: m.ones(2).addcmul(),
    "method view no arguments": lambda m: m.ones(2).view(),
    "foreach add no arguments": lambda m: m._foreach_add(),
    "foreach add unknown keyword": lambda m: m._foreach_add([m.ones(2)], foo=1),
    "foreach addcmul_ tensor str": lambda m: m._foreach_addcmul_(m.ones(2), "a"),
    # the factories' sizes: none given, given twice, not a tuple of ints
    "zeros no size": lambda m: m.zeros(),
    "ones no size, keywords": lambda m: m.ones(requires_grad=True),
    "empty no size": lambda m: m.empty(dtype=m.float32),
    "rand no size": lambda m: m.rand(),
    "rand generator, no size": lambda m: m.rand(generator=None),
    "randn dtype, no size": lambda m: m.randn(dtype=m.float64),
    "zeros size twice": lambda m: m.zeros(2, size=(3,)),
    "zeros size tuple twice": lambda m: m.zeros((2,), size=(3,)),
    "rand size twice": lambda m: m.rand(2, size=(2,)),
    "zeros size int": lambda m: m.zeros(size=2),
    "zeros size floats": lambda m: m.zeros(size=(2.5,)),
    "zeros size bools": lambda m: m.zeros(size=(True,)),
    "zeros size ndarray": lambda m: m.zeros(size=np.array([2, 3])),
    "zeros size tensor": lambda m: m.zeros(size=m.tensor([2, 3])),
    "zeros negative size": lambda m: m.zeros(size=(-1,)),
    "full no arguments": lambda m: m.full(),
    "full no fill_value": lambda m: m.full((2,)),
    "arange step without end": lambda m: m.arange(5, step=2),
    "arange start only": lambda m: m.arange(start=1),
    "arange end and step": lambda m: m.arange(end=3, step=1),
    "arange start twice": lambda m: m.arange(3, start=0),
}

# PyTorch's parser takes the factories' leading parameters by keyword too.
KEYWORD_FACTORIES = {
    "zeros size": lambda m: m.zeros(size=(2, 3), dtype=m.float64),
    "zeros size list": lambda m: m.zeros(size=[2]),
    "zeros size empty": lambda m: m.zeros(size=[]),
    "ones size Size": lambda m: m.ones(size=m.Size([2, 1])),
    "ones size numpy ints and 0-d tensor": lambda m: m.ones(size=(np.int64(2), m.tensor(3))),
    "empty size memory_format": lambda m: m.empty(size=(2, 3),
                                                  memory_format=m.contiguous_format).shape,
    "rand size generator": lambda m: _seeded(m, lambda: m.rand(size=(2, 3), generator=None)),
    "randn size requires_grad": lambda m: _seeded(m, lambda: m.randn(size=(4,),
                                                                      requires_grad=True)),
    "arange end": lambda m: m.arange(end=5),
    "arange end float": lambda m: m.arange(end=5.0),
    "arange end tensor": lambda m: m.arange(end=m.tensor(3)),
    "arange start end": lambda m: m.arange(start=1, end=4),
    "arange start end step": lambda m: m.arange(start=1, end=5, step=2),
    "arange end keyword": lambda m: m.arange(1, end=4),
    "arange step keyword": lambda m: m.arange(0, 5, step=2),
    "arange end step keywords": lambda m: m.arange(1, end=7, step=3, dtype=m.float32),
    "arange keywords out": lambda m: m.arange(start=0, end=3, out=m.empty(3, dtype=m.long)),
}


def _seeded(m, make):
    m.manual_seed(0)
    return make()


@pytest.mark.parametrize("name", sorted(KEYWORD_FACTORIES))
def test_factories_take_their_sizes_by_keyword(name):
    check(KEYWORD_FACTORIES[name])


@pytest.mark.parametrize("name", sorted(CALLS))
def test_parser_errors(name):
    check_error(CALLS[name])


# Every function the listing names, given arguments no overload takes: PyTorch's text (a
# function gradrs does not bind as PyTorch's parser would is listed with its reason).
BAD_ARGUMENTS = {
    "unknown keyword": lambda f, m: f(m.ones(2), _probe_=1),
    "no arguments": lambda f, m: f(),
    "str": lambda f, m: f("a"),
    "None": lambda f, m: f(None),
    "int and keyword": lambda f, m: f(3, _probe_=1),
}
# Not yet PyTorch's texts: native factories no wrapper of gradrs's sees the calls of (`normal`),
# functions gradrs takes None in (`is_autocast_enabled(None)`), Python functions whose own
# checks speak first, and aliases that are their op's function (`divide is div`), so name it.
LEFT = {"normal", "is_autocast_enabled", "set_autocast_enabled", "result_type",
        "divide", "multiply", "subtract", "true_divide"}


@pytest.mark.parametrize("kind", sorted(BAD_ARGUMENTS))
def test_listed_functions_raise_the_parser_texts(kind):
    torch = need_torch()
    call = BAD_ARGUMENTS[kind]
    wrong = []
    for name in sorted(FUNCTIONS):
        if name in LEFT or not hasattr(G, name):
            continue
        try:
            call(getattr(torch, name), torch)
            continue  # torch takes it: nothing to compare
        except TypeError as e:
            want = str(e).replace("torch.", "gradrs.")
        except Exception:  # noqa: BLE001 - only the parser's TypeErrors are compared
            continue
        try:
            call(getattr(G, name), G)
            got = "(no error)"
        except Exception as e:  # noqa: BLE001
            got = f"{type(e).__name__}: {e}"
        if got != f"TypeError: {want}":
            wrong.append(f"{name}: {got[:160]!r}\n   torch: {want[:160]!r}")
    assert not wrong, f"{len(wrong)} functions differ:\n" + "\n".join(wrong)


# ---- take_along_dim: indices taken modulo the dim's size (PyTorch 2.13's remainder) --------
TAKE = {
    "negative": lambda m: m.arange(3.0).take_along_dim(m.tensor([-4, -1, -7]), 0),
    "past the end": lambda m: m.arange(3.0).take_along_dim(m.tensor([3, 4, 100]), 0),
    "2-d broadcast": lambda m: m.arange(6.0).view(2, 3).take_along_dim(m.tensor([[5], [-1]]), 1),
    "empty dim, empty indices": lambda m: m.empty(0, 2).take_along_dim(
        m.zeros(0, 1, dtype=m.long), 0),
    "grad": lambda m: _take_grad(m),
}


def _take_grad(m):
    x = m.arange(3.0, requires_grad=True)
    x.take_along_dim(m.tensor([4, -1, -4]), 0).sum().backward()
    return x.grad


@pytest.mark.parametrize("name", sorted(TAKE))
def test_take_along_dim_wraps_indices(name):
    check(TAKE[name])


def test_take_along_dim_errors():
    check_error(lambda m: m.empty(2, 0).take_along_dim(m.zeros(2, 1, dtype=m.long), 1))
    # without a dim the flattened gather checks its indices
    check_error(lambda m: m.arange(6.0).view(2, 3).take_along_dim(m.tensor([7]), None))


# ---- sizes are checked before the device -----------------------------------------------------
@pytest.mark.parametrize("fn", ["empty", "zeros", "ones"])
def test_gpu_size_overflow_is_the_storage_size_error(fn):
    if not G.gpu.is_available():
        pytest.skip("no GPU adapter")
    torch = need_torch()
    with pytest.raises(RuntimeError) as et:
        getattr(torch, fn)(2**62)
    with pytest.raises(RuntimeError) as eg:
        getattr(G, fn)(2**62, device="gpu")
    assert str(eg.value) == str(et.value)
    with pytest.raises(RuntimeError) as eg:
        G.full((2**62,), 1.5, device="gpu")
    assert str(eg.value) == str(et.value)


def test_gpu_allocation_past_any_adapter_is_out_of_memory():
    if not G.gpu.is_available():
        pytest.skip("no GPU adapter")
    with pytest.raises(G.OutOfMemoryError, match=r"Tried to allocate 4096\.00 GiB"):
        G.empty(2**40, device="gpu")
    assert (G.ones(3, device="gpu") + 1).sum().item() == 6.0  # the device is still usable
