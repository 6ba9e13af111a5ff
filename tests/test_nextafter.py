"""`nextafter` (function, Tensor method, in-place form, `out=`) against PyTorch 2.13: bit for bit
in float32, float64, float16 and bfloat16 (each stepping on its own grid) over zeros of both
signs, subnormals, the largest finite values, infinities and NaN; promotion, gradients
(`input` gets the gradient unchanged, `other` zeros) and the dtype errors."""

import numpy as np
import pytest
from conftest import G, assert_same_values, check_error

pytestmark = pytest.mark.usefixtures("restore_grad_mode")

SPECIAL = [0.0, -0.0, 1.0, -1.0, 1.5, 1e-45, -1e-45, 1e-40, 1e-39, 1e-310, 5e-324, 6e-8, 1e-5,
           65504.0, 3.0e38, 3.4028234663852886e38, 1.7976931348623157e308, float("inf"),
           float("-inf"), float("nan"), 123.456, -0.1]


@pytest.mark.parametrize("dtype", ["float32", "float64", "float16", "bfloat16"])
def test_values_bit_for_bit(torch, dtype):
    rng = np.random.default_rng(7)
    vals = np.array(SPECIAL + rng.normal(0, 100, 40).tolist())
    x, y = (v.ravel() for v in np.meshgrid(vals, vals))
    gx = G.tensor(x.tolist(), dtype=getattr(G, dtype))
    gy = G.tensor(y.tolist(), dtype=getattr(G, dtype))
    tx = torch.tensor(x.tolist(), dtype=getattr(torch, dtype))
    ty = torch.tensor(y.tolist(), dtype=getattr(torch, dtype))
    g, t = G.nextafter(gx, gy), torch.nextafter(tx, ty)
    assert g.dtype == getattr(G, dtype)
    # compare the bit patterns (the signs of zeros, NaN as NaN); float16 / bfloat16 widen to
    # float32 exactly
    wide = "float64" if dtype == "float64" else "float32"
    gn = g.to(getattr(G, wide)).numpy()
    tn = t.to(getattr(torch, wide)).numpy()
    ints = np.int64 if wide == "float64" else np.int32
    nan = np.isnan(tn)
    assert (np.isnan(gn) == nan).all()
    assert (gn.view(ints)[~nan] == tn.view(ints)[~nan]).all()
    assert_same_values(gx.nextafter(gy), tx.nextafter(ty), rtol=0, atol=0)


def test_forms(torch):
    # promotion: float32 with a float64 0-dim tensor stays float32; float64 with float32 is float64
    for a, b in [((3,), ()), ((2, 3), (3,))]:
        ga, ta = G.ones(a), torch.ones(a)
        gb64, tb64 = G.full(b, 2.0, dtype=G.float64), torch.full(b, 2.0, dtype=torch.float64)
        assert_same_values(G.nextafter(ga, gb64), torch.nextafter(ta, tb64), rtol=0, atol=0)
        assert_same_values(G.nextafter(gb64, ga), torch.nextafter(tb64, ta), rtol=0, atol=0)
    gi, ti = G.tensor([1.0, 0.0, -2.0]), torch.tensor([1.0, 0.0, -2.0])
    assert gi.nextafter_(G.tensor([2.0, -1.0, -3.0])) is gi
    ti.nextafter_(torch.tensor([2.0, -1.0, -3.0]))
    assert gi._version == ti._version == 1
    assert_same_values(gi, ti, rtol=0, atol=0)
    og, ot = G.empty(3, dtype=G.float64), torch.empty(3, dtype=torch.float64)
    G.nextafter(G.tensor([1.0, 2.0, 3.0], dtype=G.float64), G.zeros(3, dtype=G.float64), out=og)
    torch.nextafter(torch.tensor([1.0, 2.0, 3.0], dtype=torch.float64),
                    torch.zeros(3, dtype=torch.float64), out=ot)
    assert_same_values(og, ot, rtol=0, atol=0)


def test_gradients(torch):
    out = []
    for m in (G, torch):
        x = m.tensor([1.0, 2.0, -3.0], dtype=m.float64, requires_grad=True)
        y = m.tensor([[2.0, 0.0, -3.0], [0.0, 5.0, 1.0]], dtype=m.float64, requires_grad=True)
        r = m.nextafter(x, y)
        (r * m.arange(6, dtype=m.float64).reshape(2, 3)).sum().backward()
        out.append((type(r.grad_fn).__name__, x.grad, y.grad))
    assert out[0][0] == out[1][0] == "NextafterBackward0"
    assert_same_values(out[0][1], out[1][1])
    assert_same_values(out[0][2], out[1][2])


def test_errors(torch):
    check_error(lambda m: m.nextafter(m.tensor([1, 2]), m.tensor([1, 2])))
    check_error(lambda m: m.nextafter(m.tensor([True]), m.tensor([False])))
    check_error(lambda m: m.nextafter(m.tensor([1.0]), 2.0))
    check_error(lambda m: m.tensor([1, 2]).nextafter_(m.tensor([1.0, 2.0])))
    check_error(lambda m: m.nextafter(m.ones(2), m.ones(3)))
