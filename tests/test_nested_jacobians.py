"""Second derivatives by nested transforms against torch.func (issue 22): `jacrev(jacfwd(f))`,
`jacfwd(jacrev(f))` and `hessian(f)` in float64 for a broad list of unary and binary ops,
nn functions and losses. Bit-equal where torch's are (the signs of zeros too), else within a
few ulps; each exception is listed with its reason.

The bugs this file pins: `jacrev(jacfwd(F.softplus))` raised the overlap error (a batched
leaf expanded over a vmap level handed to `_make_dual`); functions composed in Python
(`F.logsigmoid`, `_one_node`'s `F.mse_loss` / `dist` / `glu`..., `F.binary_cross_entropy`) lost
their tangent when their input also required grad, so `jacrev(jacfwd(F.logsigmoid))` was zeros
and `hessian(dist)` wrong; `F.layer_norm` had no forward mode."""

import numpy as np
import pytest
from conftest import G, assert_bits_equal

X = [0.3, -1.2, 2.0, 0.7, -0.4, 1.1]


def _ops(m):
    F = m.nn.functional
    return {
        "sin": m.sin, "cos": m.cos, "tan": m.tan, "exp": m.exp, "tanh": m.tanh,
        "sigmoid": m.sigmoid, "neg": m.neg, "erf": m.erf, "erfc": m.erfc, "expm1": m.expm1,
        "asinh": m.asinh, "atan": m.atan, "sinh": m.sinh, "cosh": m.cosh, "square": m.square,
        "sinc": m.sinc,
        "log": lambda x: m.log(x.abs() + 0.5),
        "log2": lambda x: m.log2(x.abs() + 0.5),
        "log1p": lambda x: m.log1p(x.abs()),
        "sqrt": lambda x: m.sqrt(x.abs() + 0.5),
        "rsqrt": lambda x: m.rsqrt(x.abs() + 0.5),
        "reciprocal": lambda x: m.reciprocal(x + 3),
        "lgamma": lambda x: m.lgamma(x.abs() + 0.5),
        "digamma": lambda x: m.digamma(x.abs() + 0.5),
        "pow3": lambda x: x ** 3,
        "pow_float": lambda x: (x.abs() + 0.5) ** 2.5,
        "softplus": F.softplus, "gelu": F.gelu, "gelu_tanh": lambda x: F.gelu(x, approximate="tanh"),
        "logsigmoid": F.logsigmoid, "silu": F.silu, "mish": F.mish, "elu": F.elu, "celu": F.celu,
        "selu": F.selu, "hardswish": F.hardswish, "softsign": F.softsign,
        "tanhshrink": F.tanhshrink, "relu": F.relu, "leaky_relu": F.leaky_relu,
        "softmax": lambda x: F.softmax(x.reshape(2, -1), 1),
        "log_softmax": lambda x: F.log_softmax(x.reshape(2, -1), 1),
        "logsumexp": lambda x: m.logsumexp(x.reshape(2, -1), 1),
        "sum": lambda x: x.sum() * x, "mean": lambda x: x.mean() * x, "prod": lambda x: x.prod(),
        "std": lambda x: x.std(), "var": lambda x: x.var(),
        "std_dim": lambda x: x.reshape(2, -1).std(1), "norm": lambda x: x.norm(),
        "cumsum": lambda x: x.cumsum(0) * x, "cumprod": lambda x: x.cumprod(0),
        "abs": lambda x: x.abs() * x,
        "mul": lambda x: x * x.flip(0), "div": lambda x: x / (x.flip(0).abs() + 0.5),
        "pow": lambda x: (x.abs() + 0.5) ** x.flip(0),
        "atan2": lambda x: m.atan2(x, x.flip(0) + 0.3),
        "hypot": lambda x: m.hypot(x, x.flip(0) * 0.7 + 0.1),
        "maximum": lambda x: m.maximum(x, x.flip(0) * 0.5),
        "minimum": lambda x: m.minimum(x, x.flip(0) * 0.5),
        "xlogy": lambda x: m.xlogy(x, x.flip(0).abs() + 0.5),
        "matmul": lambda x: x.reshape(2, -1) @ x.reshape(-1, 2),
        "where": lambda x: m.where(x > 0, x * x, x.sin()),
        "clamp": lambda x: x.clamp(-1, 1) * x,
        "addcmul": lambda x: m.addcmul(x, x, x.flip(0), value=0.5),
        "lerp": lambda x: m.lerp(x, x.flip(0), 0.3),
        "logit": lambda x: m.logit(m.sigmoid(x)),
        "dist": lambda x: m.dist(x, x.flip(0) * 0.3),
        "mse_loss": lambda x: F.mse_loss(x, x.flip(0) * 0.3),
        "glu": F.glu,
        "normalize": lambda x: F.normalize(x.reshape(2, -1)),
        "layer_norm": lambda x: F.layer_norm(x.reshape(2, 3), (3,)).pow(3),
        "binary_cross_entropy": lambda x: F.binary_cross_entropy(m.sigmoid(x),
                                                                 m.sigmoid(x.flip(0))),
        "cross_entropy": lambda x: F.cross_entropy(x.reshape(2, 3), m.tensor([0, 2])),
        "smooth_l1_loss": lambda x: F.smooth_l1_loss(x, x.flip(0) * 0.2),
        "huber_loss": lambda x: F.huber_loss(x, x.flip(0) * 0.2),
        "kl_div": lambda x: F.kl_div(F.log_softmax(x, 0), F.softmax(x.flip(0), 0),
                                     reduction="sum"),
    }


MODES = ["jacrev_jacfwd", "jacfwd_jacrev", "hessian"]

# Differences left, each checked within a few ulps instead of bit for bit:
# - `jacrev(jacfwd(f))`'s zeros: functorch keeps an input unbatched at jacfwd's vmap level, so
#   `d/dx` of the tangent sums the columns' products before the derivative's factor (+0 ...);
#   gradrs's dual needs its primal batched as its tangent (one layout, Note [Forward AD]), so
#   each column multiplies first and the zero keeps the factor's sign (-0). Needs a tangent
#   batched over a level its primal is not (native).
_SIGNS = {"sin", "cos", "tan", "log", "log2", "sqrt", "rsqrt", "reciprocal", "erf", "erfc",
          "log1p", "asinh", "atan", "sinh", "lgamma", "digamma", "pow3", "pow_float"}
# - the forward or formula differs from ATen's in its last bits: gelu / mish / softmax
#   family (their forward kernels), prod / cumprod (ATen's prod_backward order), glu, atan2,
#   dist, normalize, cross_entropy, kl_div (compositions), binary_cross_entropy (ATen's
#   double backward adds 1e-12 to the clamp; relative 1e-11), xlogy / sinc zero signs.
_CLOSE = {
    ("gelu", m) for m in MODES} | {("gelu_tanh", m) for m in MODES} | {
    ("mish", m) for m in MODES} | {("softmax", m) for m in MODES} | {
    ("log_softmax", m) for m in MODES} | {("prod", m) for m in MODES} | {
    ("cumprod", m) for m in MODES} | {("glu", m) for m in MODES} | {
    ("dist", m) for m in MODES} | {("binary_cross_entropy", m) for m in MODES} | {
    ("cross_entropy", m) for m in MODES} | {("kl_div", m) for m in MODES} | {
    ("layer_norm", m) for m in MODES} | {
    ("atan2", "hessian"), ("atan2", "jacfwd_jacrev"), ("xlogy", "hessian"),
    ("xlogy", "jacfwd_jacrev"), ("sinc", "jacrev_jacfwd"), ("sinc", "jacfwd_jacrev")}
# torch refuses these (no forward formula for glu_jvp); gradrs computes them.
_TORCH_REFUSES = {("glu", "jacrev_jacfwd")}


def _second(m, f, mode):
    fn = m.func
    x = m.tensor(X, dtype=m.float64)
    if mode == "hessian":
        return fn.hessian(lambda x: f(x).sum())(x)
    if mode == "jacrev_jacfwd":
        return fn.jacrev(fn.jacfwd(f))(x)
    return fn.jacfwd(fn.jacrev(f))(x)


def _want(torch, name, mode):
    if name == "layer_norm" and mode == "jacrev_jacfwd":
        # torch's forward-over-forward through layer_norm_jvp differs from its own hessian
        # and jacrev(jacrev) (both of which gradrs matches): the reference is jacrev(jacrev).
        return torch.func.jacrev(torch.func.jacrev(_ops(torch)[name]))(
            torch.tensor(X, dtype=torch.float64))
    return _second(torch, _ops(torch)[name], mode)


@pytest.mark.parametrize("mode", MODES)
@pytest.mark.parametrize("name", sorted(_ops(G)))
def test_second_derivatives_as_torch_func(torch, name, mode):
    got = _second(G, _ops(G)[name], mode).numpy()
    if (name, mode) in _TORCH_REFUSES:
        want = torch.func.jacrev(torch.func.jacrev(_ops(torch)[name]))(
            torch.tensor(X, dtype=torch.float64)).numpy()
        np.testing.assert_allclose(got, want, rtol=1e-13, atol=1e-15)
        return
    want = _want(torch, name, mode).numpy()
    assert got.shape == want.shape
    if (name, mode) in _CLOSE:
        # (atol: a Hessian entry that is 0 in exact arithmetic comes out as rounding noise)
        rtol = 1e-10 if name == "binary_cross_entropy" else 1e-13
        np.testing.assert_allclose(got, want, rtol=rtol, atol=1e-14 * max(1.0, np.abs(want).max()))
    elif mode == "jacrev_jacfwd" and name in _SIGNS:
        assert_bits_equal(G.tensor(got + 0.0), torch.tensor(want + 0.0), f"{name} {mode}")
    else:
        assert_bits_equal(G.tensor(got), torch.tensor(want), f"{name} {mode}")


@pytest.mark.parametrize("name", ["softplus", "gelu", "logsigmoid"])
def test_jacrev_of_jacfwd_runs(torch, name):
    """The issue's repro: it raised "more than one element of the written-to tensor refers to
    a single memory location" (and logsigmoid's was zeros)."""
    x = [0.3, -1.2, 2.0, 0.0]
    tf, gf = getattr(torch.nn.functional, name), getattr(G.nn.functional, name)
    want = torch.func.jacrev(torch.func.jacfwd(tf))(torch.tensor(x, dtype=torch.float64))
    got = G.func.jacrev(G.func.jacfwd(gf))(G.tensor(x, dtype=G.float64))
    np.testing.assert_allclose(got.numpy(), want.numpy(), rtol=1e-15, atol=0)


def _run(m, case):
    fn, f64 = m.func, m.float64
    x = m.ones(3, dtype=f64)
    if case == "vmap over an expanded primal":
        return fn.vmap(lambda p: fn.jvp(m.sin, (p,), (m.ones(3, dtype=f64),))[1])(x.expand(2, 3))
    if case == "vmap(grad(jvp)) of an unbatched input":
        return fn.vmap(fn.grad(lambda p, t: fn.jvp(m.sin, (p,), (t,))[1].sum()), (None, 0))(
            x, m.ones(4, 3, dtype=f64))
    if case == "expanded primal, plain jvp":
        return fn.jvp(m.sin, (x.expand(2, 3),), (m.ones(2, 3, dtype=f64),))[1]
    if case == "expanded primal within a sample":
        return fn.vmap(lambda t: fn.jvp(m.sin, (x.expand(2, 3),), (t,))[1])(
            m.ones(4, 2, 3, dtype=f64))
    raise AssertionError(case)


@pytest.mark.parametrize("case", ["vmap over an expanded primal",
                                  "vmap(grad(jvp)) of an unbatched input",
                                  "expanded primal, plain jvp",
                                  "expanded primal within a sample"])
def test_expanded_primals_as_torch(torch, case):
    """A primal expanded over a vmap level (its physical's batch dim, or a batched leaf made
    of an unbatched input) takes its tangent; one whose sample overlaps itself raises torch's
    error."""
    try:
        want = _run(torch, case)
    except RuntimeError as e:
        with pytest.raises(RuntimeError) as got:
            _run(G, case)
        assert str(got.value) == str(e)
        return
    got = _run(G, case)
    assert_bits_equal(got, want, case)


@pytest.mark.parametrize("name", ["logsigmoid", "mse_loss", "glu", "binary_cross_entropy",
                                  "layer_norm", "dist"])
def test_tangent_of_input_requiring_grad(torch, name):
    """A dual input that also requires grad: the Python-composed functions kept no tangent."""
    def run(m):
        fa, F = m.autograd.forward_ad, m.nn.functional
        x = m.tensor(X, dtype=m.float64, requires_grad=True)
        t = m.tensor([0.5, -1.0, 0.25, 2.0, 1.0, -0.5], dtype=m.float64)
        f = {"logsigmoid": F.logsigmoid, "mse_loss": lambda d: F.mse_loss(d, d.flip(0) * 0.3),
             "glu": F.glu, "layer_norm": lambda d: F.layer_norm(d.reshape(2, 3), (3,)),
             "binary_cross_entropy": lambda d: F.binary_cross_entropy(d.sigmoid(), m.full(
                 (6,), 0.25, dtype=m.float64)),
             "dist": lambda d: m.dist(d, d.flip(0) * 0.3)}[name]
        with fa.dual_level():
            return fa.unpack_dual(f(fa.make_dual(x, t))).tangent.detach()

    want, got = run(torch), run(G)
    np.testing.assert_allclose(got.numpy(), want.numpy(), rtol=1e-14, atol=1e-16)


def test_log_sigmoid_hessian_at_zero(torch):
    """log_sigmoid's backward is one node (LogSigmoidBackwardBackward0) with ATen's double
    backward, so its Hessian at 0 is -1/4 (a composition's abs gave 0 there), bit for bit."""
    x = [0.0, -3.0, 1e-3, 25.0]

    def f(m):
        return lambda x: m.nn.functional.logsigmoid(x).sum()

    for mode in ("hessian", "jacfwd_jacrev", "jacrev_jacfwd"):
        def run(m, mode=mode):
            fn, t = m.func, m.tensor(x, dtype=m.float64)
            if mode == "hessian":
                return fn.hessian(f(m))(t)
            if mode == "jacfwd_jacrev":
                return fn.jacfwd(fn.jacrev(f(m)))(t)
            return fn.jacrev(fn.jacfwd(f(m)))(t)
        assert_bits_equal(run(G), run(torch), mode)
    y = G.tensor(x, dtype=G.float64, requires_grad=True)
    g, = G.autograd.grad(G.nn.functional.logsigmoid(y).sum(), y, create_graph=True)
    assert g.grad_fn.name() == "LogSigmoidBackwardBackward0"


def _node_ops(m):
    """Functions `_ops` records as one node over a composition computed with grad mode off,
    and the normalizations whose native op has no forward formula."""
    F = m.nn.functional

    def sq(x):
        return x.reshape(2, 3) @ x.reshape(3, 2) + 3 * m.eye(2, dtype=x.dtype)

    return {
        "baddbmm": lambda x: m.baddbmm(x.reshape(1, 2, 3)[:, :, :2], x.reshape(1, 2, 3),
                                       x.reshape(1, 3, 2)),
        "addbmm": lambda x: m.addbmm(x[:4].reshape(2, 2), x.reshape(1, 2, 3), x.reshape(1, 3, 2)),
        "addmv": lambda x: m.addmv(x[:2], x.reshape(2, 3), x[3:]),
        "addr": lambda x: m.addr(x[:4].reshape(2, 2), x[:2], x[4:]),
        "kron": lambda x: m.kron(x[:2], x[2:]),
        "vdot": lambda x: m.vdot(x[:3], x[3:]) * x,
        "ldexp": lambda x: m.ldexp(x, m.tensor([1, 2, 0, 1, 2, 3])),
        "renorm": lambda x: x.reshape(2, 3).renorm(2, 0, 1.0),
        "logcumsumexp": lambda x: m.logcumsumexp(x, 0),
        "take": lambda x: m.take(x * x, m.tensor([0, 5, 2])),
        "rsub": lambda x: m.rsub(x, x.flip(0) * x),
        "fmin": lambda x: m.fmin(x, x.flip(0) * 0.5) * x,
        "det": lambda x: m.linalg.det(sq(x)),
        "solve": lambda x: m.linalg.solve(sq(x), x[:2]),
        "cholesky": lambda x: m.linalg.cholesky(sq(x) @ sq(x).mT),
        # natives without a forward formula, composed under a live tangent (torch's own
        # jacrev(jacfwd) of these differs from its double backward)
        "batch_norm": lambda x: F.batch_norm(x.reshape(3, 2), None, None, training=True).pow(3),
        "batch_norm_eval": lambda x: F.batch_norm(
            x.reshape(3, 2), m.tensor([0.1, -0.2], dtype=x.dtype),
            m.tensor([1.5, 0.5], dtype=x.dtype), x[:2], x[4:], training=False).pow(3),
        "instance_norm": lambda x: F.instance_norm(x.reshape(1, 2, 3)).pow(3),
        "layer_norm_affine": lambda x: F.layer_norm(x.reshape(2, 3), (3,), x[:3], x[3:]).pow(3),
    }


@pytest.mark.parametrize("mode", MODES + ["jacfwd_jacfwd"])
@pytest.mark.parametrize("name", sorted(_node_ops(G)))
def test_node_ops_second_derivatives(torch, name, mode):
    """`jacrev(jacfwd(f))` of an `_ops` node (baddbmm, kron...): its tangent, computed with grad
    mode off, had no history to the inputs (kron's was even dropped by `_own`'s detach), so
    the outer jacrev saw zeros; now it is J t by the double-vjp trick on the node's backward.
    Against torch's double backward."""
    x = torch.tensor(X, dtype=torch.float64)
    tf, af = torch.func, torch.autograd.functional
    # the reference: torch's double backward (torch.func's own nested transforms are off for
    # linalg.solve's, the norms' jacrev(jacfwd) and layer_norm's with a batched weight)
    want = af.jacobian(lambda v: af.jacobian(_node_ops(torch)[name], v, create_graph=True),
                       x).numpy()
    if (name, mode) == ("det", "jacrev_jacfwd"):
        # torch's linalg_det_jvp under jacrev differs from its own hessian; gradrs's, written
        # as torch's, gives the same values
        want = tf.jacrev(tf.jacfwd(_node_ops(torch)[name]))(x).numpy()
    f, fn = _node_ops(G)[name], G.func
    gx = G.tensor(X, dtype=G.float64)
    if mode == "hessian":
        got = fn.hessian(f)(gx)
    elif mode == "jacrev_jacfwd":
        got = fn.jacrev(fn.jacfwd(f))(gx)
    elif mode == "jacfwd_jacrev":
        got = fn.jacfwd(fn.jacrev(f))(gx)
    else:
        got = fn.jacfwd(fn.jacfwd(f))(gx)
    np.testing.assert_allclose(got.numpy(), want, rtol=1e-12,
                               atol=1e-12 * max(1.0, np.abs(want).max()))


@pytest.mark.parametrize("name", ["baddbmm", "addbmm", "addmv", "addr", "kron", "take", "rsub",
                                  "batch_norm", "layer_norm_affine"])
def test_vmap_grad_through_node_ops(torch, name):
    """`vmap(grad(f))` through an `_ops` node: the node was left out over BatchedTensors (not
    native tensors), so every per-sample gradient was zeros; now the per-sample call takes it."""
    xs = np.stack([np.array(X) * (k + 1) for k in range(3)])

    def run(m):
        f = _node_ops(m)[name]
        return m.func.vmap(m.func.grad(lambda x: f(x).sum()))(m.tensor(xs, dtype=m.float64))

    np.testing.assert_allclose(run(G).numpy(), run(torch).numpy(), rtol=1e-13, atol=1e-13)


def test_node_op_tangent_of_input_requiring_grad(torch):
    """kron's result is a view of its product, detached by `_node`: the detach dropped the
    tangent when the input also required grad."""
    def run(m):
        fa = m.autograd.forward_ad
        x = m.tensor([1.0, 2.0, 3.0, 4.0], dtype=m.float64, requires_grad=True)
        with fa.dual_level():
            d = fa.make_dual(x, m.tensor([1.0, 0.0, 0.0, 0.0], dtype=m.float64))
            t = fa.unpack_dual(m.kron(d[:2], d[2:])).tangent
            return t.detach(), m.autograd.grad(t.sum(), x)[0]

    for g, t in zip(run(G), run(torch)):
        assert_bits_equal(g, t, "kron tangent")


@pytest.mark.parametrize("training", [True, False])
def test_batch_norm_under_forward_ad(torch, training):
    """batch_norm with a dual input: the value, the tangent and the running statistics (updated
    by the native op, bit for bit) as torch's; its node is NativeBatchNormBackward0."""
    def run(m):
        F, fa = m.nn.functional, m.autograd.forward_ad
        x = m.tensor([[0.3, -1.2, 2.0], [0.7, 0.1, -0.5], [1.5, 0.2, -0.3], [0.9, -0.8, 0.4]],
                     dtype=m.float64)
        rm = m.tensor([0.1, 0.2, 0.3], dtype=m.float64)
        rv = m.tensor([1.5, 0.5, 2.0], dtype=m.float64)
        w = m.tensor([1.5, -0.5, 2.0], dtype=m.float64, requires_grad=True)
        with fa.dual_level():
            y = F.batch_norm(fa.make_dual(x, m.ones_like(x) * 0.3), rm, rv, w,
                             m.tensor([0.1, 0.2, 0.3], dtype=m.float64), training=training)
            p, t = fa.unpack_dual(y)
            return p.detach(), t.detach(), rm, rv, y.grad_fn.name()

    got, want = run(G), run(torch)
    np.testing.assert_allclose(got[0].numpy(), want[0].numpy(), rtol=1e-14, atol=1e-15)
    np.testing.assert_allclose(got[1].numpy(), want[1].numpy(), rtol=1e-14, atol=1e-15)
    assert_bits_equal(got[2], want[2], "running_mean")
    assert_bits_equal(got[3], want[3], "running_var")
    assert got[4] == want[4]
