"""`gradrs.utils.dlpack`: PyTorch's DLPack helpers (`to_dlpack`, `from_dlpack`, `DLDeviceType`)."""

from .._dlpack import DLDeviceType, from_dlpack, to_dlpack

__all__ = ["DLDeviceType", "from_dlpack", "to_dlpack"]
