"""Every exception a binding raises goes through the one error map (`src/python/errors.rs`):
no `Py*Error::new_err` call anywhere else in `src/python` (issue 23)."""

import re
from pathlib import Path

import pytest

SRC = Path(__file__).resolve().parent.parent / "src" / "python"


def test_no_binding_builds_an_exception_outside_the_error_map():
    if not SRC.is_dir():
        pytest.skip("no source tree")
    direct = [f"{p.name}:{n}" for p in sorted(SRC.rglob("*.rs")) if p.name != "errors.rs"
              for n, line in enumerate(p.read_text().splitlines(), 1)
              if re.search(r"\bPy\w*(Error|Exception)::new_err\(", line)]
    assert direct == [], f"raise through src/python/errors.rs instead: {direct}"
