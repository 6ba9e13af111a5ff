"""`gradrs.version` (`torch.version`): what environment reports read. gradrs is built with no
CUDA, HIP, ROCm or XPU toolkit (its GPU is wgpu's), so those are None, as in a CPU build of
PyTorch.

`__version__` is `"<PyTorch release>+gradrs.<gradrs version>"`, e.g. `"2.13.0+gradrs.0.1.0"`:
the PyTorch release whose semantics gradrs follows, with gradrs's own package version as the
PEP 440 local label, as a PyTorch CPU wheel's `"2.13.0+cpu"`. Here it is a plain `str`;
`gradrs.__version__` is the same text as a `gradrs.torch_version.TorchVersion`, which compares
as a version. gradrs's own version is read from one place, `pyproject.toml`'s
`[project] version`: the source checkout's file when the package runs from one (an editable
install), otherwise the installed distribution's metadata built from it.
"""

from __future__ import annotations

import os
import re

# The PyTorch release whose semantics, names and messages gradrs follows (the oracle its tests
# compare with).
pytorch_release = "2.13.0"


def _package_version() -> str:
    here = os.path.dirname(os.path.abspath(__file__))
    pyproject = os.path.join(here, os.pardir, os.pardir, "pyproject.toml")
    try:
        with open(pyproject, encoding="utf-8") as f:
            text = f.read()
    except OSError:
        text = ""
    # the [project] table's `name = "gradrs"` and `version = "..."`
    project = re.search(r"^\[project\]\s*$(.*?)(?=^\[|\Z)", text, re.M | re.S)
    if project and re.search(r'^name\s*=\s*"gradrs"\s*$', project.group(1), re.M):
        m = re.search(r'^version\s*=\s*"([^"]+)"\s*$', project.group(1), re.M)
        if m:
            return m.group(1)
    from importlib.metadata import version  # an installed wheel: its metadata

    return version("gradrs")


gradrs_version = _package_version()  # gradrs's own version, e.g. "0.1.0"
__version__ = f"{pytorch_release}+gradrs.{gradrs_version}"

cuda: str | None = None
hip: str | None = None
rocm: str | None = None
xpu: str | None = None
debug = False
git_version = "unknown"

__all__ = ["__version__", "cuda", "debug", "git_version", "hip", "rocm", "xpu"]
