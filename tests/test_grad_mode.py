"""gradrs.autograd.grad_mode against PyTorch's: decorators on functions and generators,
inference_mode, set_multithreading_enabled, reprs."""

import pytest
from conftest import G, assert_same_warning, check_error, need_torch, norm

pytestmark = pytest.mark.usefixtures("restore_grad_mode")


def generator_trace(M, decorator):
    """The grad mode seen inside a decorated generator and by its caller at every step:
    first send, send(value), throw (caught inside), close (seen by the finally)."""
    trace = []

    @decorator
    def gen():
        try:
            trace.append(("start", M.is_grad_enabled()))
            got = yield 1
            trace.append(("sent", got, M.is_grad_enabled()))
            try:
                yield 2
            except ValueError:
                trace.append(("thrown", M.is_grad_enabled()))
            yield 3
            yield 4
        finally:
            trace.append(("closing", M.is_grad_enabled()))

    for outer in (True, False):
        M.set_grad_enabled(outer)
        g = gen()
        trace.append(("caller", next(g), M.is_grad_enabled()))
        trace.append(("caller", g.send("x"), M.is_grad_enabled()))
        trace.append(("caller", g.throw(ValueError("boom")), M.is_grad_enabled()))
        trace.append(("caller", next(g), M.is_grad_enabled()))
        g.close()
        trace.append(("closed", M.is_grad_enabled()))
    M.set_grad_enabled(True)
    return trace


DECORATORS = {
    "no_grad()": lambda M: M.no_grad(),
    "no_grad": lambda M: M.no_grad,
    "enable_grad()": lambda M: M.enable_grad(),
    "enable_grad": lambda M: M.enable_grad,
    "set_grad_enabled(False)": lambda M: M.set_grad_enabled(False),
    "inference_mode()": lambda M: M.inference_mode(),
    "inference_mode": lambda M: M.inference_mode,
    "inference_mode(False)": lambda M: M.inference_mode(False),
}


@pytest.mark.parametrize("name", list(DECORATORS))
def test_generator_decorator(name, torch):
    assert generator_trace(G, DECORATORS[name](G)) == generator_trace(torch, DECORATORS[name](torch))


def generator_return(M):
    @M.no_grad()
    def gen():
        yield M.is_grad_enabled()
        return "done"

    g = gen()
    first = next(g)
    with pytest.raises(StopIteration) as info:
        next(g)
    return first, info.value.value


def test_generator_return_value(torch):
    assert generator_return(G) == generator_return(torch)


def test_exception_raised_by_generator_restores_mode(torch):
    def run(M):
        @M.no_grad()
        def gen():
            yield 1
            raise KeyError("k")

        g = gen()
        next(g)
        with pytest.raises(KeyError):
            next(g)
        return M.is_grad_enabled()

    assert run(G) is run(torch) is True


@pytest.mark.parametrize("name", list(DECORATORS))
def test_function_decorator(name, torch):
    def run(M):
        @DECORATORS[name](M)
        def f(x):
            return M.is_grad_enabled(), (x * 2).requires_grad

        x = M.ones(1, requires_grad=True)
        return f(x), M.is_grad_enabled()

    assert run(G) == run(torch)


def test_decorating_a_class_warns(torch):
    def run(M):
        @M.no_grad()
        class A:
            def __init__(self):
                self.grad = M.is_grad_enabled()

        return A().grad, M.is_grad_enabled()

    rg, rt = assert_same_warning(lambda: run(G), lambda: run(torch))
    assert rg == rt == (False, True)


def test_inference_mode_nesting(torch):
    def run(M):
        seen = []
        with M.no_grad():
            with M.inference_mode():
                seen.append((M.is_grad_enabled(), M.is_inference_mode_enabled()))
                with M.inference_mode(False):
                    seen.append((M.is_grad_enabled(), M.is_inference_mode_enabled()))
                seen.append((M.is_grad_enabled(), M.is_inference_mode_enabled()))
            seen.append((M.is_grad_enabled(), M.is_inference_mode_enabled()))
        x = M.ones(2, requires_grad=True)
        with M.inference_mode():
            seen.append((x * 2).requires_grad)
        return seen

    assert run(G) == run(torch)


def test_set_multithreading_enabled(torch):
    def run(M):
        seen = [M.autograd.is_multithreading_enabled()]
        M.autograd.set_multithreading_enabled(False)  # takes effect when called
        seen.append(M.autograd.is_multithreading_enabled())
        with M.autograd.set_multithreading_enabled(True):
            seen.append(M.autograd.is_multithreading_enabled())
        seen.append(M.autograd.is_multithreading_enabled())
        M.autograd.set_multithreading_enabled(True)
        with M.inference_mode():
            seen.append(M.autograd.is_multithreading_enabled())

        @M.autograd.set_multithreading_enabled(False)
        def f():
            return M.autograd.is_multithreading_enabled()

        seen.append(f())
        seen.append(M.autograd.is_multithreading_enabled())
        M.autograd.set_multithreading_enabled(True)
        return seen

    assert run(G) == run(torch)


def test_names_and_reprs(torch):
    gm, tm = G.autograd.grad_mode, torch.autograd.grad_mode
    assert gm.__all__ == tm.__all__
    for name in tm.__all__:
        assert getattr(G.autograd, name) is getattr(gm, name)
        assert getattr(gm, name).__module__ == norm(getattr(tm, name).__module__)
    assert G.no_grad is gm.no_grad and G.inference_mode is gm.inference_mode
    assert repr(G.set_grad_enabled(True)) == norm(repr(torch.set_grad_enabled(True)))
    assert isinstance(G.no_grad(), gm._DecoratorContextManager)
    with gm.enforce_grad_layout_policy(False):
        pass


def test_set_grad_enabled_applies_at_once(torch):
    def run(M):
        M.set_grad_enabled(False)
        seen = [M.is_grad_enabled()]
        with M.set_grad_enabled(True):
            seen.append(M.is_grad_enabled())
        seen.append(M.is_grad_enabled())
        M.set_grad_enabled(True)
        return seen

    assert run(G) == run(need_torch())


@pytest.mark.parametrize("call", [
    lambda M: M.set_grad_enabled(1),
    lambda M: M.set_grad_enabled(None),
    lambda M: M.set_grad_enabled(M.tensor(True)),
    lambda M: M.autograd.set_multithreading_enabled(1),
    lambda M: M.autograd.grad_mode.enforce_grad_layout_policy(0),
])
def test_flag_type_errors(call):
    check_error(call)
    assert G.is_grad_enabled()
