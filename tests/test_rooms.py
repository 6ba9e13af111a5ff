"""The packages split into rooms by family (issue 23) still look like one module from outside:
`gradrs.nn.functional` and `gradrs.linalg` name their functions as theirs (PyTorch's say
`torch.nn.functional`), `__all__` lists every public function, and vmap's rules reach the
fallbacks through the package, where tests monkeypatch them."""

import inspect

import gradrs as G
import gradrs._vmap as _vmap
import gradrs.linalg as L
import gradrs.nn.functional as F


def _public_functions(module):
    return {n for n, v in vars(module).items()
            if not n.startswith("_") and inspect.isfunction(v)}


def test_functions_say_they_live_in_the_package():
    for module in (F, L):
        wrong = {n: getattr(module, n).__module__ for n in _public_functions(module)
                 if getattr(module, n).__module__ != module.__name__}
        assert wrong == {}, module.__name__
    assert F.relu.__module__ == "gradrs.nn.functional"
    assert G.det.__module__ == "gradrs.linalg"


def test_all_lists_every_public_function():
    assert set(F.__all__) == _public_functions(F)
    namespace = {}
    exec("from gradrs.nn.functional import *", namespace)
    assert set(namespace) - {"__builtins__"} == set(F.__all__)
    ops = G._ops
    assert set(ops.__all__) <= set(vars(G))


def test_rules_reach_the_fallback_through_the_package(monkeypatch):
    seen = []
    original = _vmap._per_sample

    def spy(name, *args):
        seen.append(name)
        return original(name, *args)

    monkeypatch.setattr(_vmap, "_per_sample", spy)
    x = G.randn(3, 4)
    try:
        G.func.vmap(lambda t: t.permute(1, 0))(x)  # a 1-D sample: permute's own error
    except RuntimeError:
        pass
    assert seen == ["permute"]
