"""The fast paths of issue 26's training figures: nn.LSTM's fused step (`_fused_lstm_cell`,
one ThnnFusedLstmCellBackward0 per step) and native_layer_norm's host backward kernel.
Each against PyTorch (values and gradients), against the composed path it replaces (the same
bits), float64 gradcheck, and double backward (create_graph takes the composed derivative)."""

import numpy as np
import pytest
from conftest import G

pytestmark = [pytest.mark.usefixtures("restore_grad_mode"),
              # PyTorch's note that its oneDNN kernel lacks projections
              pytest.mark.filterwarnings("ignore:LSTM with projections")]

TOL = {"float32": {"rtol": 2e-5, "atol": 2e-6}, "float64": {"rtol": 1e-10, "atol": 1e-12}}


def _close(g, t, dtype):
    np.testing.assert_allclose(g.detach().numpy(), t.detach().numpy(), **TOL[dtype])


def _composed(ig, hg, cx):
    """The composed step `nn.LSTMCell` runs: hidden gates + input gates, then the gates."""
    i, f, g, o = (hg + ig).chunk(4, 1)
    cy = f.sigmoid() * cx + i.sigmoid() * g.tanh()
    return o.sigmoid() * cy.tanh(), cy


def _cell_inputs(dtype, b=3, h=5, seed=0):
    rng = np.random.default_rng(seed)
    return [G.tensor(rng.standard_normal(s).astype(dtype), requires_grad=True)
            for s in [(b, 4 * h), (b, 4 * h), (b, h)]]


@pytest.mark.parametrize("dtype", ["float32", "float64"])
@pytest.mark.parametrize("which", ["both", "h", "c"])
def test_fused_cell_is_the_composed_step_bit_for_bit(dtype, which):
    ins = _cell_inputs(dtype)
    ref = [t.detach().clone().requires_grad_() for t in ins]
    hy, cy = G._native._fused_lstm_cell(*ins)
    rh, rc = _composed(*ref)
    assert type(hy.grad_fn).__name__ == "ThnnFusedLstmCellBackward0"
    assert type(cy.grad_fn).__name__ == "ThnnFusedLstmCellBackward0"
    np.testing.assert_array_equal(hy.detach().numpy(), rh.detach().numpy())
    np.testing.assert_array_equal(cy.detach().numpy(), rc.detach().numpy())
    rng = np.random.default_rng(1)
    wh, wc = (G.tensor(rng.standard_normal(hy.shape).astype(dtype)) for _ in range(2))
    pick = {"both": lambda h, c: (h * wh).sum() + (c * wc).sum(),
            "h": lambda h, c: (h * wh).sum(), "c": lambda h, c: (c * wc).sum()}[which]
    pick(hy, cy).backward()
    pick(rh, rc).backward()
    for a, b in zip(ins, ref):
        np.testing.assert_allclose(a.grad.numpy(), b.grad.numpy(), **TOL[dtype])


def test_fused_cell_gradcheck_and_double_backward():
    ins = _cell_inputs("float64", b=2, h=3, seed=2)
    assert G.autograd.gradcheck(G._native._fused_lstm_cell, ins)
    assert G.autograd.gradgradcheck(G._native._fused_lstm_cell, ins)


def test_fused_cell_create_graph_matches_composed():
    ins = _cell_inputs("float64", seed=3)
    ref = [t.detach().clone().requires_grad_() for t in ins]
    out = G._native._fused_lstm_cell(*ins)
    rout = _composed(*ref)
    ga = G.autograd.grad(sum((o ** 2).sum() for o in out), ins, create_graph=True)
    ra = G.autograd.grad(sum((o ** 2).sum() for o in rout), ref, create_graph=True)
    for a, b in zip(ga, ra):
        np.testing.assert_allclose(a.detach().numpy(), b.detach().numpy(), rtol=1e-12)
        assert a.grad_fn is not None
    gg = G.autograd.grad(sum((a ** 3).sum() for a in ga), ins)
    rg = G.autograd.grad(sum((a ** 3).sum() for a in ra), ref)
    for a, b in zip(gg, rg):
        np.testing.assert_allclose(a.numpy(), b.numpy(), rtol=1e-10, atol=1e-12)


def test_fused_cell_cx_without_grad_and_errors():
    ig, hg, cx = _cell_inputs("float32")
    cx = cx.detach()
    hy, cy = G._native._fused_lstm_cell(ig, hg, cx)
    (hy.sum() + cy.sum()).backward()
    assert ig.grad is not None and hg.grad is not None
    np.testing.assert_array_equal(ig.grad.numpy(), hg.grad.numpy())
    with G.no_grad():
        hy, cy = G._native._fused_lstm_cell(ig, hg, cx)
    assert hy.grad_fn is None and cy.grad_fn is None
    with pytest.raises(RuntimeError, match="_fused_lstm_cell"):
        G._native._fused_lstm_cell(ig, hg[:, :4], cx)


def _lstm_pair(torch, dtype, args, kw):
    torch.manual_seed(0)
    t = torch.nn.LSTM(*args, **kw).to(getattr(torch, dtype))
    g = G.nn.LSTM(*args, **kw).to(getattr(G, dtype))
    g.load_state_dict({k: G.tensor(v.numpy()) for k, v in t.state_dict().items()})
    return g, t


@pytest.mark.parametrize("dtype", ["float32", "float64"])
@pytest.mark.parametrize("args,kw,x_shape", [
    ((5, 7), {}, (6, 3, 5)),
    ((5, 7), {"batch_first": True}, (3, 6, 5)),
    ((4, 3), {"num_layers": 3, "bidirectional": True}, (5, 2, 4)),
    ((4, 3, 2), {"bidirectional": True, "batch_first": True, "bias": False}, (1, 4, 4)),
    ((3, 5), {"proj_size": 2, "num_layers": 2}, (4, 3, 3)),
    ((4, 9), {}, (7, 4)),  # unbatched
])
def test_lstm_layer_matches_torch(torch, dtype, args, kw, x_shape):
    g, t = _lstm_pair(torch, dtype, args, kw)
    rng = np.random.default_rng(7)
    a = rng.standard_normal(x_shape).astype(dtype)
    gx, tx = G.tensor(a, requires_grad=True), torch.tensor(a, requires_grad=True)
    (go, (gh, gc)), (to, (th, tc)) = g(gx), t(tx)
    for p, q in [(go, to), (gh, th), (gc, tc)]:
        _close(p, q, dtype)
    assert type(gh.grad_fn).__name__ == type(th.grad_fn).__name__
    w = np.cos(np.arange(to.numel())).reshape(to.shape).astype(dtype)
    ((go * G.tensor(w)).sum() + gh.sum() * 2 + gc.sum() * 3).backward()
    ((to * torch.tensor(w)).sum() + th.sum() * 2 + tc.sum() * 3).backward()
    _close(gx.grad, tx.grad, dtype)
    for p, q in zip(g.parameters(), t.parameters()):
        _close(p.grad, q.grad, dtype)


def _graph_names(fn, seen=None):
    seen = set() if seen is None else seen
    if fn is None or id(fn) in seen:
        return set()
    seen.add(id(fn))
    names = {type(fn).__name__}
    for nxt, _ in fn.next_functions:
        names |= _graph_names(nxt, seen)
    return names


def test_lstm_layer_uses_the_fused_step_and_cells_do_not():
    # float32 layers are one MkldnnRnnLayerBackward0 each (tests/test_lstm_layer_node.py);
    # float64 ones (composed, as PyTorch's) run the fused step
    lstm = G.nn.LSTM(3, 4, batch_first=True).double()
    out, _ = lstm(G.randn(2, 5, 3, dtype=G.float64))
    names = _graph_names(out.grad_fn)
    assert "ThnnFusedLstmCellBackward0" in names and "SigmoidBackward0" not in names
    out, _ = lstm.float()(G.randn(2, 5, 3))
    assert "MkldnnRnnLayerBackward0" in _graph_names(out.grad_fn)
    cell = G.nn.LSTMCell(3, 4)
    hy, cy = cell(G.randn(2, 3))
    assert type(hy.grad_fn).__name__ == "MulBackward0"
    assert type(cy.grad_fn).__name__ == "AddBackward0"


def test_lstm_layer_gradcheck_and_gradgradcheck():
    G.manual_seed(0)
    lstm = G.nn.LSTM(2, 3, num_layers=2, bidirectional=True).double()
    x = G.randn(3, 2, 2, dtype=G.float64, requires_grad=True)
    h0 = G.randn(4, 2, 3, dtype=G.float64, requires_grad=True)
    c0 = G.randn(4, 2, 3, dtype=G.float64, requires_grad=True)

    def fn(x, h0, c0):
        out, (h, c) = lstm(x, (h0, c0))
        return out, h, c

    assert G.autograd.gradcheck(fn, (x, h0, c0))
    assert G.autograd.gradgradcheck(fn, (x, h0, c0))


def test_lstm_layer_forward_ad_and_vmap_take_the_composed_step(torch):
    import gradrs.autograd.forward_ad as fwAD

    G.manual_seed(0)
    lstm = G.nn.LSTM(3, 4).double()
    x = G.randn(5, 2, 3, dtype=G.float64)
    v = G.randn(5, 2, 3, dtype=G.float64)
    with fwAD.dual_level():
        out, _ = lstm(fwAD.make_dual(x, v))
        tangent = fwAD.unpack_dual(out).tangent
    _, jvp = G.func.jvp(lambda x: lstm(x)[0], (x,), (v,))
    np.testing.assert_allclose(tangent.detach().numpy(), jvp.detach().numpy(), rtol=1e-12)
    eps = 1e-6
    num = (lstm(x + eps * v)[0] - lstm(x - eps * v)[0]) / (2 * eps)
    np.testing.assert_allclose(tangent.detach().numpy(), num.detach().numpy(), rtol=1e-5, atol=1e-7)
    batched = G.func.vmap(lambda x: lstm(x)[0], in_dims=1, out_dims=1)(x)
    np.testing.assert_allclose(batched.detach().numpy(), lstm(x)[0].detach().numpy(),
                               rtol=1e-12)


# ---- layer_norm's host backward --------------------------------------------------------------


@pytest.mark.parametrize("dtype", ["float32", "float64"])
@pytest.mark.parametrize("shape,ns", [((4, 7), (7,)), ((3, 5, 6), (5, 6)), ((6,), (6,)),
                                      ((33, 517), (517,)), ((2, 3, 129), (3, 129))])
@pytest.mark.parametrize("affine", ["both", "weight", "bias", "none"])
def test_layer_norm_backward_matches_torch(torch, dtype, shape, ns, affine):
    rng = np.random.default_rng(11)
    x = rng.standard_normal(shape).astype(dtype) * 3 + 1
    w = rng.standard_normal(ns).astype(dtype)
    b = rng.standard_normal(ns).astype(dtype)
    gy = rng.standard_normal(shape).astype(dtype)
    outs = []
    for m in (G, torch):
        xs = m.tensor(x, requires_grad=True)
        ws = m.tensor(w, requires_grad=True) if affine in ("both", "weight") else None
        bs = m.tensor(b, requires_grad=True) if affine in ("both", "bias") else None
        y = m.nn.functional.layer_norm(xs, ns, ws, bs, 1e-5)
        y.backward(m.tensor(gy))
        outs.append([y, xs.grad] + [t.grad for t in (ws, bs) if t is not None])
    for a, c in zip(*outs):
        tol = TOL[dtype] if dtype == "float64" else {"rtol": 1e-4, "atol": 1e-5}
        np.testing.assert_allclose(a.detach().numpy(), c.detach().numpy(), **tol)


def test_layer_norm_backward_strided_grad_and_partial_wants(torch):
    rng = np.random.default_rng(12)
    x = rng.standard_normal((5, 8))
    w = rng.standard_normal(8)
    res = []
    for m in (G, torch):
        xs = m.tensor(x, requires_grad=True)
        ws = m.tensor(w, requires_grad=True)
        y = m.nn.functional.layer_norm(xs, (8,), ws, None, 1e-5)
        # a gradient that is not contiguous (a transpose) and one broadcast from a sum
        gx, gw = m.autograd.grad((y * m.tensor(x.T.copy()).t()).sum() + y.sum(), (xs, ws))
        only_w = m.autograd.grad(m.nn.functional.layer_norm(
            m.tensor(x), (8,), ws, None, 1e-5).pow(2).sum(), ws)[0]
        res.append((gx, gw, only_w))
    for a, c in zip(*res):
        np.testing.assert_allclose(a.numpy(), c.numpy(), rtol=1e-10, atol=1e-12)
