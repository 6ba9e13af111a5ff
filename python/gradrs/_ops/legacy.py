"""Tensor methods PyTorch keeps only to refuse or alias: `prelu`, and `solve`, `lstsq`,
`eig`, `symeig`, `reinforce`, removed since 1.9, with PyTorch's messages; the deprecated
out-of-place `resize` / `resize_as` (torch/_tensor.py's, through autograd's `Resize`).
"""

import math
import warnings

from .. import _native
from .._native import Tensor
from ._common import _G


def _prelu(self, weight):
    """`Tensor.prelu(weight)`: `nn.functional.prelu(self, weight)`."""
    return _G.nn.functional.prelu(self, weight)


_REMOVED_1_9 = "This function was deprecated since version 1.9 and is now removed. "


def _solve(self, other):
    """`Tensor.solve(other)`: removed in PyTorch 1.9; raises its message."""
    raise RuntimeError(
        _REMOVED_1_9 + "`gradrs.solve` is deprecated in favor of `gradrs.linalg.solve`. "
        "`gradrs.linalg.solve` has its arguments reversed and does not return the LU "
        "factorization.\n\nTo get the LU factorization see `gradrs.lu`, which can be used with "
        "`gradrs.lu_solve` or `gradrs.lu_unpack`.\nX = gradrs.solve(B, A).solution should be "
        "replaced with:\nX = gradrs.linalg.solve(A, B)")


def _lstsq(self, other):
    """`Tensor.lstsq(other)`: removed in PyTorch 1.9; raises its message."""
    raise RuntimeError(
        _REMOVED_1_9 + "`gradrs.lstsq` is deprecated in favor of `gradrs.linalg.lstsq`.\n"
        "`gradrs.linalg.lstsq` has reversed arguments and does not return the QR decomposition "
        "in the returned tuple (although it returns other information about the problem).\n\n"
        "To get the QR decomposition consider using `gradrs.linalg.qr`.\n\nThe returned "
        "solution in `gradrs.lstsq` stored the residuals of the solution in the last m - n "
        "columns of the returned value whenever m > n. In gradrs.linalg.lstsq, the residuals "
        "are in the field 'residuals' of the returned named tuple.\n\nThe unpacking of the "
        "solution, as in\nX, _ = gradrs.lstsq(B, A).solution[:A.size(1)]\nshould be replaced "
        "with:\nX = gradrs.linalg.lstsq(A, B).solution")


def _eig(self, eigenvectors=False):
    """`Tensor.eig(eigenvectors=False)`: removed in PyTorch 1.9; raises its message."""
    raise RuntimeError(
        _REMOVED_1_9 + "`gradrs.linalg.eig` returns complex tensors of dtype `cfloat` or "
        "`cdouble` rather than real tensors mimicking complex tensors.\n\nL, _ = gradrs.eig(A) "
        "should be replaced with:\nL_complex = gradrs.linalg.eigvals(A)\n\nand\n\nL, V = "
        "gradrs.eig(A, eigenvectors=True) should be replaced with:\nL_complex, V_complex = "
        "gradrs.linalg.eig(A)")


def _symeig(self, eigenvectors=False):
    """`Tensor.symeig(eigenvectors=False)`: removed in PyTorch 1.9; raises its message."""
    raise RuntimeError(
        _REMOVED_1_9 + "The default behavior has changed from using the upper triangular "
        "portion of the matrix by default to using the lower triangular portion.\n\nL, _ = "
        "gradrs.symeig(A, upper=upper) should be replaced with:\nL = gradrs.linalg.eigvalsh(A, "
        "UPLO='U' if upper else 'L')\n\nand\n\nL, V = gradrs.symeig(A, eigenvectors=True) "
        "should be replaced with:\nL, V = gradrs.linalg.eigh(A, UPLO='U' if upper else 'L')")


def _reinforce(self, reward):
    """`Tensor.reinforce(reward)`: removed from PyTorch; raises its message."""
    raise RuntimeError(
        "reinforce() was removed.\nUse gradrs.distributions instead.\n"
        "See https://pytorch.org/docs/main/distributions.html\n\nInstead of:\n\n"
        "probs = policy_network(state)\naction = probs.multinomial()\n"
        "next_state, reward = env.step(action)\naction.reinforce(reward)\naction.backward()\n\n"
        "Use:\n\nprobs = policy_network(state)\n"
        "# NOTE: categorical is equivalent to what used to be called multinomial\n"
        "m = gradrs.distributions.Categorical(probs)\naction = m.sample()\n"
        "next_state, reward = env.step(action)\nloss = -m.log_prob(action) * reward\n"
        "loss.backward()\n")
Tensor.prelu = _prelu
Tensor.solve = _solve
Tensor.lstsq = _lstsq
Tensor.eig = _eig
Tensor.symeig = _symeig
Tensor.reinforce = _reinforce


def range(start, end, step=1, *, out=None, dtype=None, layout=None, device=None,  # noqa: A001
          requires_grad=False):
    """`gradrs.range(start, end, step=1)`: deprecated in PyTorch, with its warning; the values
    start, start + step, ... up to `end` included, in the default float dtype unless `dtype`
    says otherwise (ATen's range_out: `int((end - start) / step) + 1` values, each
    `start + i * step` in double (int64 for integer dtypes), then cast).

    Examples:
        >>> gradrs.range(1, 4)
        tensor([1., 2., 3., 4.])
    """
    import math
    import warnings

    import numpy as np

    warnings.warn("gradrs.range is deprecated and will be removed in a future release because "
                  "its behavior is inconsistent with Python's range builtin. Instead, use "
                  "gradrs.arange, which produces values in [start, end).", UserWarning,
                  stacklevel=2)
    if dtype is None:
        dtype = out.dtype if out is not None else _G.get_default_dtype()
    integral = not (dtype.is_floating_point or dtype == _G.bool)
    acc = int if integral else float
    xstart, xend, xstep = acc(start), acc(end), acc(step)
    if not (xstep > 0 or xstep < 0):
        raise RuntimeError("step must be nonzero")
    if not (math.isfinite(xstart) and math.isfinite(xend)):
        raise RuntimeError(f"unsupported range: {xstart:g} -> {xend:g}")  # C++'s ostream
    if not ((xstep > 0 and xend >= xstart) or (xstep < 0 and xend <= xstart)):
        raise RuntimeError("upper bound and lower bound inconsistent with step sign")
    size = int((xend - xstart) / xstep + 1) if not integral else (xend - xstart) // xstep + 1
    idx = np.arange(size, dtype=np.int64)
    values = xstart + idx * xstep if integral else np.float64(xstart) + idx * np.float64(xstep)
    result = _G.tensor(values, dtype=dtype, device=device)
    if out is not None:  # ATen's range_out resizes out only when the count differs
        with _G.no_grad():
            _native._write_out(out, result.reshape(out.shape) if result.numel() == out.numel()
                               else result)
        return out
    return result.requires_grad_(requires_grad)


_RESIZE = []


def _resize_function():
    """torch/autograd/_functions/tensor.py's `Resize` (made on first use, once gradrs.autograd
    is importable): a reshape that keeps the element count, its node ResizeBackward."""
    if not _RESIZE:
        class Resize(_G.autograd.Function):
            @staticmethod
            def forward(ctx, tensor, sizes):
                ctx.sizes = sizes
                ctx.numel = math.prod(sizes)
                if tensor.numel() != ctx.numel:
                    raise RuntimeError(
                        f"requested resize to {'x'.join(map(str, sizes))} ({ctx.numel} elements "
                        f"in total), but the given tensor has a size of "
                        f"{'x'.join(map(str, tensor.size()))} ({tensor.numel()} elements). "
                        "autograd's resize can only change the shape of a given tensor, while "
                        "preserving the number of elements. ")
                ctx.input_sizes = tensor.size()
                return tensor.contiguous().view(*sizes)

            @staticmethod
            def backward(ctx, grad_output):
                return grad_output.contiguous().view(ctx.input_sizes), None

        _RESIZE.append(Resize)
    return _RESIZE[0]


def _resize(self, *sizes):
    """`Tensor.resize(*sizes)`: deprecated; a reshape keeping the element count (warns)."""
    warnings.warn("non-inplace resize is deprecated", stacklevel=1)  # as torch/_tensor.py
    return _resize_function().apply(self, sizes)


def _resize_as(self, tensor):
    """`Tensor.resize_as(tensor)`: deprecated; `resize(tensor.size())` (warns)."""
    warnings.warn("non-inplace resize_as is deprecated", stacklevel=1)
    return _resize_function().apply(self, tensor.size())


Tensor.resize = _resize
Tensor.resize_as = _resize_as
