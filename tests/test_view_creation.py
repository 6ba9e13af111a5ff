"""Views made in no_grad mode, in inference mode or by an op returning several views (unbind,
split, chunk) carry PyTorch's CreationMeta: their grad_fn / requires_grad / is_leaf, and the
exact errors when they (or their base) are modified in place; and the `CopySlices` node an
in-place op on a view gives its base, whose `next_functions` are PyTorch's. All against torch."""

import pytest
from conftest import G, graph_tree, norm

pytestmark = pytest.mark.usefixtures("restore_grad_mode")


def info(v):
    fn = v.grad_fn
    return (None if fn is None else type(fn).__name__, v.requires_grad, v.is_leaf, v._is_view())


def _nonleaf(m, *shape):
    return m.ones(*shape, requires_grad=True).clone()


def nograd_view(m):
    a = _nonleaf(m, 3)
    with m.no_grad():
        v = a[:2]
    return info(v), info(a)


def nograd_view_of_leaf(m):
    a = m.ones(3, requires_grad=True)
    with m.no_grad():
        v = a[:2]
    return info(v)


def nograd_view_inplace(m):
    a = _nonleaf(m, 3)
    with m.no_grad():
        v = a[:2]
    v.mul_(2)


def nograd_view_of_leaf_inplace(m):
    a = m.ones(3, requires_grad=True)
    with m.no_grad():
        v = a[:2]
    v.mul_(2)


def nograd_view_inplace_other_requires_grad(m):
    a = m.ones(3)
    with m.no_grad():
        v = a[:2]
    v.mul_(m.ones(2, requires_grad=True))


def nograd_view_inplace_in_nograd_then_grad_fn(m):
    a = _nonleaf(m, 3)
    with m.no_grad():
        v = a[:2]
        v.mul_(2)
    return v.grad_fn


def nograd_view_base_modified_then_grad_fn(m):
    a = _nonleaf(m, 3)
    with m.no_grad():
        v = a[:2]
    a.mul_(2)
    return v.grad_fn


def nograd_view_base_modified_then_used(m):
    a = _nonleaf(m, 4)
    with m.no_grad():
        v = a[:2]
    a.mul_(2)
    return v.sum()


def nograd_view_base_modified_then_is_leaf(m):
    a = _nonleaf(m, 3)
    with m.no_grad():
        v = a[:2]
    a.mul_(2)
    return v.requires_grad, v.is_leaf


def nograd_view_base_modified_no_grad(m):
    a = m.ones(3)
    with m.no_grad():
        v = a[:2]
    a.mul_(2)
    return info(v), v.grad_fn


def view_of_nograd_view(m):
    a = _nonleaf(m, 3)
    with m.no_grad():
        v = a[:2]
    w = v[:1]
    return info(w), graph_tree(w.grad_fn)


def view_of_nograd_view_inplace(m):
    a = _nonleaf(m, 3)
    with m.no_grad():
        v = a[:2]
    v[:1].mul_(2)


def multi(op):
    def case(m):
        a = _nonleaf(m, 4, 2)
        outs = op(a)
        got = [info(o) for o in outs]
        outs[1].add_(1)
        return got, info(outs[1])
    case.__name__ = f"multi_{op.__name__}"
    return case


def split(a):
    return a.split(2)


def chunk(a):
    return a.chunk(2)


def unbind(a):
    return a.unbind(1)


def split_with_sizes(a):
    return a.split([1, 3])


def unbind_base_modified(m):
    a = _nonleaf(m, 4)
    v = a.unbind()[0]
    a.mul_(2)
    return v.grad_fn


def unbind_inplace_no_grad_then_grad_fn(m):
    a = _nonleaf(m, 4)
    v = a.unbind()[0]
    with m.no_grad():
        v.mul_(2)
    return info(a), v.grad_fn


def unbind_detach_inplace(m):
    a = _nonleaf(m, 4, 2)
    v = a.unbind()[0]
    v.detach().mul_(2)
    return info(v)


def split_no_grad_base(m):
    a = m.ones(4)
    x = a.split(2)[0]
    x.mul_(m.ones(2, requires_grad=True))


def view_of_unbind_inplace(m):
    a = _nonleaf(m, 4)
    a.unbind()[0][...].mul_(2)


def nograd_view_of_unbind_inplace(m):
    a = _nonleaf(m, 4)
    x = a.unbind()[0]
    with m.no_grad():
        y = x.view(1)
    y.mul_(2)


def nograd_unbind_inplace(m):
    a = _nonleaf(m, 4)
    with m.no_grad():
        v = a.unbind()[0]
    return info(v), v.mul_(2)


def inference_view(m):
    a = _nonleaf(m, 3)
    with m.inference_mode():
        v = a[:2]
    return info(v), v.is_inference()


def view_of_inference_tensor(m):
    with m.inference_mode():
        a = m.ones(3)
        w = a[:1]
    v = a[:2]
    return info(v), v.is_inference(), info(w), w._base is None


def inference_view_inplace(m):
    a = _nonleaf(m, 3)
    with m.inference_mode():
        v = a[:2]
    v.mul_(2)


def inference_view_inplace_inside(m):
    a = _nonleaf(m, 3)
    with m.inference_mode():
        v = a[:2]
        v.mul_(2)
    return info(a), a._version


def inference_view_base_modified(m):
    a = _nonleaf(m, 3)
    with m.inference_mode():
        v = a[:2]
    a.mul_(2)
    return v.grad_fn


def nograd_inside_inference_view(m):
    a = _nonleaf(m, 3)
    with m.inference_mode():
        v = a[:2]
    with m.no_grad():
        w = v[:1]
    w.mul_(2)


def default_view_inplace_in_nograd(m):
    a = _nonleaf(m, 3)
    v = a[:2]
    with m.no_grad():
        v.mul_(2)
    return info(v), info(a)


CASES = [
    nograd_view, nograd_view_of_leaf, nograd_view_inplace, nograd_view_of_leaf_inplace,
    nograd_view_inplace_other_requires_grad, nograd_view_inplace_in_nograd_then_grad_fn,
    nograd_view_base_modified_then_grad_fn, nograd_view_base_modified_then_used,
    nograd_view_base_modified_then_is_leaf,
    nograd_view_base_modified_no_grad, view_of_nograd_view, view_of_nograd_view_inplace,
    multi(split), multi(chunk), multi(unbind), multi(split_with_sizes),
    unbind_base_modified, unbind_inplace_no_grad_then_grad_fn, unbind_detach_inplace,
    split_no_grad_base, view_of_unbind_inplace, nograd_view_of_unbind_inplace,
    nograd_unbind_inplace, inference_view, view_of_inference_tensor, inference_view_inplace,
    inference_view_inplace_inside, inference_view_base_modified, nograd_inside_inference_view,
    default_view_inplace_in_nograd,
]


def outcome(m, case):
    """What `case` returns (nodes by name, tensors by value), or the error it raises."""
    try:
        r = case(m)
    except Exception as e:  # noqa: BLE001 - the error is what is compared
        return ("raises", type(e).__name__, str(e))
    return ("returns", _plain(r))


def _plain(r):
    if isinstance(r, (tuple, list)):
        return tuple(_plain(x) for x in r)
    if r is None or isinstance(r, (bool, int, float, str)):
        return r
    if hasattr(r, "tolist"):
        return ("tensor", r.tolist())
    return type(r).__name__


@pytest.mark.parametrize("case", CASES, ids=lambda c: c.__name__)
def test_view_creation_meta_matches_torch(torch, case):
    expected = outcome(torch, case)
    if expected[0] == "raises":
        expected = expected[:2] + (norm(expected[2]),)
    assert outcome(G, case) == expected


def test_no_grad_view_gets_no_gradient():
    a = G.ones(3, requires_grad=True)
    b = a.clone()
    with G.no_grad():
        v = b[:2]
    assert v.requires_grad and v.is_leaf and v.grad_fn is None
    (v * 2).sum().backward()
    assert a.grad is None


VIEWS = {
    "slice": lambda a: a[1:3],
    "select": lambda a: a[1],
    "transpose": lambda a: a.t(),
    "view": lambda a: a.view(-1),
    "diagonal": lambda a: a.diagonal(),
    "column": lambda a: a[:, :1],
    "unsqueeze": lambda a: a.unsqueeze(0),
}
INPLACE = {
    "mul_number": lambda v, y: v.mul_(2),
    "mul_tensor": lambda v, y: v.mul_(y),
    "mul_constant": lambda v, y: v.mul_(y.detach()),
    "add_tensor": lambda v, y: v.add_(y),
    "sub_alpha": lambda v, y: v.sub_(y, alpha=3),
    "div_tensor": lambda v, y: v.div_(y),
    "addcmul": lambda v, y: v.addcmul_(y, y),
    "relu": lambda v, y: v.relu_(),
    "exp": lambda v, y: v.exp_(),
    "copy": lambda v, y: v.copy_(y),
    "copy_constant": lambda v, y: v.copy_(y.detach()),
    "zero": lambda v, y: v.zero_(),
    "fill_tensor": lambda v, y: v.fill_(y.sum()),
    "clamp": lambda v, y: v.clamp_(0, 1),
    "lerp": lambda v, y: v.lerp_(y, 0.25),
    "sigmoid": lambda v, y: v.sigmoid_(),
    "two_ops": lambda v, y: v.mul_(y).add_(y),
    "masked_fill": lambda v, y: v.masked_fill_(y > 1, 0.5),
}


def _copy_slices(m, view, op):
    w = m.ones(3, 3, requires_grad=True)
    a = w.clone()
    v = view(a)
    y = m.full(v.shape, 2.0, requires_grad=True)
    op(v, y)
    tree = graph_tree(a.grad_fn)
    (a * m.arange(9.0).reshape(3, 3)).sum().backward()
    grads = (w.grad.tolist(), None if y.grad is None else y.grad.tolist())
    return tree, type(v.grad_fn).__name__, grads


@pytest.mark.parametrize("op", list(INPLACE))
@pytest.mark.parametrize("view", list(VIEWS))
def test_copy_slices_next_functions_match_torch(torch, view, op):
    expected = _copy_slices(torch, VIEWS[view], INPLACE[op])
    assert _copy_slices(G, VIEWS[view], INPLACE[op]) == expected


@pytest.mark.parametrize("op", ["mul_tensor", "relu", "add_tensor", "exp", "sigmoid", "two_ops"])
def test_copy_slices_double_backward(torch, op):
    def run(m):
        w = m.tensor([[0.5, 1.5, -2.0], [1.0, -0.5, 2.5]], dtype=m.float64, requires_grad=True)
        a = w * 1.0
        v = a[1]
        y = m.tensor([0.3, 0.7, 1.1], dtype=m.float64, requires_grad=True)
        INPLACE[op](v, y)
        out = (a * a).sum()
        gw, = m.autograd.grad(out, [w], create_graph=True)
        return [round(x, 10) for x in m.autograd.grad(gw.sum(), [w])[0].reshape(-1).tolist()]
    assert run(G) == run(torch)


def test_copy_slices_base_without_grad(torch):
    def run(m):
        a = m.ones(3, 3)
        v = a[1:3]
        y = m.full(v.shape, 2.0, requires_grad=True)
        v.mul_(y)
        tree = graph_tree(a.grad_fn)
        a.sum().backward()
        return tree, y.grad.tolist()
    assert run(G) == run(torch)


def _custom_functions(m):
    class View(m.autograd.Function):
        @staticmethod
        def forward(ctx, x):
            return x[:2]

        @staticmethod
        def backward(ctx, g):
            return m.cat([g, g.new_zeros(1)])

    class Same(m.autograd.Function):
        @staticmethod
        def forward(ctx, x):
            return x

        @staticmethod
        def backward(ctx, g):
            return g

    return View, Same


def custom_function_view_inplace(m):
    view, _ = _custom_functions(m)
    y = view.apply(_nonleaf(m, 3))
    got = (type(y.grad_fn).__name__, y._is_view(), y.is_leaf)
    return got, y.mul_(2)


def custom_function_input_returned_inplace(m):
    _, same = _custom_functions(m)
    y = same.apply(_nonleaf(m, 3))
    return type(y.grad_fn).__name__, y.mul_(2)


def custom_function_view_base_modified(m):
    view, _ = _custom_functions(m)
    a = _nonleaf(m, 3)
    y = view.apply(a)
    a.mul_(2)
    return y.grad_fn


def custom_function_view_inplace_no_grad(m):
    view, _ = _custom_functions(m)
    a = _nonleaf(m, 3)
    y = view.apply(a)
    with m.no_grad():
        y.mul_(2)
    return a._version


def custom_function_view_of_view_inplace(m):
    view, _ = _custom_functions(m)
    view.apply(_nonleaf(m, 3))[:1].mul_(2)


def custom_function_no_grad_input(m):
    view, _ = _custom_functions(m)
    y = view.apply(m.ones(3))
    y.mul_(2)
    return y.grad_fn


@pytest.mark.parametrize("case", [
    custom_function_view_inplace, custom_function_input_returned_inplace,
    custom_function_view_base_modified, custom_function_view_inplace_no_grad,
    custom_function_view_of_view_inplace, custom_function_no_grad_input,
], ids=lambda c: c.__name__)
def test_custom_function_views_match_torch(torch, case):
    expected = outcome(torch, case)
    if expected[0] == "raises":
        expected = expected[:2] + (norm(expected[2]),)
    assert outcome(G, case) == expected
