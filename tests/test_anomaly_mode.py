"""Anomaly mode against PyTorch: the flags and context managers, the forward traceback each
node keeps in `grad_fn.metadata`, the NaN check in backward and the warnings that name the
node that failed (with the node that made it, under create_graph)."""

import re
import warnings

import pytest
from conftest import HAVE_TORCH, G, check_error, need_torch, norm, norm_g, record_warnings


@pytest.fixture(autouse=True)
def anomaly_off():
    """Each test starts and ends with anomaly mode off (it is process-wide)."""
    G.set_anomaly_enabled(False)
    yield
    G.set_anomaly_enabled(False)
    if HAVE_TORCH:
        need_torch().set_anomaly_enabled(False)


def both(fn):
    """`fn(G)`, and `fn(torch)` when PyTorch is importable (else None)."""
    return fn(G), (fn(need_torch()) if HAVE_TORCH else None)


def test_flags_and_context_managers(torch):
    def run(M):
        seen = [(M.is_anomaly_enabled(), M.is_anomaly_check_nan_enabled())]
        M.autograd.set_detect_anomaly(True, check_nan=False)  # takes effect when called
        seen.append((M.is_anomaly_enabled(), M.is_anomaly_check_nan_enabled()))
        with M.autograd.set_detect_anomaly(False):
            seen.append((M.is_anomaly_enabled(), M.is_anomaly_check_nan_enabled()))
        seen.append((M.is_anomaly_enabled(), M.is_anomaly_check_nan_enabled()))
        M.autograd.set_detect_anomaly(False)
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            ctx = M.autograd.detect_anomaly(check_nan=False)
        with ctx:
            seen.append((M.is_anomaly_enabled(), M.is_anomaly_check_nan_enabled()))
        seen.append((M.is_anomaly_enabled(), M.is_anomaly_check_nan_enabled()))
        M.set_anomaly_enabled(True)
        seen.append((M.is_anomaly_enabled(), M.is_anomaly_check_nan_enabled()))
        M.set_anomaly_enabled(False)
        return seen

    assert run(G) == run(torch) == [(False, True), (True, False), (False, True), (True, False),
                                    (True, False), (False, True), (True, True)]
    check_error(lambda M: M.set_anomaly_enabled(1))
    check_error(lambda M: M.autograd.set_detect_anomaly(True, check_nan=0))
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        check_error(lambda M: M.autograd.detect_anomaly()(lambda: 1))  # not a decorator
    assert type(G.autograd.set_detect_anomaly(False)).__module__ == norm(
        type(torch.autograd.set_detect_anomaly(False)).__module__)


def test_detect_anomaly_warns_on_entry(torch):
    _, wg = record_warnings(lambda: G.autograd.detect_anomaly())
    _, wt = record_warnings(lambda: torch.autograd.detect_anomaly())
    assert wg == wt == [("UserWarning", "Anomaly Detection has been enabled. This mode will "
                         "increase the runtime and should only be enabled for debugging.")]


def test_metadata_holds_the_forward_traceback():
    x = G.ones(2, requires_grad=True)
    y = x * 2
    assert y.grad_fn.metadata == {} and y.grad_fn.metadata is y.grad_fn.metadata
    y.grad_fn.metadata["mine"] = 1
    assert y.grad_fn.metadata == {"mine": 1}
    G.set_anomaly_enabled(True)
    z = x * 3  # THIS LINE
    stack = z.grad_fn.metadata["traceback_"]
    assert isinstance(stack, list) and stack[-1].endswith("z = x * 3  # THIS LINE\n")
    assert "test_metadata_holds_the_forward_traceback" in stack[-1]
    assert "parent_" not in z.grad_fn.metadata
    leaf = z.grad_fn.next_functions[0][0]
    assert type(leaf).__name__ == "AccumulateGrad"


def _nan_backward(M):
    x = M.tensor([0.0, 1.0], requires_grad=True)
    y = x.sqrt()
    (y * 0).sum().backward()


def _mul_nan(M):
    x = M.tensor([-1.0, 1.0], requires_grad=True)
    y = (x * float("nan")).sum()
    y.backward()


def _hook_error(M):
    x = M.tensor([1.0], requires_grad=True)
    y = x * 2
    y.register_hook(lambda g: 1 / 0)
    y.backward()


def _version_error(M):
    x = M.tensor([1.0], requires_grad=True)
    w = x.clone()
    u = w * w
    w.add_(1)
    u.backward()


def _function_error(M):
    class Boom(M.autograd.Function):
        @staticmethod
        def forward(ctx, x):
            return x.clone()

        @staticmethod
        def backward(ctx, g):
            raise RuntimeError("Some error in backward")

    x = M.ones(2, requires_grad=True)
    Boom.apply(x).sum().backward()


def _double_backward_nan(M):
    x = M.tensor([0.0, 1.0], requires_grad=True)
    y = x.sqrt()
    g, = M.autograd.grad(y.sum(), x, create_graph=True)
    (g.sum() * 0).backward()


CASES = {"nan": _nan_backward, "mul_nan": _mul_nan, "hook": _hook_error,
         "version": _version_error, "function": _function_error,
         "double_backward": _double_backward_nan}


def _run(fn, M, forward_on=True, check_nan=True):
    """Run `fn` with anomaly mode on (in the forward too, or only around the backward by
    turning it on from a hook-free wrapper): (exception type, message, warnings)."""
    def go():
        try:
            if forward_on:
                M.set_anomaly_enabled(True, check_nan)
            fn(M)
        except Exception as e:  # noqa: BLE001 - compared with PyTorch's
            return type(e).__name__, str(e)
        finally:
            M.set_anomaly_enabled(False)
        return None

    return record_warnings(go)


_LIB_FRAME = re.compile(r'  File "[^"]*/(torch|gradrs)/[^"]*", line \d+, in [^\n]*\n(    [^\n]*(\n|$))?')


def _user_frames(msg):
    """A warning's text without the frames inside either library (`Function.apply`, `grad`),
    which differ between them; the frames of this test's own code are compared."""
    return _LIB_FRAME.sub("", msg)


def _same_report(fn, forward_on=True):
    ref = need_torch()
    (eg, wg), (et, wt) = _run(fn, G, forward_on), _run(fn, ref, forward_on)
    assert eg is not None and eg[0] == et[0]
    assert norm_g(eg[1]) == norm(et[1])
    # `norm` only for the texts PyTorch writes: the traceback lines are the same source.
    wg = [(c, _user_frames(norm_g(m))) for c, m in wg]
    wt = [(c, _user_frames(norm_g(m))) for c, m in wt]
    return wg, wt


@pytest.mark.parametrize("name", ["nan", "mul_nan", "hook", "version", "function"])
def test_backward_errors_report_the_forward_traceback(torch, name):
    wg, wt = _same_report(CASES[name])
    assert wg == wt
    assert len(wg) == 1 and wg[0][1].startswith("Error detected in ")
    assert "Traceback of forward call that caused the error:\n" in wg[0][1]


def test_create_graph_nodes_name_their_parent(torch):
    wg, wt = _same_report(_double_backward_nan)
    assert wg == wt and [c for c, _ in wg] == ["UserWarning", "UserWarning"]
    head = "Error detected in DivBackward0. Traceback of forward call that caused the error:\n"
    assert wg[0][1].startswith(head)
    assert "g, = M.autograd.grad(y.sum(), x, create_graph=True)" in wg[0][1]
    assert wg[1][1].startswith("\n\nPrevious calculation was induced by SqrtBackward0. ")
    x = G.tensor([0.0, 1.0], requires_grad=True)
    G.set_anomaly_enabled(True)
    y = x.sqrt()
    g, = G.autograd.grad(y.sum(), x, create_graph=True)
    parent = g.grad_fn.metadata["parent_"]
    assert type(parent).__name__ == "SqrtBackward0" and parent == y.grad_fn


def test_nan_error_without_torch():
    G.set_anomaly_enabled(True)
    x = G.tensor([0.0, 1.0], requires_grad=True)
    y = x.sqrt()
    z = (y * 0).sum()
    with warnings.catch_warnings(record=True) as ws:
        warnings.simplefilter("always")
        with pytest.raises(RuntimeError, match=r"^Function 'SqrtBackward0' returned nan values "
                           r"in its 0th output\.$"):
            z.backward()
    [w] = ws
    assert w.category is UserWarning
    assert str(w.message).startswith("Error detected in SqrtBackward0. Traceback of forward "
                                     "call that caused the error:\n")
    assert "    y = x.sqrt()\n" in str(w.message)


def test_check_nan_false_and_anomaly_off_let_nan_through(torch):
    def run(M, on):
        x = M.tensor([0.0, 1.0], requires_grad=True)
        if on:
            M.set_anomaly_enabled(True, False)
        y = x.sqrt()
        (y * 0).sum().backward()
        M.set_anomaly_enabled(False)
        return str(x.grad.tolist())

    for on in (True, False):
        rg, wg = record_warnings(lambda on=on: run(G, on))
        rt, wt = record_warnings(lambda on=on: run(torch, on))
        assert rg == rt == "[nan, 0.0]" and wg == wt == []


def test_anomaly_only_in_backward_has_no_forward_information(torch):
    def run(M):
        x = M.tensor([1.0], requires_grad=True)
        y = x * 2
        M.set_anomaly_enabled(True)
        y.backward(M.tensor([float("nan")]))

    wg, wt = _same_report(run, forward_on=False)
    assert wg == wt == [("UserWarning", "Error detected in MulBackward0. No forward pass "
                         "information available. Enable detect anomaly during forward pass for "
                         "more information.")]


def test_version_error_hint_under_anomaly_mode(torch):
    def run(M):
        M.set_anomaly_enabled(True)
        _version_error(M)

    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        check_error(run)


def test_anomaly_mode_off_captures_nothing():
    x = G.ones(2, requires_grad=True)
    y = x.exp()
    assert y.grad_fn.metadata == {}
    y.sum().backward()


def test_traceback_comparison_with_torch(torch):
    def run(M):
        M.set_anomaly_enabled(True)
        x = M.ones(2, requires_grad=True)
        y = x.exp()
        M.set_anomaly_enabled(False)
        return y.grad_fn.metadata["traceback_"][-2:]

    sg, st = both(run)
    assert sg == st
