"""The generated files are up to date with the op declarations, and every declared op has an
op-table entry (the tools in ``tools/`` do the work; CI runs them through this file)."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest
from conftest import SELFTEST

ROOT = Path(__file__).resolve().parent.parent


@pytest.mark.skipif(SELFTEST, reason="checks gradrs's own extension module")
def test_generated_files_are_fresh():
    run = subprocess.run([sys.executable, str(ROOT / "tools" / "gen_ops.py"), "--check"],
                         capture_output=True, text=True)
    assert run.returncode == 0, run.stdout + run.stderr


def test_every_declared_op_has_an_op_table_entry():
    run = subprocess.run([sys.executable, str(ROOT / "tools" / "op_coverage.py")],
                         capture_output=True, text=True)
    assert run.returncode == 0, "declared ops without an op-table entry:\n" + run.stdout


def test_op_coverage_sees_a_missing_entry(tmp_path):
    sys.path.insert(0, str(ROOT / "tools"))
    try:
        import op_coverage
    finally:
        sys.path.pop(0)
    table = tmp_path / "op_table.py"
    table.write_text('OPS = [_unary("exp"), OpInfo("log", None, [])]\n')
    assert op_coverage.table_entries(table) == {"exp", "log"}
    ops = tmp_path / "_ops.py"
    ops.write_text('DECLARED_OPS = (\n    "exp",\n    "sin",\n)\n')
    assert op_coverage.declared_ops(ops) == ["exp", "sin"]
