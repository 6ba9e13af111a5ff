"""Pruning: parameters masked through a forward pre-hook (`name_orig` parameter, `name_mask`
buffer), as PyTorch's `torch.nn.utils.prune`: identity, random/L1 unstructured, random/Ln
structured, custom masks, global unstructured pruning, `remove` and `is_pruned`. Random masks
draw from the default generator as PyTorch does, so a seed gives PyTorch's mask."""

import numbers
from abc import ABC, abstractmethod
from collections.abc import Iterable

from ... import kthvalue, norm, ones_like, rand, rand_like, topk, zeros_like
from .convert_parameters import parameters_to_vector

__all__ = ["BasePruningMethod", "PruningContainer", "Identity", "RandomUnstructured",
           "L1Unstructured", "RandomStructured", "LnStructured", "CustomFromMask", "identity",
           "random_unstructured", "l1_unstructured", "random_structured", "ln_structured",
           "global_unstructured", "custom_from_mask", "remove", "is_pruned"]


class BasePruningMethod(ABC):
    r"""A pruning method: ``compute_mask`` gives the mask; as a forward pre-hook it sets the
    pruned tensor (``name_orig * name_mask``) before each forward."""

    _tensor_name: str

    def __call__(self, module, inputs):
        setattr(module, self._tensor_name, self.apply_mask(module))

    @abstractmethod
    def compute_mask(self, t, default_mask):
        r"""The mask for ``t``, combined with ``default_mask`` (the mask of earlier prunings)."""

    def apply_mask(self, module):
        r"""``name_orig`` times ``name_mask`` (in the original's dtype)."""
        if self._tensor_name is None:
            raise AssertionError(f"Module {module} has to be pruned")
        mask = getattr(module, self._tensor_name + "_mask")
        orig = getattr(module, self._tensor_name + "_orig")
        return mask.to(dtype=orig.dtype) * orig

    @classmethod
    def apply(cls, module, name, *args, importance_scores=None, **kwargs):
        r"""Prune ``module.<name>`` with this method (built from ``args``/``kwargs``); a
        tensor pruned before gets a PruningContainer that applies both in turn."""

        def _get_composite_method(cls, module, name, *args, **kwargs):
            old_method = None
            found = 0
            hooks_to_remove = []
            for k, hook in module._forward_pre_hooks.items():
                if isinstance(hook, BasePruningMethod) and hook._tensor_name == name:
                    old_method = hook
                    hooks_to_remove.append(k)
                    found += 1
            if found > 1:
                raise AssertionError(
                    f"Avoid adding multiple pruning hooks to the same tensor {name} of module "
                    f"{module}. Use a PruningContainer.")
            for k in hooks_to_remove:
                del module._forward_pre_hooks[k]
            method = cls(*args, **kwargs)
            method._tensor_name = name
            if old_method is not None:
                if isinstance(old_method, PruningContainer):
                    old_method.add_pruning_method(method)
                    method = old_method
                elif isinstance(old_method, BasePruningMethod):
                    container = PruningContainer(old_method)
                    container.add_pruning_method(method)
                    method = container
            return method

        method = _get_composite_method(cls, module, name, *args, **kwargs)
        orig = getattr(module, name)
        if importance_scores is not None:
            if importance_scores.shape != orig.shape:
                raise AssertionError(
                    f"importance_scores should have the same shape as parameter {name} of "
                    f"{module}, got {importance_scores.shape} vs {orig.shape}")
        else:
            importance_scores = orig
        # The first pruning moves the parameter to `name_orig`; later ones start from the
        # current mask.
        if not isinstance(method, PruningContainer):
            module.register_parameter(name + "_orig", orig)
            del module._parameters[name]
            default_mask = ones_like(orig)
        else:
            default_mask = getattr(module, name + "_mask").detach().clone()
        try:
            mask = method.compute_mask(importance_scores, default_mask=default_mask)
            module.register_buffer(name + "_mask", mask)
            setattr(module, name, method.apply_mask(module))
            module.register_forward_pre_hook(method)
        except Exception as e:
            if not isinstance(method, PruningContainer):
                orig = getattr(module, name + "_orig")
                module.register_parameter(name, orig)
                del module._parameters[name + "_orig"]
            raise e
        return method

    def prune(self, t, default_mask=None, importance_scores=None):
        r"""``t`` times its mask (computed from ``importance_scores``, default ``t``)."""
        if importance_scores is not None:
            if importance_scores.shape != t.shape:
                raise AssertionError(
                    "importance_scores should have the same shape as tensor t, got "
                    f"{importance_scores.shape} vs {t.shape}")
        else:
            importance_scores = t
        default_mask = default_mask if default_mask is not None else ones_like(t)
        return t * self.compute_mask(importance_scores, default_mask=default_mask)

    def remove(self, module):
        r"""Make the pruning permanent: ``name`` becomes a parameter holding the pruned
        values; ``name_orig`` and ``name_mask`` go."""
        if self._tensor_name is None:
            raise AssertionError(
                f"Module {module} has to be pruned before pruning can be removed")
        weight = self.apply_mask(module)
        if hasattr(module, self._tensor_name):
            delattr(module, self._tensor_name)
        orig = module._parameters[self._tensor_name + "_orig"]
        orig.data = weight.data
        del module._parameters[self._tensor_name + "_orig"]
        del module._buffers[self._tensor_name + "_mask"]
        setattr(module, self._tensor_name, orig)


class PruningContainer(BasePruningMethod):
    r"""Pruning methods applied in turn to one tensor: each later method prunes what the
    earlier ones kept (in the slices its PRUNING_TYPE acts on)."""

    def __init__(self, *args):
        self._pruning_methods = ()
        if not isinstance(args, Iterable):  # only 1 item
            self._tensor_name = args._tensor_name
            self.add_pruning_method(args)
        elif len(args) == 1:  # only 1 item in a tuple
            self._tensor_name = args[0]._tensor_name
            self.add_pruning_method(args[0])
        else:  # manual construction from list or other iterable (or no args)
            for method in args:
                self.add_pruning_method(method)

    def add_pruning_method(self, method):
        r"""Append ``method`` (acting on the same tensor name)."""
        if not isinstance(method, BasePruningMethod) and method is not None:
            raise TypeError(f"{type(method)} is not a BasePruningMethod subclass")
        elif method is not None and self._tensor_name != method._tensor_name:
            raise ValueError(
                "Can only add pruning methods acting on the parameter named "
                f"'{self._tensor_name}' to PruningContainer {self}."
                + f" Found '{method._tensor_name}'")
        self._pruning_methods += (method,)

    def __len__(self):
        return len(self._pruning_methods)

    def __iter__(self):
        return iter(self._pruning_methods)

    def __getitem__(self, idx):
        return self._pruning_methods[idx]

    def compute_mask(self, t, default_mask):
        r"""The last method's mask over the entries the current mask keeps."""

        def _combine_masks(method, t, mask):
            new_mask = mask.to(dtype=t.dtype)
            if method.PRUNING_TYPE == "unstructured":
                slc = mask == 1
            elif method.PRUNING_TYPE == "structured":
                if not hasattr(method, "dim"):
                    raise AttributeError(
                        'Pruning methods of PRUNING_TYPE "structured" need to have the '
                        "attribute `dim` defined.")
                n_dims = t.dim()
                dim = method.dim
                if dim < 0:
                    dim = n_dims + dim
                if dim < 0:
                    raise IndexError(f"Index is out of bounds for tensor with dimensions {n_dims}")
                # The channels that still have an unpruned entry.
                keep_channel = mask.sum(dim=[d for d in range(n_dims) if d != dim]) != 0
                slc = [slice(None)] * n_dims
                slc[dim] = keep_channel
            elif method.PRUNING_TYPE == "global":
                slc = [slice(None)] * len(t.shape)
            else:
                raise ValueError(f"Unrecognized PRUNING_TYPE {method.PRUNING_TYPE}")
            if isinstance(slc, list):
                slc = tuple(slc)
            partial_mask = method.compute_mask(t[slc], default_mask=mask[slc])
            new_mask[slc] = partial_mask.to(dtype=new_mask.dtype)
            return new_mask

        return _combine_masks(self._pruning_methods[-1], t, default_mask)


class Identity(BasePruningMethod):
    r"""A mask of ones (prunes nothing)."""

    PRUNING_TYPE = "unstructured"

    def compute_mask(self, t, default_mask):
        return default_mask

    @classmethod
    def apply(cls, module, name):
        """Adds the identity pruning (a mask of ones) to `module`'s parameter `name`.

        Args:
            module: the module holding the parameter.
            name: the parameter's name.
        """
        return super().apply(module, name)


class RandomUnstructured(BasePruningMethod):
    r"""Prune ``amount`` (a fraction, or a count) of the entries, chosen at random."""

    PRUNING_TYPE = "unstructured"

    def __init__(self, amount):
        _validate_pruning_amount_init(amount)
        self.amount = amount

    def compute_mask(self, t, default_mask):
        tensor_size = t.nelement()
        nparams_toprune = _compute_nparams_toprune(self.amount, tensor_size)
        _validate_pruning_amount(nparams_toprune, tensor_size)
        mask = default_mask.clone()
        if nparams_toprune != 0:
            prob = rand_like(t)
            picked = topk(prob.view(-1), k=nparams_toprune)
            mask.view(-1)[picked.indices] = 0
        return mask

    @classmethod
    def apply(cls, module, name, amount):
        """Adds random unstructured pruning of `amount` entries to `module.name`.

        Args:
            module: the module holding the parameter.
            name: the parameter's name.
            amount: a fraction in [0, 1] or a count of entries to prune.
        """
        return super().apply(module, name, amount=amount)


class L1Unstructured(BasePruningMethod):
    r"""Prune ``amount`` (a fraction, or a count) of the entries of smallest magnitude."""

    PRUNING_TYPE = "unstructured"

    def __init__(self, amount):
        _validate_pruning_amount_init(amount)
        self.amount = amount

    def compute_mask(self, t, default_mask):
        tensor_size = t.nelement()
        nparams_toprune = _compute_nparams_toprune(self.amount, tensor_size)
        _validate_pruning_amount(nparams_toprune, tensor_size)
        mask = default_mask.clone()
        if nparams_toprune != 0:
            picked = topk(t.abs().view(-1), k=nparams_toprune, largest=False)
            mask.view(-1)[picked.indices] = 0
        return mask

    @classmethod
    def apply(cls, module, name, amount, importance_scores=None):
        """Adds pruning of the `amount` entries of smallest absolute value to `module.name`.

        Args:
            module: the module holding the parameter.
            name: the parameter's name.
            amount: a fraction in [0, 1] or a count of entries to prune.
            importance_scores: scores to rank the entries by instead of the parameter itself.
        """
        return super().apply(module, name, amount=amount, importance_scores=importance_scores)


class RandomStructured(BasePruningMethod):
    r"""Prune ``amount`` of the channels along ``dim``, chosen at random."""

    PRUNING_TYPE = "structured"

    def __init__(self, amount, dim=-1):
        _validate_pruning_amount_init(amount)
        self.amount = amount
        self.dim = dim

    def compute_mask(self, t, default_mask):
        _validate_structured_pruning(t)
        _validate_pruning_dim(t, self.dim)
        tensor_size = t.shape[self.dim]
        nparams_toprune = _compute_nparams_toprune(self.amount, tensor_size)
        _validate_pruning_amount(nparams_toprune, tensor_size)

        def make_mask(t, dim, nchannels, nchannels_toprune):
            # Channels above the k-th smallest of one uniform draw per channel are kept.
            prob = rand(nchannels)
            threshold = kthvalue(prob, k=nchannels_toprune).values
            channel_mask = prob > threshold
            mask = zeros_like(t)
            slc = [slice(None)] * len(t.shape)
            slc[dim] = channel_mask
            mask[tuple(slc)] = 1
            return mask

        if nparams_toprune == 0:
            return default_mask
        mask = make_mask(t, self.dim, tensor_size, nparams_toprune)
        mask *= default_mask.to(dtype=mask.dtype)
        return mask

    @classmethod
    def apply(cls, module, name, amount, dim=-1):
        """Adds pruning of `amount` random channels along `dim` to `module.name`.

        Args:
            module: the module holding the parameter.
            name: the parameter's name.
            amount: a fraction in [0, 1] or a count of channels to prune.
            dim: the dimension the channels run along (default -1).
        """
        return super().apply(module, name, amount=amount, dim=dim)


class LnStructured(BasePruningMethod):
    r"""Prune ``amount`` of the channels along ``dim`` with the smallest ``n``-norm."""

    PRUNING_TYPE = "structured"

    def __init__(self, amount, n, dim=-1):
        _validate_pruning_amount_init(amount)
        self.amount = amount
        self.n = n
        self.dim = dim

    def compute_mask(self, t, default_mask):
        _validate_structured_pruning(t)
        _validate_pruning_dim(t, self.dim)
        tensor_size = t.shape[self.dim]
        nparams_toprune = _compute_nparams_toprune(self.amount, tensor_size)
        nparams_tokeep = tensor_size - nparams_toprune
        _validate_pruning_amount(nparams_toprune, tensor_size)
        kept = topk(_compute_norm(t, self.n, self.dim), k=nparams_tokeep, largest=True)

        def make_mask(t, dim, indices):
            mask = zeros_like(t)
            slc = [slice(None)] * len(t.shape)
            slc[dim] = indices
            mask[tuple(slc)] = 1
            return mask

        if nparams_toprune == 0:
            return default_mask
        mask = make_mask(t, self.dim, kept.indices)
        mask *= default_mask.to(dtype=mask.dtype)
        return mask

    @classmethod
    def apply(cls, module, name, amount, n, dim, importance_scores=None):
        """Adds pruning of the `amount` channels along `dim` of smallest L`n` norm to
        `module.name`.

        Args:
            module: the module holding the parameter.
            name: the parameter's name.
            amount: a fraction in [0, 1] or a count of channels to prune.
            n: the norm's degree (as `torch.norm`'s `p`).
            dim: the dimension the channels run along.
            importance_scores: scores to rank the channels by instead of the parameter itself.
        """
        return super().apply(module, name, amount=amount, n=n, dim=dim,
                             importance_scores=importance_scores)


class CustomFromMask(BasePruningMethod):
    r"""Prune with a given mask."""

    PRUNING_TYPE = "global"

    def __init__(self, mask):
        self.mask = mask

    def compute_mask(self, t, default_mask):
        if default_mask.shape != self.mask.shape:
            raise AssertionError(f"default_mask shape {default_mask.shape} must match "
                                 f"self.mask shape {self.mask.shape}")
        return default_mask * self.mask.to(dtype=default_mask.dtype)

    @classmethod
    def apply(cls, module, name, mask):
        """Adds pruning with a given mask to `module.name`.

        Args:
            module: the module holding the parameter.
            name: the parameter's name.
            mask: the mask (0 prunes), the parameter's shape.
        """
        return super().apply(module, name, mask=mask)


def identity(module, name):
    r"""Prune nothing, but reparametrize ``name`` as ``name_orig * name_mask``."""
    Identity.apply(module, name)
    return module


def random_unstructured(module, name, amount):
    r"""Prune ``amount`` of ``module.<name>``'s entries at random."""
    RandomUnstructured.apply(module, name, amount)
    return module


def l1_unstructured(module, name, amount, importance_scores=None):
    r"""Prune ``amount`` of ``module.<name>``'s entries of smallest magnitude (of
    ``importance_scores`` when given)."""
    L1Unstructured.apply(module, name, amount=amount, importance_scores=importance_scores)
    return module


def random_structured(module, name, amount, dim):
    r"""Prune ``amount`` of ``module.<name>``'s channels along ``dim`` at random."""
    RandomStructured.apply(module, name, amount, dim)
    return module


def ln_structured(module, name, amount, n, dim, importance_scores=None):
    r"""Prune ``amount`` of ``module.<name>``'s channels along ``dim`` of smallest
    ``n``-norm."""
    LnStructured.apply(module, name, amount, n, dim, importance_scores=importance_scores)
    return module


def global_unstructured(parameters, pruning_method, importance_scores=None, **kwargs):
    r"""Prune the ``(module, name)`` tensors of ``parameters`` together: one unstructured
    ``pruning_method`` over all their entries, each then pruned with its part of the mask."""
    if not isinstance(parameters, Iterable):
        raise TypeError("global_unstructured(): parameters is not an Iterable")
    importance_scores = importance_scores if importance_scores is not None else {}
    if not isinstance(importance_scores, dict):
        raise TypeError("global_unstructured(): importance_scores must be of type dict")
    relevant_importance_scores = parameters_to_vector(
        [importance_scores.get((module, name), getattr(module, name))
         for (module, name) in parameters])
    default_mask = parameters_to_vector(
        [getattr(module, name + "_mask", ones_like(getattr(module, name)))
         for (module, name) in parameters])
    container = PruningContainer()
    container._tensor_name = "temp"
    method = pruning_method(**kwargs)
    method._tensor_name = "temp"
    if method.PRUNING_TYPE != "unstructured":
        raise TypeError(
            'Only "unstructured" PRUNING_TYPE supported for the `pruning_method`. Found method '
            f"{pruning_method} of type {method.PRUNING_TYPE}")
    container.add_pruning_method(method)
    final_mask = container.compute_mask(relevant_importance_scores, default_mask)
    pointer = 0
    for module, name in parameters:
        param = getattr(module, name)
        num_param = param.numel()
        param_mask = final_mask[pointer:pointer + num_param].view_as(param)
        custom_from_mask(module, name, mask=param_mask)
        pointer += num_param


def custom_from_mask(module, name, mask):
    r"""Prune ``module.<name>`` with ``mask``."""
    CustomFromMask.apply(module, name, mask)
    return module


def remove(module, name):
    r"""Make the pruning of ``module.<name>`` permanent (see ``BasePruningMethod.remove``)."""
    for k, hook in module._forward_pre_hooks.items():
        if isinstance(hook, BasePruningMethod) and hook._tensor_name == name:
            hook.remove(module)
            del module._forward_pre_hooks[k]
            return module
    raise ValueError(f"Parameter '{name}' of module {module} has to be pruned before pruning "
                     "can be removed")


def is_pruned(module):
    r"""Whether ``module`` or one of its submodules has a pruning hook."""
    for _, submodule in module.named_modules():
        for hook in submodule._forward_pre_hooks.values():
            if isinstance(hook, BasePruningMethod):
                return True
    return False


def _validate_pruning_amount_init(amount):
    if not isinstance(amount, numbers.Real):
        raise TypeError(f"Invalid type for amount: {amount}. Must be int or float.")
    if (isinstance(amount, numbers.Integral) and amount < 0) or (
            not isinstance(amount, numbers.Integral)
            and (float(amount) > 1.0 or float(amount) < 0.0)):
        raise ValueError(f"amount={amount} should either be a float in the range [0, 1] or a "
                         "non-negative integer")


def _validate_pruning_amount(amount, tensor_size):
    if isinstance(amount, numbers.Integral) and amount > tensor_size:
        raise ValueError(f"amount={amount} should be smaller than the number of parameters to "
                         f"prune={tensor_size}")


def _validate_structured_pruning(t):
    shape = t.shape
    if len(shape) <= 1:
        raise ValueError("Structured pruning can only be applied to multidimensional tensors. "
                         f"Found tensor of shape {shape} with {len(shape)} dims")


def _compute_nparams_toprune(amount, tensor_size):
    if isinstance(amount, numbers.Integral):
        return amount
    return round(amount * tensor_size)


def _validate_pruning_dim(t, dim):
    if dim >= t.dim():
        raise IndexError(f"Invalid index {dim} for tensor of size {t.shape}")


def _compute_norm(t, n, dim):
    dims = list(range(t.dim()))
    if dim < 0:
        dim = dims[dim]
    dims.remove(dim)
    return norm(t, p=n, dim=dims)
