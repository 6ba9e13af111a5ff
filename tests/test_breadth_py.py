"""Issue 24's Python compositions of _ops/ against PyTorch: argwhere, kron, frexp, renorm
(+ renorm_), histogram, index_copy_ / masked_scatter_: values, reprs, grad_fn names, gradients
(float64 gradcheck and gradgradcheck), errors."""

import numpy as np
import pytest
from conftest import G, assert_same, assert_same_repr, check, check_error, node_name, run_both

_DATA = [[1.0, -2.0, 3.0, 0.0], [0.1, 0.2, -0.3, 5.0], [-4.0, 0.5, 0.25, -0.75]]


def _x(m, dtype="float64", rg=False, data=_DATA):
    return m.tensor(data, dtype=getattr(m, dtype), requires_grad=rg)


def _grads(m, fn, n_inputs, dtype="float64"):
    """fn(m, *leaves) -> output; the output, and each leaf's gradient for a fixed weight."""
    rng = np.random.default_rng(0)
    leaves = [m.tensor(rng.standard_normal((3, 4)).tolist(), dtype=getattr(m, dtype),
                       requires_grad=True) for _ in range(n_inputs)]
    out = fn(m, *leaves)
    w = m.tensor(rng.standard_normal(tuple(out.shape)).tolist(), dtype=out.dtype)
    (out * w).sum().backward()
    return out, [leaf.grad for leaf in leaves], node_name(out.grad_fn)


def _same_grads(torch, fn, n_inputs):
    g = _grads(G, fn, n_inputs)
    t = _grads(torch, fn, n_inputs)
    assert g[2] == t[2]
    assert_same(g[0].detach(), t[0].detach())
    for a, b in zip(g[1], t[1]):
        assert_same(a, b)


def _gradcheck(fn, *shapes):
    rng = np.random.default_rng(1)
    xs = [G.tensor(rng.standard_normal(s).tolist(), dtype=G.float64, requires_grad=True)
          for s in shapes]
    assert G.autograd.gradcheck(fn, xs)
    assert G.autograd.gradgradcheck(fn, xs)


# ---- argwhere ---------------------------------------------------------------------------------

@pytest.mark.parametrize("dtype", ["float32", "int64", "bool"])
def test_argwhere(torch, dtype):
    check(lambda m: m.argwhere(_x(m, dtype)))
    check(lambda m: _x(m, dtype).argwhere())
    check(lambda m: m.argwhere(m.tensor(3.0)))
    check(lambda m: m.argwhere(m.zeros(0, 2)))


def test_argwhere_errors(torch):
    check_error(lambda m: m.argwhere(1))
    check_error(lambda m: m.argwhere(_x(m), 1))


# ---- kron -------------------------------------------------------------------------------------

@pytest.mark.parametrize("shapes", [((2, 3), (3, 2)), ((3,), (2, 2)), ((2, 1, 2), (3,)),
                                    ((), (2,)), ((0, 2), (2,))])
def test_kron_values(torch, shapes):
    a, b = shapes
    n_a, n_b = int(np.prod(a)), int(np.prod(b))
    check(lambda m: m.kron(m.arange(n_a).reshape(a), m.arange(n_b, dtype=m.float32).reshape(b)))
    check(lambda m: m.arange(n_a).reshape(a).kron(m.arange(n_b).reshape(b)))


def test_kron_grad(torch):
    _same_grads(torch, lambda m, a, b: m.kron(a, b[:2, :2]), 2)
    _gradcheck(lambda a, b: G.kron(a, b), (2, 3), (2, 2))


def test_kron_out_and_errors(torch):
    def with_out(m):
        o = m.empty(0)
        r = m.kron(m.ones(2), m.ones(3), out=o)
        return r, o

    check(with_out)
    check_error(lambda m: m.kron(m.ones(2), 1))
    check_error(lambda m: m.ones(2).kron(1))


# ---- frexp ------------------------------------------------------------------------------------

@pytest.mark.parametrize("dtype", ["float32", "float64", "float16"])
def test_frexp_values(torch, dtype):
    data = [0.0, -0.0, 1.0, -1.5, 0.75, 1e-3, 3e4, float("inf"), -float("inf"), float("nan"),
            2.0 ** 10 - 2.0 ** -3]
    check(lambda m: tuple(m.frexp(m.tensor(data, dtype=getattr(m, dtype)))))
    assert_same_repr(*run_both(lambda m: m.frexp(m.tensor(data, dtype=getattr(m, dtype)))))
    check(lambda m: tuple(m.tensor(data, dtype=getattr(m, dtype)).frexp()))


def test_frexp_extremes(torch):
    for dtype, data in (("float32", [1e-45, 1.17e-38, 3.4e38, 2.0 ** -126, 16777215.0]),
                        ("float64", [5e-324, 2.2e-308, 1.7e308, 2.0 ** 53 - 1])):
        check(lambda m, data=data, dtype=dtype: tuple(m.frexp(m.tensor(data, dtype=getattr(m, dtype)))))
    rng = np.random.default_rng(3)
    vals = (rng.standard_normal(2000) * 10.0 ** rng.integers(-30, 30, 2000)).tolist()
    check(lambda m: tuple(m.frexp(m.tensor(vals, dtype=m.float32))))


def test_frexp_grad(torch):
    _same_grads(torch, lambda m, x: m.frexp(x * 7).mantissa, 1)
    _gradcheck(lambda x: G.frexp(x * 3)[0], (3, 4))


def test_frexp_errors_and_out(torch):
    check_error(lambda m: m.frexp(m.tensor([1, 2])))
    check_error(lambda m: m.frexp(1.0))

    def with_out(m):
        mant, ex = m.empty(0), m.empty(0, dtype=m.int32)
        r = m.frexp(m.tensor([3.0, 0.1]), out=(mant, ex))
        return tuple(r), mant, ex

    check(with_out)
    check_error(lambda m: m.frexp(m.tensor([3.0]), out=(m.empty(0), m.empty(0))))


# ---- renorm -----------------------------------------------------------------------------------

@pytest.mark.parametrize("p", [1, 2, 3, 1.5, 0.5, float("inf")])
@pytest.mark.parametrize("dim", [0, 1, -1])
def test_renorm(torch, p, dim):
    check(lambda m: m.renorm(_x(m), p, dim, 1.0))
    check(lambda m: _x(m, "float32").renorm(p, dim, 2.5))
    _same_grads(torch, lambda m, x: m.renorm(x, p, dim, 1.0), 1)


def test_renorm_in_place(torch):
    def inplace(m):
        x = _x(m, rg=True)
        y = x * 2
        r = y.renorm_(2, 1, 3.0)
        assert r is y
        v = y._version
        y.sum().backward()
        return y, x.grad, v

    check(inplace)

    def view(m):
        x = _x(m, rg=True)
        y = x * 1
        y[1:].renorm_(2, 0, 1.0)
        y.sum().backward()
        return y, x.grad

    check(view)
    check_error(lambda m: _x(m, rg=True).renorm_(2, 0, 1.0))
    check(lambda m: _x(m).renorm_(1, 0, 1.0))


def test_renorm_gradcheck():
    for p in (2, 3, 1.5):
        _gradcheck(lambda x, p=p: G.renorm(x, p, 0, 1.0), (3, 4))
        _gradcheck(lambda x, p=p: (x * 1).renorm_(p, 1, 0.5), (3, 4))


@pytest.mark.parametrize("call", [
    lambda m: m.renorm(_x(m), 0, 0, 1.0),
    lambda m: m.renorm(_x(m), -1, 0, 1.0),
    lambda m: m.renorm(_x(m), 2, 0, -1.0),
    lambda m: m.renorm(_x(m), 2, 5, 1.0),
    lambda m: m.renorm(m.ones(3), 2, 0, 1.0),
    lambda m: m.renorm(m.ones(3, 3, dtype=m.int64), 2, 0, 1),
    lambda m: m.renorm(_x(m), "a", 0, 1.0),
    lambda m: m.renorm(_x(m), 2, 0, 1.0, 5),
    lambda m: _x(m).renorm_(2, 0),
])
def test_renorm_errors(torch, call):
    check_error(call)


# ---- histogram --------------------------------------------------------------------------------

@pytest.mark.parametrize("dtype", ["float32", "float64"])
def test_histogram(torch, dtype):
    rng = np.random.default_rng(5)
    data = rng.standard_normal(1000).tolist()
    w = rng.random(1000).tolist()

    def t(m, *values):
        return m.tensor(values[0] if values else data, dtype=getattr(m, dtype))

    calls = [
        lambda m: m.histogram(t(m), 7),
        lambda m: m.histogram(t(m), bins=10, range=(-1.0, 2.0), density=True),
        lambda m: t(m).histogram(t(m, [-2.0, -0.5, 0.0, 0.1, 3.0])),
        lambda m: m.histogram(t(m), 5, weight=t(m, w), density=True),
        lambda m: m.histogram(t(m, [1.0, 1.0]), 3),
        lambda m: m.histogram(t(m, []), 3),
        lambda m: m.histogram(t(m, [1.0, 2, 1]), bins=4, range=(0.0, 3.0),
                              weight=t(m, [1.0, 2.0, 4.0])),
    ]
    for call in calls:
        check(lambda m, call=call: tuple(call(m)))
    assert_same_repr(*run_both(calls[-1]))


@pytest.mark.parametrize("call", [
    lambda m: m.histogram(m.ones(3, dtype=m.int64), 3),
    lambda m: m.histogram(m.ones(3), -1),
    lambda m: m.histogram(m.ones(3), 3, range=(2.0, 1.0)),
    lambda m: m.histogram(m.ones(3), m.tensor([0.0, 1.0], dtype=m.float64)),
    lambda m: m.histogram(m.ones(3), 3, weight=m.ones(2)),
    lambda m: m.histogram(m.ones(3), 3, weight=m.ones(3, dtype=m.float64)),
    lambda m: m.histogram(m.ones(3), "a"),
    lambda m: m.histogram(m.tensor([0.0, 1.0, 2.0, float("nan")]), 2),
    lambda m: m.histogram(m.tensor([0.0, 1.0]), 2, range=(0.0, float("inf"))),
    lambda m: m.histogram(m.ones(3, dtype=m.float16), 3),
])
def test_histogram_errors(torch, call):
    check_error(call)


# ---- index_copy_, masked_scatter_ -------------------------------------------------------------

def test_index_copy_in_place(torch):
    def run(m):
        x = _x(m, rg=True)
        s = m.tensor([[7.0, 8.0], [9.0, 1.0], [2.0, 3.0]], dtype=m.float64, requires_grad=True)
        y = x * 1
        r = y.index_copy_(1, m.tensor([3, 0]), s)
        assert r is y
        (y * m.arange(12.0, dtype=m.float64).reshape(3, 4)).sum().backward()
        return y, y._version, x.grad, s.grad

    check(run)
    check(lambda m: m.zeros(3, 2).index_copy_(0, m.tensor([2, 0]), m.ones(2, 2)))
    t = [[7.0, 8.0, 9.0, 1.0], [1.0, 2.0, 3.0, 4.0]]
    check(lambda m: _x(m).index_copy_(0, m.tensor([2, 0]), m.tensor(t, dtype=m.float64)))
    _gradcheck(lambda x, s: (x * 1).index_copy_(0, G.tensor([2, 0]), s), (3, 4), (2, 4))
    check_error(lambda m: _x(m, rg=True).index_copy_(0, m.tensor([0]), m.ones(1, 4)))
    check_error(lambda m: _x(m).index_copy_(0, m.tensor([0]), m.ones(1, 4)))
    check_error(lambda m: _x(m).index_copy_(0, m.tensor([5]), m.ones(1, 4, dtype=m.float64)))


def test_masked_scatter_in_place(torch):
    def run(m):
        x = _x(m, rg=True)
        s = m.arange(20.0, dtype=m.float64).requires_grad_()
        y = x * 1
        r = y.masked_scatter_(x.detach() > 0, s)
        assert r is y
        (y * m.arange(12.0, dtype=m.float64).reshape(3, 4)).sum().backward()
        return y, y._version, x.grad, s.grad

    check(run)
    check(lambda m: _x(m).masked_scatter_(m.tensor([True, False, False, True]),
                                          m.arange(20.0, dtype=m.float64)))
    _gradcheck(lambda x, s: (x * 1).masked_scatter_(G.tensor([True, False, True, True]), s),
               (3, 4), (12,))
    check_error(lambda m: _x(m).masked_scatter_(m.ones(2, 3, 4, dtype=m.bool), _x(m)))
    check_error(lambda m: _x(m).masked_scatter_(m.ones(3, dtype=m.bool), _x(m)))
    check_error(lambda m: _x(m).masked_scatter_(m.ones(3, 4), _x(m)))
    check_error(lambda m: _x(m).masked_scatter_(m.ones(3, 4, dtype=m.bool), m.ones(2)))


# ---- ldexp and the in-place forms of differentiable ops ---------------------------------------

def test_ldexp(torch):
    check(lambda m: m.ldexp(m.tensor([1, 2]), m.tensor([1, 2])))
    check(lambda m: m.ldexp(m.tensor([1.0, -3.0]), m.tensor([[1.5], [-2.0]])))
    check(lambda m: m.tensor([1.0, -3.0], dtype=m.float64).ldexp(m.tensor([3, 4])))
    _same_grads(torch, lambda m, a, b: m.ldexp(a, b), 2)
    _gradcheck(lambda a, b: G.ldexp(a, b), (3, 4), (4,))
    check_error(lambda m: m.ldexp(m.tensor([1.0]), 2))
    check_error(lambda m: m.ones(2, dtype=m.int64).ldexp_(m.tensor([1, 2])))


def _in_place_case(m, call):
    x = m.tensor([[1.0, 2.0, 3.0], [0.5, -1.0, 2.0], [3.0, 1.0, -2.0]], dtype=m.float64,
                 requires_grad=True)
    y = x * 1
    r = call(m, x, y)
    g1, = m.autograd.grad((y * y).sum(), x, create_graph=True)
    g2, = m.autograd.grad(g1.sum(), x)
    return y, node_name(r.grad_fn), node_name(y.grad_fn), y._version, g1.detach(), g2


@pytest.mark.parametrize("call", [
    lambda m, x, y: y.addmm_(x, x, beta=2),
    lambda m, x, y: y.addmm_(x.t(), x, alpha=0.5),
    lambda m, x, y: y[1:].addmm_(x[1:], x),
    lambda m, x, y: y[0].addmv_(x, x[1], alpha=3),
    lambda m, x, y: m.addmv_(y[0], x, x[1]),
    lambda m, x, y: y.addr_(x[0], x[1]),
    lambda m, x, y: y[None].baddbmm_(x[None], x[None]),
    lambda m, x, y: y.addbmm_(x[None].expand(2, 3, 3), x[None].expand(2, 3, 3)),
    lambda m, x, y: y.cumsum_(0),
    lambda m, x, y: y.cumprod_(1),
    lambda m, x, y: y.ldexp_(m.tensor([1, 2, 3])),
    lambda m, x, y: m.ldexp_(y, m.tensor([1, 2, 3])),
    lambda m, x, y: y.put_(m.tensor([1, 5]), x[0, :2]),
    lambda m, x, y: y.put_(m.tensor([1, 1]), x[0, :2], accumulate=True),
])
def test_in_place_grads(torch, call):
    check(lambda m: _in_place_case(m, call))


def test_in_place_misc(torch):
    check(lambda m: m.tensor([[1.0, -2.0], [0.0, 3.0]]).sgn_())
    check(lambda m: m.tensor([1, 2, 3]).cumsum_(0))
    check(lambda m: m.tensor([1.0, 0.0, 2.0]).logical_and_(m.tensor([1.0, 1.0, 0.0])))
    check(lambda m: m.tensor([1, 0, 2]).logical_or_(m.tensor([0, 0, 0])))
    check(lambda m: m.tensor([True, False]).logical_xor_(m.tensor([True, True])))
    check(lambda m: m.tensor([1.5, 0.0]).logical_not_())
    check(lambda m: m.round_(m.tensor([1.26, -2.5]), decimals=1))
    check(lambda m: m.nan_to_num_(m.tensor([float("nan"), float("inf"), 1.0]), 2.0))
    check(lambda m: m.gcd_(m.tensor([12, 18]), m.tensor([8, 12])))
    check(lambda m: m.lcm_(m.tensor([4, 6]), m.tensor([6, 4])))

    def keeps_history(m):
        x = m.ones(2, requires_grad=True)
        y = x * 2
        y.logical_not_()
        return y, node_name(y.grad_fn), y._version

    check(keeps_history)


@pytest.mark.parametrize("call", [
    lambda m: m.ones(2, requires_grad=True).cumsum_(0),
    lambda m: m.ones(2, 2).addmm_(m.ones(2, 3), m.ones(2, 2)),
    lambda m: m.ones(2, 2, dtype=m.int64).addmm_(m.ones(2, 2, dtype=m.int64), m.ones(2, 3,
                                                                       dtype=m.int64)),
    lambda m: m.ones(2).logical_and_(m.ones(3, 2)),
    lambda m: m.ones(1, 2).cumsum_(0, dtype=m.int64),
])
def test_in_place_errors(torch, call):
    check_error(call)


# ---- unravel_index, vander, angle, *_scatter, scalar_tensor, typename, windows ----------------

def test_unravel_index(torch):
    check(lambda m: m.unravel_index(m.tensor([4, 7, 11]), (3, 4)))
    check(lambda m: m.unravel_index(m.tensor([[1], [5]]), (2, 3, 4)))
    check(lambda m: m.unravel_index(m.tensor(5), 6))
    check(lambda m: m.unravel_index(m.tensor([5], dtype=m.int32), m.Size([2, 3])))
    for call in (lambda m: m.unravel_index(m.tensor([1.0]), (2,)),
                 lambda m: m.unravel_index(m.tensor([1]), (2, -1)),
                 lambda m: m.unravel_index(m.tensor([1]), (2, 1.5)),
                 lambda m: m.unravel_index(m.tensor([1]), "a")):
        check_error(call)


def test_vander(torch):
    check(lambda m: m.vander(m.tensor([1, 2, 3])))
    check(lambda m: m.vander(m.tensor([1, 2, 3], dtype=m.int32), 4))
    check(lambda m: m.vander(m.tensor([1.5, -2.0]), 3, increasing=True))
    check(lambda m: m.vander(m.tensor([1.5, -2.0]), 0))
    check(lambda m: m.vander(m.tensor([True, False]), 2))
    # (PyTorch's own backward of vander fails: its in-place copies into slices)
    _gradcheck(lambda x: G.vander(x, 4), (3,))
    check_error(lambda m: m.vander(m.ones(2, 2)))
    check_error(lambda m: m.vander(m.ones(2), -1))


def test_angle(torch):
    check(lambda m: m.angle(m.tensor([-1.0, 0.0, -0.0, 2.0, float("nan"), -float("inf")])))
    check(lambda m: m.tensor([-1, 2, 0]).angle())
    _same_grads(torch, lambda m, x: m.angle(x), 1)


@pytest.mark.parametrize("call", [
    lambda m, x, s: m.diagonal_scatter(x, s[0]),
    lambda m, x, s: m.diagonal_scatter(x, s[0, :2], 1),
    lambda m, x, s: x.diagonal_scatter(s[0, :2], -1, 1, 0),
    lambda m, x, s: m.select_scatter(x, s[1], 0, 2),
    lambda m, x, s: x.select_scatter(s[:, 0], 1, -1),
    lambda m, x, s: m.slice_scatter(x, s[:1], 0, 1, 2),
    lambda m, x, s: x.slice_scatter(s[:, :2], 1, step=2),
    lambda m, x, s: m.slice_scatter(x, s),
])
def test_view_scatters(torch, call):
    def run(m):
        x = m.tensor([[1.0, 2, 3], [4, 5, 6], [7, 8, 9]], dtype=m.float64, requires_grad=True)
        s = m.tensor([[0.5, -1, 2], [3, 1, -2], [1, 1, 1]], dtype=m.float64,
                     requires_grad=True)
        r = call(m, x * 1, s * 1)
        g1 = m.autograd.grad((r * r).sum(), [x, s], create_graph=True)
        g2 = m.autograd.grad((g1[0] * g1[0]).sum() + g1[1].sum(), [x, s])
        return r, [g.detach() for g in g1], g2

    check(run)


def test_view_scatter_errors(torch):
    check_error(lambda m: m.diagonal_scatter(m.zeros(3, 3), m.ones(2)))
    check_error(lambda m: m.select_scatter(m.zeros(3, 3), m.ones(2), 0, 1))
    check_error(lambda m: m.slice_scatter(m.zeros(3, 3), m.ones(2, 3), 0, 1, 2))


def test_scalar_tensor_typename(torch):
    check(lambda m: m.scalar_tensor(3))
    check(lambda m: m.scalar_tensor(2.5, dtype=m.float64))
    check(lambda m: m.scalar_tensor(True, dtype=m.int64))
    check_error(lambda m: m.scalar_tensor("a"))
    for obj in (3, "s", [1], None, np.float32(1)):
        assert G.typename(obj) == torch.typename(obj)
    assert G.typename(G.ones(2, dtype=G.float64)) == "gradrs.DoubleTensor"


@pytest.mark.parametrize("name", ["hann_window", "hamming_window", "bartlett_window",
                                  "blackman_window", "kaiser_window"])
def test_windows(torch, name):
    for n in (0, 1, 2, 5, 8, 33):
        for periodic in (True, False):
            for dtype in ("float32", "float64"):
                check(lambda m, n=n, p=periodic, d=dtype: getattr(m, name)(
                    n, p, dtype=getattr(m, d)))
    check(lambda m: getattr(m, name)(6, requires_grad=True))
    check_error(lambda m: getattr(m, name)(-1))
    check_error(lambda m: getattr(m, name)(3, dtype=m.int64))


def test_window_parameters(torch):
    check(lambda m: m.hamming_window(7, False, 0.5, 0.4))
    check(lambda m: m.kaiser_window(9, True, 5.0, dtype=m.float64))


# ---- *_copy forms and the unsafe splits -------------------------------------------------------

@pytest.mark.parametrize("call", [
    lambda m, x: m.permute_copy(x, (1, 0)),
    lambda m, x: m.t_copy(x),
    lambda m, x: m.expand_copy(x[:1], (2, 3)),
    lambda m, x: m.view_copy(x, (3, 2)),
    lambda m, x: m.diagonal_copy(x, 1),
    lambda m, x: m.select_copy(x, 0, 1),
    lambda m, x: m.slice_copy(x, 1, 0, 3, 2),
    lambda m, x: m.squeeze_copy(x[None]),
    lambda m, x: m.unsqueeze_copy(x, 0),
    lambda m, x: m.transpose_copy(x, 0, 1),
    lambda m, x: m.alias_copy(x),
    lambda m, x: m.narrow_copy(x, 1, 0, 2),
    lambda m, x: x.narrow_copy(1, 1, 2),
    lambda m, x: m.unbind_copy(x, 1),
    lambda m, x: m.split_copy(x, 2, 1),
    lambda m, x: m.split_with_sizes_copy(x, [1, 2], 1),
    lambda m, x: x.unsafe_split(2, 1),
    lambda m, x: m.unsafe_chunk(x, 2, 1),
    lambda m, x: x.unsafe_split_with_sizes([1, 2], 1),
])
def test_copies(torch, call):
    def run(m):
        x = m.tensor([[1.0, 2, 3], [4, 5, 6]], dtype=m.float64, requires_grad=True)
        r = call(m, x * 1)
        rs = r if isinstance(r, tuple) else (r,)
        loss = sum(((t * t) * (i + 1)).sum() for i, t in enumerate(rs))
        g1, = m.autograd.grad(loss, x, create_graph=True)
        g2, = m.autograd.grad((g1 * g1).sum(), x)
        return (tuple(t.detach() for t in rs), [node_name(t.grad_fn) for t in rs],
                [t.is_contiguous() for t in rs], g1.detach(), g2)

    check(run)
    check(lambda m: call(m, m.tensor([[1, 2, 3], [4, 5, 6]])))


def test_unsafe_split_shares_memory(torch):
    def run(m):
        x = m.zeros(2, 4)
        a, b = m.unsafe_chunk(x, 2, 1)
        a.fill_(1)
        return x

    check(run)


# ---- apply_ / map_ / map2_, nonzero_static, prelu, removed methods ----------------------------

def test_elementwise_callables(torch):
    check(lambda m: m.tensor([1.0, -2.0, 3.0]).apply_(lambda v: v * 2))
    check(lambda m: m.tensor([1, 2, 3]).apply_(lambda v: v / 2))
    check(lambda m: m.tensor([[1.0, -2.0], [3.0, 4.0]]).map_(m.tensor([1.0, 2.0]),
                                                           lambda a, b: a * b))
    check(lambda m: m.tensor([1.0, -2.0]).map2_(m.tensor([1.0, 1.0]), m.tensor([2.0]),
                                                lambda a, b, c: a + b * c))
    seen = {}
    for m in (G, torch):
        order = []
        m.arange(6.0).reshape(2, 3).t().apply_(lambda v, order=order: order.append(v) or v)
        seen[m] = order
    assert seen[G] == seen[torch]
    for call in (lambda m: m.ones(2, requires_grad=True).apply_(abs),
                 lambda m: (m.ones(2, requires_grad=True) * 1).apply_(abs),
                 lambda m: m.ones(3).map_(m.ones(2), lambda a, b: a),
                 lambda m: m.ones(3).map_(m.ones(3, dtype=m.int64), lambda a, b: a),
                 lambda m: m.ones(3).apply_(lambda v: "a"),
                 lambda m: m.ones(3).apply_(3)):
        check_error(call)


def test_nonzero_static(torch):
    check(lambda m: m.nonzero_static(m.tensor([0, 1, 0, 2]), size=3))
    check(lambda m: m.nonzero_static(m.tensor([[0, 1], [1, 1]]), size=2, fill_value=-5))
    check(lambda m: m.tensor([1.0, 1.0]).nonzero_static(size=4))
    check(lambda m: m.nonzero_static(m.tensor([1, 1]), size=0))
    check_error(lambda m: m.nonzero_static(m.tensor([1, 1]), size=-1))
    assert G.is_distributed(G.ones(2)) is False and G.ones(2).is_distributed() is False


def test_prelu_method(torch):
    check(lambda m: m.tensor([[1.0, -2.0], [-3.0, 4.0]]).prelu(m.tensor([0.25, 0.5])))


@pytest.mark.parametrize("call", [
    lambda m: m.ones(2, 2).solve(m.ones(2, 2)),
    lambda m: m.ones(2, 2).lstsq(m.ones(2, 2)),
    lambda m: m.ones(2, 2).eig(),
    lambda m: m.ones(2, 2).symeig(True),
    lambda m: m.ones(2, 2).reinforce(1.0),
])
def test_removed_methods(torch, call):
    check_error(call)


# ---- frobenius_norm / nuclear_norm / norm_except_dim, unfold_copy, sym_* ----------------------

def test_legacy_norms(torch):
    import warnings

    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        check(lambda m: m.frobenius_norm(_x(m), (0, 1)))
        check(lambda m: m.frobenius_norm(_x(m), [1], True))
        check(lambda m: m.nuclear_norm(_x(m)))
        check(lambda m: m.nuclear_norm(_x(m)[None], (1, 2), True))
        check_error(lambda m: m.frobenius_norm(_x(m), (0, 1, 1)))
        check_error(lambda m: m.nuclear_norm(_x(m), (0,)))
    for dim in (0, 1, -1):
        check(lambda m, dim=dim: m.norm_except_dim(_x(m), 2, dim))
    check(lambda m: m.norm_except_dim(m.ones(2, 3, 4), 3, 1))
    _same_grads(torch, lambda m, x: m.norm_except_dim(x, 2, 1), 1)


def test_unfold_copy(torch):
    check(lambda m: m.unfold_copy(m.arange(8.0).reshape(2, 4), 1, 2, 1))
    _same_grads(torch, lambda m, x: m.unfold_copy(x, 1, 2, 2), 1)


def test_sym_helpers(torch):
    for name, args in (("sym_not", (True,)), ("sym_float", (3,)), ("sym_int", (3.7,)),
                       ("sym_max", (1, 2.0)), ("sym_max", (3, 2)), ("sym_min", (1, 2.5)),
                       ("sym_min", (np.int64(4), 2)), ("sym_sum", ([1, 2, 3],)),
                       ("sym_sum", (1, 2.5)), ("sym_sqrt", (4,)), ("sym_ite", (False, 1, 2))):
        g, t = getattr(G, name)(*args), getattr(torch, name)(*args)
        assert g == t and type(g) is type(t), (name, g, t)
    with pytest.raises(AssertionError):
        G.sym_ite(True, 1, 2.0)
    with pytest.raises(AssertionError):
        G.sym_max("a", 1)


# ---- gradient ---------------------------------------------------------------------------------

@pytest.mark.parametrize("kwargs", [
    {}, {"edge_order": 2}, {"spacing": 2.0}, {"spacing": [2.0, 0.5], "edge_order": 2},
    {"dim": 1}, {"dim": -1, "spacing": 3.0}, {"dim": [1], "spacing": [3.0]},
])
def test_gradient_uniform(torch, kwargs):
    def run(m):
        x = m.tensor([[1.0, 2, 4, 8, 9], [10, 20, 40, 80, 70], [0, 1, 0, 1, 0]],
                     dtype=m.float64, requires_grad=True)
        outs = m.gradient(x * 1, **kwargs)
        loss = sum((o * o).sum() * (i + 1) for i, o in enumerate(outs))
        g, = m.autograd.grad(loss, x)
        return tuple(o.detach() for o in outs), [node_name(o.grad_fn) for o in outs], g

    check(run)


@pytest.mark.parametrize("edge_order", [1, 2])
def test_gradient_coordinates(torch, edge_order):
    check(lambda m: m.gradient(m.tensor([1.0, 2, 4, 8, 3]),
                               spacing=(m.tensor([0.0, 1, 1.5, 3.5, 4.0]),),
                               edge_order=edge_order))
    check(lambda m: m.gradient(m.arange(12.0).reshape(3, 4) ** 2,
                               spacing=(m.tensor([0.0, 1, 3]), m.tensor([0.0, 0.5, 1.5, 2.0])),
                               edge_order=edge_order))
    check(lambda m: m.gradient(m.tensor([1, 2, 4, 8])))


@pytest.mark.parametrize("call", [
    lambda m: m.gradient(m.ones(3, 3), edge_order=3),
    lambda m: m.gradient(m.ones(2), edge_order=2),
    lambda m: m.gradient(m.ones(3, 3), spacing=[1.0, 2.0, 3.0]),
    lambda m: m.gradient(m.ones(3, 3), dim=2),
])
def test_gradient_errors(torch, call):
    check_error(call)
