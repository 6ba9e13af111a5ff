"""Finite-difference gradient checks (float64) using only the module under test.

No PyTorch needed: the analytical Jacobian from autograd (one ``autograd.grad`` call per output
element, with a one-hot ``grad_outputs``) is compared with a central finite-difference Jacobian
computed by perturbing the inputs one element at a time through a numpy round trip.
Second derivatives are checked by running the same check on the first derivative computed with
``create_graph=True``.
"""

from __future__ import annotations

import numpy as np
import pytest
from conftest import G, dtype_name

pytestmark = pytest.mark.usefixtures("restore_grad_mode")

# --------------------------------------------------------------------------------------------
# the checker
# --------------------------------------------------------------------------------------------


def _leaf(arr):
    """A float64 leaf tensor requiring grad holding a copy of ``arr``."""
    return G.tensor(np.asarray(arr, dtype=np.float64).tolist(), dtype=G.float64,
                    requires_grad=True)


def _np(t):
    return np.array(t.detach().numpy(), dtype=np.float64, copy=True)


def _as_tensor_output(out):
    assert isinstance(out, G.Tensor), f"f must return a tensor, got {type(out)!r}"
    assert dtype_name(out.dtype) == "float64", f"output dtype is {out.dtype}"
    return out


def numerical_jacobian(f, arrays, eps):
    """``[J_i]`` with ``J_i[k, j] = d out_k / d input_i[j]`` by central differences."""
    out0 = _np(_as_tensor_output(f(*[_leaf(a) for a in arrays])))
    jacs = []
    for i, a in enumerate(arrays):
        jac = np.zeros((out0.size, a.size))
        for j in range(a.size):
            plus = [b.copy() for b in arrays]
            minus = [b.copy() for b in arrays]
            plus[i].reshape(-1)[j] += eps
            minus[i].reshape(-1)[j] -= eps
            fp = _np(f(*[_leaf(b) for b in plus])).reshape(-1)
            fm = _np(f(*[_leaf(b) for b in minus])).reshape(-1)
            jac[:, j] = (fp - fm) / (2 * eps)
        jacs.append(jac)
    return out0, jacs


def analytical_jacobian(f, arrays):
    inputs = [_leaf(a) for a in arrays]
    out = _as_tensor_output(f(*inputs))
    shape = tuple(out.shape)
    n_out = int(np.prod(shape, dtype=np.int64))
    jacs = [np.zeros((n_out, a.size)) for a in arrays]
    if not out.requires_grad:  # output independent of every input
        return jacs
    for k in range(n_out):
        onehot = np.zeros(n_out)
        onehot[k] = 1.0
        go = G.tensor(onehot.reshape(shape).tolist(), dtype=G.float64)
        grads = G.autograd.grad(out, inputs, grad_outputs=go, retain_graph=True,
                                allow_unused=True)
        assert isinstance(grads, tuple) and len(grads) == len(inputs)
        for i, (g, x) in enumerate(zip(grads, inputs)):
            if g is None:
                continue
            assert tuple(g.shape) == tuple(x.shape), (
                f"grad {i} has shape {tuple(g.shape)}, input has {tuple(x.shape)}"
            )
            assert dtype_name(g.dtype) == "float64", f"grad {i} dtype {g.dtype}"
            jacs[i][k, :] = _np(g).reshape(-1)
    return jacs


def gradcheck(f, inputs, eps=1e-6, atol=1e-5, rtol=1e-3):
    """Compare autograd's Jacobian of ``f`` with central finite differences.

    ``inputs`` are array-likes (converted to float64 leaves that require grad).
    Raises AssertionError describing the first mismatching input.
    """
    arrays = [np.array(a, dtype=np.float64) for a in inputs]
    _, num = numerical_jacobian(f, arrays, eps)
    ana = analytical_jacobian(f, arrays)
    for i, (n, a) in enumerate(zip(num, ana)):
        if not np.allclose(a, n, atol=atol, rtol=rtol):
            raise AssertionError(
                f"Jacobian mismatch for input {i}:\nnumerical:\n{n}\nanalytical:\n{a}"
            )
    return True


def first_derivative(f, index):
    """``xs -> d(sum of f(xs) weighted by ones)/d xs[index]``, differentiable (create_graph)."""

    def g(*xs):
        out = f(*xs)
        grads = G.autograd.grad(out, xs, grad_outputs=G.ones_like(out), create_graph=True,
                                allow_unused=True)
        d = grads[index]
        if d is None:
            return G.zeros_like(xs[index])
        return d

    return g


def gradgradcheck(f, inputs, **kw):
    for i in range(len(inputs)):
        gradcheck(first_derivative(f, i), inputs, **kw)
    return True


# --------------------------------------------------------------------------------------------
# inputs
# --------------------------------------------------------------------------------------------


def rnd(shape, seed, lo=-2.0, hi=2.0, away=0.15):
    """Deterministic values in [lo, hi], kept ``away`` from 0 (kinks and poles)."""
    rng = np.random.default_rng(seed)
    v = rng.uniform(lo, hi, size=shape)
    if away:
        v = np.where(np.abs(v) < away, np.sign(v + 1e-12) * away + v, v)
    return v


def pos(shape, seed):
    return rnd(shape, seed, lo=0.3, hi=2.0, away=0)


# --------------------------------------------------------------------------------------------
# first derivatives of every op
# --------------------------------------------------------------------------------------------

_BIN = {
    "add": lambda a, b: a + b,
    "sub": lambda a, b: a - b,
    "mul": lambda a, b: a * b,
    "div": lambda a, b: a / b,
    "pow": lambda a, b: a**b,
}
_PAIRS = {
    "same": ((3,), (3,)),
    "row": ((2, 3), (3,)),
    "col": ((2, 3), (2, 1)),
    "outer": ((2, 1), (1, 3)),
    "rhs0d": ((2, 3), ()),
    "lhs0d": ((), (2, 3)),
    "3d": ((2, 1, 3), (2, 1)),
}

CASES: dict = {}
for _name, _f in _BIN.items():
    for _pn, (_sa, _sb) in _PAIRS.items():
        _ia = pos(_sa, 1) if _name == "pow" else rnd(_sa, 1)
        _ib = rnd(_sb, 2, away=0.5) if _name == "div" else rnd(_sb, 2)
        CASES[f"{_name}_{_pn}"] = (_f, [_ia, _ib])

CASES.update(
    {
        # Python scalars on either side
        "add_scalar": (lambda a: a + 2, [rnd((2, 3), 3)]),
        "radd_scalar": (lambda a: 2.5 + a, [rnd((2, 3), 3)]),
        "sub_scalar": (lambda a: a - 1.5, [rnd((2, 3), 3)]),
        "rsub_scalar": (lambda a: 2 - a, [rnd((2, 3), 3)]),
        "mul_scalar": (lambda a: a * 3, [rnd((2, 3), 3)]),
        "rmul_scalar": (lambda a: -0.5 * a, [rnd((2, 3), 3)]),
        "div_scalar": (lambda a: a / 4, [rnd((2, 3), 3)]),
        "rdiv_scalar": (lambda a: 3 / a, [rnd((2, 3), 3, away=0.5)]),
        "pow_2": (lambda a: a**2, [rnd((2, 3), 3)]),
        "pow_3": (lambda a: a**3, [rnd((2, 3), 3)]),
        "pow_half": (lambda a: a**0.5, [pos((2, 3), 3)]),
        "pow_neg": (lambda a: a**-1.5, [pos((2, 3), 3)]),
        "pow_0": (lambda a: a**0, [rnd((2, 3), 3)]),
        "pow_1": (lambda a: a**1, [rnd((2, 3), 3)]),
        "rpow_int": (lambda a: 2**a, [rnd((2, 3), 3)]),
        "rpow_float": (lambda a: 0.5**a, [rnd((2, 3), 3)]),
        "pow_fn": (lambda a: G.pow(a, 3), [rnd((2, 3), 3)]),
        "pow_fn_scalar_base": (lambda a: G.pow(3, a), [rnd((2, 3), 3)]),
        "add_fn": (lambda a, b: G.add(a, b), [rnd((2, 3), 4), rnd((3,), 5)]),
        "sub_fn": (lambda a, b: G.sub(a, b), [rnd((2, 3), 4), rnd((3,), 5)]),
        "mul_fn": (lambda a, b: G.mul(a, b), [rnd((2, 3), 4), rnd((3,), 5)]),
        "div_fn": (lambda a, b: G.div(a, b), [rnd((2, 3), 4), rnd((3,), 5, away=0.5)]),
        "add_alpha": (lambda a, b: G.add(a, b, alpha=-2), [rnd((2, 3), 4), rnd((3,), 5)]),
        "sub_alpha": (lambda a, b: G.sub(a, b, alpha=3), [rnd((2, 3), 4), rnd((3,), 5)]),
        "mul_const_tensor": (lambda a: a * G.tensor([1.0, -2.0, 3.0], dtype=G.float64),
                             [rnd((2, 3), 6)]),
        "const_tensor_div": (lambda a: G.tensor(2.0, dtype=G.float64) / a,
                             [rnd((2, 3), 6, away=0.5)]),
        "self_mul": (lambda a: a * a, [rnd((2, 3), 6)]),
        "self_div": (lambda a: a / (a * a + 1), [rnd((2, 3), 6)]),
        "self_pow": (lambda a: a**a, [pos((2, 3), 6)]),
        # unary ops (method and function forms)
        "neg": (lambda a: -a, [rnd((2, 3), 7)]),
        "neg_method": (lambda a: a.neg(), [rnd((2, 3), 7)]),
        "neg_fn": (lambda a: G.neg(a), [rnd((2, 3), 7)]),
        "exp": (lambda a: a.exp(), [rnd((2, 3), 7)]),
        "exp_fn": (lambda a: G.exp(a), [rnd((2, 3), 7)]),
        "log": (lambda a: a.log(), [pos((2, 3), 7)]),
        "log_fn": (lambda a: G.log(a), [pos((2, 3), 7)]),
        "sin": (lambda a: a.sin(), [rnd((2, 3), 7)]),
        "sin_fn": (lambda a: G.sin(a), [rnd((2, 3), 7)]),
        "cos": (lambda a: a.cos(), [rnd((2, 3), 7)]),
        "cos_fn": (lambda a: G.cos(a), [rnd((2, 3), 7)]),
        "tanh": (lambda a: a.tanh(), [rnd((2, 3), 7)]),
        "tanh_fn": (lambda a: G.tanh(a), [rnd((2, 3), 7)]),
        "sigmoid": (lambda a: a.sigmoid(), [rnd((2, 3), 7, lo=-4, hi=4)]),
        "sigmoid_fn": (lambda a: G.sigmoid(a), [rnd((2, 3), 7)]),
        "relu": (lambda a: a.relu(), [rnd((2, 3), 7)]),
        "relu_fn": (lambda a: G.relu(a), [rnd((2, 3), 7)]),
        "sqrt": (lambda a: a.sqrt(), [pos((2, 3), 7)]),
        "sqrt_fn": (lambda a: G.sqrt(a), [pos((2, 3), 7)]),
        "abs": (lambda a: a.abs(), [rnd((2, 3), 7)]),
        "abs_fn": (lambda a: G.abs(a), [rnd((2, 3), 7)]),
        "abs_builtin": (lambda a: abs(a), [rnd((2, 3), 7)]),
        "unary_0d": (lambda a: a.exp().sin().tanh(), [rnd((), 7)]),
        # reductions
        "sum": (lambda a: a.sum(), [rnd((2, 3), 8)]),
        "sum_fn": (lambda a: G.sum(a), [rnd((2, 3), 8)]),
        "sum_0": (lambda a: a.sum(0), [rnd((2, 3), 8)]),
        "sum_1": (lambda a: a.sum(1), [rnd((2, 3), 8)]),
        "sum_neg": (lambda a: a.sum(-2), [rnd((2, 3), 8)]),
        "sum_tuple": (lambda a: a.sum((0, 2)), [rnd((2, 3, 2), 8)]),
        "sum_tuple_neg_keepdim": (lambda a: a.sum((-1, 0), keepdim=True), [rnd((2, 3, 2), 8)]),
        "sum_keepdim": (lambda a: a.sum(1, keepdim=True), [rnd((2, 3), 8)]),
        "sum_fn_dim": (lambda a: G.sum(a, -1), [rnd((2, 3), 8)]),
        "sum_0d": (lambda a: a.sum(), [rnd((), 8)]),
        "mean": (lambda a: a.mean(), [rnd((2, 3), 8)]),
        "mean_fn": (lambda a: G.mean(a), [rnd((2, 3), 8)]),
        "mean_0": (lambda a: a.mean(0), [rnd((2, 3), 8)]),
        "mean_neg": (lambda a: a.mean(-1), [rnd((2, 3), 8)]),
        "mean_tuple": (lambda a: a.mean((1, 2)), [rnd((2, 3, 2), 8)]),
        "mean_keepdim": (lambda a: a.mean(0, keepdim=True), [rnd((2, 3), 8)]),
        "mean_fn_dim": (lambda a: G.mean(a, dim=(0, 1), keepdim=True), [rnd((2, 3), 8)]),
        # matmul
        "matmul_1d_1d": (lambda a, b: a @ b, [rnd((3,), 9), rnd((3,), 10)]),
        "matmul_2d_1d": (lambda a, b: a @ b, [rnd((2, 3), 9), rnd((3,), 10)]),
        "matmul_1d_2d": (lambda a, b: a @ b, [rnd((2,), 9), rnd((2, 3), 10)]),
        "matmul_2d_2d": (lambda a, b: a @ b, [rnd((2, 3), 9), rnd((3, 2), 10)]),
        "matmul_3d_3d": (lambda a, b: a @ b, [rnd((2, 2, 3), 9), rnd((2, 3, 2), 10)]),
        "matmul_3d_2d": (lambda a, b: a @ b, [rnd((2, 2, 3), 9), rnd((3, 2), 10)]),
        "matmul_2d_3d": (lambda a, b: a @ b, [rnd((2, 3), 9), rnd((2, 3, 2), 10)]),
        "matmul_3d_1d": (lambda a, b: a @ b, [rnd((2, 2, 3), 9), rnd((3,), 10)]),
        "matmul_1d_3d": (lambda a, b: a @ b, [rnd((2,), 9), rnd((2, 2, 3), 10)]),
        "matmul_batch_broadcast": (lambda a, b: a @ b, [rnd((2, 1, 2, 3), 9),
                                                        rnd((2, 3, 2), 10)]),
        "matmul_fn": (lambda a, b: G.matmul(a, b), [rnd((2, 3), 9), rnd((3, 2), 10)]),
        "matmul_method": (lambda a, b: a.matmul(b), [rnd((2, 3), 9), rnd((3, 2), 10)]),
        "mm": (lambda a, b: a.mm(b), [rnd((2, 3), 9), rnd((3, 2), 10)]),
        "mm_fn": (lambda a, b: G.mm(a, b), [rnd((2, 3), 9), rnd((3, 2), 10)]),
        "mm_transposed": (lambda a, b: a.t().mm(b.t()), [rnd((3, 2), 9), rnd((2, 3), 10)]),
        "matmul_self": (lambda a: a @ a.t(), [rnd((2, 3), 9)]),
        # shape ops
        "reshape": (lambda a: a.reshape(3, 2), [rnd((2, 3), 11)]),
        "reshape_neg": (lambda a: a.reshape(-1), [rnd((2, 3), 11)]),
        "reshape_tuple": (lambda a: a.reshape((1, 6)), [rnd((2, 3), 11)]),
        "reshape_fn": (lambda a: G.reshape(a, (3, -1)), [rnd((2, 3), 11)]),
        "reshape_non_contiguous": (lambda a: a.t().reshape(6), [rnd((2, 3), 11)]),
        "view": (lambda a: a.view(6), [rnd((2, 3), 11)]),
        "view_neg": (lambda a: a.view(-1, 2) * G.tensor([1.0, 2.0], dtype=G.float64),
                     [rnd((2, 3), 11)]),
        "view_add_dims": (lambda a: a.view(2, 1, 3), [rnd((2, 3), 11)]),
        "t": (lambda a: a.t() * G.tensor([1.0, 2.0], dtype=G.float64), [rnd((2, 3), 11)]),
        "t_fn": (lambda a: G.t(a), [rnd((2, 3), 11)]),
        "T": (lambda a: a.T, [rnd((2, 3), 11)]),
        "transpose": (lambda a: a.transpose(0, 1), [rnd((2, 3), 11)]),
        "transpose_3d": (lambda a: a.transpose(-1, 0), [rnd((2, 3, 2), 11)]),
        "transpose_fn": (lambda a: G.transpose(a, 1, 0), [rnd((2, 3), 11)]),
        "clone": (lambda a: a.clone(), [rnd((2, 3), 11)]),
        "contiguous": (lambda a: a.t().contiguous(), [rnd((2, 3), 11)]),
        # compositions
        "mlp": (
            lambda x, w, b, v: ((x @ w + b).tanh() @ v).sigmoid().mean(0),
            [rnd((3, 2), 12), rnd((2, 4), 13), rnd((4,), 14), rnd((4, 2), 15)],
        ),
        "softplus": (lambda a: (1 + a.exp()).log(), [rnd((2, 3), 16)]),
        "normalize": (
            lambda a: (a - a.mean(1, keepdim=True)) / (a * a).sum(1, keepdim=True).sqrt(),
            [rnd((2, 3), 16)],
        ),
        "shared": (lambda a: a * a.sin() + a.exp() / (1 + a * a), [rnd((2, 3), 16)]),
        "diamond": (lambda a: _diamond(a, 20), [rnd((3,), 17)]),
    }
)


def _diamond(x, depth):
    for _ in range(depth):
        x = x.sin() * 0.5 + x * 0.5
    return x


@pytest.mark.parametrize("case", list(CASES))
def test_gradcheck(case):
    f, inputs = CASES[case]
    gradcheck(f, inputs)


# --------------------------------------------------------------------------------------------
# second derivatives
# --------------------------------------------------------------------------------------------

SECOND = {
    "cube": (lambda a: a**3, [rnd((3,), 20)]),
    "pow_frac": (lambda a: a**2.5, [pos((3,), 20)]),
    "sin": (lambda a: a.sin(), [rnd((3,), 20)]),
    "cos": (lambda a: a.cos(), [rnd((3,), 20)]),
    "tanh": (lambda a: a.tanh(), [rnd((3,), 20)]),
    "exp": (lambda a: a.exp(), [rnd((3,), 20)]),
    "log": (lambda a: a.log(), [pos((3,), 20)]),
    "sqrt": (lambda a: a.sqrt(), [pos((3,), 20)]),
    "sigmoid": (lambda a: a.sigmoid(), [rnd((3,), 20)]),
    "relu": (lambda a: a.relu() * a, [rnd((3,), 20)]),
    "abs": (lambda a: a.abs() * a, [rnd((3,), 20)]),
    "neg_mean": (lambda a: (-a * a).mean(0), [rnd((2, 3), 20)]),
    "rdiv": (lambda a: 1 / a, [rnd((3,), 20, away=0.5)]),
    "rpow": (lambda a: 2**a, [rnd((3,), 20)]),
    "mul": (lambda a, b: a * b * a, [rnd((2, 3), 21), rnd((3,), 22)]),
    "div": (lambda a, b: a / b, [rnd((2, 3), 21), rnd((3,), 22, away=0.5)]),
    "pow_tensor": (lambda a, b: a**b, [pos((3,), 21), rnd((3,), 22)]),
    "matmul": (lambda a, b: (a @ b).tanh(), [rnd((2, 3), 21), rnd((3, 2), 22)]),
    "mm_sum": (lambda a, b: a.mm(b).sum(0) ** 2, [rnd((2, 3), 21), rnd((3, 2), 22)]),
    "view_t": (lambda a: (a.view(3, 2).t() ** 3).sum(1), [rnd((2, 3), 23)]),
    "broadcast": (lambda a, b: (a + b).sin() * b, [rnd((2, 3), 24), rnd((3,), 25)]),
    "mlp": (
        lambda x, w, b: ((x @ w + b).tanh() ** 2).mean(),
        [rnd((2, 3), 26), rnd((3, 2), 27), rnd((2,), 28)],
    ),
}


@pytest.mark.parametrize("case", list(SECOND))
def test_gradgradcheck(case):
    f, inputs = SECOND[case]
    gradgradcheck(f, inputs)


def test_third_derivative_of_quartic():
    x0 = [0.7, -1.3]

    def f(a):
        return a**4

    gradcheck(first_derivative(first_derivative(f, 0), 0), [x0])
    third = first_derivative(first_derivative(first_derivative(f, 0), 0), 0)
    got = _np(third(_leaf(x0)))
    np.testing.assert_allclose(got, 24 * np.array(x0), rtol=1e-12)


# --------------------------------------------------------------------------------------------
# the checker itself
# --------------------------------------------------------------------------------------------


def test_checker_detects_wrong_gradient():
    """x * x.detach() has autograd gradient x but true derivative 2x: must be flagged."""
    with pytest.raises(AssertionError, match="Jacobian mismatch"):
        gradcheck(lambda a: a * a.detach(), [rnd((3,), 30)])


def test_checker_detects_missing_second_derivative():
    """Second derivative through a detached first derivative is wrong and must be flagged."""

    def bad_first(a):
        (g,) = G.autograd.grad(a**3, (a,), grad_outputs=G.ones_like(a), create_graph=True)
        return g.detach() * a / a.detach()  # value 3a^2, derivative 3a (true: 6a)

    with pytest.raises(AssertionError, match="Jacobian mismatch"):
        gradcheck(bad_first, [rnd((3,), 31)])


def test_checker_handles_unused_inputs():
    gradcheck(lambda a, b: a * 2, [rnd((3,), 32), rnd((2,), 33)])


def test_numerical_jacobian_shapes():
    out, jacs = numerical_jacobian(lambda a, b: a @ b, [rnd((2, 3), 34), rnd((3, 4), 35)], 1e-6)
    assert out.shape == (2, 4)
    assert jacs[0].shape == (8, 6) and jacs[1].shape == (8, 12)
