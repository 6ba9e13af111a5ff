"""Forward-mode tangents carry a grad graph exactly when PyTorch's do (issue 22): plain when
nothing requires grad (the formulas that read a saved output, `exp`, `sqrt`, `softmax`,
`reciprocal`, ..., re-attached it to a node that is never recorded), a graph with PyTorch's
node names when the primal requires grad (tanh / sigmoid: one TanhBackwardBackward0 /
SigmoidBackwardBackward0 node, PyTorch's `tanh_backward` / `sigmoid_backward`, gelu's one
GeluBackwardBackward0, also under
create_graph in reverse mode, and differentiable again); against torch 2.13."""

import numpy as np
import pytest
from conftest import check, run_both

OPS = {
    "exp": lambda m, x: x.exp(),
    "sqrt": lambda m, x: x.sqrt(),
    "reciprocal": lambda m, x: x.reciprocal(),
    "softmax": lambda m, x: x.softmax(0),
    "log_softmax": lambda m, x: x.log_softmax(0),
    "tanh": lambda m, x: x.tanh(),
    "sigmoid": lambda m, x: x.sigmoid(),
    "rsqrt": lambda m, x: x.rsqrt(),
    "pow_then_exp": lambda m, x: (x ** 2).exp().sum(),
    "gelu": lambda m, x: m.nn.functional.gelu(x),
    "gelu_tanh": lambda m, x: m.nn.functional.gelu(x, approximate="tanh"),
}


def _tangent(m, op, requires_grad):
    import importlib
    fwAD = importlib.import_module(m.__name__ + ".autograd.forward_ad")
    p = m.tensor([0.5, 1.0, 2.0], dtype=m.float64, requires_grad=requires_grad)
    with fwAD.dual_level():
        x = fwAD.make_dual(p, m.tensor([1.0, -1.0, 0.5], dtype=m.float64))
        y = OPS[op](m, x)
        return fwAD.unpack_dual(y).tangent


@pytest.mark.parametrize("op", sorted(OPS))
def test_tangent_plain_without_grad(op):
    g, t = check(lambda m: _tangent(m, op, False))
    assert g.grad_fn is None and not g.requires_grad


@pytest.mark.parametrize("op", sorted(OPS))
def test_tangent_graph_with_grad(op):
    check(lambda m: _tangent(m, op, True))


# gelu: one GeluBackwardBackward0 (derivatives.yaml's gelu_backward, its derivative in x
# FunctionsManual's gelu_double_backward, both `approximate`s).
BACKWARD_OPS = ("tanh", "sigmoid", "gelu", "gelu_tanh")


def _fwAD(m):
    import importlib
    return importlib.import_module(m.__name__ + ".autograd.forward_ad")


@pytest.mark.parametrize("op", BACKWARD_OPS)
def test_double_backward_node_and_higher_orders(op):
    def f(m):
        x = m.tensor([0.5, -1.0, 2.0], dtype=m.float64, requires_grad=True)
        g, = m.autograd.grad(OPS[op](m, x).sum(), x, create_graph=True)
        gg, = m.autograd.grad((g * g).sum(), x, create_graph=True)
        ggg, = m.autograd.grad(gg.sum(), x)
        return g, gg, ggg, g.grad_fn.next_functions[1][0]

    check(f)


@pytest.mark.parametrize("op", BACKWARD_OPS)
def test_tangent_of_the_double_backward_node(op):
    # forward over reverse: the tangent of tanh_backward(g, r) (its own jvp formula)
    def f(m):
        fwAD = _fwAD(m)
        p = m.tensor([0.5, -1.0, 2.0], dtype=m.float64, requires_grad=True)
        with fwAD.dual_level():
            x = fwAD.make_dual(p, m.tensor([1.0, -1.0, 0.5], dtype=m.float64))
            g, = m.autograd.grad(OPS[op](m, x).sum(), x, create_graph=True)
            primal, tangent = fwAD.unpack_dual(g)
            back, = m.autograd.grad(tangent.sum(), p)
            return primal.detach(), tangent, back

    check(f)


@pytest.mark.parametrize("op", BACKWARD_OPS)
def test_forward_over_forward(op):
    # Values only: gradrs's jvp inside a jvp is the double-vjp trick, whose zero entries of
    # the Hessian may be -0.0 where PyTorch's nested forward levels give 0.0.
    def f(m):
        x = m.tensor([0.5, -1.0, 2.0], dtype=m.float64)
        h = m.func.jacfwd(m.func.jacfwd(lambda v: OPS[op](m, v)))(x)
        return np.asarray(h.tolist()), h.grad_fn

    (ours, our_fn), (theirs, their_fn) = run_both(f)
    np.testing.assert_allclose(ours, theirs, rtol=1e-12, atol=0)
    assert our_fn is None and their_fn is None


@pytest.mark.parametrize("approximate", ["none", "tanh"])
def test_gelu_double_backward_node_saves(approximate):
    """GeluBackwardBackward0 shows torch's saved values (`_saved_approximate` too)."""
    def f(m):
        x = m.tensor([0.5, -1.0, 2.0, -3.0], dtype=m.float64, requires_grad=True)
        g, = m.autograd.grad(m.nn.functional.gelu(x, approximate=approximate).sum(), x,
                             create_graph=True)
        fn = g.grad_fn
        return (fn._saved_approximate, fn._saved_self, fn._saved_grad_output,
                sorted(a for a in dir(fn) if a.startswith("_saved_")))

    check(f)
