"""`gradrs.autograd.gradcheck` / `gradgradcheck`: they pass on the ops of test_gradcheck's
tables, fail with PyTorch's GradcheckError message on a deliberately wrong custom Function,
and agree with torch's on results, messages and argument errors."""

import numpy as np
import pytest
from conftest import G, check_error, norm, norm_g, run_both
from test_gradcheck import CASES, SECOND


def _inputs(m, arrays):
    return tuple(m.tensor(np.asarray(a, dtype=np.float64).tolist(), dtype=m.float64,
                          requires_grad=True) for a in arrays)


@pytest.mark.parametrize("name", sorted(CASES))
def test_gradcheck_passes_on_ops(name):
    f, arrays = CASES[name]
    assert G.autograd.gradcheck(f, _inputs(G, arrays))


@pytest.mark.parametrize("name", sorted(SECOND))
def test_gradgradcheck_passes_on_ops(name):
    f, arrays = SECOND[name]
    assert G.autograd.gradgradcheck(f, _inputs(G, arrays))


def _wrong(m):
    class WrongSquare(m.autograd.Function):
        @staticmethod
        def forward(ctx, x):
            ctx.save_for_backward(x)
            return x ** 2

        @staticmethod
        def backward(ctx, g):
            (x,) = ctx.saved_tensors
            return g * x  # should be 2 * g * x

    return WrongSquare


def test_wrong_function_fails_with_torch_message():
    def f(m):
        x = m.tensor([1.0, 2.0, -0.5], dtype=m.float64, requires_grad=True)
        m.autograd.gradcheck(_wrong(m).apply, (x,))

    eg, et = check_error(f)
    assert type(eg).__name__ == "GradcheckError"
    assert isinstance(eg, RuntimeError)
    assert str(eg).startswith("Jacobian mismatch for output 0 with respect to input 0,\n")


def test_raise_exception_false_and_tolerances():
    def f(m):
        x = m.tensor([1.0, 2.0], dtype=m.float64, requires_grad=True)
        wrong = _wrong(m).apply
        return [m.autograd.gradcheck(wrong, (x,), raise_exception=False),
                m.autograd.gradcheck(lambda a: a.exp() * a, (x,), eps=1e-4, atol=1e-3,
                                     rtol=1e-2),
                m.autograd.gradgradcheck(lambda a, b: (a * b).sin(), (x, x * 1 + 0.5),
                                         raise_exception=False)]

    g, t = run_both(f)
    assert g == t


def test_gradgradcheck_catches_wrong_double_backward():
    def f(m):
        class OnceWrong(m.autograd.Function):
            @staticmethod
            def forward(ctx, x):
                ctx.save_for_backward(x)
                return x ** 3

            @staticmethod
            def backward(ctx, g):
                (x,) = ctx.saved_tensors
                return g * 3 * x.detach() ** 2  # right value, no second derivative in x

        x = m.tensor([1.0, -2.0], dtype=m.float64, requires_grad=True)
        go = m.tensor([0.5, 1.5], dtype=m.float64, requires_grad=True)
        m.autograd.gradgradcheck(OnceWrong.apply, (x,), (go,))

    eg, et = run_both(lambda m: _raises(lambda: f(m)))
    assert type(eg).__name__ == type(et).__name__ == "GradcheckError"
    assert norm_g(str(eg)) == norm(str(et))


def _raises(fn):
    try:
        fn()
    except Exception as e:  # noqa: BLE001 - the exception is what is compared
        return e
    raise AssertionError("did not raise")


def test_argument_errors_and_warning():
    check_error(lambda m: m.autograd.gradcheck(lambda a: a * 2, (m.ones(2, dtype=m.float64),)))
    check_error(lambda m: m.autograd.gradcheck(
        lambda a: a * 2, (m.ones(2, dtype=m.float64, requires_grad=True),),
        check_backward_ad=False))
    with pytest.warns(UserWarning, match="Input #0 requires gradient and is not a double"):
        G.autograd.gradcheck(lambda a: a * 2, (G.ones(2, requires_grad=True),),
                             atol=1e-2, rtol=1e-2, eps=1e-3)


def test_numerical_gradient_expected_zero():
    def f(m):
        x = m.tensor([1.0, 2.0], dtype=m.float64, requires_grad=True)
        # No differentiable output, but the value depends on x.
        m.autograd.gradcheck(lambda a: (a * 2).detach(), (x,))

    check_error(f)
