"""`DataParallel`: a module run over the batch split across GPUs (PyTorch's
`torch.nn.parallel.data_parallel`). gradrs has at most one GPU, so this is PyTorch's behaviour
with zero or one device: without a GPU the module runs as it is; with one, it is moved there
and its inputs are copied to it."""

from itertools import chain

from ... import _native, cuda, device
from ..modules.module import Module

__all__ = ["DataParallel", "data_parallel"]


def _device_type():
    return "gpu" if cuda.is_available() else None


def _device_index(d):
    """A device id as an index (PyTorch's _get_device_index with optional=True)."""
    if isinstance(d, str):
        d = device(d)
    if isinstance(d, device):
        if d.type not in ("gpu", "cuda"):
            raise ValueError(f"Expected a cuda device, but got: {d}")
        return d.index if d.index is not None else 0
    return d


def _to_device(obj, dev):
    # PyTorch's scatter onto one device: tensors (in tuples, lists, dicts) copied there.
    if isinstance(obj, _native.Tensor):
        return obj.to(dev)
    if isinstance(obj, tuple) and hasattr(obj, "_fields"):
        return type(obj)(*(_to_device(o, dev) for o in obj))
    if isinstance(obj, (tuple, list)):
        return type(obj)(_to_device(o, dev) for o in obj)
    if isinstance(obj, dict):
        return type(obj)((k, _to_device(v, dev)) for k, v in obj.items())
    return obj


class DataParallel(Module):
    r"""Run ``module`` over the batch split along ``dim`` across ``device_ids``; here one GPU
    (the module moved to it, its inputs copied there) or, without one, the module as it is.
    ``module`` is the wrapped module (state_dict keys start with ``module.``)."""

    def __init__(self, module, device_ids=None, output_device=None, dim=0):
        super().__init__()
        device_type = _device_type()
        if device_type is None:
            self.module = module
            self.device_ids = []
            return
        if device_ids is None:
            device_ids = list(range(cuda.device_count()))
        if output_device is None:
            output_device = device_ids[0]
        self.dim = dim
        self.module = module
        self.device_ids = [_device_index(x) for x in device_ids]
        if any(i >= cuda.device_count() for i in self.device_ids):
            raise RuntimeError("Invalid device id: gradrs has "
                               f"{cuda.device_count()} GPU device(s)")
        self.output_device = _device_index(output_device)
        self.src_device_obj = device(device_type, self.device_ids[0])
        if len(self.device_ids) == 1:
            self.module.to(self.src_device_obj)

    def forward(self, *inputs, **kwargs):
        if not self.device_ids:
            return self.module(*inputs, **kwargs)
        for t in chain(self.module.parameters(), self.module.buffers()):
            if t.device != self.src_device_obj:
                raise RuntimeError(
                    "module must have its parameters and buffers on device "
                    f"{self.src_device_obj} (device_ids[0]) but found one of them on device: "
                    f"{t.device}")
        return self.module(*_to_device(inputs, self.src_device_obj),
                           **_to_device(kwargs, self.src_device_obj))


def data_parallel(module, inputs, device_ids=None, output_device=None, dim=0,
                  module_kwargs=None):
    r"""The functional form of :class:`DataParallel`: ``module(*inputs, **module_kwargs)`` on
    the device of ``device_ids[0]`` (the one GPU), where ``module`` must already be."""
    if not isinstance(inputs, tuple):
        inputs = (inputs,) if inputs is not None else ()
    device_type = _device_type()
    if device_type is None:
        raise RuntimeError("device type could not be determined")
    if device_ids is None:
        device_ids = list(range(cuda.device_count()))
    device_ids = [_device_index(x) for x in device_ids]
    src_device_obj = device(device_type, device_ids[0])
    for t in chain(module.parameters(), module.buffers()):
        if t.device != src_device_obj:
            raise RuntimeError(
                "module must have its parameters and buffers on device "
                f"{src_device_obj} (device_ids[0]) but found one of them on device: "
                f"{t.device}")
    module_kwargs = module_kwargs or {}
    return module(*_to_device(inputs, src_device_obj), **_to_device(module_kwargs,
                                                                    src_device_obj))
