"""vmap where an unbatched tensor meets a batched argument: `x[index]` with a batched index
(with slices, Ellipsis, negative indices), `W.matmul(v)`, `x.index_select / gather /
take_along_dim` with batched indices, `gradrs.mul(x, b)`, `x.expand_as(b)`: values against
`torch.func.vmap` with no per-sample fallback; and PyTorch's errors (and its fallback's
performance warning) for in-place ops on an unbatched `self`, a batched boolean mask, out of
range indices; PyTorch's dynamic-shape refusals (unique, nonzero, masked_select with a batched
mask) and its fallback's warning for the ops it has no batching rule for (histc, bincount,
quantile...), where gradrs runs them per sample too."""

import operator
import warnings

import numpy as np
import pytest
from conftest import G, norm, norm_g

from gradrs import _vmap

_rng = np.random.default_rng(1)
X = _rng.standard_normal((5, 4))
Y = _rng.standard_normal((3, 4))
Z = _rng.standard_normal((3, 4, 4))
IDX = _rng.integers(0, 5, (3, 2))
IDX1 = _rng.integers(-5, 5, (3,))
ROWS = _rng.integers(0, 5, (3, 5))
MASK = _rng.standard_normal((3, 5)) > 0


def _inputs(m):
    return dict(x=m.tensor(X), y=m.tensor(Y), z=m.tensor(Z), i=m.tensor(IDX), i1=m.tensor(IDX1),
                rows=m.tensor(ROWS), mask=m.tensor(MASK))


# name: (function of (module, inputs) returning the vmapped call, whether it runs batched)
BATCHED = {
    "x[i]": lambda m, a: m.func.vmap(lambda k: a["x"][k])(a["i"]),
    "x[i] negative": lambda m, a: m.func.vmap(lambda k: a["x"][k])(a["i1"]),
    "x[..., i]": lambda m, a: m.func.vmap(lambda k: a["x"][..., k % 4])(a["i"]),
    "x[:, i]": lambda m, a: m.func.vmap(lambda k: a["x"][:, k % 4])(a["i"]),
    "x[i, :]": lambda m, a: m.func.vmap(lambda k: a["x"][k, :])(a["i"]),
    "x[..., i, :]": lambda m, a: m.func.vmap(lambda k: a["x"][..., k, :])(a["i"]),
    "x[i].sum(0)": lambda m, a: m.func.vmap(lambda k: a["x"][k].sum(0))(a["rows"]),
    "index_select": lambda m, a: m.func.vmap(lambda k: a["x"].index_select(0, k))(a["i"]),
    "gather": lambda m, a: m.func.vmap(
        lambda k: a["x"].gather(0, k.unsqueeze(1).expand(2, 4)))(a["i"]),
    "take_along_dim broadcast": lambda m, a: m.func.vmap(
        lambda k: a["x"].take_along_dim(k.unsqueeze(1), 0))(a["i"]),
    "matmul": lambda m, a: m.func.vmap(lambda v: a["x"].matmul(v))(a["y"]),
    "gradrs.matmul": lambda m, a: m.func.vmap(lambda v: m.matmul(a["x"], v))(a["y"]),
    "mm": lambda m, a: m.func.vmap(lambda w: a["x"].mm(w))(a["z"]),
    "mv": lambda m, a: m.func.vmap(lambda v: a["x"].mv(v))(a["y"]),
    "mul method": lambda m, a: m.func.vmap(lambda v: a["x"][0].mul(v))(a["y"]),
    "gradrs.add alpha": lambda m, a: m.func.vmap(lambda v: m.add(a["x"][0], v, alpha=2))(a["y"]),
    "where method": lambda m, a: m.func.vmap(lambda v: a["x"][0].where(v > 0, v))(a["y"]),
    "masked_fill": lambda m, a: m.func.vmap(
        lambda k: a["x"][:, 0].masked_fill(k, 0.0))(a["mask"]),
    "expand_as": lambda m, a: m.func.vmap(lambda v: a["x"][0].expand_as(v))(a["z"]),
    "view_as": lambda m, a: m.func.vmap(lambda v: a["x"][:4].view_as(v))(a["z"]),
    "type_as": lambda m, a: m.func.vmap(lambda v: a["rows"][0, :4].type_as(v) + v)(a["y"]),
    "nested levels": lambda m, a: m.func.vmap(
        m.func.vmap(lambda k, w: w[k % 4], in_dims=(0, None)), in_dims=(0, None))(
            a["i"], a["z"][0]),
    "per-sample grad of a lookup": lambda m, a: m.func.vmap(
        m.func.grad(lambda w, k: (w[k] ** 2).sum()), in_dims=(None, 0))(a["x"], a["i"]),
}

# Correct through a per-sample run (no batching rule): values only.
PER_SAMPLE = {
    "x[i, 0]": lambda m, a: m.func.vmap(lambda k: a["x"][k, 0])(a["i"]),
    "x[i, i]": lambda m, a: m.func.vmap(lambda k: a["x"][k, k % 4])(a["i"]),
    "scatter": lambda m, a: m.func.vmap(
        lambda k: a["x"].scatter(0, k.unsqueeze(1).expand(2, 4), 1.0))(a["i"]),
    "index_add": lambda m, a: m.func.vmap(lambda v: a["x"].index_add(
        0, m.tensor([0, 2, 4, 1]), v.unsqueeze(1).expand(4, 4)))(a["y"]),
    "nested x[i]": lambda m, a: m.func.vmap(m.func.vmap(lambda k: a["x"][k]))(a["i"]),
}


@pytest.fixture
def batched_only(monkeypatch):
    def refuse(*a, **k):
        raise AssertionError("vmap fell back to a per-sample loop")
    monkeypatch.setattr(_vmap, "_loop_call", refuse)
    monkeypatch.setattr(_vmap, "_per_sample", refuse)


def _check(name, cases, torch):
    ours = cases[name](G, _inputs(G))
    theirs = cases[name](torch, _inputs(torch))
    assert tuple(ours.shape) == tuple(theirs.shape)
    np.testing.assert_allclose(np.asarray(ours.tolist()), theirs.numpy(), rtol=1e-12)


@pytest.mark.parametrize("name", list(BATCHED))
def test_batched_vs_torch(name, torch, batched_only):
    _check(name, BATCHED, torch)


@pytest.mark.parametrize("name", list(PER_SAMPLE))
def test_per_sample_vs_torch(name, torch):
    _check(name, PER_SAMPLE, torch)


def test_methods_are_native_again_after_vmap():
    native = G.Tensor.__dict__["__getitem__"]
    x = G.tensor(X)
    G.func.vmap(lambda k: x[k])(G.tensor(IDX))
    G.func.vmap(lambda k: x[k])(G.tensor(IDX))  # the remembered function installs them first
    assert G.Tensor.__dict__["__getitem__"] is native
    assert G.Tensor.__dict__["matmul"] is not None
    with pytest.raises(IndexError):  # an error inside vmap leaves them native too
        G.func.vmap(lambda k: x[k + 10])(G.tensor(IDX))
    assert G.Tensor.__dict__["__getitem__"] is native


_INPLACE = {
    "add_": lambda m, s, v: s.add_(v),
    "add_ alpha 0-d": lambda m, s, v: s.add_(v[0], alpha=2),
    "atan2_": lambda m, s, v: s.atan2_(v),
    "sub_": lambda m, s, v: s.sub_(v),
    "mul_": lambda m, s, v: s.mul_(v),
    "div_": lambda m, s, v: s.div_(v),
    "true_divide_": lambda m, s, v: s.true_divide_(v),
    "masked_fill_": lambda m, s, v: s.masked_fill_(v > 0, 1.0),
    "clamp_min_": lambda m, s, v: s.clamp_min_(v),
    "clamp_max_": lambda m, s, v: s.clamp_max_(v),
    "copy_": lambda m, s, v: s[0].copy_(v),
    "setitem value": lambda m, s, v: s.__setitem__(0, v),
    "setitem index": lambda m, s, v: s.__setitem__((v > 0).long().sum(), 1.0),
    "fill_": lambda m, s, v: s.fill_(v[0]),
    "index_fill_": lambda m, s, v: s.index_fill_(0, m.tensor([0]), v[0]),
    "index_add_": lambda m, s, v: s.index_add_(0, m.tensor([0]), v[None]),
    "pow_": lambda m, s, v: s.pow_(v),
    "clamp_": lambda m, s, v: s.clamp_(v),
    "lerp_ scalar": lambda m, s, v: s.lerp_(v, 0.5),
    "lerp_ tensor": lambda m, s, v: s.lerp_(v, v),
    "addcmul_": lambda m, s, v: s.addcmul_(v, v),
    "addcdiv_": lambda m, s, v: s.addcdiv_(v, v),
    "floor_divide_": lambda m, s, v: s.floor_divide_(v),
    "remainder_": lambda m, s, v: s.remainder_(v),
    "fmod_": lambda m, s, v: s.fmod_(v),
    "hypot_": lambda m, s, v: s.hypot_(v),
    "scatter_": lambda m, s, v: s.scatter_(0, m.zeros(1, 4, dtype=m.long), v[None]),
    # The operators: Python would fall back to `v.__rsub__(s)`, rebinding `s` to a batched
    # result, where PyTorch's `__isub__` is `sub_` and refuses.
    "+=": lambda m, s, v: _iadd(s, v),
    "-=": lambda m, s, v: _isub(s, v),
    "*=": lambda m, s, v: _imul(s, v),
    "/=": lambda m, s, v: _itruediv(s, v),
    "**=": lambda m, s, v: _ipow(s, v),
    "//=": lambda m, s, v: _ifloordiv(s, v),
    "%=": lambda m, s, v: _imod(s, v),
    "__isub__": lambda m, s, v: s.__isub__(v),
    "operator.imul": lambda m, s, v: operator.imul(s, v),
}


def _iadd(s, v):
    s += v
    return s


def _isub(s, v):
    s -= v
    return s


def _imul(s, v):
    s *= v
    return s


def _itruediv(s, v):
    s /= v
    return s


def _ipow(s, v):
    s **= v
    return s


def _ifloordiv(s, v):
    s //= v
    return s


def _imod(s, v):
    s %= v
    return s


def _raised(m, call):
    x, y = m.tensor(X), m.tensor(Y)
    with warnings.catch_warnings(record=True) as seen:
        warnings.simplefilter("always")
        with pytest.raises(RuntimeError) as info:
            m.func.vmap(lambda v: call(m, x.clone(), v))(y)
    return str(info.value), [str(w.message) for w in seen if w.category is UserWarning]


@pytest.mark.parametrize("name", list(_INPLACE))
def test_inplace_on_unbatched_self_errors_as_torch(name, torch):
    ours, our_warnings = _raised(G, _INPLACE[name])
    theirs, their_warnings = _raised(torch, _INPLACE[name])
    assert norm_g(ours) == norm(theirs)
    assert [norm_g(w) for w in our_warnings] == [norm(w) for w in their_warnings]


_INT_INPLACE = {
    "&=": operator.iand, "|=": operator.ior, "^=": operator.ixor, "<<=": operator.ilshift,
    ">>=": operator.irshift, "bitwise_and_": lambda s, v: s.bitwise_and_(v),
    "bitwise_or_": lambda s, v: s.bitwise_or_(v), "bitwise_xor_": lambda s, v: s.bitwise_xor_(v),
    "bitwise_left_shift_": lambda s, v: s.bitwise_left_shift_(v),
    "bitwise_right_shift_": lambda s, v: s.bitwise_right_shift_(v),
    "gcd_": lambda s, v: s.gcd_(v), "lcm_": lambda s, v: s.lcm_(v),
    "+= int": operator.iadd, "-= int": operator.isub,
}


def _raised_int(m, call):
    x = m.tensor(IDX1[:2])
    with warnings.catch_warnings(record=True) as seen:
        warnings.simplefilter("always")
        with pytest.raises(RuntimeError) as info:
            m.func.vmap(lambda v: call(x.clone(), v))(m.tensor(IDX))
    return str(info.value), [str(w.message) for w in seen if w.category is UserWarning]


@pytest.mark.parametrize("name", list(_INT_INPLACE))
def test_integer_inplace_on_unbatched_self_errors_as_torch(name, torch):
    ours, our_warnings = _raised_int(G, _INT_INPLACE[name])
    theirs, their_warnings = _raised_int(torch, _INT_INPLACE[name])
    assert norm_g(ours) == norm(theirs)
    assert [norm_g(w) for w in our_warnings] == [norm(w) for w in their_warnings]


def _inplace_batched_self(m, v):
    s = v.clone()
    w = m.ones(4, dtype=v.dtype) * 2
    s -= w
    s += w
    s *= w
    s /= w
    s **= w
    s //= w
    s %= w
    u = w.clone()
    u -= w  # unbatched on both sides: a plain write
    return s, u


def test_inplace_operators_with_batched_self_as_torch(torch):
    ours = G.func.vmap(lambda v: _inplace_batched_self(G, v))(G.tensor(np.abs(Y) + 1))
    theirs = torch.func.vmap(lambda v: _inplace_batched_self(torch, v))(
        torch.tensor(np.abs(Y) + 1))
    for o, t in zip(ours, theirs):
        assert o.shape == t.shape
        np.testing.assert_allclose(o.numpy(), t.numpy(), rtol=1e-12)


@pytest.mark.parametrize("call", [
    lambda m, a: m.func.vmap(lambda k: a["x"][:, 0][k])(a["mask"]),  # a batched boolean mask
    lambda m, a: m.func.vmap(lambda k: a["x"][k + 5])(a["i"]),  # out of range
    lambda m, a: m.func.vmap(lambda v: a["x"][v])(a["y"]),  # float indices
])
def test_index_errors_as_torch(call, torch):
    with pytest.raises(Exception) as ours:
        call(G, _inputs(G))
    with pytest.raises(Exception) as theirs:
        call(torch, _inputs(torch))
    assert type(ours.value) is type(theirs.value)
    assert norm_g(ours.value) == norm(theirs.value)


_FALLBACK_OPS = {
    "unique": lambda m, v: v.unique(),
    "unique_consecutive": lambda m, v: v.unique_consecutive(),
    "nonzero": lambda m, v: v.nonzero(),
    "gradrs.nonzero": lambda m, v: m.nonzero(v),
    "nonzero as_tuple": lambda m, v: m.nonzero(v, as_tuple=True),
    "masked_select batched mask": lambda m, v: v.masked_select(v > 1),
    "masked_select": lambda m, v: v.masked_select(m.ones(4, dtype=m.bool)),
    "bincount": lambda m, v: (v * 3).long().flatten().bincount(minlength=10),
    "put": lambda m, v: v.put(m.tensor([0]), m.tensor([1.0])),
    "take": lambda m, v: v.take(m.tensor([0, 2])),
    "histc": lambda m, v: v.histc(),
    "diagflat": lambda m, v: v.diagflat(1),
    "quantile": lambda m, v: v.quantile(0.3),
    "quantile tensor q": lambda m, v: v.quantile(m.tensor([0.3, 0.5]), dim=0),
    "nanquantile": lambda m, v: v.nanquantile(m.tensor([0.3, 0.5])),
}


def _run_fallback(m, call):
    x = m.tensor(np.abs(Y) + 0.5)
    with warnings.catch_warnings(record=True) as seen:
        warnings.simplefilter("always")
        try:
            out = ("ok", m.func.vmap(lambda v: call(m, v))(x).tolist())
        except RuntimeError as e:
            out = ("error", str(e))
    return out, [str(w.message) for w in seen if "performance drop" in str(w.message)]


@pytest.mark.parametrize("name", list(_FALLBACK_OPS))
def test_torch_fallback_ops_warn_or_refuse_as_torch(name, torch):
    (kind, ours), our_warnings = _run_fallback(G, _FALLBACK_OPS[name])
    (tkind, theirs), their_warnings = _run_fallback(torch, _FALLBACK_OPS[name])
    assert kind == tkind
    if kind == "error":
        assert norm_g(ours) == norm(theirs)
    else:
        np.testing.assert_allclose(np.asarray(ours, dtype=float), np.asarray(theirs, dtype=float),
                                   rtol=1e-6)
    assert [norm_g(w) for w in our_warnings] == [norm(w) for w in their_warnings]


def _graph_nodes(t):
    seen, todo = set(), [t.grad_fn]
    while todo:
        n = todo.pop()
        if n is None or n in seen:
            continue
        seen.add(n)
        todo += [f for f, _ in n.next_functions]
    return len(seen)


@pytest.mark.parametrize("call", [
    lambda w, k: (w[k] ** 2).sum(),
    lambda w, k: w.index_select(0, k).tanh().sum(),
    lambda w, k: (w.matmul(w[k].t()) * 2).sum(),
])
def test_graph_nodes_do_not_grow_with_batch(call, batched_only):
    counts = []
    for b in (2, 16):
        w = G.randn(5, 4, requires_grad=True)
        k = G.tensor(np.random.default_rng(b).integers(0, 5, (b, 3)))
        counts.append(_graph_nodes(G.func.vmap(lambda i, w=w: call(w, i))(k)))
    assert counts[0] == counts[1] > 0
