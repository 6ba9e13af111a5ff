"""Weight normalization through a forward pre-hook (PyTorch's deprecated
`torch.nn.utils.weight_norm`), and the `_weight_norm` / `norm_except_dim` functions it and
`parametrizations.weight_norm` compute with."""

import warnings

from ..functional import _one_node
from ..parameter import Parameter, UninitializedParameter

__all__ = ["WeightNorm", "weight_norm", "remove_weight_norm"]


def norm_except_dim(v, pow=2, dim=0):
    """The ``pow``-norm of ``v`` over every dimension but ``dim`` (kept, size 1 elsewhere);
    ``dim=-1``: the norm of the whole tensor."""
    if dim == -1:
        return v.norm(pow)
    if dim == 0:
        shape = [v.size(0)] + [1] * (v.dim() - 1)
        return v.contiguous().view(v.size(0), -1).norm(pow, 1).view(*shape)
    if dim == v.dim() - 1:
        shape = [1] * (v.dim() - 1) + [v.size(-1)]
        return v.contiguous().view(-1, v.size(-1)).norm(pow, 0).view(*shape)
    return norm_except_dim(v.transpose(0, dim), pow, 0).transpose(0, dim)


def _weight_norm(v, g, dim=0):
    """``v * (g / norm_except_dim(v, 2, dim))``: one WeightNormInterfaceBackward0 node where
    PyTorch runs its fused kernel (dim first or last, no float16), else that composition."""
    if v.device != g.device:
        raise RuntimeError(f"Expected all tensors to be on the same device, but found at least "
                           f"two devices, {g.device} and {v.device}!")
    from ... import float16

    def compose(v, g):
        return v * (g / norm_except_dim(v, 2, dim))

    if float16 not in (v.dtype, g.dtype) and (dim == 0 or dim == v.dim() - 1):
        return _one_node("WeightNormInterfaceBackward0", compose, v.contiguous(),
                         g.contiguous())
    return compose(v.contiguous(), g.contiguous())


class WeightNorm:
    """The forward pre-hook that recomputes ``name`` from ``name_g`` and ``name_v``."""

    def __init__(self, name, dim):
        if dim is None:
            dim = -1
        self.name = name
        self.dim = dim

    def compute_weight(self, module):
        g = getattr(module, self.name + "_g")
        v = getattr(module, self.name + "_v")
        return _weight_norm(v, g, self.dim)

    @staticmethod
    def apply(module, name, dim):
        warnings.warn("`gradrs.nn.utils.weight_norm` is deprecated in favor of "
                      "`gradrs.nn.utils.parametrizations.weight_norm`.", FutureWarning,
                      stacklevel=2)
        for hook in module._forward_pre_hooks.values():
            if isinstance(hook, WeightNorm) and hook.name == name:
                raise RuntimeError("Cannot register two weight_norm hooks on the same "
                                   f"parameter {name}")
        if dim is None:
            dim = -1
        fn = WeightNorm(name, dim)
        weight = getattr(module, name)
        if isinstance(weight, UninitializedParameter):
            raise ValueError(
                "The module passed to `WeightNorm` can't have uninitialized parameters. "
                "Make sure to run the dummy forward before applying weight normalization")
        # The parameter is replaced by its magnitude g and direction v.
        del module._parameters[name]
        module.register_parameter(name + "_g", Parameter(norm_except_dim(weight, 2, dim).data))
        module.register_parameter(name + "_v", Parameter(weight.data))
        setattr(module, name, fn.compute_weight(module))
        module.register_forward_pre_hook(fn)
        return fn

    def remove(self, module):
        weight = self.compute_weight(module)
        delattr(module, self.name)
        del module._parameters[self.name + "_g"]
        del module._parameters[self.name + "_v"]
        setattr(module, self.name, Parameter(weight.data))

    def __call__(self, module, inputs):
        setattr(module, self.name, self.compute_weight(module))


def weight_norm(module, name="weight", dim=0):
    r"""Reparametrize ``module.<name>`` as ``g * v / ||v||`` (norm over every dimension but
    ``dim``; ``dim=None``: the whole tensor), recomputed before each forward. Deprecated in
    favor of :func:`gradrs.nn.utils.parametrizations.weight_norm`.

    Examples:
        >>> m = gradrs.nn.utils.weight_norm(gradrs.nn.Linear(3, 2))
        >>> sorted(n for n, _ in m.named_parameters())
        ['bias', 'weight_g', 'weight_v']
    """
    WeightNorm.apply(module, name, dim)
    return module


def remove_weight_norm(module, name="weight"):
    r"""Undo :func:`weight_norm`: ``name`` becomes a plain parameter holding its value.

    Examples:
        >>> m = gradrs.nn.utils.weight_norm(gradrs.nn.Linear(3, 2))
        >>> m = gradrs.nn.utils.remove_weight_norm(m)
        >>> sorted(n for n, _ in m.named_parameters())
        ['bias', 'weight']
    """
    for k, hook in module._forward_pre_hooks.items():
        if isinstance(hook, WeightNorm) and hook.name == name:
            hook.remove(module)
            del module._forward_pre_hooks[k]
            return module
    raise ValueError(f"weight_norm of '{name}' not found in {module}")
