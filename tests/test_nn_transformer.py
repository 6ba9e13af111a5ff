"""F.scaled_dot_product_attention, F.multi_head_attention_forward, MultiheadAttention and the
Transformer modules, differential against PyTorch (values, gradients, state_dicts, reprs, errors)."""

import numpy as np
import pytest
from conftest import G, assert_same_values, check_error

pytestmark = pytest.mark.usefixtures("restore_grad_mode")

F = G.nn.functional
TOL = {"float32": {"rtol": 1e-5, "atol": 1e-6}, "float64": {"rtol": 1e-10, "atol": 1e-12}}


def _pair(torch, shape, dtype="float64", requires_grad=True, rng=None):
    a = (rng or np.random).standard_normal(shape).astype(dtype)
    return (G.tensor(a, requires_grad=requires_grad),
            torch.tensor(a, requires_grad=requires_grad))


def _close(g, t, dtype):
    assert_same_values(g.detach(), t.detach(), **TOL[dtype])


# ---- scaled_dot_product_attention ----------------------------------------------------------


@pytest.mark.parametrize("dtype", ["float32", "float64"])
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
    w = rng.standard_normal(tuple(to.shape)).astype(dtype)
    (go * G.tensor(w)).sum().backward()
    (to * torch.tensor(w)).sum().backward()
    for g, t in ((gq, tq), (gk, tk), (gv, tv)):
        _close(g.grad, t.grad, dtype)


def test_sdpa_dropout(torch):
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
