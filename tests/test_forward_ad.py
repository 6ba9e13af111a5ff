"""Forward-mode AD (`gradrs.autograd.forward_ad`, `Function.jvp`, `gradrs.func.jvp`) vs PyTorch.

The op-table part runs every differentiable entry of ``tests/op_table.py`` in float64 with a
dual tensor for each floating input and compares the outputs' tangents with PyTorch's
``forward_ad``; entries PyTorch has no forward formula for are skipped, the ones gradrs lacks
are listed in ``MISSING`` (strict xfails, so the list stays true).
"""

from __future__ import annotations

import numpy as np
import pytest
from conftest import SELFTEST, G, assert_same_error, assert_same_values
from op_table import OPS, T, as_outputs, seed_of, tensor_data

pytestmark = pytest.mark.usefixtures("restore_grad_mode")

FW_MSG = "Trying to use forward AD with"

# Op-table entries gradrs has no forward formula for yet (PyTorch has one).
MISSING: set = set()

# Samples whose tangents differ from PyTorch's, with why (strict xfails).
DIFFS: dict = {}

# torch 2.13's cholesky_inverse forward formula is not the derivative of (L L^T)^{-1} (finite
# differences agree with gradrs's, tests/test_forward_ad_linalg.py).
DIFFS.update({pid: "torch's cholesky_inverse tangent disagrees with finite differences"
              for pid in ("cholesky_inverse/f32_3x3", "cholesky_inverse/f64_3x3")})


def _dual_args(m, item, tag, device="cpu"):
    """The sample's arguments, each floating tensor a dual of fixed random tangent."""
    fwAD = m.autograd.forward_ad
    dtype = "float64" if device == "cpu" else "float32"
    kw = {} if device == "cpu" else {"device": device}
    args = []
    for pos, (a, arr) in enumerate(zip(item.args, item.arrays)):
        if not isinstance(a, T):
            args.append(a)
            continue
        dt = dtype if a.floating else a.dtype
        leaf = m.tensor(tensor_data(np.asarray(arr).astype(dt)), dtype=getattr(m, dt), **kw)
        if a.floating:
            rng = np.random.default_rng(seed_of(tag, pos))
            v = rng.uniform(-1.0, 1.0, size=a.leaf_shape)
            leaf = fwAD.make_dual(leaf, m.tensor(tensor_data(v), dtype=getattr(m, dt), **kw))
        args.append(a.transform(leaf))
    return args


def _tangents(m, op, item, tag, device="cpu"):
    """[(primal as numpy, tangent as numpy or None)] per output, or the exception raised."""
    fwAD = m.autograd.forward_ad
    with fwAD.dual_level():
        try:
            outs = as_outputs(op.fn(m, *_dual_args(m, item, tag, device), **item.kwargs))
        except Exception as e:  # noqa: BLE001 - returned for the caller to judge
            return e
        res = []
        for o in outs:
            p, t = fwAD.unpack_dual(o)
            if t is not None and getattr(t, "_is_zerotensor", None) and t._is_zerotensor():
                t = m.zeros_like(p)  # PyTorch's ZeroTensor tangent, as an ordinary zero one
            res.append((p.detach().cpu().numpy(),
                        None if t is None else t.detach().cpu().numpy()))
        return res


def _fw_items():
    out = []
    for op in OPS:
        if not op.differentiable:
            continue
        for s in op.samples:
            if not any(isinstance(a, T) and a.floating for a in s.args):
                continue
            pid = f"{op.name}/{s.id}"
            marks = []
            if op.name in MISSING and not SELFTEST:
                marks = [pytest.mark.xfail(strict=True, reason="no forward formula yet")]
            if pid in DIFFS and not SELFTEST:
                marks = [pytest.mark.xfail(strict=True, reason=DIFFS[pid])]
            out.append(pytest.param(op, s, id=pid, marks=marks))
    return out


def _compare(g, t, what, rtol=1e-7, atol=1e-7):
    if t is None or g is None:
        # A tangent PyTorch leaves undefined (nothing flows) is zero here, and vice versa.
        other = g if t is None else t
        assert other is None or not np.any(other), f"{what}: {g} vs {t}"
        return
    assert g.shape == t.shape, f"{what}: shape {g.shape} != {t.shape}"
    np.testing.assert_allclose(g, t, rtol=rtol, atol=atol, err_msg=what)


@pytest.mark.parametrize("op, sample", _fw_items())
def test_op_tangent(torch, op, sample):
    tag = f"fw/{op.name}/{sample.id}"
    tres = _tangents(torch, op, sample, tag)
    if isinstance(tres, Exception):
        pytest.skip(f"PyTorch: {type(tres).__name__}: {str(tres)[:80]}")
    gres = _tangents(G, op, sample, tag)
    if isinstance(gres, Exception):
        raise gres
    assert len(gres) == len(tres)
    for k, ((gp, gt), (tp, tt)) in enumerate(zip(gres, tres)):
        _compare(gp, tp, f"primal {k}")
        if tp.dtype.kind != "f":
            continue
        _compare(gt, tt, f"tangent {k}", rtol=1e-6, atol=1e-8)


# ---- the API ---------------------------------------------------------------------------------


def _both(torch, fn):
    """Run ``fn(m)`` on gradrs and torch; both must raise the same, or return equal values."""
    assert_same_error(lambda: fn(G), lambda: fn(torch))


def _x(m, n=3, dtype="float64"):
    return m.arange(1.0, n + 1.0, dtype=getattr(m, dtype))


def test_errors_outside_level(torch):
    def make(m):
        return m.autograd.forward_ad.make_dual(_x(m), _x(m))
    _both(torch, make)
    for m in (G, torch):
        p, t = m.autograd.forward_ad.unpack_dual(_x(m))
        assert t is None
    _both(torch, lambda m: m.autograd.forward_ad.exit_dual_level())


@pytest.mark.parametrize("case", ["nested", "size", "int_primal", "int_tangent", "twice",
                                  "bad_level", "bad_unpack_level", "exit_other"])
def test_api_errors(torch, case):
    def fn(m):
        fw = m.autograd.forward_ad
        with fw.dual_level():
            x = _x(m)
            if case == "nested":
                fw.enter_dual_level()
            elif case == "size":
                fw.make_dual(x, _x(m, 4))
            elif case == "int_primal":
                fw.make_dual(m.arange(3), x)
            elif case == "int_tangent":
                fw.make_dual(x, m.arange(3))
            elif case == "twice":
                fw.make_dual(fw.make_dual(x, x), x)
            elif case == "bad_level":
                fw.make_dual(x, x, level=1)
            elif case == "bad_unpack_level":
                fw.unpack_dual(fw.make_dual(x, x), level=2)
            elif case == "exit_other":
                fw.exit_dual_level(level=3)
    _both(torch, fn)


def test_levels_and_tangent_lifetime(torch):
    for m in (G, torch):
        fw = m.autograd.forward_ad
        with fw.dual_level() as level:
            assert level == 0
            d = fw.make_dual(_x(m), m.ones(3, dtype=m.float64))
            y = d * d
            assert fw.unpack_dual(y).tangent is not None
            assert d._base is not None and d._is_view()
        assert fw.unpack_dual(y).tangent is None and fw.unpack_dual(d).tangent is None
        assert fw.enter_dual_level() == 0
        fw.exit_dual_level()


def test_make_dual_keeps_tangent_and_grad(torch):
    for m in (G, torch):
        fw = m.autograd.forward_ad
        x = _x(m).requires_grad_()
        t = m.ones(3, dtype=m.float64)
        with fw.dual_level():
            d = fw.make_dual(x, t)
            assert fw.unpack_dual(d).tangent is t
            assert type(d.grad_fn).__name__ == "ViewBackward0"
            p = fw.unpack_dual(d).primal
            assert fw.unpack_dual(p).tangent is None
            assert fw.unpack_dual(d.detach()).tangent is None
            c = d.clone()
            assert fw.unpack_dual(c).tangent is not t
            (d * 3).sum().backward()
        assert x.grad.tolist() == [3.0, 3.0, 3.0]


def test_views_share_tangent_with_base(torch):
    res = []
    for m in (G, torch):
        fw = m.autograd.forward_ad
        with fw.dual_level():
            d = fw.make_dual(m.zeros(2, 3, dtype=m.float64),
                             m.arange(6.0, dtype=m.float64).reshape(2, 3))
            v = d.t()[1:]
            tv = fw.unpack_dual(v).tangent.clone()
            # An in-place op on a view writes its tangent into the base's.
            b = m.zeros(4, dtype=m.float64)
            b[1:].copy_(fw.make_dual(_x(m), m.ones(3, dtype=m.float64)))
            tb = fw.unpack_dual(b).tangent.clone()
            w = d[0]
            w.mul_(2).add_(fw.make_dual(_x(m), m.full((3,), 5.0, dtype=m.float64)))
            td = fw.unpack_dual(d).tangent.clone()
            res.append([tv.tolist(), tb.tolist(), td.tolist()])
    assert res[0] == res[1]


def test_inplace_and_no_grad(torch):
    res = []
    for m in (G, torch):
        fw = m.autograd.forward_ad
        with fw.dual_level():
            x = fw.make_dual(_x(m), m.ones(3, dtype=m.float64))
            y = x.clone()
            y.exp_()
            y *= x
            with m.no_grad():
                z = y.sin()
            y.zero_()
            res.append([fw.unpack_dual(z).tangent.tolist(), fw.unpack_dual(y).tangent.tolist()])
    np.testing.assert_allclose(res[0], res[1], rtol=1e-12)


def test_reverse_over_forward(torch):
    """A tangent computed from tensors that require grad is differentiable."""
    res = []
    for m in (G, torch):
        fw = m.autograd.forward_ad
        x = _x(m).requires_grad_()
        with fw.dual_level():
            d = fw.make_dual(x, m.ones(3, dtype=m.float64))
            t = fw.unpack_dual((d.sin() * d).sum()).tangent
            (g,) = m.autograd.grad(t, x)
        res.append(g.tolist())
    np.testing.assert_allclose(res[0], res[1], rtol=1e-12)


def test_repr(torch):
    reprs = []
    for m in (G, torch):
        fw = m.autograd.forward_ad
        with fw.dual_level():
            d = fw.make_dual(_x(m), m.ones(3, dtype=m.float64))
            reprs.append(repr(d * 2).replace("torch", "gradrs"))
    assert reprs[0] == reprs[1]


def test_unsupported_op_error(torch):
    """An op without a forward formula raises PyTorch's NotImplementedError."""
    def fn(m):
        fw = m.autograd.forward_ad
        with fw.dual_level():
            m.heaviside(fw.make_dual(_x(m), m.ones(3, dtype=m.float64)), _x(m))
    _both(torch, fn)


GPU = (not SELFTEST) and G.gpu.is_available()


@pytest.mark.skipif(not GPU, reason="no wgpu adapter")
@pytest.mark.parametrize("name", ["exp", "mul", "matmul", "sum", "softmax", "view"])
def test_gpu_tangents(torch, name):
    fns = {
        "exp": lambda m, a, b: a.exp(),
        "mul": lambda m, a, b: a * b,
        "matmul": lambda m, a, b: a @ b.t(),
        "sum": lambda m, a, b: (a * b).sum(1),
        "softmax": lambda m, a, b: m.softmax(a, 1),
        "view": lambda m, a, b: a.t().reshape(-1)[1:],
    }
    res = []
    for m, dev in ((G, "gpu"), (torch, "cpu")):
        fw = m.autograd.forward_ad
        rng = np.random.default_rng(7)
        vals = [rng.uniform(-1, 1, (3, 4)).astype(np.float32) for _ in range(4)]
        ts = [m.tensor(v, device=dev) for v in vals]
        with fw.dual_level():
            a, b = fw.make_dual(ts[0], ts[1]), fw.make_dual(ts[2], ts[3])
            out = fns[name](m, a, b)
            res.append(fw.unpack_dual(out).tangent.detach().cpu().numpy())
    np.testing.assert_allclose(res[0], res[1], rtol=1e-4, atol=1e-5)


def test_values_match_exactly_shape(torch):
    """Tangent shapes follow broadcasting (a tangent of a broadcast operand is expanded)."""
    for m in (G, torch):
        fw = m.autograd.forward_ad
        with fw.dual_level():
            a = fw.make_dual(m.ones(3, 1, dtype=m.float64), m.ones(3, 1, dtype=m.float64))
            out = a + m.ones(1, 4, dtype=m.float64)
            assert tuple(fw.unpack_dual(out).tangent.shape) == (3, 4)


def test_same_values_helper_smoke(torch):
    assert_same_values(G.ones(2), torch.ones(2))


# ---- autograd.Function.jvp -------------------------------------------------------------------


def _function_cls(m):
    class MulK(m.autograd.Function):
        @staticmethod
        def forward(ctx, x, y, k):
            ctx.seen = m.autograd.forward_ad.unpack_dual(x).tangent
            ctx.save_for_forward(x, y)
            ctx.k = k
            return x * y * k

        @staticmethod
        def jvp(ctx, tx, ty, tk):
            ctx.got = (tx.tolist(), ty.tolist(), tk)
            x, y = ctx.saved_tensors
            return (tx * y + x * ty) * ctx.k

        @staticmethod
        def backward(ctx, g):
            return g, g, None

    class NoJvp(m.autograd.Function):
        @staticmethod
        def forward(ctx, x):
            return x * 2

        @staticmethod
        def backward(ctx, g):
            return g

    class TwoOut(m.autograd.Function):
        @staticmethod
        def forward(ctx, x):
            return x * 2, x * 3

        @staticmethod
        def jvp(ctx, t):
            return t

    return MulK, NoJvp, TwoOut


def test_function_jvp(torch):
    res = []
    for m in (G, torch):
        fw = m.autograd.forward_ad
        MulK, _, _ = _function_cls(m)
        with fw.dual_level():
            x = fw.make_dual(m.tensor([1.0, 2.0]), m.ones(2))
            out = MulK.apply(x, m.tensor([3.0, 4.0]), 3.0)
            res.append(fw.unpack_dual(out).tangent.tolist())
    assert res[0] == res[1] == [9.0, 12.0]


@pytest.mark.parametrize("which", [1, 2])
def test_function_jvp_errors(torch, which):
    def fn(m):
        fw = m.autograd.forward_ad
        cls = _function_cls(m)[which]
        with fw.dual_level():
            cls.apply(fw.make_dual(m.tensor([1.0, 2.0]), m.ones(2)))
    _both(torch, fn)


# ---- gradrs.func -----------------------------------------------------------------------------


def _f(m, x, y):
    return (x.sin() * y).sum(0), x.exp() @ y.t()


def _inputs(m):
    rng = np.random.default_rng(3)
    return tuple(m.tensor(rng.uniform(-1, 1, (2, 3))) for _ in range(2))


def _close(a, b):
    fa, fb = (a if isinstance(a, (tuple, list)) else [a]), (b if isinstance(b, (tuple, list))
                                                           else [b])
    assert len(fa) == len(fb)
    for u, v in zip(fa, fb):
        if isinstance(u, (tuple, list)):
            _close(u, v)
        else:
            np.testing.assert_allclose(u.detach().numpy(), v.detach().numpy(), rtol=1e-6,
                                       atol=1e-7)


def _func_case(m, case):
    x, y = _inputs(m)

    def f(a, b):
        return _f(m, a, b)

    if case == "jvp":
        return m.func.jvp(f, (x, y), (m.ones_like(x), y))
    if case == "jacfwd":
        return m.func.jacfwd(lambda a: f(a, y)[1])(x)
    if case == "jacfwd_argnums":
        return m.func.jacfwd(f, argnums=(0, 1))(x, y)
    if case == "jacrev":
        return m.func.jacrev(lambda a, b: f(a, b)[0], argnums=1)(x, y)
    if case == "hessian":
        return m.func.hessian(lambda a: (a.sin() * a).sum())(x)
    if case == "grad":
        return m.func.grad(lambda a, b: f(a, b)[1].sum(), argnums=(0, 1))(x, y)
    if case == "grad_and_value":
        return m.func.grad_and_value(lambda a: (a ** 3).sum())(x)
    out, fn = m.func.vjp(f, x, y)
    return out, fn((m.ones_like(out[0]), m.ones_like(out[1])))


@pytest.mark.parametrize("case", ["jvp", "jacfwd", "jacrev", "hessian", "grad", "vjp",
                                  "grad_and_value", "jacfwd_argnums"])
def test_func(torch, case):
    _close(_func_case(G, case), _func_case(torch, case))


def test_func_jvp_errors(torch):
    for call in (lambda m: m.func.jvp(lambda a: a, [m.ones(2)], (m.ones(2),)),
                 lambda m: m.func.jvp(lambda a: a, (m.ones(2),), (m.ones(2), m.ones(2))),
                 lambda m: m.func.jvp(lambda a: m.ones(2), (m.ones(2),), (m.ones(2),),
                                      strict=True),
                 lambda m: m.func.jvp(lambda a: 3, (m.ones(2),), (m.ones(2),))):
        _both(torch, call)


def test_functional_call(torch):
    res = []
    for m in (G, torch):
        m.manual_seed(0)
        lin = m.nn.Linear(3, 2)
        params = {"weight": m.ones(2, 3), "bias": m.zeros(2)}
        x = m.arange(6.0).reshape(2, 3)
        out = m.func.functional_call(lin, params, (x,))
        res.append((out, lin.weight.sum()))
        assert lin.weight.shape == (2, 3) and not bool((lin.weight == 1).all())
    _close(res[0][0], res[1][0])
