"""`gradrs.compile`: PyTorch's `torch.compile`, which in gradrs runs the model eagerly.

gradrs has no graph compiler: every op already runs as one native call. `compile` therefore
does what PyTorch's own `backend="eager"` does for a program's results — it runs the model's
Python code as written — and returns the module or function itself (PyTorch returns a
wrapper, `OptimizedModule` for a module, around the same code). The arguments are checked as
PyTorch checks them (mode names, backend names, `mode` with `options`), and it works as a
decorator with and without arguments (`@gradrs.compile`, `@gradrs.compile(mode=...)`).
A callable backend is accepted and never called; `options` are not inspected.
"""

from __future__ import annotations

__all__ = ["InvalidBackend", "compile"]

# The backends PyTorch registers (`torch._dynamo.list_backends(exclude_tags=())`), all of which
# run eagerly here.
_BACKENDS = frozenset("""
    aot_eager aot_eager_decomp_partition aot_eager_decomp_partition_crossref
    aot_eager_decomp_partition_with_mode aot_eager_default_partitioner aot_ts cudagraphs eager
    eager_debug eager_noexcept inductor invoke_subgraph openxla openxla_eval pre_dispatch_eager
    ts tvm
""".split())
_INDUCTOR_MODES = ("default", "lite", "reduce-overhead", "max-autotune-no-cudagraphs",
                   "max-autotune")


class InvalidBackend(RuntimeError):
    """A `backend=` name that is not registered (PyTorch's `torch._dynamo` exception)."""

    def __init__(self, name):
        super().__init__(f"Invalid backend: {name!r}, see `gradrs._dynamo.list_backends()` for "
                         "available backends.")


def compile(model=None, *, fullgraph=False, dynamic=None, backend=None, mode=None,
            options=None, name=None, disable=False, recompile_limit=None,
            isolate_recompiles=False, shapes_spec=None):
    """Return `model` (a module or function) to run eagerly, as `backend="eager"` would;
    without `model`, a decorator that does so. `backend=None` is PyTorch's default backend,
    'inductor'; `name`, `recompile_limit`, `isolate_recompiles` and `shapes_spec` configure
    compilation, which does not happen here."""
    if model is None:
        def fn(model):
            if model is None:
                raise RuntimeError("Model can't be None")
            return compile(model, fullgraph=fullgraph, dynamic=dynamic, backend=backend,
                           mode=mode, options=options, name=name, disable=disable,
                           recompile_limit=recompile_limit,
                           isolate_recompiles=isolate_recompiles, shapes_spec=shapes_spec)
        return fn
    if mode is not None and options is not None:
        raise RuntimeError("Either mode or options can be specified, but both can't be "
                           "specified at the same time.")
    if backend is None:
        backend = "inductor"
    if backend == "inductor" and mode is not None and mode not in _INDUCTOR_MODES:
        raise RuntimeError(
            f"Unrecognized mode={mode}, should be one of: {', '.join(_INDUCTOR_MODES)}")
    if isinstance(backend, str) and backend not in _BACKENDS:
        raise InvalidBackend(backend)
    if not callable(model):
        raise AssertionError(f"A callable function is expected, but {type(model)} is provided.")
    return model
