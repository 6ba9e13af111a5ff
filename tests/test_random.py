"""Random numbers: PyTorch's CPU streams number for number (same seed, dtype and shape),
generators, RNG state, in-place fills and their errors, compared with PyTorch."""

# The lambdas below are called at once by `_both`, inside the loop that defines them.
# ruff: noqa: B023

import math

import numpy as np
import pytest
from conftest import G

SEEDS = [0, 1, 7, 12345, 2**40 + 3]
SIZES = [1, 3, 15, 16, 17, 100, 1000]


def _same(a, b):
    """Bit-for-bit equality of a gradrs and a torch tensor (NaN-free streams)."""
    assert a.shape == tuple(b.shape)
    assert str(a.dtype).split(".")[-1] == str(b.dtype).split(".")[-1]
    assert a.tolist() == b.tolist()


def _both(torch, seed, f):
    """`f(module)` after seeding each library's default generator with `seed`."""
    G.manual_seed(seed)
    torch.manual_seed(seed)
    return f(G), f(torch)


def _dt(m, name):
    return getattr(m, name)


# ---- exact streams --------------------------------------------------------------------------


@pytest.mark.parametrize("dtype", ["float32", "float64", "float16"])
def test_rand_exact(torch, dtype):
    for seed in SEEDS:
        for n in SIZES:
            a, b = _both(torch, seed, lambda m: m.rand(n, dtype=_dt(m, dtype)))
            _same(a, b)


def test_randn_float64_exact(torch):
    for seed in SEEDS:
        for n in SIZES:
            a, b = _both(torch, seed, lambda m: m.randn(n, dtype=m.float64))
            _same(a, b)


@pytest.mark.parametrize("dtype", ["float32", "float16"])
def test_randn_scalar_path_exact(torch, dtype):
    # Below 16 elements (or non-contiguous) PyTorch draws Box–Muller in double one by one.
    for seed in SEEDS:
        for n in [1, 2, 3, 15]:
            a, b = _both(torch, seed, lambda m: m.randn(n, dtype=_dt(m, dtype)))
            _same(a, b)
        a, b = _both(torch, seed, lambda m: m.empty(5, 7, dtype=_dt(m, dtype)).t().normal_(2, 3))
        _same(a, b)


def test_randn_float32_vectorized_path_exact(torch):
    # PyTorch's x86 wheel fills contiguous float32 tensors of 16+ elements with
    # normal_fill_16_AVX2 (avx_mathfun's polynomial log / sincos, fused multiply-adds):
    # gradrs computes the same arithmetic (Note [AVX2 normal_fill]), so the draws are equal.
    for seed in SEEDS:
        for n in [16, 17, 31, 32, 100, 1000, 4099]:
            a, b = _both(torch, seed, lambda m: m.randn(n))
            _same(a, b)
        a, b = _both(torch, seed, lambda m: m.empty(4, 40).normal_(-1.5, 0.3))
        _same(a, b)
        a, b = _both(torch, seed, lambda m: m.normal(2.0, 0.5, size=(3, 33)))
        _same(a, b)
        _same(G.rand(3), torch.rand(3))


@pytest.mark.parametrize("dtype", ["float16"])
def test_randn_vectorized_path_close(torch, dtype):
    # Half tensors of 16+ elements take ATen's generic normal_fill (libm in float): gradrs
    # stays within a few ulp and consumes the same stream.
    for seed in SEEDS[:3]:
        for n in [16, 17, 100, 1000]:
            a, b = _both(torch, seed, lambda m: m.randn(n, dtype=_dt(m, dtype)))
            if dtype == "float16" and n % 16:
                # PyTorch's half kernel places its ragged tail block differently (not
                # reproduced yet); the stream stays in step.
                _same(G.rand(3), torch.rand(3))
                continue
            np.testing.assert_allclose(
                a.float().numpy(),
                b.float().numpy(),
                rtol=2e-3 if dtype == "float16" else 2e-6,
                atol=1e-6,
            )
            a, b = G.rand(3), torch.rand(3)
            _same(a, b)


def test_normal_inplace_mean_std(torch):
    for seed in SEEDS:
        for n in [3, 16, 33, 1000]:
            a, b = _both(torch, seed, lambda m: m.empty(n, dtype=m.float64).normal_(1.5, 0.25))
            _same(a, b)


def test_uniform_inplace(torch):
    for seed in SEEDS:
        for n in SIZES:
            for dt in ["float32", "float64"]:
                a, b = _both(
                    torch, seed, lambda m: m.empty(n, dtype=_dt(m, dt)).uniform_(-2.5, 3.25)
                )
                _same(a, b)


@pytest.mark.parametrize("dtype", ["int64", "int32", "float32", "float64"])
def test_randint_exact(torch, dtype):
    for seed in SEEDS:
        for n in SIZES:
            for lo, hi in [(0, 10), (-5, 3), (0, 2**33), (-(2**40), 2**40)]:
                if dtype in ("int32",) and hi > 2**31:
                    continue
                a, b = _both(torch, seed, lambda m: m.randint(lo, hi, (n,), dtype=_dt(m, dtype)))
                _same(a, b)


def test_random_inplace_forms(torch):
    cases = [
        ("int64", ()),
        ("int32", ()),
        ("bool", ()),
        ("float32", ()),
        ("float64", ()),
        ("float16", ()),
        ("int64", (7,)),
        ("int32", (-3, 9)),
        ("float32", (2, 100)),
        ("float16", (0, 70000 - 6000)),
        ("int64", (5, None)),
        ("int32", (5, None)),
        ("float64", (5, None)),
        ("int64", (-(2**63), None)),
    ]
    for seed in SEEDS[:3]:
        for dt, args in cases:
            a, b = _both(torch, seed, lambda m: m.empty(50, dtype=_dt(m, dt)).random_(*args))
            _same(a, b)


def test_randperm_exact(torch):
    for seed in SEEDS:
        for n in [0, 1, 2, 3, 15, 16, 17, 100, 1000]:
            a, b = _both(torch, seed, lambda m: m.randperm(n))
            _same(a, b)
    a, b = _both(torch, 3, lambda m: m.randperm(20, dtype=m.float32))
    _same(a, b)


def test_bernoulli_exact(torch):
    for seed in SEEDS:
        for n in SIZES:
            a, b = _both(torch, seed, lambda m: m.empty(n).bernoulli_(0.3))
            _same(a, b)
            a, b = _both(torch, seed, lambda m: m.empty(n, dtype=m.int64).bernoulli_())
            _same(a, b)
            p = np.linspace(0, 1, n)
            a, b = _both(torch, seed, lambda m: m.bernoulli(m.tensor(p, dtype=m.float32)))
            _same(a, b)
            a, b = _both(torch, seed, lambda m: m.bernoulli(m.tensor(p)))
            _same(a, b)
            a, b = _both(torch, seed, lambda m: m.zeros(n).bernoulli_(m.tensor(p)))
            _same(a, b)
    # broadcast probabilities and the functional float-p form
    a, b = _both(torch, 5, lambda m: m.empty(4, 3).bernoulli_(m.tensor([0.1, 0.5, 0.9])))
    _same(a, b)
    a, b = _both(torch, 5, lambda m: m.bernoulli(m.ones(6, 2), 0.25))
    _same(a, b)


@pytest.mark.parametrize("dtype", ["float32", "float64", "float16", "int64", "uint8", "bool"])
def test_bernoulli_scalar_bulk_draws_exact(torch, dtype):
    """bernoulli_(p) draws its words in blocks of 1024 elements and compares them as integers:
    sizes around the block and the generator's 624-word state, p at the edges and exactly at a
    drawn uniform (u < p is strict), and the stream that follows all match PyTorch."""
    G.manual_seed(11)
    u = G.rand(3, dtype=G.float64).tolist()
    probs = [0.0, 1.0, 0.5, 0.9, 0.1, 2.0**-53, 1 - 2.0**-53, 5e-324, u[0], math.nextafter(u[0], 1)]
    for n in [1, 311, 312, 313, 623, 1023, 1024, 1025, 2049, 5000]:
        for p in probs:
            def f(m):
                x = m.empty(n, dtype=_dt(m, dtype)).bernoulli_(p)
                return x, m.rand(3)

            (a, ar), (b, br) = _both(torch, 11, f)
            _same(a, b)
            _same(ar, br)
    # a strided destination is filled in its memory order, as PyTorch's kernel walks it
    a, b = _both(torch, 3, lambda m: m.zeros(40, 70).t().bernoulli_(0.35))
    _same(a, b)


def test_multinomial_exact(torch):
    w = np.random.default_rng(0).random((4, 9)).astype(np.float32)
    for seed in SEEDS:
        for dt in ["float32", "float64"]:
            a, b = _both(torch, seed, lambda m: m.multinomial(m.tensor(w, dtype=_dt(m, dt)), 5))
            _same(a, b)
            a, b = _both(torch, seed, lambda m: m.multinomial(m.tensor(w[0], dtype=_dt(m, dt)), 1))
            _same(a, b)
            a, b = _both(
                torch, seed, lambda m: m.multinomial(m.tensor(w, dtype=_dt(m, dt)), 40, True)
            )
            _same(a, b)


def test_other_distributions_exact(torch):
    for seed in SEEDS[:3]:
        for dt in ["float32", "float64"]:
            for name, args in [
                ("exponential_", (2.5,)),
                ("geometric_", (0.2,)),
                ("log_normal_", ()),
                ("cauchy_", (1.0, 2.0)),
            ]:
                a, b = _both(
                    torch, seed, lambda m: getattr(m.empty(40, dtype=_dt(m, dt)), name)(*args)
                )
                _same(a, b)


def test_poisson_exact(torch):
    rates = np.array([0.0, 0.5, 3.0, 9.9, 10.0, 25.0, 300.0] * 5)
    for seed in SEEDS[:3]:
        a, b = _both(torch, seed, lambda m: m.poisson(m.tensor(rates)))
        _same(a, b)


def test_normal_overloads(torch):
    mean = np.arange(6.0).reshape(2, 3)
    std = np.full((2, 3), 0.5)
    forms = [
        lambda m: m.normal(m.tensor(mean), m.tensor(std)),
        lambda m: m.normal(m.tensor(mean), 2.0),
        lambda m: m.normal(m.tensor(mean)),
        lambda m: m.normal(1.0, m.tensor(std)),
        lambda m: m.normal(0.5, 2.0, (20,)),
        lambda m: m.normal(0.5, 2.0, size=(3,), dtype=m.float64),
    ]
    for seed in SEEDS[:3]:
        for f in forms:
            a, b = _both(torch, seed, f)
            if a.numel() >= 16 and a.dtype == G.float32:
                np.testing.assert_allclose(a.numpy(), b.numpy(), rtol=1e-5)
            else:
                _same(a, b)


def test_like_forms(torch):
    for seed in SEEDS[:3]:
        a, b = _both(torch, seed, lambda m: m.rand_like(m.zeros(4, 5, dtype=m.float64)))
        _same(a, b)
        a, b = _both(torch, seed, lambda m: m.randn_like(m.zeros(2, 3)))
        _same(a, b)
        a, b = _both(torch, seed, lambda m: m.randint_like(m.zeros(2, 3), 10))
        _same(a, b)
        a, b = _both(torch, seed, lambda m: m.randint_like(m.zeros(2, 3), -4, 4))
        _same(a, b)


def test_interleaved_calls_stay_in_step(torch):
    def program(m):
        out = [m.rand(3), m.randn(5, dtype=m.float64), m.randint(0, 100, (7,)), m.randperm(9)]
        out.append(m.empty(4, 4).uniform_(-1, 1))
        out.append(m.empty(20).bernoulli_(0.7))
        out.append(m.randn(3))  # scalar path: leaves a cached double normal
        out.append(m.randn(3, dtype=m.float64))  # ... which the next draw uses
        out.append(m.multinomial(m.tensor([0.2, 0.3, 0.5]), 2))
        out.append(m.empty(10, dtype=m.int64).random_(3, 50))
        out.append(m.rand(2, 3, dtype=m.float64))
        return out

    for seed in SEEDS:
        xs, ys = _both(torch, seed, program)
        for a, b in zip(xs, ys):
            _same(a, b)


def test_generators_are_independent(torch):
    def program(m):
        m.manual_seed(11)
        g = m.Generator().manual_seed(3)
        a = m.rand(4, generator=g)
        b = m.rand(4)
        c = m.randn(5, generator=g, dtype=m.float64)
        d = m.randperm(6, generator=g)
        e = m.empty(5).normal_(generator=g)
        f = m.rand(4)
        return [a, b, c, d, e, f]

    for a, b in zip(program(G), program(torch)):
        _same(a, b)
    g = G.Generator()
    assert g.initial_seed() == 67280421310721
    assert g.manual_seed(5) is g
    assert g.initial_seed() == 5
    assert str(g.device) == "cpu"
    assert G.manual_seed(4) is G.default_generator
    assert G.initial_seed() == 4 == G.default_generator.initial_seed()
    assert G.Generator().manual_seed(-1).initial_seed() == 2**64 - 1


def test_state_round_trip(torch):
    G.manual_seed(9)
    torch.manual_seed(9)
    G.randn(3)  # leaves a cached double normal in the state
    torch.randn(3)
    st, tst = G.get_rng_state(), torch.get_rng_state()
    assert st.shape == (5056,)
    assert st.tolist() == tst.tolist()  # PyTorch's byte layout
    x = G.randn(5)
    G.set_rng_state(st)
    assert G.randn(5).tolist() == x.tolist()
    # a state saved by PyTorch continues PyTorch's stream in gradrs
    G.set_rng_state(G.tensor(tst.tolist(), dtype=G.uint8))
    _same(G.rand(7), torch.rand(7))
    g = G.Generator().manual_seed(2)
    s = g.get_state()
    y = G.rand(3, generator=g)
    assert G.rand(3, generator=g.set_state(s)).tolist() == y.tolist()


def test_seed_is_fresh():
    s1 = G.seed()
    assert G.initial_seed() == s1
    assert G.seed() != s1


# ---- in-place semantics -----------------------------------------------------------------------


def test_inplace_version_and_identity():
    x = G.zeros(5)
    v = x._version
    assert x.uniform_() is x
    assert x._version > v
    for f in [
        lambda t: t.normal_(),
        lambda t: t.bernoulli_(0.5),
        lambda t: t.random_(0, 3),
        lambda t: t.exponential_(),
        lambda t: t.cauchy_(),
        lambda t: t.log_normal_(),
        lambda t: t.geometric_(0.5),
    ]:
        v = x._version
        assert f(x) is x
        assert x._version > v


def test_inplace_on_views_and_noncontiguous(torch):
    # filled in memory order, as TensorIterator walks them
    for seed in SEEDS[:3]:
        a, b = _both(torch, seed, lambda m: m.zeros(6, 4).t().uniform_())
        _same(a, b)
        a, b = _both(torch, seed, lambda m: m.zeros(6, 8)[:, ::2].random_(0, 9))
        _same(a, b)
        a, b = _both(torch, seed, lambda m: m.zeros(3, 4, 5).permute(2, 0, 1).bernoulli_(0.4))
        _same(a, b)
    base = G.zeros(4, 4)
    base[1].uniform_(5, 6)
    assert (base[0] == 0).all().item() and (base[1] >= 5).all().item()


def test_leaf_rules(torch):
    w = G.zeros(3, requires_grad=True)
    with pytest.raises(
        RuntimeError,
        match="a leaf Variable that requires grad is being used in an in-place operation.",
    ):
        w.uniform_()
    with G.no_grad():
        w.normal_()
        w.uniform_(-1, 1)
        w.bernoulli_(0.5)
    assert w.grad_fn is None and w.requires_grad and w.is_leaf
    for name, args, node in [
        ("uniform_", (), "UniformBackward0"),
        ("normal_", (), "NormalBackward0"),
        ("bernoulli_", (), "BernoulliBackward2"),
        ("random_", (), "RandomBackward2"),
        ("random_", (5,), "RandomBackward1"),
        ("random_", (0, 5), "RandomBackward0"),
        ("exponential_", (), "ExponentialBackward0"),
        ("geometric_", (0.5,), "GeometricBackward0"),
        ("log_normal_", (), "LogNormalBackward0"),
        ("cauchy_", (), "CauchyBackward0"),
    ]:
        x = G.ones(3, requires_grad=True)
        y = x * 2
        getattr(y, name)(*args)
        assert type(y.grad_fn).__name__ == node
        y.sum().backward()
        assert x.grad.tolist() == [0.0, 0.0, 0.0]
    x = G.ones(3, requires_grad=True)
    y = x * 2
    y.bernoulli_(G.full((3,), 0.5))
    assert type(y.grad_fn).__name__ == "BernoulliBackward1"


def test_normal_grad_fns(torch):
    x = G.zeros(3, requires_grad=True)
    y = G.normal(x, 1.0)
    assert type(y.grad_fn).__name__ == "NormalBackward1"
    y.sum().backward()
    assert x.grad.tolist() == [0.0, 0.0, 0.0]
    assert type(G.normal(1.0, x.abs() + 1).grad_fn).__name__ == "NormalBackward2"
    assert type(G.normal(x, x.abs() + 1).grad_fn).__name__ == "NormalBackward3"
    assert type(G.poisson(x.abs()).grad_fn).__name__ == "PoissonBackward0"


# ---- errors, as PyTorch raises them -------------------------------------------------------------

ERRORS = [
    lambda m: m.empty(3).uniform_(2, 1),
    lambda m: m.empty(3).uniform_(-3e38, 3e38),
    lambda m: m.empty(3).uniform_(0, float("inf")),
    lambda m: m.empty(3, dtype=m.int32).uniform_(),
    lambda m: m.empty(3).normal_(0, -1),
    lambda m: m.empty(3, dtype=m.int64).normal_(),
    lambda m: m.empty(3).bernoulli_(1.5),
    lambda m: m.empty(3).bernoulli_(-0.5),
    lambda m: m.empty(3).random_(5, 2),
    lambda m: m.empty(3).random_(-1),
    lambda m: m.empty(3, dtype=m.float16).random_(0, 70000),
    lambda m: m.empty(3, dtype=m.int32).random_(0, 2**40),
    lambda m: m.empty(3, dtype=m.bool).random_(0, 3),
    lambda m: m.empty(3, dtype=m.int64).exponential_(),
    lambda m: m.empty(3).exponential_(-1),
    lambda m: m.empty(3).exponential_(0),
    lambda m: m.empty(3).geometric_(0),
    lambda m: m.empty(3).geometric_(1),
    lambda m: m.empty(3).log_normal_(0, 0),
    lambda m: m.empty(3).cauchy_(0, -1),
    lambda m: m.randperm(-1),
    lambda m: m.randperm(5000, dtype=m.float16),
    lambda m: m.randperm(5, dtype=m.bool),
    lambda m: m.multinomial(m.tensor([0.0, 0.0]), 1),
    lambda m: m.multinomial(m.tensor([1.0, -1.0]), 1),
    lambda m: m.multinomial(m.tensor([1.0, 1.0]), 3),
    lambda m: m.multinomial(m.tensor([1.0, 1.0]), 0),
    lambda m: m.multinomial(m.tensor([1, 1]), 1),
    lambda m: m.multinomial(m.ones(2, 2, 2), 1),
    lambda m: m.multinomial(m.tensor([1.0, float("inf")]), 1),
    lambda m: m.multinomial(m.tensor([1.0, float("nan")]), 1),
    lambda m: m.multinomial(m.tensor([[1.0, 1.0], [0.0, 0.0]]), 1, True),
    lambda m: m.bernoulli(m.tensor([1])),
    lambda m: m.normal(0.0, -1.0, (3,)),
    lambda m: m.normal(m.zeros(3), -1.0),
    lambda m: m.normal(m.zeros(3), m.tensor([-1.0, 1.0, 1.0])),
    lambda m: m.poisson(m.tensor([-1.0])),
    lambda m: m.Generator().manual_seed(2**64),
    lambda m: m.Generator().manual_seed(-(2**63) - 1),
    lambda m: m.Generator().manual_seed(1.5),
    lambda m: m.Generator().manual_seed("a"),
    lambda m: m.set_rng_state(m.zeros(5056)),
    lambda m: m.set_rng_state(m.zeros(5056, dtype=m.int64)),
    lambda m: m.set_rng_state(m.zeros(10, dtype=m.uint8)),
    lambda m: m.rand(3, generator=5),
]


@pytest.mark.parametrize("k", range(len(ERRORS)))
def test_errors_match_torch(torch, k):
    f = ERRORS[k]
    with pytest.raises(Exception) as te:
        f(torch)
    with pytest.raises(Exception) as ge:
        f(G)
    assert type(ge.value) is type(te.value)
    tmsg, gmsg = str(te.value).split("\n")[0], str(ge.value).split("\n")[0]
    if "invalid combination" in tmsg:
        assert gmsg.startswith(tmsg.split(" - ")[0]) or "must be gradrs.Generator" in gmsg
    else:
        assert gmsg == tmsg.replace("torch.", "gradrs.")


# ---- statistics where exactness is not the point ------------------------------------------------


def test_statistics():
    G.manual_seed(0)
    x = G.randn(200_000)
    assert abs(x.mean().item()) < 0.01 and abs(x.std().item() - 1) < 0.01
    u = G.rand(200_000)
    assert abs(u.mean().item() - 0.5) < 0.005 and u.min().item() >= 0 and u.max().item() < 1
    b = G.empty(100_000).bernoulli_(0.3)
    assert abs(b.mean().item() - 0.3) < 0.01
    p = G.poisson(G.full((50_000,), 4.0))
    assert abs(p.mean().item() - 4.0) < 0.05
    e = G.empty(100_000, dtype=G.float64).exponential_(2.0)
    assert abs(e.mean().item() - 0.5) < 0.01
    counts = np.bincount(
        G.multinomial(G.tensor([1.0, 2.0, 7.0]), 30_000, True).numpy(), minlength=3
    )
    assert np.allclose(counts / 30_000, [0.1, 0.2, 0.7], atol=0.01)
    perm = G.randperm(1000).tolist()
    assert sorted(perm) == list(range(1000))
    assert math.isfinite(G.empty(10).cauchy_().sum().item())


def test_gpu_fill_draws_the_cpu_stream():
    if not G.gpu.is_available():
        pytest.skip("no GPU adapter")
    G.manual_seed(0)
    x = G.zeros(1000, device="gpu").uniform_()
    assert x.device.type == "gpu"
    G.manual_seed(0)
    assert x.cpu().tolist() == G.rand(1000).tolist()
    with pytest.raises(RuntimeError, match="device type for generator"):
        G.zeros(3, device="gpu").normal_(generator=G.Generator())


FACTORIES = {
    "rand": lambda m: m.rand(2, 3), "randn": lambda m: m.randn(2, 3),
    "randn_scalar": lambda m: m.randn(3), "randn_large": lambda m: m.randn(4, 8),
    "rand_like": lambda m: m.rand_like(m.zeros(2, 3)),
    "randn_like": lambda m: m.randn_like(m.zeros(2, 3)),
    "randint": lambda m: m.randint(0, 5, (2, 3)), "randperm": lambda m: m.randperm(4),
    "normal": lambda m: m.normal(0.0, 1.0, (2, 3)),
    "bernoulli": lambda m: m.bernoulli(m.full((2, 3), 0.5)),
    "empty": lambda m: m.empty(2, 3), "zeros": lambda m: m.zeros(2, 3),
    "arange": lambda m: m.arange(6), "linspace": lambda m: m.linspace(0, 1, 5),
    "eye": lambda m: m.eye(3),
}


@pytest.mark.parametrize("name", list(FACTORIES))
def test_factories_return_base_tensors(torch, name):
    """A factory's result is no view (rand/randn once were views of their 1-D sample)."""
    a, b = FACTORIES[name](G), FACTORIES[name](torch)
    assert (a._base is None) == (b._base is None) and a._is_view() == b._is_view()
    assert a.is_contiguous() and a.stride() == b.stride()


# Probabilities outside [0, 1] (or NaN) in a tensor p: ATen's CPU bernoulli_distribution refuses
# each one (programs_gaps.md 77); the float p form has its own text.
BAD_P = {
    "bernoulli above one": lambda m: m.bernoulli(m.tensor([0.5, 1.5])),
    "bernoulli negative": lambda m: m.bernoulli(m.tensor([-0.5])),
    "bernoulli nan float64": lambda m: m.bernoulli(m.tensor([float("nan")], dtype=m.float64)),
    "method bernoulli": lambda m: m.tensor([[0.2], [2.0]]).bernoulli(),
    "bernoulli_ tensor p": lambda m: m.zeros(3).bernoulli_(m.tensor([0.1, 0.2, 1.01])),
    "bernoulli_ broadcast p": lambda m: m.zeros(2, 2).bernoulli_(m.tensor([-1e-9, 0.5])),
    "bernoulli_ float p": lambda m: m.zeros(2).bernoulli_(1.5),
}


@pytest.mark.parametrize("name", sorted(BAD_P))
def test_bernoulli_probabilities_out_of_range_refused(name):
    from conftest import check_error

    check_error(BAD_P[name])


def test_bernoulli_edge_probabilities_draw(torch):
    # 0 and 1 themselves are in range: all zeros / all ones, as torch
    for m in (G, torch):
        p = m.tensor([0.0, 1.0, 1.0, 0.0])
        assert m.bernoulli(p).tolist() == [0.0, 1.0, 1.0, 0.0]
