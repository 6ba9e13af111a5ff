"""Autograd hooks against PyTorch: Tensor.register_hook, post-accumulate-grad hooks, Node
pre/post hooks, their order relative to retain_grad, replacement gradients, removal, in-place
rebasing, create_graph and exceptions raised inside hooks."""

import pytest
from conftest import G, check, check_error, run_both


def _v(t):
    """A log entry for a gradient: its values (None stays None)."""
    return None if t is None else t.tolist()


def _same_log(fn):
    g, t = run_both(fn)
    assert g == t, f"gradrs {g!r}\ntorch  {t!r}"
    return g


def test_order_and_retain_grad_sees_hooked_grad():
    def f(m):
        log = []
        x = m.tensor([1.0, 2.0], requires_grad=True)
        y = x * 2
        y.retain_grad()
        y.register_hook(lambda g: (log.append(("y1", _v(g))), g * 10)[1])
        y.register_hook(lambda g: log.append(("y2", _v(g))))
        x.register_hook(lambda g: log.append(("x", _v(g))))
        y.grad_fn.register_prehook(lambda go: log.append(("pre", [_v(g) for g in go])))
        y.grad_fn.register_hook(lambda gi, go: log.append(("post", [_v(g) for g in gi],
                                                            [_v(g) for g in go])))
        x.register_post_accumulate_grad_hook(lambda t: log.append(("acc", _v(t.grad))))
        (y * 3).sum().backward()
        log.append(("grads", _v(y.grad), _v(x.grad)))
        return log

    _same_log(f)


def test_replacement_chains_and_reused_tensor_called_once():
    def f(m):
        log = []
        x = m.ones(3, requires_grad=True)
        y = x * 1
        y.register_hook(lambda g: g + 1)
        y.register_hook(lambda g: (log.append(_v(g)), g * 2)[1])
        (y * y + y).sum().backward()  # y used three times: one call with the sum
        log.append(_v(x.grad))
        return log

    _same_log(f)


def test_leaf_hook_before_accumulation_and_in_autograd_grad():
    def f(m):
        x = m.tensor([1.0, -1.0], requires_grad=True)
        x.register_hook(lambda g: g * 5)
        (x * 2).sum().backward()
        (g,) = m.autograd.grad((x * 3).sum(), x)
        return [_v(x.grad), _v(g)]

    _same_log(f)


def test_capture_of_needed_node_is_unhooked():
    # PyTorch's engine captures a gradient before the hooks of a node it still has to run.
    def f(m):
        x = m.ones(2, requires_grad=True)
        y = x * 2
        y.register_hook(lambda g: g * 10)
        a = m.autograd.grad((y * 3).sum(), [y, x])
        b = m.autograd.grad((y * 3).sum(), [y])
        return [_v(g) for g in a + b]

    _same_log(f)


def test_handle_remove_and_context_manager():
    def f(m):
        log = []
        x = m.ones(2, requires_grad=True)
        h = x.register_hook(lambda g: log.append("a"))
        h2 = x.register_hook(lambda g: log.append("b"))
        h.remove()
        h.remove()  # a second remove is harmless
        (x * 1).sum().backward()
        with x.register_hook(lambda g: log.append("c")):
            (x * 1).sum().backward()
        (x * 1).sum().backward()
        h2.remove()
        (x * 1).sum().backward()
        log.append(type(h).__name__)
        log.append(h2.id > h.id)
        return log

    _same_log(f)


def test_hook_survives_several_graphs():
    def f(m):
        calls = []
        x = m.ones(2, requires_grad=True)
        x.register_hook(lambda g: calls.append(_v(g)))
        (x * x).sum().backward()
        (x + x).sum().backward()
        return [calls, _v(x.grad)]

    _same_log(f)


def test_hooks_follow_inplace_rebase():
    def f(m):
        log = []
        x = m.ones(2, requires_grad=True)
        y = x * 1
        y.retain_grad()
        y.register_hook(lambda g: log.append(("before", _v(g))))
        y.mul_(3)
        y.register_hook(lambda g: log.append(("after", _v(g))))
        (y * 2).sum().backward()
        log.append(_v(y.grad))
        return log

    _same_log(f)


def test_undefined_gradient_reaches_hook_as_none():
    def f(m):
        log = []
        x = m.ones(2, 3, requires_grad=True)
        a, b = x.unbind(0)
        b.register_hook(lambda g: log.append(("b", _v(g))))
        a.register_hook(lambda g: log.append(("a", _v(g))))
        a.sum().backward()
        return log

    _same_log(f)


def test_node_hooks_replace_and_accumulate_grad_node():
    def f(m):
        log = []
        x = m.ones(2, requires_grad=True)
        y = x * 2
        y.grad_fn.register_prehook(lambda go: (go[0] * 3,))
        y.grad_fn.register_hook(lambda gi, go: (gi[0] + 1,) + gi[1:])
        acc = y.grad_fn.next_functions[0][0]
        acc.register_prehook(lambda go: log.append(("acc pre", [_v(g) for g in go])))
        acc.register_hook(lambda gi, go: log.append(("acc post", len(gi), [_v(g) for g in go])))
        y.sum().backward()
        log.append(_v(x.grad))
        # AccumulateGrad does not run under autograd.grad, so its node hooks do not either.
        log.append(_v(m.autograd.grad((x * 2).sum(), x)[0]))
        return log

    _same_log(f)


def test_post_accumulate_hook_not_under_autograd_grad():
    def f(m):
        log = []
        x = m.ones(2, requires_grad=True)
        x.register_post_accumulate_grad_hook(lambda t: log.append(_v(t.grad)))
        (x * 2).sum().backward()
        (x * 2).sum().backward()
        m.autograd.grad((x * 2).sum(), x)
        return log

    _same_log(f)


def test_hooks_under_create_graph():
    def f(m):
        x = m.tensor([1.0, 2.0], dtype=m.float64, requires_grad=True)
        y = x ** 3
        y.register_hook(lambda g: g * x)  # differentiable replacement
        (g,) = m.autograd.grad(y.sum(), x, create_graph=True)
        (gg,) = m.autograd.grad(g.sum(), x)
        return [_v(g), g.requires_grad, _v(gg)]

    _same_log(f)


def test_hook_return_value_checks():
    def myhook(g):
        return g.new_ones(3) if hasattr(g, "new_ones") else None

    def size(m):
        x = m.ones(2, requires_grad=True)
        x.register_hook(lambda g: m.ones(3))
        (x * 2).sum().backward()

    def named(m):
        def myhook(g):
            return m.ones(3)
        x = m.ones(2, requires_grad=True)
        x.register_hook(myhook)
        (x * 2).sum().backward()

    def dtype(m):
        x = m.ones(2, requires_grad=True)
        x.register_hook(lambda g: g.double())
        (x * 2).sum().backward()

    def not_tensor(m):
        x = m.ones(2, requires_grad=True)
        x.register_hook(lambda g: 3)
        (x * 2).sum().backward()

    def post_count(m):
        y = m.ones(2, requires_grad=True) * 2
        y.grad_fn.register_hook(lambda gi, go: (gi[0],))
        y.sum().backward()

    def pre_not_tuple(m):
        y = m.ones(2, requires_grad=True) * 2
        y.grad_fn.register_prehook(lambda go: go[0])
        y.sum().backward()

    def post_acc_returns(m):
        x = m.ones(2, requires_grad=True)
        x.register_post_accumulate_grad_hook(lambda t: t * 1)
        (x * 2).sum().backward()

    for fn in (size, named, dtype, not_tensor, post_count, pre_not_tuple, post_acc_returns):
        check_error(fn)


def test_registration_errors():
    check_error(lambda m: m.ones(2).register_hook(lambda g: None))
    check_error(lambda m: m.ones(2).register_post_accumulate_grad_hook(lambda t: None))
    check_error(lambda m: (m.ones(2, requires_grad=True) * 2)
                .register_post_accumulate_grad_hook(lambda t: None))


class _HookError(ValueError):
    pass


@pytest.mark.parametrize("where", ["tensor", "leaf", "pre", "post", "post_acc"])
def test_exception_in_hook_propagates_unchanged(where):
    def boom(*args):
        raise _HookError("boom from hook")

    x = G.ones(2, requires_grad=True)
    y = x * 2
    {"tensor": lambda: y.register_hook(boom), "leaf": lambda: x.register_hook(boom),
     "pre": lambda: y.grad_fn.register_prehook(boom),
     "post": lambda: y.grad_fn.register_hook(boom),
     "post_acc": lambda: x.register_post_accumulate_grad_hook(boom)}[where]()
    with pytest.raises(_HookError, match="boom from hook") as info:
        y.sum().backward()
    assert type(info.value) is _HookError
    # The engine is usable afterwards.
    z = G.ones(2, requires_grad=True)
    (z * 3).sum().backward()
    assert z.grad.tolist() == [3.0, 3.0]


def test_backward_hooks_dict():
    def f(m):
        x = m.ones(2, requires_grad=True)
        before = x._backward_hooks
        h = x.register_hook(lambda g: None)
        d = x._backward_hooks
        return [before is None, type(d).__name__, list(d) == [h.id]]

    _same_log(f)


def test_hooked_gradient_values_match():
    def f(m):
        w = m.tensor([[1.0, 2.0], [3.0, 4.0]], requires_grad=True)
        a = m.tensor([0.5, -1.0])
        h = (w @ a).tanh()
        h.register_hook(lambda g: g.clamp(max=0.1))
        h.sum().backward()
        return w.grad

    check(f)


def test_hooks_of_nodes_backward_does_not_reach():
    # backward(inputs=...) never reaches the other leaves: their hooks do not run.
    def f(m):
        log = []
        a = m.ones(2, requires_grad=True)
        b = m.ones(2, requires_grad=True)
        a.register_hook(lambda g: log.append("a"))
        b.register_hook(lambda g: log.append("b"))
        (a * b).sum().backward(inputs=(a,))
        m.autograd.grad((a * b).sum(), b)
        return log

    _same_log(f)


def test_register_multi_grad_hook():
    def f(m):
        log = []
        a = m.tensor([1.0, 2.0], requires_grad=True)
        b = m.tensor([3.0, 4.0], requires_grad=True)
        c = a * b
        d = a * b
        h = m.autograd.graph.register_multi_grad_hook(
            (a, b, c, d), lambda grads: log.append([None if g is None else g.tolist()
                                                    for g in grads]))
        c.sum().backward(retain_graph=True)
        c.sum().backward(inputs=(a,), retain_graph=True)
        h.remove()
        c.sum().backward(retain_graph=True)
        m.autograd.graph.register_multi_grad_hook(
            (a, b), lambda g: log.append(("any", g.tolist())), mode="any")
        (a * b).sum().backward()
        log.append(type(h).__name__)
        return log

    _same_log(f)


def test_multi_grad_hook_errors():
    check_error(lambda m: m.autograd.graph.register_multi_grad_hook(
        [m.ones(1, requires_grad=True)], print, mode="x"))

    def leaf_under_grad(m):
        a = m.ones(2, requires_grad=True)
        b = m.ones(2, requires_grad=True)
        m.autograd.graph.register_multi_grad_hook((a, b), lambda grads: None)
        m.autograd.grad((a * b).sum(), (b,))

    check_error(leaf_under_grad)
    x = G.ones(2, requires_grad=True)
    with pytest.raises(RuntimeError, match="should only be called during the backward pass"):
        G._native._will_engine_execute_node((x * 2).grad_fn)
    assert G._native._current_graph_task_id() == -1
