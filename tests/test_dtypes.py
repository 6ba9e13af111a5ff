"""The op table again in the narrow dtypes: float16 and int32 (Note [Narrow dtypes]).

Every sample of ``tests/op_table.py`` with a float32 or an int64 leaf is run once more with
those leaves as float16 and int32 (float64 and bool leaves, and dtype arguments, stay as
written, so promotion between the narrow and the wide dtypes is exercised too), on each
device, against PyTorch's CPU: the forward values and dtypes, and the gradients of every
leaf for a fixed random output gradient. Where PyTorch refuses a sample in these dtypes,
gradrs must raise the same error.
"""

from __future__ import annotations

import dataclasses

import numpy as np
import pytest
from conftest import G, assert_same_error, check, check_error, dtype_name
from op_table import F16, F32, I32, I64, OPS, T, as_outputs, for_device
from test_ops import DEVICES, GPU_SKIP, KNOWN, _backward, _compare_result, _compare_tensor, _run

pytestmark = [pytest.mark.usefixtures("restore_grad_mode"),
              pytest.mark.filterwarnings("ignore:.*degrees of freedom")]

_NARROW = {F32: F16, I64: I32}
_NP = {F16: np.float16, I32: np.int32}


def _narrowed(sample):
    """``sample`` with its float32 / int64 leaves as float16 / int32 (None: it has none)."""
    args, arrays, changed = [], [], False
    for a, arr in zip(sample.args, sample.arrays):
        if isinstance(a, T) and a.dtype in _NARROW:
            d = _NARROW[a.dtype]
            a, arr, changed = dataclasses.replace(a, dtype=d), np.asarray(arr).astype(_NP[d]), True
        args.append(a)
        arrays.append(arr)
    return dataclasses.replace(sample, args=tuple(args), arrays=arrays) if changed else None


# Ops whose float16 result in PyTorch is not a reference: op name -> why.
_F16_NO_REFERENCE = {
    "linalg.matrix_exp": "PyTorch 2.13 evaluates the matrix exponential's polynomial in float16 "
    "and overflows to inf for entries of magnitude ~2; gradrs computes in float32 and rounds "
    "once (tests/test_linalg.py checks that)",
}


def _params():
    out = []
    for device in DEVICES:
        marks = [pytest.mark.skip(reason=GPU_SKIP)] if device != "cpu" and GPU_SKIP else []
        for op in OPS:
            if op.name in _F16_NO_REFERENCE:
                continue
            for s in op.samples:
                # On the GPU float64 leaves become float32 first (as in test_ops.py).
                n = _narrowed(for_device(s, device))
                if n is not None:
                    # test_ops.py's known forward differences hold in the narrow dtypes too.
                    known = KNOWN.get((device, "forward", f"{op.name}/{s.id}"))
                    extra = [pytest.mark.xfail(reason=known, strict=True)] if known else []
                    out.append(pytest.param(op, n, device, id=f"{device}-{op.name}/{s.id}",
                                            marks=marks + extra))
    return out


def _catch(fn):
    try:
        return fn(), None
    except Exception as e:  # noqa: BLE001 - compared with PyTorch's below
        return None, e


@pytest.mark.parametrize("op, sample, device", _params())
def test_narrow_dtypes(torch, op, sample, device):
    tres, terr = _catch(lambda: _run(torch, op, sample))
    if terr is not None:
        assert_same_error(lambda: _run(G, op, sample, device), lambda: _run(torch, op, sample))
        return
    gleaves, gres = _run(G, op, sample, device)
    tleaves, tres = tres
    _compare_result(gres, tres, op, device)
    if not (op.differentiable and sample.needs_grad):
        return
    touts = as_outputs(tres)
    if not any(o.requires_grad for o in touts):
        return
    tag = f"{op.name}/{sample.id}"
    gouts = as_outputs(gres)
    assert [o.requires_grad for o in gouts] == [o.requires_grad for o in touts]
    _, terr = _catch(lambda: _backward(torch, touts, tag, "cpu"))
    if terr is not None:
        assert_same_error(lambda: _backward(G, gouts, tag, device), lambda: (_ for _ in ()).throw(terr))
        return
    _backward(G, gouts, tag, device)
    for i, (g, t) in enumerate(zip(gleaves, tleaves)):
        _compare_tensor(g.grad, t.grad, op, device, f"grad of input {i} ({dtype_name(t.dtype)})")


# Ops outside the op table (their float32 tests live in test_functional.py and elsewhere):
# ``fn(m, x)`` on a float16 leaf ``x`` of shape (2, 3, 4, 5) with values in (-2, 2), or on
# an int32 tensor of values in [0, 3) for the ``INT_CASES``.
F16_CASES = {
    "softmax": lambda m, x: x.softmax(1),
    "log_softmax": lambda m, x: m.nn.functional.log_softmax(x, -1),
    "cross_entropy": lambda m, x: m.nn.functional.cross_entropy(
        x.reshape(6, 20), m.tensor([0, 3, 19, 2, 7, 1]).to(x.device)),
    "nll_loss": lambda m, x: m.nn.functional.nll_loss(x.reshape(6, 20).log_softmax(1),
                                                      m.tensor([0, 3, 19, 2, 7, 1]).to(x.device)),
    "mse_loss": lambda m, x: m.nn.functional.mse_loss(x, x.detach() * 0.5),
    "l1_loss": lambda m, x: m.nn.functional.l1_loss(x, x.detach().flip(0)),
    "smooth_l1_loss": lambda m, x: m.nn.functional.smooth_l1_loss(x, x.detach().flip(1)),
    "huber_loss": lambda m, x: m.nn.functional.huber_loss(x, x.detach().flip(1)),
    "bce": lambda m, x: m.nn.functional.binary_cross_entropy(x.sigmoid(), (x.detach() > 0).half()),
    "bce_logits": lambda m, x: m.nn.functional.binary_cross_entropy_with_logits(
        x, (x.detach() > 0).half()),
    "kl_div": lambda m, x: m.nn.functional.kl_div(x.log_softmax(-1),
                                                  x.detach().flip(0).softmax(-1),
                                                  reduction="batchmean"),
    "conv2d": lambda m, x: m.nn.functional.conv2d(x, x.detach()[:2, :, :2, :3], padding=1),
    "conv1d": lambda m, x: m.nn.functional.conv1d(x[0], x.detach()[0, :, :, :2]),
    "max_pool2d": lambda m, x: m.nn.functional.max_pool2d(x, 2),
    "max_pool1d": lambda m, x: m.nn.functional.max_pool1d(x[0], 2),
    "avg_pool1d": lambda m, x: m.nn.functional.avg_pool1d(x[0], 2),
    "adaptive_avg_pool2d": lambda m, x: m.nn.functional.adaptive_avg_pool2d(x, (2, 2)),
    # PyTorch's half layer-norm backward rounds its intermediates differently: see _TOL.
    "layer_norm": lambda m, x: m.nn.functional.layer_norm(x, (5,)).exp(),
    "batch_norm": lambda m, x: m.nn.functional.batch_norm(x, None, None, training=True),
    "normalize": lambda m, x: m.nn.functional.normalize(x, dim=1),
    "pad": lambda m, x: m.nn.functional.pad(x, (1, 2), value=0.5),
    "pad_reflect": lambda m, x: m.nn.functional.pad(x, (1, 1, 2, 1), mode="reflect"),
    "embedding": lambda m, x: m.nn.functional.embedding(m.tensor([[0, 2], [3, 1]]).to(x.device),
                                                        x[0, 0]),
    "std_mean": lambda m, x: m.std_mean(x, 1),
    "var_mean": lambda m, x: m.var_mean(x, (0, 2)),
    "outer": lambda m, x: m.outer(x[0, 0, 0], x[1, 1, 1]),
    "fmax": lambda m, x: m.fmax(x, x.detach().flip(0)),
    "linspace_mul": lambda m, x: x * m.linspace(0, 1, 5, dtype=m.float16).to(x.device),
    "inplace_chain": lambda m, x: x.clone().mul_(2).add_(x).sub_(0.5).div_(3).exp_() + 1,
    "clip_": lambda m, x: x.clone().clip_(-0.5, 0.5),
    "copy_": lambda m, x: m.zeros(2, 3, 4, 5, dtype=m.float32).to(x.device).copy_(x) * 1.5,
    "fill_zero_": lambda m, x: x.clone().fill_(0.3) + x.clone().zero_() + x,
    "lerp_": lambda m, x: x.clone().lerp_(x.detach().flip(0), 0.3),
    "type_as": lambda m, x: x.type_as(m.ones(1)) * 2 + x,
    "float_roundtrip": lambda m, x: x.float().exp().half(),
    "float_div": lambda m, x: (x.float() / 3).half(),
    "int_cast": lambda m, x: x.int() * x,
    "sort_like": lambda m, x: x.max(-1).values + x.min(-1).values,
    "mT": lambda m, x: x.mT @ x,
    "new_ones": lambda m, x: x.new_ones(5) * x + x.new_zeros(5) + x.new_tensor([1.5]),
    "dropout_eval": lambda m, x: m.nn.functional.dropout(x, 0.5, training=False),
    "rsub": lambda m, x: 1 - x,
    "scalar_ops": lambda m, x: (x * 0.1 + 1e-4) / 3.3 - 7,
}

INT_CASES = {
    "one_hot": lambda m, x: m.nn.functional.one_hot(x.long()),
    "bitwise": lambda m, x: (x & 1) | (x ^ 2) | ~x,
    "floor_divide": lambda m, x: x // 2 + x % 2,
    "true_divide": lambda m, x: x / 2,
    "sum_prod": lambda m, x: x.sum(2) + x.prod(2),
    "cumsum": lambda m, x: x.cumsum(1),
    "mixed": lambda m, x: x + m.ones(5, dtype=m.int64).to(x.device) + x.float(),
    "pow": lambda m, x: x ** 2,
    "compare": lambda m, x: (x > 1) & (x <= m.tensor(2, dtype=m.int32)),
    "inplace": lambda m, x: x.clone().mul_(3).add_(1).floor_divide_(2),
    "index": lambda m, x: x[x > 0],
    "index_tensor": lambda m, x: x.reshape(-1)[m.tensor([0, 5, 7], dtype=m.int32).to(x.device)],
    "max_pool2d": lambda m, x: m.nn.functional.max_pool2d(x.long(), 2).int(),
    "argmax": lambda m, x: x.argmax(1),
    "nonzero": lambda m, x: x.nonzero(),
    "where": lambda m, x: m.where(x > 1, x, -x),
    "wrap": lambda m, x: (x + 2147483647) * 3,
    "abs_neg_sign": lambda m, x: (-x).abs() + x.sign(),
    "clamp": lambda m, x: x.clamp(1, 2),
    "exp": lambda m, x: x.exp(),
    "sqrt_": lambda m, x: x.float().sqrt_(),
    "arange": lambda m, x: x.reshape(-1)[:6] * m.arange(6, dtype=m.int32).to(x.device),
}


def _leaf(m, dtype, device):
    rng = np.random.default_rng(7)
    where = {} if device == "cpu" else {"device": device}
    if dtype == "float16":
        v = rng.uniform(-2, 2, (2, 3, 4, 5)).astype(np.float16)
        return m.tensor(v, requires_grad=True, **where)
    if dtype == "bfloat16":
        v = rng.uniform(-2, 2, (2, 3, 4, 5)).astype(np.float32)
        return m.tensor(v, **where).bfloat16().requires_grad_()
    v = rng.integers(0, 3, (2, 3, 4, 5)).astype(np.int32)
    return m.tensor(v, **where).to(getattr(m, dtype))


# The float16 cases that name float16 themselves (their bfloat16 run would mix the two), and
# layer_norm, whose gradient PyTorch's bfloat16 backward rounds in other intermediates (the
# float16 run's cancellation, at 8 times the ulp: tens of percent on small elements).
_HALF_ONLY = {"bce", "bce_logits", "linspace_mul", "float_roundtrip", "float_div", "layer_norm"}


def _more_params():
    out = []
    for device in DEVICES:
        marks = [pytest.mark.skip(reason=GPU_SKIP)] if device != "cpu" and GPU_SKIP else []
        out += [pytest.param("float16", k, fn, device, id=f"{device}-f16-{k}", marks=marks)
                for k, fn in F16_CASES.items()]
        out += [pytest.param("int32", k, fn, device, id=f"{device}-i32-{k}", marks=marks)
                for k, fn in INT_CASES.items()]
    # bfloat16 and the 8/16-bit integers live on the CPU only.
    out += [pytest.param("bfloat16", k, fn, "cpu", id=f"cpu-bf16-{k}")
            for k, fn in F16_CASES.items() if k not in _HALF_ONLY]
    for dtype in ["uint8", "int8", "int16"]:
        out += [pytest.param(dtype, k, fn, "cpu", id=f"cpu-{dtype}-{k}")
                for k, fn in INT_CASES.items()]
    return out


@pytest.mark.parametrize("dtype, case, fn, device", _more_params())
def test_more_ops_narrow(torch, dtype, case, fn, device):
    gx, tx = _leaf(G, dtype, device), _leaf(torch, dtype, "cpu")
    gouts, touts = as_outputs(fn(G, gx)), as_outputs(fn(torch, tx))
    assert len(gouts) == len(touts)
    for k, (g, t) in enumerate(zip(gouts, touts)):
        _compare_tensor(g, t, _Tol(case), device, f"output {k}")
    if dtype in ("float16", "bfloat16"):
        tout = sum(o.float().sum() for o in touts if o.requires_grad)
        gout = sum(o.float().sum() for o in gouts if o.requires_grad)
        tout.backward()
        gout.backward()
        _compare_tensor(gx.grad, tx.grad, _Tol(case, "grad"), device, "grad")


# (case, what) -> (rtol, atol) where the default half bound is too tight, with the reason.
_TOL = {
    # The gradient of a normalization cancels (g - mean(g) - x̂·mean(g·x̂)): a half ulp of
    # difference in one intermediate shows as ~3% on small elements.
    ("layer_norm", "grad"): (3e-2, 2e-3),
}


class _Tol:
    """The ``op.tolerance`` that ``_compare_tensor`` asks for."""

    def __init__(self, case, what="output"):
        self.tol = _TOL.get((case, what))

    def tolerance(self, dtype):
        return {} if self.tol is None else {"rtol": self.tol[0], "atol": self.tol[1]}


# The dtypes themselves: names, conversions, limits, reprs, and the overflow checks of numbers
# written into int32 / float16 tensors, against PyTorch.
_I = [1, -2, 3]
_H = [1.5, -2.25, 1e-3]
API_CASES = {
    "repr_half": lambda m: m.tensor([[1.5, -2.25, 1e-3], [65504.0, 3.14159, 0.1]], dtype=m.half,
                                    requires_grad=True) * 2,
    "repr_half_tiny": lambda m: m.tensor([1e-7, 1e-5, 1e4], dtype=m.float16),
    "repr_int": lambda m: m.tensor([100000, 1], dtype=m.int32),
    "int0d": lambda m: m.tensor(5, dtype=m.int),
    "casts": lambda m: [m.tensor(_H).half(), m.tensor(_H).int(), m.tensor(_I).half().long(),
                        m.tensor(_H, dtype=m.half).to(m.int32), m.tensor(_I, dtype=m.int32).double()],
    "legacy": lambda m: [m.HalfTensor([1, 2]), m.IntTensor([1, 2])],
    # A number (or 0-dim float32 tensor) beside a half tensor keeps its float32 precision:
    # 1500 * 1.0004 is 1501 in half, 1500 if the factor were rounded to half (1.0) first.
    "half_scalar_precision": lambda m: [
        m.full((4,), 1500.0, dtype=m.half) * 1.0004, 1.0004 * m.full((4,), 1500.0, dtype=m.half),
        m.full((4,), 1500.0, dtype=m.half) * m.tensor(1.0004),
        m.full((4,), 1500.0, dtype=m.half) / m.tensor(1 / 1.0004),
        m.full((2, 1), 1500.0, dtype=m.half) * m.full((1, 3), 1.0004).half() * 1.0004,
        m.full((4,), 1500.0, dtype=m.half)[::2] * 1.0004],
    "promotion": lambda m: [m.tensor(_I, dtype=m.int32) + m.tensor(_I),
                            m.tensor(_I, dtype=m.int32) * 1.5,
                            m.tensor(_I, dtype=m.int32) + m.tensor(2),
                            m.tensor(_H, dtype=m.half) + m.tensor(_H),
                            m.tensor(_H, dtype=m.half) * m.tensor(2.5),
                            m.tensor(_I, dtype=m.int32) + m.tensor(_H, dtype=m.half),
                            m.tensor(_I, dtype=m.int32) / 2],
    "inplace_narrowing": lambda m: m.tensor(_I, dtype=m.int32).add_(m.tensor(_I)),
    "explicit_dtype_reductions": lambda m: [
        m.tensor([_I, _I], dtype=m.int32).sum(dtype=m.int32),
        m.tensor([_I, _I], dtype=m.int32).prod(1, dtype=m.int32),
        m.tensor([_I, _I], dtype=m.int32).cumsum(0, dtype=m.int32),
        m.tensor([True, False]).sum(dtype=m.bool),
        m.tensor(_H, dtype=m.half).sum(dtype=m.float32)],
    "items": lambda m: [m.tensor(2.5, dtype=m.half).item(), m.tensor([7], dtype=m.int32).item(),
                        m.tensor([_H], dtype=m.half).tolist(), m.tensor(_I, dtype=m.int32).tolist()],
    "numpy": lambda m: [str(m.tensor(_H, dtype=m.half).numpy().dtype),
                        str(m.zeros(2, dtype=m.int32).numpy().dtype),
                        m.from_numpy(np.array(_I, dtype=np.int32)),
                        m.from_numpy(np.array(_H, dtype=np.float16)),
                        m.tensor(np.array(_I, dtype=np.int32))],
    "dtype_attrs": lambda m: [(d.is_floating_point, d.is_signed, d.itemsize, str(d).split(".")[1])
                              for d in (m.int32, m.float16, m.int, m.half)],
    "element_size": lambda m: [m.zeros(1, dtype=m.half).element_size(),
                               m.zeros(1, dtype=m.int32).element_size()],
    "type": lambda m: [m.ones(1).type().split(".")[1], m.ones(1, dtype=m.int32).type().split(".")[1],
                       m.ones(1).type(m.int32), m.ones(1).type(dtype=m.half)],
    "finfo": lambda m: [repr(m.finfo(m.float16)), repr(m.finfo(m.float32)), repr(m.finfo()),
                        repr(m.finfo(m.float64)), m.finfo(m.half).max, m.finfo(m.half).eps,
                        m.finfo(m.half).bits, m.finfo(m.half).tiny, m.finfo(m.half).dtype],
    "iinfo": lambda m: [repr(m.iinfo(m.int32)), repr(m.iinfo(m.int64)), m.iinfo(m.int32).max,
                        m.iinfo(m.int32).min, m.iinfo(m.int64).bits, m.iinfo(m.int).dtype],
    "half_overflow_to_inf": lambda m: [m.tensor([7e4], dtype=m.half),
                                       m.full((1,), 1e5, dtype=m.half),
                                       m.tensor(_H, dtype=m.half) * 1e5],
    "int_wraps": lambda m: [m.tensor(_I, dtype=m.int32) + 3000000000,
                            m.tensor(_I, dtype=m.int32) * 3000000000],
}

ERROR_CASES = {
    "tensor_int32_overflow": lambda m: m.tensor([1, 3000000000], dtype=m.int32),
    "tensor_int32_float_overflow": lambda m: m.tensor([1.5, 3e9], dtype=m.int32),
    "full_int32_overflow": lambda m: m.full((1,), -3e9, dtype=m.int32),
    "fill_int32_overflow": lambda m: m.ones(1, dtype=m.int32).fill_(3000000000),
    "masked_fill_int32": lambda m: m.ones(2, dtype=m.int32).masked_fill(m.tensor([1, 0]) > 0,
                                                                         3000000000),
    "masked_fill_half": lambda m: m.ones(2, dtype=m.half).masked_fill(m.tensor([1, 0]) > 0, 1e5),
    "inplace_float_into_int": lambda m: m.tensor(_I, dtype=m.int32).add_(1.5),
    "mean_int": lambda m: m.tensor(_I, dtype=m.int32).mean(),
    "mean_dtype_int": lambda m: m.tensor(_H).mean(dtype=m.int32),
    "bitwise_half": lambda m: m.tensor(_H, dtype=m.half) & 1,
    "finfo_int": lambda m: m.finfo(m.int32),
    "iinfo_float": lambda m: m.iinfo(m.float16),
    "iinfo_bool": lambda m: m.iinfo(m.bool),
    "type_invalid": lambda m: m.ones(1).type("foo"),
    "take_along_dim_int32": lambda m: m.ones(2, 2).take_along_dim(
        m.zeros(2, 2, dtype=m.int32), 1),
    "conv_bias_dtypes": lambda m: m.nn.functional.conv2d(
        m.ones(1, 1, 3, 3, dtype=m.half), m.ones(1, 1, 2, 2, dtype=m.half),
        m.ones(1, dtype=m.int32)),
    "avg_pool2d_int32": lambda m: m.nn.functional.avg_pool2d(m.ones(1, 1, 2, 2, dtype=m.int32),
                                                             2),
}


@pytest.mark.parametrize("fn", API_CASES.values(), ids=API_CASES.keys())
def test_dtype_api(fn):
    check(fn)


@pytest.mark.parametrize("fn", ERROR_CASES.values(), ids=ERROR_CASES.keys())
def test_dtype_errors(fn):
    check_error(fn)
