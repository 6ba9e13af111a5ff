"""Autograd semantics compared with PyTorch: gradients, graph structure, grad modes, errors,
warnings, higher-order gradients, deep graphs and memory.

``check(lambda M: ...)`` runs the lambda on the module under test and on PyTorch and compares
the results; ``check_error`` / ``check_warning`` compare exception / warning types and texts.
Tests with hard-coded expectations (graph structure, grad-mode flags) also run without PyTorch;
under GRADRS_TEST_SELFTEST=1 they are validated against PyTorch itself.
"""

from __future__ import annotations

import gc
import json
import os
import re
import subprocess
import sys
import textwrap
import threading

import numpy as np
import pytest
from conftest import (
    GNAME,
    HAVE_TORCH,
    SELFTEST,
    G,
    assert_same,
    assert_same_tensor,
    check,
    check_error,
    check_warning,
    graph_tree,
    need_torch,
    node_name,
    norm,
    norm_g,
    run_both,
    to_np,
)

pytestmark = pytest.mark.usefixtures("restore_grad_mode")

# --------------------------------------------------------------------------------------------
# helpers
# --------------------------------------------------------------------------------------------


class In:
    """Spec of a deterministic input: shape, value range, dtype, requires_grad."""

    def __init__(self, shape, lo=-2.0, hi=2.0, dtype="float32", rg=True, away=0.1, data=None):
        self.shape, self.lo, self.hi = tuple(shape), lo, hi
        self.dtype, self.rg, self.away, self.data = dtype, rg, away, data

    def values(self, seed):
        if self.data is not None:
            return self.data
        rng = np.random.default_rng(1000 + seed)
        v = rng.uniform(self.lo, self.hi, size=self.shape)
        if self.away:  # keep away from kinks / poles (relu, abs, division by ~0)
            v = np.where(np.abs(v) < self.away, np.sign(v + 1e-12) * self.away + v, v)
        v = np.round(v, 2)
        if self.dtype == "int64":
            return np.round(v).astype(np.int64).tolist()
        return v.tolist()

    def make(self, M, seed):
        return M.tensor(self.values(seed), dtype=getattr(M, self.dtype), requires_grad=self.rg)


def _grad_output(shape, dtype_name):
    rng = np.random.default_rng(7 + int(np.prod(shape, dtype=np.int64)) + len(shape))
    v = np.round(rng.uniform(-1.5, 1.5, size=shape), 2)
    return v.tolist(), dtype_name


def run_forward_backward(M, fn, specs):
    xs = [s.make(M, i) for i, s in enumerate(specs)]
    y = fn(M, *xs)
    if y.dim() == 0:
        y.backward()
    else:
        data, _ = _grad_output(tuple(y.shape), None)
        y.backward(M.tensor(data, dtype=y.dtype))
    return y, [x.grad for x in xs]


def check_bools(fn, expected):
    """``fn(G) == expected`` (and the same for PyTorch when it is importable)."""
    got = fn(G)
    assert got == expected, f"{GNAME}: {got!r} != expected {expected!r}"
    if HAVE_TORCH and not SELFTEST:
        ref = need_torch()

        assert fn(ref) == expected, "the hard-coded expectation does not match PyTorch"


# --------------------------------------------------------------------------------------------
# forward + backward of every op, against PyTorch
# --------------------------------------------------------------------------------------------

X23 = In((2, 3))
P23 = In((2, 3), lo=0.3, hi=2.0)  # positive
OPS: dict = {}

_BINARY = {
    "add": lambda M, a, b: a + b,
    "sub": lambda M, a, b: a - b,
    "mul": lambda M, a, b: a * b,
    "div": lambda M, a, b: a / b,
    "pow": lambda M, a, b: a**b,
}
_SHAPE_PAIRS = {
    "same": ((3,), (3,)),
    "row": ((2, 3), (3,)),
    "outer": ((2, 1), (1, 3)),
    "rhs0d": ((2, 3), ()),
    "lhs0d": ((), (2, 3)),
    "3d": ((4, 1, 3), (2, 1)),
    "both0d": ((), ()),
}
for _op, _f in _BINARY.items():
    for _pn, (_sa, _sb) in _SHAPE_PAIRS.items():
        _a = In(_sa, lo=0.3, hi=2.0) if _op == "pow" else In(_sa)
        _b = In(_sb, lo=0.5, hi=2.0, away=0.5) if _op == "div" else In(_sb)
        OPS[f"{_op}_{_pn}"] = (_f, [_a, _b])
    # only one side requires grad
    _a = In((2, 3), lo=0.3, hi=2.0) if _op == "pow" else In((2, 3))
    _b = In((3,), lo=0.5, hi=2.0, away=0.5, rg=False) if _op == "div" else In((3,), rg=False)
    OPS[f"{_op}_rhs_const"] = (_f, [_a, _b])
    _a2 = In((2, 3), lo=0.3, hi=2.0, rg=False) if _op == "pow" else In((2, 3), rg=False)
    _b2 = In((3,), lo=0.5, hi=2.0, away=0.5) if _op == "div" else In((3,))
    OPS[f"{_op}_lhs_const"] = (_f, [_a2, _b2])

OPS.update(
    {
        # mixed dtypes
        "add_f32_f64": (lambda M, a, b: a + b, [In((2, 3)), In((3,), dtype="float64")]),
        "mul_f64_f32_0d": (lambda M, a, b: a * b, [In((2, 3), dtype="float64"), In(())]),
        "mul_int_f32": (lambda M, a, b: a * b, [In((3,), dtype="int64", rg=False), In((3,))]),
        "div_f32_int": (
            lambda M, a, b: a / b,
            [In((3,)), In((3,), dtype="int64", rg=False, data=[1, 2, -3])],
        ),
        "f64_chain": (lambda M, a: (a * a).exp().sum(0), [In((2, 3), dtype="float64")]),
        # Python scalars on either side
        "add_int_scalar": (lambda M, a: a + 2, [X23]),
        "radd_int_scalar": (lambda M, a: 2 + a, [X23]),
        "add_float_scalar": (lambda M, a: a + 2.5, [X23]),
        "sub_scalar": (lambda M, a: a - 2, [X23]),
        "rsub_scalar": (lambda M, a: 2 - a, [X23]),
        "rsub_float_scalar": (lambda M, a: 0.5 - a, [X23]),
        "mul_scalar": (lambda M, a: a * 3, [X23]),
        "rmul_scalar": (lambda M, a: -1.5 * a, [X23]),
        "div_scalar": (lambda M, a: a / 4, [X23]),
        "rdiv_scalar": (lambda M, a: 4 / a, [X23]),
        "rdiv_float_scalar": (lambda M, a: 1.5 / a, [X23]),
        "pow_2": (lambda M, a: a**2, [X23]),
        "pow_3": (lambda M, a: a**3, [X23]),
        "pow_half": (lambda M, a: a**0.5, [P23]),
        "pow_neg": (lambda M, a: a**-1.5, [P23]),
        "pow_0": (lambda M, a: a**0, [X23]),
        "pow_1": (lambda M, a: a**1, [X23]),
        "rpow_int": (lambda M, a: 2**a, [X23]),
        "rpow_float": (lambda M, a: 2.5**a, [X23]),
        "pow_0d_tensor_exponent": (lambda M, a: a ** M.tensor(2.0), [X23]),
        "pow_0d_tensor_base": (lambda M, a: M.tensor(2.0) ** a, [X23]),
        "add_alpha": (lambda M, a, b: M.add(a, b, alpha=2), [X23, In((3,))]),
        "sub_alpha": (lambda M, a, b: M.sub(a, b, alpha=0.5), [X23, In((3,))]),
        # function forms
        "add_fn": (lambda M, a, b: M.add(a, b), [X23, In((3,))]),
        "add_fn_scalar": (lambda M, a: M.add(a, 1.5), [X23]),
        "sub_fn": (lambda M, a, b: M.sub(a, b), [X23, In((2, 1))]),
        "mul_fn": (lambda M, a, b: M.mul(a, b), [X23, In(())]),
        "mul_fn_scalar": (lambda M, a: M.mul(a, 2), [X23]),
        "div_fn": (lambda M, a, b: M.div(a, b), [X23, In((3,), lo=0.5, away=0.5)]),
        "pow_fn": (lambda M, a: M.pow(a, 2), [X23]),
        "pow_fn_scalar_base": (lambda M, a: M.pow(2, a), [X23]),
        "pow_fn_tensors": (lambda M, a, b: M.pow(a, b), [P23, X23]),
        "pow_method": (lambda M, a: a.pow(3), [X23]),
        # unary
        "neg": (lambda M, a: -a, [X23]),
        "neg_method": (lambda M, a: a.neg(), [X23]),
        "neg_fn": (lambda M, a: M.neg(a), [X23]),
        "exp": (lambda M, a: a.exp(), [X23]),
        "exp_fn": (lambda M, a: M.exp(a), [X23]),
        "log": (lambda M, a: a.log(), [P23]),
        "log_fn": (lambda M, a: M.log(a), [P23]),
        "sin": (lambda M, a: a.sin(), [X23]),
        "sin_fn": (lambda M, a: M.sin(a), [X23]),
        "cos": (lambda M, a: a.cos(), [X23]),
        "cos_fn": (lambda M, a: M.cos(a), [X23]),
        "tanh": (lambda M, a: a.tanh(), [X23]),
        "tanh_fn": (lambda M, a: M.tanh(a), [X23]),
        "sigmoid": (lambda M, a: a.sigmoid(), [X23]),
        "sigmoid_fn": (lambda M, a: M.sigmoid(a), [X23]),
        "relu": (lambda M, a: a.relu(), [X23]),
        "relu_fn": (lambda M, a: M.relu(a), [X23]),
        "relu_at_zero": (lambda M, a: a.relu(), [In((3,), data=[-1.0, 0.0, 1.0])]),
        "sqrt": (lambda M, a: a.sqrt(), [P23]),
        "sqrt_fn": (lambda M, a: M.sqrt(a), [P23]),
        "abs": (lambda M, a: a.abs(), [X23]),
        "abs_fn": (lambda M, a: M.abs(a), [X23]),
        "abs_builtin": (lambda M, a: abs(a), [X23]),
        "abs_at_zero": (lambda M, a: a.abs(), [In((3,), data=[-1.0, 0.0, 1.0])]),
        "exp_f64": (lambda M, a: a.exp(), [In((2, 3), dtype="float64")]),
        "tanh_f64": (lambda M, a: M.tanh(a), [In((3,), dtype="float64")]),
        # reductions
        "sum": (lambda M, a: a.sum(), [X23]),
        "sum_fn": (lambda M, a: M.sum(a), [X23]),
        "sum_0": (lambda M, a: a.sum(0), [X23]),
        "sum_1": (lambda M, a: a.sum(1), [X23]),
        "sum_neg": (lambda M, a: a.sum(-1), [X23]),
        "sum_tuple": (lambda M, a: a.sum((0, 1)), [X23]),
        "sum_empty_tuple": (lambda M, a: a.sum(()), [X23]),
        "sum_keepdim": (lambda M, a: a.sum(1, keepdim=True), [X23]),
        "sum_kw": (lambda M, a: a.sum(dim=0, keepdim=True), [X23]),
        "sum_fn_dim": (lambda M, a: M.sum(a, 1), [X23]),
        "sum_3d_tuple_keepdim": (lambda M, a: a.sum((0, 2), keepdim=True), [In((2, 3, 4))]),
        "sum_3d_neg_tuple": (lambda M, a: a.sum((-1, -3)), [In((2, 3, 4))]),
        "sum_0d": (lambda M, a: a.sum(), [In(())]),
        "sum_0d_dim0": (lambda M, a: a.sum(0), [In(())]),
        "mean": (lambda M, a: a.mean(), [X23]),
        "mean_fn": (lambda M, a: M.mean(a), [X23]),
        "mean_0": (lambda M, a: a.mean(0), [X23]),
        "mean_neg": (lambda M, a: a.mean(-1), [X23]),
        "mean_tuple": (lambda M, a: a.mean((0, 1)), [X23]),
        "mean_keepdim": (lambda M, a: a.mean(0, keepdim=True), [X23]),
        "mean_fn_dim": (lambda M, a: M.mean(a, dim=1), [X23]),
        "mean_3d_keepdim": (lambda M, a: a.mean((0, -1), keepdim=True), [In((2, 3, 4))]),
        "mean_f64": (lambda M, a: a.mean(1), [In((2, 3), dtype="float64")]),
        # matmul
        "matmul_1d_1d": (lambda M, a, b: a @ b, [In((3,)), In((3,))]),
        "matmul_2d_1d": (lambda M, a, b: a @ b, [X23, In((3,))]),
        "matmul_1d_2d": (lambda M, a, b: a @ b, [In((2,)), X23]),
        "matmul_2d_2d": (lambda M, a, b: a @ b, [X23, In((3, 4))]),
        "matmul_3d_3d": (lambda M, a, b: a @ b, [In((2, 2, 3)), In((2, 3, 4))]),
        "matmul_3d_2d": (lambda M, a, b: a @ b, [In((2, 2, 3)), In((3, 4))]),
        "matmul_2d_3d": (lambda M, a, b: a @ b, [X23, In((2, 3, 4))]),
        "matmul_3d_1d": (lambda M, a, b: a @ b, [In((2, 2, 3)), In((3,))]),
        "matmul_1d_3d": (lambda M, a, b: a @ b, [In((2,)), In((2, 2, 3))]),
        "matmul_batch_broadcast": (lambda M, a, b: a @ b, [In((2, 1, 2, 3)), In((3, 3, 2))]),
        "matmul_fn": (lambda M, a, b: M.matmul(a, b), [X23, In((3, 2))]),
        "matmul_method": (lambda M, a, b: a.matmul(b), [X23, In((3, 2))]),
        "matmul_rhs_const": (lambda M, a, b: a @ b, [X23, In((3, 2), rg=False)]),
        "matmul_lhs_const": (lambda M, a, b: a @ b, [In((2, 3), rg=False), In((3, 2))]),
        "mm": (lambda M, a, b: a.mm(b), [X23, In((3, 4))]),
        "mm_fn": (lambda M, a, b: M.mm(a, b), [X23, In((3, 4))]),
        "mm_f64": (lambda M, a, b: a.mm(b), [In((2, 3), dtype="float64"),
                                             In((3, 2), dtype="float64")]),
        "mm_transposed": (lambda M, a, b: a.t().mm(b), [In((3, 2)), In((3, 4))]),
        # shape ops
        "reshape": (lambda M, a: a.reshape(3, 2), [X23]),
        "reshape_tuple": (lambda M, a: a.reshape((3, 2)), [X23]),
        "reshape_neg": (lambda M, a: a.reshape(-1), [X23]),
        "reshape_fn": (lambda M, a: M.reshape(a, (6, 1)), [X23]),
        "reshape_non_contiguous": (lambda M, a: a.t().reshape(6), [X23]),
        "reshape_3d": (lambda M, a: a.reshape(2, -1, 4), [In((4, 2, 3))]),
        "view": (lambda M, a: a.view(6), [X23]),
        "view_neg": (lambda M, a: a.view(-1, 2), [X23]),
        "view_add_dims": (lambda M, a: a.view(2, 1, 3), [X23]),
        "view_0d": (lambda M, a: a.view(1), [In(())]),
        "t": (lambda M, a: a.t(), [X23]),
        "t_fn": (lambda M, a: M.t(a), [X23]),
        "t_1d": (lambda M, a: a.t(), [In((3,))]),
        "T": (lambda M, a: a.T, [X23]),
        "transpose": (lambda M, a: a.transpose(0, 1), [X23]),
        "transpose_3d": (lambda M, a: a.transpose(-1, 0), [In((2, 3, 4))]),
        "transpose_fn": (lambda M, a: M.transpose(a, 1, 0), [X23]),
        "clone": (lambda M, a: a.clone(), [X23]),
        "contiguous_transposed": (lambda M, a: a.t().contiguous(), [X23]),
        # compositions
        "mlp": (
            lambda M, x, w, b, v: ((x @ w + b).tanh() @ v).sigmoid().mean(),
            [In((4, 3)), In((3, 5)), In((5,)), In((5, 2))],
        ),
        "shared_input": (lambda M, a: a * a + a.exp() * a - a / 2, [X23]),
        "shared_branches": (lambda M, a: (a.sin() * a.cos()).sum(1) + a.sum(1), [X23]),
        "softplus_like": (lambda M, a: (1 + a.exp()).log().sum(), [X23]),
        "normalize": (
            lambda M, a: (a - a.mean(1, keepdim=True)) / (a * a).sum(1, keepdim=True).sqrt(),
            [X23],
        ),
        "view_then_reduce": (lambda M, a: a.view(3, 2).t().sum(0) * 2, [X23]),
        "matmul_chain": (lambda M, a, b: (a @ b @ b.t()).sum(-1), [X23, In((3, 3))]),
    }
)


@pytest.mark.parametrize("case", list(OPS))
def test_op_forward_backward(case):
    fn, specs = OPS[case]
    (yg, gg), (yt, gt) = run_both(lambda M: run_forward_backward(M, fn, specs))
    assert_same_tensor(yg, yt)
    assert len(gg) == len(gt)
    for i, (a, b) in enumerate(zip(gg, gt)):
        if b is None:
            assert a is None, f"input {i}: expected no grad"
        else:
            assert a is not None, f"input {i}: grad is None"
            assert_same_tensor(a, b)


# --------------------------------------------------------------------------------------------
# graph structure: grad_fn names and next_functions
# --------------------------------------------------------------------------------------------

ACC = ("AccumulateGrad", ())


def N(name, *children):
    return (name, tuple((c, 0) for c in children))


def _graph_inputs(M):
    x = M.tensor([1.0, 2.0, 3.0], requires_grad=True)
    y = M.tensor([0.5, 1.5, 2.5], requires_grad=True)
    c = M.tensor([2.0, 3.0, 4.0])
    w = M.tensor([[1.0, 2.0, 3.0], [4.0, 5.0, 6.0]], requires_grad=True)
    s = M.tensor([[1.0, 0.0], [0.0, 1.0], [1.0, 1.0]], requires_grad=True)
    return x, y, c, w, s


GRAPHS = {
    "mul_scalar": (lambda M, x, y, c, w, s: x * 2, N("MulBackward0", ACC, None)),
    "rmul_scalar": (lambda M, x, y, c, w, s: 2 * x, N("MulBackward0", ACC, None)),
    "mul": (lambda M, x, y, c, w, s: x * y, N("MulBackward0", ACC, ACC)),
    "mul_self": (lambda M, x, y, c, w, s: x * x, N("MulBackward0", ACC, ACC)),
    "mul_const": (lambda M, x, y, c, w, s: x * c, N("MulBackward0", ACC, None)),
    "const_mul": (lambda M, x, y, c, w, s: c * x, N("MulBackward0", None, ACC)),
    "mul_detached": (lambda M, x, y, c, w, s: x * x.detach(), N("MulBackward0", ACC, None)),
    "mul_fn": (lambda M, x, y, c, w, s: M.mul(x, 2), N("MulBackward0", ACC, None)),
    "add_scalar": (lambda M, x, y, c, w, s: x + 2, N("AddBackward0", ACC, None)),
    "radd_scalar": (lambda M, x, y, c, w, s: 2 + x, N("AddBackward0", ACC, None)),
    "add": (lambda M, x, y, c, w, s: x + y, N("AddBackward0", ACC, ACC)),
    "add_0d_const": (lambda M, x, y, c, w, s: M.tensor(2.0) + x, N("AddBackward0", None, ACC)),
    "add_alpha": (lambda M, x, y, c, w, s: M.add(x, y, alpha=2), N("AddBackward0", ACC, ACC)),
    "sub_scalar": (lambda M, x, y, c, w, s: x - 2, N("SubBackward0", ACC, None)),
    "sub": (lambda M, x, y, c, w, s: x - y, N("SubBackward0", ACC, ACC)),
    "rsub_scalar": (lambda M, x, y, c, w, s: 2 - x, N("RsubBackward1", ACC)),
    "rsub_float": (lambda M, x, y, c, w, s: 2.5 - x, N("RsubBackward1", ACC)),
    "div_scalar": (lambda M, x, y, c, w, s: x / 2, N("DivBackward0", ACC, None)),
    "div": (lambda M, x, y, c, w, s: x / y, N("DivBackward0", ACC, ACC)),
    "div_const": (lambda M, x, y, c, w, s: x / c, N("DivBackward0", ACC, None)),
    "rdiv_scalar": (
        lambda M, x, y, c, w, s: 2 / x,
        N("MulBackward0", N("ReciprocalBackward0", ACC), None),
    ),
    "pow_scalar": (lambda M, x, y, c, w, s: x**2, N("PowBackward0", ACC)),
    "pow_float": (lambda M, x, y, c, w, s: x**2.5, N("PowBackward0", ACC)),
    "pow_0": (lambda M, x, y, c, w, s: x**0, N("PowBackward0", ACC)),
    "pow_fn": (lambda M, x, y, c, w, s: M.pow(x, 2), N("PowBackward0", ACC)),
    "pow_tensor": (lambda M, x, y, c, w, s: x**y, N("PowBackward1", ACC, ACC)),
    "pow_0d_exponent": (lambda M, x, y, c, w, s: x ** M.tensor(2.0), N("PowBackward1", ACC, None)),
    "pow_0d_base": (lambda M, x, y, c, w, s: M.tensor(2.0) ** x, N("PowBackward1", None, ACC)),
    "rpow_scalar": (lambda M, x, y, c, w, s: 2**x, N("PowBackward2", ACC)),
    "rpow_float": (lambda M, x, y, c, w, s: 2.0**x, N("PowBackward2", ACC)),
    "pow_fn_scalar_base": (lambda M, x, y, c, w, s: M.pow(2, x), N("PowBackward2", ACC)),
    "neg": (lambda M, x, y, c, w, s: -x, N("NegBackward0", ACC)),
    "neg_fn": (lambda M, x, y, c, w, s: M.neg(x), N("NegBackward0", ACC)),
    "exp": (lambda M, x, y, c, w, s: x.exp(), N("ExpBackward0", ACC)),
    "exp_fn": (lambda M, x, y, c, w, s: M.exp(x), N("ExpBackward0", ACC)),
    "log": (lambda M, x, y, c, w, s: x.log(), N("LogBackward0", ACC)),
    "sin": (lambda M, x, y, c, w, s: x.sin(), N("SinBackward0", ACC)),
    "cos": (lambda M, x, y, c, w, s: x.cos(), N("CosBackward0", ACC)),
    "tanh": (lambda M, x, y, c, w, s: x.tanh(), N("TanhBackward0", ACC)),
    "sigmoid": (lambda M, x, y, c, w, s: x.sigmoid(), N("SigmoidBackward0", ACC)),
    "sigmoid_fn": (lambda M, x, y, c, w, s: M.sigmoid(x), N("SigmoidBackward0", ACC)),
    "relu": (lambda M, x, y, c, w, s: x.relu(), N("ReluBackward0", ACC)),
    "relu_fn": (lambda M, x, y, c, w, s: M.relu(x), N("ReluBackward0", ACC)),
    "sqrt": (lambda M, x, y, c, w, s: x.sqrt(), N("SqrtBackward0", ACC)),
    "abs": (lambda M, x, y, c, w, s: x.abs(), N("AbsBackward0", ACC)),
    "sum": (lambda M, x, y, c, w, s: x.sum(), N("SumBackward0", ACC)),
    "sum_fn": (lambda M, x, y, c, w, s: M.sum(w), N("SumBackward0", ACC)),
    "sum_dim": (lambda M, x, y, c, w, s: w.sum(0), N("SumBackward1", ACC)),
    "sum_neg_dim": (lambda M, x, y, c, w, s: w.sum(-1), N("SumBackward1", ACC)),
    "sum_tuple": (lambda M, x, y, c, w, s: w.sum((0, 1)), N("SumBackward1", ACC)),
    "sum_empty_tuple": (lambda M, x, y, c, w, s: w.sum(()), N("SumBackward1", ACC)),
    "sum_keepdim": (lambda M, x, y, c, w, s: w.sum(1, keepdim=True), N("SumBackward1", ACC)),
    "mean": (lambda M, x, y, c, w, s: x.mean(), N("MeanBackward0", ACC)),
    "mean_dim": (lambda M, x, y, c, w, s: w.mean(1), N("MeanBackward1", ACC)),
    "mean_tuple": (lambda M, x, y, c, w, s: w.mean((0, 1)), N("MeanBackward1", ACC)),
    "mm": (lambda M, x, y, c, w, s: w.mm(s), N("MmBackward0", ACC, ACC)),
    "mm_fn": (lambda M, x, y, c, w, s: M.mm(w, s), N("MmBackward0", ACC, ACC)),
    "matmul_2d_2d": (lambda M, x, y, c, w, s: w @ s, N("MmBackward0", ACC, ACC)),
    "matmul_fn": (lambda M, x, y, c, w, s: M.matmul(w, s), N("MmBackward0", ACC, ACC)),
    "matmul_1d_1d": (lambda M, x, y, c, w, s: x @ y, N("DotBackward0", ACC, ACC)),
    "matmul_2d_1d": (lambda M, x, y, c, w, s: w @ x, N("MvBackward0", ACC, ACC)),
    "matmul_1d_2d": (
        lambda M, x, y, c, w, s: x @ s,
        N("SqueezeBackward4", N("MmBackward0", N("UnsqueezeBackward0", ACC), ACC)),
    ),
    "matmul_2d_const": (lambda M, x, y, c, w, s: w @ c, N("MvBackward0", ACC, None)),
    "view": (lambda M, x, y, c, w, s: w.view(6), N("ViewBackward0", ACC)),
    "view_neg": (lambda M, x, y, c, w, s: w.view(-1, 2), N("ViewBackward0", ACC)),
    "reshape": (lambda M, x, y, c, w, s: w.reshape(3, 2), N("ViewBackward0", ACC)),
    "reshape_fn": (lambda M, x, y, c, w, s: M.reshape(w, (-1,)), N("ViewBackward0", ACC)),
    "reshape_non_contiguous": (
        lambda M, x, y, c, w, s: w.t().reshape(6),
        N("UnsafeViewBackward0", N("CloneBackward0", N("TBackward0", ACC))),
    ),
    "t": (lambda M, x, y, c, w, s: w.t(), N("TBackward0", ACC)),
    "t_1d": (lambda M, x, y, c, w, s: x.t(), N("TBackward0", ACC)),
    "T": (lambda M, x, y, c, w, s: w.T, N("PermuteBackward0", ACC)),
    "transpose": (lambda M, x, y, c, w, s: w.transpose(0, 1), N("TransposeBackward0", ACC)),
    "transpose_fn": (lambda M, x, y, c, w, s: M.transpose(w, 1, 0), N("TransposeBackward0", ACC)),
    "clone": (lambda M, x, y, c, w, s: x.clone(), N("CloneBackward0", ACC)),
    "contiguous_transposed": (
        lambda M, x, y, c, w, s: w.t().contiguous(),
        N("CloneBackward0", N("TBackward0", ACC)),
    ),
    "chain": (
        lambda M, x, y, c, w, s: (x * 2).exp().sum(),
        N("SumBackward0", N("ExpBackward0", N("MulBackward0", ACC, None))),
    ),
    "nested": (
        lambda M, x, y, c, w, s: x - 2 * x,
        N("SubBackward0", ACC, N("MulBackward0", ACC, None)),
    ),
    "mlp_like": (
        lambda M, x, y, c, w, s: (w @ x).tanh().mean(),
        N("MeanBackward0", N("TanhBackward0", N("MvBackward0", ACC, ACC))),
    ),
}


@pytest.mark.parametrize("case", list(GRAPHS))
def test_graph_structure(case):
    fn, expected = GRAPHS[case]
    y = fn(G, *_graph_inputs(G))
    assert graph_tree(y.grad_fn) == expected
    if HAVE_TORCH and not SELFTEST:
        ref = need_torch()

        assert graph_tree(fn(ref, *_graph_inputs(ref)).grad_fn) == expected


# Batched matmul decomposes into several internal nodes in PyTorch; only the outer node is
# part of the contract here.
TOP_ONLY = {
    "matmul_3d_3d": (lambda M: M.ones(2, 2, 3, requires_grad=True) @ M.ones(2, 3, 4),
                     "UnsafeViewBackward0"),
    "matmul_3d_2d": (lambda M: M.ones(2, 2, 3, requires_grad=True) @ M.ones(3, 4),
                     "UnsafeViewBackward0"),
    "matmul_3d_1d": (lambda M: M.ones(2, 2, 3, requires_grad=True) @ M.ones(3),
                     "UnsafeViewBackward0"),
}


@pytest.mark.parametrize("case", list(TOP_ONLY))
def test_graph_top_node(case):
    fn, name = TOP_ONLY[case]
    assert node_name(fn(G).grad_fn) == name
    check(lambda M: node_name(fn(M).grad_fn))


def test_grad_fn_name_and_repr():
    x = G.tensor([1.0, 2.0], requires_grad=True)
    y = x * 2
    assert y.grad_fn.name() == "MulBackward0"
    assert re.fullmatch(r"<MulBackward0 object at 0x[0-9a-fA-F]+>", repr(y.grad_fn))
    acc = y.grad_fn.next_functions[0][0]
    assert type(acc).__name__ == "AccumulateGrad"
    assert acc.name() == norm("torch::autograd::AccumulateGrad")
    assert acc.next_functions == ()
    assert re.fullmatch(r"<AccumulateGrad object at 0x[0-9a-fA-F]+>", repr(acc))
    for name, f in [("SumBackward0", lambda t: t.sum()), ("ExpBackward0", lambda t: t.exp()),
                    ("TBackward0", lambda t: t.t()), ("RsubBackward1", lambda t: 1 - t)]:
        assert f(x).grad_fn.name() == name


def test_next_functions_types():
    x = G.tensor([1.0, 2.0], requires_grad=True)
    nf = (x * 2).grad_fn.next_functions
    assert isinstance(nf, tuple) and len(nf) == 2
    for pair in nf:
        assert isinstance(pair, tuple) and len(pair) == 2 and isinstance(pair[1], int)
    assert nf[1] == (None, 0)


def test_grad_fn_of_leaves_and_constants():
    def fn(M):
        a = M.tensor([1.0], requires_grad=True)
        b = M.tensor([1.0])
        return a.grad_fn, b.grad_fn, (b * 2).grad_fn, a.detach().grad_fn

    check(fn)


# --------------------------------------------------------------------------------------------
# requires_grad / is_leaf rules
# --------------------------------------------------------------------------------------------


def test_requires_grad_contagion_and_leaves():
    def fn(M):
        a = M.tensor([1.0, 2.0], requires_grad=True)
        b = M.tensor([3.0, 4.0])
        c = a + b
        d = b * 2
        e = c * d
        f = e.detach()
        g = f * a
        with M.no_grad():
            h = a * 2
        return [
            (t.requires_grad, t.is_leaf, node_name(t.grad_fn))
            for t in (a, b, c, d, e, f, g, h)
        ]

    check(fn)

    def flags(M):
        a = M.tensor([1.0], requires_grad=True)
        return [(t.requires_grad, t.is_leaf)
                for t in (a, a * 2, (a * 2).detach(), M.tensor([1.0]) * 2)]

    check_bools(flags, [(True, True), (True, False), (False, True), (False, True)])


def test_requires_grad_setter_on_leaf():
    def fn(M):
        a = M.tensor([1.0, 2.0])
        a.requires_grad = True
        r1 = (a.requires_grad, a.is_leaf, (a * 2).requires_grad)
        a.requires_grad = False
        r2 = (a.requires_grad, (a * 2).requires_grad)
        return r1, r2

    check(fn)


def test_requires_grad_():
    def fn(M):
        a = M.tensor([1.0, 2.0])
        a.requires_grad_()
        r1 = a.requires_grad
        a.requires_grad_(False)
        b = (M.tensor([1.0], requires_grad=True) * 2).requires_grad_(True)  # allowed: no change
        c = (M.tensor([1.0], requires_grad=True) * 2).detach().requires_grad_()
        return r1, a.requires_grad, b.requires_grad, b.is_leaf, c.requires_grad, c.is_leaf

    check(fn)
    check_bools(lambda M: M.tensor([1.0]).requires_grad_().requires_grad, True)


def test_requires_grad_kwarg_under_no_grad():
    def fn(M):
        with M.no_grad():
            a = M.tensor([1.0], requires_grad=True)
            b = M.ones(2, requires_grad=True)
        return a.requires_grad, b.requires_grad, a.is_leaf

    check_bools(fn, (True, True, True))


REQUIRES_GRAD_ERRORS = {
    "set_false_on_non_leaf": lambda M: setattr(
        M.tensor([1.0], requires_grad=True) * 2, "requires_grad", False
    ),
    "set_true_on_non_leaf": lambda M: setattr(
        M.tensor([1.0], requires_grad=True) * 2, "requires_grad", True
    ),
    "requires_grad__false_on_non_leaf": lambda M: (
        M.tensor([1.0], requires_grad=True) * 2
    ).requires_grad_(False),
    "int_tensor_ctor": lambda M: M.tensor([1, 2], requires_grad=True),
    "int_tensor_setter": lambda M: setattr(M.tensor([1, 2]), "requires_grad", True),
    "int_tensor_requires_grad_": lambda M: M.tensor([1, 2]).requires_grad_(),
    "bool_tensor_requires_grad_": lambda M: M.tensor([True]).requires_grad_(),
    "int_zeros": lambda M: M.zeros(2, dtype=M.int64, requires_grad=True),
    "int_arange": lambda M: M.arange(3, requires_grad=True),
    "retain_grad_no_grad": lambda M: M.ones(2).retain_grad(),
    "retain_grad_detached": lambda M: (M.ones(2, requires_grad=True) * 2).detach().retain_grad(),
}


@pytest.mark.parametrize("fn", list(REQUIRES_GRAD_ERRORS.values()), ids=list(REQUIRES_GRAD_ERRORS))
def test_requires_grad_errors(fn):
    check_error(fn)


def test_int_tensor_requires_grad_false_is_fine():
    check(lambda M: M.tensor([1, 2]).requires_grad_(False))
    check(lambda M: M.tensor([1, 2], requires_grad=False))


# --------------------------------------------------------------------------------------------
# .grad, retain_grad, warnings
# --------------------------------------------------------------------------------------------


def test_grad_is_none_until_backward():
    def fn(M):
        x = M.tensor([1.0, 2.0, 3.0], requires_grad=True)
        before = x.grad
        y = (x * x).sum()
        middle = x.grad
        y.backward()
        return before, middle, x.grad, x.grad.requires_grad, x.grad.is_leaf

    check(fn)


def test_non_leaf_grad_warning():
    def fn(M):
        x = M.tensor([1.0, 2.0], requires_grad=True)
        y = x * 2
        y.sum().backward()
        return y.grad

    g, t = check_warning(fn)
    assert g is None and t is None


def test_non_leaf_grad_warning_every_access():
    def fn(M):
        y = M.tensor([1.0, 2.0], requires_grad=True) * 2
        return y.grad, y.grad

    check_warning(fn)


def test_no_warning_after_retain_grad():
    def fn(M):
        x = M.tensor([1.0, 2.0], requires_grad=True)
        y = x * 2
        y.retain_grad()
        before = y.grad
        (y * y).sum().backward()
        return before, y.grad, x.grad, y.is_leaf, y.retains_grad

    g, t = check_warning(fn)
    assert_same(g, t)


def test_no_warning_for_leaves_and_constants():
    def fn(M):
        x = M.tensor([1.0, 2.0], requires_grad=True)
        a = M.ones(2)
        b = M.ones(2) * 2
        with M.no_grad():
            c = x * 2
        return x.grad, a.grad, b.grad, c.grad

    check_warning(fn)


def test_retain_grad_on_leaf_is_noop():
    def fn(M):
        x = M.tensor([1.0, 2.0], requires_grad=True)
        x.retain_grad()
        (x * 3).sum().backward()
        return x.grad, x.is_leaf

    check(fn)


def test_grad_set_to_none():
    def fn(M):
        x = M.tensor([1.0, 2.0], requires_grad=True)
        (x * 3).sum().backward()
        x.grad = None
        (x * 2).sum().backward()
        return x.grad

    check(fn)


# --------------------------------------------------------------------------------------------
# grad modes
# --------------------------------------------------------------------------------------------


def test_no_grad_context():
    def fn(M):
        x = M.tensor([1.0], requires_grad=True)
        with M.no_grad():
            inside = M.is_grad_enabled()
            y = x * 2
        return inside, M.is_grad_enabled(), y.requires_grad, y.is_leaf, y.grad_fn is None

    check_bools(fn, (False, True, False, True, True))


def test_nested_grad_modes():
    def fn(M):
        x = M.tensor([1.0], requires_grad=True)
        out = []
        with M.no_grad():
            out.append(M.is_grad_enabled())
            with M.enable_grad():
                out.append(M.is_grad_enabled())
                out.append((x * 2).requires_grad)
                with M.set_grad_enabled(False):
                    out.append((x * 2).requires_grad)
                    with M.set_grad_enabled(True):
                        out.append((x * 2).requires_grad)
                    out.append(M.is_grad_enabled())
                out.append(M.is_grad_enabled())
            out.append((x * 2).requires_grad)
            with M.no_grad():
                out.append(M.is_grad_enabled())
            out.append(M.is_grad_enabled())
        out.append(M.is_grad_enabled())
        return out

    check_bools(fn, [False, True, True, False, True, False, True, False, False, False, True])


def test_grad_mode_restored_after_exception():
    def fn(M):
        try:
            with M.no_grad():
                raise ValueError("boom")
        except ValueError:
            pass
        a = M.is_grad_enabled()
        try:
            with M.set_grad_enabled(False), M.enable_grad():
                raise KeyError
        except KeyError:
            pass
        return a, M.is_grad_enabled()

    check_bools(fn, (True, True))


def test_grad_mode_decorators():
    def fn(M):
        x = M.tensor([1.0], requires_grad=True)

        @M.no_grad()
        def f1(t):
            return M.is_grad_enabled(), (t * 2).requires_grad

        @M.no_grad
        def f2(t):
            return M.is_grad_enabled(), (t * 2).requires_grad

        @M.enable_grad()
        def f3(t):
            return M.is_grad_enabled(), (t * 2).requires_grad

        @M.set_grad_enabled(False)
        def f4(t):
            return M.is_grad_enabled(), (t * 2).requires_grad

        out = [f1(x), f2(x), f3(x), f4(x)]
        with M.no_grad():
            out.append(f3(x))
            out.append(M.is_grad_enabled())
        out.append(M.is_grad_enabled())
        out.append((f1.__name__, f2.__name__, f3.__name__, f4.__name__))
        return out

    check_bools(
        fn,
        [(False, False), (False, False), (True, True), (False, False), (True, True), False,
         True, ("f1", "f2", "f3", "f4")],
    )


def test_set_grad_enabled_as_function():
    def fn(M):
        x = M.tensor([1.0], requires_grad=True)
        try:
            M.set_grad_enabled(False)
            a = (M.is_grad_enabled(), (x * 2).requires_grad)
            M.set_grad_enabled(True)
            b = (M.is_grad_enabled(), (x * 2).requires_grad)
        finally:
            M.set_grad_enabled(True)
        return a, b

    check_bools(fn, ((False, False), (True, True)))


def test_is_grad_enabled_type():
    assert G.is_grad_enabled() is True
    with G.no_grad():
        assert G.is_grad_enabled() is False


def _thread_local_scenario(M):
    x = M.tensor([1.0], requires_grad=True)
    res = {}
    ready, release = threading.Event(), threading.Event()

    def fresh_thread():
        res["fresh_enabled"] = M.is_grad_enabled()
        res["fresh_records"] = (x * 2).requires_grad

    # 1. the main thread is in no_grad: a new thread still has grad mode enabled
    with M.no_grad():
        th = threading.Thread(target=fresh_thread)
        th.start()
        th.join()
        res["main_in_no_grad"] = M.is_grad_enabled()

    # 2. another thread disables grad mode: the main thread is not affected
    def disabling_thread():
        with M.no_grad():
            res["worker_enabled"] = M.is_grad_enabled()
            res["worker_records"] = (x * 2).requires_grad
            ready.set()
            release.wait(10)
        res["worker_after"] = M.is_grad_enabled()

    th = threading.Thread(target=disabling_thread)
    th.start()
    ready.wait(10)
    res["main_while_worker_disabled"] = M.is_grad_enabled()
    res["main_records"] = (x * 3).requires_grad
    release.set()
    th.join()

    # 3. set_grad_enabled(False) called as a function in a thread stays in that thread
    def function_call_thread():
        M.set_grad_enabled(False)
        res["fn_thread"] = M.is_grad_enabled()

    th = threading.Thread(target=function_call_thread)
    th.start()
    th.join()
    res["main_after_fn_thread"] = M.is_grad_enabled()
    return res


def test_grad_mode_is_thread_local():
    check_bools(
        _thread_local_scenario,
        {
            "fresh_enabled": True,
            "fresh_records": True,
            "main_in_no_grad": False,
            "worker_enabled": False,
            "worker_records": False,
            "worker_after": True,
            "main_while_worker_disabled": True,
            "main_records": True,
            "fn_thread": False,
            "main_after_fn_thread": True,
        },
    )


def test_backward_in_other_thread():
    x = G.tensor([1.0, 2.0], requires_grad=True)
    y = (x * x).sum()
    err = []

    def work():
        try:
            y.backward()
        except Exception as e:  # noqa: BLE001 - reported below
            err.append(e)

    th = threading.Thread(target=work)
    th.start()
    th.join()
    assert not err, err
    assert x.grad.tolist() == [2.0, 4.0]


# --------------------------------------------------------------------------------------------
# detach / detach_ / data / Variable
# --------------------------------------------------------------------------------------------


def test_detach():
    def fn(M):
        x = M.tensor([1.0, 2.0], requires_grad=True)
        y = x * 2
        d = y.detach()
        return d, d.requires_grad, d.is_leaf, d.grad_fn, y.requires_grad, (d * x).grad_fn

    check(fn)


def test_detach_shares_storage_with_leaf():
    x = G.tensor([1.0, 2.0], requires_grad=True)
    d = x.detach()
    d.zero_()
    assert x.tolist() == [0.0, 0.0]


def test_detach_():
    def fn(M):
        x = M.tensor([1.0, 2.0], requires_grad=True)
        y = x * 2
        r = y.detach_()
        return r, y, y.requires_grad, y.is_leaf, y.grad_fn

    check(fn)


def test_variable_legacy():
    def fn(M):
        v = M.autograd.Variable(M.tensor([1.0, 2.0]), requires_grad=True)
        w = M.autograd.Variable(M.tensor([1.0, 2.0]))
        (v * v).sum().backward()
        return v, type(v).__name__, v.is_leaf, v.grad, w, w.requires_grad

    check(fn)
    v = G.autograd.Variable(G.tensor([1.0]), requires_grad=True)
    assert isinstance(v, G.Tensor)


def test_python_object_identity():
    """PyTorch keeps one Python object per tensor: in-place methods and attribute reads
    return the very same object."""

    def fn(M):
        a = M.tensor([1.0, 2.0])
        x = M.tensor([1.0, 2.0], requires_grad=True)
        (x * 2).sum().backward()
        y = x * 3
        return (
            a.requires_grad_() is a,
            a.requires_grad_(False) is a,
            a.contiguous() is a,
            a.zero_() is a,
            x.grad is x.grad,
            x.grad.zero_() is x.grad,
            y.detach_() is y,
        )

    check_bools(fn, (True,) * 7)


# --------------------------------------------------------------------------------------------
# backward() and autograd.backward / autograd.grad
# --------------------------------------------------------------------------------------------


def test_backward_scalar_default():
    def fn(M):
        x = M.tensor([1.0, 2.0, 3.0], requires_grad=True)
        (x * x).sum().backward()
        return x.grad

    check(fn)


def test_backward_with_gradient():
    def fn(M):
        x = M.tensor([1.0, 2.0, 3.0], requires_grad=True)
        y = x * x
        y.backward(M.tensor([1.0, -1.0, 0.5]))
        s = M.tensor(2.0, requires_grad=True)
        (s * s).backward(M.tensor(3.0))
        z = M.tensor([[1.0, 2.0], [3.0, 4.0]], requires_grad=True)
        (z * 3).backward(gradient=M.tensor([[1.0, 0.0], [0.0, 1.0]]))
        return x.grad, s.grad, z.grad

    check(fn)


def test_backward_accumulates():
    def fn(M):
        x = M.tensor([1.0, 2.0], requires_grad=True)
        (x * 3).sum().backward()
        a = x.grad.clone()
        (x * x).sum().backward()
        b = x.grad.clone()
        (x**3).sum().backward()
        return a, b, x.grad

    check(fn)


def test_grad_zero_():
    def fn(M):
        x = M.tensor([1.0, 2.0], requires_grad=True)
        (x * 3).sum().backward()
        g = x.grad
        r = x.grad.zero_()
        after_zero = (x.grad.clone(), g.clone(), r.clone())
        (x * 2).sum().backward()
        second = x.grad.clone()
        x.grad.data.zero_()
        after_data_zero = x.grad.clone()
        (x * x).sum().backward()
        return after_zero, second, after_data_zero, x.grad

    check(fn)


def test_grad_accumulates_for_shared_leaf():
    def fn(M):
        x = M.tensor([1.0, 2.0], requires_grad=True)
        y = x * 2 + x * x + x.exp()
        y.sum().backward()
        return x.grad

    check(fn)


def test_retain_graph():
    def fn(M):
        x = M.tensor([1.0, 2.0], requires_grad=True)
        y = (x**2).sum()
        y.backward(retain_graph=True)
        a = x.grad.clone()
        y.backward(retain_graph=True)
        b = x.grad.clone()
        y.backward()
        return a, b, x.grad

    check(fn)


def test_backward_inputs():
    def fn(M):
        x = M.tensor([1.0, 2.0], requires_grad=True)
        y = M.tensor([3.0, 4.0], requires_grad=True)
        (x * y).sum().backward(inputs=[x])
        a = (x.grad, y.grad)
        (x * y).sum().backward(inputs=[y])
        b = (x.grad, y.grad)
        (x * y * 2).sum().backward(inputs=[x, y])
        return a, b, (x.grad, y.grad)

    check(fn)


def test_backward_all_arguments():
    def fn(M):
        x = M.tensor([1.0, 2.0], requires_grad=True)
        y = x * x
        y.backward(gradient=M.tensor([1.0, 1.0]), retain_graph=None, create_graph=False,
                   inputs=None)
        return x.grad

    check(fn)


def test_autograd_backward_function():
    def fn(M):
        x = M.tensor([1.0, 2.0], requires_grad=True)
        y = M.tensor([1.0, 2.0], requires_grad=True)
        r = M.autograd.backward([(x * 2).sum(), (y * 3).sum()], [M.tensor(1.0), M.tensor(2.0)])
        a = (x.grad.clone(), y.grad.clone())
        M.autograd.backward(x * 3, M.tensor([1.0, -1.0]))
        b = x.grad.clone()
        M.autograd.backward([x.sum()])
        c = x.grad.clone()
        M.autograd.backward((y * y).sum(), grad_tensors=None)
        return r, a, b, c, y.grad

    check(fn)


def test_autograd_grad_basic():
    def fn(M):
        x = M.tensor([1.0, 2.0], requires_grad=True)
        y = M.tensor([3.0, 4.0], requires_grad=True)
        z = (x * y).sum()
        g = M.autograd.grad(z, [x, y])
        return type(g).__name__, g, x.grad, y.grad, g[0].requires_grad

    check(fn)


def test_autograd_grad_variants():
    def fn(M):
        x = M.tensor([1.0, 2.0], requires_grad=True)
        y = M.tensor([3.0, 4.0], requires_grad=True)
        out = []
        out.append(M.autograd.grad((x * x).sum(), x))
        out.append(M.autograd.grad(x * 2, x, M.tensor([1.0, -1.0])))
        out.append(M.autograd.grad(x * 2, x, grad_outputs=[M.tensor([0.5, 2.0])]))
        out.append(M.autograd.grad([x.sum(), (x * 2).sum()], [x]))
        out.append(M.autograd.grad([(x * y).sum(), (x * x).sum()], (x, y),
                                   grad_outputs=[M.tensor(1.0), M.tensor(2.0)]))
        out.append(M.autograd.grad((x * 2).sum(), (x, y), allow_unused=True))
        z = x * 2
        out.append(M.autograd.grad((z * z).sum(), z))  # w.r.t. a non-leaf
        w = (x**2).sum()
        out.append(M.autograd.grad(w, x, retain_graph=True))
        out.append(M.autograd.grad(w, x))
        return out

    check(fn)


def test_autograd_grad_create_graph_flags():
    def fn(M):
        x = M.tensor([1.0, 2.0], requires_grad=True)
        g1 = M.autograd.grad((x**3).sum(), x)[0]
        g2 = M.autograd.grad((x**3).sum(), x, create_graph=True)[0]
        return g1.requires_grad, g2.requires_grad, g2.is_leaf, to_np(g2).tolist()

    check(fn)


BACKWARD_ERRORS = {
    "second_backward_pow": lambda M: _twice(M, lambda x: (x**2).sum()),
    "second_backward_mul": lambda M: _twice(M, lambda x: (x * x).sum()),
    "second_autograd_grad": lambda M: _twice_grad(M, lambda x: (x**2).sum()),
    "implicit_non_scalar": lambda M: (M.tensor([1.0, 2.0], requires_grad=True) * 2).backward(),
    "implicit_non_scalar_grad": lambda M: _implicit_grad(M),
    "gradient_wrong_shape": lambda M: (M.tensor([1.0, 2.0, 3.0], requires_grad=True) * 2)
    .backward(M.tensor([1.0, 1.0])),
    "gradient_wrong_shape_2d": lambda M: (M.tensor([1.0, 2.0], requires_grad=True) * 2)
    .backward(M.ones(2, 1)),
    "gradient_wrong_shape_scalar": lambda M: (M.tensor([1.0, 2.0], requires_grad=True) * 2)
    .sum().backward(M.ones(1)),
    "grad_outputs_wrong_shape": lambda M: _grad_outputs_wrong_shape(M),
    "no_grad_fn": lambda M: M.tensor([1.0, 2.0]).sum().backward(),
    "no_grad_fn_leaf": lambda M: M.tensor(1.0).backward(),
    "no_grad_fn_under_no_grad": lambda M: _under_no_grad(M),
    "autograd_backward_element_1": lambda M: M.autograd.backward(
        [M.tensor([1.0], requires_grad=True).sum(), M.ones(2).sum()]
    ),
    "autograd_grad_output_no_grad": lambda M: M.autograd.grad(
        M.ones(2).sum(), M.tensor([1.0], requires_grad=True)
    ),
    "autograd_grad_input_no_grad": lambda M: M.autograd.grad(
        (M.tensor([1.0], requires_grad=True) * 2).sum(), M.ones(1)
    ),
    "autograd_grad_unused": lambda M: _unused(M),
    "autograd_grad_count_mismatch": lambda M: _count_mismatch(M),
    "backward_empty_inputs": lambda M: (M.tensor([1.0], requires_grad=True) * 2)
    .sum().backward(inputs=[]),
}


def _twice(M, f):
    x = M.tensor([1.0, 2.0, 3.0], requires_grad=True)
    y = f(x)
    y.backward()
    y.backward()


def _twice_grad(M, f):
    x = M.tensor([1.0, 2.0, 3.0], requires_grad=True)
    y = f(x)
    M.autograd.grad(y, x)
    M.autograd.grad(y, x)


def _implicit_grad(M):
    x = M.tensor([1.0, 2.0], requires_grad=True)
    return M.autograd.grad(x * 2, x)


def _grad_outputs_wrong_shape(M):
    x = M.tensor([1.0, 2.0], requires_grad=True)
    return M.autograd.grad(x.sum(), x, grad_outputs=M.ones(2))


def _under_no_grad(M):
    x = M.tensor([1.0, 2.0], requires_grad=True)
    with M.no_grad():
        y = (x * 2).sum()
    y.backward()


def _unused(M):
    x = M.tensor([1.0, 2.0], requires_grad=True)
    y = M.tensor([1.0, 2.0], requires_grad=True)
    return M.autograd.grad((x * 2).sum(), [x, y])


def _count_mismatch(M):
    x = M.tensor([1.0, 2.0], requires_grad=True)
    return M.autograd.grad([x.sum(), (x * 2).sum()], x, grad_outputs=[M.tensor(1.0)])


@pytest.mark.parametrize("fn", list(BACKWARD_ERRORS.values()), ids=list(BACKWARD_ERRORS))
def test_backward_errors(fn):
    check_error(fn)


# Whether a second backward without retain_graph fails depends on whether the graph saved
# tensors.  A graph with no saved tensors (x + y, sums, views, negation) can be replayed.
SECOND_BACKWARD = {
    "add": (lambda x, y: (x + y).sum(), False),
    "add_scalar": (lambda x, y: (x + 2).sum(), False),
    "sub_scalar": (lambda x, y: (x - 2).sum(), False),
    "rsub_scalar": (lambda x, y: (2 - x).sum(), False),
    "neg": (lambda x, y: (-x).sum(), False),
    "sum": (lambda x, y: x.sum(), False),
    "mean": (lambda x, y: x.mean(), False),
    "view": (lambda x, y: x.view(3, 1).sum(), False),
    "t": (lambda x, y: x.view(3, 1).t().sum(), False),
    "transpose": (lambda x, y: x.view(1, 3).transpose(0, 1).sum(), False),
    "sum_dim": (lambda x, y: x.view(3, 1).sum(0).sum(), False),
    "mul_scalar": (lambda x, y: (x * 2).sum(), True),
    "mul": (lambda x, y: (x * y).sum(), True),
    "div_scalar": (lambda x, y: (x / 2).sum(), True),
    "rdiv_scalar": (lambda x, y: (2 / x).sum(), True),
    "pow": (lambda x, y: (x**2).sum(), True),
    "exp": (lambda x, y: x.exp().sum(), True),
    "relu": (lambda x, y: x.relu().sum(), True),
    "abs": (lambda x, y: x.abs().sum(), True),
    "mm": (lambda x, y: (x.view(3, 1) @ y.view(1, 3)).sum(), True),
}


@pytest.mark.parametrize("case", list(SECOND_BACKWARD))
def test_second_backward(case):
    f, errors = SECOND_BACKWARD[case]

    def run(M):
        x = M.tensor([1.0, 2.0, 3.0], requires_grad=True)
        y = M.tensor([0.5, -1.0, 2.0], requires_grad=True)
        z = f(x, y)
        z.backward()
        z.backward()
        return x.grad, y.grad

    if errors:
        check_error(run)
    else:
        check(run)
    # also without the reference
    try:
        run(G)
        raised = False
    except RuntimeError:
        raised = True
    assert raised == errors


def test_no_error_second_backward_accumulates():
    x = G.tensor([1.0, 2.0], requires_grad=True)
    y = G.tensor([3.0, 4.0], requires_grad=True)
    z = (x + y).sum()
    z.backward()
    z.backward()
    assert x.grad.tolist() == [2.0, 2.0] and y.grad.tolist() == [2.0, 2.0]


# --------------------------------------------------------------------------------------------
# higher-order gradients
# --------------------------------------------------------------------------------------------


def _second(M, f, x):
    (g,) = M.autograd.grad(f(x).sum(), x, create_graph=True)
    (h,) = M.autograd.grad(g.sum(), x)
    return g.detach(), h


SECOND_ORDER = {
    "cube": lambda x: x**3,
    "sin": lambda x: x.sin(),
    "cos": lambda x: x.cos(),
    "tanh": lambda x: x.tanh(),
    "exp": lambda x: x.exp(),
    "log": lambda x: x.log(),
    "sqrt": lambda x: x.sqrt(),
    "sigmoid": lambda x: x.sigmoid(),
    "div": lambda x: 1 / x,
    "pow_tensor": lambda x: x**x,
    "rpow": lambda x: 2**x,
    "composite": lambda x: (x * x.sin()).tanh() * x,
    "mean_of_square": lambda x: (x * x).mean().view(1),
}


@pytest.mark.parametrize("case", list(SECOND_ORDER))
def test_second_derivative(case):
    f = SECOND_ORDER[case]
    check(lambda M: _second(M, f, M.tensor([0.5, 1.0, 2.0], dtype=M.float64, requires_grad=True)))


def test_second_derivative_cube_exact():
    x = G.tensor([1.0, 2.0, -3.0], dtype=G.float64, requires_grad=True)
    g, h = _second(G, lambda t: t**3, x)
    np.testing.assert_allclose(to_np(g), 3 * np.array([1.0, 2.0, -3.0]) ** 2)
    np.testing.assert_allclose(to_np(h), 6 * np.array([1.0, 2.0, -3.0]))


def test_third_derivative():
    def fn(M):
        x = M.tensor([0.5, 1.5], dtype=M.float64, requires_grad=True)
        (g,) = M.autograd.grad((x**4).sum(), x, create_graph=True)
        (h,) = M.autograd.grad(g.sum(), x, create_graph=True)
        (k,) = M.autograd.grad(h.sum(), x)
        return g.detach(), h.detach(), k

    check(fn)


def test_grad_of_grad_multiple_inputs():
    def fn(M):
        x = M.tensor([1.0, 2.0], dtype=M.float64, requires_grad=True)
        y = M.tensor([0.5, -1.5], dtype=M.float64, requires_grad=True)
        f = (x**2 * y**3 + x.sin() * y).sum()
        gx, gy = M.autograd.grad(f, (x, y), create_graph=True)
        gxx, gxy = M.autograd.grad(gx.sum(), (x, y), retain_graph=True)
        gyx, gyy = M.autograd.grad(gy.sum(), (x, y))
        return gx.detach(), gy.detach(), gxx, gxy, gyx, gyy

    check(fn)


def test_grad_of_grad_with_grad_outputs():
    def fn(M):
        x = M.tensor([[1.0, 2.0], [3.0, 4.0]], dtype=M.float64, requires_grad=True)
        w = M.tensor([[0.5, -1.0], [2.0, 1.0]], dtype=M.float64, requires_grad=True)
        y = (x @ w).tanh()
        (gx,) = M.autograd.grad(y, x, grad_outputs=M.ones(2, 2, dtype=M.float64),
                                create_graph=True)
        gxx, gw = M.autograd.grad(gx, (x, w), grad_outputs=M.tensor(
            [[1.0, 0.0], [0.0, 1.0]], dtype=M.float64))
        return gx.detach(), gxx, gw

    check(fn)


@pytest.mark.filterwarnings("ignore:Using backward\\(\\) with create_graph=True")
def test_backward_create_graph_then_backward_again():
    def fn(M):
        x = M.tensor([1.0, 2.0], requires_grad=True)
        y = (x**3).sum()
        y.backward(create_graph=True)
        first = (to_np(x.grad).tolist(), x.grad.requires_grad)
        g = x.grad
        x.grad = None
        g.sum().backward()
        return first, x.grad

    check(fn)


@pytest.mark.filterwarnings("ignore:Using backward\\(\\) with create_graph=True")
def test_backward_create_graph_accumulate():
    def fn(M):
        x = M.tensor([1.0, 2.0], requires_grad=True)
        (x**3).sum().backward(create_graph=True)
        x.grad.sum().backward()  # accumulates d/dx(3x^2) = 6x into x.grad
        return to_np(x.grad).tolist()

    check(fn)


# --------------------------------------------------------------------------------------------
# deep graphs and memory
# --------------------------------------------------------------------------------------------

_SUBPROCESS_TIMEOUT = 120


def _run_script(module_name: str, body: str):
    """Run ``body`` (which must print one JSON line) in a fresh interpreter with
    ``M = <module_name>``.  Isolates hangs and stack overflows from the test process."""
    code = "import importlib, json, sys, time, warnings\n"
    code += f"M = importlib.import_module({module_name!r})\n"
    code += textwrap.dedent(body)
    env = dict(os.environ)
    env["PYTHONPATH"] = os.pathsep.join(p for p in sys.path if p)
    proc = subprocess.run(
        [sys.executable, "-c", code],
        check=False,
        capture_output=True,
        text=True,
        timeout=_SUBPROCESS_TIMEOUT,
        env=env,
    )
    assert proc.returncode == 0, (
        f"{module_name} subprocess failed (rc={proc.returncode}):\n"
        f"{proc.stdout[-2000:]}\n{proc.stderr[-4000:]}"
    )
    return json.loads(proc.stdout.strip().splitlines()[-1])


_DIAMOND = """
x0 = M.tensor([1.0, -2.0, 3.0], requires_grad=True)
t0 = time.perf_counter()
x = x0
for _ in range(1000):
    x = x * 0.5 + x * 0.5
y = (x * M.tensor([1.0, 2.0, 3.0])).sum()
y.backward()
dt = time.perf_counter() - t0
print(json.dumps({"dt": dt, "y": y.item(), "grad": x0.grad.tolist(),
                  "grad_repr": repr(x0.grad)}))
"""


def test_diamond_depth_1000_is_fast():
    mod = "torch" if SELFTEST else "gradrs"
    res = _run_script(mod, _DIAMOND)
    assert res["dt"] < 5.0, f"diamond graph of depth 1000 took {res['dt']:.2f}s"
    assert res["grad"] == [1.0, 2.0, 3.0]
    assert res["y"] == pytest.approx(1.0 - 4.0 + 9.0)
    if HAVE_TORCH:
        ref = need_torch()
        x0 = ref.tensor([1.0, -2.0, 3.0], requires_grad=True)
        x = x0
        for _ in range(1000):
            x = x * 0.5 + x * 0.5
        (x * ref.tensor([1.0, 2.0, 3.0])).sum().backward()
        assert res["grad"] == x0.grad.tolist()
        assert res["grad_repr"] == repr(x0.grad)


def test_diamond_in_process():
    """Same graph in-process (after the subprocess proved it terminates)."""
    x0 = G.tensor([0.5, 1.5], dtype=G.float64, requires_grad=True)
    x = x0
    for _ in range(1000):
        x = x * 0.5 + x * 0.5
    g = G.autograd.grad(x.sum(), x0)[0]
    np.testing.assert_array_equal(to_np(g), [1.0, 1.0])


_DEEP_CHAIN = """
x0 = M.tensor([1.0, 2.0], requires_grad=True)
t0 = time.perf_counter()
x = x0
for _ in range(30000):
    x = x * 1.0
x.sum().backward()
del x                # a 30000-node graph is torn down without blowing the stack
x = x0
for _ in range(30000):
    x = x + 0.0
del x                # ... also when it was never run backward
dt = time.perf_counter() - t0
print(json.dumps({"dt": dt, "grad": x0.grad.tolist()}))
"""


def test_deep_chain_backward_and_teardown():
    mod = "torch" if SELFTEST else "gradrs"
    res = _run_script(mod, _DEEP_CHAIN)
    assert res["grad"] == [1.0, 1.0]
    assert res["dt"] < 30.0


_WARN_ONCE = """
out = []
for i in range(2):
    with warnings.catch_warnings(record=True) as w:
        warnings.simplefilter("always")
        x = M.tensor([1.0, 2.0], requires_grad=True)
        (x ** 3).sum().backward(create_graph=True)
        out.append([(c.category.__name__, str(c.message)) for c in w])
print(json.dumps(out))
"""


def test_backward_create_graph_warns_once_per_process():
    ref = need_torch()  # noqa: F841 - needs the reference
    mod = "torch" if SELFTEST else "gradrs"
    got = _run_script(mod, _WARN_ONCE)
    want = _run_script("torch", _WARN_ONCE)
    got = [[(c, norm_g(m)) for c, m in step] for step in got]
    want = [[(c, norm(m)) for c, m in step] for step in want]
    assert got == want
    assert len(want[0]) == 1 and want[1] == []


def _rss_bytes():
    try:
        with open("/proc/self/statm") as f:
            return int(f.read().split()[1]) * os.sysconf("SC_PAGE_SIZE")
    except (OSError, ValueError, AttributeError):
        pytest.skip("RSS is only measured on Linux (/proc/self/statm)")


def _big_graph(M, with_backward):
    x = M.ones(128, 128, requires_grad=True)  # 64 KiB
    w = M.ones(128, 128, requires_grad=True) * 0.001
    y = x
    for _ in range(6):  # every step saves several 64 KiB tensors
        y = (y @ w).tanh() * x + y.sigmoid()
    s = y.sum()
    if with_backward:
        s.backward()
    return s


@pytest.mark.parametrize("with_backward", [False, True], ids=["dropped", "after_backward"])
def test_graph_freed_in_loop(with_backward):
    for _ in range(3):  # warm up allocator / caches
        _big_graph(G, with_backward)
    gc.collect()
    before = _rss_bytes()
    for _ in range(100):
        _big_graph(G, with_backward)
    gc.collect()
    grown = _rss_bytes() - before
    # a leaked graph would be ~1.5 MiB per iteration, i.e. ~150 MiB in total
    assert grown < 40 * 2**20, f"RSS grew by {grown / 2**20:.1f} MiB over 100 graphs"


def test_graph_freed_by_refcount_without_gc():
    """Graphs hold no reference cycles: they die with their tensors even with gc disabled."""
    for _ in range(3):
        _big_graph(G, False)
    gc.collect()
    before = _rss_bytes()
    was_enabled = gc.isenabled()
    gc.disable()
    try:
        for _ in range(60):
            _big_graph(G, False)
        grown = _rss_bytes() - before
    finally:
        if was_enabled:
            gc.enable()
    assert grown < 40 * 2**20, f"RSS grew by {grown / 2**20:.1f} MiB with gc disabled"


def test_intermediate_outlives_graph_owner():
    """A non-leaf kept alive keeps what it needs for its own backward."""
    def fn(M):
        x = M.tensor([1.0, 2.0], requires_grad=True)
        y = (x * x).exp()
        z = y.sum()
        del y
        gc.collect()
        z.backward()
        return x.grad

    check(fn)


def test_pow_tensor_grad_at_zero_base_and_exponent():
    # PyTorch masks 0 * inf: d/dx is 0 where the exponent is 0, d/dy is 0 where the base is 0.
    def fn(M):
        x = M.tensor([0.0, 2.0, 0.0, -1.0], requires_grad=True)
        y = M.tensor([0.0, 3.0, 2.0, 2.0], requires_grad=True)
        (x**y).sum().backward()
        return x.grad, y.grad

    check(fn)


@pytest.mark.parametrize("shapes", [((4, 3), (2, 3, 5)), ((3,), (2, 3, 5)), ((4, 3), (2, 2, 3, 5)),
                                    ((3,), (2, 1, 3, 5)), ((3,), (2, 3, 1))])
@pytest.mark.parametrize("grads", [(True, False), (False, True), (True, True)])
def test_matmul_of_a_batch_folds_as_pytorch(shapes, grads, torch):
    """A 1-D/2-D operand times a batch folds into one mm only when PyTorch's should_fold does
    (the smaller operand requires grad); otherwise a broadcast bmm. The graphs (node names
    along the last edge), values and gradients match."""
    rng = np.random.default_rng(1)
    arrays = [rng.standard_normal(s) for s in shapes]

    def run(m):
        a, b = (m.tensor(x, requires_grad=r) for x, r in zip(arrays, grads))
        c = a @ b
        chain, f = [], c.grad_fn
        while f is not None:
            chain.append(type(f).__name__)
            nxt = [n for n, _ in f.next_functions
                   if n is not None and type(n).__name__ != "AccumulateGrad"]
            f = nxt[-1] if nxt else None
        c.backward(m.ones_like(c))
        return chain, c.detach().numpy(), [t.grad.numpy() for t in (a, b) if t.requires_grad]

    got, want = run(G), run(torch)
    assert got[0] == want[0]
    np.testing.assert_allclose(got[1], want[1], rtol=1e-12)
    for g, t in zip(got[2], want[2]):
        np.testing.assert_allclose(g, t, rtol=1e-12)
