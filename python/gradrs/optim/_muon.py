"""Muon: momentum followed by Newton-Schulz orthogonalization of 2-D updates (torch.optim.Muon)."""

from __future__ import annotations

import math

from .. import addmm, copysign, exp2, floor, isfinite, log2, where, zeros_like
from .._grad_mode import enable_grad, no_grad
from .optimizer import Optimizer, Tensor, _get_value, _to_scalar

__all__ = ["Muon"]

# PyTorch's constants (from Keller Jordan's Muon post).
EPS = 1e-7
DEFAULT_A = 3.4445
DEFAULT_B = -4.7750
DEFAULT_C = 2.0315
DEFAULT_NS_STEPS = 5

# 1.5 * 2**16: adding it to a number in [1, 2) leaves 7 fraction bits, a bfloat16's mantissa.
_BF16_SHIFTER = 98304.0


def _round_bfloat16(x):
    """``x.bfloat16()``'s values, held in float32: round-to-nearest-even to bfloat16's 8
    significant bits (gradrs has no bfloat16 dtype; PyTorch runs the Newton-Schulz iteration in
    bfloat16, and every bfloat16 op it does is an op in float32 rounded this way, which is
    what the iteration below does). Exponent range, subnormals, overflow to inf and NaN are
    float32's, which bfloat16 shares. Stays on the tensor's device."""
    x = x.float()
    a = x.abs()
    e = floor(log2(a)).clamp(min=-126.0, max=127.0)  # log2 may round across a power of two
    m = a * exp2(-e)
    e = where(m >= 2.0, e + 1.0, where((m < 1.0) & (e > -126.0), e - 1.0, e))
    m = a * exp2(-e)  # in [1, 2) (in [0, 1) below float32's normal range)
    r = ((m + _BF16_SHIFTER) - _BF16_SHIFTER) * exp2(e)
    return where(isfinite(x), copysign(r, x), x)


def _zeropower_via_newtonschulz(grad, ns_coefficients, ns_steps, eps):
    """PyTorch's quintic Newton-Schulz iteration towards the orthogonal factor of ``grad``,
    in bfloat16 arithmetic (see `_round_bfloat16`); returns float32 tensors of bfloat16
    values."""
    if ns_steps >= 100:
        raise ValueError("Number of steps must be less than 100 for computational efficiency")
    if len(grad.shape) != 2:
        raise ValueError("Input tensor gradient must be a 2D matrix")
    if len(ns_coefficients) != 3:
        raise ValueError("Coefficients must be a tuple of exactly 3 values")
    a, b, c = ns_coefficients
    ortho_grad = _round_bfloat16(grad)
    if grad.size(0) > grad.size(1):
        ortho_grad = ortho_grad.T
    # Ensure spectral norm is at most 1
    norm = _round_bfloat16(_round_bfloat16(ortho_grad.norm()).clamp(min=eps))
    ortho_grad = _round_bfloat16(ortho_grad / norm)
    for _ in range(ns_steps):
        gram_matrix = _round_bfloat16(ortho_grad @ ortho_grad.T)
        gram_update = _round_bfloat16(addmm(gram_matrix, gram_matrix, gram_matrix, beta=b,
                                            alpha=c))
        ortho_grad = _round_bfloat16(addmm(ortho_grad, gram_update, ortho_grad, beta=a))
    if grad.size(0) > grad.size(1):
        ortho_grad = ortho_grad.T
    return ortho_grad


def _adjust_lr(lr, adjust_lr_fn, param_shape):
    """Muon's learning-rate scaling by the matrix's shape."""
    A, B = param_shape[:2]
    if adjust_lr_fn is None or adjust_lr_fn == "original":
        adjusted_ratio = math.sqrt(max(1, A / B))
    elif adjust_lr_fn == "match_rms_adamw":
        adjusted_ratio = 0.2 * math.sqrt(max(A, B))
    else:
        adjusted_ratio = 1.0
    return lr * adjusted_ratio


class Muon(Optimizer):
    """Muon, as ``torch.optim.Muon``: for 2-D parameters only (use AdamW for the rest)."""

    def __init__(
        self,
        params,
        lr=1e-3,
        weight_decay=0.1,
        momentum=0.95,
        nesterov=True,
        ns_coefficients=(DEFAULT_A, DEFAULT_B, DEFAULT_C),
        eps=EPS,
        ns_steps=DEFAULT_NS_STEPS,
        adjust_lr_fn=None,
    ) -> None:
        if isinstance(lr, Tensor) and lr.numel() != 1:
            raise ValueError("Tensor lr must be 1-element")
        if not 0.0 <= lr:
            raise ValueError(f"Learning rate should be >= 0 but is: {lr}")
        if not 0.0 <= momentum:
            raise ValueError(f"momentum should be >= 0 but is: {momentum}")
        if not 0.0 <= weight_decay:
            raise ValueError(f"weight decay should be >= 0 but is: {weight_decay}")
        if adjust_lr_fn is not None and adjust_lr_fn not in ["original", "match_rms_adamw"]:
            raise ValueError(f"Adjust learning rate function {adjust_lr_fn} is not supported")

        defaults = {
            "lr": lr,
            "weight_decay": weight_decay,
            "momentum": momentum,
            "nesterov": nesterov,
            "ns_coefficients": ns_coefficients,
            "eps": eps,
            "ns_steps": ns_steps,
            "adjust_lr_fn": adjust_lr_fn,
        }
        super().__init__(params, defaults)

        for group in self.param_groups:
            for p in group["params"]:
                if p.ndim != 2:
                    raise ValueError("Muon only supports 2D parameters whereas we found a "
                                     f"parameter with size: {p.size()}")

    def _init_group(self, group, params_with_grad, grads, muon_momentum_bufs):
        for p in group["params"]:
            if p.grad is None:
                continue
            params_with_grad.append(p)
            grads.append(p.grad)
            state = self.state[p]
            if "momentum_buffer" not in state:
                state["momentum_buffer"] = zeros_like(p.grad)
            muon_momentum_bufs.append(state["momentum_buffer"])
        return False  # has_complex

    @no_grad()
    def step(self, closure=None):
        """Perform a single optimization step; `closure` re-evaluates the loss."""
        loss = None
        if closure is not None:
            with enable_grad():
                loss = closure()

        for group in self.param_groups:
            params_with_grad = []
            grads = []
            muon_momentum_bufs = []
            has_complex = self._init_group(group, params_with_grad, grads, muon_momentum_bufs)
            muon(
                params_with_grad,
                grads,
                muon_momentum_bufs,
                lr=group["lr"],
                weight_decay=group["weight_decay"],
                momentum=group["momentum"],
                nesterov=group["nesterov"],
                ns_coefficients=group["ns_coefficients"],
                eps=group["eps"],
                ns_steps=group["ns_steps"],
                adjust_lr_fn=group["adjust_lr_fn"],
                has_complex=has_complex,
            )
        return loss


def muon(params, grads, muon_momentum_bufs, *, foreach=None, lr, weight_decay, momentum,
         nesterov, ns_coefficients, ns_steps, eps, adjust_lr_fn, has_complex):
    """The Muon update, PyTorch's single-tensor code path (it has no foreach path)."""
    if foreach is not None and foreach:
        raise RuntimeError("Foreach is not supported for Muon yet")
    lr = _to_scalar(lr)
    if has_complex:
        raise ValueError("Complex parameters are not supported")
    for i, param in enumerate(params):
        grad = grads[i]
        if grad.ndim != 2:
            raise ValueError("Param gradient must be a 2D matrix")
        buf = muon_momentum_bufs[i]
        buf.lerp_(grad, 1 - momentum)
        update = grad.lerp(buf, momentum) if nesterov else buf
        update = _zeropower_via_newtonschulz(update, ns_coefficients, ns_steps, eps)
        adjusted_lr = _adjust_lr(lr, adjust_lr_fn, param.shape)
        param.mul_(_get_value(1 - lr * weight_decay))
        param.add_(update.to(param.dtype), alpha=_get_value(-adjusted_lr))
