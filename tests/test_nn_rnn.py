"""gradrs.nn.utils.rnn (PackedSequence and the pad/pack helpers), RNN, LSTM, GRU and their
cells, differential against PyTorch: outputs, hidden states, gradients, state_dicts, reprs,
errors."""

import importlib

import numpy as np
import pytest
from conftest import G, assert_same_values, check_error

pytestmark = [pytest.mark.usefixtures("restore_grad_mode"),
              # PyTorch's note that its oneDNN kernel lacks projections
              pytest.mark.filterwarnings("ignore:LSTM with projections")]

TOL = {"float32": {"rtol": 1e-5, "atol": 1e-6}, "float64": {"rtol": 1e-10, "atol": 1e-12}}


def R(m):
    """``m.nn.utils.rnn`` for either library."""
    return importlib.import_module(m.__name__ + ".nn.utils.rnn")


def _pair(torch, shape, dtype="float64", requires_grad=True, rng=None):
    a = (rng or np.random).standard_normal(shape).astype(dtype)
    return (G.tensor(a, requires_grad=requires_grad),
            torch.tensor(a, requires_grad=requires_grad))


def _close(g, t, dtype="float64"):
    assert_same_values(g.detach(), t.detach(), **TOL[dtype])


def _same_node(g, t):
    """Same grad_fn class as PyTorch's, where PyTorch composes the result too (its oneDNN
    LSTM kernel is one node of its own, MkldnnRnnLayerBackward0)."""
    name = type(t.grad_fn).__name__
    if not name.startswith("Mkldnn"):
        assert type(g.grad_fn).__name__ == name


def _norm_repr(text):
    return text.replace("torch", "gradrs")


# ---- nn.utils.rnn ----------------------------------------------------------------------------


@pytest.mark.parametrize("batch_first", [False, True])
@pytest.mark.parametrize("lengths,enforce_sorted", [([5, 3, 2], True), ([3, 5, 2], False),
                                                    ([5, 5, 5], True), ([1, 4, 2], False)])
def test_pack_pad_round_trip(torch, batch_first, lengths, enforce_sorted):
    rng = np.random.default_rng(1)
    shape = (3, 5, 2) if batch_first else (5, 3, 2)
    gx, tx = _pair(torch, shape, rng=rng)
    gp = R(G).pack_padded_sequence(gx, lengths, batch_first, enforce_sorted)
    tp = torch.nn.utils.rnn.pack_padded_sequence(tx, lengths, batch_first, enforce_sorted)
    assert isinstance(gp, R(G).PackedSequence) and isinstance(gp, tuple)
    assert repr(gp) == _norm_repr(repr(tp))
    go, gl = R(G).pad_packed_sequence(gp, batch_first, padding_value=-2.0, total_length=6)
    to, tl = torch.nn.utils.rnn.pad_packed_sequence(tp, batch_first, padding_value=-2.0,
                                                    total_length=6)
    _close(go, to)
    assert gl.tolist() == tl.tolist() and str(gl.dtype) == "gradrs.int64"
    _same_node(gp.data, tp.data)
    _same_node(go, to)
    w = rng.standard_normal(tuple(to.shape))
    (go * G.tensor(w)).sum().backward()
    (to * torch.tensor(w)).sum().backward()
    _close(gx.grad, tx.grad)


@pytest.mark.parametrize("kw", [{}, {"batch_first": True}, {"padding_value": 3.5},
                                {"padding_side": "left", "batch_first": True},
                                {"padding_side": "left"}])
def test_pad_sequence(torch, kw):
    rng = np.random.default_rng(2)
    pairs = [_pair(torch, (n, 2, 3), rng=rng) for n in (2, 4, 3)]
    go = R(G).pad_sequence([g for g, _ in pairs], **kw)
    to = torch.nn.utils.rnn.pad_sequence([t for _, t in pairs], **kw)
    _close(go, to)
    _same_node(go, to)
    w = rng.standard_normal(tuple(to.shape))
    (go * G.tensor(w)).sum().backward()
    (to * torch.tensor(w)).sum().backward()
    for g, t in pairs:
        _close(g.grad, t.grad)


def test_pack_sequence_and_unpack(torch):
    seqs = [[1, 2, 3], [4, 5], [6]]
    gp = R(G).pack_sequence([G.tensor(s) for s in seqs])
    tp = torch.nn.utils.rnn.pack_sequence([torch.tensor(s) for s in seqs])
    assert repr(gp) == _norm_repr(repr(tp))
    unsorted = [[1, 2], [4, 5, 6], [7]]
    gp = R(G).pack_sequence([G.tensor(s) for s in unsorted], enforce_sorted=False)
    tp = torch.nn.utils.rnn.pack_sequence([torch.tensor(s) for s in unsorted],
                                          enforce_sorted=False)
    assert repr(gp) == _norm_repr(repr(tp))
    assert [s.tolist() for s in R(G).unpack_sequence(gp)] == unsorted
    padded = G.tensor([[1, 2, 0], [4, 5, 6], [7, 0, 0]])
    got = R(G).unpad_sequence(padded, G.tensor([2, 3, 1]), batch_first=True)
    assert [s.tolist() for s in got] == unsorted


def test_packed_sequence_methods():
    p = R(G).pack_sequence([G.tensor([1.0, 2.0]), G.tensor([3.0])])
    assert p.to(G.float32) is p
    d = p.double()
    assert d.data.dtype == G.float64 and d.batch_sizes is p.batch_sizes
    assert p.is_cuda is False
    data, batch_sizes, sorted_indices, unsorted_indices = p
    assert sorted_indices is None and unsorted_indices is None
    perm = G.tensor([2, 0, 1])
    assert R(G).invert_permutation(perm).tolist() == [1, 2, 0]
    assert R(G).invert_permutation(None) is None


@pytest.mark.parametrize("case", range(9))
def test_pack_errors(torch, case):
    def run(m):
        r = R(m)
        x = m.ones(5, 3, 2)
        if case == 0:
            return r.pack_padded_sequence(x, [5, 3, 4])
        if case == 1:
            return r.pack_padded_sequence(x, [5, 3])
        if case == 2:
            return r.pack_padded_sequence(x, [5, 3, 0])
        if case == 3:
            return r.pack_padded_sequence(m.ones(0, 3, 2), [1, 1, 1])
        if case == 4:
            return r.pad_sequence([])
        if case == 5:
            return r.pad_sequence([m.ones(2, 3), m.ones(3, 4)])
        if case == 6:
            return r.pad_sequence([m.ones(2), m.ones(3)], padding_side="middle")
        if case == 7:
            return r.pad_sequence(5)
        p = r.pack_padded_sequence(x, [5, 3, 2])
        return r.pad_packed_sequence(p, total_length=3)

    check_error(run)


# ---- RNN, LSTM, GRU --------------------------------------------------------------------------


def _build(torch, name, args, kw, dtype):
    """The same module in both libraries, gradrs's loaded with PyTorch's state_dict."""
    torch.manual_seed(0)
    t = getattr(torch.nn, name)(*args, **kw).to(getattr(torch, dtype))
    g = getattr(G.nn, name)(*args, **kw).to(getattr(G, dtype))
    sd = t.state_dict()
    gsd = g.state_dict()
    assert list(gsd) == list(sd)
    assert [tuple(v.shape) for v in gsd.values()] == [tuple(v.shape) for v in sd.values()]
    g.load_state_dict({k: G.tensor(v.numpy()) for k, v in sd.items()})
    return g, t


def _flat(h):
    return list(h) if isinstance(h, tuple) else [h]


RECURRENT = [
    ("RNN", (3, 4), {}, (5, 2, 3), False),
    ("RNN", (3, 4, 2), {"nonlinearity": "relu", "bidirectional": True}, (5, 2, 3), True),
    ("RNN", (3, 4), {"bias": False, "batch_first": True}, (2, 5, 3), True),
    ("LSTM", (3, 4), {}, (5, 2, 3), False),
    ("LSTM", (3, 4, 2), {"bidirectional": True, "batch_first": True}, (2, 5, 3), True),
    ("LSTM", (3, 5), {"proj_size": 2, "num_layers": 2}, (4, 3, 3), True),
    ("LSTM", (3, 5), {"proj_size": 3, "bidirectional": True, "bias": False}, (4, 2, 3), False),
    ("LSTM", (3, 4), {"num_layers": 2, "dropout": 0.5}, (4, 2, 3), False),
    ("GRU", (3, 4), {}, (5, 2, 3), True),
    ("GRU", (3, 4, 2), {"bidirectional": True}, (5, 2, 3), False),
    ("GRU", (3, 4), {"batch_first": True, "bias": False}, (2, 5, 3), True),
    ("LSTM", (3, 4), {"bidirectional": True}, (5, 3), True),  # unbatched
    ("GRU", (3, 4), {"num_layers": 2}, (5, 3), True),  # unbatched
    ("RNN", (3, 4), {"batch_first": True}, (5, 3), False),  # unbatched
]


def _zero_state(name, mod, x_shape, batch_first):
    layers = mod.num_layers * (2 if mod.bidirectional else 1)
    lead = (layers,) if len(x_shape) == 2 else (layers, x_shape[0 if batch_first else 1])
    h = lead + ((mod.proj_size or mod.hidden_size) if name == "LSTM" else mod.hidden_size,)
    return [h, lead + (mod.hidden_size,)] if name == "LSTM" else [h]


@pytest.mark.parametrize("dtype", ["float32", "float64"])
@pytest.mark.parametrize("name,args,kw,x_shape,with_h0", RECURRENT)
def test_recurrent_matches_torch(torch, dtype, name, args, kw, x_shape, with_h0):
    rng = np.random.default_rng(3)
    g, t = _build(torch, name, args, kw, dtype)
    g.eval()
    t.eval()  # dropout between layers is off in eval mode
    gx, tx = _pair(torch, x_shape, dtype, rng=rng)
    gh = th = None
    if with_h0:
        states = [_pair(torch, s, dtype, rng=rng)
                  for s in _zero_state(name, t, x_shape, kw.get("batch_first", False))]
        gh = tuple(a for a, _ in states) if name == "LSTM" else states[0][0]
        th = tuple(b for _, b in states) if name == "LSTM" else states[0][1]
    go, gh_n = g(gx, gh)
    to, th_n = t(tx, th)
    _close(go, to, dtype)
    _same_node(go, to)
    assert isinstance(gh_n, tuple) == isinstance(th_n, tuple)
    for a, b in zip(_flat(gh_n), _flat(th_n)):
        _close(a, b, dtype)
        _same_node(a, b)
    loss_g = (go * G.tensor(np.cos(np.arange(go.numel())).reshape(go.shape).astype(dtype))).sum()
    loss_t = (to * torch.tensor(np.cos(np.arange(to.numel())).reshape(to.shape).astype(dtype))
              ).sum()
    for k, (a, b) in enumerate(zip(_flat(gh_n), _flat(th_n))):
        loss_g = loss_g + a.sum() * (k + 2)
        loss_t = loss_t + b.sum() * (k + 2)
    loss_g.backward()
    loss_t.backward()
    _close(gx.grad, tx.grad, dtype)
    if with_h0:
        for a, b in zip(_flat(gh), _flat(th)):
            _close(a.grad, b.grad, dtype)
    for a, b in zip(g.parameters(), t.parameters()):
        _close(a.grad, b.grad, dtype)


@pytest.mark.parametrize("name,kw", [("LSTM", {"num_layers": 2, "bidirectional": True}),
                                     ("LSTM", {"proj_size": 2, "bidirectional": True}),
                                     ("GRU", {"bidirectional": True}),
                                     ("RNN", {"num_layers": 2})])
@pytest.mark.parametrize("with_h0", [False, True])
def test_packed_batch_matches_torch(torch, name, kw, with_h0):
    rng = np.random.default_rng(4)
    g, t = _build(torch, name, (3, 4), kw, "float64")
    lengths = [3, 5, 1, 4]
    gx, tx = _pair(torch, (5, 4, 3), rng=rng)
    gp = R(G).pack_padded_sequence(gx, lengths, enforce_sorted=False)
    tp = torch.nn.utils.rnn.pack_padded_sequence(tx, lengths, enforce_sorted=False)
    gh = th = None
    if with_h0:
        states = [_pair(torch, s, rng=rng) for s in _zero_state(name, t, (5, 4, 3), False)]
        gh = tuple(a for a, _ in states) if name == "LSTM" else states[0][0]
        th = tuple(b for _, b in states) if name == "LSTM" else states[0][1]
    gout, gh_n = g(gp, gh)
    tout, th_n = t(tp, th)
    assert isinstance(gout, R(G).PackedSequence)
    _close(gout.data, tout.data)
    _same_node(gout.data, tout.data)
    assert gout.batch_sizes.tolist() == tout.batch_sizes.tolist()
    assert gout.sorted_indices.tolist() == tout.sorted_indices.tolist()
    assert gout.unsorted_indices.tolist() == tout.unsorted_indices.tolist()
    for a, b in zip(_flat(gh_n), _flat(th_n)):
        _close(a, b)
    gpad, glen = R(G).pad_packed_sequence(gout, batch_first=True)
    tpad, tlen = torch.nn.utils.rnn.pad_packed_sequence(tout, batch_first=True)
    _close(gpad, tpad)
    assert glen.tolist() == tlen.tolist()
    w = np.sin(np.arange(tpad.numel())).reshape(tpad.shape)
    ((gpad * G.tensor(w)).sum() + sum(h.sum() for h in _flat(gh_n))).backward()
    ((tpad * torch.tensor(w)).sum() + sum(h.sum() for h in _flat(th_n))).backward()
    _close(gx.grad, tx.grad)
    if with_h0:
        for a, b in zip(_flat(gh), _flat(th)):
            _close(a.grad, b.grad)
    for a, b in zip(g.parameters(), t.parameters()):
        _close(a.grad, b.grad)


@pytest.mark.parametrize("dtype", ["float32", "float64"])
@pytest.mark.parametrize("name,kw", [("RNNCell", {}), ("RNNCell", {"nonlinearity": "relu"}),
                                     ("LSTMCell", {}), ("LSTMCell", {"bias": False}),
                                     ("GRUCell", {}), ("GRUCell", {"bias": False})])
@pytest.mark.parametrize("batched,with_h0", [(True, True), (True, False), (False, True)])
def test_cells_match_torch(torch, dtype, name, kw, batched, with_h0):
    rng = np.random.default_rng(5)
    g, t = _build(torch, name, (3, 4), kw, dtype)
    lead = (2,) if batched else ()
    gx, tx = _pair(torch, lead + (3,), dtype, rng=rng)
    gh = th = None
    if with_h0:
        states = [_pair(torch, lead + (4,), dtype, rng=rng)
                  for _ in range(2 if name == "LSTMCell" else 1)]
        gh = tuple(a for a, _ in states) if name == "LSTMCell" else states[0][0]
        th = tuple(b for _, b in states) if name == "LSTMCell" else states[0][1]
    gout, tout = g(gx, gh), t(tx, th)
    assert isinstance(gout, tuple) == isinstance(tout, tuple)
    for a, b in zip(_flat(gout), _flat(tout)):
        _close(a, b, dtype)
        _same_node(a, b)
    sum(a.sum() * (k + 1) for k, a in enumerate(_flat(gout))).backward()
    sum(b.sum() * (k + 1) for k, b in enumerate(_flat(tout))).backward()
    _close(gx.grad, tx.grad, dtype)
    if with_h0:
        for a, b in zip(_flat(gh), _flat(th)):
            _close(a.grad, b.grad, dtype)
    for a, b in zip(g.parameters(), t.parameters()):
        _close(a.grad, b.grad, dtype)


@pytest.mark.parametrize("name,args,kw", [
    ("RNN", (3, 4), {}), ("RNN", (3, 4, 2), {"nonlinearity": "relu", "dropout": 0.25}),
    ("LSTM", (3, 5), {"proj_size": 2, "bias": False, "batch_first": True}),
    ("LSTM", (3, 5, 3), {"bidirectional": True}), ("GRU", (2, 3), {"num_layers": 2}),
    ("RNNCell", (3, 4), {"nonlinearity": "relu", "bias": False}), ("LSTMCell", (3, 4), {}),
    ("GRUCell", (3, 4), {"bias": False})])
def test_repr_state_dict_and_init(torch, name, args, kw):
    g, t = getattr(G.nn, name)(*args, **kw), getattr(torch.nn, name)(*args, **kw)
    assert repr(g) == repr(t)
    assert [(k, tuple(v.shape)) for k, v in g.state_dict().items()] == [
        (k, tuple(v.shape)) for k, v in t.state_dict().items()]
    bound = 1 / np.sqrt(t.hidden_size)
    for p in g.parameters():
        assert p.requires_grad and np.abs(p.detach().numpy()).max() <= bound
    if not name.endswith("Cell"):
        assert g._all_weights == t._all_weights
        assert [[tuple(p.shape) for p in ws] for ws in g.all_weights] == [
            [tuple(p.shape) for p in ws] for ws in t.all_weights]
        assert g.flatten_parameters() is None


def test_dropout_between_layers_in_training():
    lstm = G.nn.LSTM(3, 4, num_layers=3, dropout=0.5)
    x = G.randn(5, 2, 3)
    G.manual_seed(7)
    a, _ = lstm(x)
    G.manual_seed(7)
    b, _ = lstm(x)
    assert np.array_equal(a.detach().numpy(), b.detach().numpy())
    lstm.eval()
    c, _ = lstm(x)
    assert not np.allclose(a.detach().numpy(), c.detach().numpy())
    lstm.train()
    G.manual_seed(7)
    lstm.dropout = 0.0
    d, _ = lstm(x)
    assert np.allclose(c.detach().numpy(), d.detach().numpy())


def test_module_conversion_keeps_flat_weights(torch):
    g, t = _build(torch, "GRU", (3, 4), {"num_layers": 2}, "float32")
    g.double()
    t.double()
    assert all(w.dtype == G.float64 for w in g._flat_weights)
    x = np.random.default_rng(6).standard_normal((4, 2, 3))
    _close(g(G.tensor(x))[0], t(torch.tensor(x))[0])


def test_dropout_warning(torch):
    from conftest import check_warning

    check_warning(lambda m: m.nn.LSTM(3, 4, dropout=0.3))
    check_warning(lambda m: m.nn.GRU(3, 4, num_layers=2, dropout=0.3))


RECURRENT_ERRORS = [
    lambda m: m.nn.LSTM(4, 5)(m.randn(2, 3, 3)),
    lambda m: m.nn.GRU(3, 5)(m.randn(2, 3, 3), m.zeros(1, 2, 5)),
    lambda m: m.nn.LSTM(3, 5)(m.randn(2, 3, 3), (m.zeros(1, 3, 5), m.zeros(1, 3, 4))),
    lambda m: m.nn.LSTM(3, 5)(m.randn(2, 3, 3), (m.zeros(3, 5), m.zeros(3, 5))),
    lambda m: m.nn.LSTM(3, 5)(m.randn(3, 3), (m.zeros(1, 3, 5), m.zeros(1, 3, 5))),
    lambda m: m.nn.RNN(3, 5)(m.randn(2, 3, 3), m.zeros(3, 5)),
    lambda m: m.nn.RNN(3, 5)(m.randn(3, 3), m.zeros(1, 3, 5)),
    lambda m: m.nn.RNN(3, 5)(m.randn(2, 3, 3, 1)),
    lambda m: m.nn.LSTM(3, 5)(m.randn(3)),
    lambda m: m.nn.GRU(3, 5)(m.randn(2, 3, 3, 3)),
    lambda m: m.nn.LSTM(3, 5)(m.randn(2, 3, 3).double()),
    lambda m: m.nn.LSTM(3, 5, proj_size=5),
    lambda m: m.nn.LSTM(3, 5, proj_size=-1),
    lambda m: m.nn.GRU(3, 5, proj_size=2),
    lambda m: m.nn.RNN(3, 5, nonlinearity="sigmoid"),
    lambda m: m.nn.RNN(3, 5, dropout=1.5),
    lambda m: m.nn.LSTM(3, 5, bias=1),
    lambda m: m.nn.LSTM(0, 5),
    lambda m: m.nn.LSTM(3, 5, num_layers=0),
    lambda m: m.nn.LSTM(3.0, 5),
    lambda m: m.nn.LSTMCell(4, 5)(m.randn(2, 3)),
    lambda m: m.nn.LSTMCell(4, 5)(m.randn(2, 4), (m.randn(3, 5), m.randn(2, 5))),
    lambda m: m.nn.LSTMCell(4, 5)(m.randn(2, 4), (m.randn(2, 5), m.randn(2, 6))),
    lambda m: m.nn.GRUCell(4, 5)(m.randn(2, 4), m.randn(2, 6)),
    lambda m: m.nn.RNNCell(4, 5)(m.randn(2, 4), m.randn(3, 5)),
    lambda m: m.nn.RNNCell(4, 5, nonlinearity="sigmoid")(m.randn(2, 4)),
    lambda m: m.nn.GRUCell(4, 5)(m.randn(2, 2, 4)),
    lambda m: m.nn.LSTMCell(4, 5)(m.randn(4), (m.randn(2, 1, 5), m.randn(5))),
]


@pytest.mark.parametrize("case", range(len(RECURRENT_ERRORS)))
def test_recurrent_errors(torch, case):
    check_error(RECURRENT_ERRORS[case])


def _gpu_or_skip():
    if not G.gpu.is_available():
        pytest.skip("no GPU adapter")


def test_recurrent_on_gpu_stays_there():
    _gpu_or_skip()
    G.manual_seed(0)
    lstm = G.nn.LSTM(4, 5, 2, bidirectional=True, batch_first=True)
    x = G.randn(3, 6, 4)
    ref, (ref_h, _) = lstm(x)
    gpu = lstm.to("gpu")
    xg = x.to("gpu")
    downloads = G.gpu.transfer_counts()[0]
    out, (h, _) = gpu(xg)
    out.sum().backward()
    packed, _ = gpu(R(G).pack_padded_sequence(xg, [6, 4, 2], batch_first=True))
    packed.data.sum().backward()
    assert G.gpu.transfer_counts()[0] == downloads  # no host round trip
    assert out.device.type == "gpu" and packed.data.device.type == "gpu"
    np.testing.assert_allclose(out.cpu().detach().numpy(), ref.detach().numpy(), rtol=1e-5,
                               atol=1e-6)
    np.testing.assert_allclose(h.cpu().detach().numpy(), ref_h.detach().numpy(), rtol=1e-5,
                               atol=1e-6)
