"""Inference mode and inference tensors, against PyTorch: which tensors are inference tensors,
what autograd records, and PyTorch's errors when inference tensors meet autograd outside the
mode (saved for backward, updated in place, `requires_grad`, `_version`)."""

import io
import threading

import numpy as np
import pytest
from conftest import HAVE_TORCH, G, check_error, need_torch

pytestmark = pytest.mark.usefixtures("restore_grad_mode")


def same(fn, expected):
    """`fn(G)` gives `expected`, and so does `fn(torch)` when PyTorch is importable."""
    assert fn(G) == expected
    if HAVE_TORCH:
        assert fn(need_torch()) == expected


def _inference(M):
    with M.inference_mode():
        return M.ones(3)


# ---- which tensors are inference tensors ----------------------------------------------------

def test_tensors_made_inside_are_inference_tensors_views_of_normal_ones_are_not():
    def run(M):
        a = M.ones(3)
        with M.inference_mode():
            b = M.ones(3)
            inside = [b.is_inference(), (a * 2).is_inference(), a[:2].is_inference(),
                      a.view(3).is_inference(), a.detach().is_inference(), b[:2].is_inference(),
                      M.is_inference(b), M.is_inference(a)]
        outside = [b.is_inference(), b[:1].is_inference(), b.view(3).is_inference(),
                   b.detach().is_inference(), b.data.is_inference(), b.clone().is_inference(),
                   (b * 2).is_inference(), b.exp().is_inference(), a.is_inference()]
        return inside, outside

    same(run, ([True, True, False, False, False, True, True, False],
               [True, True, True, True, True, False, False, False, False]))


def test_nothing_is_recorded_inside_even_under_enable_grad():
    def run(M):
        w = M.ones(3, requires_grad=True)
        with M.inference_mode():
            y = w * 2
            first = (M.is_grad_enabled(), y.requires_grad, y.grad_fn is None, y.is_inference())
            with M.enable_grad():
                z = w * 2
                second = (M.is_grad_enabled(), M.is_inference_mode_enabled(), z.requires_grad,
                          z.grad_fn is None, z.is_inference())
            r = M.ones(2, requires_grad=True)
            q = r * 2
            third = (r.requires_grad, r.is_inference(), q.requires_grad)
        return first, second, third

    same(run, ((False, False, True, True), (True, True, False, True, True),
               (True, True, False)))


def test_inference_mode_false_inside_makes_normal_tensors_that_autograd_can_use():
    def run(M):
        w = M.tensor([1.0, 2.0], requires_grad=True)
        with M.inference_mode():
            with M.inference_mode(False):
                flags = (M.is_grad_enabled(), M.is_inference_mode_enabled())
                e = M.tensor([3.0, 4.0])
                y = (e * w).sum()
            after = (M.is_grad_enabled(), M.is_inference_mode_enabled())
        y.backward()
        return flags, e.is_inference(), after, w.grad.tolist()

    same(run, ((True, False), False, (False, True), [3.0, 4.0]))


def test_inference_mode_false_outside_and_under_no_grad():
    def run(M):
        with M.inference_mode(False):
            a = (M.is_grad_enabled(), M.is_inference_mode_enabled(), M.ones(1).is_inference())
        with M.no_grad():
            with M.inference_mode(False):
                b = (M.is_grad_enabled(), M.is_inference_mode_enabled())
            c = M.is_grad_enabled()
        return a, b, c

    same(run, ((True, False, False), (True, False), False))


# ---- version counters -----------------------------------------------------------------------

def test_version_counter(torch):
    check_error(lambda M: _inference(M)._version)
    check_error(lambda M: _inference(M)[:2]._version)

    def inside(M):
        with M.inference_mode():
            return M.ones(2).detach()._version

    check_error(inside)

    def run(M):
        a = M.ones(3)
        with M.inference_mode():
            b = M.ones(3)
            b.add_(1)  # no counter to bump
            a.add_(1)  # a normal tensor's counter still counts
            v = a[:2]
            seen = [a._version, v._version]
        d = b.detach()
        seen += [d._version, b.data._version]
        d.add_(1)  # a detach made outside has its own counter: it may be updated
        seen += [d._version, b.tolist()]
        return seen

    assert run(G) == run(torch) == [1, 1, 0, 0, 1, [3.0, 3.0, 3.0]]


def test_unsafe_preserve_version_counter(torch):
    def run(M):
        x = M.ones(3, requires_grad=True)
        a = x * 1
        y = a * a
        with M.autograd.grad_mode._unsafe_preserve_version_counter(a):
            with M.no_grad():
                a.mul_(1)
        seen = [a._version]
        y.sum().backward()
        return seen, x.grad.tolist()

    assert run(G) == run(torch) == ([0], [2.0, 2.0, 2.0])
    check_error(lambda M: M.autograd.grad_mode._unsafe_preserve_version_counter(
        [M.ones(1)]))
    G._native._unsafe_set_version_counter((G.ones(1),), (3,))
    x = G.ones(2)
    G._native._unsafe_set_version_counter((x,), (5,))
    assert x._version == 5 and x[:1]._version == 5
    with pytest.raises(RuntimeError, match="does not have a version counter"):
        G._native._unsafe_set_version_counter((_inference(G),), (1,))


# ---- PyTorch's errors outside inference mode ----------------------------------------------

INPLACE = {
    "add_": lambda M, b: b.add_(1),
    "zero_": lambda M, b: b.zero_(),
    "mul_ tensor": lambda M, b: b.mul_(M.ones(3)),
    "setitem": lambda M, b: b.__setitem__(0, 1.0),
    "setitem tensor index": lambda M, b: b.__setitem__(M.tensor([0, 2]), 1.0),
    "view add_": lambda M, b: b[:2].add_(1),
    "copy_": lambda M, b: b.copy_(M.zeros(3)),
    "fill_": lambda M, b: b.fill_(2.0),
    "clamp_": lambda M, b: b.clamp_(0, 1),
    "out=": lambda M, b: M.add(M.ones(3), M.ones(3), out=b),
    "iadd": lambda M, b: b.__iadd__(1),
    "uniform_": lambda M, b: b.uniform_(),
}


@pytest.mark.parametrize("name", sorted(INPLACE))
def test_inplace_update_outside_is_refused(torch, name):
    check_error(lambda M: INPLACE[name](M, _inference(M)))


@pytest.mark.parametrize("name", sorted(INPLACE))
def test_inplace_update_inside_is_allowed(name):
    def run(M):
        with M.inference_mode():
            b = M.ones(3)
            INPLACE[name](M, b)
            return b.is_inference()

    same(run, True)


def test_inplace_error_without_torch():
    b = _inference(G)
    with pytest.raises(RuntimeError, match=r"^Inplace update to inference tensor outside "
                       r"InferenceMode is not allowed\.You can make a clone"):
        b.add_(1)
    assert b.tolist() == [1.0, 1.0, 1.0]  # refused before writing
    b.clone().add_(1)


def test_inplace_on_normal_tensors_inside_is_allowed_and_not_recorded(torch):
    def run(M):
        w = M.ones(3, requires_grad=True)
        h = w * 1
        with M.inference_mode():
            w.add_(1)  # a leaf that requires grad: allowed, nothing recorded
            h.mul_(2)
        return w._version, w.grad_fn is None, h._version, type(h.grad_fn).__name__, h.tolist()

    assert run(G) == run(torch) == (1, True, 1, "MulBackward0", [2.0, 2.0, 2.0])


SAVED = {
    "b*w": lambda M, b, w: b * w,
    "w*b": lambda M, b, w: w * b,
    "w.exp()*b": lambda M, b, w: w.exp() * b,
    "sin(b*w)": lambda M, b, w: M.sin(b * w),
    "mm": lambda M, b, w: M.mm(b.view(1, 3), w.view(3, 1)),
    "matmul": lambda M, b, w: b @ w,
    "div": lambda M, b, w: w / b,
    "pow": lambda M, b, w: w ** b,
    "linear": lambda M, b, w: M.nn.functional.linear(b.view(1, 3), w.view(1, 3)),
    "where": lambda M, b, w: M.where(b > 0, w * b, w),
}


@pytest.mark.parametrize("name", sorted(SAVED))
def test_saving_an_inference_tensor_for_backward_is_refused(torch, name):
    def run(M):
        return SAVED[name](M, _inference(M), M.ones(3, requires_grad=True))

    check_error(run)


def test_saving_error_without_torch():
    with pytest.raises(RuntimeError, match=r"^Inference tensors cannot be saved for backward\. "
                       r"Please do not use Tensors created in inference mode .*`gradrs\.no_grad\(\)` "
                       r"instead of `gradrs\.inference_mode\(\)`\.$"):
        _ = _inference(G) * G.ones(3, requires_grad=True)


def test_inference_tensors_that_are_not_saved_may_feed_autograd(torch):
    def run(M):
        b = _inference(M)
        w = M.tensor([1.0, 2.0, 3.0], requires_grad=True)
        y = b + w
        z = (y * y).sum()
        z.backward()
        return type(y.grad_fn).__name__, y.is_inference(), w.grad.tolist()

    assert run(G) == run(torch) == ("AddBackward0", False, [4.0, 6.0, 8.0])


def test_requires_grad_outside_is_refused(torch):
    check_error(lambda M: _inference(M).requires_grad_())
    check_error(lambda M: setattr(_inference(M), "requires_grad", True))
    check_error(lambda M: M.nn.Parameter(_inference(M)))

    def run(M):
        b = _inference(M)
        b.requires_grad_(False)
        with M.inference_mode():
            c = M.ones(2).requires_grad_()
        return b.requires_grad, c.requires_grad, c.is_leaf

    assert run(G) == run(torch) == (False, True, True)


def test_requires_grad_error_without_torch():
    with pytest.raises(RuntimeError, match="^Setting requires_grad=True on inference tensor "
                       "outside InferenceMode is not allowed.$"):
        _inference(G).requires_grad_()


def test_is_inference_of_a_non_tensor(torch):
    check_error(lambda M: M.is_inference(1))
    check_error(lambda M: M.is_inference([1.0]))


# ---- inference tensors keep working --------------------------------------------------------

def test_inference_tensors_as_inputs_to_math_printing_numpy_and_save(torch):
    def run(M):
        with M.inference_mode():
            b = M.arange(6.0).reshape(2, 3)
        buf = io.BytesIO()
        M.save({"b": b}, buf)
        buf.seek(0)
        loaded = M.load(buf)["b"]
        return (repr(b).replace("torch", "gradrs"), b.numpy().tolist(), round((b.exp() * 2).sum().item(), 3),
                b.sum(1).tolist(), loaded.tolist(), loaded.is_inference(), b.T.tolist())

    assert run(G) == run(torch)


def test_nn_module_under_inference_mode(torch):
    def run(M):
        M.manual_seed(0)
        model = M.nn.Sequential(M.nn.Linear(4, 3), M.nn.ReLU(), M.nn.Linear(3, 2))
        x = M.arange(8.0).reshape(2, 4) / 10
        with M.inference_mode():
            y = model(x)
        y2 = model(x)  # the same module, outside, records as usual
        loss = y2.sum()
        loss.backward()
        return (np.round(y.numpy(), 5).tolist(), y.is_inference(), y.requires_grad,
                type(y2.grad_fn).__name__, model[0].weight.grad is not None)

    assert run(G) == run(torch)


def test_decorator_forms(torch):
    def run(M):
        @M.inference_mode
        def bare(x):
            return x * 2, M.is_inference_mode_enabled()

        @M.inference_mode()
        def called(x):
            return x * 2, M.is_inference_mode_enabled()

        @M.inference_mode(False)
        def off(x):
            return x * 2, M.is_inference_mode_enabled()

        @M.inference_mode()
        def gen(n):
            for _ in range(n):
                yield M.ones(1).is_inference(), M.is_inference_mode_enabled()

        x = M.ones(1)
        outs = []
        for f in (bare, called, off):
            y, mode = f(x)
            outs.append((y.is_inference(), mode))
        steps = []
        for item in gen(2):
            steps.append((item, M.is_inference_mode_enabled()))
        with M.inference_mode():
            nested = off(x)[0].is_inference(), M.is_inference_mode_enabled()
        return outs, steps, nested, bare.__name__

    assert run(G) == run(torch) == (
        [(True, True), (True, True), (False, False)],
        [((True, True), False), ((True, True), False)],
        (False, True), "bare")


def test_inference_mode_is_thread_local():
    seen = {}
    with G.inference_mode():
        def other():
            seen["mode"] = G.is_inference_mode_enabled()
            seen["tensor"] = G.ones(1).is_inference()
            seen["grad"] = G.is_grad_enabled()

        t = threading.Thread(target=other)
        t.start()
        t.join()
        assert G.is_inference_mode_enabled()
    assert seen == {"mode": False, "tensor": False, "grad": True}


def test_exceptions_restore_the_mode():
    with pytest.raises(ValueError):
        with G.inference_mode():
            raise ValueError
    assert not G.is_inference_mode_enabled() and G.is_grad_enabled()
    ctx = G.autograd.grad_mode._enter_inference_mode(True)
    assert G.is_inference_mode_enabled() and not G.is_grad_enabled()
    G.autograd.grad_mode._exit_inference_mode(ctx)
    assert not G.is_inference_mode_enabled() and G.is_grad_enabled()
