"""`gradrs.utils.checkpoint`: activation checkpointing (`checkpoint`, `checkpoint_sequential`),
trading compute for memory by recomputing a region's forward during backward.

Both of PyTorch's variants are built on one graph node whose Python backward reruns the
function (`_native._attach_node`):

* ``use_reentrant=True`` is PyTorch's `CheckpointFunction`: the forward runs under `no_grad`,
  the node (`CheckpointFunctionBackward`) saves the inputs, and its backward reruns the
  function with grad enabled and calls `autograd.backward` on the recomputed outputs, so the
  gradients reach the inputs through the node and any parameter the function uses directly
  (accumulated into its `.grad` by that inner backward).
* ``use_reentrant=False``: PyTorch records the region's graph as usual and swaps every tensor
  it saves for a placeholder through saved-tensor hooks; unpacking one in backward reruns the
  function. gradrs has no saved-tensor hooks, so here the forward runs once with grad enabled
  only to find the tensors the region differentiates with respect to (its tensor arguments,
  also inside lists, tuples, dicts and keyword arguments, and every leaf its graph reaches:
  the module parameters); that graph is then dropped and each output gets one node, named as
  its own `grad_fn` was (e.g. `AddmmBackward0`), whose backward reruns the function and takes
  `autograd.grad` of the rerun with respect to those tensors. What PyTorch promises for this
  variant holds: the same values and gradients, `autograd.grad` and `backward(inputs=...)`,
  keyword arguments, gradients for parameters when no input requires grad, double backward.
  Internally it differs: the whole function is rerun (no early stop), the outputs'
  `next_functions` are the recomputation node's edges rather than the region's own graph, and
  the determinism check compares the rerun's outputs (not each saved tensor).

A function returning several tensors has one node per output, all feeding a shared node
that runs once after them with every output's gradient (see `_attach`), because a Python
node carries one output.
"""

import contextlib
import threading
import warnings

from .. import _native
from .._grad_mode import enable_grad, no_grad

# `gradrs.utils` is imported while `gradrs` itself still imports (nn's hooks use it), before
# amp exists: autograd and autocast are looked up when a checkpoint runs.


def _autograd():
    from .. import autograd

    return autograd


def _autocast_mode():
    from ..amp import autocast_mode

    return autocast_mode

__all__ = [
    "checkpoint",
    "checkpoint_sequential",
    "CheckpointError",
    "CheckpointFunction",
    "check_backward_validity",
    "detach_variable",
    "noop_context_fn",
    "set_checkpoint_early_stop",
    "set_checkpoint_debug_enabled",
]

_DEFAULT_DETERMINISM_MODE = "default"
_checkpoint_debug_enabled = None
_enable_checkpoint_early_stop = None


class CheckpointError(RuntimeError):
    """Raised by non-reentrant checkpointing when the recomputed forward differs from the
    original one (other tensors saved, or different metadata), which would give wrong gradients.
    """
    pass


@contextlib.contextmanager
def set_checkpoint_debug_enabled(enabled):
    """Overrides `checkpoint`'s ``debug`` flag while active (``None`` defers to it)."""
    global _checkpoint_debug_enabled
    prev = _checkpoint_debug_enabled
    _checkpoint_debug_enabled = enabled
    try:
        yield
    finally:
        _checkpoint_debug_enabled = prev


@contextlib.contextmanager
def set_checkpoint_early_stop(enable):
    """Accepted as PyTorch's: gradrs always reruns the whole function, so stopping early or
    not gives the same results."""
    global _enable_checkpoint_early_stop
    prev = _enable_checkpoint_early_stop
    _enable_checkpoint_early_stop = enable
    try:
        yield
    finally:
        _enable_checkpoint_early_stop = prev


def noop_context_fn():
    """The default `context_fn` of `checkpoint`: two null context managers, one for the
    forward pass and one for the recomputation.

    Examples:
        >>> fwd, recompute = gradrs.utils.checkpoint.noop_context_fn()
        >>> with fwd, recompute:
        ...     pass
    """
    return contextlib.nullcontext(), contextlib.nullcontext()


def detach_variable(inputs):
    """The tensors of a tuple detached, each keeping its requires_grad; other values kept."""
    if not isinstance(inputs, tuple):
        raise RuntimeError(
            f"Only tuple of tensors is supported. Got Unsupported input type: {type(inputs).__name__}"
        )
    out = []
    for inp in inputs:
        if not isinstance(inp, _native.Tensor):
            out.append(inp)
            continue
        x = inp.detach()
        x.requires_grad = inp.requires_grad
        out.append(x)
    return tuple(out)


def check_backward_validity(inputs):
    """Warns (as PyTorch does) when none of the inputs of a reentrant checkpoint requires
    grad: its gradients would then all be None.

    Args:
        inputs: the checkpointed function's arguments.
    """
    if not any(inp.requires_grad for inp in inputs if isinstance(inp, _native.Tensor)):
        warnings.warn("None of the inputs have requires_grad=True. Gradients will be None", stacklevel=2)


# ---- the state the recomputation must see: RNG and autocast ---------------------------------


def _get_rng_state():
    # The generator's whole state is what makes a rerun draw the same numbers: reseeding
    # would restart the stream, not resume it, and give other dropout masks.
    if not hasattr(_native, "get_rng_state"):
        raise RuntimeError(
            "gradrs.utils.checkpoint: preserve_rng_state=True needs gradrs.get_rng_state, which "
            "this build lacks; pass preserve_rng_state=False if the checkpointed function draws "
            "no random numbers"
        )
    return _native.get_rng_state()


@contextlib.contextmanager
def _forward_rng(state):
    """Run with the random generator as it was at the forward (``state``; None: untouched),
    and give the caller's generator back afterwards, as `torch.random.fork_rng` does."""
    if state is None:
        yield
        return
    outer = _native.get_rng_state()
    _native.set_rng_state(state)
    try:
        yield
    finally:
        _native.set_rng_state(outer)


def _autocast_state():
    s = _autocast_mode()._state
    return {key: (s.enabled[key], s.dtype[key]) for key in ("cpu", "gpu")}, s.cache_enabled


@contextlib.contextmanager
def _autocast_as(state):
    """Autocast on each device as it was at the forward, whatever it is now."""
    devices, cache = state
    with contextlib.ExitStack() as stack:
        for key, (enabled, dtype) in devices.items():
            stack.enter_context(_autocast_mode().autocast(key, dtype=dtype, enabled=enabled, cache_enabled=cache))
        yield


# ---- nested structures ----------------------------------------------------------------------


def _map_tensors(obj, fn):
    """``obj`` with each tensor inside tuples, lists and dicts replaced by ``fn(tensor)``."""
    if isinstance(obj, _native.Tensor):
        return fn(obj)
    if isinstance(obj, tuple):
        items = [_map_tensors(x, fn) for x in obj]
        return type(obj)(*items) if hasattr(obj, "_fields") else type(obj)(items)
    if isinstance(obj, list):
        return [_map_tensors(x, fn) for x in obj]
    if isinstance(obj, dict):
        return type(obj)((k, _map_tensors(v, fn)) for k, v in obj.items())
    return obj


def _tensors(obj):
    found = []
    _map_tensors(obj, found.append)
    return found


# ---- one recomputing node for several outputs -----------------------------------------------


def _attach(outputs, inputs, names, shared_name, backward):
    """Give each tensor of ``outputs`` (detached values) a node over ``inputs`` whose gradient
    is ``backward(grads)`` (``grads``: one per output, None where none arrived), called once
    per backward pass with every output's gradient.

    One output: one node. Several: output j's node (named ``names[j]``) stores its gradient
    and passes a zero to a shared 0-dim tensor, whose node (``shared_name``) the engine runs
    after all of them (it depends on each), calling ``backward`` once.
    """
    if len(outputs) == 1:
        _native._attach_node(outputs[0], inputs, names[0], lambda g: backward([g]))
        return
    pending = [None] * len(outputs)

    def shared_backward(_):
        grads = list(pending)
        pending[:] = [None] * len(outputs)
        return backward(grads)

    hub = _native.zeros(())
    _native._attach_node(hub, inputs, shared_name, shared_backward)
    for j, (out, name) in enumerate(zip(outputs, names)):
        def store(g, j=j):
            pending[j] = g if pending[j] is None else pending[j] + g
            return [_native.zeros(())]

        _native._attach_node(out, [hub], name, store)


def _differentiable(t):
    return isinstance(t, _native.Tensor) and (t.is_floating_point() or t.is_complex())


# ---- use_reentrant=True ---------------------------------------------------------------------

# The non-reentrant variant computes its region's gradients with its own `autograd.grad`
# pass, where PyTorch's only recomputes tensors inside the outer pass: a reentrant checkpoint
# reached from that pass is judged by the pass around it, kept here per thread.
_outside_own_grad = threading.local()


def _checkpoint_valid():
    """PyTorch's `_is_checkpoint_valid`: False inside `autograd.grad` or
    `backward(inputs=...)`."""
    stack = getattr(_outside_own_grad, "valid", None)
    if stack:
        return stack[-1]
    return _native._is_checkpoint_valid()


class CheckpointFunction:
    """PyTorch's reentrant checkpoint (`CheckpointFunction.apply(run_function,
    preserve_rng_state, *args)`), its node named `CheckpointFunctionBackward`."""

    @staticmethod
    def apply(run_function, preserve_rng_state, *args):
        """Runs the reentrant checkpoint: `run_function(*args)` without recording a graph,
        recomputed with one in backward.

        Args:
            run_function: the function to checkpoint.
            preserve_rng_state: restore the random state for the recomputation.
            *args: its arguments.
        """
        check_backward_validity(args)
        rng_state = _get_rng_state() if preserve_rng_state else None
        autocast_state = _autocast_state()
        with no_grad():
            outputs = run_function(*args)
        tensor_args = [a for a in args if isinstance(a, _native.Tensor)]
        if not (_native.is_grad_enabled() and any(a.requires_grad for a in tensor_args)):
            return outputs
        single = isinstance(outputs, _native.Tensor)
        if not single and not isinstance(outputs, tuple):
            return outputs  # an autograd.Function's non-tensor output carries no graph
        outs = (outputs,) if single else outputs
        # An output that is an input returns as a new tensor with the node, as a Function's.
        results = [o.detach() if _differentiable(o) else o for o in outs]
        attached = [i for i, o in enumerate(results) if _differentiable(o)]
        if not attached:
            return outputs

        def backward(grads):
            # The inner backward below accumulates into .grad, which a pass with targets
            # (autograd.grad, backward(inputs=...)) would not see.
            if not _checkpoint_valid():
                raise RuntimeError(
                    "When use_reentrant=True, gradrs.utils.checkpoint is incompatible"
                    " with .grad() or passing an `inputs` parameter to .backward()."
                    " To resolve this error, you can either set use_reentrant=False,"
                    " or call .backward() without passing the `inputs` argument.")
            detached = detach_variable(tuple(args))
            with _forward_rng(rng_state), enable_grad(), _autocast_as(autocast_state):
                recomputed = run_function(*detached)
            if isinstance(recomputed, _native.Tensor):
                recomputed = (recomputed,)
            outputs_with_grad, args_with_grad = [], []
            for k, i in enumerate(attached):
                o = recomputed[i]
                if isinstance(o, _native.Tensor) and o.requires_grad:
                    outputs_with_grad.append(o)
                    # A Function's backward sees zeros for outputs no gradient reached.
                    args_with_grad.append(grads[k] if grads[k] is not None else _native.zeros_like(o))
            if not outputs_with_grad:
                raise RuntimeError("none of output has requires_grad=True, this checkpoint() is not necessary")
            _autograd().backward(outputs_with_grad, args_with_grad)
            return [inp.grad for inp in detached if isinstance(inp, _native.Tensor)]

        n = len(attached)
        _attach([results[i] for i in attached], tensor_args, ["CheckpointFunctionBackward"] * n,
                "CheckpointFunctionBackward", backward)
        return results[0] if single else tuple(results)


# ---- use_reentrant=False --------------------------------------------------------------------


def _default_meta_extractor(x):
    return {"shape": x.shape, "dtype": x.dtype, "device": x.device}


_allowed_determinism_checks_to_fns = {
    _DEFAULT_DETERMINISM_MODE: _default_meta_extractor,
    "none": lambda _: None,
}

_debug_tip_msg = """
Tip: To see a more detailed error message, either pass `debug=True` to
`gradrs.utils.checkpoint.checkpoint(...)` or wrap the code block
with `with gradrs.utils.checkpoint.set_checkpoint_debug_enabled(True):` to
enable checkpoint‑debug mode globally.
"""


def _leaves_reached(outputs, own):
    """Leaves requiring grad that the graphs of ``outputs`` reach (``AccumulateGrad.variable``),
    other than the tensors in ``own`` (ids); iterative, each node once."""
    found, seen_leaves = [], set(own)
    stack = [o.grad_fn for o in outputs if o.grad_fn is not None]
    seen = set()
    while stack:
        fn = stack.pop()
        if fn in seen:
            continue
        seen.add(fn)
        variable = getattr(fn, "variable", None)
        if isinstance(variable, _native.Tensor):
            if id(variable) not in seen_leaves:
                seen_leaves.add(id(variable))
                found.append(variable)
            continue
        stack.extend(child for child, _ in fn.next_functions if child is not None)
    return found


def _checkpoint_without_reentrant(function, preserve, context_fn, determinism_check, debug, args, kwargs):
    if _checkpoint_debug_enabled if _checkpoint_debug_enabled is not None else debug:
        # PyTorch's debug mode logs the operators each run dispatched; gradrs has no operator
        # log, so only this check of PyTorch's debug path applies.
        if context_fn is not noop_context_fn:
            raise ValueError("debug=True is incompatible with non-default context_fn")
    if determinism_check not in _allowed_determinism_checks_to_fns:
        raise ValueError(
            f"determinism_check should be one of {list(_allowed_determinism_checks_to_fns.keys())}, "
            f"but got {determinism_check}"
        )
    metadata_fn = _allowed_determinism_checks_to_fns[determinism_check]
    forward_context, recompute_context = context_fn()
    autocast_state = _autocast_state()
    rng_state = _get_rng_state() if preserve else None
    if not _native.is_grad_enabled():
        return function(*args, **kwargs)

    # Run once on detached copies of the tensor arguments, to learn what the outputs are and
    # which tensors they are differentiable with respect to.
    copies = {}

    def detach(t):
        if id(t) not in copies:
            copies[id(t)] = (t, t.detach().requires_grad_(t.requires_grad))
        return copies[id(t)][1]

    fargs, fkwargs = _map_tensors((args, kwargs), detach)
    suppressed = True
    with forward_context:
        ret = function(*fargs, **fkwargs)
        suppressed = False
    if suppressed:
        raise RuntimeError(
            "gradrs.utils.checkpoint: the forward context provided by "
            "context_fn suppressed an exception raised during the "
            "checkpointed forward. This is not supported because checkpoint "
            "cannot return a value for a failed forward."
        )
    back = {id(copy): orig for orig, copy in copies.values()}
    outputs = _tensors(ret)
    grad_outputs = [o for o in outputs if o.requires_grad and o.grad_fn is not None and id(o) not in back]
    own = {id(copy) for _, copy in copies.values()}
    arg_inputs = [orig for orig, copy in copies.values() if copy.requires_grad]
    captured = _leaves_reached(grad_outputs, own)
    node_inputs = arg_inputs + captured
    if not grad_outputs:
        return _map_tensors(ret, lambda t: back.get(id(t), t))
    names = [o.grad_fn.name() for o in grad_outputs]
    metadata = [metadata_fn(o) for o in grad_outputs]
    positions = {id(o): k for k, o in enumerate(grad_outputs)}
    results = {id(o): o.detach() for o in grad_outputs}
    n_outputs = len(grad_outputs)
    del grad_outputs, outputs  # the forward's graph goes with them

    def backward(grads):
        # Under create_graph the rerun uses the inputs themselves, so the gradients it gives
        # are differentiable with respect to them; otherwise detached copies keep the inner
        # backward from walking into the inputs' history.
        create = _native.is_grad_enabled()
        with _forward_rng(rng_state), enable_grad(), _autocast_as(autocast_state), recompute_context:
            rerun_copies = {}

            def redetach(t):
                if id(t) not in rerun_copies:
                    rerun_copies[id(t)] = t if create else t.detach().requires_grad_(t.requires_grad)
                return rerun_copies[id(t)]

            rargs, rkwargs = _map_tensors((args, kwargs), redetach)
            rerun = function(*rargs, **rkwargs)
        own_rerun = {id(c) for c in rerun_copies.values()}
        rerun_outputs = [o for o in _tensors(rerun)
                         if o.requires_grad and o.grad_fn is not None and id(o) not in own_rerun]
        if len(rerun_outputs) != n_outputs:
            raise CheckpointError(
                "gradrs.utils.checkpoint: A different number of tensors was saved "
                "during the original forward and recomputation.\n"
                f"Number of tensors saved during forward: {n_outputs}\n"
                f"Number of tensors saved during recomputation: {len(rerun_outputs)}.\n"
                f"{_debug_tip_msg}"
            )
        different = ""
        for k, (o, meta) in enumerate(zip(rerun_outputs, metadata)):
            if metadata_fn(o) != meta:
                different += (f"tensor at position {k}:\nsaved metadata: {meta}\n"
                              f"recomputed metadata: {metadata_fn(o)}\n")
        if different:
            raise CheckpointError(
                "gradrs.utils.checkpoint: Recomputed values for the following tensors "
                "have different metadata than during the forward pass.\n"
                f"{different}.\n{_debug_tip_msg}"
            )
        wrt = [rerun_copies[id(t)] for t in arg_inputs] + captured
        pairs = [(o, g) for o, g in zip(rerun_outputs, grads) if g is not None]
        if not pairs:
            return [None] * len(wrt)
        # The graph is kept: a captured non-leaf tensor's own history (outside the region)
        # is walked here and again by the outer backward.
        stack = _outside_own_grad.__dict__.setdefault("valid", [])
        stack.append(_checkpoint_valid())
        try:
            return _autograd().grad([o for o, _ in pairs], wrt, [g for _, g in pairs],
                                    retain_graph=True, create_graph=create, allow_unused=True)
        finally:
            stack.pop()

    ordered = sorted(results.items(), key=lambda kv: positions[kv[0]])
    _attach([r for _, r in ordered], node_inputs, names, "CheckpointBackward", backward)
    return _map_tensors(ret, lambda t: results.get(id(t), back.get(id(t), t)))


# ---- the public functions -------------------------------------------------------------------


def checkpoint(function, *args, use_reentrant=None, context_fn=noop_context_fn,
               determinism_check=_DEFAULT_DETERMINISM_MODE, debug=False, early_stop=True, **kwargs):
    """``function(*args, **kwargs)`` without keeping its intermediate activations: they are
    recomputed when backward needs them (see the module docstring for the two variants).

    Examples:
        >>> layer = gradrs.nn.Linear(4, 4)
        >>> x = gradrs.randn(2, 4, requires_grad=True)
        >>> y = gradrs.utils.checkpoint.checkpoint(layer, x, use_reentrant=False)
        >>> y.sum().backward()
        >>> x.grad.shape
        gradrs.Size([2, 4])
    """
    if use_reentrant is None:
        warnings.warn(
            "gradrs.utils.checkpoint: the use_reentrant parameter should be "
            "passed explicitly. Starting in PyTorch 2.9, calling checkpoint "
            "without use_reentrant will raise an exception. use_reentrant=False is "
            "recommended, but if you need to preserve the current default "
            "behavior, you can pass use_reentrant=True. Refer to docs for more "
            "details on the differences between the two variants.",
            stacklevel=2,
        )
        use_reentrant = True
    preserve = kwargs.pop("preserve_rng_state", True)
    if kwargs and use_reentrant:
        raise ValueError("Unexpected keyword arguments: " + ",".join(arg for arg in kwargs))
    if use_reentrant:
        if context_fn is not noop_context_fn or debug is not False:
            raise ValueError("Passing `context_fn` or `debug` is only supported when use_reentrant=False.")
        return CheckpointFunction.apply(function, preserve, *args)
    return _checkpoint_without_reentrant(function, preserve, context_fn, determinism_check, debug, args, kwargs)


def checkpoint_sequential(functions, segments, input, use_reentrant=None, **kwargs):
    """Run ``functions`` (an `nn.Sequential` or a list of callables) in ``segments`` chunks,
    checkpointing every chunk but the last."""
    if use_reentrant is None:
        warnings.warn(
            "gradrs.utils.checkpoint.checkpoint_sequential: the use_reentrant "
            "parameter should be passed explicitly. "
            "In version 2.9 we will raise an exception if use_reentrant "
            "is not passed. use_reentrant=False is "
            "recommended, but if you need to preserve the current default "
            "behavior, you can pass use_reentrant=True. Refer to docs for more "
            "details on the differences between the two variants.",
            stacklevel=2,
        )
        use_reentrant = True
    preserve = kwargs.pop("preserve_rng_state", True)
    if kwargs:
        raise ValueError("Unexpected keyword arguments: " + ",".join(arg for arg in kwargs))

    def run_function(start, end, functions):
        def forward(input):
            for j in range(start, end + 1):
                input = functions[j](input)
            return input

        return forward

    from ..nn import Sequential

    if isinstance(functions, Sequential):
        functions = list(functions.children())
    segment_size = len(functions) // segments
    end = -1
    for start in range(0, segment_size * (segments - 1), segment_size):
        end = start + segment_size - 1
        input = checkpoint(run_function(start, end, functions), input, use_reentrant=use_reentrant,
                           preserve_rng_state=preserve)
    return run_function(end + 1, len(functions) - 1, functions)(input)
