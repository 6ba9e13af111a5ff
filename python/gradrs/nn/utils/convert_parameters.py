"""`parameters_to_vector` / `vector_to_parameters`: all parameters as one flat vector and back."""

from ... import _native
from ..modules.module import _typename

__all__ = ["parameters_to_vector", "vector_to_parameters"]


def parameters_to_vector(parameters):
    r"""The parameters flattened and concatenated into one vector (all on one device).

    Examples:
        >>> m = gradrs.nn.Linear(2, 1)
        >>> gradrs.nn.utils.parameters_to_vector(m.parameters()).shape
        gradrs.Size([3])
    """
    # Flag for the device where the parameter is located
    param_device = None
    vec = []
    for param in parameters:
        # Ensure the parameters are located in the same device
        param_device = _check_param_device(param, param_device)
        vec.append(param.view(-1))
    return _native.cat(vec)


def vector_to_parameters(vec, parameters):
    r"""Copy consecutive slices of ``vec`` into the parameters' data (the parameters then
    share ``vec``'s storage, as in PyTorch).

    Examples:
        >>> m = gradrs.nn.Linear(2, 1)
        >>> gradrs.nn.utils.vector_to_parameters(gradrs.arange(3.0), m.parameters())
        >>> m.weight, m.bias
        (Parameter containing:
        tensor([[0., 1.]], requires_grad=True), Parameter containing:
        tensor([2.], requires_grad=True))
    """
    if not isinstance(vec, _native.Tensor):
        raise TypeError(f"expected gradrs.Tensor, but got: {_typename(vec)}")
    param_device = None
    # Pointer for slicing the vector for each parameter
    pointer = 0
    for param in parameters:
        param_device = _check_param_device(param, param_device)
        num_param = param.numel()
        # Slice the vector, reshape it, and replace the old data of the parameter
        param.data = vec[pointer:pointer + num_param].view_as(param).data
        pointer += num_param


def _check_param_device(param, old_param_device):
    """The device index of the parameters seen so far (-1 for the CPU); raises when
    ``param`` lives elsewhere."""
    def index(p):
        return -1 if p.device.type == "cpu" else (p.device.index or 0)

    if old_param_device is None:
        return index(param)
    if index(param) != old_param_device:
        raise TypeError("Found two parameters on different devices, "
                        "this is currently not supported.")
    return old_param_device
