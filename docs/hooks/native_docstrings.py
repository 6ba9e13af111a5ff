"""Griffe extension: the native API's docstrings on its reference pages, and examples as code.

`gradrs._native` is typed by `_native.pyi`, which holds signatures only; its docstrings are the
Rust `///` comments, which the built module carries as `__doc__`. Griffe reads the stub (static
analysis, `allow_inspection: false`), so this extension gives each stub object without a
docstring the one of the object it stands for. Needs gradrs importable, as the API pages' hook
does.

Docstrings here (Python and Rust alike) head their doctests `Example:`, which Google style
reads as an admonition of Markdown (`>>>` lines become quotes, `x[0][0]` a link); `Examples:`
is its section of code, so the heading is read as that.
"""

from __future__ import annotations

import importlib
import inspect
import re

import griffe

_PREFIX = "gradrs._native"
_EXAMPLE = re.compile(r"^(\s*)Example:$", re.M)


def _runtime(path: str):
    """The built object at a dotted path under `gradrs._native` (descriptors as they are), or
    None."""
    obj = importlib.import_module(_PREFIX)
    for part in path[len(_PREFIX) + 1:].split("."):
        try:
            obj = inspect.getattr_static(obj, part)
        except AttributeError:
            return None
    return obj


def _own_doc(obj) -> str | None:
    """The object's own docstring: a function's, a class's or a descriptor's, never the one a
    plain value (an int, a dtype) inherits from its type."""
    if isinstance(obj, (staticmethod, classmethod)):
        obj = obj.__func__
    if not (callable(obj) or inspect.isdatadescriptor(obj) or inspect.isclass(obj)):
        return None
    doc = inspect.getdoc(obj)
    if not doc:
        return None
    # A first line that repeats the signature: the page shows the stub's signature already.
    lines = doc.splitlines()
    name = getattr(obj, "__name__", None)
    if name and re.match(rf"{re.escape(name)}\(.*\)\s*(->.*)?$", lines[0]):
        doc = "\n".join(lines[1:]).strip()
    return doc or None


class NativeDocstrings(griffe.Extension):
    def on_instance(self, *, obj, agent, **kwargs) -> None:
        if obj.docstring is None and obj.path.startswith(_PREFIX + "."):
            doc = _own_doc(_runtime(obj.path))
            if doc:
                # Parsed as the loader parses the docstrings it reads (the site's Google style).
                obj.docstring = griffe.Docstring(
                    doc, parent=obj, parser=getattr(agent, "docstring_parser", None),
                    parser_options=getattr(agent, "docstring_options", None))
        if obj.docstring is not None:
            obj.docstring.value = _EXAMPLE.sub(r"\1Examples:", obj.docstring.value)
