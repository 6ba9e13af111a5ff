"""tools/api_coverage.py: it runs with and without torch (from its snapshot of torch's names),
the snapshot matches the installed torch, the exclusions stay within issue 24's categories, and
the torch.nn groups do not fall below their measured coverage."""

from __future__ import annotations

import importlib.util
import os
import subprocess
import sys

import pytest

TOOL = os.path.join(os.path.dirname(__file__), "..", "tools", "api_coverage.py")

# Coverage measured when these groups were completed; a drop fails the suite.
FLOORS = {"nn": 100.0, "nn.functional": 99.0, "nn.init": 100.0, "nn.parameter": 100.0,
          "nn.utils.rnn": 100.0, "nn.utils.parametrize": 100.0, "nn.utils.prune": 100.0,
          "nn.utils.fusion": 100.0, "nn.utils": 88.0, "nn.utils.parametrizations": 66.0,
          "optim": 100.0, "optim.lr_scheduler": 100.0, "utils.data": 100.0, "linalg": 92.0,
          "torch": 95.0}


def _load():
    spec = importlib.util.spec_from_file_location("api_coverage", TOOL)
    mod = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(mod)
    return mod


def test_nn_floors():
    tool = _load()
    groups, _ = tool.torch_names()
    res = tool.coverage(groups)
    for group, floor in FLOORS.items():
        have, missing, _ = res[group]
        pct = 100.0 * len(have) / (len(have) + len(missing))
        assert pct >= floor, f"{group}: {pct:.1f} % < {floor} %; missing {missing}"


def test_exclusion_categories():
    allowed = {"sparse layouts", "quantization", "complex-only", "named tensors",
               "other devices", "storage internals", "deprecated"}
    assert {reason for reason, _, _ in _load().EXCLUDED} <= allowed


def test_runs_without_torch():
    code = ("import sys; sys.modules['torch'] = None; sys.path.insert(0, sys.argv[1]); "
            "import api_coverage; sys.exit(api_coverage.main(['--group', 'nn', '--missing']))")
    out = subprocess.run([sys.executable, "-c", code, os.path.dirname(TOOL)],
                         capture_output=True, text=True, timeout=120)
    assert out.returncode == 0, out.stderr
    assert "snapshot of torch" in out.stdout and "  nn " in out.stdout


def test_snapshot_is_current(torch):
    import json

    tool = _load()
    with open(tool.SNAPSHOT) as f:
        data = json.load(f)
    if data["torch_version"] != torch.__version__.split("+")[0]:
        pytest.skip(f"snapshot of torch {data['torch_version']}, installed {torch.__version__}")
    live = {g: tool._public(m) for g, m in tool.GROUPS}
    assert live == data["groups"], "run: python tools/api_coverage.py --write-names " \
        "tools/torch_api_names.json"


def test_nn_classes_at_pytorch_module_paths(torch):
    """Each torch.nn class is importable from gradrs's module of the same path
    (`from torch.nn.modules.activation import MultiheadAttention` under gradrs.run)."""
    import importlib
    import inspect

    left_out = set()
    missing = []
    for name in dir(torch.nn):
        obj = getattr(torch.nn, name)
        if not inspect.isclass(obj) or not obj.__module__.startswith("torch.nn.") \
                or name in left_out:
            continue
        path = "gradrs" + obj.__module__[len("torch"):]
        try:
            ok = hasattr(importlib.import_module(path), name)
        except ImportError:
            ok = False
        if not ok:
            missing.append(f"{path}.{name}")
    assert not missing
