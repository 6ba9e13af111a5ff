"""Adagrad: per-coordinate learning rates from accumulated squared gradients."""

from __future__ import annotations

from .. import full_like, tensor, zeros
from .._grad_mode import enable_grad
from .optimizer import (
    Optimizer,
    Tensor,
    _device_dtype_check_for_fused,
    _get_scalar_dtype,
    _get_value,
    _step_tensor,
    _to_scalar,
    _use_grad_for_differentiable,
)

__all__ = ["Adagrad", "adagrad"]


def _initial_step(p, fused):
    if fused:
        return zeros((), dtype=_get_scalar_dtype(is_fused=fused), device=p.device)
    return _step_tensor(0.0, p, False)


class Adagrad(Optimizer):
    """Adagrad, with learning-rate decay and an initial accumulator value.

    Examples:
        >>> w = gradrs.nn.Parameter(gradrs.tensor([1.0, -2.0]))
        >>> opt = gradrs.optim.Adagrad([w], lr=0.1)
        >>> (w ** 2).sum().backward()
        >>> opt.step()
        >>> w.detach()
        tensor([ 0.9000, -1.9000])
    """

    def __init__(
        self,
        params,
        lr=1e-2,
        lr_decay=0,
        weight_decay=0,
        initial_accumulator_value=0,
        eps=1e-10,
        foreach=None,
        *,
        maximize=False,
        differentiable=False,
        fused=None,
    ) -> None:
        if isinstance(lr, Tensor) and lr.numel() != 1:
            raise ValueError("Tensor lr must be 1-element")
        if not 0.0 <= lr:
            raise ValueError(f"Invalid learning rate: {lr}")
        if not 0.0 <= lr_decay:
            raise ValueError(f"Invalid lr_decay value: {lr_decay}")
        if not 0.0 <= weight_decay:
            raise ValueError(f"Invalid weight_decay value: {weight_decay}")
        if not 0.0 <= initial_accumulator_value:
            raise ValueError(
                f"Invalid initial_accumulator_value value: {initial_accumulator_value}"
            )
        if not 0.0 <= eps:
            raise ValueError(f"Invalid epsilon value: {eps}")

        defaults = {
            "lr": lr,
            "lr_decay": lr_decay,
            "eps": eps,
            "weight_decay": weight_decay,
            "initial_accumulator_value": initial_accumulator_value,
            "foreach": foreach,
            "maximize": maximize,
            "differentiable": differentiable,
            "fused": fused,
        }
        super().__init__(params, defaults)

        if fused:
            if differentiable:
                raise RuntimeError("`fused` does not support `differentiable`")
            if foreach:
                raise RuntimeError("`fused` and `foreach` cannot be `True` together.")
            self._need_device_dtype_check_for_fused = True

        # Unlike the other optimizers, Adagrad makes its state up front, for every parameter.
        for group in self.param_groups:
            for p in group["params"]:
                state = self.state[p]
                state["step"] = _initial_step(p, group["fused"])
                state["sum"] = full_like(p, initial_accumulator_value)

    def __setstate__(self, state) -> None:
        super().__setstate__(state)
        fused = None
        for group in self.param_groups:
            group.setdefault("foreach", None)
            group.setdefault("maximize", False)
            group.setdefault("differentiable", False)
            fused = group.setdefault("fused", None)
            for p in group["params"]:
                p_state = self.state.get(p, [])
                if len(p_state) != 0 and not isinstance(p_state["step"], Tensor):
                    p_state["step"] = _step_tensor(float(p_state["step"]), p, group["fused"], fused)

        state_values = list(self.state.values())
        step_is_tensor = (len(state_values) != 0) and isinstance(state_values[0]["step"], Tensor)
        if not step_is_tensor:
            for s in state_values:
                s["step"] = tensor(float(s["step"]), dtype=_get_scalar_dtype(is_fused=fused))

    def _init_group(self, group, params_with_grad, grads, state_sums, state_steps):
        for p in group["params"]:
            if p.grad is not None:
                if group["fused"] and getattr(self, "_need_device_dtype_check_for_fused", True):
                    _device_dtype_check_for_fused(p)
                    self._need_device_dtype_check_for_fused = False
                params_with_grad.append(p)
                grads.append(p.grad)
                state = self.state[p]
                if len(state) == 0:
                    if group["fused"]:
                        _device_dtype_check_for_fused(p)
                    state["step"] = _initial_step(p, group["fused"])
                    state["sum"] = full_like(p, self.defaults["initial_accumulator_value"])
                state_sums.append(state["sum"])
                state_steps.append(state["step"])

    @_use_grad_for_differentiable
    def step(self, closure=None):
        """Perform a single optimization step; `closure` re-evaluates the loss."""
        loss = None
        if closure is not None:
            with enable_grad():
                loss = closure()

        for group in self.param_groups:
            params_with_grad = []
            grads = []
            state_sums = []
            state_steps = []
            self._init_group(group, params_with_grad, grads, state_sums, state_steps)
            adagrad(
                params_with_grad,
                grads,
                state_sums,
                state_steps,
                lr=group["lr"],
                weight_decay=group["weight_decay"],
                lr_decay=group["lr_decay"],
                eps=group["eps"],
                maximize=group["maximize"],
                differentiable=group["differentiable"],
            )

        return loss


def adagrad(
    params,
    grads,
    state_sums,
    state_steps,
    fused=None,
    grad_scale=None,
    found_inf=None,
    has_sparse_grad=False,
    foreach=None,
    differentiable=False,
    has_complex=False,
    *,
    lr,
    weight_decay,
    lr_decay,
    eps,
    maximize,
) -> None:
    """The Adagrad update, one parameter at a time (PyTorch's single-tensor code path)."""
    if not all(isinstance(t, Tensor) for t in state_steps):
        raise RuntimeError(
            "API has changed, `state_steps` argument must contain a list of singleton tensors"
        )
    if grad_scale is not None or found_inf is not None:
        raise AssertionError("Expected grad_scale and found_inf to be None")
    lr = _to_scalar(lr)

    for param, grad, state_sum, step_t in zip(params, grads, state_sums, state_steps):
        step_t += 1
        step = _get_value(step_t)
        grad = grad if not maximize else -grad

        if weight_decay != 0:
            grad = grad.add(param, alpha=weight_decay)

        clr = lr / (1 + (step - 1) * lr_decay)

        state_sum.addcmul_(grad, grad, value=1)
        if differentiable:
            std = state_sum.sqrt() + eps
        else:
            std = state_sum.sqrt().add_(eps)
        param.addcdiv_(grad, std, value=_get_value(-clr))
