"""Saved-tensor hooks (`gradrs.autograd.graph.saved_tensors_hooks`, `save_on_cpu`,
`disable_saved_tensors_hooks`), `SavedTensor.register_hooks` and `gradrs.autograd.graph_stats`,
against PyTorch where it is importable (gradrs's side runs either way)."""

import subprocess
import sys
import textwrap

import numpy as np
import pytest
from conftest import G, need_torch, norm, norm_g


def _ref():
    """PyTorch when importable (the comparisons), else None."""
    try:
        return need_torch()
    except pytest.skip.Exception:
        return None


def _both(fn):
    """``[fn(G)]`` plus ``fn(torch)`` when torch is importable."""
    ref = _ref()
    return [fn(G)] + ([fn(ref)] if ref is not None else [])


def _raises(fn):
    try:
        fn()
    except Exception as e:  # noqa: BLE001 - the exception is what is compared
        return e
    raise AssertionError("did not raise")


def _same_error(fn):
    """``fn(m)`` raises on gradrs; with torch, the same type and (normalised) message."""
    eg = _raises(lambda: fn(G))
    ref = _ref()
    if ref is not None:
        et = _raises(lambda: fn(ref))
        assert type(eg).__name__ == type(et).__name__
        assert norm_g(str(eg)) == norm(str(et))
    return eg


def _leaves(m):
    x = m.tensor([0.5, -1.25, 2.0], requires_grad=True)
    w = m.tensor([1.5, 0.75, -0.5], requires_grad=True)
    return x, w


def test_pack_and_unpack_calls():
    """pack sees each saved tensor (inputs as themselves, `other` before `self`), with grad
    mode off; the graph keeps what pack returned (any object) and unpack gives it back."""

    def f(m):
        x, w = _leaves(m)
        log = []

        def pack(t):
            log.append(("pack", t is x, t is w, m.is_grad_enabled()))
            return {"kept": t}

        def unpack(p):
            log.append("unpack")
            return p["kept"]

        with m.autograd.graph.saved_tensors_hooks(pack, unpack):
            y = x * w
            z = y.exp()
            s = (x * 2).sum()  # a Python number is not packed
        packs = list(log)
        log.clear()
        (z.sum() + s).backward()
        return packs, len(log), x.grad.tolist(), w.grad.tolist()

    results = _both(f)
    packs, unpacks, gx, gw = results[0]
    assert packs == [("pack", False, True, False), ("pack", True, False, False),
                     ("pack", False, False, False)]
    assert unpacks >= 3
    for other in results[1:]:
        assert packs == other[0]
        np.testing.assert_allclose(gx, other[2], rtol=1e-6)
        np.testing.assert_allclose(gw, other[3], rtol=1e-6)


def test_no_pack_under_no_grad_and_innermost_pair_wins():
    def f(m):
        x, w = _leaves(m)
        log = []
        with m.no_grad(), m.autograd.graph.saved_tensors_hooks(
                lambda t: log.append("nograd"), lambda p: p):
            x * w
        with m.autograd.graph.saved_tensors_hooks(lambda t: log.append("outer") or t,
                                                  lambda p: p):
            with m.autograd.graph.saved_tensors_hooks(lambda t: log.append("inner") or t,
                                                      lambda p: p):
                x * w
            x.exp()
        x * w  # after both exit: no hooks
        return log

    results = _both(f)
    assert results[0] == ["inner", "inner", "outer"]
    assert all(r == results[0] for r in results)


def test_unpack_must_return_a_tensor():
    def f(m):
        x, w = _leaves(m)
        with m.autograd.graph.saved_tensors_hooks(lambda t: t, lambda p: 3):
            y = x * w
        y.sum().backward()

    e = _same_error(f)
    assert isinstance(e, TypeError)
    assert str(e) == ("Output of saved tensor unpack_hook expected to be a Tensor but got "
                      "result of type int")


def test_pack_hook_modifying_its_input_in_place():
    def f(m):
        a = m.tensor([1.0, 2.0], requires_grad=True) * 1
        with m.autograd.graph.saved_tensors_hooks(lambda t: t.add_(1), lambda p: p):
            a.exp()

    e = _same_error(f)
    assert str(e).startswith("A saved tensor pack hook is modifying its input in place.")


def test_exceptions_in_hooks_propagate():
    def boom(t):
        raise ValueError("pack failed")

    x, w = _leaves(G)
    with pytest.raises(ValueError, match="pack failed"):
        with G.autograd.graph.saved_tensors_hooks(boom, lambda p: p):
            x * w
    with G.autograd.graph.saved_tensors_hooks(lambda t: t, lambda p: 1 / 0):
        y = x * w
    with pytest.raises(ZeroDivisionError):
        y.sum().backward()


def test_saved_attributes_go_through_unpack_and_double_backward_reaches_leaves():
    def f(m):
        x, w = _leaves(m)
        calls = []

        def unpack(p):
            calls.append(1)
            return p

        with m.autograd.graph.saved_tensors_hooks(lambda t: t, unpack):
            y = x * x * w
            z = y.sin()
        saved = z.grad_fn._saved_self
        ident = saved is y
        first = len(calls)
        (g,) = m.autograd.grad(z.sum(), x, create_graph=True)
        g.sum().backward()
        return (ident, first, saved.tolist(), saved.requires_grad, saved.grad_fn is not None,
                g.tolist(), x.grad.tolist(), w.grad.tolist())

    results = _both(f)
    ident, first, saved, rg, has_fn, g, gx, gw = results[0]
    assert (ident, first, rg, has_fn) == (False, 1, True, True)
    for other in results[1:]:
        assert other[:2] == (ident, first) and other[3:5] == (rg, has_fn)
        for a, b in zip((saved, g, gx, gw), (other[2], other[5], other[6], other[7])):
            np.testing.assert_allclose(a, b, rtol=1e-5, atol=1e-6)


def test_custom_function_save_for_backward_is_packed():
    def f(m):
        class Square(m.autograd.Function):
            @staticmethod
            def forward(ctx, x):
                y = x * x
                ctx.save_for_backward(x, y)
                return y

            @staticmethod
            def backward(ctx, g):
                x, y = ctx.saved_tensors
                return 2 * g * x

        x, _ = _leaves(m)
        log = []
        with m.autograd.graph.saved_tensors_hooks(lambda t: log.append(t is x) or t,
                                                  lambda p: p):
            y = Square.apply(x)
        y.sum().backward()
        return log, x.grad.tolist()

    results = _both(f)
    assert results[0][0] == [True, False]
    for other in results[1:]:
        assert other[0] == results[0][0]
        np.testing.assert_allclose(results[0][1], other[1])


def test_save_on_cpu_gives_the_same_gradients():
    def f(m, pin):
        x, w = _leaves(m)
        with m.autograd.graph.save_on_cpu(pin_memory=pin):
            y = ((x * w).exp() * x).sum()
        y.backward()
        return x.grad.tolist(), w.grad.tolist()

    for pin in (False, True):
        g = f(G, pin)
        ref = _ref()
        if ref is not None:
            np.testing.assert_allclose(g, f(ref, pin), rtol=1e-6)
        x, w = _leaves(G)
        y = ((x * w).exp() * x).sum()
        y.backward()
        np.testing.assert_allclose(g, (x.grad.tolist(), w.grad.tolist()))


def test_disable_saved_tensors_hooks():
    def enter_hooks_while_disabled(m):
        with m.autograd.graph.disable_saved_tensors_hooks("hooks are off here"):
            with m.autograd.graph.save_on_cpu():
                pass

    def disable_while_hooks_active(m):
        with m.autograd.graph.saved_tensors_hooks(lambda t: t, lambda p: p):
            with m.autograd.graph.disable_saved_tensors_hooks("not while hooks run"):
                pass

    assert str(_same_error(enter_hooks_while_disabled)) == "hooks are off here"
    assert str(_same_error(disable_while_hooks_active)) == "not while hooks run"

    def nesting(m):
        graph = m.autograd.graph
        with graph.disable_saved_tensors_hooks("outer"):
            with graph.disable_saved_tensors_hooks("inner"):
                inner = str(_raises(lambda: graph.saved_tensors_hooks(abs, abs).__enter__()))
            outer = str(_raises(lambda: graph.saved_tensors_hooks(abs, abs).__enter__()))
        with graph.saved_tensors_hooks(lambda t: t, lambda p: p):
            pass  # enabled again
        return inner, outer

    results = _both(nesting)
    assert results[0] == ("inner", "outer")
    assert all(r == results[0] for r in results)


# ---- SavedTensor objects (`_raw_saved_<name>`) -------------------------------------------------


def test_raw_saved_register_hooks():
    def f(m):
        x, w = _leaves(m)
        y = x * w
        raw = y.grad_fn._raw_saved_self
        log = []
        raw.register_hooks(lambda t: log.append("pack") or t * 1, lambda p: log.append("u") or p)
        y.sum().backward()
        return log, x.grad.tolist(), w.grad.tolist()

    results = _both(f)
    assert results[0][0] == ["pack", "u"]
    for other in results[1:]:
        assert other[0] == results[0][0]
        np.testing.assert_allclose(results[0][1:], other[1:])


def test_raw_saved_register_hooks_errors():
    def twice(m):
        x, w = _leaves(m)
        raw = (x * w).grad_fn._raw_saved_self
        raw.register_hooks(lambda t: t, lambda p: p)
        raw.register_hooks(lambda t: t, lambda p: p)

    def freed(m):
        x, _ = _leaves(m)
        z = x.exp()
        raw = z.grad_fn._raw_saved_result
        z.sum().backward()
        raw.register_hooks(lambda t: t, lambda p: p)

    def none_saved(m):
        x, _ = _leaves(m)
        raw = (x * m.tensor([1.0, 2.0, 3.0])).grad_fn._raw_saved_self
        raw.register_hooks(lambda t: t, lambda p: p)

    assert "only one pair of hooks" in str(_same_error(twice))
    assert "after it has been freed" in str(_same_error(freed))
    assert str(_same_error(none_saved)) == (
        "Calling register_hooks on a saved tensor with value None is forbidden")
    x, w = _leaves(G)
    raw = (x * w).grad_fn._raw_saved_self
    assert type(raw).__name__ == "SavedTensor"
    with pytest.raises(TypeError, match="incompatible function arguments"):
        raw.register_hooks(1, 2)


def test_saved_values_after_backward_raise():
    def f(m):
        x, w = _leaves(m)
        y = x * w
        y.sum().backward()
        return y.grad_fn._saved_self

    assert str(_same_error(f)).startswith(
        "Trying to backward through the graph a second time (or directly access saved tensors "
        "after they have already been freed).")


# ---- graph_stats ------------------------------------------------------------------------------


def test_graph_stats_counts_nodes_and_saved_bytes():
    base = G.autograd.graph_stats()
    x = G.ones(4, 5, requires_grad=True)
    y = (x * x).exp()  # MulBackward0 saves x twice, ExpBackward0 its result
    stats = G.autograd.graph_stats()
    assert stats["nodes"] - base["nodes"] == 3  # AccumulateGrad, MulBackward0, ExpBackward0
    assert stats["saved_tensors"] - base["saved_tensors"] == 3
    assert stats["saved_bytes"] - base["saved_bytes"] == 3 * 20 * 4
    y.sum().backward()  # frees the saved tensors; the nodes live while y does
    after = G.autograd.graph_stats()
    assert after["saved_tensors"] == base["saved_tensors"]
    assert after["saved_bytes"] == base["saved_bytes"]
    del y
    assert G.autograd.graph_stats() == base


def test_graph_stats_return_to_zero_after_a_training_loop():
    """In a fresh interpreter (other tests may keep graphs alive): a small MLP trained a few
    steps, with a graph kept alive across steps; once everything is deleted, all zero."""
    code = textwrap.dedent("""
        import gradrs as torch
        from gradrs import nn
        assert torch.autograd.graph_stats() == {"nodes": 0, "saved_tensors": 0, "saved_bytes": 0}
        torch.manual_seed(0)
        model = nn.Sequential(nn.Linear(8, 16), nn.Tanh(), nn.Linear(16, 1))
        opt = torch.optim.SGD(model.parameters(), lr=0.1)
        x, y = torch.randn(32, 8), torch.randn(32, 1)
        kept = []
        for step in range(5):
            opt.zero_grad()
            loss = nn.functional.mse_loss(model(x), y)
            if step == 2:
                kept.append(model(x).sum())  # a graph never backwarded
            loss.backward()
        during = torch.autograd.graph_stats()
        assert during["nodes"] > 0 and during["saved_tensors"] > 0 and during["saved_bytes"] > 0
        del loss, kept
        print(torch.autograd.graph_stats())
    """)
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                         timeout=120)
    assert out.returncode == 0, out.stderr
    assert out.stdout.strip() == "{'nodes': 0, 'saved_tensors': 0, 'saved_bytes': 0}"
