"""`gradrs.backends.mkl`: gradrs's CPU matmul is the Rust `gemm` crate, not Intel's MKL."""

__all__ = ["is_available"]


def is_available() -> bool:
    """Whether gradrs is built with MKL support: no."""
    return False
