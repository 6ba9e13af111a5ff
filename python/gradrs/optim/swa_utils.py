"""Stochastic weight averaging (``torch.optim.swa_utils``): `AveragedModel`, `update_bn`,
the `SWALR` scheduler and the SWA / EMA averaging functions."""

from __future__ import annotations

import itertools
import math
import warnings
from copy import deepcopy

from .. import long, tensor
from .._grad_mode import no_grad
from ..nn import Module
from .lr_scheduler import LRScheduler, _format_param
from .optimizer import Tensor

__all__ = [
    "AveragedModel",
    "update_bn",
    "SWALR",
    "get_ema_multi_avg_fn",
    "get_swa_multi_avg_fn",
    "get_ema_avg_fn",
    "get_swa_avg_fn",
]


def _check_decay(decay) -> None:
    if decay < 0.0 or decay > 1.0:
        raise ValueError(
            f"Invalid decay value {decay} provided. Please provide a value in [0,1] range."
        )


def get_ema_multi_avg_fn(decay=0.999):
    """An exponential moving average over lists of tensors, updated in place."""
    _check_decay(decay)

    @no_grad()
    def ema_update(ema_param_list, current_param_list, _) -> None:
        if ema_param_list[0].is_floating_point():
            for p_ema, p_model in zip(ema_param_list, current_param_list):
                p_ema.lerp_(p_model, 1 - decay)
        else:
            for p_ema, p_model in zip(ema_param_list, current_param_list):
                p_ema.copy_(p_ema * decay + p_model * (1 - decay))

    return ema_update


def get_swa_multi_avg_fn():
    """The running mean over lists of tensors, updated in place."""

    @no_grad()
    def swa_update(averaged_param_list, current_param_list, num_averaged) -> None:
        if averaged_param_list[0].is_floating_point():
            weight = 1 / (num_averaged + 1)
            # PyTorch's foreach lerp reads a tensor weight as its number.
            weight = weight.item() if isinstance(weight, Tensor) else weight
            for p_avg, p_model in zip(averaged_param_list, current_param_list):
                p_avg.lerp_(p_model, weight)
        else:
            diffs = [c - a for c, a in zip(current_param_list, averaged_param_list)]
            for p_avg, diff in zip(averaged_param_list, diffs):
                if isinstance(num_averaged, Tensor):
                    p_avg.addcdiv_(diff, num_averaged + 1)
                else:
                    p_avg.add_(diff, alpha=1.0 / (num_averaged + 1))

    return swa_update


def get_ema_avg_fn(decay=0.999):
    """An exponential moving average of one tensor, returned.

    Examples:
        >>> avg = gradrs.optim.swa_utils.get_ema_avg_fn(0.9)
        >>> avg(gradrs.tensor(0.0), gradrs.tensor(1.0), 1)
        tensor(0.1000)
    """
    _check_decay(decay)

    @no_grad()
    def ema_update(ema_param, current_param, num_averaged):
        return decay * ema_param + (1 - decay) * current_param

    return ema_update


def get_swa_avg_fn():
    """The running mean of one tensor, returned.

    Examples:
        >>> avg = gradrs.optim.swa_utils.get_swa_avg_fn()
        >>> avg(gradrs.tensor(1.0), gradrs.tensor(3.0), gradrs.tensor(1))
        tensor(2.)
    """

    @no_grad()
    def swa_update(averaged_param, current_param, num_averaged):
        return averaged_param + (current_param - averaged_param) / (num_averaged + 1)

    return swa_update


class AveragedModel(Module):
    """A copy of `model` whose parameters (and, with `use_buffers`, buffers) are the average
    of those `update_parameters` was called with: SWA by default, or `avg_fn` /
    `multi_avg_fn` (e.g. an EMA).

    Examples:
        >>> m = gradrs.nn.Linear(2, 1)
        >>> swa = gradrs.optim.swa_utils.AveragedModel(m)
        >>> swa.update_parameters(m)
        >>> swa.n_averaged
        tensor(1)
    """

    def __init__(self, model, device=None, avg_fn=None, multi_avg_fn=None, use_buffers=False):
        super().__init__()
        if avg_fn is not None and multi_avg_fn is not None:
            raise AssertionError("Only one of avg_fn and multi_avg_fn should be provided")
        self.module = deepcopy(model)
        if device is not None:
            self.module = self.module.to(device)
        self.register_buffer("n_averaged", tensor(0, dtype=long, device=device))
        self.avg_fn = avg_fn
        self.multi_avg_fn = multi_avg_fn
        self.use_buffers = use_buffers

    def forward(self, *args, **kwargs):
        """Run the averaged copy of the model."""
        return self.module(*args, **kwargs)

    def update_parameters(self, model) -> None:
        """Fold `model`'s current parameters into the average (the first call copies them)."""
        self_param = (
            itertools.chain(self.module.parameters(), self.module.buffers())
            if self.use_buffers
            else self.parameters()
        )
        model_param = (
            itertools.chain(model.parameters(), model.buffers())
            if self.use_buffers
            else model.parameters()
        )
        self_param_detached = []
        model_param_detached = []
        copy_param = bool(self.n_averaged == 0)
        for p_averaged, p_model in zip(self_param, model_param):
            p_model_ = p_model.detach().to(p_averaged.device)
            self_param_detached.append(p_averaged.detach())
            model_param_detached.append(p_model_)
            if copy_param:
                p_averaged.detach().copy_(p_model_)

        if self.n_averaged > 0:
            if self.multi_avg_fn is not None or self.avg_fn is None:
                # Grouped by (device, dtype) as PyTorch groups them.
                groups = {}
                for p_avg, p_model in zip(self_param_detached, model_param_detached):
                    lists = groups.setdefault((str(p_avg.device), p_avg.dtype), ([], []))
                    lists[0].append(p_avg)
                    lists[1].append(p_model)
                for self_params, model_params in groups.values():
                    device = self_params[0].device
                    n_averaged = self.n_averaged.to(device)
                    if self.multi_avg_fn:
                        self.multi_avg_fn(self_params, model_params, n_averaged)
                    elif device.type == "gpu":
                        # PyTorch's foreach path, which it takes on CUDA.
                        get_swa_multi_avg_fn()(self_params, model_params, n_averaged)
                    else:
                        avg_fn = get_swa_avg_fn()
                        for p_averaged, p_model in zip(self_params, model_params):
                            p_averaged.copy_(avg_fn(p_averaged, p_model, n_averaged))
            else:
                for p_averaged, p_model in zip(self_param_detached, model_param_detached):
                    n_averaged = self.n_averaged.to(p_averaged.device)
                    p_averaged.detach().copy_(self.avg_fn(p_averaged.detach(), p_model, n_averaged))

        if not self.use_buffers:
            # Buffers (e.g. batch-norm statistics) are the model's latest, not averaged.
            for b_swa, b_model in zip(self.module.buffers(), model.buffers()):
                b_swa.detach().copy_(b_model.detach().to(b_swa.device))
        self.n_averaged += 1


def update_bn(loader, model, device=None) -> None:
    """Recompute the batch-norm running statistics of `model` with one pass over `loader`."""
    from ..nn.modules.batchnorm import _BatchNorm

    with no_grad():
        momenta = {}
        for module in model.modules():
            if isinstance(module, _BatchNorm):
                module.reset_running_stats()
                momenta[module] = module.momentum

        if not momenta:
            return

        was_training = model.training
        model.train()
        for module in momenta:
            # momentum None: a cumulative average over the pass.
            module.momentum = None

        for input in loader:
            if isinstance(input, (list, tuple)):
                input = input[0]
            if device is not None:
                input = input.to(device)
            model(input)

        for bn_module in momenta:
            bn_module.momentum = momenta[bn_module]
        model.train(was_training)


class SWALR(LRScheduler):
    """Anneals each group's lr to `swa_lr` over `anneal_epochs` epochs, then holds it.

    Examples:
        >>> opt = gradrs.optim.SGD([gradrs.nn.Parameter(gradrs.zeros(1))], lr=1.0)
        >>> sched = gradrs.optim.swa_utils.SWALR(opt, swa_lr=0.1, anneal_epochs=2)
        >>> opt.step()
        >>> sched.step()
        >>> round(sched.get_last_lr()[0], 4)
        0.55
    """

    def __init__(
        self, optimizer, swa_lr, anneal_epochs=10, anneal_strategy="cos", last_epoch=-1
    ) -> None:
        swa_lrs = _format_param("swa_lr", optimizer, swa_lr)
        for swa_lr, group in zip(swa_lrs, optimizer.param_groups):
            group["swa_lr"] = swa_lr
        if anneal_strategy not in ["cos", "linear"]:
            raise ValueError(
                "anneal_strategy must be one of 'cos' or 'linear', "
                f"instead got {anneal_strategy}"
            )
        self._set_anneal_func(anneal_strategy)
        if not isinstance(anneal_epochs, int) or anneal_epochs < 0:
            raise ValueError(f"anneal_epochs must be equal or greater than 0, got {anneal_epochs}")
        self.anneal_epochs = anneal_epochs
        super().__init__(optimizer, last_epoch)

    @staticmethod
    def _linear_anneal(t):
        return t

    @staticmethod
    def _cosine_anneal(t):
        return (1 - math.cos(math.pi * t)) / 2

    @staticmethod
    def _get_initial_lr(lr, swa_lr, alpha):
        if alpha == 1:
            return swa_lr
        return (lr - alpha * swa_lr) / (1 - alpha)

    def get_lr(self):
        if not self._get_lr_called_within_step:
            warnings.warn(
                "To get the last learning rate computed by the scheduler, "
                "please use `get_last_lr()`.",
                UserWarning,
                stacklevel=2,
            )
        # The lr before annealing is recovered from the current one, so changes made to it
        # from outside carry through.
        step = self._step_count - 1
        if self.anneal_epochs == 0:
            step = max(1, step)
        prev_t = max(0, min(1, (step - 1) / max(1, self.anneal_epochs)))
        prev_alpha = self.anneal_func(prev_t)
        prev_lrs = [
            self._get_initial_lr(group["lr"], group["swa_lr"], prev_alpha)
            for group in self.optimizer.param_groups
        ]
        t = max(0, min(1, step / max(1, self.anneal_epochs)))
        alpha = self.anneal_func(t)
        return [
            group["swa_lr"] * alpha + lr * (1 - alpha)
            for group, lr in zip(self.optimizer.param_groups, prev_lrs)
        ]

    def _set_anneal_func(self, anneal_strategy) -> None:
        self._anneal_strategy = anneal_strategy
        if anneal_strategy == "cos":
            self.anneal_func = self._cosine_anneal
        else:
            self.anneal_func = self._linear_anneal

    def state_dict(self):
        """The attributes but the optimizer and the annealing function."""
        return {
            key: value
            for key, value in self.__dict__.items()
            if key not in ("optimizer", "anneal_func")
        }

    def load_state_dict(self, state_dict) -> None:
        """Restore the attributes saved by :meth:`state_dict`."""
        self.__dict__.update(state_dict)
        self._set_anneal_func(self._anneal_strategy)
