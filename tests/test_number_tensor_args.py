"""A 0-dim tensor that does not require grad where PyTorch's parser takes a Number (or, for
F.pad's value, a float): full / full_like / Tensor.new_full / arange / F.pad (gap 63). Values,
dtypes and the parser's errors (a 1-element tensor of more dims, one requiring grad) as
torch's."""

from __future__ import annotations

import pytest
from conftest import G, needs_torch

pytestmark = needs_torch


def _fill_values(lib):
    return [
        lib.tensor(3.0), lib.tensor(3), lib.tensor(True), lib.tensor(-2.5, dtype=lib.float64),
        lib.tensor(7, dtype=lib.int32), lib.tensor(2.5, dtype=lib.float16),
        lib.tensor([3.0]), lib.tensor([[1]]), lib.tensor(3.0, requires_grad=True),
    ]


def _calls(lib, v):
    F = lib.nn.functional
    return {
        "full": lambda: lib.full((2, 3), v),
        "full_dtype": lambda: lib.full((2,), v, dtype=lib.float64),
        "full_like": lambda: lib.full_like(lib.zeros(2, dtype=lib.int64), v),
        "new_full": lambda: lib.zeros(2, dtype=lib.float64).new_full((3,), v),
        "arange1": lambda: lib.arange(v),
        "arange2": lambda: lib.arange(v, 10),
        "arange3": lambda: lib.arange(-4, 10, v),
        "arange_kw": lambda: lib.arange(v, 10, dtype=lib.float64),
        "pad": lambda: F.pad(lib.zeros(2, 2), (1, 1), value=v),
        "pad_pos": lambda: F.pad(lib.zeros(2), (1, 2), "constant", v),
    }


def _outcome(f):
    try:
        r = f()
    except Exception as e:  # noqa: BLE001 - the oracle's type and message are compared
        return type(e).__name__, str(e).replace("torch.", "gradrs.")
    return "ok", repr(r).replace("torch.", "gradrs."), str(r.dtype).replace("torch.", "gradrs.")


@pytest.mark.parametrize("case", range(9))
@pytest.mark.parametrize("call", list(_calls(G, 0)))
def test_zero_dim_tensor_as_number(torch, case, call):
    g = _outcome(_calls(G, _fill_values(G)[case])[call])
    t = _outcome(_calls(torch, _fill_values(torch)[case])[call])
    assert g == t


@pytest.mark.parametrize("bad", ["a", None, [1.0]])
@pytest.mark.parametrize("call", list(_calls(G, 0)))
def test_non_number_errors(torch, bad, call):
    if bad is None and call.startswith("pad"):
        pytest.skip("value=None is pad's default")
    assert _outcome(_calls(G, bad)[call]) == _outcome(_calls(torch, bad)[call])


@pytest.mark.parametrize("args", [(), (1, 2, 3, 4), (1, "a", 2)])
def test_arange_arity_errors(torch, args):
    assert _outcome(lambda: G.arange(*args)) == _outcome(lambda: torch.arange(*args))


def test_log_domain_fill():
    # The common use: a constant from a tensor expression, gradrs.full(size, -log(n)).
    n = G.tensor(4.0)
    out = G.full((3,), -G.log(n))
    assert out.dtype == G.float32 and out.tolist() == [-G.log(n).item()] * 3
