"""Module.register_backward_hook (PyTorch's deprecated non-full hook) and the global
register_module_backward_hook against torch 2.13: the gradients the hook sees (those of the node
that made the output), replacing grad_input, removal, mixing with full hooks, FutureWarnings."""

from __future__ import annotations

import warnings

import pytest
from conftest import G, check_error, norm


def _shapes(gs):
    return [None if g is None else tuple(g.shape) for g in gs]


def _run(m, make, inp, tuple_out=False):
    m.manual_seed(0)
    calls = []
    n = make(m)
    h = n.register_backward_hook(
        lambda mod, gi, go: calls.append((type(mod).__name__, _shapes(gi), _shapes(go),
                                          [None if g is None else g.tolist() for g in go])))
    with warnings.catch_warnings(record=True) as w:
        warnings.simplefilter("always")
        out = n(inp(m))
    (out[0] if tuple_out else out).sum().backward()
    h.remove()
    n(inp(m))  # removed: no call, no warning
    return calls, [(x.category.__name__, norm(str(x.message))) for x in w]


CASES = {
    "linear": (lambda m: m.nn.Linear(2, 3), lambda m: m.ones(4, 2, requires_grad=True)),
    "linear-no-input-grad": (lambda m: m.nn.Linear(2, 3), lambda m: m.ones(4, 2)),
    "sequential": (lambda m: m.nn.Sequential(m.nn.Linear(2, 3), m.nn.ReLU()),
                   lambda m: m.ones(4, 2, requires_grad=True)),
    "relu": (lambda m: m.nn.ReLU(), lambda m: m.ones(4, 2, requires_grad=True)),
    "conv": (lambda m: m.nn.Conv1d(2, 3, 2), lambda m: m.ones(1, 2, 5)),
}


@pytest.mark.parametrize("case", list(CASES))
def test_hook_calls_and_warnings_match_torch(torch, case):
    make, inp = CASES[case]
    assert _run(G, make, inp) == _run(torch, make, inp)


def test_hook_output_not_tensor_warns_like_torch(torch):
    def make(m):
        class Two(m.nn.Module):
            def forward(self, x):
                return {"a": x * 2, "b": x}

        return Two()

    def run(m):
        calls = []
        n = make(m)
        n.register_backward_hook(lambda mod, gi, go: calls.append(_shapes(gi)))
        with warnings.catch_warnings(record=True) as w:
            warnings.simplefilter("always")
            out = n(m.ones(2, requires_grad=True))
        out["a"].sum().backward()
        return calls, [(x.category.__name__, str(x.message)) for x in w]

    assert run(G) == run(torch)


def test_replacing_grad_input_matches_torch(torch):
    def run(m):
        m.manual_seed(0)
        n = m.nn.Linear(2, 1, bias=False)
        x = m.ones(1, 2, requires_grad=True)
        n.register_backward_hook(lambda mod, gi, go: tuple(None if g is None else g * 10
                                                           for g in gi))
        n(x).sum().backward()
        return x.grad.tolist(), n.weight.grad.tolist()

    assert run(G) == run(torch)


def test_mixing_with_full_hooks_raises_like_torch():
    check_error(lambda m: (lambda n: (n.register_full_backward_hook(lambda *a: None),
                                      n.register_backward_hook(lambda *a: None)))(m.nn.ReLU()))
    check_error(lambda m: (lambda n: (n.register_backward_hook(lambda *a: None),
                                      n.register_full_backward_hook(lambda *a: None)))(m.nn.ReLU()))


def test_global_hook_matches_torch(torch):
    def run(m):
        calls = []
        # The kind of global hook sticks for the process: other tests may have set it.
        m.nn.modules.module._global_is_full_backward_hook = None
        h = m.nn.modules.module.register_module_backward_hook(
            lambda mod, gi, go: calls.append((type(mod).__name__, _shapes(gi))))
        try:
            m.manual_seed(0)
            lin = m.nn.Linear(2, 2)
            lin(m.ones(1, 2, requires_grad=True)).sum().backward()
            with pytest.raises(RuntimeError) as e:
                m.nn.modules.module.register_module_full_backward_hook(lambda *a: None)
        finally:
            h.remove()
            # The kind of global hook sticks for the process (in PyTorch too): reset it so the
            # other tests may register full global hooks.
            m.nn.modules.module._global_is_full_backward_hook = None
        return calls, str(e.value)

    assert run(G) == run(torch)


def test_full_hook_node_prints_as_torch(torch):
    """The identity node a full backward hook puts on a module's output is PyTorch's custom
    Function node: `<torch.autograd.function.BackwardHookFunctionBackward object at ...>`."""
    import re

    def run(m):
        lin = m.nn.Linear(2, 2)
        lin.register_full_backward_hook(lambda *a: None)
        y = lin(m.ones(1, 2, requires_grad=True))
        split = m.nn.Module()
        split.forward = lambda x: (x * 2, x * 3)
        split.register_full_backward_hook(lambda *a: None)
        a, b = split(m.ones(2, requires_grad=True))
        return [re.sub(r"0x[0-9a-f]+", "0x", repr(t.grad_fn)) for t in (y, a, b)] + \
            [y.grad_fn.name(), type(y.grad_fn.next_functions[0][0]).__name__]

    assert run(G) == [norm(s) for s in run(torch)]
