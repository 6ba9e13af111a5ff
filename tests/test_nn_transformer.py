"""F.scaled_dot_product_attention, F.multi_head_attention_forward, MultiheadAttention and the
Transformer modules, differential against PyTorch (values, gradients, state_dicts, reprs, errors)."""

import numpy as np
import pytest
from conftest import G, assert_same_values, check_error

pytestmark = [pytest.mark.usefixtures("restore_grad_mode"),
              # PyTorch's (and gradrs's) note that the nested-tensor path is off
              pytest.mark.filterwarnings("ignore:enable_nested_tensor is True"),
              # PyTorch's, from the nested tensors of its inference path
              pytest.mark.filterwarnings("ignore:The PyTorch API of nested tensors")]

F = G.nn.functional
TOL = {"float16": {"rtol": 4e-3, "atol": 1e-3}, "float32": {"rtol": 1e-5, "atol": 1e-6},
       "float64": {"rtol": 1e-10, "atol": 1e-12}}


def _pair(torch, shape, dtype="float64", requires_grad=True, rng=None, scale=1.0):
    a = ((rng or np.random).standard_normal(shape) * scale).astype(dtype)
    return (G.tensor(a, requires_grad=requires_grad),
            torch.tensor(a, requires_grad=requires_grad))


def _close(g, t, dtype):
    assert_same_values(g.detach(), t.detach(), **TOL[dtype])


# ---- scaled_dot_product_attention ----------------------------------------------------------


@pytest.mark.parametrize("dtype", ["float16", "float32", "float64"])
@pytest.mark.parametrize("case", ["plain", "causal", "scale", "neg_scale", "bool_mask",
                                  "float_mask", "masked_row", "broadcast_heads", "gqa",
                                  "unbatched", "causal_rect"])
def test_sdpa_matches_torch(torch, dtype, case):
    rng = np.random.default_rng(0)
    lq, s = (4, 6) if case != "causal_rect" else (5, 3)
    q_shape, k_shape, v_shape = (2, 4, lq, 5), (2, 4, s, 5), (2, 4, s, 7)
    if case == "broadcast_heads":
        k_shape, v_shape = (2, 1, s, 5), (2, 1, s, 7)
    if case == "gqa":
        k_shape, v_shape = (2, 2, s, 5), (2, 2, s, 7)
    if case == "unbatched":
        q_shape, k_shape, v_shape = (lq, 5), (s, 5), (s, 7)
    (gq, tq), (gk, tk), (gv, tv) = (_pair(torch, sh, dtype, rng=rng)
                                    for sh in (q_shape, k_shape, v_shape))
    kw, gm, tm = {}, None, None
    if case in ("causal", "causal_rect"):
        kw["is_causal"] = True
    if case == "scale":
        kw["scale"] = 0.3
    if case == "neg_scale":
        kw["scale"] = -0.7
    if case == "gqa":
        kw["enable_gqa"] = True
    if case in ("bool_mask", "masked_row"):
        m = rng.random((lq, s)) > 0.3
        m[:, 0] = True
        if case == "masked_row":
            m[1] = False  # a query that may attend nothing: zeros, zero gradients
        gm, tm = G.tensor(m), torch.tensor(m)
    if case == "float_mask":
        m = rng.standard_normal((2, 1, lq, s)).astype(dtype)
        gm, tm = G.tensor(m), torch.tensor(m)
    go = F.scaled_dot_product_attention(gq, gk, gv, gm, **kw)
    to = torch.nn.functional.scaled_dot_product_attention(tq, tk, tv, tm, **kw)
    _close(go, to, dtype)
    assert type(go.grad_fn).__name__ == type(to.grad_fn).__name__
    w = rng.standard_normal(tuple(to.shape)).astype(dtype)
    (go * G.tensor(w)).sum().backward()
    (to * torch.tensor(w)).sum().backward()
    for g, t in ((gq, tq), (gk, tk), (gv, tv)):
        _close(g.grad, t.grad, dtype)


def test_sdpa_dropout():
    q = G.randn(2, 3, 4, 5)
    k = G.randn(2, 3, 6, 5)
    v = G.randn(2, 3, 6, 7)
    plain = F.scaled_dot_product_attention(q, k, v)
    G.manual_seed(3)
    a = F.scaled_dot_product_attention(q, k, v, dropout_p=0.5)
    G.manual_seed(3)
    b = F.scaled_dot_product_attention(q, k, v, dropout_p=0.5)
    assert np.array_equal(a.numpy(), b.numpy())
    assert not np.allclose(a.numpy(), plain.numpy())
    dead = F.scaled_dot_product_attention(q, k, v, dropout_p=1.0)
    assert np.array_equal(dead.numpy(), np.zeros((2, 3, 4, 7), np.float32))


@pytest.mark.parametrize("case", range(7))
def test_sdpa_errors(torch, case):
    def run(m):
        q, k, v = m.randn(2, 3, 4, 5), m.randn(2, 3, 6, 5), m.randn(2, 3, 6, 7)
        f = m.nn.functional.scaled_dot_product_attention
        if case == 0:
            return f(q, k, v, m.ones(4, 6, dtype=m.bool), is_causal=True)
        if case == 1:
            return f(q, k.double(), v)
        if case == 2:
            return f(q, k, v, m.ones(4, 6, dtype=m.int64))
        if case == 3:
            return f(q, k, v, m.ones(4, 6, dtype=m.float64))
        if case == 4:
            return f(m.randn(5), m.randn(5), m.randn(5))
        if case == 5:
            return f(q, k, m.randn(2, 3, 5, 7))
        return f(q, k, v, dropout_p=1.5)

    check_error(run)


# ---- modules ---------------------------------------------------------------------------------


def _build(torch, name, args, kw, dtype="float64"):
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


def _node(t):
    return type(t.grad_fn).__name__


def _weights(shape, dtype):
    return np.cos(np.arange(int(np.prod(shape)))).reshape(shape).astype(dtype)


def _backward_both(go, to, dtype):
    w = _weights(tuple(to.shape), dtype)
    (go * G.tensor(w)).sum().backward()
    (to * to.new_tensor(w)).sum().backward()


def _check_grads(g, t, pairs, dtype):
    for a, b in pairs:
        _close(a.grad, b.grad, dtype)
    for (n, a), (_, b) in zip(g.named_parameters(), t.named_parameters()):
        if b.grad is None:
            assert a.grad is None, n
        else:
            _close(a.grad, b.grad, dtype)


def _mask(torch, shape, kind, rng, dtype):
    """A mask pair: bool (True = masked out, as MultiheadAttention reads it) or float."""
    if kind == "bool":
        m = rng.random(shape) < 0.3
        m[..., 0] = False  # every query keeps one key
        return G.tensor(m), torch.tensor(m)
    m = rng.standard_normal(shape).astype(dtype)
    return G.tensor(m), torch.tensor(m)


MHA_CASES = [
    # (constructor kwargs, L, S, self-attention, forward options)
    ({}, 4, 4, True, {}),
    ({}, 4, 4, True, {"need_weights": False}),
    ({}, 4, 6, False, {"average_attn_weights": False}),
    ({"batch_first": True}, 4, 4, True, {"kpm": "bool", "mask": "bool"}),
    ({"batch_first": True}, 3, 5, False, {"kpm": "float", "mask": "float3d",
                                           "need_weights": False}),
    ({"kdim": 3, "vdim": 5}, 4, 6, False, {"mask": "bool"}),
    ({"kdim": 3, "vdim": 5, "batch_first": True}, 4, 6, False, {"need_weights": False}),
    ({"add_bias_kv": True, "add_zero_attn": True}, 4, 4, True, {"kpm": "bool", "mask": "bool"}),
    ({"add_bias_kv": True}, 4, 6, False, {"need_weights": False, "mask": "float"}),
    ({"bias": False}, 4, 4, True, {"kpm": "bool"}),
    ({}, 4, 4, True, {"mask": "causal", "is_causal": True, "need_weights": False}),
    ({}, 4, 4, True, {"unbatched": True, "mask": "float3d", "kpm": "float"}),
    ({"batch_first": True}, 4, 5, False, {"unbatched": True, "need_weights": False}),
]


@pytest.mark.parametrize("dtype", ["float32", "float64"])
@pytest.mark.parametrize("case", range(len(MHA_CASES)))
def test_multihead_attention_matches_torch(torch, dtype, case):
    kw, lq, s, self_attn, opts = MHA_CASES[case]
    opts = dict(opts)
    rng = np.random.default_rng(case)
    e, heads, n = 8, 2, 3
    g, t = _build(torch, "MultiheadAttention", (e, heads), kw, dtype)
    unbatched = opts.pop("unbatched", False)
    bf = kw.get("batch_first", False)

    def shape(length, dim):
        if unbatched:
            return (length, dim)
        return (n, length, dim) if bf else (length, n, dim)

    gq, tq = _pair(torch, shape(lq, e), dtype, rng=rng)
    pairs = [(gq, tq)]
    if self_attn:
        gk = gv = gq
        tk = tv = tq
    else:
        (gk, tk), (gv, tv) = (_pair(torch, shape(s, kw.get(d, e)), dtype, rng=rng)
                              for d in ("kdim", "vdim"))
        pairs += [(gk, tk), (gv, tv)]
    fkw_g, fkw_t = {}, {}
    kpm = opts.pop("kpm", None)
    if kpm:
        fkw_g["key_padding_mask"], fkw_t["key_padding_mask"] = _mask(
            torch, (s,) if unbatched else (n, s), kpm, rng, dtype)
    mask = opts.pop("mask", None)
    if mask == "causal":
        fkw_g["attn_mask"] = G.nn.Transformer.generate_square_subsequent_mask(
            lq, dtype=getattr(G, dtype))
        fkw_t["attn_mask"] = torch.nn.Transformer.generate_square_subsequent_mask(
            lq, dtype=getattr(torch, dtype))
    elif mask == "float3d":
        batch = 1 if unbatched else n
        fkw_g["attn_mask"], fkw_t["attn_mask"] = _mask(torch, (batch * heads, lq, s), "float",
                                                       rng, dtype)
    elif mask:
        fkw_g["attn_mask"], fkw_t["attn_mask"] = _mask(torch, (lq, s), mask, rng, dtype)
    go, gw = g(gq, gk, gv, **fkw_g, **opts)
    to, tw = t(tq, tk, tv, **fkw_t, **opts)
    _close(go, to, dtype)
    assert _node(go) == _node(to)
    if tw is None:
        assert gw is None
    else:
        _close(gw, tw, dtype)
        assert _node(gw) == _node(tw)
    _backward_both(go, to, dtype)
    _check_grads(g, t, pairs, dtype)


ENCODER_CASES = [
    ("TransformerEncoderLayer", (8, 2, 16, 0.0), {}, {}),
    ("TransformerEncoderLayer", (8, 2, 16, 0.0), {"norm_first": True, "activation": "gelu",
                                                  "batch_first": True}, {"kpm": True}),
    ("TransformerEncoderLayer", (8, 2, 16, 0.0), {"bias": False}, {"mask": True}),
    ("TransformerEncoderLayer", (8, 2, 16, 0.0), {"activation": "callable"}, {}),
    ("TransformerDecoderLayer", (8, 2, 16, 0.0), {}, {"mask": True, "kpm": True}),
    ("TransformerDecoderLayer", (8, 2, 16, 0.0), {"norm_first": True, "batch_first": True},
     {"causal": True}),
    ("Transformer", (8, 2, 2, 2, 16, 0.0), {}, {"mask": True, "kpm": True}),
    ("Transformer", (8, 2, 1, 2, 16, 0.0), {"norm_first": True, "batch_first": True,
                                            "activation": "gelu"}, {"causal": True}),
]


def _activation(m, kw):
    kw = dict(kw)
    if kw.get("activation") == "callable":
        kw["activation"] = m.nn.functional.silu
    return kw


@pytest.mark.parametrize("dtype", ["float32", "float64"])
@pytest.mark.parametrize("case", range(len(ENCODER_CASES)))
def test_transformer_layers_match_torch(torch, dtype, case):
    name, args, kw, opts = ENCODER_CASES[case]
    rng = np.random.default_rng(10 + case)
    torch.manual_seed(0)
    t = getattr(torch.nn, name)(*args, **_activation(torch, kw)).to(getattr(torch, dtype))
    g = getattr(G.nn, name)(*args, **_activation(G, kw)).to(getattr(G, dtype))
    g.load_state_dict({k: G.tensor(v.numpy()) for k, v in t.state_dict().items()})
    bf = kw.get("batch_first", False)
    n, ls, lt, e = 2, 5, 4, 8

    def shape(length):
        return (n, length, e) if bf else (length, n, e)

    gs, ts = _pair(torch, shape(ls), dtype, rng=rng)
    pairs = [(gs, ts)]
    fg, ft = {}, {}
    decoder = name != "TransformerEncoderLayer"
    tgt_len = lt if decoder else ls
    if decoder:
        gt_, tt_ = _pair(torch, shape(lt), dtype, rng=rng)
        pairs.append((gt_, tt_))
    if opts.get("causal"):
        key = "tgt_mask"
        fg[key] = G.nn.Transformer.generate_square_subsequent_mask(tgt_len,
                                                                   dtype=getattr(G, dtype))
        ft[key] = torch.nn.Transformer.generate_square_subsequent_mask(
            tgt_len, dtype=getattr(torch, dtype))
        if name == "TransformerDecoderLayer":
            fg["tgt_is_causal"] = ft["tgt_is_causal"] = True
    if opts.get("mask"):
        key = "src_mask" if name != "TransformerDecoderLayer" else "memory_mask"
        shape_m = (ls, ls) if name != "TransformerDecoderLayer" else (lt, ls)
        fg[key], ft[key] = _mask(torch, shape_m, "bool", rng, dtype)
    if opts.get("kpm"):
        key = ("src_key_padding_mask" if name != "TransformerDecoderLayer"
               else "memory_key_padding_mask")
        fg[key], ft[key] = _mask(torch, (n, ls), "bool", rng, dtype)
    if name == "TransformerEncoderLayer":
        go, to = g(gs, **fg), t(ts, **ft)
    elif name == "TransformerDecoderLayer":
        go, to = g(pairs[1][0], gs, **fg), t(pairs[1][1], ts, **ft)
    else:
        go, to = g(gs, pairs[1][0], **fg), t(ts, pairs[1][1], **ft)
    _close(go, to, dtype)
    assert _node(go) == _node(to)
    _backward_both(go, to, dtype)
    _check_grads(g, t, pairs, dtype)


@pytest.mark.parametrize("dtype", ["float32", "float64"])
@pytest.mark.parametrize("stack", ["encoder", "decoder"])
def test_transformer_stacks_match_torch(torch, dtype, stack):
    rng = np.random.default_rng(20)

    def make(m):
        m.manual_seed(0)
        if stack == "encoder":
            layer = m.nn.TransformerEncoderLayer(8, 2, 16, 0.0, batch_first=True)
            return m.nn.TransformerEncoder(layer, 2, norm=m.nn.LayerNorm(8))
        layer = m.nn.TransformerDecoderLayer(8, 2, 16, 0.0)
        return m.nn.TransformerDecoder(layer, 3)

    t = make(torch).to(getattr(torch, dtype))
    g = make(G).to(getattr(G, dtype))
    assert repr(g) == repr(t)
    assert list(g.state_dict()) == list(t.state_dict())
    g.load_state_dict({k: G.tensor(v.numpy()) for k, v in t.state_dict().items()})
    gs, ts = _pair(torch, (2, 5, 8) if stack == "encoder" else (5, 2, 8), dtype, rng=rng)
    if stack == "encoder":
        gm, tm = _mask(torch, (2, 5), "bool", rng, dtype)
        go = g(gs, src_key_padding_mask=gm)
        to = t(ts, src_key_padding_mask=tm)
        pairs = [(gs, ts)]
    else:
        gt_, tt_ = _pair(torch, (4, 2, 8), dtype, rng=rng)
        go = g(gt_, gs, tgt_mask=G.nn.Transformer.generate_square_subsequent_mask(4).to(
            getattr(G, dtype)))
        to = t(tt_, ts, tgt_mask=torch.nn.Transformer.generate_square_subsequent_mask(4).to(
            getattr(torch, dtype)))
        pairs = [(gs, ts), (gt_, tt_)]
    _close(go, to, dtype)
    _backward_both(go, to, dtype)
    _check_grads(g, t, pairs, dtype)


@pytest.mark.parametrize("name,args,kw", [
    ("MultiheadAttention", (8, 2), {}),
    ("MultiheadAttention", (8, 4), {"kdim": 3, "vdim": 5, "bias": False}),
    ("MultiheadAttention", (6, 3), {"add_bias_kv": True, "dropout": 0.1}),
    ("TransformerEncoderLayer", (8, 2), {"dim_feedforward": 16, "bias": False}),
    ("TransformerDecoderLayer", (8, 2), {"dim_feedforward": 16, "norm_first": True}),
    ("Transformer", (8, 2, 2, 3, 16), {"batch_first": True}),
])
def test_repr_and_state_dict(torch, name, args, kw):
    g = getattr(G.nn, name)(*args, **kw)
    t = getattr(torch.nn, name)(*args, **kw)
    assert repr(g) == repr(t)
    assert [(k, tuple(v.shape)) for k, v in g.state_dict().items()] == [
        (k, tuple(v.shape)) for k, v in t.state_dict().items()]


def test_initialisation():
    mha = G.nn.MultiheadAttention(8, 2, add_bias_kv=True)
    assert np.all(mha.in_proj_bias.detach().numpy() == 0)
    assert np.all(mha.out_proj.bias.detach().numpy() == 0)
    bound = np.sqrt(6 / (8 + 24))  # xavier_uniform_ of the (24, 8) in_proj_weight
    assert np.abs(mha.in_proj_weight.detach().numpy()).max() <= bound
    model = G.nn.Transformer(8, 2, 1, 1, 16)
    for name, p in model.named_parameters():
        if p.dim() > 1:
            fan_out, fan_in = p.shape[0], p.shape[1]
            assert np.abs(p.detach().numpy()).max() <= np.sqrt(6 / (fan_in + fan_out)), name


def test_layers_are_deep_copies():
    layer = G.nn.TransformerEncoderLayer(8, 2, 16, batch_first=True)
    enc = G.nn.TransformerEncoder(layer, 2, enable_nested_tensor=False)
    assert enc.layers[0] is not layer and enc.layers[0] is not enc.layers[1]
    with G.no_grad():
        enc.layers[0].linear1.weight.fill_(1.0)
    assert not np.all(enc.layers[1].linear1.weight.detach().numpy() == 1.0)
    assert not np.all(layer.linear1.weight.detach().numpy() == 1.0)


def test_generate_square_subsequent_mask(torch):
    g = G.nn.Transformer.generate_square_subsequent_mask(4)
    t = torch.nn.Transformer.generate_square_subsequent_mask(4)
    assert_same_values(g, t)
    g = G.nn.Transformer.generate_square_subsequent_mask(3, dtype=G.float64)
    assert g.dtype == G.float64


def test_attention_dropout_in_training():
    mha = G.nn.MultiheadAttention(8, 2, dropout=0.5)
    x = G.randn(4, 2, 8)
    G.manual_seed(1)
    a = mha(x, x, x)[0]
    G.manual_seed(1)
    b = mha(x, x, x)[0]
    assert np.array_equal(a.detach().numpy(), b.detach().numpy())
    mha.eval()
    c = mha(x, x, x)[0]
    assert not np.allclose(a.detach().numpy(), c.detach().numpy())


def test_warnings(torch):
    from conftest import check_warning

    check_warning(lambda m: m.nn.TransformerEncoder(m.nn.TransformerEncoderLayer(8, 2, 16), 1))
    check_warning(lambda m: m.nn.TransformerEncoder(
        m.nn.TransformerEncoderLayer(8, 2, 16, batch_first=True, norm_first=True), 1))
    check_warning(lambda m: m.nn.TransformerEncoder(
        m.nn.TransformerEncoderLayer(6, 3, 16, batch_first=True), 1))
    check_warning(lambda m: m.nn.TransformerEncoder(
        m.nn.TransformerEncoderLayer(8, 2, 16, batch_first=True), 1))

    def mismatched(m):
        mha = m.nn.MultiheadAttention(4, 2)
        x = m.ones(3, 1, 4)
        return mha(x, x, x, key_padding_mask=m.zeros(1, 3, dtype=m.bool),
                   attn_mask=m.zeros(3, 3))[0].shape

    check_warning(mismatched)


def _mha_call(m, q_shape, k_shape=None, v_shape=None, **kw):
    mha = m.nn.MultiheadAttention(4, 2)
    q = m.ones(*q_shape)
    k = m.ones(*(k_shape or q_shape))
    v = m.ones(*(v_shape or k_shape or q_shape))
    return mha(q, k, v, **kw)


TRANSFORMER_ERRORS = [
    lambda m: m.nn.MultiheadAttention(0, 2),
    lambda m: m.nn.MultiheadAttention(6, 4),
    lambda m: _mha_call(m, (3, 2, 4), (3, 4)),
    lambda m: _mha_call(m, (3, 4), (3, 2, 4)),
    lambda m: _mha_call(m, (3, 1, 2, 4)),
    lambda m: _mha_call(m, (3, 2, 4), key_padding_mask=m.zeros(3, dtype=m.bool)),
    lambda m: _mha_call(m, (3, 2, 4), attn_mask=m.zeros(4, 3, dtype=m.bool)),
    lambda m: _mha_call(m, (3, 2, 4), attn_mask=m.zeros(5, 3, 3, dtype=m.bool)),
    lambda m: _mha_call(m, (3, 2, 4), attn_mask=m.zeros(1, 1, 3, 3)),
    lambda m: _mha_call(m, (3, 4), attn_mask=m.zeros(3, 3, 3)),
    lambda m: _mha_call(m, (3, 2, 4), attn_mask=m.zeros(3, 3, dtype=m.int64)),
    lambda m: _mha_call(m, (3, 2, 4), is_causal=True),
    lambda m: _mha_call(m, (3, 2, 4), (5, 2, 4), (4, 2, 4)),
    lambda m: _mha_call(m, (3, 2, 4), key_padding_mask=m.zeros(2, 4, dtype=m.bool)),
    lambda m: _mha_call(m, (3, 2, 5)),
    lambda m: m.nn.MultiheadAttention(4, 2, kdim=3, vdim=5)(m.ones(3, 2, 4), m.ones(5, 2, 3),
                                                          m.ones(4, 2, 5)),
    lambda m: m.nn.TransformerEncoderLayer(8, 2, 16, activation="tanh"),
    lambda m: m.nn.Transformer(8, 2, 1, 1, 16)(m.ones(3, 2, 8), m.ones(3, 1, 8)),
    lambda m: m.nn.Transformer(8, 2, 1, 1, 16, batch_first=True)(m.ones(3, 2, 8),
                                                                  m.ones(2, 2, 8)),
    lambda m: m.nn.Transformer(8, 2, 1, 1, 16)(m.ones(3, 2, 8), m.ones(3, 2, 6)),
]


@pytest.mark.parametrize("case", range(len(TRANSFORMER_ERRORS)))
def test_transformer_errors(torch, case):
    check_error(TRANSFORMER_ERRORS[case])


@pytest.mark.parametrize("dtype", ["float32", "float64"])
@pytest.mark.parametrize("case", ["static_kv", "separate", "need_weights_dropout_off"])
def test_multi_head_attention_forward_matches_torch(torch, dtype, case):
    rng = np.random.default_rng(30)
    e, heads, n, lq, s = 6, 3, 2, 4, 5
    pg, pt = {}, {}
    shapes = {"in_proj_weight": (3 * e, e), "in_proj_bias": (3 * e,),
              "out_proj_weight": (e, e), "out_proj_bias": (e,)}
    if case == "separate":
        shapes.update(q_proj_weight=(e, e), k_proj_weight=(e, 4), v_proj_weight=(e, 7))
    if case == "static_kv":
        shapes.update(static_k=(n * heads, s, e // heads), static_v=(n * heads, s, e // heads))
    for name, shape in shapes.items():
        # weights of xavier's scale keep the float32 comparison well conditioned
        pg[name], pt[name] = _pair(torch, shape, dtype, rng=rng, scale=0.4)
    (gq, tq), (gk, tk), (gv, tv) = (
        _pair(torch, sh, dtype, rng=rng)
        for sh in ((lq, n, e), (s, n, 4 if case == "separate" else e),
                   (s, n, 7 if case == "separate" else e)))

    def call(f, q, k, v, p):
        extra = {}
        if case == "separate":
            extra = {"use_separate_proj_weight": True, "q_proj_weight": p["q_proj_weight"],
                     "k_proj_weight": p["k_proj_weight"], "v_proj_weight": p["v_proj_weight"]}
        if case == "static_kv":
            extra = {"static_k": p["static_k"], "static_v": p["static_v"]}
        return f(q, k, v, e, heads, p["in_proj_weight"], p["in_proj_bias"], None, None, False,
                 0.5, p["out_proj_weight"], p["out_proj_bias"], training=False,
                 need_weights=case != "static_kv", **extra)

    go, gw = call(F.multi_head_attention_forward, gq, gk, gv, pg)
    to, tw = call(torch.nn.functional.multi_head_attention_forward, tq, tk, tv, pt)
    _close(go, to, dtype)
    if tw is not None:
        _close(gw, tw, dtype)
    _backward_both(go, to, dtype)
    for name in pg:
        if pt[name].grad is None:
            assert pg[name].grad is None, name
        else:
            _close(pg[name].grad, pt[name].grad, dtype)
    for a, b in ((gq, tq), (gk, tk), (gv, tv)):
        if b.grad is not None:
            _close(a.grad, b.grad, dtype)


@pytest.mark.parametrize("norm", [False, True])
@pytest.mark.parametrize("kpm", [[[0] * 5, [0] * 3 + [1] * 2, [0] * 4 + [1]],  # left aligned
                                 [[0] * 5, [1] + [0] * 3 + [1], [0] * 5]])
def test_encoder_inference_with_padding(torch, norm, kpm):
    # In eval mode without grad PyTorch runs a left-aligned padded batch as a nested tensor:
    # the padded positions come out as zeros (norm(0) with a final norm).
    def make(m):
        m.manual_seed(0)
        layer = m.nn.TransformerEncoderLayer(8, 2, 16, 0.0, batch_first=True)
        return m.nn.TransformerEncoder(layer, 2, norm=m.nn.LayerNorm(8) if norm else None)

    t = make(torch).eval()
    g = make(G).eval()
    g.load_state_dict({k: G.tensor(v.numpy()) for k, v in t.state_dict().items()})
    x = np.random.default_rng(40).standard_normal((3, 5, 8)).astype("float32")
    mask = np.array(kpm, bool)
    with torch.no_grad():
        to = t(torch.tensor(x), src_key_padding_mask=torch.tensor(mask))
    with G.no_grad():
        go = g(G.tensor(x), src_key_padding_mask=G.tensor(mask))
    _close(go, to, "float32")
    go = g(G.tensor(x), src_key_padding_mask=G.tensor(mask))  # with grad: the general path
    to = t(torch.tensor(x), src_key_padding_mask=torch.tensor(mask))
    _close(go, to, "float32")


@pytest.mark.parametrize("norm_first", [False, True])
@pytest.mark.parametrize("kpm", [None, [[0] * 5, [0] * 3 + [1] * 2, [1, 0, 0, 0, 1]],
                                 [[0] * 5, [1] * 5, [0] * 5]])
@pytest.mark.parametrize("causal", [False, True])
def test_encoder_layer_inference_with_masks(torch, norm_first, kpm, causal):
    # PyTorch's fused inference kernel gives NaN rows where a query may attend no key (its
    # general path, and gradrs's, give zeros there); values elsewhere are the same.
    def make(m):
        m.manual_seed(0)
        return m.nn.TransformerEncoderLayer(8, 2, 16, 0.0, batch_first=True,
                                            norm_first=norm_first).eval()

    t, g = make(torch), make(G)
    g.load_state_dict({k: G.tensor(v.numpy()) for k, v in t.state_dict().items()})
    x = np.random.default_rng(41).standard_normal((3, 5, 8)).astype("float32")
    kw_g, kw_t = {}, {}
    if kpm is not None:
        kw_g["src_key_padding_mask"] = G.tensor(np.array(kpm, bool))
        kw_t["src_key_padding_mask"] = torch.tensor(np.array(kpm, bool))
    if causal:
        m = np.triu(np.ones((5, 5), bool), 1)
        kw_g["src_mask"], kw_t["src_mask"] = G.tensor(m), torch.tensor(m)
    with torch.no_grad():
        to = t(torch.tensor(x), **kw_t)
    with G.no_grad():
        go = g(G.tensor(x), **kw_g)
    _close(go, to, "float32")


def test_transformer_on_gpu_stays_there():
    if not G.gpu.is_available():
        pytest.skip("no GPU adapter")
    G.manual_seed(0)
    model = G.nn.Transformer(8, 2, 1, 1, 16, 0.0, batch_first=True)
    src, tgt = G.randn(2, 5, 8), G.randn(2, 4, 8)
    mask = G.nn.Transformer.generate_square_subsequent_mask(4)
    kpm = G.tensor([[False] * 5, [False] * 3 + [True] * 2])
    ref = model(src, tgt, tgt_mask=mask, tgt_is_causal=True, src_key_padding_mask=kpm)
    model.to("gpu")
    args = [t.to("gpu") for t in (src, tgt, mask, kpm)]
    downloads = G.gpu.transfer_counts()[0]
    out = model(args[0], args[1], tgt_mask=args[2], tgt_is_causal=True,
                src_key_padding_mask=args[3])
    out.sum().backward()
    assert G.gpu.transfer_counts()[0] == downloads  # no host round trip
    assert out.device.type == "gpu"
    np.testing.assert_allclose(out.cpu().detach().numpy(), ref.detach().numpy(), rtol=1e-5,
                               atol=1e-5)
