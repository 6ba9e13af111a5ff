"""gradcheck / gradgradcheck's ``check_batched_grad=True`` against torch's: vmap of the
vector-Jacobian product over random grad_outputs checked against the products one by one,
with PyTorch's results and GradcheckError messages; `autograd.grad` inside vmap as its
batching rule (no per-call fallback)."""

import numpy as np
import pytest
from conftest import G, check_error, norm, norm_g, run_both

from gradrs import _vmap


@pytest.fixture
def batched_only(monkeypatch):
    """Fail where vmap would take its per-call fallback."""
    def refuse(*a, **k):
        raise AssertionError("vmap fell back to a per-sample loop")
    monkeypatch.setattr(_vmap, "_loop_call", refuse)


def _t(m, a):
    return m.tensor(a, dtype=m.float64, requires_grad=True)


CASES = {
    "two_outputs": (lambda a: (a.sin() * a, a.exp()), [[1.0, 2.0, -0.5]]),
    "matmul": (lambda a, b: a[:2] @ b, [[1.0, 2.0, -0.5], [[0.3, 2.0], [1.0, -1.0]]]),
    "unused_input": (lambda a, b: a * 2, [[1.0, 2.0], [3.0]]),
    "reduction": (lambda a: (a.softmax(-1) * a).sum(0), [[[1.0, 2.0], [0.5, -1.0]]]),
}


@pytest.mark.parametrize("name", sorted(CASES))
@pytest.mark.parametrize("fast", [False, True])
def test_batched_grad_passes_as_torch(name, fast, batched_only):
    f, arrays = CASES[name]
    g, t = run_both(lambda m: m.autograd.gradcheck(
        f, tuple(_t(m, a) for a in arrays), check_batched_grad=True, fast_mode=fast))
    assert g is t is True


def test_batched_gradgrad_passes_as_torch(batched_only):
    def f(m):
        m.manual_seed(0)
        x, y = _t(m, [1.0, 2.0, -0.5]), _t(m, [[0.3, 2.0], [1.0, -1.0]])
        return m.autograd.gradgradcheck(lambda a, b: (a[:2] @ b).tanh(), (x, y),
                                        check_batched_grad=True)
    g, t = run_both(f)
    assert g is t is True


def test_random_backward_fails_with_torch_message():
    def f(m):
        class Noisy(m.autograd.Function):
            @staticmethod
            def forward(ctx, x):
                return x * 2

            @staticmethod
            def backward(ctx, g):
                return g * 2 + 0 * m.rand(g.shape, dtype=g.dtype)

        m.autograd.gradcheck(Noisy.apply, (_t(m, [1.0, 2.0]),), check_batched_grad=True)

    eg, et = check_error(f)
    assert type(eg).__name__ == "GradcheckError"


def _counting(m):
    calls = [0]

    class Counting(m.autograd.Function):
        @staticmethod
        def forward(ctx, x):
            return x * 2

        @staticmethod
        def backward(ctx, g):
            # Right for the Jacobian checks' 4 calls (a 2-element input, computed twice) and
            # the 2 products one by one; wrong for the batched ones after them.
            calls[0] += 1
            return g * (2 if calls[0] <= 6 else 3)

    return Counting


def test_batched_mismatch_message():
    """A backward that changes after the products one by one fails the batched check."""
    msgs = []
    for m in run_both(lambda m: m):
        with pytest.raises(RuntimeError) as info:
            m.autograd.gradcheck(_counting(m).apply, (_t(m, [1.0, 2.0]),),
                                 check_batched_grad=True, check_undefined_grad=False)
        assert type(info.value).__name__ == "GradcheckError"
        msgs.append(str(info.value))
    head = [msg.split("Got:")[0] for msg in msgs]
    assert head[0].startswith("For output 0 and input 0:\n\ngradcheck or gradgradcheck failed")
    assert norm_g(head[0]) == norm(head[1])


def test_wrong_custom_function_batched_and_raise_exception_false():
    class Twice(G.autograd.Function):
        @staticmethod
        def forward(ctx, x):
            return x * 2

        @staticmethod
        def backward(ctx, g):
            return g * 2

    x = _t(G, [1.0, -2.0, 0.5])
    assert G.autograd.gradcheck(Twice.apply, (x,), check_batched_grad=True)
    x = _t(G, [1.0, -2.0])
    assert G.autograd.gradcheck(_counting(G).apply, (x[:2],), check_batched_grad=True,
                                check_undefined_grad=False, raise_exception=False) is False


def test_autograd_grad_inside_vmap_as_torch(torch, batched_only):
    """A batch of vectors for one graph, and a batched graph, both without a per-call run."""
    rng = np.random.default_rng(0)
    xa, va = rng.standard_normal(3), rng.standard_normal((4, 3))
    ba = rng.standard_normal((4, 3))
    def run(m):
        x = m.tensor(xa, requires_grad=True)
        y = (x.sin() * x).sum(0, keepdim=True) * x
        one = m.func.vmap(lambda v: m.autograd.grad(y, x, v, retain_graph=True)[0])(
            m.tensor(va))
        two = m.func.vmap(lambda b: m.func.grad(lambda t: (t.sin() * t).sum())(b))(m.tensor(ba))
        return one.detach().numpy(), two.detach().numpy()

    res = [run(G), run(torch)]
    np.testing.assert_allclose(res[0][0], res[1][0], rtol=1e-12)
    np.testing.assert_allclose(res[0][1], res[1][1], rtol=1e-12)


# ---- check_forward_ad / check_batched_forward_grad ------------------------------------------

FWD_CASES = {
    "elementwise": (lambda a, b: (a.sin() * a, a.exp(), (b * b.cos()).sum(0)),
                    [[1.0, 2.0, -0.5], [[0.3, 2.0], [1.0, -1.0]]]),
    "matmul_tanh": (lambda a, b: (a[:2] @ b).tanh(), [[1.0, 2.0, -0.5], [[0.3, 2.0], [1.0, -1.0]]]),
    "linalg": (lambda a: G_or_T(a).linalg.inv(a) @ a.exp(), [[[2.0, 0.5], [0.25, 1.5]]]),
}


def G_or_T(t):
    import sys
    return G if isinstance(t, G.Tensor) else sys.modules["torch"]


@pytest.mark.parametrize("name", sorted(FWD_CASES))
@pytest.mark.parametrize("fast", [False, True])
def test_forward_ad_check_passes_as_torch(name, fast, batched_only):
    f, arrays = FWD_CASES[name]
    g, t = run_both(lambda m: [
        m.autograd.gradcheck(f, tuple(_t(m, a) for a in arrays), check_forward_ad=True,
                             fast_mode=fast),
        m.autograd.gradcheck(f, tuple(_t(m, a) for a in arrays), check_forward_ad=True,
                             check_backward_ad=False, fast_mode=fast)])
    assert g == t == [True, True]


def test_batched_forward_grad_passes_as_torch(batched_only):
    """torch's legacy vmap refuses most ops under forward AD; elementwise ones it takes."""
    f, arrays = FWD_CASES["elementwise"]
    g, t = run_both(lambda m: m.autograd.gradcheck(
        f, tuple(_t(m, a) for a in arrays), check_forward_ad=True,
        check_batched_forward_grad=True, check_batched_grad=True))
    assert g is t is True
    f, arrays = FWD_CASES["matmul_tanh"]
    assert G.autograd.gradcheck(f, tuple(_t(G, a) for a in arrays), check_forward_ad=True,
                                check_batched_forward_grad=True)


def _wrong_jvp(m):
    class WrongJvp(m.autograd.Function):
        @staticmethod
        def forward(ctx, x):
            ctx.save_for_forward(x)
            return x ** 2

        @staticmethod
        def backward(ctx, g):
            return g

        @staticmethod
        def jvp(ctx, t):
            return t * ctx.saved_tensors[0]  # should be 2 * t * x

    return WrongJvp


@pytest.mark.parametrize("fast", [False, True])
def test_wrong_jvp_fails_with_torch_message(fast):
    def f(m):
        x = _t(m, [1.0, 2.0, -0.5])
        m.autograd.gradcheck(_wrong_jvp(m).apply, (x,), check_forward_ad=True,
                             check_backward_ad=False, fast_mode=fast)

    eg, _ = check_error(f)
    assert type(eg).__name__ == "GradcheckError"
    assert str(eg).startswith("Jacobian computed with forward mode mismatch for output 0 with "
                              "respect to input 0,\n")


def test_fwd_over_rev_gradgradcheck_as_torch():
    def f(m):
        m.manual_seed(0)
        x, y = _t(m, [1.0, 2.0]), _t(m, [[0.3, 2.0], [1.0, -1.0]])
        return m.autograd.gradgradcheck(lambda a, b: (a.sin() * b[0]).sum(), (x, y),
                                        check_fwd_over_rev=True)
    g, t = run_both(f)
    assert g is t is True


def test_random_jvp_in_batched_forward_check_fails_as_torch():
    def f(m):
        class Noisy(m.autograd.Function):
            @staticmethod
            def forward(ctx, x):
                return x * 2

            @staticmethod
            def backward(ctx, g):
                return g * 2

            @staticmethod
            def jvp(ctx, t):
                return t * 2 + 0 * m.rand(t.shape, dtype=t.dtype)

        m.autograd.gradcheck(Noisy.apply, (_t(m, [1.0, 2.0]),), check_forward_ad=True,
                             check_backward_ad=False, check_batched_forward_grad=True)

    eg, _ = check_error(f)
    assert "While computing batched gradients, got: vmap: We do not yet support" in str(eg)
