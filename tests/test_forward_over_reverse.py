"""Forward mode meeting reverse mode, against PyTorch: saved outputs keep their tangent,
tangents set by Python-recorded nodes keep their history, and the fmax/fmin and nan_to_num
formulas propagate NaN as PyTorch's do; a tangent's views stay differentiable, so the
transforms composed of forward over reverse (`func.hessian` & co.) keep the graph to a captured
tensor that requires grad (tests/programs_gaps.md 46)."""

import numpy as np
import pytest

import gradrs as G

X = np.array([[0.3, -1.2, 0.7], [1.5, 0.2, -0.4]])
T = np.array([[1.0, 0.5, -2.0], [0.25, -1.0, 3.0]])


def _np(t):
    return None if t is None else np.asarray(t.detach().tolist(), dtype=float)


OPS = {
    "exp": lambda m, x: x.exp(),
    "tanh": lambda m, x: x.tanh(),
    "sigmoid": lambda m, x: x.sigmoid(),
    "sqrt": lambda m, x: (x * x + 1).sqrt(),
    "rsqrt": lambda m, x: (x * x + 1).rsqrt(),
    "reciprocal": lambda m, x: (x * x + 1).reciprocal(),
    "expm1": lambda m, x: x.expm1(),
    "softmax": lambda m, x: m.softmax(x, 1),
    "log_softmax": lambda m, x: m.log_softmax(x, 1) * x,
}


@pytest.mark.parametrize("op", sorted(OPS))
def test_grad_of_saved_output_carries_tangent(op, torch):
    # with a dual input, the gradient built with create_graph has the tangent H t
    def run(m):
        fw = m.autograd.forward_ad
        with fw.dual_level():
            x = fw.make_dual(m.tensor(X, dtype=m.float64).requires_grad_(),
                             m.tensor(T, dtype=m.float64))
            (g,) = m.autograd.grad(OPS[op](m, x).pow(2).sum(), x, create_graph=True)
            p, t = fw.unpack_dual(g)
            return _np(p), _np(t)

    (gp, gt), (tp, tt) = run(G), run(torch)
    np.testing.assert_allclose(gp, tp, rtol=1e-12, atol=1e-12)
    assert tt is not None and gt is not None
    np.testing.assert_allclose(gt, tt, rtol=1e-10, atol=1e-12)


@pytest.mark.parametrize("op", sorted(OPS))
def test_hessian_matches(op, torch):
    def run(m):
        f = lambda v: OPS[op](m, v).pow(2).sum()  # noqa: E731
        return _np(m.func.hessian(f)(m.tensor(X, dtype=m.float64)))

    np.testing.assert_allclose(run(G), run(torch), rtol=1e-10, atol=1e-12)


@pytest.mark.parametrize("name", ["fmax", "fmin"])
def test_fmax_fmin_tangent_at_ties_and_nan(name, torch):
    nan, inf = float("nan"), float("inf")
    a, b = [1.0, 2.0, nan, 1.0, 4.0], [1.0, 3.0, 1.0, 1.0, nan]
    ta, tb = [nan, 1.0, 2.0, inf, 5.0], [1.0, nan, 3.0, 1.0, 7.0]

    def run(m):
        fw = m.autograd.forward_ad
        with fw.dual_level():
            x = fw.make_dual(m.tensor(a, dtype=m.float64), m.tensor(ta, dtype=m.float64))
            y = fw.make_dual(m.tensor(b, dtype=m.float64), m.tensor(tb, dtype=m.float64))
            p, t = fw.unpack_dual(getattr(m, name)(x, y))
            return _np(p), _np(t)

    (gp, gt), (tp, tt) = run(G), run(torch)
    np.testing.assert_array_equal(gp, tp)
    np.testing.assert_array_equal(gt, tt)


def test_nan_to_num_gradient_and_tangent(torch):
    nan, inf = float("nan"), float("inf")
    x, g = [1.0, nan, inf, -inf], [nan, nan, inf, 1.0]

    def run(m):
        xt = m.tensor(x, dtype=m.float64, requires_grad=True)
        xt.nan_to_num().backward(m.tensor(g, dtype=m.float64))
        fw = m.autograd.forward_ad
        with fw.dual_level():
            d = fw.make_dual(m.tensor(x, dtype=m.float64), m.tensor(g, dtype=m.float64))
            tan = fw.unpack_dual(d.nan_to_num()).tangent
        return _np(xt.grad), _np(tan)

    (gg, gt), (tg, tt) = run(G), run(torch)
    np.testing.assert_array_equal(gg, tg)
    np.testing.assert_array_equal(gt, tt)


@pytest.mark.parametrize("fn", ["inv", "cholesky", "eigvalsh"])
def test_reverse_through_python_recorded_tangents(fn, torch):
    # the tangents of Python-recorded nodes (linalg) keep their graph: grad of a jacfwd
    a0 = np.array([[4.0, 1.0, 0.5], [1.0, 3.0, 0.2], [0.5, 0.2, 2.0]])

    def run(m):
        a = m.tensor(a0, dtype=m.float64, requires_grad=True)
        j = m.func.jacfwd(getattr(m.linalg, fn))(a)
        (g,) = m.autograd.grad((j ** 2).sum(), a)
        return _np(g)

    np.testing.assert_allclose(run(G), run(torch), rtol=1e-9, atol=1e-10)


VIEWS = {
    "view": lambda c: c.view(3, 1),
    "reshape": lambda c: c.reshape(3, 1),
    "sum keepdim reshape": lambda c: c.sum(0, keepdim=True).reshape(()),
    "slice": lambda c: c[1:],
    "t": lambda c: c[None].t(),
    "expand": lambda c: c[None].expand(2, 3),
    "squeeze": lambda c: c[None].squeeze(0),
    "select": lambda c: c[0],
    "unsqueeze": lambda c: c.unsqueeze(1),
    "permute": lambda c: c.view(3, 1).permute(1, 0),
}


@pytest.mark.parametrize("name", list(VIEWS))
def test_view_of_a_differentiable_tangent(name, torch):
    # PyTorch's tangent of a view op is the op applied to the input's tangent, recorded
    def run(m):
        fw = m.autograd.forward_ad
        w = m.tensor([1.0, 2.0, 3.0], dtype=m.float64, requires_grad=True)
        with fw.dual_level():
            x = fw.make_dual(m.tensor([0.5, -1.0, 2.0], dtype=m.float64),
                             m.tensor([1.0, 0.0, -0.5], dtype=m.float64))
            t = fw.unpack_dual(VIEWS[name](w * x.cos())).tangent
            (g,) = m.autograd.grad((t * t).sum(), w)
            return type(t.grad_fn).__name__, _np(t), _np(g)

    ours, theirs = run(G), run(torch)
    assert ours[0] == theirs[0]
    for a, b in zip(ours[1:], theirs[1:]):
        np.testing.assert_allclose(a, b, rtol=1e-12)


def _closure(m):
    w = m.tensor([1.0, 2.0, 3.0], dtype=m.float64, requires_grad=True)
    return w, lambda x: (w * x.sin()).sum() + (w * x).prod()


TRANSFORMS = {
    "hessian": lambda m, f: m.func.hessian(f),
    "jacfwd(jacfwd)": lambda m, f: m.func.jacfwd(m.func.jacfwd(f)),
    "jacfwd(jacrev)": lambda m, f: m.func.jacfwd(m.func.jacrev(f)),
    "jacrev(jacfwd)": lambda m, f: m.func.jacrev(m.func.jacfwd(f)),
    "jacrev(jacrev)": lambda m, f: m.func.jacrev(m.func.jacrev(f)),
    "jacfwd(grad)": lambda m, f: m.func.jacfwd(m.func.grad(f)),
    "vmap(hessian)": lambda m, f: (lambda x: m.func.vmap(m.func.hessian(f))(
        m.stack([x, x * 2]))),
}


@pytest.mark.parametrize("name", list(TRANSFORMS))
def test_transform_keeps_graph_to_captured_parameter(name, torch):
    # tests/programs_gaps.md 46: torch.func.hessian(f)(x), f closing over w requiring grad,
    # is differentiable in w
    def run(m):
        w, f = _closure(m)
        h = TRANSFORMS[name](m, f)(m.tensor([0.5, -1.0, 2.0], dtype=m.float64))
        (g,) = m.autograd.grad((h * h).sum(), w)
        return type(h.grad_fn).__name__, _np(h), _np(g)

    ours, theirs = run(G), run(torch)
    assert ours[0] == theirs[0]
    for a, b in zip(ours[1:], theirs[1:]):
        np.testing.assert_allclose(a, b, rtol=1e-10)
