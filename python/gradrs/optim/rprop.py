"""Rprop: resilient backpropagation, per-element step sizes driven by gradient signs."""

from __future__ import annotations

from .. import full_like, where, zeros_like
from .._grad_mode import enable_grad
from .optimizer import (
    Optimizer,
    Tensor,
    _check_capturable,
    _get_value,
    _step_tensor,
    _to_scalar,
    _use_grad_for_differentiable,
)

__all__ = ["Rprop", "rprop"]


class Rprop(Optimizer):
    """Rprop, as ``torch.optim.Rprop``.

    Examples:
        >>> w = gradrs.nn.Parameter(gradrs.tensor([1.0, -2.0]))
        >>> opt = gradrs.optim.Rprop([w], lr=0.1)
        >>> (w ** 2).sum().backward()
        >>> opt.step()
        >>> w.detach()
        tensor([ 0.9000, -1.9000])
    """

    def __init__(
        self,
        params,
        lr=1e-2,
        etas=(0.5, 1.2),
        step_sizes=(1e-6, 50),
        *,
        capturable=False,
        foreach=None,
        maximize=False,
        differentiable=False,
    ) -> None:
        if isinstance(lr, Tensor) and lr.numel() != 1:
            raise ValueError("Tensor lr must be 1-element")
        if not 0.0 <= lr:
            raise ValueError(f"Invalid learning rate: {lr}")
        if not 0.0 < etas[0] < 1.0 < etas[1]:
            raise ValueError(f"Invalid eta values: {etas[0]}, {etas[1]}")

        defaults = {
            "lr": lr,
            "etas": etas,
            "step_sizes": step_sizes,
            "foreach": foreach,
            "maximize": maximize,
            "differentiable": differentiable,
            "capturable": capturable,
        }
        super().__init__(params, defaults)

    def __setstate__(self, state) -> None:
        super().__setstate__(state)
        for group in self.param_groups:
            group.setdefault("foreach", None)
            group.setdefault("maximize", False)
            group.setdefault("differentiable", False)
            group.setdefault("capturable", False)
            for p in group["params"]:
                p_state = self.state.get(p, [])
                if len(p_state) != 0 and not isinstance(p_state["step"], Tensor):
                    p_state["step"] = _step_tensor(float(p_state["step"]), p, group["capturable"])

    def _init_group(self, group, params, grads, prevs, step_sizes, state_steps):
        for p in group["params"]:
            if p.grad is None:
                continue
            params.append(p)
            grads.append(p.grad)
            state = self.state[p]
            if len(state) == 0:
                state["step"] = _step_tensor(0.0, p, group["capturable"])
                state["prev"] = zeros_like(p)
                state["step_size"] = full_like(p.grad, _get_value(_to_scalar(group["lr"])))
            prevs.append(state["prev"])
            step_sizes.append(state["step_size"])
            state_steps.append(state["step"])

    @_use_grad_for_differentiable
    def step(self, closure=None):
        """Perform a single optimization step; `closure` re-evaluates the loss."""
        loss = None
        if closure is not None:
            with enable_grad():
                loss = closure()

        for group in self.param_groups:
            params = []
            grads = []
            prevs = []
            step_sizes = []
            state_steps = []
            etaminus, etaplus = group["etas"]
            step_size_min, step_size_max = group["step_sizes"]
            self._init_group(group, params, grads, prevs, step_sizes, state_steps)
            rprop(
                params,
                grads,
                prevs,
                step_sizes,
                state_steps,
                step_size_min=step_size_min,
                step_size_max=step_size_max,
                etaminus=etaminus,
                etaplus=etaplus,
                maximize=group["maximize"],
                differentiable=group["differentiable"],
                capturable=group["capturable"],
            )

        return loss


def rprop(
    params,
    grads,
    prevs,
    step_sizes,
    state_steps,
    foreach=None,
    capturable=False,
    maximize=False,
    differentiable=False,
    has_complex=False,
    *,
    step_size_min,
    step_size_max,
    etaminus,
    etaplus,
) -> None:
    """The Rprop update, one parameter at a time (PyTorch's single-tensor code path)."""
    if not all(isinstance(t, Tensor) for t in state_steps):
        raise RuntimeError(
            "API has changed, `state_steps` argument must contain a list of singleton tensors"
        )

    for i, param in enumerate(params):
        grad = grads[i]
        grad = grad if not maximize else -grad
        prev = prevs[i]
        step_size = step_sizes[i]
        step = state_steps[i]
        if capturable:
            _check_capturable(param, step)
        step += 1

        if differentiable:
            sign = grad.mul(prev.clone()).sign()
        else:
            sign = grad.mul(prev).sign()

        # PyTorch assigns through boolean masks (sign[mask] = value) without capturable and
        # through where with it: the same values.
        if capturable:
            sign.copy_(where(sign.gt(0), etaplus, sign))
            sign.copy_(where(sign.lt(0), etaminus, sign))
            sign.copy_(where(sign.eq(0), 1, sign))
        else:
            sign.masked_fill_(sign.gt(0), etaplus)
            sign.masked_fill_(sign.lt(0), etaminus)
            sign.masked_fill_(sign.eq(0), 1)

        # Update the step sizes with their factors, within [step_size_min, step_size_max].
        step_size.mul_(sign).clamp_(step_size_min, step_size_max)

        # Where the gradient changed sign (eta minus), skip this step and forget it.
        grad = grad.clone()
        if capturable:
            grad.copy_(where(sign.eq(etaminus), 0, grad))
        else:
            grad.masked_fill_(sign.eq(etaminus), 0)

        param.addcmul_(grad.sign(), step_size, value=-1)
        prev.copy_(grad)
