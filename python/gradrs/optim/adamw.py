"""AdamW: Adam with decoupled weight decay, as ``torch.optim.AdamW``."""

from __future__ import annotations

from .adam import Adam, adam
from .optimizer import ParamsT, Tensor

__all__ = ["AdamW", "adamw"]


class AdamW(Adam):
    """Adam whose weight decay shrinks the parameters directly (decoupled from the gradient).

    Examples:
        >>> w = gradrs.nn.Parameter(gradrs.tensor([1.0, -2.0]))
        >>> opt = gradrs.optim.AdamW([w], lr=0.1, weight_decay=0.01)
        >>> (w ** 2).sum().backward()
        >>> opt.step()
        >>> w
        Parameter containing:
        tensor([ 0.8990, -1.8980], requires_grad=True)
    """

    def __init__(
        self,
        params: ParamsT,
        lr: float | Tensor = 1e-3,
        betas: tuple[float | Tensor, float | Tensor] = (0.9, 0.999),
        eps: float = 1e-8,
        weight_decay: float = 1e-2,
        amsgrad: bool = False,
        *,
        maximize=False,
        foreach=None,
        capturable=False,
        differentiable=False,
        fused=None,
    ) -> None:
        super().__init__(
            params,
            lr,
            betas,
            eps,
            weight_decay,
            amsgrad,
            foreach=foreach,
            maximize=maximize,
            capturable=capturable,
            differentiable=differentiable,
            fused=fused,
            decoupled_weight_decay=True,
        )

    def __setstate__(self, state) -> None:
        super().__setstate__(state)
        for group in self.param_groups:
            group["decoupled_weight_decay"] = True


def adamw(
    params,
    grads,
    exp_avgs,
    exp_avg_sqs,
    max_exp_avg_sqs,
    state_steps,
    foreach=None,
    capturable=False,
    differentiable=False,
    fused=None,
    grad_scale=None,
    found_inf=None,
    has_complex=False,
    *,
    amsgrad,
    beta1,
    beta2,
    lr,
    weight_decay,
    eps,
    maximize,
) -> None:
    """The AdamW update: :func:`adam` with decoupled weight decay."""
    adam(
        params,
        grads,
        exp_avgs,
        exp_avg_sqs,
        max_exp_avg_sqs,
        state_steps,
        foreach=foreach,
        capturable=capturable,
        differentiable=differentiable,
        fused=fused,
        grad_scale=grad_scale,
        found_inf=found_inf,
        has_complex=has_complex,
        amsgrad=amsgrad,
        beta1=beta1,
        beta2=beta2,
        lr=lr,
        weight_decay=weight_decay,
        eps=eps,
        maximize=maximize,
        decoupled_weight_decay=True,
    )
