"""`gradrs.compile`: PyTorch's `torch.compile`, which in gradrs runs the model eagerly.

gradrs has no graph compiler: every op already runs as one native call. `compile` therefore
does what PyTorch's own `backend="eager"` does for a program's results — it runs the model's
Python code as written. A module comes back wrapped as PyTorch wraps it, in an
`OptimizedModule` whose child `_orig_mod` is the module (so its state_dict keys start with
`_orig_mod.`, as PyTorch's checkpoints of compiled models do, and attribute access reaches the
module); a function comes back itself (PyTorch's wrapper differs from it only in identity). The arguments are checked as
PyTorch checks them (mode names, backend names, `mode` with `options`), and it works as a
decorator with and without arguments (`@gradrs.compile`, `@gradrs.compile(mode=...)`).
A callable backend is accepted and never called; `options` are not inspected. As in PyTorch,
a compile (not disabled) turns off the distributions' default argument validation.
"""

from __future__ import annotations

from collections.abc import Sized

from .nn.modules.module import Module

__all__ = ["InvalidBackend", "OptimizedModule", "compile"]

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


class OptimizedModule(Module):
    """What `compile` returns for a module: a module whose one child `_orig_mod` is the
    compiled module, which it runs (eagerly here) when called. Attributes it does not have
    itself are read from, written to and deleted on `_orig_mod`; `training` is the module's."""

    _opt_mod_attributes = {"_orig_mod", "dynamo_ctx", "forward", "_forward", "__dict__",
                           "_super_module_initialized"}

    def __init__(self, mod, dynamo_ctx=None) -> None:
        # Module.__init__ sets attributes, which __setattr__ forwards to the module: it must be
        # reachable before the Module machinery exists.
        object.__setattr__(self, "_orig_mod", mod)
        self._super_module_initialized = False
        super().__init__()
        self._super_module_initialized = True
        self._orig_mod = mod  # Module.__setattr__ registers it as the child module
        self.dynamo_ctx = dynamo_ctx
        self._initialize()

    def _initialize(self) -> None:
        self.forward = self._orig_mod.__call__
        if hasattr(self._orig_mod, "_initialize_hook"):  # a lazy module
            self._forward = self.forward
            self.forward = self._call_lazy_check

    def __len__(self) -> int:
        if isinstance(self._orig_mod, Sized):
            return len(self._orig_mod)
        raise TypeError(f"{type(self._orig_mod).__name__} does not support len()")

    def __reduce__(self):
        return (self.__class__, (self._orig_mod, self.dynamo_ctx))

    def __getstate__(self):
        state = dict(self.__dict__)
        state.pop("forward", None)
        state.pop("__call__", None)
        return state

    def __setstate__(self, state) -> None:
        self.__dict__ = state
        self._initialize()

    @property
    def training(self) -> bool:
        return self._orig_mod.training

    @training.setter
    def training(self, value) -> None:
        if self._super_module_initialized:
            self._orig_mod.training = value

    def __getattr__(self, name):
        if name == "_orig_mod":
            return self._modules["_orig_mod"]
        return getattr(self._orig_mod, name)

    def __setattr__(self, name, value) -> None:
        if hasattr(type(self), name) or name in OptimizedModule._opt_mod_attributes:
            return super().__setattr__(name, value)
        return setattr(self._orig_mod, name, value)

    def __delattr__(self, name) -> None:
        if hasattr(type(self), name) or name in OptimizedModule._opt_mod_attributes:
            return super().__delattr__(name)
        return delattr(self._orig_mod, name)

    def _call_lazy_check(self, *args, **kwargs):
        infer = getattr(self._orig_mod, "_infer_parameters", None)
        if hasattr(self._orig_mod, "_initialize_hook") and callable(infer):
            infer(self._orig_mod, args, kwargs)
        return self._forward(*args, **kwargs)

    def __dir__(self):
        orig = self._orig_mod.__dir__()
        return orig + [a for a in super().__dir__() if a not in orig]


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
    if disable:
        return model
    # PyTorch patches torch on the first compile (Dynamo's TorchPatcher): among other things
    # distributions stop validating their arguments by default, for the rest of the process
    from .distributions import Distribution

    Distribution.set_default_validate_args(False)
    if isinstance(model, Module):
        return OptimizedModule(model)
    return model
