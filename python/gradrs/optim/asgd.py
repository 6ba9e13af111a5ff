"""ASGD: averaged stochastic gradient descent (the average kept in `ax`)."""

from __future__ import annotations

from .. import maximum, ones, ones_like, tensor, zeros, zeros_like
from .._grad_mode import enable_grad
from .optimizer import (
    Optimizer,
    Tensor,
    _check_capturable,
    _get_scalar_dtype,
    _get_value,
    _to_scalar,
    _use_grad_for_differentiable,
)

__all__ = ["ASGD", "asgd"]


class ASGD(Optimizer):
    """Averaged SGD, as ``torch.optim.ASGD``.

    Examples:
        >>> w = gradrs.nn.Parameter(gradrs.tensor([1.0, -2.0]))
        >>> opt = gradrs.optim.ASGD([w], lr=0.1)
        >>> (w ** 2).sum().backward()
        >>> opt.step()
        >>> w.detach()
        tensor([ 0.8000, -1.6000])
    """

    def __init__(
        self,
        params,
        lr=1e-2,
        lambd=1e-4,
        alpha=0.75,
        t0=1e6,
        weight_decay=0,
        foreach=None,
        maximize=False,
        differentiable=False,
        capturable=False,
    ) -> None:
        if isinstance(lr, Tensor) and lr.numel() != 1:
            raise ValueError("Tensor lr must be 1-element")
        if not 0.0 <= lr:
            raise ValueError(f"Invalid learning rate: {lr}")
        if not 0.0 <= weight_decay:
            raise ValueError(f"Invalid weight_decay value: {weight_decay}")

        defaults = {
            "lr": lr,
            "lambd": lambd,
            "alpha": alpha,
            "t0": t0,
            "weight_decay": weight_decay,
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
                if len(p_state) != 0:
                    for key in ("step", "eta", "mu"):
                        if not isinstance(p_state[key], Tensor):
                            p_state[key] = tensor(
                                float(p_state[key]), dtype=_get_scalar_dtype(), device=p.device
                            )

    def _init_group(self, group, params_with_grad, grads, mus, axs, etas, state_steps):
        for p in group["params"]:
            if p.grad is None:
                continue
            params_with_grad.append(p)
            grads.append(p.grad)
            state = self.state[p]
            if len(state) == 0:
                # ASGD keeps its scalars on the parameter's device even when not capturable.
                lr = _get_value(_to_scalar(group["lr"]))
                state["step"] = zeros((), device=p.device, dtype=_get_scalar_dtype())
                state["eta"] = tensor(lr, device=p.device, dtype=_get_scalar_dtype())
                state["mu"] = ones((), device=p.device, dtype=_get_scalar_dtype())
                state["ax"] = zeros_like(p)
            mus.append(state["mu"])
            axs.append(state["ax"])
            etas.append(state["eta"])
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
            mus = []
            axs = []
            etas = []
            state_steps = []
            self._init_group(group, params_with_grad, grads, mus, axs, etas, state_steps)
            asgd(
                params_with_grad,
                grads,
                axs,
                mus,
                etas,
                state_steps,
                lambd=group["lambd"],
                lr=group["lr"],
                t0=group["t0"],
                alpha=group["alpha"],
                weight_decay=group["weight_decay"],
                maximize=group["maximize"],
                differentiable=group["differentiable"],
                capturable=group["capturable"],
            )

        return loss


def asgd(
    params,
    grads,
    axs,
    mus,
    etas,
    state_steps,
    foreach=None,
    maximize=False,
    differentiable=False,
    capturable=False,
    has_complex=False,
    *,
    lambd,
    lr,
    t0,
    alpha,
    weight_decay,
) -> None:
    """The ASGD update, one parameter at a time (PyTorch's single-tensor code path)."""
    lr = _to_scalar(lr)

    for i, param in enumerate(params):
        grad = grads[i]
        grad = grad if not maximize else -grad
        mu = mus[i]
        ax = axs[i]
        eta = etas[i]
        step_t = state_steps[i]
        if capturable:
            _check_capturable(
                param, mu, eta, step_t, what="params, mus, etas, and state_steps"
            )
        step_t += 1

        if weight_decay != 0:
            grad = grad.add(param, alpha=weight_decay)

        if capturable:
            param.mul_(1 - lambd * eta)
            param.addcmul_(grad, eta, value=-1)
        else:
            eta_value = _get_value(eta)
            param.mul_(1 - lambd * eta_value)  # decay term
            param.add_(grad, alpha=-eta_value)

        # Average the iterates once averaging has started (mu < 1).
        if capturable or mu.item() != 1:
            ax.add_(param.sub(ax).mul_(mu))
        else:
            ax.copy_(param)

        if capturable:
            eta.copy_(lr / ((1 + lambd * lr * step_t) ** alpha))
            mu.copy_(1 / maximum(step_t - t0, ones_like(step_t)))
        else:
            step = _get_value(step_t)
            eta.copy_(tensor(lr / ((1 + lambd * lr * step) ** alpha)))
            mu.copy_(tensor(1 / max(1, step - t0)))
