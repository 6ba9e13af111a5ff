"""`gradrs.func.vmap`: results against a Python loop and `torch.func.vmap`, PyTorch's errors,
randomness, chunking, nesting, per-sample gradients, and that the batching rules do the work
once for the whole batch (graph nodes and GPU dispatches do not grow with the batch size)."""

import numpy as np
import pytest
from conftest import G, norm

from gradrs import _vmap

vmap = G.func.vmap


def arr(t):
    return np.asarray(t.detach().tolist(), dtype=np.float64)


def close(a, b, tol=1e-5):
    np.testing.assert_allclose(arr(a), arr(b), rtol=tol, atol=tol)


@pytest.fixture
def batched_only(monkeypatch):
    """Fail where vmap would take its per-call fallback: the rules must do the work."""
    def refuse(*a, **k):
        raise AssertionError("vmap fell back to a per-sample loop")
    monkeypatch.setattr(_vmap, "_loop_call", refuse)


FAMILIES = {
    "elementwise": lambda x, y: (x * y + x.exp() - y.sigmoid() / 2).relu() ** 2,
    "reduction": lambda x, y: x.sum() + y.mean(0).amax() + x.logsumexp(-1).sum()
    + x.max(1).values.sum() + y.softmax(-1).prod(),
    "matmul": lambda x, y: x @ y.t() + (x.t() @ y).sum() + x[0] @ y[1] + x.mv(y[0]).sum(),
    "view": lambda x, y: (x.reshape(-1)[:5] + y.t().flatten()[1:6]
                          + x.unsqueeze(0).transpose(0, 1).squeeze(1).permute(1, 0)[0, 0]),
    "joining": lambda x, y: G.cat([x, y[0:1], G.ones(2, 4, device=x.device)], 0).sum(0) + G.stack([x, y], -1).sum(-1)
    + G.where(x > 0, x, y) + G.where(x > y, 1.0, x),
    "indexing": lambda x, y: (x[1:, ::2] * y[0, ::2]).sum() + x.gather(1, IDX).sum()
    + x.index_select(1, IDX[0]).sum() + x[:, IDX[0]].sum(),
}
IDX = G.tensor([[0, 2], [1, 1], [3, 0]])


@pytest.mark.parametrize("family", FAMILIES)
def test_families_match_loop(family, batched_only):
    fn = FAMILIES[family]
    x, y = G.randn(4, 3, 4), G.randn(4, 3, 4)
    out = vmap(fn)(x, y)
    close(out, G.stack([fn(x[i], y[i]) for i in range(4)]))


def graph_nodes(out):
    """The backward graph's nodes behind ``out``."""
    seen, todo = set(), [out.grad_fn]
    while todo:
        n = todo.pop()
        if n is None or n in seen:
            continue
        seen.add(n)
        todo += [f for f, _ in n.next_functions]
    return len(seen)


@pytest.mark.parametrize("family", FAMILIES)
def test_graph_nodes_do_not_grow_with_batch(family, batched_only):
    fn = FAMILIES[family]
    counts = []
    for b in (2, 16):
        x = G.randn(b, 3, 4, requires_grad=True)
        y = G.randn(b, 3, 4)
        counts.append(graph_nodes(vmap(fn)(x, y)))
    assert counts[0] == counts[1] > 0


@pytest.mark.skipif(not G.gpu.is_available(), reason="no GPU adapter")
@pytest.mark.parametrize("family", FAMILIES)
def test_gpu_dispatches_do_not_grow_with_batch(family, batched_only):
    fn = FAMILIES[family]
    counts = []
    for b in (2, 16):
        x, y = G.randn(b, 3, 4).to("gpu"), G.randn(b, 3, 4).to("gpu")
        global IDX
        idx, IDX = IDX, IDX.to("gpu")
        try:
            G.gpu.synchronize()
            before = G._native._gpu_dispatch_count()
            out = vmap(fn)(x, y)
            counts.append(G._native._gpu_dispatch_count() - before)
            ref = G.stack([fn(x[i], y[i]) for i in range(b)])
        finally:
            IDX = idx
        close(out.cpu(), ref.cpu(), 1e-4)
    assert counts[0] == counts[1]


def test_against_torch(torch):
    xs = np.random.RandomState(0).randn(5, 3, 4).astype(np.float32)
    ys = np.random.RandomState(1).randn(3, 5).astype(np.float32)

    def fn(lib):
        return lambda x, y: (x.t() @ y, (x * 2).sum(-1), x.t().reshape(2, -1))

    for in_dims, out_dims in [((0, 1), 0), ((0, 1), (1, 0, -1)), ((1, 0), 1)]:
        ours = vmap(fn(G), in_dims, out_dims)(G.tensor(xs), G.tensor(ys))
        theirs = torch.func.vmap(fn(torch), in_dims, out_dims)(torch.tensor(xs),
                                                               torch.tensor(ys))
        for a, b in zip(ours, theirs):
            assert tuple(a.shape) == tuple(b.shape)
            np.testing.assert_allclose(arr(a), b.numpy(), rtol=1e-5, atol=1e-5)


def test_pytree_in_dims_out_dims_and_kwargs():
    x, y = G.randn(3, 2), G.randn(2, 3)

    def f(d, scale=1.0):
        return {"s": d["a"] * d["b"][0] * scale, "n": (d["a"].sum(),)}

    out = vmap(f, in_dims=({"a": 0, "b": (1,)},), out_dims={"s": 1, "n": (0,)})(
        {"a": x, "b": (y,)}, scale=2.0)
    close(out["s"], (x * y.t() * 2).t())
    close(out["n"][0], x.sum(1))
    # None in_dims: unbatched; int out_dims broadcast over the outputs
    close(vmap(lambda a, b: a + b, (0, None))(x, y[:, 0]), x + y[:, 0])


def test_per_sample_grads_mlp(torch, batched_only):
    nn = G.nn
    G.manual_seed(0)
    model = nn.Sequential(nn.Linear(4, 8), nn.Tanh(), nn.Linear(8, 3))
    params = {k: v.detach() for k, v in model.named_parameters()}
    x, t = G.randn(6, 4), G.randn(6, 3)

    def loss(p, xi, ti):
        out = G.func.functional_call(model, p, (xi,))
        return ((out - ti) ** 2).mean()

    per = vmap(G.func.grad(loss), in_dims=(None, 0, 0))(params, x, t)
    loop = [G.func.grad(loss)(params, x[i], t[i]) for i in range(6)]
    tm = torch.nn.Sequential(torch.nn.Linear(4, 8), torch.nn.Tanh(), torch.nn.Linear(8, 3))
    tp = {k: torch.tensor(np.asarray(v.tolist(), dtype=np.float32)) for k, v in params.items()}

    def tloss(p, xi, ti):
        return ((torch.func.functional_call(tm, p, (xi,)) - ti) ** 2).mean()

    ref = torch.func.vmap(torch.func.grad(tloss), in_dims=(None, 0, 0))(
        tp, torch.tensor(arr(x), dtype=torch.float32), torch.tensor(arr(t), dtype=torch.float32))
    for k in params:
        assert tuple(per[k].shape) == (6,) + tuple(params[k].shape)
        close(per[k], G.stack([g[k] for g in loop]))
        np.testing.assert_allclose(arr(per[k]), ref[k].numpy(), rtol=1e-4, atol=1e-5)


def test_nested_and_grad_inside():
    x, y = G.randn(2, 3, 4), G.randn(3, 4)
    out = vmap(vmap(lambda a, b: (a * b).sum()), (0, None))(x, y)
    close(out, (x * y).sum(-1))
    out = vmap(vmap(lambda a, b: a @ b, (0, None)), (None, 0))(G.randn(5, 4), G.randn(2, 4, 3))
    assert tuple(out.shape) == (2, 5, 3)
    g = vmap(G.func.grad(lambda a: (a ** 3).sum()))(x[0])
    close(g, 3 * x[0] ** 2)


def test_fallback_ops_are_correct():
    x = G.randn(4, 5)
    close(vmap(lambda a: G.sort(a).values)(x), G.sort(x, 1).values)
    close(vmap(lambda a: a.cumsum(0).flip(0))(x), x.cumsum(1).flip(1))
    close(vmap(lambda a: G.nn.functional.softplus(a) + G.where(a > 0, a, 0.0))(x),
          G.nn.functional.softplus(x) + G.where(x > 0, x, 0.0))
    lin = G.nn.Linear(5, 2)
    close(vmap(lin)(x), lin(x))
    # native functions and native tensors' methods handed a BatchedTensor: per-call fallback
    w, idx, F = G.randn(6, 5), G.tensor([0, 5, 2, 2]), G.nn.functional
    cases = [(lambda i: w[i], idx), (lambda i: F.embedding(i, w), idx),
             (lambda i: w.index_select(0, i), idx), (lambda a: w.matmul(a), x),
             (lambda a: F.gelu(a), x), (lambda a, t: F.cross_entropy(a, t), (x, idx.clamp(max=4))),
             (lambda a: F.conv1d(a.reshape(1, 1, 5), G.ones(1, 1, 2)), x)]
    for f, args in cases:
        args = args if isinstance(args, tuple) else (args,)
        close(vmap(f)(*args), G.stack([f(*[a[i] for a in args]) for i in range(4)]))


def test_empty_batch():
    close(vmap(lambda a: (a * 2).sum())(G.zeros(0, 3)), G.zeros(0))
    with pytest.raises(RuntimeError, match="batch of size 0"):
        vmap(lambda a: G.histc(a, 4))(G.zeros(0, 3))


def test_chunk_size():
    x = G.randn(7, 3)
    for c in (1, 2, 3, 7, 10):
        close(vmap(lambda a: a.exp().sum(), chunk_size=c)(x), x.exp().sum(1))
    with pytest.raises(ValueError, match=r"vmap: chunk_size should be None or greater than 0\. "
                       r"\(got 0\)"):
        vmap(lambda a: a, chunk_size=0)


def test_randomness():
    x = G.zeros(3, 4)
    with pytest.raises(RuntimeError, match="randomness error mode"):
        vmap(lambda a: a + G.rand(4))(x)
    with pytest.raises(RuntimeError, match="randomness error mode"):
        vmap(lambda a: G.nn.functional.dropout(a))(x)
    G.manual_seed(3)
    same = vmap(lambda a: a + G.rand(4), randomness="same")(x)
    G.manual_seed(3)
    close(same, G.rand(4).expand(3, 4))
    diff = vmap(lambda a: a + G.rand(4), randomness="different")(x)
    assert not G.equal(diff[0], diff[1])
    with pytest.raises(RuntimeError, match="Only allowed values for randomness are 'error', "
                       "'different', or 'same'. Got foo"):
        vmap(lambda a: a, randomness="foo")


ERRORS = [
    (lambda: vmap(lambda a, b: a)(G.randn(3, 2), G.randn(4)), ValueError),
    (lambda: vmap(lambda a, b: a, in_dims=(0,))(G.randn(3), G.randn(3)), ValueError),
    (lambda: vmap(lambda a, b: a, in_dims=[0, 0])(G.randn(3), G.randn(3)), ValueError),
    (lambda: vmap(lambda a, b: a, in_dims=(0, "a"))(G.randn(3), G.randn(3)), ValueError),
    (lambda: vmap(lambda a, b: a, in_dims=(0, 0))(G.randn(3), 3), ValueError),
    (lambda: vmap(lambda a, b: a, in_dims=(0, 5))(G.randn(3), G.randn(3, 2)), ValueError),
    (lambda: vmap(lambda a: a)(G.tensor(1.0)), ValueError),
    (lambda: vmap(lambda a: a, in_dims=None)(G.randn(3)), ValueError),
    (lambda: vmap(lambda a: a, in_dims=None)(G.randn(3)), ValueError),
    (lambda: vmap(lambda a: a, in_dims=(None,))(G.randn(3)), ValueError),
    (lambda: vmap(lambda: 1)(), ValueError),
    (lambda: vmap(lambda a: 3)(G.randn(3)), ValueError),
    (lambda: vmap(lambda a: (a, 3))(G.randn(3)), ValueError),
    (lambda: vmap(lambda a: a, out_dims=None)(G.randn(3)), ValueError),
    (lambda: vmap(lambda a: a, out_dims=(0, 1))(G.randn(3)), ValueError),
    (lambda: vmap(lambda a: (a, a), out_dims=[0, 1])(G.randn(3)), ValueError),
    (lambda: vmap(lambda a: a, out_dims="a")(G.randn(3)), ValueError),
    (lambda: vmap(lambda a: a.sum(), out_dims=1)(G.randn(3, 2)), IndexError),
    (lambda: vmap(lambda a: a.item())(G.randn(3)), RuntimeError),
    (lambda: vmap(lambda a: 1 if a.sum() > 0 else 0)(G.randn(3, 2)), RuntimeError),
    (lambda: vmap(lambda d: d["a"], in_dims=({"b": 0},))({"a": G.randn(3)}), ValueError),
]


def _run(torch_mod, case):
    """Run an error case with `G` standing for ``torch_mod`` (the source names `G`)."""
    fn, _ = case
    glb = dict(fn.__globals__, G=torch_mod, vmap=torch_mod.func.vmap)
    f = type(fn)(fn.__code__, glb)
    try:
        f()
    except Exception as e:  # noqa: BLE001 - the error is the result
        return type(e).__name__, str(e)
    return None


@pytest.mark.parametrize("k", range(len(ERRORS)))
def test_errors_as_torch(torch, k):
    ours = _run(G, ERRORS[k])
    theirs = _run(torch, ERRORS[k])
    assert ours is not None and theirs is not None
    assert ours[0] == theirs[0] == ERRORS[k][1].__name__
    assert norm(ours[1]) == norm(theirs[1])


def test_torch_vmap_alias():
    assert G.vmap is G.func.vmap
    f = vmap(lambda a: a)
    assert f.__name__ == "<lambda>"


def test_jacrev_through_vmap(torch, batched_only):
    rs = np.random.RandomState(2)
    xs, ws = rs.randn(4).astype(np.float64), rs.randn(3, 4).astype(np.float64)

    def f(lib):
        def fn(x, w):
            h = (w @ x).tanh()
            return h * 2, (x ** 2).sum(), lib.tensor(1.0, dtype=x.dtype)
        return fn

    for argnums, chunk in [(0, None), ((0, 1), None), (1, 2), ((1,), 5)]:
        ours = G.func.jacrev(f(G), argnums, chunk_size=chunk)(G.tensor(xs), G.tensor(ws))
        theirs = torch.func.jacrev(f(torch), argnums, chunk_size=chunk)(torch.tensor(xs),
                                                                         torch.tensor(ws))
        flat_o, flat_t = G.func._flatten(ours)[0], G.func._flatten(theirs)[0]
        assert len(flat_o) == len(flat_t)
        for a, b in zip(flat_o, flat_t):
            assert tuple(a.shape) == tuple(b.shape)
            np.testing.assert_allclose(arr(a), b.numpy(), rtol=1e-10, atol=1e-12)


def test_hessian_and_batched_jacobians(torch):
    rs = np.random.RandomState(3)
    xs = rs.randn(5, 3)

    def f(x):
        return (x.sin() * x).sum() + (x[0] * x[1] * x[2])

    ours = vmap(G.func.hessian(f))(G.tensor(xs))
    theirs = torch.func.vmap(torch.func.hessian(f))(torch.tensor(xs))
    np.testing.assert_allclose(arr(ours), theirs.numpy(), rtol=1e-10, atol=1e-12)
    ours = vmap(G.func.jacrev(lambda x: x.exp() * x.sum()))(G.tensor(xs))
    theirs = torch.func.vmap(torch.func.jacrev(lambda x: x.exp() * x.sum()))(torch.tensor(xs))
    np.testing.assert_allclose(arr(ours), theirs.numpy(), rtol=1e-10, atol=1e-12)


def test_jacfwd_through_vmap(torch, batched_only):
    rs = np.random.RandomState(4)
    xs, ws = rs.randn(2, 3), rs.randn(3, 4)

    def f(x, w):
        return (x.exp() @ w).sin(), {"s": (x * x).sum()}

    for argnums in (0, (0, 1), 1):
        ours = G.func.jacfwd(f, argnums, has_aux=True)(G.tensor(xs), G.tensor(ws))
        theirs = torch.func.jacfwd(f, argnums, has_aux=True)(torch.tensor(xs), torch.tensor(ws))
        flat_o, flat_t = G.func._flatten(ours)[0], G.func._flatten(theirs)[0]
        assert len(flat_o) == len(flat_t)
        for a, b in zip(flat_o, flat_t):
            assert tuple(a.shape) == tuple(b.shape)
            np.testing.assert_allclose(arr(a), b.numpy(), rtol=1e-10, atol=1e-12)
    with pytest.raises(RuntimeError, match="randomness error mode"):
        G.func.jacfwd(lambda x: x * G.rand(3, dtype=G.float64))(G.tensor(xs[0]))


def test_batch_dim_already_in_place_adds_no_permute(torch):
    # functorch adds / removes a batch dim at 0 without a movedim: the output's node is the op's
    for lib in (G, torch):
        x = lib.ones(2, 3, requires_grad=True) * 2
        names = [type(lib.func.vmap(lambda a: a * 2)(x).grad_fn).__name__,
                 type(lib.func.vmap(lambda a: a.sum())(x).grad_fn).__name__,
                 type(lib.func.vmap(lambda a: a * 2, in_dims=1, out_dims=1)(x).grad_fn).__name__,
                 type(lib.func.vmap(lambda a: a * 2, out_dims=1)(x).grad_fn).__name__]
        assert names == ["MulBackward0", "SumBackward1", "PermuteBackward0", "PermuteBackward0"]
