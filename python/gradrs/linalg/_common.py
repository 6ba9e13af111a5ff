"""`gradrs.linalg`'s shared pieces: `LinAlgError`, the named tuple types, argument checks,
the differentiable helpers and `_record` (a factorization's outputs with one node of PyTorch's
name), and `_vmap_leading` (vmap's batch as one more leading batch dim).
"""

import builtins
import functools

from .. import _native, return_types
from .._native import Tensor


class _LinAlgError(RuntimeError):
    """PyTorch's `torch.linalg.LinAlgError`: a factorization failed on valid input (a singular
    or not positive-definite matrix)."""


_LinAlgError.__module__ = "gradrs._C"
LinAlgError = _LinAlgError



def _tuple_type(name, fields):
    t = return_types._make_type(name, fields)
    setattr(return_types, name, t)
    return t


_T_SLOGDET = _tuple_type("linalg_slogdet", ("sign", "logabsdet"))
_T_SLOGDET_OLD = _tuple_type("slogdet", ("sign", "logabsdet"))
_T_INV_EX = _tuple_type("linalg_inv_ex", ("inverse", "info"))
_T_SOLVE_EX = _tuple_type("linalg_solve_ex", ("result", "info"))
_T_CHOL_EX = _tuple_type("linalg_cholesky_ex", ("L", "info"))
_T_QR = _tuple_type("linalg_qr", ("Q", "R"))
_T_QR_OLD = _tuple_type("qr", ("Q", "R"))
_T_EIGH = _tuple_type("linalg_eigh", ("eigenvalues", "eigenvectors"))
_T_SVD = _tuple_type("linalg_svd", ("U", "S", "Vh"))
_T_SVD_OLD = _tuple_type("svd", ("U", "S", "V"))
_T_LU = _tuple_type("linalg_lu", ("P", "L", "U"))
_T_LU_FACTOR = _tuple_type("linalg_lu_factor", ("LU", "pivots"))
_T_LU_FACTOR_EX = _tuple_type("linalg_lu_factor_ex", ("LU", "pivots", "info"))
_T_LSTSQ = _tuple_type("linalg_lstsq", ("solution", "residuals", "rank", "singular_values"))



_NAMES = {"int64": "Long", "int32": "Int", "int16": "Short", "int8": "Char", "uint8": "Byte",
          "bool": "Bool", "float16": "Half", "bfloat16": "BFloat16", "float32": "Float",
          "float64": "Double"}


def _dname(dtype):
    return _NAMES.get(str(dtype).split(".")[-1], str(dtype))


def _is_float(t):
    return t.dtype in (_native.float32, _native.float64)


def _check_tensor(fn, name, pos, value):
    if not isinstance(value, Tensor):
        raise TypeError(f"{fn}(): argument '{name}' (position {pos}) must be Tensor, not "
                        f"{type(value).__name__}")


def _check_float(op, A, kernel=None):
    if not A.is_floating_point():
        raise RuntimeError(f"{op}: Expected a floating point or complex tensor as input. "
                           f"Got {_dname(A.dtype)}")
    if not _is_float(A):
        raise NotImplementedError(f"\"{kernel or 'linalg'}\" not implemented for "
                                  f"'{_dname(A.dtype)}'")


def _check_kernel(A, kernel):
    """The dtype check of an op PyTorch runs without checkFloatingOrComplex: anything but
    float32 / float64 reaches its CPU kernel's dispatch, a NotImplementedError naming it."""
    if not _is_float(A):
        raise NotImplementedError(f"\"{kernel}\" not implemented for '{_dname(A.dtype)}'")


def _check_dims(op, A):
    """The dimension check ATen's LU family words its own way: `op: Expected tensor with 2 or
    more dimensions. Got size: [...] instead` (lu_factor, linalg.lu, lu_unpack)."""
    if A.dim() < 2:
        raise RuntimeError(f"{op}: Expected tensor with 2 or more dimensions. Got size: "
                           f"{list(A.shape)} instead")


def _check_matrix(op, A, arg="A"):
    if A.dim() < 2:
        raise RuntimeError(f"{op}: The input tensor {arg} must have at least 2 dimensions.")


def _check_square(op, A):
    _check_matrix(op, A)
    if A.shape[-1] != A.shape[-2]:
        raise RuntimeError(f"{op}: A must be batches of square matrices, but they are "
                           f"{A.shape[-2]} by {A.shape[-1]} matrices")


def _low_precision(op, A):
    if A.is_floating_point() and not _is_float(A):
        raise RuntimeError(f"{op}: Low precision dtypes not supported. Got {_dname(A.dtype)}")


def _square_float(op, A, kernel=None):
    _check_square(op, A)
    _check_float(op, A, kernel)


def _batch_prefix(info, i):
    return f"(Batch element {i}): " if info.dim() > 0 else ""


def _first_failure(info):
    """(batch index, info value) of the first nonzero info, or None."""
    flat = info.detach().cpu().reshape(-1).tolist()
    for i, v in enumerate(flat):
        if v != 0:
            return i, v
    return None



def _mT(x):
    return x.transpose(-2, -1)


def _eye_like(n, like):
    return _native.eye(n, dtype=like.dtype, device=like.device)


def _diag_embed(v):
    n = v.shape[-1]
    return v.unsqueeze(-1) * _eye_like(n, v)


def _batch_shape(*shapes):
    out = []
    for s in shapes:
        s = list(s)
        pad = len(s) - len(out)
        if pad > 0:
            out = [1] * pad + out
        s = [1] * (len(out) - len(s)) + s
        for i, (a, b) in enumerate(zip(out, s)):
            if a != b and a != 1 and b != 1:
                raise RuntimeError("shape mismatch")
            out[i] = b if a == 1 else a
    return tuple(out)


def _tangent(t):
    """``t``'s forward-AD tangent at the live dual level, or None."""
    from ..autograd import forward_ad

    if forward_ad._current_level < 0 or not isinstance(t, Tensor):
        return None
    return forward_ad.unpack_dual(t).tangent


def _grad_wanted(*inputs):
    """Whether a differentiable path is wanted: an input requires grad (grad mode on) or
    carries a forward-AD tangent."""
    return (_native.is_grad_enabled() and any(
        isinstance(t, Tensor) and t.requires_grad for t in inputs)) or any(
        _tangent(t) is not None for t in inputs)


def _set_tangents(outputs, inputs, jvp):
    """Forward mode (PyTorch's forward formulas): ``jvp(tangents, outs)`` gives each output's
    tangent from the inputs' tangents (zeros where an input has none) and the outputs."""
    tangents = [_tangent(t) for t in inputs]
    if jvp is None or all(t is None for t in tangents) or not _native._is_fwd_grad_enabled():
        return
    tangents = [_native.zeros_like(x) if t is None and isinstance(x, Tensor) else t
                for x, t in zip(inputs, tangents)]
    _native._set_fwd_grad_enabled(False)  # the formulas' own ops carry no tangents
    try:
        # the outputs as recorded: a tangent keeps its history through them (jacfwd under grad)
        out_t = jvp(tangents, outputs)
    finally:
        _native._set_fwd_grad_enabled(True)
    for o, t in zip(outputs, out_t):
        if o is not None and t is not None and o.is_floating_point():
            t = t.to(o.dtype)
            if tuple(t.shape) != tuple(o.shape):
                t = t.expand(o.shape).contiguous()
            _native._set_tangent(o, _fresh_layout(t, o), fresh=True)  # kept with its history


def _fresh_layout(t, o):
    """`t` as a tensor of its own laid out as contiguous `o`, which `_set_tangent(fresh=True)`
    keeps as is, history included (a view such as a diagonal would be copied in without it)."""
    if not o.is_contiguous() or (t._base is None and t.storage_offset() == 0
                                 and t.is_contiguous()):
        return t
    return t.clone() if t.is_contiguous() else t.contiguous()


def _record(name, outputs, inputs, backward, recompute, jvp=None, saved=None):
    """Gives `outputs` (fresh tensors, or None for integer outputs) one node `name` over
    `inputs` when one of them requires grad. `backward(grads, outs)` returns a gradient (or
    None) per input from the output gradients (None where none flowed) and the outputs;
    `recompute()` gives the outputs again, differentiably, for `create_graph`;
    `jvp(tangents, outs)` the outputs' forward-mode tangents; `saved` the `(name, value)`s
    PyTorch's node of that name shows as `_saved_<name>` (tensors among `outputs` saved as
    outputs)."""
    # A result reshaped or squeezed from a temporary is no view, as PyTorch's are not: an
    # in-place op on it must record on this node, not rebase onto the hidden temporary.
    outputs = [o.detach() if o is not None and o._is_view() else o for o in outputs]
    if not (_native.is_grad_enabled() and any(
            isinstance(t, Tensor) and t.requires_grad for t in inputs)):
        _set_tangents(outputs, inputs, jvp)
        return outputs
    plain = [o.detach() if o is not None else None for o in outputs]
    attached = [o if o is not None and o.is_floating_point() else None for o in outputs]

    def run(grads):
        outs = recompute() if _native.is_grad_enabled() else plain
        return list(backward(list(grads), outs))

    # With `saved` (PyTorch's list for the node) only the tensors named there are saved and
    # version-checked, as in PyTorch: an input it does not save may change in place after.
    _native._attach_node(attached, list(inputs), name, run, saved=saved,
                         save_inputs=None if saved is None else ())
    _set_tangents(outputs, inputs, jvp)  # after: the formulas read the outputs' history
    return outputs


def _one_node(name, fn, *inputs, saved=None):
    from ..nn.functional import _one_node as one

    return one(name, fn, *inputs, saved=saved)


class _nograd:
    def __enter__(self):
        self.prev = _native.is_grad_enabled()
        _native._set_grad_enabled(False)

    def __exit__(self, *exc):
        _native._set_grad_enabled(self.prev)


# Under vmap (BatchedTensor arguments) the batch is one more leading batch dim of these
# functions: each runs once on the physical tensors (Note [vmap], `_vmap.leading_batch`).
def _vmap_leading(fn, vector_arg=None):
    @functools.wraps(fn)
    def wrapped(*args, **kwargs):
        if builtins.any(hasattr(type(a), "_vmap_level")
                        for a in list(args) + list(kwargs.values())):
            from .. import _vmap

            return _vmap.leading_batch(fn, args, kwargs, vector_arg)
        return fn(*args, **kwargs)
    return wrapped
