"""index_select / advanced indexing / embedding along dim 0 and index_add / index_copy along
dim 0 copy (add) whole rows where the rows are runs of memory (kernels/index.rs
`select_rows` / `scatter_rows`); strided, transposed and sliced operands, repeated and int32
indices, values, gradients and errors against torch. nll_loss reads only the target entries
(ops/nn.rs `target_entries`): strided inputs, ignore_index, weights, every reduction."""

import numpy as np
import pytest
import torch

import gradrs


def _pair(a, requires_grad=False):
    return (gradrs.tensor(a, requires_grad=requires_grad),
            torch.tensor(a, requires_grad=requires_grad))


def _same(g, t):
    np.testing.assert_array_equal(g.detach().numpy(), t.detach().numpy())


@pytest.mark.parametrize("view", ["plain", "sliced_rows", "transposed", "narrow_cols", "3d"])
@pytest.mark.parametrize("itype", [np.int64, np.int32])
def test_index_select_dim0_views_match_torch(view, itype):
    rng = np.random.default_rng(1)
    a = rng.standard_normal((12, 10, 3) if view == "3d" else (12, 10)).astype(np.float32)
    g, t = _pair(a, requires_grad=True)
    views = {
        "plain": lambda x: x,
        "sliced_rows": lambda x: x[::2],
        "transposed": lambda x: x.t(),
        "narrow_cols": lambda x: x[:, 2:7],
        "3d": lambda x: x[1:],
    }
    idx = np.array([3, 0, 3, 5, 1, 5, 5], dtype=itype)
    gi, ti = gradrs.tensor(idx), torch.tensor(idx)
    go, to = views[view](g).index_select(0, gi), views[view](t).index_select(0, ti)
    _same(go, to)
    w = rng.standard_normal(tuple(to.shape)).astype(np.float32)
    go.backward(gradrs.tensor(w))
    to.backward(torch.tensor(w))
    _same(g.grad, t.grad)


def test_embedding_and_advanced_index_rows_match_torch():
    rng = np.random.default_rng(2)
    w = rng.standard_normal((50, 8)).astype(np.float32)
    tok = rng.integers(0, 50, (6, 9))
    tok[0, :4] = 7  # a repeated row: its gradient rows add first to last
    (gw, tw), (gt, tt) = _pair(w, True), _pair(tok)
    go = gradrs.nn.functional.embedding(gt, gw)
    to = torch.nn.functional.embedding(tt, tw)
    _same(go, to)
    up = rng.standard_normal(tuple(to.shape)).astype(np.float32)
    go.backward(gradrs.tensor(up))
    to.backward(torch.tensor(up))
    _same(gw.grad, tw.grad)
    _same(gw[gt[1]], tw[tt[1]])


@pytest.mark.parametrize("src_view", ["plain", "transposed", "scalar"])
def test_index_add_and_copy_dim0_match_torch(src_view):
    rng = np.random.default_rng(3)
    base = rng.standard_normal((6, 5)).astype(np.float32)
    idx = np.array([4, 1, 4, 0])
    src = rng.standard_normal((5, 4) if src_view == "transposed" else (4, 5)).astype(np.float32)
    (gb, tb), (gi, ti), (gs, ts) = _pair(base), _pair(idx), _pair(src)
    if src_view == "transposed":
        gs, ts = gs.t(), ts.t()
    if src_view == "scalar":
        _same(gb.index_fill(0, gi, 2.5), tb.index_fill(0, ti, 2.5))
        return
    _same(gb.index_add(0, gi, gs), tb.index_add(0, ti, ts))
    _same(gb.index_add(0, gi, gs, alpha=2), tb.index_add(0, ti, ts, alpha=2))
    uniq_g, uniq_t = gradrs.tensor([4, 1, 2, 0]), torch.tensor([4, 1, 2, 0])
    _same(gb.index_copy(0, uniq_g, gs), tb.index_copy(0, uniq_t, ts))


def test_index_rows_out_of_range_errors_match_torch():
    g, t = _pair(np.zeros((4, 3), dtype=np.float32))
    for bad in ([1, 4], [-1, 0]):
        with pytest.raises(IndexError) as te:
            t.index_select(0, torch.tensor(bad))
        with pytest.raises(IndexError) as ge:
            g.index_select(0, gradrs.tensor(bad))
        assert str(ge.value) == str(te.value)
    for bad in ([1, 4], [-1, 0]):
        with pytest.raises((IndexError, RuntimeError)) as te:
            t.index_add(0, torch.tensor(bad), torch.ones(2, 3))
        with pytest.raises(type(te.value)) as ge:
            g.index_add(0, gradrs.tensor(bad), gradrs.ones(2, 3))
        assert str(ge.value) == str(te.value)


@pytest.mark.parametrize("reduction", ["mean", "sum", "none"])
@pytest.mark.parametrize("strided", [False, True])
@pytest.mark.parametrize("weighted", [False, True])
def test_nll_loss_target_entries_match_torch(reduction, strided, weighted):
    rng = np.random.default_rng(4)
    logits = rng.standard_normal((9, 7) if not strided else (7, 9)).astype(np.float32)
    tgt = rng.integers(0, 7, 9)
    tgt[2] = -100
    (gx, tx), (gt, tt) = _pair(logits, True), _pair(tgt)
    gl = gx.t() if strided else gx
    tl = tx.t() if strided else tx
    wa = rng.uniform(0.5, 2.0, 7).astype(np.float32) if weighted else None
    gw = gradrs.tensor(wa) if weighted else None
    tw = torch.tensor(wa) if weighted else None
    go = gradrs.nn.functional.nll_loss(gl.log_softmax(1), gt, weight=gw, reduction=reduction)
    to = torch.nn.functional.nll_loss(tl.log_softmax(1), tt, weight=tw, reduction=reduction)
    np.testing.assert_allclose(go.detach().numpy(), to.detach().numpy(), rtol=1e-6, atol=1e-7)
    go.sum().backward()
    to.sum().backward()
    np.testing.assert_allclose(gx.grad.numpy(), tx.grad.numpy(), rtol=1e-6, atol=1e-7)
    assert type(go.grad_fn).__name__ == type(to.grad_fn).__name__ or reduction == "none"
