"""Note [Batched backward]: autograd.grad(is_grads_batched=True), func.jacrev and
autograd.functional.jacobian(vectorize=True) run one batched pass of the engine (PyTorch vmaps
its engine over the grad_outputs): values against PyTorch for the elementwise, matmul, view
and reduction families and for nodes taking the per-vector fallback (indexing, softmax,
a custom Function, hooks), second derivatives through it, and a graph that does not grow
with the number of vectors where every node batches."""

import numpy as np
import pytest
from conftest import G, need_torch


def _x(m, shape, seed=0):
    rng = np.random.default_rng(seed)
    return m.tensor(rng.standard_normal(shape), dtype=m.float64, requires_grad=True)


def _close(a, b):
    assert tuple(a.shape) == tuple(b.shape)
    np.testing.assert_allclose(np.asarray(a.detach().tolist()), b.detach().numpy(),
                               rtol=1e-12, atol=1e-12)


def _w(m):
    rng = np.random.default_rng(7)
    return m.tensor(rng.standard_normal((5, 4)), dtype=m.float64)


class _Cube:
    """A custom Function (its node takes the per-vector fallback)."""

    @staticmethod
    def make(m):
        class Cube(m.autograd.Function):
            @staticmethod
            def forward(ctx, x):
                ctx.save_for_backward(x)
                return x ** 3

            @staticmethod
            def backward(ctx, g):
                (x,) = ctx.saved_tensors
                return g * 3 * x ** 2
        return Cube


FNS = {
    "tanh*sin": lambda m, x: m.tanh(x) * m.sin(x),
    "broadcast add/mul": lambda m, x: (x * x[:1] + x.sum(0, keepdim=True)) / 3,
    "pow/exp/where": lambda m, x: m.where(x > 0, x ** 2, m.exp(x)),
    "linear 1-d": lambda m, x: m.nn.functional.linear(x.reshape(-1)[:4], _w(m), _w(m)[:, 0]),
    "linear 2-d": lambda m, x: m.nn.functional.linear(x.reshape(3, 4), _w(m)),
    "mm/matmul": lambda m, x: x.reshape(3, 4) @ _w(m).t() @ _w(m),
    "mv": lambda m, x: _w(m) @ m.tanh(x.reshape(-1)[:4]),
    "views": lambda m, x: x.t().unsqueeze(0).transpose(0, 2).squeeze(2).permute(1, 0).flatten(),
    "expand": lambda m, x: x[:, :1].expand(3, 6) * 2,
    "sum/mean": lambda m, x: m.stack([x.sum(), x.mean(), (x * x).sum(), x.sum(1).sum()]),
    "indexing/cat": lambda m, x: m.cat([x[1:, ::2].reshape(-1), x[[0, 2, 0]].reshape(-1)]) * x[0, 0],
    "softmax/log_softmax": lambda m, x: m.softmax(x, 1) + m.log_softmax(x, 0),
    "custom Function": lambda m, x: _Cube.make(m).apply(x) + x,
    "mlp": lambda m, x: m.nn.functional.linear(m.tanh(m.nn.functional.linear(x, _w(m))),
                                               _w(m).t()),
}


@pytest.mark.parametrize("name", list(FNS))
def test_batched_vjps_as_torch(name):
    torch = need_torch()
    res = []
    for m in (G, torch):
        x = _x(m, (3, 4))
        y = FNS[name](m, x)
        basis = m.eye(y.numel(), dtype=m.float64).reshape(y.numel(), *y.shape) * 2
        res.append(m.autograd.grad(y, x, basis, is_grads_batched=True)[0])
    _close(*res)


@pytest.mark.parametrize("name", ["tanh*sin", "pow/exp/where", "mv", "sum/mean",
                                  "indexing/cat", "softmax/log_softmax", "custom Function",
                                  "mlp"])
def test_jacobian_vectorized_with_create_graph_differentiates_as_torch(name):
    """Second derivatives through the batched pass (its rules' ops record a graph)."""
    torch = need_torch()
    res = []
    for m in (G, torch):
        x = _x(m, (3, 4), seed=1)

        def f(x, m=m):
            return FNS[name](m, x)
        jac = m.autograd.functional.jacobian(f, x, create_graph=True, vectorize=True)
        res.append((jac, m.autograd.grad((jac * jac).sum(), x)[0]))
    _close(res[0][0], res[1][0])
    _close(res[0][1], res[1][1])


def _graph_size(t):
    seen, todo = set(), [t.grad_fn]
    while todo:
        n = todo.pop()
        if n is None or n in seen:
            continue
        seen.add(n)
        todo.extend(f for f, _ in n.next_functions)
    return len(seen)


def test_graph_of_a_batched_backward_does_not_grow_with_the_batch():
    """Every node of an MLP batches: one formula call on the batch, so the graph its
    create_graph result records is the same for 2 vectors as for 16."""
    sizes = []
    for n in (2, 16):
        x = _x(G, (8,))
        w1, w2 = _x(G, (6, 8), 1), _x(G, (n, 6), 2)
        y = G.nn.functional.linear(G.tanh(G.nn.functional.linear(x, w1)), w2)
        (g,) = G.autograd.grad(y, x, G.eye(n, dtype=G.float64), is_grads_batched=True,
                               create_graph=True)
        assert g.shape == (n, 8)
        sizes.append(_graph_size(g))
    assert sizes[0] == sizes[1]


def test_fallback_node_graph_grows_but_values_hold():
    """A node without a batched formula (indexing) runs per vector: a select per vector."""
    sizes = []
    for n in (2, 6):
        x = _x(G, (n,))
        y = x[[i for i in range(n)]] * x
        (g,) = G.autograd.grad(y, x, G.eye(n, dtype=G.float64), is_grads_batched=True,
                               create_graph=True)
        np.testing.assert_array_equal(np.asarray(g.tolist()),
                                      2 * np.diag(np.asarray(x.tolist())))
        sizes.append(_graph_size(g))
    assert sizes[1] > sizes[0]


def test_hooks_see_one_vector_at_a_time(torch):
    """A graph with hooks leaves the vectors to the per-vector loop: the hook's changes
    reach each vector's result, as in PyTorch."""
    res = []
    for m in (G, torch):
        x = _x(m, (4,))
        h = x * 3
        h.register_hook(lambda g: g * 10)
        y = m.sin(h)
        res.append(m.autograd.grad(y, x, m.eye(4, dtype=m.float64), is_grads_batched=True)[0])
    _close(*res)


def test_jacrev_one_call_one_batched_backward_and_chunks(torch):
    calls = []

    def f(x):
        calls.append(1)
        return G.tanh(x @ _w(G).t()) * x.sum()

    x = _x(G, (4,)).detach()
    tx = torch.tensor(x.tolist(), dtype=torch.float64)
    want = torch.func.jacrev(lambda x: torch.tanh(x @ _w(torch).t()) * x.sum())(tx)
    _close(G.func.jacrev(f)(x), want)
    assert len(calls) == 1
    _close(G.func.jacrev(f, chunk_size=2)(x), want)
    _close(G.func.jacrev(f, chunk_size=3)(x), want)
    assert len(calls) == 3


def test_jacrev_several_outputs_and_inputs(torch):
    def f(m):
        def fn(a, b):
            return {"p": a * b.sum(), "q": (a[:2] @ m.ones(2, 3, dtype=m.float64)) + b}
        return fn

    res = []
    for m in (G, torch):
        a, b = _x(m, (4,)).detach(), _x(m, (3,), 1).detach()
        res.append(m.func.jacrev(f(m), argnums=(0, 1))(a, b))
    for k in ("p", "q"):
        for i in range(2):
            _close(res[0][k][i], res[1][k][i])
