"""`gradrs.nn.utils.stateless`: PyTorch 1.x's functional_call, deprecated since PyTorch 2.0 in
favour of `gradrs.func.functional_call`, which it calls (older meta-learning code still uses it)."""

from __future__ import annotations

import warnings

__all__ = ["functional_call"]

_DEPRECATED = ("`gradrs.nn.utils.stateless.functional_call` is deprecated as of PyTorch 2.0 and "
               "will be removed in a future version of PyTorch. Please use "
               "`gradrs.func.functional_call` instead which is a drop-in replacement.")


def functional_call(module, parameters_and_buffers, args=None, kwargs=None, *,
                    tie_weights=True, strict=False):
    """Call ``module`` with the parameters and buffers named in the dict ``parameters_and_buffers``
    standing in for its own (deprecated: `gradrs.func.functional_call` is the drop-in replacement).
    """
    warnings.warn(_DEPRECATED, FutureWarning, stacklevel=2)
    from ...func import functional_call as _functional_call

    # Only a mapping is accepted here (gradrs.func's form also takes a list of dicts); PyTorch
    # reads its keys first, so anything else raises that AttributeError.
    names = parameters_and_buffers.keys()
    return _functional_call(module, {name: parameters_and_buffers[name] for name in names},
                            args, kwargs, tie_weights=tie_weights, strict=strict)
