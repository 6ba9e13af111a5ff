"""gradrs.nn.utils.rnn (PackedSequence and the pad/pack helpers), RNN, LSTM, GRU and their
cells, differential against PyTorch: outputs, hidden states, gradients, state_dicts, reprs,
errors."""

import importlib

import numpy as np
import pytest
from conftest import G, assert_same_values, check_error

pytestmark = pytest.mark.usefixtures("restore_grad_mode")

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


def test_packed_sequence_methods(torch):
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
