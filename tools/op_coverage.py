"""Lists every declared op that has no entry in the op table (``tests/op_table.py``).

The declared ops are ``DECLARED_OPS`` of ``python/gradrs/_declared.py`` (generated from the Rust
declarations by ``tools/gen_ops.py``); an op-table entry is a call in ``tests/op_table.py``
whose first argument is the op's name as a string (``OpInfo("exp2", ...)``,
``_unary("exp2")``, ``_binary(...)``).  Prints the uncovered ops, one a line; exits 1 if there
are any (``tests/test_generated.py`` runs it in CI).  Standard library only.
"""

from __future__ import annotations

import ast
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent


def declared_ops(path=ROOT / "python" / "gradrs" / "_declared.py") -> list[str]:
    for node in ast.parse(path.read_text()).body:
        if isinstance(node, ast.Assign) and any(
                isinstance(t, ast.Name) and t.id == "DECLARED_OPS" for t in node.targets):
            return [e.value for e in node.value.elts]
    raise SystemExit(f"{path}: no DECLARED_OPS")


def table_entries(path=ROOT / "tests" / "op_table.py") -> set[str]:
    names = set()
    for node in ast.walk(ast.parse(path.read_text())):
        if (isinstance(node, ast.Call) and node.args and isinstance(node.args[0], ast.Constant)
                and isinstance(node.args[0].value, str)):
            names.add(node.args[0].value)
    return names


# Declared ops tested through another op's entry: gelu's two kernels are one Python function
# (the ``approximate='tanh'`` samples of ``_act("gelu", ...)``).
COVERED_BY = {"gelu_tanh": "gelu"}


def covered(op: str, entries: set[str]) -> bool:
    """An op's own entry or, for an in-place entry (``elu_``), that of its out-of-place op,
    whose ``inplace`` variant runs it."""
    names = {op, COVERED_BY.get(op, op)}
    if op.endswith("_"):
        names.add(op[:-1])
    return bool(names & entries)


def missing() -> list[str]:
    entries = table_entries()
    return [op for op in declared_ops() if not covered(op, entries)]


def main() -> int:
    gaps = missing()
    for op in gaps:
        print(op)
    return 1 if gaps else 0


if __name__ == "__main__":
    sys.exit(main())
