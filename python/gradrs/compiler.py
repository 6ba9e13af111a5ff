"""`gradrs.compiler`: PyTorch's `torch.compiler` entry points for code that runs compiled or
eagerly. gradrs has no graph compiler (`gradrs.compile` runs models eagerly, see _compile.py),
so nothing is ever being compiled, traced or exported here: the predicates say False, the
decorators give the function back, and reset has no cache to clear."""

from __future__ import annotations

from ._compile import _BACKENDS, compile

__all__ = ["allow_in_graph", "assume_constant_result", "compile", "cudagraph_mark_step_begin",
           "disable", "is_compiling", "is_dynamo_compiling", "is_exporting", "list_backends",
           "reset"]

# The tags PyTorch registers its backends with (torch._dynamo.backends.registry): only these
# names are excluded by list_backends' default exclude_tags.
_TAGS = {name: ("debug",) for name in _BACKENDS}
_TAGS.update({"cudagraphs": (), "inductor": (), "openxla": (), "tvm": (),
              "openxla_eval": ("experimental",)})


def list_backends(exclude_tags=("debug", "experimental")) -> list[str]:
    """The names `compile(backend=...)` accepts, sorted, without those carrying one of
    `exclude_tags` (PyTorch's default leaves cudagraphs, inductor, openxla, tvm)."""
    exclude = set(exclude_tags or ())
    return sorted(name for name, tags in _TAGS.items() if not exclude.intersection(tags))


def reset() -> None:
    """Clear compilation caches; gradrs compiles nothing, so there are none."""


def is_compiling() -> bool:
    """True while Dynamo traces a function; gradrs never traces, so always False."""
    return False


def is_dynamo_compiling() -> bool:
    """True while Dynamo traces a function; always False here."""
    return False


def is_exporting() -> bool:
    """True while torch.export traces a program; always False here."""
    return False


def disable(fn=None, recursive=True, *, reason=None):
    """Keep `fn` out of compilation: it already runs eagerly, so `fn` itself (or, without
    `fn`, a decorator doing so)."""
    if fn is None:
        return lambda f: disable(f, recursive, reason=reason)
    return fn


def allow_in_graph(fn):
    """Let Dynamo put `fn` in its graph as is: `fn` itself here."""
    return fn


def assume_constant_result(fn):
    """Let Dynamo treat `fn`'s result as a constant: `fn` itself here."""
    return fn


def cudagraph_mark_step_begin() -> None:
    """Mark an iteration boundary for CUDA graphs; gradrs records none."""
