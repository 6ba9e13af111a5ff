"""`python/gradrs/_native.pyi` lists everything the extension module exports."""

from __future__ import annotations

import ast
from pathlib import Path

import pytest
from conftest import SELFTEST

STUB = Path(__file__).resolve().parent.parent / "python" / "gradrs" / "_native.pyi"


def _stub_names():
    tree = ast.parse(STUB.read_text())
    top, tensor = set(), set()
    for node in tree.body:
        if isinstance(node, ast.FunctionDef):
            top.add(node.name)
        elif isinstance(node, ast.ClassDef):
            top.add(node.name)
            if node.name == "Tensor":
                for b in node.body:
                    if isinstance(b, ast.FunctionDef):
                        tensor.add(b.name)
                    elif isinstance(b, ast.AnnAssign) and isinstance(b.target, ast.Name):
                        tensor.add(b.target.id)
        elif isinstance(node, (ast.Assign, ast.AnnAssign)):
            targets = node.targets if isinstance(node, ast.Assign) else [node.target]
            top.update(t.id for t in targets if isinstance(t, ast.Name))
    return top, tensor


@pytest.mark.skipif(SELFTEST, reason="checks gradrs's own extension module")
def test_stub_lists_every_export():
    from gradrs import _native

    top, tensor = _stub_names()
    assert sorted(n for n in dir(_native) if not n.startswith("__") and n not in top) == []
    missing = [n for n in dir(_native.Tensor)
               if not n.startswith("__") and n not in tensor]
    assert missing == []
