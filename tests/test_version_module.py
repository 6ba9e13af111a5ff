"""gradrs.version (torch.version): environment reports print `torch.version.cuda`; a CPU build's
toolkit versions are None."""

import json
import operator
import os
import re

import pytest
from conftest import G


def test_version_module(torch):
    import gradrs.version as ours

    for name in ("cuda", "hip", "rocm", "xpu", "debug"):
        assert getattr(ours, name) == getattr(torch.version, name), name
    assert ours.__version__ == G.__version__ and isinstance(ours.git_version, str)
    assert G.version is ours  # imported by the package, as torch.version


# gap 52 (tests/programs_gaps.md): gradrs.__version__ is a TorchVersion of "<PyTorch release>+gradrs.<own>"

VERSIONS = ["1.0", "1.6", "1.10.0a0", "1.9", "2", "2.0", "2.0.0", "2.1", "2.13", "2.13.0",
            "2.13.0+cpu", "2.13.0+gradrs.0.1.0", "2.13.0+gradrs.0.2", "2.13.0+GRADRS.0.1.0",
            "2.13.0rc1", "2.13.0a0+git1234", "2.13.0.dev20260101", "2.13.0.post1", "2.13.1",
            "2.14.0.dev0", "3.0", "1!0.1", "v2.13.0", "2.13.0-1", "2.13.0_rc_2", "2.13.0.c1",
            "2.13.0-alpha", "2.13.0beta3", "2.13.0pre", "2.13.0.rev4", "2.13.0+1.a", "2.13.0+a.1",
            "2.13.0+a", "2.13.0+1", "01.02.00"]
INVALID = ["parrot", "", "2.13.0+", "2..1", "1.0+a_", "2.13.0 cpu", "2.x"]


def _root():
    return os.path.join(os.path.dirname(__file__), os.pardir)


def test_version_value():
    with open(os.path.join(_root(), "pyproject.toml"), encoding="utf-8") as f:
        own = re.search(r'^version = "([^"]+)"', f.read(), re.M).group(1)
    # the release the API snapshot (tools/torch_api_names.json) and the tests follow
    with open(os.path.join(_root(), "tools", "torch_api_names.json")) as f:
        release = json.load(f)["torch_version"]
    assert G.version.pytorch_release == release and G.version.gradrs_version == own
    assert G.__version__ == f"{release}+gradrs.{own}" == G.version.__version__
    assert type(G.version.__version__) is str and type(G.torch_version.internal_version) is str
    assert type(G.__version__) is G.torch_version.TorchVersion
    assert G.torch_version.__version__ is G.__version__
    assert G.torch_version.internal_version == G.version.__version__


def test_torch_version_follows_installed_torch(torch):
    if torch.__version__.split("+")[0] != G.version.pytorch_release:
        pytest.skip(f"gradrs follows {G.version.pytorch_release}, installed {torch.__version__}")
    assert G.__version__.split("+")[0] == torch.__version__.split("+")[0]
    assert G.torch_version.__all__ == torch.torch_version.__all__


def _outcome(f, *args):
    try:
        return ("ok", f(*args))
    except Exception as e:
        return (type(e).__name__, str(e))


COMPARISONS = [operator.lt, operator.le, operator.eq, operator.ne, operator.ge, operator.gt]


def test_torch_version_compares_as_torch(torch):
    from torch._vendor.packaging.version import Version as TheirVersion

    ours_v = G.torch_version.TorchVersion
    theirs_v = torch.torch_version.TorchVersion
    operands = [*VERSIONS, *INVALID, (2, 1), (2, 13, 0), [1, 6], (3,), (2, "x"), 3, None, 2.5]
    for value in ["2.13.0+gradrs.0.1.0", "2.13.0+cpu", "1.10.0a0", "parrot"]:
        a, t = ours_v(value), theirs_v(value)
        for op in operands:
            for cmp in COMPARISONS:
                assert _outcome(cmp, a, op) == _outcome(cmp, t, op), (value, op, cmp)
            if isinstance(op, str) and op not in INVALID:
                # with the Version classes each side compares with
                mine, theirs = G.torch_version.Version(op), TheirVersion(op)
                for cmp in COMPARISONS:
                    assert _outcome(cmp, a, mine) == _outcome(cmp, t, theirs), (value, op, cmp)
        assert hash(a) == hash(value) and str(a) == value and a.split(".") == t.split(".")
        assert isinstance(a, str) and repr(a) == repr(t)


def test_version_gates_take_current_paths():
    from packaging.version import parse

    v = G.__version__
    assert v >= "1.6" and v >= "2.0" and v > (1, 10) and v < "3"
    assert parse(v) >= parse("2.0") and parse(v).local == "gradrs." + G.version.gradrs_version
    assert tuple(int(p) for p in v.split("+")[0].split(".")[:2]) >= (2, 0)
    assert int(v.split(".")[0]) >= 2
