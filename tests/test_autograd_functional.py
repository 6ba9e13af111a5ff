"""gradrs.autograd.functional (jacobian, hessian, vjp, jvp, hvp, vhp) against PyTorch's."""

import numpy as np
import pytest
from conftest import G, assert_same_values, check_error, need_torch, to_np

pytestmark = pytest.mark.usefixtures("restore_grad_mode")

RNG = np.random.default_rng(0)
X = RNG.standard_normal((2, 3))
Y = RNG.standard_normal(3)
V23 = RNG.standard_normal((2, 3))
V3 = RNG.standard_normal(3)


def t(M, a, requires_grad=False):
    return M.tensor(a, dtype=M.float64, requires_grad=requires_grad)


# Functions of one or two inputs, returning one tensor or a tuple.
def f_single(M):
    return lambda x: (x.exp() * x.sin()).sum(dim=1)


def f_two_in(M):
    return lambda x, y: (x * y).tanh() + y ** 2


def f_two_out(M):
    return lambda x, y: ((x * y).sum(dim=0), (x ** 3).mean() + y.sum())


def f_scalar(M):
    return lambda x: (x.sin() * x ** 2).sum()


def f_scalar2(M):
    return lambda x, y: (x.exp() * y).sum() + (y ** 3).sum()


def both(build):
    """`build(M)` for gradrs and torch."""
    return build(G), build(need_torch())


def same(g, r, rtol=1e-10, atol=1e-12, requires_grad=True):
    """Recursive comparison of nested tuples of tensors (values, dtype, shape, requires_grad)."""
    if isinstance(r, (tuple, list)):  # forward-mode Jacobians nest in lists, as PyTorch's
        assert type(g) is type(r) and len(g) == len(r)
        for a, b in zip(g, r):
            same(a, b, rtol, atol, requires_grad)
        return
    assert_same_values(g, r, rtol=rtol, atol=atol)
    if requires_grad:
        assert g.requires_grad == r.requires_grad


CASES = [
    (f_single, lambda M: t(M, X)),
    (f_two_in, lambda M: (t(M, X), t(M, Y))),
    (f_two_out, lambda M: (t(M, X), t(M, Y))),
    (f_two_out, lambda M: [t(M, X), t(M, Y)]),
]


@pytest.mark.parametrize("vectorize", [False, True])
@pytest.mark.parametrize("create_graph", [False, True])
@pytest.mark.parametrize("case", range(len(CASES)))
def test_jacobian(case, create_graph, vectorize):
    fn, inputs = CASES[case]
    (fg, ft), (ig, it) = both(fn), both(inputs)
    # A list of inputs is a single (non-tuple) input to PyTorch: the error is the same.
    if isinstance(it, list):
        check_error(lambda M: M.autograd.functional.jacobian(fn(M), inputs(M)))
        return
    jg = G.autograd.functional.jacobian(fg, ig, create_graph=create_graph, vectorize=vectorize)
    jt = need_torch().autograd.functional.jacobian(ft, it, create_graph=create_graph, vectorize=vectorize)
    same(jg, jt)


@pytest.mark.parametrize("case", range(3))
def test_jacobian_forward_mode(case):
    fn, inputs = CASES[case]
    (fg, ft), (ig, it) = both(fn), both(inputs)
    jg = G.autograd.functional.jacobian(fg, ig, vectorize=True, strategy="forward-mode")
    jt = need_torch().autograd.functional.jacobian(ft, it, vectorize=True, strategy="forward-mode")
    same(jg, jt)


def test_jacobian_create_graph_differentiable(torch):
    def run(M):
        x = t(M, X, requires_grad=True)
        j = M.autograd.functional.jacobian(lambda x: x ** 3, x, create_graph=True)
        (j.sum() * 2).backward()
        return x.grad

    same(run(G), run(torch))


def test_jacobian_finite_differences():
    """The float64 Jacobian equals central differences of the function (no torch needed)."""
    x = G.tensor(X, dtype=G.float64)
    y = G.tensor(Y, dtype=G.float64)

    def f(x, y):
        return (x * y).tanh() * x.exp(), (x.sin() @ y).sum()

    jac = G.autograd.functional.jacobian(f, (x, y))
    eps = 1e-6
    inputs = [to_np(x), to_np(y)]
    for j in range(2):
        for idx in np.ndindex(inputs[j].shape):
            plus = [a.copy() for a in inputs]
            minus = [a.copy() for a in inputs]
            plus[j][idx] += eps
            minus[j][idx] -= eps
            fp = f(*(G.tensor(a) for a in plus))
            fm = f(*(G.tensor(a) for a in minus))
            for i in range(2):
                fd = (to_np(fp[i]) - to_np(fm[i])) / (2 * eps)
                got = to_np(jac[i][j])[(...,) + idx]
                np.testing.assert_allclose(got, fd, rtol=1e-6, atol=1e-8)


@pytest.mark.parametrize("vectorize", [False, True])
@pytest.mark.parametrize("create_graph", [False, True])
@pytest.mark.parametrize("two", [False, True])
def test_hessian(two, create_graph, vectorize):
    fn = f_scalar2 if two else f_scalar
    (fg, ft) = both(fn)
    ig, it = both((lambda M: (t(M, V3), t(M, Y))) if two else (lambda M: t(M, X)))
    hg = G.autograd.functional.hessian(fg, ig, create_graph=create_graph, vectorize=vectorize)
    ht = need_torch().autograd.functional.hessian(ft, it, create_graph=create_graph, vectorize=vectorize)
    same(hg, ht)


def test_hessian_forward_outer(torch):
    # PyTorch's result requires grad, through the dual tensors its forward-mode makes
    # internally (unreachable from the caller); gradrs's does not.
    hg = G.autograd.functional.hessian(f_scalar(G), t(G, X), vectorize=True,
                                       outer_jacobian_strategy="forward-mode")
    ht = torch.autograd.functional.hessian(f_scalar(torch), t(torch, X), vectorize=True,
                                           outer_jacobian_strategy="forward-mode")
    same(hg, ht, requires_grad=False)


@pytest.mark.parametrize("create_graph", [False, True])
def test_vjp_jvp(create_graph, torch):
    for name, fn, inputs, v in [
        ("vjp", f_single, lambda M: t(M, X), lambda M: t(M, Y[:2])),
        ("vjp", f_two_out, lambda M: (t(M, X), t(M, Y)), lambda M: (t(M, Y), t(M, 0.5))),
        ("vjp", f_scalar, lambda M: t(M, X), lambda M: None),
        ("jvp", f_single, lambda M: t(M, X), lambda M: t(M, V23)),
        ("jvp", f_two_in, lambda M: (t(M, X), t(M, Y)), lambda M: (t(M, V23), t(M, V3))),
        ("jvp", f_two_out, lambda M: (t(M, X), t(M, Y)), lambda M: (t(M, V23), t(M, V3))),
        ("jvp", lambda M: lambda x: x.exp() * 3, lambda M: t(M, [0.3]), lambda M: None),
    ]:
        rg = getattr(G.autograd.functional, name)(fn(G), inputs(G), v(G), create_graph=create_graph)
        rt = getattr(torch.autograd.functional, name)(fn(torch), inputs(torch), v(torch),
                                                      create_graph=create_graph)
        same(rg, rt)


@pytest.mark.parametrize("name", ["hvp", "vhp"])
@pytest.mark.parametrize("create_graph", [False, True])
def test_hvp_vhp(name, create_graph, torch):
    for fn, inputs, v in [
        (f_scalar, lambda M: t(M, X), lambda M: t(M, V23)),
        (f_scalar2, lambda M: (t(M, V3), t(M, Y)), lambda M: (t(M, Y), t(M, V3))),
    ]:
        rg = getattr(G.autograd.functional, name)(fn(G), inputs(G), v(G), create_graph=create_graph)
        rt = getattr(torch.autograd.functional, name)(fn(torch), inputs(torch), v(torch),
                                                      create_graph=create_graph)
        same(rg, rt)


def test_inputs_that_require_grad_keep_their_graph(torch):
    """With create_graph, results depend on the caller's inputs (a view, not a detached copy)."""
    def run(M):
        x = t(M, X, requires_grad=True)
        out, hv = M.autograd.functional.hvp(f_scalar(M), x, t(M, V23), create_graph=True)
        (hv.sum() + out).backward()
        return x.grad

    same(run(G), run(torch))


def f_const(M):
    return lambda x: M.ones(3, dtype=M.float64)


def f_linear(M):
    return lambda x: x * 2


def f_partial(M):
    return lambda x, y: x * 2


ERRORS = [
    # strict mode: output independent of the input, linear functions, unused inputs
    lambda M: M.autograd.functional.vjp(f_const(M), t(M, Y), t(M, Y), strict=True),
    lambda M: M.autograd.functional.vjp(f_partial(M), (t(M, Y), t(M, Y)), t(M, Y), strict=True),
    lambda M: M.autograd.functional.jvp(f_partial(M), (t(M, Y), t(M, Y)), (t(M, Y), t(M, Y)), strict=True),
    lambda M: M.autograd.functional.jvp(f_const(M), t(M, Y), t(M, Y), strict=True),
    lambda M: M.autograd.functional.jacobian(f_const(M), t(M, Y), strict=True),
    lambda M: M.autograd.functional.jacobian(f_partial(M), (t(M, Y), t(M, Y)), strict=True),
    lambda M: M.autograd.functional.jacobian(f_linear(M), t(M, Y), strict=True, create_graph=True),
    lambda M: M.autograd.functional.jacobian(f_linear(M), t(M, Y), strict=True, vectorize=True),
    lambda M: M.autograd.functional.hessian(lambda x: (x * 2).sum(), t(M, Y), strict=True),
    lambda M: M.autograd.functional.hessian(lambda x, y: (x ** 2).sum(), (t(M, Y), t(M, Y)), strict=True),
    lambda M: M.autograd.functional.vhp(lambda x: (x * 2).sum(), t(M, Y), t(M, Y), strict=True),
    lambda M: M.autograd.functional.hvp(lambda x: (x * 2).sum(), t(M, Y), t(M, Y), strict=True),
    lambda M: M.autograd.functional.hvp(lambda x, y: (x ** 3).sum(), (t(M, Y), t(M, Y)), (t(M, Y), t(M, Y)),
                                        strict=True),
    lambda M: M.autograd.functional.vhp(lambda x, y: (x ** 3).sum() + y.sum(), (t(M, Y), t(M, Y)),
                                        (t(M, Y), t(M, Y)), strict=True),
    lambda M: M.autograd.functional.jvp(f_linear(M), t(M, Y), t(M, Y), strict=True, create_graph=True),
    lambda M: M.autograd.functional.vjp(f_linear(M), t(M, Y), t(M, Y), strict=True, create_graph=True),
    # shapes and types
    lambda M: M.autograd.functional.vjp(f_linear(M), t(M, Y)),
    lambda M: M.autograd.functional.vjp(f_linear(M), t(M, Y), t(M, X)),
    lambda M: M.autograd.functional.vjp(f_two_out(M), (t(M, X), t(M, Y)), (t(M, Y),)),
    lambda M: M.autograd.functional.vjp(f_two_out(M), (t(M, X), t(M, Y)), (t(M, Y), t(M, Y))),
    lambda M: M.autograd.functional.jvp(f_linear(M), t(M, Y)),
    lambda M: M.autograd.functional.jvp(f_linear(M), 3.0),
    lambda M: M.autograd.functional.jvp(f_linear(M), (t(M, Y), 3.0)),
    lambda M: M.autograd.functional.vjp(lambda x: [x], t(M, Y), t(M, Y)),
    lambda M: M.autograd.functional.hessian(f_linear(M), t(M, Y)),
    lambda M: M.autograd.functional.hessian(lambda x: (x, x), t(M, Y)),
    lambda M: M.autograd.functional.hvp(f_linear(M), t(M, Y), t(M, Y)),
    lambda M: M.autograd.functional.vhp(lambda x: (x.sum(),), t(M, Y), t(M, Y)),
    lambda M: M.autograd.functional.hvp(f_scalar(M), t(M, Y)),
    # strategies
    lambda M: M.autograd.functional.jacobian(f_linear(M), t(M, Y), strategy="forward"),
    lambda M: M.autograd.functional.jacobian(f_linear(M), t(M, Y), strategy="forward-mode"),
    lambda M: M.autograd.functional.jacobian(f_linear(M), t(M, Y), strategy="forward-mode", create_graph=True),
    lambda M: M.autograd.functional.jacobian(f_linear(M), t(M, Y), strategy="forward-mode", strict=True),
    lambda M: M.autograd.functional.hessian(f_scalar(M), t(M, Y), outer_jacobian_strategy="x"),
]


@pytest.mark.parametrize("case", range(len(ERRORS)))
def test_errors(case):
    check_error(ERRORS[case])


def test_non_strict_zeros(torch):
    """Without strict, an unused input gets zeros (not None), and results carry no graph."""
    for name in ["vjp", "jvp"]:
        args = ((t(G, Y), t(G, Y)),), ((t(torch, Y), t(torch, Y)),)
        v = (t(G, Y),) if name == "vjp" else ((t(G, Y), t(G, Y)),)
        vt = (t(torch, Y),) if name == "vjp" else ((t(torch, Y), t(torch, Y)),)
        rg = getattr(G.autograd.functional, name)(f_partial(G), *args[0], *v)
        rt = getattr(torch.autograd.functional, name)(f_partial(torch), *args[1], *vt)
        same(rg, rt)
    same(G.autograd.functional.jacobian(f_partial(G), (t(G, Y), t(G, Y))),
         torch.autograd.functional.jacobian(f_partial(torch), (t(torch, Y), t(torch, Y))))


def test_grad_mode_is_left_alone(torch):
    """Called under no_grad, the results carry no graph and grad mode stays off."""
    for M in (G, torch):
        with M.no_grad():
            out, res = M.autograd.functional.vhp(f_scalar(M), t(M, X), t(M, V23))
            assert not M.is_grad_enabled()
        assert not out.requires_grad and not res.requires_grad


@pytest.mark.parametrize("vectorize", [False, True])
def test_shapes_scalars_and_unused_inputs(vectorize, torch):
    """0-dim inputs and outputs, and an output that ignores one input (zeros blocks)."""
    def f(M):
        return lambda x, s: (x.sum() * 2, (x * 0 + 1).detach() * 3, s * s)

    def inputs(M):
        return (t(M, X), t(M, 1.5))

    jg = G.autograd.functional.jacobian(f(G), inputs(G), vectorize=vectorize)
    jt = torch.autograd.functional.jacobian(f(torch), inputs(torch), vectorize=vectorize)
    same(jg, jt)
