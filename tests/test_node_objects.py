"""A graph node has one Python object at a time (issue 22), as PyTorch's `functionToPyObject`:
the outputs of one node give the same `grad_fn` (`hy.grad_fn is cy.grad_fn`), a tensor's
`grad_fn` read twice is the same object, and the object lives as long as something holds it
(the node may outlive it: a new object is made then). `func.jacrev` calls its function once."""

import gc

import pytest
from conftest import G

CASES = {
    "max(x, dim)": lambda m, x: tuple(m.max(x, 1)),
    "min(x, dim)": lambda m, x: tuple(x.min(0)),
    "sort": lambda m, x: tuple(m.sort(x, 1)),
    "topk": lambda m, x: tuple(x.topk(2, 1)),
    "unbind": lambda m, x: m.unbind(x * 1, 0),
    "split": lambda m, x: (x * 1).split(1, 1),
    "chunk": lambda m, x: (x * 1).chunk(3, 1),
    "lstm_cell": lambda m, x: m.nn.LSTMCell(3, 3).double()(x),
    "lstm": lambda m, x: (lambda o: (o[0], *o[1]))(m.nn.LSTM(3, 3).double()(x.unsqueeze(1))),
    "one output": lambda m, x: (x.sin(), ),
}


def _identities(m, name):
    m.manual_seed(0)
    x = m.tensor([[0.5, -1.0, 2.0], [1.5, 0.25, -0.75]], dtype=m.float64, requires_grad=True)
    outs = CASES[name](m, x)
    fns = [o.grad_fn for o in outs]
    names = [None if f is None else f.name() for f in fns]
    same = [[a is b for b in fns] for a in fns]
    again = [o.grad_fn is f for o, f in zip(outs, fns)]
    return names, same, again


@pytest.mark.parametrize("name", sorted(CASES))
def test_outputs_of_one_node_share_its_object(torch, name):
    assert _identities(G, name) == _identities(torch, name)


def test_object_outlived_by_its_node():
    x = G.tensor([1.0, 2.0], requires_grad=True)
    y = (x * 2).sum()
    first = y.grad_fn
    first.foo = 1  # the object's own state lives as long as the object
    assert y.grad_fn is first and y.grad_fn.foo == 1
    ident = id(first)
    del first
    gc.collect()
    second = y.grad_fn
    assert not hasattr(second, "foo") or id(second) == ident
    assert second.name() == "SumBackward0"
    assert second.next_functions[0][0] is y.grad_fn.next_functions[0][0]
    y.backward()
    assert x.grad.tolist() == [2.0, 2.0]


def test_next_functions_objects_are_the_outputs_grad_fn(torch):
    def run(m):
        x = m.tensor([[1.0, 3.0], [2.0, 0.5]], requires_grad=True)
        v, i = x.max(1)
        s = v.sum()
        return s.grad_fn.next_functions[0][0] is v.grad_fn, v.grad_fn is i.grad_fn
    assert run(G) == run(torch)


@pytest.mark.parametrize("nested", [False, True])
def test_jacrev_calls_its_function_once(torch, nested):
    def run(m):
        calls = []

        def f(x):
            calls.append(1)
            return x.sin() * x.sum()

        x = m.tensor([0.5, -1.0, 2.0], dtype=m.float64)
        j = (m.func.jacrev(m.func.jacrev(f)) if nested else m.func.jacrev(f))(x)
        return len(calls), j.detach().numpy()

    (gn, gj), (tn, tj) = run(G), run(torch)
    assert gn == tn
    import numpy as np
    np.testing.assert_allclose(gj, tj, rtol=1e-14, atol=1e-15)


def test_jacrev_calls_once_under_vmap_and_with_aux(torch):
    def run(m):
        calls = []

        def f(x, w):
            calls.append(1)
            return (w @ x).tanh(), x.sum()

        x = m.tensor([[0.5, -1.0], [2.0, 0.25]], dtype=m.float64)
        w = m.tensor([[1.0, 2.0], [-0.5, 0.75], [0.1, 0.2]], dtype=m.float64)
        j, aux = m.func.vmap(m.func.jacrev(f, (0, 1), has_aux=True), (0, None))(x, w)
        return len(calls), [t.detach().numpy() for t in (*j, aux)]

    (gn, gj), (tn, tj) = run(G), run(torch)
    assert gn == tn
    import numpy as np
    for a, b in zip(gj, tj):
        np.testing.assert_allclose(a, b, rtol=1e-14, atol=1e-15)


def _graph(fn, depth=0, out=None):
    out = [] if out is None else out
    if fn is None or depth > 12:
        return out
    out.append((depth, fn.name().split("::")[-1]))
    for f, _ in fn.next_functions:
        _graph(f, depth + 1, out)
    return out


NESTED = {
    "grad(grad(f))": lambda m, f, x: m.func.grad(lambda v: m.func.grad(f)(v).sum())(x),
    "grad(f)": lambda m, f, x: m.func.grad(f)(x),
    "vjp": lambda m, f, x: m.func.vjp(lambda v: v.sin() * v, x)[1](x * 1)[0],
    "grad(grad(grad(f)))": lambda m, f, x: m.func.grad(
        lambda v: m.func.grad(lambda u: m.func.grad(f)(u).sum())(v).sum())(x),
}


@pytest.mark.parametrize("name", sorted(NESTED))
def test_nested_transforms_graph_as_torch(torch, name):
    """A transform's input that is in the caller's graph is aliased (so nested transforms keep
    it apart from the outer input) by a node the graph's face skips: the graph left behind
    has torch's nodes, with no AliasBackward0 between the transforms."""
    def run(m):
        x = m.tensor([0.5, -1.0, 2.0], dtype=m.float64, requires_grad=True)
        r = NESTED[name](m, lambda v: (v.sin() * v).sum(), x)
        g, = m.autograd.grad(r.sum(), x)
        return _graph(r.grad_fn), r.detach().numpy(), g.numpy()

    (gg, gv, gd), (tg, tv, td) = run(G), run(torch)
    assert gg == tg
    import numpy as np
    np.testing.assert_allclose(gv, tv, rtol=1e-14)
    np.testing.assert_allclose(gd, td, rtol=1e-14)
