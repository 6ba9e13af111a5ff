"""Control flow PyTorch exposes as operators: `cond` (`torch/_higher_order_ops/cond.py`), run
eagerly: PyTorch compiles a tensor predicate's branches with dynamo, gradrs runs the chosen
branch, with PyTorch's argument checks and its autograd node (CondAutogradOpBackward).
"""

from .._native import Tensor
from ._common import _G

__all__ = ["cond"]


def _leaves(tree):
    """The leaves of a nested dict / list / tuple (PyTorch's pytree over operands)."""
    if isinstance(tree, dict):
        return [leaf for v in tree.values() for leaf in _leaves(v)]
    if isinstance(tree, (list, tuple)):
        return [leaf for v in tree for leaf in _leaves(v)]
    return [tree]


def _cond_function():
    """`CondAutogradOp`, the autograd.Function PyTorch's cond records (built on first use:
    `gradrs.autograd` loads after `_ops`)."""
    global _COND_OP
    if _COND_OP is not None:
        return _COND_OP
    from ..autograd.function import Function

    class CondAutogradOp(Function):
        """The chosen branch run without recording; its backward runs it again and
        differentiates that (PyTorch's branch joint graphs). As PyTorch's, the gradients it
        gives carry no history (no double backward through cond)."""

        @staticmethod
        def forward(ctx, fn, kind, *operands):
            ctx.fn = fn
            ctx.save_for_backward(*operands)
            out = fn(*operands)
            kind.append(type(out))
            return tuple(out) if isinstance(out, (tuple, list)) else out

        @staticmethod
        def backward(ctx, *grads):
            operands = ctx.saved_tensors
            wanted = [i for i, t in enumerate(operands) if t.requires_grad]
            with _G.enable_grad():
                outs = ctx.fn(*operands)
            outs = tuple(outs) if isinstance(outs, (tuple, list)) else (outs,)
            pairs = [(o, g) for o, g in zip(outs, grads)
                     if g is not None and isinstance(o, Tensor) and o.requires_grad]
            result = [None] * len(operands)
            if pairs and wanted:
                got = _G.autograd.grad([o for o, _ in pairs], [operands[i] for i in wanted],
                                       [g.detach() for _, g in pairs], allow_unused=True)
                for i, r in zip(wanted, got):
                    result[i] = None if r is None else r.detach()
            return (None, None, *result)

    _COND_OP = CondAutogradOp
    return _COND_OP


_COND_OP = None


def cond(pred, true_fn, false_fn, operands=()):
    """``true_fn(*operands)`` if `pred` else ``false_fn(*operands)``: PyTorch's control-flow
    operator, run eagerly. `pred` is a bool or a one-element tensor, `operands` a tuple or list
    of tensors (possibly nested in dicts, lists and tuples); with a tensor predicate the
    outputs' node is CondAutogradOpBackward (PyTorch's checks that both branches return
    tensors of the same metadata happen in its compiler and are not made here).

    Examples:
        >>> x = gradrs.tensor([1.0, 2.0])
        >>> gradrs.cond(x.sum() > 0, lambda t: t * 2, lambda t: t - 1, (x,))
        tensor([2., 4.])
    """
    if isinstance(pred, (bool, int, float)):
        return true_fn(*operands) if pred else false_fn(*operands)
    if not isinstance(pred, (bool, Tensor)):
        raise RuntimeError(f"Expected pred to be bool or tensor, but got {pred}.")
    if isinstance(pred, Tensor) and pred.numel() != 1:
        raise RuntimeError(f"Expected pred to be bool or single-element tensor, but got {pred}.")
    if not callable(true_fn) or not callable(false_fn):
        raise RuntimeError("Expect both branches to be callable.")
    if not isinstance(operands, (tuple, list)) or any(
            not isinstance(t, Tensor) for t in _leaves(operands)):
        raise RuntimeError("Expect operands to be a tuple of possibly nested dict/list/tuple "
                           f"that only consists of tensor leaves, but got {operands}.")
    branch = true_fn if bool(pred) else false_fn
    flat = all(isinstance(t, Tensor) for t in operands)
    if not (flat and _G.is_grad_enabled() and any(t.requires_grad for t in operands)):
        return branch(*operands)
    kind: list = []
    out = _cond_function().apply(branch, kind, *operands)
    return list(out) if kind and kind[0] is list else out
