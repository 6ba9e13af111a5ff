"""`gradrs.torch_version` (`torch.torch_version`): `TorchVersion`, the class of
`gradrs.__version__`.

`gradrs.__version__` is `"2.13.0+gradrs.0.1.0"`: the PyTorch release whose semantics gradrs
follows, with gradrs's own package version as the PEP 440 local label (as PyTorch's CPU wheel's
`"2.13.0+cpu"`), so the version gates programs carry (`torch.__version__ >= "1.6"`,
`packaging.version.parse(torch.__version__) >= parse("2.0")`, `torch.__version__.split(".")`)
take the paths they take under that PyTorch. `internal_version` is the same text as a plain
`str` (`gradrs.version.__version__`).

`TorchVersion` is a `str` whose `<`, `<=`, `==`, `>=`, `>` compare as PEP 440 versions with a
string, a tuple / iterable of release numbers (`(2, 1)` is `"2.1"`) or a `Version`
(`gradrs.torch_version.Version`: `packaging`'s class subclassed, standing where PyTorch's
vendored copy of `packaging` stands: like PyTorch's, a plain `packaging.version.Version` is not
one, and comparing with it raises TypeError); text that is no version (`"parrot"`) falls
back to string comparison. `!=`, hashing, slicing and the other `str` methods are `str`'s.
"""

from __future__ import annotations

from collections.abc import Iterable
from typing import Any

from packaging import version as _packaging
from .version import __version__ as internal_version

__all__ = ["TorchVersion"]

InvalidVersion = _packaging.InvalidVersion


class Version(_packaging.Version):
    """PEP 440 version: `packaging`'s, as a class of its own, as PyTorch's vendored copy
    (`torch._vendor.packaging.version.Version`) is a class apart from an installed `packaging`'s."""

    __slots__ = ()


class TorchVersion(str):
    """A `str` that compares as a PEP 440 version with strings, tuples and `Version`s:
    `TorchVersion("2.13.0+gradrs.0.1.0") >= "1.10"`, `> (2, 1)`, `< Version("3")`."""

    __slots__ = ()

    def _convert_to_version(self, inp: Any) -> Any:
        if isinstance(inp, Version):
            return inp
        if isinstance(inp, str):
            return Version(inp)
        if isinstance(inp, Iterable):
            # (1,) -> "1", (1, 20) -> "1.20", (1, 20, 1) -> "1.20.1"
            return Version(".".join(str(item) for item in inp))
        raise InvalidVersion(inp)

    def _cmp_wrapper(self, cmp: Any, method: str) -> Any:
        try:
            return getattr(Version(self), method)(self._convert_to_version(cmp))
        except InvalidVersion:
            # not a version on either side ("parrot"): compare as strings
            return getattr(super(), method)(cmp)

    def __gt__(self, other: Any) -> Any:
        return self._cmp_wrapper(other, "__gt__")

    def __lt__(self, other: Any) -> Any:
        return self._cmp_wrapper(other, "__lt__")

    def __eq__(self, other: object) -> Any:
        return self._cmp_wrapper(other, "__eq__")

    def __ge__(self, other: Any) -> Any:
        return self._cmp_wrapper(other, "__ge__")

    def __le__(self, other: Any) -> Any:
        return self._cmp_wrapper(other, "__le__")

    __hash__ = str.__hash__  # defining __eq__ would otherwise make the class unhashable


__version__ = TorchVersion(internal_version)
