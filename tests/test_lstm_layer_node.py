"""nn.LSTM's float32 host layers as one native op and one node, MkldnnRnnLayerBackward0, as
PyTorch's oneDNN layers (`_native._lstm_layer`, `ops::rnn::lstm_layer`): outputs, final
states and every gradient against PyTorch, the node's edges and saved values, the version
check, double backward (the composed derivative, PyTorch's differentiable backward), and the
cases that keep the composed steps (float64, projections, forward AD)."""

import numpy as np
import pytest
from conftest import G

pytestmark = [pytest.mark.usefixtures("restore_grad_mode"),
              # PyTorch's note that its oneDNN kernel lacks projections
              pytest.mark.filterwarnings("ignore:LSTM with projections")]

TOL = {"rtol": 2e-5, "atol": 2e-6}


def _close(g, t, **tol):
    np.testing.assert_allclose(g.detach().numpy(), t.detach().numpy(), **(tol or TOL))


def _pair(torch, args, kw, dtype="float32"):
    torch.manual_seed(0)
    t = torch.nn.LSTM(*args, **kw).to(getattr(torch, dtype))
    g = G.nn.LSTM(*args, **kw).to(getattr(G, dtype))
    g.load_state_dict({k: G.tensor(v.numpy()) for k, v in t.state_dict().items()})
    return g, t


def _leaf(torch, a):
    return G.tensor(a, requires_grad=True), torch.tensor(a, requires_grad=True)


def _names(fn):
    return [None if f is None else type(f).__name__ for f, _ in fn.next_functions]


CASES = [
    ((5, 7), {}, (6, 3, 5)),
    ((5, 7), {"num_layers": 2}, (6, 3, 5)),
    ((4, 3), {"bidirectional": True}, (5, 2, 4)),
    ((5, 7), {"batch_first": True}, (3, 6, 5)),
    ((4, 3), {"num_layers": 2, "bidirectional": True, "batch_first": True}, (2, 5, 4)),
    ((4, 3), {"bias": False, "num_layers": 2}, (5, 2, 4)),
    ((4, 9), {}, (7, 4)),  # unbatched
    ((4, 9), {"num_layers": 2, "bidirectional": True}, (7, 4)),  # unbatched
    ((3, 5), {"proj_size": 2, "num_layers": 2}, (4, 3, 3)),  # composed, as PyTorch's
    ((3, 5), {}, (1, 1, 3)),  # one step
]


@pytest.mark.parametrize("with_state", [False, True])
@pytest.mark.parametrize("args,kw,x_shape", CASES)
def test_layer_matches_torch(torch, args, kw, x_shape, with_state):
    g, t = _pair(torch, args, kw)
    rng = np.random.default_rng(3)
    gx, tx = _leaf(torch, rng.standard_normal(x_shape).astype("float32"))
    if with_state:
        layers = kw.get("num_layers", 1) * (2 if kw.get("bidirectional") else 1)
        batch = () if len(x_shape) == 2 else (x_shape[0 if kw.get("batch_first") else 1],)
        hsize = kw.get("proj_size") or args[1]
        gh, th = _leaf(torch, rng.standard_normal((layers, *batch, hsize)).astype("float32"))
        gc, tc = _leaf(torch, rng.standard_normal((layers, *batch, args[1])).astype("float32"))
        (go, (ghn, gcn)), (to, (thn, tcn)) = g(gx, (gh, gc)), t(tx, (th, tc))
    else:
        (go, (ghn, gcn)), (to, (thn, tcn)) = g(gx), t(tx)
    for p, q in [(go, to), (ghn, thn), (gcn, tcn)]:
        _close(p, q)
        assert type(p.grad_fn).__name__ == type(q.grad_fn).__name__
        if "proj_size" not in kw:  # PyTorch's projected steps are other composed nodes
            assert _names(p.grad_fn) == _names(q.grad_fn)
    w = np.cos(np.arange(to.numel())).reshape(to.shape).astype("float32")
    ((go * G.tensor(w)).sum() + ghn.sum() * 2 + (gcn * gcn).sum()).backward()
    ((to * torch.tensor(w)).sum() + thn.sum() * 2 + (tcn * tcn).sum()).backward()
    _close(gx.grad, tx.grad)
    if with_state:
        _close(gh.grad, th.grad)
        _close(gc.grad, tc.grad)
    for (n, p), q in zip(g.named_parameters(), t.parameters()):
        assert p.grad is not None, n
        _close(p.grad, q.grad)


@pytest.mark.parametrize("used", ["out", "h", "c"])
def test_one_output_used(torch, used):
    g, t = _pair(torch, (3, 4), {"num_layers": 2})
    gx, tx = _leaf(torch, np.random.default_rng(0).standard_normal((5, 2, 3)).astype("float32"))
    pick = {"out": lambda r: r[0], "h": lambda r: r[1][0], "c": lambda r: r[1][1]}[used]
    pick(g(gx)).sum().backward()
    pick(t(tx)).sum().backward()
    _close(gx.grad, tx.grad)
    for p, q in zip(g.parameters(), t.parameters()):
        _close(p.grad, q.grad)


def test_node_edges_and_saved_values(torch):
    g, t = _pair(torch, (3, 4), {"num_layers": 2})
    a = np.ones((5, 2, 3), "float32")
    (go, (gh, gc)), (to, (th, tc)) = g(G.tensor(a)), t(torch.tensor(a))
    top, ttop = go.grad_fn, to.grad_fn
    first = top.next_functions[0][0]
    assert type(first).__name__ == "MkldnnRnnLayerBackward0"
    # h_n / c_n stack each layer's outputs 1 and 2 of its node, as PyTorch's
    for p, q, nr in [(gh, th, 1), (gc, tc, 2)]:
        assert [n for _, n in p.grad_fn.next_functions] == [nr, nr]
        assert [n for _, n in q.grad_fn.next_functions] == [nr, nr]
    assert gh.grad_fn.next_functions[1][0] is top and gh.grad_fn.next_functions[0][0] is first
    for name in ["batch_first", "batch_sizes", "bidirectional", "has_biases", "hidden_size",
                 "mode", "num_layers", "reverse", "train"]:
        assert getattr(top, "_saved_" + name) == getattr(ttop, "_saved_" + name), name
    for name in ["input", "weight0", "weight1", "weight2", "weight3", "hx_", "cx_",
                 "result0", "result1", "result2"]:
        _close(getattr(top, "_saved_" + name), getattr(ttop, "_saved_" + name))
    assert top._saved_weight1 is g.weight_hh_l1
    g.eval()
    assert g(G.tensor(a))[0].grad_fn._saved_train is False


def test_reverse_direction_saved(torch):
    g, _ = _pair(torch, (3, 4), {"bidirectional": True})
    out, _ = g(G.ones(5, 2, 3))
    fwd, bwd = (f for f, _ in out.grad_fn.next_functions)
    assert (fwd._saved_reverse, bwd._saved_reverse) == (False, True)


def test_no_grad_records_nothing(torch):
    g, t = _pair(torch, (3, 4), {"num_layers": 2, "bidirectional": True})
    a = np.random.default_rng(1).standard_normal((4, 2, 3)).astype("float32")
    with G.no_grad():
        go, (gh, gc) = g(G.tensor(a))
    to, (th, tc) = t(torch.tensor(a))
    assert go.grad_fn is None and not go.requires_grad
    for p, q in [(go, to), (gh, th), (gc, tc)]:
        _close(p, q)


def test_modified_weight_raises_torch_error(torch):
    messages = []
    for lib, m in zip((G, torch), _pair(torch, (3, 4), {})):
        out, _ = m(lib.ones(5, 2, 3))
        v = m.weight_hh_l0._version
        with lib.no_grad():
            m.weight_hh_l0.add_(1)
        with pytest.raises(RuntimeError) as e:
            out.sum().backward()
        messages.append(str(e.value).replace(f"version {v + 1};", "version V+1;")
                        .replace(f"version {v} instead", "version V instead")
                        .replace("torch.", "gradrs."))
    assert "[gradrs.FloatTensor [16, 4]] is at version V+1; expected version V" in messages[1]
    assert messages[0] == messages[1]


def test_modified_output_raises(torch):
    g, _ = _pair(torch, (3, 4), {})
    out, _ = g(G.ones(5, 2, 3, requires_grad=True))
    out.mul_(2)
    with pytest.raises(RuntimeError, match="modified by an inplace operation"):
        out.sum().backward()


def test_backward_twice(torch):
    g, _ = _pair(torch, (3, 4), {})
    out, _ = g(G.ones(5, 2, 3))
    out.sum().backward(retain_graph=True)
    first = g.weight_hh_l0.grad.clone()
    out.sum().backward()
    _close(g.weight_hh_l0.grad, first * 2)
    with pytest.raises(RuntimeError, match="backward through the graph a second time"):
        out.sum().backward()


def test_double_backward_matches_torch(torch):
    """create_graph differentiates PyTorch's composed derivative of the layer (its
    `mkldnn_rnn_layer_differentiable_backward`)."""
    g, t = _pair(torch, (3, 4), {"num_layers": 2, "bidirectional": True})
    a = np.random.default_rng(2).standard_normal((4, 2, 3)).astype("float32")
    res = []
    for lib, m in ((G, g), (torch, t)):
        x = lib.tensor(a, requires_grad=True)
        out, (h, c) = m(x)
        gx, gw = lib.autograd.grad((out * out).sum() + h.sum() + c.sum(),
                                   (x, m.weight_hh_l0), create_graph=True)
        ((gx * gx).sum() + gw.sum()).backward()
        res.append([gx, gw, x.grad] + [p.grad for p in m.parameters()])
    for p, q in zip(*res):
        _close(p, q, rtol=1e-4, atol=1e-5)


def test_forward_ad_keeps_the_composed_steps(torch):
    """PyTorch's oneDNN layer has no forward formula (NotImplementedError); gradrs keeps the
    composed steps', as before, so forward AD through float32 nn.LSTM still works (checked
    against PyTorch's float64 composed layer)."""
    import gradrs.autograd.forward_ad as fwAD

    g, t = _pair(torch, (3, 4), {})
    x, v = G.randn(5, 2, 3), G.randn(5, 2, 3)
    with fwAD.dual_level():
        out, _ = g(fwAD.make_dual(x, v))
        tangent = fwAD.unpack_dual(out).tangent
    t = t.double()
    _, jvp = torch.func.jvp(lambda x: t(x)[0], (torch.tensor(x.numpy()).double(),),
                            (torch.tensor(v.numpy()).double(),))
    _close(tangent, jvp.float(), rtol=1e-4, atol=1e-5)


def test_float64_composes_and_gradchecks(torch):
    g, t = _pair(torch, (2, 3), {"num_layers": 2, "bidirectional": True}, dtype="float64")
    x = G.randn(3, 2, 2, dtype=G.float64, requires_grad=True)
    out, _ = g(x)
    assert type(out.grad_fn).__name__ == type(t(torch.tensor(x.detach().numpy()))[0].grad_fn).__name__
    assert G.autograd.gradcheck(lambda x: g(x)[0], (x,))


def test_subclass_input_keeps_the_composed_steps():
    class Sub(G.Tensor):
        pass

    lstm = G.nn.LSTM(3, 4)
    x = G.randn(5, 2, 3).as_subclass(Sub)
    out, _ = lstm(x)
    assert type(out.grad_fn).__name__ != "MkldnnRnnLayerBackward0"
    plain, _ = lstm(x.as_subclass(G.Tensor))
    _close(out, plain)


def test_native_layer_refuses_what_it_does_not_cover():
    w_ih, w_hh, b = G.randn(16, 3), G.randn(16, 4), G.randn(16)
    h, c = G.zeros(2, 4), G.zeros(2, 4)
    args = (False, False, 1, True)
    assert G._native._lstm_layer(G.randn(5, 2, 3), w_ih, w_hh, b, b, h, c, *args) is not None
    assert G._native._lstm_layer(G.randn(5, 2, 3).double(), w_ih, w_hh, b, b, h, c,
                                 *args) is None
    assert G._native._lstm_layer(G.randn(5, 2, 2), w_ih, w_hh, b, b, h, c, *args) is None
    assert G._native._lstm_layer(G.randn(0, 2, 3), w_ih, w_hh, b, b, h, c, *args) is None
    assert G._native._lstm_layer(G.randn(5, 2, 3), w_ih, w_hh, b, None, h, c, *args) is None
