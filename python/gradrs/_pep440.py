"""PEP 440 versions, for `gradrs.torch_version` (PyTorch's `TorchVersion` compares through the
copy of `packaging` it vendors as `torch._vendor.packaging.version`; gradrs depends on numpy
only, so this module is its own implementation of the same scheme and ordering).

`Version(text)` parses `[N!]N(.N)*[{a|b|rc}N][.postN][.devN][+local]` with PEP 440's
normalizations (case, `-`/`_`/`.` separators, `alpha` / `beta` / `c` / `pre` / `preview` /
`rev` / `r` spellings, implicit numbers, a leading `v`); anything else raises `InvalidVersion`
(a ValueError) with packaging's message. Versions order as PEP 440 says: a dev release before
its pre-releases, those before the release, post-releases after it, trailing zeros of the
release ignored, a local label after the public version it extends.
"""

from __future__ import annotations

import re
from typing import Any, NamedTuple

__all__ = ["InvalidVersion", "Version", "parse"]


class InvalidVersion(ValueError):
    """A string that is no PEP 440 version: `Version("parrot")`."""


_PATTERN = re.compile(
    r"""
    ^\s*v?
    (?:(?P<epoch>[0-9]+)!)?
    (?P<release>[0-9]+(?:\.[0-9]+)*)
    (?P<pre>[-_.]?(?P<pre_l>alpha|a|beta|b|preview|pre|c|rc)[-_.]?(?P<pre_n>[0-9]+)?)?
    (?P<post>(?:-(?P<post_n1>[0-9]+))
        |(?:[-_.]?(?P<post_l>post|rev|r)[-_.]?(?P<post_n2>[0-9]+)?))?
    (?P<dev>[-_.]?(?P<dev_l>dev)[-_.]?(?P<dev_n>[0-9]+)?)?
    (?:\+(?P<local>[a-z0-9]+(?:[-_.][a-z0-9]+)*))?
    \s*$
    """,
    re.VERBOSE | re.IGNORECASE,
)

_PRE_SPELLINGS = {"alpha": "a", "a": "a", "beta": "b", "b": "b", "c": "rc", "pre": "rc",
                  "preview": "rc", "rc": "rc"}


class _Parts(NamedTuple):
    epoch: int
    release: tuple[int, ...]
    pre: tuple[str, int] | None
    post: int | None
    dev: int | None
    local: tuple[int | str, ...] | None


def _parse(text: str) -> _Parts:
    m = _PATTERN.match(text)
    if m is None:
        raise InvalidVersion(f"Invalid version: {text!r}")
    pre = None
    if m.group("pre_l"):
        pre = (_PRE_SPELLINGS[m.group("pre_l").lower()], int(m.group("pre_n") or 0))
    post = None
    if m.group("post_n1"):
        post = int(m.group("post_n1"))
    elif m.group("post_l"):
        post = int(m.group("post_n2") or 0)
    dev = int(m.group("dev_n") or 0) if m.group("dev_l") else None
    local = None
    if m.group("local"):
        local = tuple(int(s) if s.isdigit() else s.lower()
                      for s in re.split(r"[-_.]", m.group("local")))
    return _Parts(int(m.group("epoch") or 0), tuple(int(s) for s in m.group("release").split(".")),
                  pre, post, dev, local)


def _key(p: _Parts) -> tuple:
    """The sort key: each optional part encoded as a tuple whose first item places a missing
    part where PEP 440 puts it (so no two kinds are ever compared)."""
    release = list(p.release)
    while len(release) > 1 and release[-1] == 0:
        release.pop()
    if p.pre is None and p.post is None and p.dev is not None:
        pre: tuple = (-1,)  # 1.0.dev0 sorts before 1.0a0
    elif p.pre is None:
        pre = (1,)  # a release sorts after its pre-releases
    else:
        pre = (0, *p.pre)
    post = (-1,) if p.post is None else (0, p.post)
    dev = (1,) if p.dev is None else (0, p.dev)
    # numeric local segments sort after alphanumeric ones, and a longer label after its prefix
    local = (0,) if p.local is None else (1, tuple(
        (1, s, "") if isinstance(s, int) else (0, 0, s) for s in p.local))
    return (p.epoch, tuple(release), pre, post, dev, local)


class Version:
    """A parsed PEP 440 version, ordered and hashed by its normalized value."""

    __slots__ = ("_key", "_parts")

    def __init__(self, version: str) -> None:
        self._parts = _parse(version)
        self._key = _key(self._parts)

    def __repr__(self) -> str:
        return f"<Version('{self}')>"

    def __str__(self) -> str:
        s = self.public
        if self.local is not None:
            s += "+" + self.local
        return s

    def __hash__(self) -> int:
        return hash(self._key)

    def _other(self, other: Any) -> Any:
        return other._key if isinstance(other, Version) else NotImplemented

    def __lt__(self, other: Any) -> bool:
        k = self._other(other)
        return k if k is NotImplemented else self._key < k

    def __le__(self, other: Any) -> bool:
        k = self._other(other)
        return k if k is NotImplemented else self._key <= k

    def __eq__(self, other: object) -> bool:
        k = self._other(other)
        return k if k is NotImplemented else self._key == k

    def __ne__(self, other: object) -> bool:
        k = self._other(other)
        return k if k is NotImplemented else self._key != k

    def __ge__(self, other: Any) -> bool:
        k = self._other(other)
        return k if k is NotImplemented else self._key >= k

    def __gt__(self, other: Any) -> bool:
        k = self._other(other)
        return k if k is NotImplemented else self._key > k

    @property
    def epoch(self) -> int:
        return self._parts.epoch

    @property
    def release(self) -> tuple[int, ...]:
        return self._parts.release

    @property
    def pre(self) -> tuple[str, int] | None:
        return self._parts.pre

    @property
    def post(self) -> int | None:
        return self._parts.post

    @property
    def dev(self) -> int | None:
        return self._parts.dev

    @property
    def local(self) -> str | None:
        p = self._parts.local
        return None if p is None else ".".join(str(s) for s in p)

    @property
    def public(self) -> str:
        s = self.base_version
        if self.pre is not None:
            s += f"{self.pre[0]}{self.pre[1]}"
        if self.post is not None:
            s += f".post{self.post}"
        if self.dev is not None:
            s += f".dev{self.dev}"
        return s

    @property
    def base_version(self) -> str:
        s = ".".join(str(n) for n in self.release)
        return f"{self.epoch}!{s}" if self.epoch else s

    @property
    def is_prerelease(self) -> bool:
        return self.dev is not None or self.pre is not None

    @property
    def is_postrelease(self) -> bool:
        return self.post is not None

    @property
    def is_devrelease(self) -> bool:
        return self.dev is not None

    @property
    def major(self) -> int:
        return self.release[0]

    @property
    def minor(self) -> int:
        return self.release[1] if len(self.release) >= 2 else 0

    @property
    def micro(self) -> int:
        return self.release[2] if len(self.release) >= 3 else 0


def parse(version: str) -> Version:
    """`Version(version)`, as `packaging.version.parse`."""
    return Version(version)
