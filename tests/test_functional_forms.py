"""The generated functional forms (`python/gradrs/_functional_forms.py` / `.pyi`) are current."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import gradrs as G

ROOT = Path(__file__).resolve().parent.parent
TOOL = ROOT / "tools" / "gen_functional_forms.py"


def test_generated_forms_are_current():
    # Fails when the name lists in the tool or `_native.pyi` changed without regenerating.
    r = subprocess.run([sys.executable, str(TOOL), "--check"], capture_output=True, text=True)
    assert r.returncode == 0, r.stdout + r.stderr


def test_forms_are_static_module_names():
    from gradrs import _functional_forms

    for name in _functional_forms.__all__:
        fn = getattr(G, name)
        assert fn is getattr(_functional_forms, name)
        assert (fn.__name__, fn.__qualname__, fn.__module__) == (name, name, "gradrs")
        assert fn.__doc__ == f"`gradrs.{name}(input, ...)`: same as `input.{name}(...)`."
    assert G.negative is G.neg and G.true_divide is G.divide is G.div
    assert G.multiply is G.mul and G.subtract is G.sub


def test_forms_behave_as_methods():
    x = G.tensor([[1.0, -2.0], [3.0, 0.5]])
    assert G.exp(x).equal(x.exp())
    assert G.sum(x, 1, keepdim=True).equal(x.sum(1, keepdim=True))
    out = G.empty(0)
    assert G.clamp(x, min=0.0, out=out) is out and out.equal(x.clamp(min=0.0))
    values, indices = G.empty(0), G.empty(0, dtype=G.int64)
    r = G.max(x, 1, out=(values, indices))
    assert r.values is values and r.indices is indices
    assert G.t(input=x).equal(x.t()) and G.relu(input=x).equal(x.relu())
