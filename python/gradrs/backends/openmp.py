"""`gradrs.backends.openmp`: gradrs parallelizes its CPU kernels with rayon, not OpenMP."""

__all__ = ["is_available"]


def is_available() -> bool:
    """Whether gradrs is built with OpenMP support: no."""
    return False
