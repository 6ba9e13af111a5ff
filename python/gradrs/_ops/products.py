"""Products: `inner`, `vdot`, `addmv` / `addr` / `baddbmm` / `addbmm` (and their in-place
forms), `outer` / `ger` methods, `kron`.
"""

import builtins

from .._deprecated_overloads import beta_first_function as _beta_first_function
from .._forms import with_out as _with_out
from .._grad_mode import no_grad as _no_grad
from .._native import Tensor
from ..functional import _check_tensor, _dtype_name
from .._reduce_ops import _parsed
from ._common import _as_method, _G, _if, _node, _recomputed_in_place, _reduce_to

__all__ = [
    "addbmm", "addmv", "addr", "baddbmm", "inner", "vdot", "kron", "addmv_",
]


def inner(input, other, *, out=None):
    """`gradrs.inner(input, other)`: the sum over the last dims (a product with a 0-D input),
    as PyTorch's `tensordot` (mm, then a view: ViewBackward0).

    Examples:
        >>> gradrs.inner(gradrs.tensor([1.0, 2.0]), gradrs.tensor([3.0, 4.0]))
        tensor(11.)
    """
    if out is not None:
        return _with_out("inner", out, lambda: inner(input, other), (input, other))
    if input.dim() == 0 or other.dim() == 0:
        return input * other
    if input.shape[-1] != other.shape[-1]:
        raise RuntimeError(f"inner() the last dimension must match on both input tensors but "
                           f"got shapes {list(input.shape)} and {list(other.shape)}")
    k = input.shape[-1]
    a = input.reshape(-1, k)
    b = other.reshape(-1, k)
    return a.mm(b.t()).reshape(tuple(input.shape[:-1]) + tuple(other.shape[:-1]))


def vdot(input, other, *, out=None):
    """`gradrs.vdot(input, other)`: the dot product of two 1-D tensors (VdotBackward0).

    Examples:
        >>> gradrs.vdot(gradrs.tensor([1.0, 2.0]), gradrs.tensor([3.0, 4.0]))
        tensor(11.)
    """
    if out is not None:
        return _with_out("vdot", out, lambda: vdot(input, other), (input, other))
    _check_tensor("vdot", "input", 1, input)
    _check_tensor("vdot", "other", 2, other)
    if input.dim() != 1 or other.dim() != 1:
        raise RuntimeError(f"1D tensors expected, but got {input.dim()}D and {other.dim()}D "
                           "tensors")
    if input.dtype != other.dtype:
        raise RuntimeError(f"dot : expected both vectors to have same dtype, but found "
                           f"{_dtype_name(input.dtype)} and {_dtype_name(other.dtype)}")
    if input.numel() != other.numel():
        raise RuntimeError(
            f"inconsistent tensor size, expected tensor [{input.numel()}] and src "
            f"[{other.numel()}] to have the same number of elements, but got {input.numel()} "
            f"and {other.numel()} elements respectively")
    with _no_grad():
        res = input.dot(other)
    return _node("VdotBackward0", res, [input, other],
                 lambda g: (g * other if input.requires_grad else None,
                            g * input if other.requires_grad else None),
                 saved=[("other", _if(other, input.requires_grad)),
                        ("self", _if(input, other.requires_grad))])


def _beta_alpha(name, input, beta, alpha):
    """PyTorch's scalars for an integer input: addr refuses floats, the others truncate them."""
    if input.is_floating_point() or input.dtype == _G.bool:
        return beta, alpha
    if name == "addr":
        for v, n in ((beta, "beta"), (alpha, "alpha")):
            if isinstance(v, float):
                raise RuntimeError(f"For integral input tensors, argument {n} must not be a "
                                   "floating point number.")
    return int(beta), int(alpha)


def _affine(input, prod, beta, alpha):
    """`beta * input + alpha * prod` (input ignored, NaN included, when beta is 0)."""
    scaled = prod if alpha == 1 else prod * alpha
    if beta == 0:
        shape = _G.broadcast_shapes(input.shape, prod.shape)
        return scaled.expand(shape).clone()
    return (input if beta == 1 else input * beta) + scaled


def _scaled(g, s):
    return g if s == 1 else g * s


def addmv(input, mat, vec, *, beta=1, alpha=1, out=None):
    """`gradrs.addmv(input, mat, vec, *, beta=1, alpha=1)`: `beta * input + alpha * mat @ vec`
    (AddmvBackward0).

    Examples:
        >>> gradrs.addmv(gradrs.ones(2), gradrs.ones(2, 3), gradrs.ones(3))
        tensor([4., 4.])
    """
    if out is not None:
        return _with_out("addmv", out,
                         lambda: addmv(input, mat, vec, beta=beta, alpha=alpha), (input, mat, vec))
    if mat.dim() != 2 or vec.dim() != 1 or input.dim() > 1:
        raise RuntimeError(f"vector + matrix @ vector expected, got {input.dim()}, {mat.dim()}, "
                           f"{vec.dim()}")
    if mat.shape[1] != vec.shape[0] or (input.dim() == 1 and input.shape[0] not in
                                        (1, mat.shape[0])):
        inp = "x".join(map(str, input.shape))
        raise RuntimeError(f"size mismatch, got input ({inp}), mat ({mat.shape[0]}x"
                           f"{mat.shape[1]}), vec ({vec.shape[0]})")
    beta, alpha = _beta_alpha("addmv", input, beta, alpha)
    with _no_grad():
        res = _affine(input, mat.mv(vec), beta, alpha)

    def backward(g):
        return (_reduce_to(_scaled(g, beta), input.shape) if input.requires_grad else None,
                _scaled(g.unsqueeze(1) * vec.unsqueeze(0), alpha) if mat.requires_grad else None,
                _scaled(mat.t().mv(g), alpha) if vec.requires_grad else None)

    return _node("AddmvBackward0", res, [input, mat, vec], backward,
                 saved=[("alpha", alpha), ("beta", beta), ("mat", _if(mat, vec.requires_grad)),
                        ("vec", _if(vec, mat.requires_grad))])


def addr(input, vec1, vec2, *, beta=1, alpha=1, out=None):
    """`gradrs.addr(input, vec1, vec2, *, beta=1, alpha=1)`: `beta * input + alpha * outer(vec1,
    vec2)` (AddrBackward0).

    Examples:
        >>> gradrs.addr(gradrs.zeros(2, 2), gradrs.tensor([1.0, 2.0]), gradrs.tensor([3.0, 4.0]))
        tensor([[3., 4.],
                [6., 8.]])
    """
    if out is not None:
        return _with_out("addr", out,
                         lambda: addr(input, vec1, vec2, beta=beta, alpha=alpha),
                         (input, vec1, vec2))
    for v, n in ((vec1, "vec1"), (vec2, "vec2")):
        if v.dim() != 1:
            raise RuntimeError(f"addr: Expected 1-D argument {n}, but got {v.dim()}-D")
    beta, alpha = _beta_alpha("addr", input, beta, alpha)
    target = (vec1.shape[0], vec2.shape[0])
    input.expand(target)  # PyTorch's broadcasting check and message
    with _no_grad():
        res = _affine(input, vec1.unsqueeze(1) * vec2.unsqueeze(0), beta, alpha)

    def backward(g):
        return (_reduce_to(_scaled(g, beta), input.shape) if input.requires_grad else None,
                _scaled(g.mv(vec2), alpha) if vec1.requires_grad else None,
                _scaled(g.t().mv(vec1), alpha) if vec2.requires_grad else None)

    return _node("AddrBackward0", res, [input, vec1, vec2], backward,
                 saved=[("alpha", alpha), ("beta", beta),
                        ("vec1", _if(vec1, vec2.requires_grad)),
                        ("vec2", _if(vec2, vec1.requires_grad))])


def _check_bmm(batch1, batch2, baddbmm=False):
    for b, n in ((batch1, "batch1"), (batch2, "batch2")):
        if b.dim() != 3:
            raise RuntimeError(f"{n} must be a 3D tensor")
    want = [batch1.shape[0], batch1.shape[2]]
    if baddbmm and list(batch2.shape[:2]) != want:
        raise RuntimeError(f"Expected size for first two dimensions of batch2 tensor to be: "
                           f"{want} but got: {list(batch2.shape[:2])}.")
    if batch1.shape[0] != batch2.shape[0]:
        raise RuntimeError(f"batch1 and batch2 must have same number of batches, got "
                           f"{batch1.shape[0]} and {batch2.shape[0]}")
    if batch1.shape[2] != batch2.shape[1]:
        raise RuntimeError(f"Incompatible matrix sizes for bmm ({batch1.shape[1]}x"
                           f"{batch1.shape[2]} and {batch2.shape[1]}x{batch2.shape[2]})")


def baddbmm(input, batch1, batch2, *, beta=1, alpha=1, out=None):
    """`gradrs.baddbmm(input, batch1, batch2, *, beta=1, alpha=1)`: `beta * input + alpha *
    batch1 @ batch2`, batch by batch (BaddbmmBackward0).

    Examples:
        >>> gradrs.baddbmm(gradrs.zeros(1, 2, 2), gradrs.ones(1, 2, 3), gradrs.ones(1, 3, 2))
        tensor([[[3., 3.],
                 [3., 3.]]])
    """
    if out is not None:
        return _with_out("baddbmm", out,
                         lambda: baddbmm(input, batch1, batch2, beta=beta, alpha=alpha),
                         (input, batch1, batch2))
    _check_bmm(batch1, batch2, True)
    beta, alpha = _beta_alpha("baddbmm", input, beta, alpha)
    input.expand(batch1.shape[0], batch1.shape[1], batch2.shape[2])
    with _no_grad():
        res = _affine(input, batch1.bmm(batch2), beta, alpha)

    def backward(g):
        return (_reduce_to(_scaled(g, beta), input.shape) if input.requires_grad else None,
                _scaled(g.bmm(batch2.transpose(1, 2)), alpha) if batch1.requires_grad else None,
                _scaled(batch1.transpose(1, 2).bmm(g), alpha) if batch2.requires_grad else None)

    return _node("BaddbmmBackward0", res, [input, batch1, batch2], backward,
                 saved=[("alpha", alpha), ("batch1", _if(batch1, batch2.requires_grad)),
                        ("batch2", _if(batch2, batch1.requires_grad)), ("beta", beta)])


def addbmm(input, batch1, batch2, *, beta=1, alpha=1, out=None):
    """`gradrs.addbmm(input, batch1, batch2, *, beta=1, alpha=1)`: `beta * input + alpha *` the
    sum over the batch of `batch1[i] @ batch2[i]` (AddbmmBackward0).

    Examples:
        >>> gradrs.addbmm(gradrs.zeros(2, 2), gradrs.ones(3, 2, 4), gradrs.ones(3, 4, 2))
        tensor([[12., 12.],
                [12., 12.]])
    """
    if out is not None:
        return _with_out("addbmm", out,
                         lambda: addbmm(input, batch1, batch2, beta=beta, alpha=alpha),
                         (input, batch1, batch2))
    _check_bmm(batch1, batch2)
    beta, alpha = _beta_alpha("addbmm", input, beta, alpha)
    input.expand(batch1.shape[1], batch2.shape[2])
    with _no_grad():
        res = _affine(input, batch1.bmm(batch2).sum(0), beta, alpha)

    def backward(g):
        n = batch1.shape[0]
        gb = g.unsqueeze(0).expand(n, *g.shape)
        return (_reduce_to(_scaled(g, beta), input.shape) if input.requires_grad else None,
                _scaled(gb.bmm(batch2.transpose(1, 2)), alpha) if batch1.requires_grad else None,
                _scaled(batch1.transpose(1, 2).bmm(gb), alpha) if batch2.requires_grad else None)

    return _node("AddbmmBackward0", res, [input, batch1, batch2], backward)
for _fn in (inner, vdot, addmv, addr, baddbmm, addbmm):
    setattr(Tensor, _fn.__name__, _as_method(_fn))
# PyTorch 1.x's (beta, input, [alpha,] m1, m2) forms, deprecated (_deprecated_overloads.py)
addmv = _beta_first_function(addmv)
addr = _beta_first_function(addr)
baddbmm = _beta_first_function(baddbmm)
addbmm = _beta_first_function(addbmm)


def _outer(self, vec2):
    """`Tensor.outer(vec2)` (and `ger`)."""
    from .. import outer

    return outer(self, vec2)
Tensor.outer = Tensor.ger = _outer


@_parsed("kron", ["(Tensor input, Tensor other, *, Tensor out = None)"],
         ["(Tensor other)"])
def kron(input, other, *, out=None):
    """`gradrs.kron(input, other)`: the Kronecker product, ATen's composition (a broadcast
    product of interleaved reshapes, then one _unsafe_view: UnsafeViewBackward0).

    Examples:
        >>> gradrs.kron(gradrs.tensor([1, 2]), gradrs.tensor([1, 10]))
        tensor([ 1, 10,  2, 20])
    """
    if out is not None:
        return _with_out("kron", out, lambda: kron(input, other), (input, other))
    n = builtins.max(input.dim(), other.dim())
    pad_a, pad_b = n - input.dim(), n - other.dim()
    a_shape, b_shape, res_shape = [], [], []
    for i in range(n):
        a = input.shape[i - pad_a] if i >= pad_a else 1
        b = other.shape[i - pad_b] if i >= pad_b else 1
        a_shape += [a, 1]
        b_shape += [1, b]
        res_shape.append(a * b)
    prod = input.reshape(a_shape) * other.reshape(b_shape)
    with _no_grad():
        res = prod.reshape(res_shape)
    return _node("UnsafeViewBackward0", res, [prod], lambda g: (g.reshape(prod.shape),),
                 save_inputs=())


for _fn in (kron,):
    setattr(Tensor, _fn.__name__, _fn._method)
Tensor.addmm_ = _recomputed_in_place(
    "addmm_", "AddmmBackward0", Tensor.addmm,
    out_shape=lambda a, b, *_: (a.shape[0], b.shape[1]) if a.dim() == b.dim() == 2 else None)
Tensor.addmv_ = _recomputed_in_place(
    "addmv_", "AddmvBackward0", Tensor.addmv,
    out_shape=lambda a, v, *_: (a.shape[0],) if a.dim() == 2 and v.dim() == 1 else None)
Tensor.addr_ = _recomputed_in_place(
    "addr_", "AddrBackward0", Tensor.addr,
    out_shape=lambda a, b, *_: (a.shape[0], b.shape[0]) if a.dim() == b.dim() == 1 else None)
Tensor.baddbmm_ = _recomputed_in_place(
    "baddbmm_", "BaddbmmBackward0", Tensor.baddbmm,
    out_shape=lambda a, b, *_: (a.shape[0], a.shape[1], b.shape[2])
    if a.dim() == b.dim() == 3 else None)
Tensor.addbmm_ = _recomputed_in_place(
    "addbmm_", "AddbmmBackward0", Tensor.addbmm,
    out_shape=lambda a, b, *_: (a.shape[1], b.shape[2]) if a.dim() == b.dim() == 3 else None)


def addmv_(input, mat, vec, *, beta=1, alpha=1):
    """`gradrs.addmv_(input, mat, vec, *, beta=1, alpha=1)`: `input.addmv_(...)`."""
    return input.addmv_(mat, vec, beta=beta, alpha=alpha)

del _fn
