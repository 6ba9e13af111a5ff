"""Type checkers see gradrs's API: mypy accepts a typed program, and `mypy.stubtest` finds
each stub (`_native.pyi`, `_functional_forms.pyi`) equal to its module (skip without mypy)."""

from __future__ import annotations

import subprocess
import sys
import textwrap

from pathlib import Path

import pytest
from conftest import SELFTEST

pytest.importorskip("mypy")

# The modules that have a `.pyi` stub beside them.
STUBBED = ("gradrs._native", "gradrs._functional_forms")

PROGRAM = """
    import gradrs
    from gradrs import Tensor, nn

    x: Tensor = gradrs.ones(3, 4)
    y: Tensor = gradrs.exp(x) + x.exp()
    z: Tensor = gradrs.clamp(y, min=0.0, out=gradrs.empty(0))
    values, indices = gradrs.max(x, 1)
    layer = nn.Linear(4, 2)
    w: Tensor = layer.weight
    layer(x).sum().backward()
    reveal_type(gradrs.exp)
    reveal_type(x.exp())
    reveal_type(layer)
"""

# Each line is one mistake mypy must report.
MISTAKES = """
    import gradrs
    x = gradrs.ones(3)
    s: str = gradrs.exp(x)
    gradrs.exp(x, nope=1)
    x.exp(3)
    gradrs.sum(x, keepdim=0.5)
"""


def _mypy(tmp_path, source):
    path = tmp_path / "prog.py"
    path.write_text(textwrap.dedent(source))
    return subprocess.run(
        [sys.executable, "-m", "mypy", "--no-incremental", "--no-error-summary",
         "--cache-dir", str(tmp_path / "cache"), str(path)],
        capture_output=True, text=True, cwd=tmp_path)


@pytest.mark.skipif(SELFTEST, reason="type-checks gradrs itself")
def test_mypy_accepts_a_typed_program(tmp_path):
    r = _mypy(tmp_path, PROGRAM)
    assert r.returncode == 0, r.stdout + r.stderr
    revealed = [line.split("Revealed type is ")[1] for line in r.stdout.splitlines()
                if "Revealed type is" in line]
    assert revealed == [
        '"def (input: gradrs._native.Tensor, *, out: gradrs._native.Tensor | None =) '
        '-> gradrs._native.Tensor"',
        '"gradrs._native.Tensor"',
        '"gradrs.nn.modules.linear.Linear"',
    ]


@pytest.mark.skipif(SELFTEST, reason="type-checks gradrs itself")
def test_mypy_reports_mistakes(tmp_path):
    r = _mypy(tmp_path, MISTAKES)
    errors = [line for line in r.stdout.splitlines() if ": error:" in line]
    assert [int(e.split(":")[1]) for e in errors] == [4, 5, 6, 7], r.stdout + r.stderr


@pytest.mark.skipif(SELFTEST, reason="checks gradrs's own extension module")
def test_stubtest_finds_the_stubs_equal_to_the_modules(tmp_path):
    # Every name, signature (parameter names, kinds, defaults), class flag and property of
    # `_native` as `_native.pyi` declares it, and of the generated functional forms (whose
    # runtime signatures are the native methods', see `_forms._signature`) as
    # `_functional_forms.pyi` declares them; one process for both (each run costs ~15 s).
    # Run from tmp_path so no cache lands in the tree, and the installed package is checked.
    r = subprocess.run([sys.executable, "-m", "mypy.stubtest", *STUBBED],
                       capture_output=True, text=True, cwd=tmp_path)
    assert r.returncode == 0, r.stdout + r.stderr
    assert f"Success: no issues found in {len(STUBBED)} modules" in r.stdout, r.stdout


@pytest.mark.skipif(SELFTEST, reason="lists gradrs's own stubs")
def test_every_stub_is_stubtested():
    # A new `.pyi` in the package joins STUBBED (and so the stubtest run above).
    import gradrs

    root = Path(gradrs.__file__).parent
    found = {".".join(("gradrs",) + p.relative_to(root).with_suffix("").parts)
             for p in root.rglob("*.pyi")}
    assert found == set(STUBBED)
