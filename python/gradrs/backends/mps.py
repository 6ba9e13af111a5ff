"""`gradrs.backends.mps`: Apple's Metal Performance Shaders backend, which gradrs does not have
(on a Mac, gradrs reaches Metal through its wgpu device, `gradrs.gpu`)."""

__all__ = ["is_available", "is_built"]


def is_built() -> bool:
    """Whether gradrs is built with PyTorch's MPS backend: never."""
    return False


def is_available() -> bool:
    """Whether the MPS device can be used: never (use `gradrs.gpu`, which runs on Metal)."""
    return False
