"""The `torch` alias: a `sys.meta_path` finder that resolves `torch` and `torch.<rest>` to gradrs.

Once `as_torch()` has installed it, `import torch.nn as nn` gives `gradrs.nn` itself (the same
module object, so `sys.modules['torch.nn'] is gradrs.nn`), `from torch.utils.data import
DataLoader` gives gradrs's DataLoader, and so on for every submodule path gradrs has. A path
gradrs lacks raises ModuleNotFoundError naming both spellings, e.g. "gradrs has no module
'torch.onnx' (gradrs.onnx)", instead of silently loading the real torch.

A real torch imported before the hook keeps its `sys.modules` entries: Python consults finders
only for names not imported yet, so `as_torch()` refuses (RuntimeError) rather than leave a
process with two libraries answering to `torch`. `python -m gradrs.run script.py` installs the
hook before the script's first line.
"""

from __future__ import annotations

import importlib
import importlib.abc
import importlib.machinery
import sys

_ALIAS = "torch"
_TARGET = "gradrs"


def _target_name(fullname: str) -> str:
    """'torch.nn.functional' -> 'gradrs.nn.functional'."""
    return _TARGET + fullname[len(_ALIAS):]


class _AliasLoader(importlib.abc.Loader):
    """Puts the already imported gradrs module into `sys.modules` under the torch name.

    The import system builds a placeholder module from the spec, runs `exec_module`, then
    returns whatever `sys.modules[name]` holds afterwards: the gradrs module. The gradrs module's
    own `__spec__`, `__name__` and `__file__` are left alone (pickling, `reload` and tracebacks
    keep saying gradrs).
    """

    def __init__(self, module):
        self._module = module

    def create_module(self, spec):
        return None  # the default placeholder; exec_module swaps it out

    def exec_module(self, module):
        sys.modules[module.__name__] = self._module


class TorchAliasFinder(importlib.abc.MetaPathFinder):
    """Finds `torch` and `torch.<rest>` as the gradrs module of the same path."""

    def find_spec(self, fullname, path=None, target=None):
        if fullname != _ALIAS and not fullname.startswith(_ALIAS + "."):
            return None
        name = _target_name(fullname)
        try:
            module = importlib.import_module(name)
        except ModuleNotFoundError as e:
            # Only a missing gradrs path becomes the alias's error; a dependency missing inside
            # an existing gradrs module (e.name elsewhere) propagates as it is.
            if e.name is None or not (name == e.name or name.startswith(e.name + ".")):
                raise
            raise ModuleNotFoundError(
                f"{_TARGET} has no module '{fullname}' ({name})", name=fullname
            ) from None
        is_package = hasattr(module, "__path__")
        return importlib.machinery.ModuleSpec(
            fullname, _AliasLoader(module), origin=getattr(module, "__file__", None),
            is_package=is_package,
        )


_finder: TorchAliasFinder | None = None


def is_installed() -> bool:
    """Whether the alias finder is on `sys.meta_path`."""
    return _finder is not None and _finder in sys.meta_path


def as_torch() -> None:
    """Make `import torch` (and every `torch.<submodule>` gradrs has) resolve to gradrs.

    Idempotent. Raises RuntimeError when the real torch is already imported in this process:
    its `sys.modules` entries would keep answering `import torch`, so the alias could not take
    effect. Call it before the first `import torch`, or run the program with
    `python -m gradrs.run script.py`.
    """
    global _finder
    gradrs = importlib.import_module(_TARGET)
    existing = sys.modules.get(_ALIAS)
    if existing is not None and existing is not gradrs:
        raise RuntimeError(
            "gradrs.as_torch(): the real torch is already imported "
            f"(sys.modules['torch'] is {existing!r}); call gradrs.as_torch() before the first "
            "`import torch`, or run the program with `python -m gradrs.run script.py`"
        )
    if is_installed():
        return
    # First on the path: the regular path finder would otherwise find the real torch, or load
    # a gradrs file a second time under its torch name (via gradrs's own __path__).
    _finder = TorchAliasFinder()
    sys.meta_path.insert(0, _finder)

