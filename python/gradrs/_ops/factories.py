"""`new_*` factories (gradrs's `new_empty` hands out zeroed memory), the window functions
(`hann_window` & co., ATen's arithmetic), `scalar_tensor`, `vander`.
"""

import builtins
import math

from .. import _argparse
from .._native import Tensor
from .._runtime import honours_default_device
from ._common import _c_type, _G

__all__ = [
    "vander", "scalar_tensor", "hamming_window", "hann_window", "bartlett_window",
    "blackman_window", "kaiser_window", "empty_permuted",
]


def _new_factory(name, native, doc):
    """`Tensor.<name>(*size, dtype=None, device=None, requires_grad=False, ...)` around the
    native `new_zeros` / `new_ones` (which parse the sizes, `size=` included)."""
    def method(self, *size, dtype=None, device=None, requires_grad=False, layout=None,
               pin_memory=False, **kwargs):
        out = native(self, *size, **kwargs)
        if dtype is not None and dtype != out.dtype:
            out = out.to(dtype)
        if device is not None:
            out = out.to(device)
        return out.requires_grad_() if requires_grad else out

    method.__name__ = method.__qualname__ = name
    method.__doc__ = doc
    return method


def _new_full(self, size, fill_value, *, dtype=None, device=None, requires_grad=False,
              layout=None, pin_memory=False):
    """A tensor of shape `size` filled with `fill_value`, with this tensor's dtype and device
    unless `dtype` / `device` say otherwise.

    Args:
        size: the new tensor's shape (a list or tuple).
        fill_value: the value of every element.
        dtype: the dtype (default: this tensor's).
        device: the device (default: this tensor's).
        requires_grad: record operations on the result (default False).
        layout: only `gradrs.strided`.
        pin_memory: accepted for PyTorch's signature.

    Examples:
        >>> gradrs.ones(2, dtype=gradrs.float64).new_full((2, 2), 7)
        tensor([[7., 7.],
                [7., 7.]], dtype=gradrs.float64)
    """
    try:
        out = _G.full(tuple(size), fill_value, dtype=self.dtype if dtype is None else dtype,
                      device=self.device if device is None else device)
    except TypeError as e:
        # full's parser error is new_full's, under its own name.
        if str(e).startswith("full(): argument 'fill_value'"):
            raise TypeError(f"new_{e}") from None
        raise
    return out.requires_grad_() if requires_grad else out


def _new(self, *args, device=None):
    """`Tensor.new(...)`: PyTorch's legacy constructor in `self`'s dtype and device: no
    argument (an empty tensor), sizes, a sequence of data, or a tensor (returned as it is)."""
    dev = self.device if device is None else device
    if not args:
        return _G.empty((0,), dtype=self.dtype, device=dev)
    if len(args) == 1 and isinstance(args[0], Tensor):
        return args[0]
    if builtins.all(isinstance(a, int) and not isinstance(a, bool) for a in args):
        return _G.zeros(args, dtype=self.dtype, device=dev)
    if len(args) == 1 and isinstance(args[0], _G.Size):
        return _G.zeros(tuple(args[0]), dtype=self.dtype, device=dev)
    if len(args) == 1:
        return _G.tensor(args[0], dtype=self.dtype, device=dev)
    raise TypeError(f"new() received an invalid combination of arguments - got "
                    f"({', '.join(type(a).__name__ for a in args)})")
# gradrs hands out zeroed memory where PyTorch's new_empty is uninitialized.
_native_new_zeros, _native_new_ones = Tensor.new_zeros, Tensor.new_ones
Tensor.new_empty = _new_factory("new_empty", _native_new_zeros,
                                "`Tensor.new_empty(*size, dtype=None, device=None, ...)`.")
Tensor.new_zeros = _new_factory("new_zeros", _native_new_zeros,
                                "`Tensor.new_zeros(*size, dtype=None, device=None, ...)`.")
Tensor.new_ones = _new_factory("new_ones", _native_new_ones,
                               "`Tensor.new_ones(*size, dtype=None, device=None, ...)`.")
Tensor.new_full = _new_full


def _new_empty_strided(self, size, stride, *, dtype=None, device=None, requires_grad=False,
                       layout=None, pin_memory=False):
    """`Tensor.new_empty_strided(size, stride, ...)`: `gradrs.empty_strided` with this tensor's
    dtype and device unless `dtype` / `device` say otherwise (zeroed memory in gradrs).

    Examples:
        >>> gradrs.ones(2, dtype=gradrs.float64).new_empty_strided((2, 3), (1, 2)).stride()
        (1, 2)
    """
    return _G.empty_strided(size, stride, dtype=self.dtype if dtype is None else dtype,
                            device=self.device if device is None else device,
                            requires_grad=requires_grad)


Tensor.new_empty_strided = _new_empty_strided
Tensor.new = _new


def vander(x, N=None, increasing=False):
    """`gradrs.vander(x, N=None, increasing=False)`: the Vandermonde matrix of the 1-D `x`
    (powers N-1 .. 0, or 0 .. N-1 with `increasing`), integers promoted to int64.

    Examples:
        >>> gradrs.vander(gradrs.tensor([1, 2, 3]), 3)
        tensor([[1, 1, 1],
                [4, 2, 1],
                [9, 3, 1]])
    """
    if x.dim() != 1:
        raise RuntimeError("x must be a one-dimensional tensor.")
    n = x.shape[0]
    if N is not None:
        n = N
        if n < 0:
            raise RuntimeError("N must be non-negative.")
    dt = _G.promote_types(x.dtype, _G.int64)
    ones = _G.ones((x.shape[0], builtins.min(n, 1)), dtype=dt, device=x.device)
    if n > 1:
        powers = x.to(dt).unsqueeze(1).expand(x.shape[0], n - 1).cumprod(1)
        res = _G.cat([ones, powers], 1)
    else:
        res = ones
    return res if increasing else res.flip(1)


@honours_default_device
def empty_permuted(size, physical_layout, *, dtype=None, layout=None, device=None,
                   requires_grad=False, pin_memory=False):
    """An uninitialized tensor of shape `size` whose dimensions lie in memory in the order
    `physical_layout` (outermost first): ``empty_permuted((2, 3, 4), (2, 0, 1))`` has strides
    (3, 1, 6), as ``empty(4, 2, 3).permute(1, 2, 0)`` but not a view.

    Examples:
        >>> gradrs.empty_permuted((2, 3, 4), (2, 0, 1)).stride()
        (3, 1, 6)
    """
    size, order = [int(n) for n in size], [int(d) for d in physical_layout]
    if len(size) != len(order):
        raise RuntimeError(f"Number of dimensions in size does not match the length of the "
                           f"physical_layout; i.e. len(size) = {len(size)} is not equal to "
                           f"len(physical_layout) = {len(order)}")
    seen = set()
    for i, d in enumerate(order):
        if not 0 <= d < len(size):
            raise RuntimeError(f"Dimension out of range (expected to be between 0 and "
                               f"{len(size) - 1}, but got {d} at index {i}).  NB: negative dims "
                               f"not currently supported; file an issue if you want it.")
        if d in seen:
            raise RuntimeError("Duplicate dim not allowed")
        seen.add(d)
    with _G.no_grad():
        physical = _G.empty([size[d] for d in order], dtype=dtype, device=device)
        result = physical.permute([order.index(d) for d in range(len(size))]).detach()
    return result.requires_grad_(requires_grad) if requires_grad else result


@honours_default_device
def scalar_tensor(s, *, dtype=None, layout=None, device=None, pin_memory=False,
                  requires_grad=False):
    """`gradrs.scalar_tensor(s)`: a 0-dim tensor holding the number `s` (default dtype).

    Examples:
        >>> gradrs.scalar_tensor(3)
        tensor(3.)
    """
    if not _argparse._is_number(s) or isinstance(s, Tensor):
        raise TypeError(f"scalar_tensor(): argument 's' (position 1) must be Number, not "
                        f"{_argparse.type_name(s)}")
    return _G.tensor(s if isinstance(s, complex) else float(s) if dtype is None or
                     dtype.is_floating_point else s,
                     dtype=dtype or _G.get_default_dtype(), device=device,
                     requires_grad=requires_grad)



def _window(name, window_length, periodic, dtype, layout, device, requires_grad, body):
    """ATen's window scaffolding: checks, the 0- and 1-length cases, one more point for a
    periodic window (then dropped); `body(n, dtype)` computes the symmetric window."""
    dtype = dtype or _G.get_default_dtype()
    if window_length < 0:
        raise RuntimeError(f"{name} requires non-negative window_length, got "
                           f"window_length={window_length}")
    if not dtype.is_floating_point:
        raise RuntimeError(
            f"{name} expects floating point dtypes, got: TensorOptions(dtype="
            f"{_c_type(_G.empty(0, dtype=dtype))}, device=cpu, layout=Strided (default), "
            "requires_grad=false (default), pinned_memory=false, memory_format=(nullopt))")
    if window_length <= 1:
        res = _G.ones((window_length,), dtype=dtype, device=device)
    else:
        n = window_length + 1 if periodic else window_length
        res = body(n, dtype, device)
        if periodic:
            res = res[:-1].contiguous()
    return res.requires_grad_() if requires_grad else res


@honours_default_device
def hamming_window(window_length, periodic=True, alpha=0.54, beta=0.46, *, dtype=None,
                   layout=None, device=None, pin_memory=False, requires_grad=False):
    """`gradrs.hamming_window(window_length, periodic=True, alpha=0.54, beta=0.46)`:
    alpha - beta * cos(2 pi k / (N - 1)).

    Examples:
        >>> gradrs.hamming_window(4, False)
        tensor([0.0800, 0.7700, 0.7700, 0.0800])
    """
    return _hamming("hamming_window", window_length, periodic, alpha, beta, dtype, layout,
                    device, requires_grad)


def _hamming(name, window_length, periodic, alpha, beta, dtype, layout, device, requires_grad):
    def body(n, dt, dev):
        w = _G.arange(n, dtype=dt, device=dev) * (math.pi * 2.0 / (n - 1))
        return w.cos() * -beta + alpha

    return _window(name, window_length, periodic, dtype, layout, device, requires_grad, body)


@honours_default_device
def hann_window(window_length, periodic=True, *, dtype=None, layout=None, device=None,
                pin_memory=False, requires_grad=False):
    """`gradrs.hann_window(window_length, periodic=True)`: the Hamming window with
    alpha = beta = 0.5.

    Examples:
        >>> gradrs.hann_window(4)
        tensor([0.0000, 0.5000, 1.0000, 0.5000])
    """
    return _hamming("hann_window", window_length, periodic, 0.5, 0.5, dtype, layout, device,
                    requires_grad)


@honours_default_device
def bartlett_window(window_length, periodic=True, *, dtype=None, layout=None, device=None,
                    pin_memory=False, requires_grad=False):
    """`gradrs.bartlett_window(window_length, periodic=True)`: the triangular window.

    Examples:
        >>> gradrs.bartlett_window(5, False)
        tensor([0.0000, 0.5000, 1.0000, 0.5000, 0.0000])
    """
    def body(n, dt, dev):
        w = _G.arange(n, dtype=dt, device=dev) * (2.0 / (n - 1))
        half = ((n - 1) >> 1) + 1
        return _G.cat([w[:half], 2 - w[half:]])

    return _window("bartlett_window", window_length, periodic, dtype, layout, device,
                   requires_grad, body)


@honours_default_device
def blackman_window(window_length, periodic=True, *, dtype=None, layout=None, device=None,
                    pin_memory=False, requires_grad=False):
    """`gradrs.blackman_window(window_length, periodic=True)`:
    0.42 - 0.5 cos(2 pi k / (N - 1)) + 0.08 cos(4 pi k / (N - 1)).

    Examples:
        >>> gradrs.blackman_window(3, False, dtype=gradrs.float64).round(decimals=4)
        tensor([0., 1., 0.], dtype=gradrs.float64)
    """
    def body(n, dt, dev):
        w = _G.arange(n, dtype=dt, device=dev) * (math.pi / (n - 1))
        return (w * 4).cos() * 0.08 - (w * 2).cos() * 0.5 + 0.42

    return _window("blackman_window", window_length, periodic, dtype, layout, device,
                   requires_grad, body)


@honours_default_device
def kaiser_window(window_length, periodic=True, beta=12.0, *, dtype=None, layout=None,
                  device=None, pin_memory=False, requires_grad=False):
    """`gradrs.kaiser_window(window_length, periodic=True, beta=12.0)`:
    I0(beta sqrt(1 - ((k - a) / a) ** 2)) / I0(beta), a = (N - 1) / 2.

    Examples:
        >>> gradrs.kaiser_window(3, False, 0.0)
        tensor([1., 1., 1.])
    """
    def body(n, dt, dev):
        a = (n - 1) / 2.0
        k = _G.arange(n, dtype=dt, device=dev)
        return _G.special.i0(beta * (1 - ((k - a) / a) ** 2).sqrt()) / _G.special.i0(
            _G.tensor(beta, dtype=dt, device=dev))

    return _window("kaiser_window", window_length, periodic, dtype, layout, device,
                   requires_grad, body)
