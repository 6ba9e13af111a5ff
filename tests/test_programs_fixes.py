"""Behaviours that the third-party programs of tests/programs/ (session 2026-11-27, helper
"programs") found different from PyTorch and that were fixed in Python, checked against torch."""

from conftest import check_error, need_torch


def _wrapper_class(M):
    # a Lookahead-style wrapper: an Optimizer subclass that never runs Optimizer.__init__
    class Wrapper(M.optim.Optimizer):
        def __init__(self, inner):
            self.inner = inner
            self.param_groups = inner.param_groups
            self.defaults = inner.defaults
            self.state = {}

        def step(self, closure=None):
            return self.inner.step(closure)

    return Wrapper


def _wrapped(M):
    p = M.nn.Parameter(M.ones(2))
    p.grad = M.ones(2)
    return _wrapper_class(M)(M.optim.SGD([p], lr=0.1)), p


def test_zero_grad_wraps_the_step_of_a_subclass_without_init():
    # PyTorch's zero_grad wraps the class's step with the hook runner when __init__ did not,
    # so such a wrapper's step fails on the missing hook dicts after a zero_grad
    def run(M):
        opt, _ = _wrapped(M)
        opt.zero_grad()
        opt.step()

    check_error(run)


def test_wrapper_step_without_zero_grad_runs():
    torch = need_torch()
    import gradrs

    for M in (gradrs, torch):
        opt, p = _wrapped(M)
        opt.step()
        assert p.tolist() == [0.8999999761581421] * 2
        assert not hasattr(type(opt).step, "hooked")
        opt.zero_grad()
        assert getattr(type(opt).step, "hooked", False) and p.grad is None


def test_format_of_tensors():
    torch = need_torch()
    import gradrs

    def outputs(M):
        out = [f"{M.tensor(0.123456):.3f}", f"{M.tensor(42):5d}", f"{M.tensor(0.5):.1%}",
               f"{M.tensor([1.0, 2.0])}", f"{M.tensor(True)}", format(M.tensor(7), "03d"),
               f"{M.tensor(1.5, requires_grad=True) * 2:.2f}", f"{M.nn.Parameter(M.ones(1))}"]
        for value in (M.tensor([1.0, 2.0]), M.zeros(2, 2), M.nn.Parameter(M.tensor(1.0))):
            try:
                out.append(format(value, ".2f"))
            except TypeError as e:
                out.append(f"TypeError: {e}")
        return [s.replace("torch", "gradrs") for s in out]

    assert outputs(gradrs) == outputs(torch)


def test_compiler_and_jit_guards_in_eager_mode():
    torch = need_torch()
    import gradrs

    def facts(M):
        return (M.jit.is_scripting(), M.jit.is_tracing(), M.compiler.is_compiling(),
                M.compiler.is_dynamo_compiling(), M.compiler.is_exporting(),
                M._dynamo.is_compiling(), M.compiler.list_backends(),
                M.compiler.list_backends(exclude_tags=("debug",)),
                M._dynamo.list_backends(), M.jit.Final[int], M.jit.annotate(list, [1]),
                M.compiler.reset(), M._dynamo.reset(), M.compiler.cudagraph_mark_step_begin())

    assert facts(gradrs) == facts(torch)
    # every backend gradrs accepts is one PyTorch lists (PyTorch also lists its testing-only
    # backends, which exist to fail)
    assert set(gradrs.compiler.list_backends(exclude_tags=())) <= set(
        torch.compiler.list_backends(exclude_tags=()))


def test_jit_decorators_mark_functions_as_pytorch():
    torch = need_torch()
    import warnings

    import gradrs

    def marks(M):
        def f(x):
            return x + 1

        out = [str(M.jit.ignore(f)._torchscript_modifier), f(1)]
        out.append(str(M.jit.unused(lambda: 0)._torchscript_modifier))
        out.append(str(M.jit.export(lambda: 0)._torchscript_modifier))
        out.append(str(M.jit.ignore(drop=False)(lambda: 0)._torchscript_modifier))
        with warnings.catch_warnings(record=True) as caught:
            warnings.simplefilter("always")
            out.append(str(M.jit.ignore(True)(lambda: 0)._torchscript_modifier))
            out.append(str(M.jit.ignore(drop_on_export=True)(lambda: 0)._torchscript_modifier))
            out.append(str(M.jit.ignore(drop_on_export=False)(lambda: 0)._torchscript_modifier))
        out.append([(w.category.__name__, str(w.message)) for w in caught])
        prop = M.jit.unused(property(lambda self: 1))
        out.append(str(prop.fget._torchscript_modifier))
        try:
            M.jit.ignore("no")
        except RuntimeError as e:
            out.append(str(e))
        g = M.compiler.disable(lambda x: x * 2)
        h = M.compiler.disable(recursive=False)(lambda x: x * 3)
        out += [g(2), h(2), M.compiler.allow_in_graph(f)(2), M._dynamo.disable(f)(3)]
        return [str(v).replace("torch", "gradrs") for v in out]

    assert marks(gradrs) == marks(torch)


def test_nbytes_and_itemsize():
    torch = need_torch()
    import gradrs

    def sizes(M):
        cases = [M.ones(3, 4, dtype=M.float16)[:, :2], M.ones(0), M.tensor(True),
                 M.arange(10), M.zeros(2, 3, dtype=M.float64).t(), M.ones(5, dtype=M.uint8)]
        return [(t.nbytes, t.itemsize) for t in cases]

    assert sizes(gradrs) == sizes(torch)


def test_mode_position_of_ties_is_std_sorts():
    # PyTorch's CPU mode std::sort-s (value, position) pairs: beyond 16 elements the position
    # it reports for the winning value is not the last occurrence
    torch = need_torch()
    import numpy as np

    import gradrs

    rs = np.random.RandomState(1)
    cases = [np.array([4, 1, 2, 4, 3, 4, 0, 3, 3, 2, 1, 4, 2, 2, 1, 0, 4, 1, 3, 0, 0, 0, 0, 2, 4,
                       0, 4, 3, 1, 1])]
    cases += [rs.randint(0, k, size=(3, n)) for n in (5, 16, 17, 40, 300) for k in (2, 4, 30)]
    nan = rs.randn(2, 70).astype(np.float32)
    nan[:, ::3], nan[:, 1::5] = np.nan, 0.5
    cases.append(nan)
    for x in cases:
        for dim in range(x.ndim):
            g = gradrs.mode(gradrs.from_numpy(x), dim)
            t = torch.mode(torch.from_numpy(x), dim)
            assert g.indices.tolist() == t.indices.tolist()
            np.testing.assert_array_equal(g.values.numpy(), t.values.numpy())


def test_compile_turns_off_distribution_validation():
    # PyTorch's first compile patches torch (Dynamo's TorchPatcher): distributions stop
    # validating their arguments by default for the rest of the process; checked in fresh
    # processes, so neither side's global state leaks into other tests
    need_torch()
    import subprocess
    import sys

    def run(module):
        code = f"""
import {module} as torch
from {module}.distributions import Normal
out = []
for kwargs in [dict(disable=True), dict(backend="nope"), dict(), dict(backend="eager")]:
    try:
        torch.compile(torch.nn.Linear(1, 1), **kwargs)
    except Exception as e:
        out.append(type(e).__name__)
    out.append(Normal._validate_args)
try:
    Normal(torch.tensor([0.0]), torch.tensor([-1.0]))
    out.append("no error")
except ValueError:
    out.append("ValueError")
print(out)
"""
        return subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                              check=True).stdout

    assert run("gradrs") == run("torch")
