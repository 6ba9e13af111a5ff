"""In-place view ops (`t_`, `transpose_` / `swapdims_` / `swapaxes_`, `squeeze_`, `unsqueeze_`,
`as_strided_`) and the views by geometry (`as_strided`, `as_strided_copy`,
`as_strided_scatter`, `empty_strided`, `new_empty_strided`), compared with PyTorch: values,
shape / stride / storage offset, shared memory, version counter, `_base`, grad_fn names and
saved values, gradients (as_strided's overlapping geometries included), second derivatives and
errors. (`tests/test_inplace_views.py` is about in-place ops *through* views.)
"""

from __future__ import annotations

import pytest
from conftest import check, check_error, node_name

pytestmark = pytest.mark.usefixtures("restore_grad_mode")


def _meta(t):
    return tuple(t.shape), t.stride(), t.storage_offset()


def _saved(fn):
    if fn is None:
        return None
    return {k: getattr(fn, k) for k in dir(fn) if k.startswith("_saved_")}


def _x(M, *shape):
    n = 1
    for s in shape:
        n *= s
    return (M.arange(n, dtype=M.float64) + 1).reshape(shape).clone()


INPLACE = {
    "t_": (lambda t: t.t_(), (2, 3)),
    "t_1d": (lambda t: t.t_(), (4,)),
    "transpose_": (lambda t: t.transpose_(0, 2), (2, 3, 4)),
    "transpose_neg": (lambda t: t.transpose_(-1, 0), (2, 3, 4)),
    "swapdims_": (lambda t: t.swapdims_(0, 1), (2, 3, 4)),
    "swapaxes_": (lambda t: t.swapaxes_(axis0=1, axis1=2), (2, 3, 4)),
    "squeeze_": (lambda t: t.squeeze_(), (2, 1, 3, 1)),
    "squeeze_dim": (lambda t: t.squeeze_(1), (2, 1, 3, 1)),
    "squeeze_dim_kw": (lambda t: t.squeeze_(dim=-1), (2, 1, 3, 1)),
    "squeeze_dims": (lambda t: t.squeeze_((1, 3)), (2, 1, 3, 1)),
    "squeeze_dims_list": (lambda t: t.squeeze_([0, 1]), (2, 1, 3, 1)),
    "unsqueeze_": (lambda t: t.unsqueeze_(1), (2, 3)),
    "unsqueeze_neg": (lambda t: t.unsqueeze_(-1), (2, 3)),
    "as_strided_": (lambda t: t.as_strided_((3, 2), (1, 3)), (2, 3)),
    "as_strided_offset": (lambda t: t.as_strided_((2, 2), (1, 2), 1), (2, 3)),
    "as_strided_overlap": (lambda t: t.as_strided_((3, 3), (1, 1)), (6,)),
}


@pytest.mark.parametrize("name", sorted(INPLACE))
def test_inplace_view_op(name):
    op, shape = INPLACE[name]

    def f(M):
        leaf = _x(M, *shape).requires_grad_()
        b = leaf * 1
        v0, ptr = b._version, b.data_ptr()
        r = op(b)
        out = [r is b, _meta(b), b._version - v0, b.data_ptr() == ptr, b._is_view(),
               node_name(b.grad_fn), _saved(b.grad_fn), b.clone()]
        (b * b).sum().backward()
        out.append(leaf.grad)
        # second derivative
        leaf2 = _x(M, *shape).requires_grad_()
        b2 = leaf2 * leaf2
        op(b2)
        (g,) = M.autograd.grad((b2 * b2).sum(), leaf2, create_graph=True)
        g.sum().backward()
        return out + [g, leaf2.grad]

    check(f)


@pytest.mark.parametrize("name", sorted(INPLACE))
def test_inplace_view_op_no_grad(name):
    op, shape = INPLACE[name]

    def f(M):
        x = _x(M, *shape)
        v0 = x._version
        op(x)
        leaf = _x(M, *shape).requires_grad_()
        with M.no_grad():
            op(leaf)
        return _meta(x), x._version - v0, x, _meta(leaf), leaf.is_leaf, leaf.requires_grad, \
            leaf.grad_fn is None

    check(f)


def test_inplace_view_op_on_view():
    def f(M):
        leaf = _x(M, 2, 3).requires_grad_()
        b = leaf * 1
        v = b[0]
        v.unsqueeze_(0)
        names = [node_name(v.grad_fn), node_name(b.grad_fn), v._base is b, _meta(v)]
        b.mul_(2)  # the base written: the view's history is rebuilt from it
        names.append(node_name(v.grad_fn))
        v.sum().backward()
        leaf2 = _x(M, 2, 3).requires_grad_()
        b2 = leaf2 * 1
        w = b2.t()
        w.t_()
        w.mul_(3)  # the view written after its in-place view op
        names += [node_name(b2.grad_fn), node_name(w.grad_fn), _meta(w)]
        (b2 * b2).sum().backward()
        return names, leaf.grad, leaf2.grad, b2

    check(f)


def test_inplace_view_op_shares_memory():
    def f(M):
        x = _x(M, 2, 3)
        a = x.view(6)
        x.t_()
        x[0, 1] = 100.0
        return x, a, _meta(x), x._base is None, a._base is x

    check(f)


INPLACE_ERRORS = {
    "leaf": lambda M: _x(M, 2, 3).requires_grad_().t_(),
    "view_of_leaf": lambda M: _x(M, 2, 3).requires_grad_()[0].unsqueeze_(0),
    "t_3d": lambda M: _x(M, 2, 3, 4).t_(),
    "transpose_range": lambda M: _x(M, 2, 3).transpose_(0, 2),
    "squeeze_range": lambda M: _x(M, 2, 3).squeeze_(2),
    "squeeze_repeated": lambda M: _x(M, 2, 3).squeeze_((0, 0)),
    "squeeze_none": lambda M: _x(M, 2, 3).squeeze_(None),
    "unsqueeze_range": lambda M: _x(M, 2, 3).unsqueeze_(3),
    "as_strided_bounds": lambda M: _x(M, 2, 3).as_strided_((3, 3), (2, 2)),
    "as_strided_offset": lambda M: _x(M, 2, 3).as_strided_((2,), (1,), -1),
}


@pytest.mark.parametrize("name", sorted(INPLACE_ERRORS))
def test_inplace_view_op_errors(name):
    check_error(INPLACE_ERRORS[name])


def test_inplace_view_op_no_grad_view_error():
    def f(M):
        b = _x(M, 2, 3).requires_grad_() * 1
        with M.no_grad():
            v = b.view(3, 2)
        v.t_()

    check_error(f)


def test_inference_tensor_inplace_view():
    def f(M):
        with M.inference_mode():
            i = M.zeros(2, 3)
        i.t_()

    check_error(f)

    def g(M):
        with M.inference_mode():
            i = M.zeros(2, 3)
            i.t_()
        return _meta(i)

    check(g)


# ---- as_strided and its family --------------------------------------------------------------

AS_STRIDED = {
    "plain": ((3, 2), (1, 3), None),
    "offset": ((2, 2), (1, 2), 1),
    "overlap": ((3, 3), (1, 1), None),
    "overlap_offset": ((3, 2), (1, 2), 1),
    "expanded": ((2, 3), (0, 1), 2),
    "size1": ((1, 3, 1), (5, 2, 7), 0),
    "empty": ((0, 2), (1, 2), 100),
    "scalar": ((), (), 4),
}


@pytest.mark.parametrize("name", sorted(AS_STRIDED))
def test_as_strided(name):
    size, stride, off = AS_STRIDED[name]

    def f(M):
        x = _x(M, 6).requires_grad_()
        y = M.as_strided(x, size, stride, off) if off is not None else x.as_strided(size, stride)
        out = [y, _meta(y), y._base is x, node_name(y.grad_fn), _saved(y.grad_fn)]
        (y * y).sum().backward()
        out.append(x.grad)
        # through a non-contiguous input
        x2 = _x(M, 3, 2).requires_grad_()
        z = x2.t()
        y2 = z.as_strided(size, stride, off)
        (g,) = M.autograd.grad((y2 * y2).sum(), x2, create_graph=True)
        out.append(g)
        if g.requires_grad:
            g.sum().backward()
            out.append(x2.grad)
        return out

    check(f)


def test_as_strided_input_overlap():
    def f(M):
        base = _x(M, 6).requires_grad_()
        b = base * 1
        inp = b.as_strided((3, 2), (1, 1))  # overlapping input
        y = inp.as_strided((2, 2), (2, 1), 1)
        (y * M.arange(4.0, dtype=M.float64).reshape(2, 2)).sum().backward()
        return y, base.grad

    check(f)


def test_as_strided_shares_memory():
    def f(M):
        x = _x(M, 6)
        y = x.as_strided((2, 2), (1, 2), 1)
        y[0, 0] = 50.0
        return x, y, y.data_ptr() - x.data_ptr(), x._version

    check(f)


AS_STRIDED_ERRORS = {
    "bounds": lambda M: M.as_strided(_x(M, 6), (3, 3), (2, 2)),
    "bounds_offset": lambda M: _x(M, 6).as_strided((2, 2), (1, 2), storage_offset=10),
    "negative_offset": lambda M: _x(M, 6).as_strided((2, 2), (1, 2), -1),
    "negative_stride": lambda M: _x(M, 6).as_strided((2, 2), (1, -2)),
    "negative_size": lambda M: _x(M, 6).as_strided((2, -2), (1, 2)),
    "lengths": lambda M: _x(M, 6).as_strided((2, 2), (1,)),
    "scatter_size": lambda M: M.as_strided_scatter(_x(M, 6), M.ones(3, 2, dtype=M.float64),
                                                    (2, 2), (1, 2)),
    "scatter_noncontiguous_grad": lambda M: M.as_strided_scatter(
        _x(M, 3, 2).t().requires_grad_(), M.zeros(3, dtype=M.float64), (3,), (1,)),
    "empty_strided_negative": lambda M: M.empty_strided((2, -3), (1, 1)),
    "empty_strided_lengths": lambda M: M.empty_strided((2, 3), (1,)),
    "empty_strided_stride": lambda M: M.empty_strided((2, 3), (1, -1)),
}


@pytest.mark.parametrize("name", sorted(AS_STRIDED_ERRORS))
def test_as_strided_errors(name):
    check_error(AS_STRIDED_ERRORS[name])


def test_as_strided_copy():
    def f(M):
        x = _x(M, 6).requires_grad_()
        y = M.as_strided_copy(x, (3, 3), (1, 1))
        out = [y, _meta(y), y._base is None, node_name(y.grad_fn)]
        y.backward(M.arange(9.0, dtype=M.float64).reshape(3, 3))
        return out + [x.grad]

    check(f)


@pytest.mark.parametrize("offset", [None, 1])
def test_as_strided_scatter(offset):
    def f(M):
        x = _x(M, 6).requires_grad_()
        src = (M.arange(4.0, dtype=M.float64) * 10).reshape(2, 2).requires_grad_()
        if offset is None:
            y = M.as_strided_scatter(x, src, (2, 2), (1, 2))
        else:
            y = x.as_strided_scatter(src, (2, 2), (1, 2), offset)
        out = [y, _meta(y), node_name(y.grad_fn), _saved(y.grad_fn)]
        w = M.arange(6.0, dtype=M.float64) + 1
        gx, gs = M.autograd.grad((y * y * w).sum(), (x, src), create_graph=True)
        (gx.sum() + gs.sum()).backward()
        return out + [gx, gs, x.grad, src.grad]

    check(f)


def test_as_strided_scatter_dense_transposed():
    def f(M):
        x = _x(M, 3, 2).t()
        return M.as_strided_scatter(x, M.zeros(2), (2,), (1,), 2)

    check(f)


def test_empty_strided():
    def f(M):
        e = M.empty_strided((2, 3), (1, 2), dtype=M.float64, requires_grad=True)
        n = M.ones(2, dtype=M.float32).new_empty_strided((3, 2), (1, 3))
        m = M.ones(2).new_empty_strided([2, 2], [2, 1], dtype=M.float64)
        z = M.empty_strided((2, 0), (5, 1))
        s = M.empty_strided((), ())
        return [(_meta(t), t.dtype, t.requires_grad, t.is_leaf)
                for t in (e, n, m, z, s)]

    check(f)


def test_empty_strided_negative_strides():
    # c10's set_sizes_and_strides: a negative stride (allowed on a dim of size 0 or 1) is
    # replaced by the next dim's stride times its size, or 1 on the last dim.
    def f(M):
        out = []
        for size, stride in [((1,), (-1,)), ((2, 1), (1, -5)), ((1, 2), (-3, 1)), ((0,), (-1,)),
                             ((0, 3), (-1, 1)), ((2, 0), (-1, 1)), ((1, 1), (-1, -1)),
                             ((3, 1, 2), (2, -1, 1)), ((1,), (7,))]:
            t = M.empty_strided(size, stride)
            out.append((_meta(t), t.is_contiguous()))
        return out

    check(f)


@pytest.mark.parametrize("stride", [(-1,), (0, -1)])
def test_empty_strided_negative_stride_errors(stride):
    check_error(lambda M: M.empty_strided((2,) * len(stride), stride))


# ---- on the GPU: the metadata ops work there -------------------------------------------------


def test_inplace_view_ops_on_gpu():
    from conftest import G

    if not G.cuda.is_available():
        pytest.skip("no GPU adapter")
    x = (G.arange(12.0) + 1).reshape(3, 4).to("gpu").requires_grad_()
    b = x * 2
    b.t_().unsqueeze_(0).squeeze_(0).transpose_(0, 1)
    assert b.device.type != "cpu" and tuple(b.shape) == (3, 4)
    y = b.as_strided((2, 2), (1, 1), 1)
    z = G.as_strided_scatter(b, G.zeros(2, 2, device=b.device), (2, 2), (4, 1))
    ((y * y).sum() + z.sum()).backward()
    ref = (G.arange(12.0) + 1).reshape(3, 4).requires_grad_()
    rb = ref * 2
    rb.t_().unsqueeze_(0).squeeze_(0).transpose_(0, 1)
    ry = rb.as_strided((2, 2), (1, 1), 1)
    rz = G.as_strided_scatter(rb, G.zeros(2, 2), (2, 2), (4, 1))
    ((ry * ry).sum() + rz.sum()).backward()
    assert y.cpu().tolist() == ry.tolist()
    assert z.cpu().tolist() == rz.tolist()
    assert x.grad.cpu().tolist() == ref.grad.tolist()
    e = G.empty_strided((2, 3), (1, 2), device="gpu")
    assert e.stride() == (1, 2) and e.device.type != "cpu"


# ---- resize_ / resize_as_ / resize / resize_as ----------------------------------------------


def test_resize_():
    def f(M):
        x = _x(M, 6)
        v0, out = x._version, []
        for sizes in [(6,), (2, 3), (2, 3), (2,), (5,), (3, 3)]:
            r = x.resize_(*sizes)
            # the elements PyTorch leaves undefined (past the old storage) are not compared
            out += [r is x, _meta(x), x._version - v0, x.flatten()[:6]]
        x.resize_([2, 2])
        out.append(_meta(x))
        ptr = x.data_ptr()
        x.resize_((0,))
        out += [_meta(x)]
        x.resize_(6)  # the storage was kept
        out.append(x.data_ptr() == ptr)
        return out + [x]

    check(f)


def test_resize_shares_the_grown_storage():
    def f(M):
        x = _x(M, 6)
        v = x.view(2, 3)
        w = x[1:3]
        w.resize_(10)  # a view grows the storage it shares with its base
        out = [_meta(w), w._base is x, w.data_ptr() - x.data_ptr(),
               v.data_ptr() == x.data_ptr(), w[:5]]
        w[0] = 100.0
        out += [x, v]
        t = M.empty(2, 3).t()
        out += [t.resize_(3, 2).stride(), t.resize_(2, 3).stride(), t.resize_(6).stride()]
        return out

    check(f)


def test_resize_as():
    def f(M):
        x = _x(M, 6)
        y = x.resize_as_(M.zeros(2, 3))
        z = M.resize_as_(x, M.zeros(3, 2))
        return y is x, z is x, _meta(x), x

    check(f)


def test_resize_memory_format():
    def f(M):
        out = []
        for sizes, fmt in [((2, 3, 2, 2), M.channels_last), ((2, 3, 2, 2, 2), M.channels_last_3d),
                           ((2, 3, 4), M.contiguous_format), ((4, 6), None)]:
            x = M.arange(60.0)[2:]
            r = x.resize_(*sizes, memory_format=fmt)
            out += [r is x, _meta(x), x.is_contiguous(), x.flatten()[:6]]
        # the same sizes in another format restride the tensor
        y = M.arange(24.0).view(2, 3, 2, 2)
        out.append(_meta(y.resize_(2, 3, 2, 2, memory_format=M.channels_last)))
        out.append(_meta(y.resize_(2, 3, 2, 2, memory_format=M.contiguous_format)))
        # resize_as_: preserve_format takes the template's suggested format
        cl = M.zeros(2, 3, 2, 2).contiguous(memory_format=M.channels_last)
        for template, fmt in [(cl, M.preserve_format), (cl, None), (cl, M.contiguous_format),
                              (M.zeros(2, 3, 2, 2), M.channels_last),
                              (M.zeros(2, 3, 2, 2, 2).contiguous(
                                  memory_format=M.channels_last_3d), M.preserve_format),
                              (M.zeros(1, 3, 1, 1).contiguous(memory_format=M.channels_last),
                               M.preserve_format),
                              (M.zeros(2, 3).t(), M.preserve_format)]:
            z = M.arange(30.0)
            out.append(_meta(z.resize_as_(template, memory_format=fmt)))
        out.append(_meta(M.resize_as_(M.arange(30.0), cl, memory_format=M.preserve_format)))
        return out

    check(f)


RESIZE_FORMAT_ERRORS = {
    "preserve": lambda M: M.arange(24.0).resize_(2, 3, 4, memory_format=M.preserve_format),
    "channels_last_rank": lambda M: M.arange(24.0).resize_(6, 4, memory_format=M.channels_last),
    "channels_last_3d_rank": lambda M: M.arange(24.0).resize_(
        2, 3, 4, memory_format=M.channels_last_3d),
    "resize_as_rank": lambda M: M.arange(24.0).resize_as_(
        M.zeros(6, 4), memory_format=M.channels_last),
    "not_a_format": lambda M: M.arange(24.0).resize_(6, 4, memory_format=1),
}


@pytest.mark.parametrize("name", sorted(RESIZE_FORMAT_ERRORS))
def test_resize_memory_format_errors(name):
    check_error(RESIZE_FORMAT_ERRORS[name])


def test_resize_preserve_format_resizes_first():
    # ATen's _resize_ resizes, then refuses preserve_format
    def f(M):
        x = M.arange(4.0)
        try:
            x.resize_(2, 2, memory_format=M.preserve_format)
        except RuntimeError:
            pass
        return _meta(x)

    check(f)


RESIZE_ERRORS = {
    "requires_grad": lambda M: _x(M, 6).requires_grad_().resize_(2, 3),
    "non_leaf": lambda M: (_x(M, 6).requires_grad_() * 1).resize_(7),
    "negative": lambda M: _x(M, 6).resize_(2, -3),
    "from_numpy": lambda M: M.from_numpy(__import__("numpy").arange(4.0)).resize_(10),
    "resize_as_requires_grad": lambda M: _x(M, 6).requires_grad_().resize_as_(M.zeros(2, 3)),
    "out_of_place_numel": lambda M: _x(M, 6).requires_grad_().resize(7),
}


@pytest.mark.parametrize("name", sorted(RESIZE_ERRORS))
def test_resize_errors(name):
    check_error(RESIZE_ERRORS[name])


def test_resize_requires_grad_under_no_grad():
    def f(M):
        x = _x(M, 6).requires_grad_()
        with M.no_grad():
            x.resize_(2, 3)

    check_error(f)


def test_resize_out_of_place():
    import warnings

    def f(M):
        with warnings.catch_warnings(record=True) as w:
            warnings.simplefilter("always")
            x = _x(M, 6).requires_grad_()
            z = x.resize(3, 2)
            y = x.resize_as(M.zeros(2, 3))
            (z.sum() * 2 + (y * y).sum()).backward()
        return z, y, node_name(z.grad_fn), z._base is x, x.grad, [str(i.message) for i in w]

    check(f)


def test_resize_on_gpu():
    from conftest import G

    if not G.cuda.is_available():
        pytest.skip("no GPU adapter")
    x = G.arange(6.0).to("gpu")
    x.resize_(2, 2)
    assert x.device.type != "cpu" and x.cpu().tolist() == [[0.0, 1.0], [2.0, 3.0]]
    x.resize_(6)
    assert x.cpu().tolist() == [0.0, 1.0, 2.0, 3.0, 4.0, 5.0]
    with pytest.raises(RuntimeError, match="GPU tensor cannot grow"):
        x.resize_(7)
