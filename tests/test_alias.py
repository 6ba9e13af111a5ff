"""The `torch` alias: `gradrs.as_torch()`'s import hook and `python -m gradrs.run`.

Programs run in subprocesses (this test process has the real torch imported, which the alias
refuses to shadow). Their PYTHONPATH starts with a poisoned `torch` package, so a program that
reached the real torch instead of gradrs fails loudly.
"""

from __future__ import annotations

import os
import subprocess
import sys
import textwrap
from pathlib import Path

import pytest

from conftest import G, SELFTEST

pytestmark = pytest.mark.skipif(SELFTEST, reason="the alias is gradrs's own mechanism")

SCRIPTS = Path(__file__).parent / "scripts"
gradrs_init = Path(G.__file__)


@pytest.fixture(scope="module")
def poison(tmp_path_factory):
    """A directory holding a `torch` package that raises on import."""
    root = tmp_path_factory.mktemp("poison")
    (root / "torch").mkdir()
    (root / "torch" / "__init__.py").write_text(
        'raise ImportError("the real torch was imported instead of gradrs")\n')
    return root


def _env(poison=None):
    env = dict(os.environ)
    env.setdefault("OMP_NUM_THREADS", "1")  # the reference torch runs: small work, shared cores
    if poison is not None:
        env["PYTHONPATH"] = os.pathsep.join(
            [str(poison)] + ([env["PYTHONPATH"]] if env.get("PYTHONPATH") else []))
    return env


def run(args, poison=None, cwd=None):
    return subprocess.run([sys.executable, *args], capture_output=True, text=True,
                          env=_env(poison), cwd=cwd, timeout=120)


def run_code(code, poison):
    """Run `code` after `gradrs.as_torch()`; fails the test on a non-zero exit."""
    code = "import gradrs\ngradrs.as_torch()\n" + textwrap.dedent(code)
    r = run(["-c", code], poison)
    assert r.returncode == 0, r.stderr
    return r.stdout


def test_import_forms_resolve_to_the_same_gradrs_modules(poison):
    out = run_code("""
        import sys
        import torch
        import torch.nn as nn
        import torch.nn.functional as F
        import torch.autograd
        from torch import nn as nn2, autograd, cuda
        from torch.nn import functional as F2
        from torch.nn.functional import relu
        from torch.amp import GradScaler, autocast
        from torch.cuda.amp import GradScaler as CudaGradScaler
        import torch.backends.cudnn as cudnn
        import torch.cuda.amp
        from torch.cpu.amp import autocast as cpu_autocast
        assert issubclass(cpu_autocast, autocast) and torch.cpu.amp is gradrs.cpu.amp
        import gradrs
        assert GradScaler is gradrs.amp.GradScaler and autocast is gradrs.autocast
        assert issubclass(CudaGradScaler, GradScaler) and torch.cuda.amp is gradrs.cuda.amp
        assert cudnn is gradrs.backends.cudnn and cudnn.benchmark is False
        assert torch is gradrs and sys.modules["torch"] is gradrs
        assert nn is gradrs.nn and nn2 is gradrs.nn and sys.modules["torch.nn"] is gradrs.nn
        assert F is gradrs.nn.functional and F2 is F and relu is gradrs.nn.functional.relu
        assert torch.autograd is gradrs.autograd and autograd is gradrs.autograd
        assert cuda is gradrs.cuda
        assert torch.__name__ == "gradrs" and nn.__name__ == "gradrs.nn"
        assert torch.__file__.endswith("gradrs/__init__.py"), torch.__file__
        assert gradrs.nn.__spec__.name == "gradrs.nn"  # the gradrs modules are left as they are
        print(torch.ones(2).sum().item())
    """, poison)
    assert out == "2.0\n"


def test_every_gradrs_submodule_has_its_torch_path(poison):
    out = run_code("""
        import importlib, pkgutil, sys
        import gradrs
        names = [m.name for m in pkgutil.walk_packages(gradrs.__path__, "gradrs.")
                 if m.name.rsplit(".", 1)[-1] not in ("run", "__main__", "demo")
                 and not m.name.rsplit(".", 1)[-1].startswith("_")]
        assert "gradrs.nn.functional" in names and "gradrs.cuda" in names
        for name in names:
            try:  # the alias answers for what gradrs has; a module failing on its own is not this
                importlib.import_module(name)
            except ImportError:
                continue
            alias = "torch" + name[len("gradrs"):]
            assert importlib.import_module(alias) is importlib.import_module(name), name
            assert sys.modules[alias] is sys.modules[name]
        print(len(names))
    """, poison)
    assert int(out) >= 4


def test_a_missing_submodule_is_named_in_the_error(poison):
    out = run_code("""
        for stmt in ("import torch.onnx", "from torch import onnx",
                     "import torch.nn.quantized.dynamic"):
            try:
                exec(stmt)
            except ImportError as e:
                print(type(e).__name__, e.name if type(e) is ModuleNotFoundError else None,
                      "|", e)
            else:
                raise AssertionError(stmt + " did not raise")
        import torch
        print(hasattr(torch, "onnx"))
    """, poison)
    assert out.splitlines() == [
        "ModuleNotFoundError torch.onnx | gradrs has no module 'torch.onnx' (gradrs.onnx)",
        # Python's own wording for a from-import of a name that is neither attribute nor module.
        "ImportError None | cannot import name 'onnx' from 'gradrs' "
        f"({gradrs_init})",
        "ModuleNotFoundError torch.nn.quantized | gradrs has no module 'torch.nn.quantized' "
        "(gradrs.nn.quantized)",
        "False",
    ]


def test_as_torch_is_idempotent(poison):
    out = run_code("""
        import sys
        import gradrs
        from gradrs import _alias
        n = len(sys.meta_path)
        gradrs.as_torch()
        gradrs.as_torch()
        import torch
        gradrs.as_torch()
        print(len(sys.meta_path) == n, type(sys.meta_path[0]).__name__, _alias.is_installed())
    """, poison)
    assert out == "True TorchAliasFinder True\n"


def test_as_torch_refuses_when_the_real_torch_is_imported(torch):
    with pytest.raises(RuntimeError, match=r"the real torch is already imported .*"
                       r"call gradrs.as_torch\(\) before the first `import torch`"):
        G.as_torch()
    assert sys.modules["torch"] is torch
    assert not G._alias.is_installed()


def test_run_gives_the_program_its_argv_name_and_path(tmp_path, poison):
    script = tmp_path / "show.py"
    script.write_text(textwrap.dedent("""
        import sys
        print(__name__, sys.argv, sys.path[0] == __import__("os").path.dirname(__file__))
        if __name__ == "__main__":
            print("main block ran")
    """))
    plain = run([str(script), "a", "--flag", "-m", "x"])
    aliased = run(["-m", "gradrs.run", str(script), "a", "--flag", "-m", "x"], poison)
    assert aliased.returncode == plain.returncode == 0, aliased.stderr
    assert aliased.stdout == plain.stdout
    assert "main block ran" in aliased.stdout


def test_run_gives_a_relative_script_an_absolute_file(tmp_path, poison):
    # python makes __main__.__file__ absolute (warnings and tracebacks name it so); argv keeps
    # the path as typed
    (tmp_path / "where.py").write_text(textwrap.dedent("""
        import sys, warnings
        print(__file__, sys.argv[0])
        warnings.warn("careful")
    """))
    plain = run(["where.py"], cwd=tmp_path)
    aliased = run(["-m", "gradrs.run", "where.py"], poison, cwd=tmp_path)
    assert aliased.returncode == plain.returncode == 0, aliased.stderr
    assert aliased.stdout == plain.stdout == f"{tmp_path / 'where.py'} where.py\n"
    assert aliased.stderr == plain.stderr


def test_run_a_directory_with_a_main_module(tmp_path, poison):
    app = tmp_path / "app"
    app.mkdir()
    (app / "__main__.py").write_text(
        "import sys\nprint(__name__, sys.path[0] == sys.argv[0], sys.argv[1:])\n")
    plain = run([str(app), "x"])
    aliased = run(["-m", "gradrs.run", str(app), "x"], poison)
    assert aliased.returncode == plain.returncode == 0, aliased.stderr
    assert aliased.stdout == plain.stdout == "__main__ True ['x']\n"


def test_run_prints_the_programs_traceback_as_python_does(tmp_path, poison):
    script = tmp_path / "boom.py"
    script.write_text("def f():\n    raise ValueError('bad value')\n\nf()\n")
    plain = run([str(script)])
    aliased = run(["-m", "gradrs.run", str(script)], poison)
    assert aliased.returncode == plain.returncode == 1
    assert aliased.stderr == plain.stderr
    assert "raise ValueError('bad value')" in aliased.stderr


def test_run_reports_a_missing_submodule_at_the_import_line(tmp_path, poison):
    script = tmp_path / "export.py"
    script.write_text("import torch\nimport torch.onnx as onnx\n")
    r = run(["-m", "gradrs.run", str(script)], poison)
    assert r.returncode == 1
    assert r.stderr == (
        "Traceback (most recent call last):\n"
        f'  File "{script}", line 2, in <module>\n'
        "    import torch.onnx as onnx\n"
        "ModuleNotFoundError: gradrs has no module 'torch.onnx' (gradrs.onnx)\n"
    )


def test_run_passes_sys_exit_codes_through(tmp_path, poison):
    script = tmp_path / "leave.py"
    script.write_text("import sys\nimport torch\nsys.exit(3)\n")
    assert run(["-m", "gradrs.run", str(script)], poison).returncode == 3


def test_run_dash_m_runs_a_module_as_main(tmp_path, poison):
    pkg = tmp_path / "mypkg"
    pkg.mkdir()
    (pkg / "__init__.py").write_text("")
    (pkg / "train.py").write_text(textwrap.dedent("""
        import sys
        import torch
        import torch.nn.functional as F
        if __name__ == "__main__":
            print(torch.__name__, F.relu(torch.tensor([-1.0, 2.0])).tolist(), sys.argv[1:])
            print(sys.argv[0].endswith("train.py"))
    """))
    r = run(["-m", "gradrs.run", "-m", "mypkg.train", "x", "-y"], poison, cwd=tmp_path)
    assert r.returncode == 0, r.stderr
    assert r.stdout == "gradrs [0.0, 2.0] ['x', '-y']\nTrue\n"


_POOL_SCRIPT = """
import multiprocessing as mp
import sys

import torch


class Payload:  # defined in __main__: children must re-run the program to unpickle it
    def __init__(self, n):
        self.n = n


def work(p):
    import torch as t
    return t.__name__, (torch.ones(p.n) * 2).sum().item()


if __name__ == "__main__":
    for method in sys.argv[1:]:
        with mp.get_context(method).Pool(1) as pool:
            print(method, pool.map(work, [Payload(2), Payload(3)]))
"""


def test_run_gives_spawned_children_the_alias(tmp_path, poison):
    # spawn and forkserver children re-run the program before unpickling their work; with the
    # poisoned torch first on their path, any child that missed the alias would fail
    (tmp_path / "pool.py").write_text(_POOL_SCRIPT)
    (tmp_path / "pkg").mkdir()
    (tmp_path / "pkg" / "__init__.py").write_text("")
    (tmp_path / "pkg" / "pool.py").write_text(_POOL_SCRIPT)
    expected = "".join(f"{m} [('gradrs', 4.0), ('gradrs', 6.0)]\n"
                       for m in ("spawn", "forkserver", "fork"))
    r = run(["-m", "gradrs.run", str(tmp_path / "pool.py"), "spawn", "forkserver", "fork"],
            poison)
    assert (r.returncode, r.stdout) == (0, expected), r.stderr
    r = run(["-m", "gradrs.run", "-m", "pkg.pool", "spawn"], poison, cwd=tmp_path)
    assert (r.returncode, r.stdout) == (0, expected.splitlines(keepends=True)[0]), r.stderr


def test_run_usage_errors(tmp_path):
    r = run(["-m", "gradrs.run"])
    assert r.returncode == 2 and r.stderr.startswith("usage: python -m gradrs.run script.py")
    r = run(["-m", "gradrs.run", str(tmp_path / "nope.py")])
    assert r.returncode == 2 and "can't open file" in r.stderr and "nope.py" in r.stderr


# The scripts compared with PyTorch's output, with their arguments.
_REFERENCE_SCRIPTS = {
    "fit_polynomial": ["--steps", "120"],
    "train_cnn": [],
}

_REFERENCE_DRIVER = """
import contextlib, io, json, runpy, sys
outputs = {}
for path, args in json.loads(sys.argv[1]).items():
    sys.argv = [path, *args]
    buffer = io.StringIO()
    with contextlib.redirect_stdout(buffer):
        runpy.run_path(path, run_name="__main__")
    outputs[path] = buffer.getvalue()
print(json.dumps(outputs))
"""


@pytest.fixture(scope="module")
def torch_outputs():
    """What each reference script prints under the real torch (one process: one torch import)."""
    import json

    from conftest import need_torch

    need_torch()
    scripts = {str(SCRIPTS / f"{name}.py"): args for name, args in _REFERENCE_SCRIPTS.items()}
    r = run(["-c", _REFERENCE_DRIVER, json.dumps(scripts)])
    assert r.returncode == 0, r.stderr
    return {Path(path).stem: out for path, out in json.loads(r.stdout).items()}


def _loss_lines(text):
    return [line for line in text.splitlines() if not line.startswith("library:")]


@pytest.mark.parametrize("name", sorted(_REFERENCE_SCRIPTS))
def test_unmodified_script_prints_what_pytorch_prints(name, poison, torch_outputs):
    # fit_polynomial: tensors, autograd, F.mse_loss, no_grad updates, argparse;
    # train_cnn: Conv2d, BatchNorm2d, MaxPool2d, Sequential, Adam, StepLR, the printed model,
    # eval mode, torch.save / torch.load(weights_only=True)
    args = [str(SCRIPTS / f"{name}.py"), *_REFERENCE_SCRIPTS[name]]
    aliased = run(["-m", "gradrs.run", *args], poison)
    assert aliased.returncode == 0, aliased.stderr
    assert aliased.stdout.splitlines()[0] == "library: gradrs"
    assert torch_outputs[name].splitlines()[0] == "library: torch"
    assert _loss_lines(aliased.stdout) == _loss_lines(torch_outputs[name])


def _losses(text, prefix):
    return [float(line.split("loss ")[1].split()[0]) for line in text.splitlines()
            if line.startswith(prefix)]


def test_unmodified_script_train_amp(poison):
    # autocast + GradScaler + nn + optim.Adam + clip_grad_norm_, on the GPU when there is one
    r = run(["-m", "gradrs.run", str(SCRIPTS / "train_amp.py"), "--steps", "60"], poison)
    assert r.returncode == 0, r.stderr
    assert r.stdout.splitlines()[0] == "library: gradrs"
    first, final = _losses(r.stdout, "step 0")[0], _losses(r.stdout, "final")[0]
    assert final < first / 10


# DataLoader shuffling and random_split draw from gradrs.Generator / randperm, and every
# loader iterator seeds its workers with Tensor.random_ (as PyTorch's do).
_MISSING_RNG = [name for name, present in (
    ("gradrs.Generator", hasattr(G, "Generator")), ("gradrs.randperm", hasattr(G, "randperm")),
    ("gradrs.Tensor.random_", hasattr(G.Tensor, "random_"))) if not present]


@pytest.mark.skipif(bool(_MISSING_RNG), reason=f"{', '.join(_MISSING_RNG)} missing")
@pytest.mark.parametrize("args", [[], ["--device", "cpu", "--workers", "2"]])
def test_unmodified_script_train_classifier(poison, args):
    # nn.Module subclass, Linear/Dropout, CrossEntropyLoss, SGD with momentum, TensorDataset,
    # random_split, a shuffling DataLoader (with worker processes), torch.compile, accelerator
    script = str(SCRIPTS / "train_classifier.py")
    r = run(["-m", "gradrs.run", script, "--epochs", "4", *args], poison)
    assert r.returncode == 0, r.stderr
    assert r.stdout.splitlines()[0] == "library: gradrs"
    losses = _losses(r.stdout, "epoch")
    assert len(losses) == 4 and losses[-1] < losses[0] / 5
    accuracy = float(r.stdout.splitlines()[-1].split()[1])
    assert accuracy >= 0.9
