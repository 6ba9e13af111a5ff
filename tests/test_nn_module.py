"""`gradrs.nn.Module`, `Parameter`, `Buffer` and the containers against PyTorch: registration,
iteration order, state_dict and load_state_dict (errors included), conversions, hooks, reprs,
deepcopy and pickling. Models are small custom modules written the same way in both libraries."""

import copy
import math
import pickle
from collections import OrderedDict

import numpy as np
import pytest
from conftest import G, _catch, assert_same_error, assert_same_warning, norm, to_np

pytestmark = pytest.mark.usefixtures("restore_grad_mode")


def _models(M):
    """Small models built from Parameters and buffers only, the same code for either library."""
    nn = M.nn

    class Affine(nn.Module):
        def __init__(self, n_in, n_out, bias=True):
            super().__init__()
            self.weight = nn.Parameter(M.arange(n_in * n_out, dtype=M.float32).reshape(
                n_out, n_in) / 10)
            if bias:
                self.bias = nn.Parameter(M.arange(n_out, dtype=M.float32) / 5)
            else:
                self.register_parameter("bias", None)
            self.register_buffer("count", M.zeros((), dtype=M.int64))
            self.register_buffer("scratch", M.ones(2), persistent=False)

        def forward(self, x):
            y = x @ self.weight.t()
            return y if self.bias is None else y + self.bias

        def extra_repr(self):
            return f"in={self.weight.shape[1]}, out={self.weight.shape[0]}"

    class Net(nn.Module):
        def __init__(self):
            super().__init__()
            self.a = Affine(3, 4)
            self.b = Affine(4, 2, bias=False)
            self.scale = nn.Parameter(M.ones(1))
            self.inner = nn.Module()
            self.inner.c = Affine(2, 2)

        def forward(self, x):
            return self.inner.c(self.b(self.a(x).relu())) * self.scale

    return Affine, Net


def both(torch):
    return _models(G), _models(torch)


# Pickling finds classes by qualified name: module-level copies of the test models.
_PicklableAffine, _PicklableNet = _models(G)
_PicklableAffine.__qualname__ = "_PicklableAffine"
_PicklableNet.__qualname__ = "_PicklableNet"


# ---- Parameter and Buffer -----------------------------------------------------------------


def test_parameter_basics(torch):
    t = G.ones(2, 3)
    p = G.nn.Parameter(t)
    assert isinstance(p, G.Tensor) and isinstance(p, G.nn.Parameter)
    assert p.is_leaf and p.requires_grad and p.grad_fn is None
    # shares storage with its data
    t.add_(1)
    assert to_np(p).tolist() == [[2.0] * 3] * 2
    tp = torch.nn.Parameter(torch.ones(2, 3) + 1)
    assert repr(p) == norm(repr(tp))
    assert repr(G.nn.Parameter(G.ones(2), requires_grad=False)) == norm(
        repr(torch.nn.Parameter(torch.ones(2), requires_grad=False)))
    assert repr(G.nn.Parameter()) == norm(repr(torch.nn.Parameter()))
    # print() and f-strings show the header too
    assert str(p) == norm(str(tp)) and f"{p}" == norm(f"{tp}")
    # a non-leaf input still gives a leaf
    x = G.ones(2, requires_grad=True) * 2
    q = G.nn.Parameter(x)
    assert q.is_leaf and q.requires_grad
    # under no_grad the default stays requires_grad=True
    with G.no_grad():
        assert G.nn.Parameter(G.ones(1)).requires_grad


@pytest.mark.parametrize("fn", [
    lambda M: M.nn.Parameter(M.ones(2, dtype=M.int64)),
    lambda M: M.nn.Parameter([1.0]),
    lambda M: M.nn.Parameter(3),
    lambda M: M.nn.Buffer([1.0]),
])
def test_parameter_errors(torch, fn):
    assert_same_error(lambda: fn(G), lambda: fn(torch))
    p = G.nn.Parameter(G.ones(2, dtype=G.int64), requires_grad=False)
    assert not p.requires_grad and p.dtype == G.int64


def test_parameter_deepcopy_and_pickle():
    p = G.nn.Parameter(G.arange(4.0), requires_grad=False)
    q = copy.deepcopy(p)
    assert type(q) is G.nn.Parameter and not q.requires_grad
    assert to_np(q).tolist() == [0.0, 1.0, 2.0, 3.0]
    p.data.add_(1)
    assert to_np(q).tolist() == [0.0, 1.0, 2.0, 3.0]  # a copy, not an alias
    memo = {}
    assert copy.deepcopy(p, memo) is copy.deepcopy(p, memo)
    try:
        pickle.dumps(G.ones(1))
    except TypeError:
        pytest.skip("plain tensors do not pickle yet")
    r = pickle.loads(pickle.dumps(G.nn.Parameter(G.ones(2))))
    assert type(r) is G.nn.Parameter and r.requires_grad and to_np(r).tolist() == [1.0, 1.0]


def test_buffer(torch):
    for M in (G, torch):
        b = M.nn.Buffer(M.ones(2), persistent=False)
        assert isinstance(b, M.nn.Buffer) and type(b) is M.Tensor and b.persistent is False
        m = M.nn.Module()
        m.buf = b
        m.p = M.nn.Buffer(M.zeros(1))
        assert list(m._buffers) == ["buf", "p"]
        assert list(m.state_dict()) == ["p"]
        assert not isinstance(M.ones(1), M.nn.Buffer)


# ---- registration -------------------------------------------------------------------------


def test_registration_order_and_iteration(torch):
    (_, NetG), (_, NetT) = both(torch)
    g, t = NetG(), NetT()
    assert [n for n, _ in g.named_parameters()] == [n for n, _ in t.named_parameters()]
    assert [n for n, _ in g.named_buffers()] == [n for n, _ in t.named_buffers()]
    assert [n for n, _ in g.named_modules()] == [n for n, _ in t.named_modules()]
    assert [n for n, _ in g.named_children()] == [n for n, _ in t.named_children()]
    assert [n for n, _ in g.named_parameters(prefix="m", recurse=False)] == [
        n for n, _ in t.named_parameters(prefix="m", recurse=False)]
    assert [n for n, _ in g.named_modules(prefix="root")] == [
        n for n, _ in t.named_modules(prefix="root")]
    assert len(list(g.parameters())) == len(list(t.parameters()))
    assert len(list(g.buffers(recurse=False))) == len(list(t.buffers(recurse=False)))
    assert [type(m).__name__ for m in g.modules()] == [type(m).__name__ for m in t.modules()]
    assert [type(m).__name__ for m in g.children()] == [type(m).__name__ for m in t.children()]


def test_shared_parameters_and_duplicates(torch):
    for M in (G, torch):
        m = M.nn.Module()
        m.a = M.nn.Module()
        m.b = m.a
        m.a.w = M.nn.Parameter(M.ones(1))
        m.v = m.a.w
        assert [n for n, _ in m.named_parameters()] == ["v"]
        assert [n for n, _ in m.named_parameters(remove_duplicate=False)] == ["v", "a.w", "b.w"]
        assert [n for n, _ in m.named_modules()] == ["", "a"]
        assert [n for n, _ in m.named_modules(remove_duplicate=False)] == ["", "a", "b"]
        assert [n for n, _ in m.named_children()] == ["a"]
        assert list(m.state_dict()) == ["v", "a.w", "b.w"]


def test_setattr_moves_between_kinds(torch):
    for M in (G, torch):
        m = M.nn.Module()
        m.x = M.ones(1)  # a plain attribute
        assert "x" in m.__dict__ and not m._buffers
        m.x = M.nn.Parameter(M.ones(1))
        assert "x" in m._parameters and "x" not in m.__dict__
        m.x = None  # still a parameter slot
        assert m._parameters == {"x": None} and m.x is None
        m.register_buffer("b", M.ones(1))
        m.b = M.zeros(2)  # assigning a tensor to a buffer name keeps it a buffer
        assert list(m._buffers) == ["b"] and tuple(m.b.shape) == (2,)
        m.b = M.nn.Module()  # a module replaces the buffer
        assert "b" in m._modules and "b" not in m._buffers
        del m.b
        assert "b" not in m._modules
        del m.x
        assert "x" not in m._parameters
        with pytest.raises(AttributeError):
            m.x  # noqa: B018


def test_registration_errors(torch):
    def make(M):
        m = M.nn.Module()
        m.p = M.nn.Parameter(M.ones(1))
        m.sub = M.nn.Module()
        m.register_buffer("buf", M.ones(1))
        m.plain = 3
        return m

    cases = [
        lambda M: make(M).register_parameter("a.b", None),
        lambda M: make(M).register_parameter("", None),
        lambda M: make(M).register_parameter(3, None),
        lambda M: make(M).register_parameter("plain", None),
        lambda M: make(M).register_parameter("q", M.ones(1)),
        lambda M: make(M).register_parameter("q", 3),
        lambda M: make(M).register_buffer("a.b", None),
        lambda M: make(M).register_buffer("", None),
        lambda M: make(M).register_buffer(1.5, None),
        lambda M: make(M).register_buffer("p", M.ones(1)),
        lambda M: make(M).register_buffer("q", [1]),
        lambda M: make(M).add_module("q", 3),
        lambda M: make(M).add_module(4, M.nn.Module()),
        lambda M: make(M).add_module("buf", M.nn.Module()),
        lambda M: make(M).add_module("a.b", M.nn.Module()),
        lambda M: make(M).add_module("", None),
        lambda M: setattr(make(M), "p", M.ones(1)),
        lambda M: setattr(make(M), "sub", 3),
        lambda M: setattr(make(M), "buf", "x"),
        lambda M: make(M).missing,
        lambda M: make(M).get_submodule("sub.nothing"),
        lambda M: make(M).get_submodule("p"),
        lambda M: make(M).get_parameter("sub.nothing"),
        lambda M: make(M).get_parameter("buf"),
        lambda M: make(M).get_buffer("p"),
        lambda M: make(M).get_buffer("x"),
        lambda M: make(M).set_submodule("", M.nn.Module()),
        lambda M: make(M).set_submodule("x", 3),
        lambda M: make(M).set_submodule("y", M.nn.Module(), strict=True),
        lambda M: make(M).set_submodule("p", M.nn.Module()),
        lambda M: make(M).train(1),
        lambda M: make(M)(M.ones(1)),
        lambda M: M.nn.Module(3),
        lambda M: M.nn.Module(foo=3),
        lambda M: make(M).to(M.int64),
    ]
    for case in cases:
        assert_same_error(lambda c=case: c(G), lambda c=case: c(torch))


def test_before_init_errors(torch):
    def assign(M, what):
        class Bad(M.nn.Module):
            def __init__(self):
                if what == "p":
                    self.x = M.nn.Parameter(M.ones(1))
                elif what == "m":
                    self.x = M.nn.Module()
                elif what == "b":
                    self.register_buffer("x", M.ones(1))
                else:
                    self.register_parameter("x", None)
        return Bad()

    for what in "pmbr":
        assert_same_error(lambda w=what: assign(G, w), lambda w=what: assign(torch, w))


def test_get_submodule_parameter_buffer():
    (_, Net) = _models(G)
    n = Net()
    assert n.get_submodule("") is n
    assert n.get_submodule("inner.c") is n.inner.c
    assert n.get_parameter("inner.c.weight") is n.inner.c.weight
    assert n.get_parameter("scale") is n.scale
    assert n.get_buffer("a.count") is n.a.count
    new = G.nn.Module()
    n.set_submodule("inner.c", new)
    assert n.inner.c is new


def test_dir_lists_members():
    (_, Net) = _models(G)
    d = dir(Net())
    for name in ("a", "b", "scale", "inner", "forward", "state_dict", "training"):
        assert name in d


# ---- forward and repr ---------------------------------------------------------------------


def test_forward_and_repr(torch):
    (_, NetG), (_, NetT) = both(torch)
    g, t = NetG(), NetT()
    assert repr(g) == norm(repr(t))
    x = np.linspace(-1, 1, 6, dtype=np.float32).reshape(2, 3)
    yg, yt = g(G.tensor(x)), t(torch.tensor(x))
    np.testing.assert_allclose(to_np(yg), to_np(yt), rtol=1e-6)
    yg.sum().backward()
    yt.sum().backward()
    for (ng, pg), (nt, pt) in zip(g.named_parameters(), t.named_parameters()):
        assert ng == nt
        np.testing.assert_allclose(to_np(pg.grad), to_np(pt.grad), rtol=1e-6, atol=1e-7)


def test_repr_multiline_extra_and_empty(torch):
    out = []
    for M in (G, torch):
        class Multi(M.nn.Module):
            def extra_repr(self):
                return "line1\nline2"

        class One(M.nn.Module):
            def extra_repr(self):
                return "k=1"

        m = Multi()
        m.child = One()
        m.child.grand = Multi()
        m.empty = M.nn.Module()
        m.none = None
        out.append(repr(m))
    assert out[0] == norm(out[1])


# ---- state_dict ---------------------------------------------------------------------------


def test_state_dict_keys_order_shapes_metadata(torch):
    (_, NetG), (_, NetT) = both(torch)
    sg, st = NetG().state_dict(), NetT().state_dict()
    assert type(sg) is OrderedDict
    assert list(sg) == list(st)
    for k in st:
        assert tuple(sg[k].shape) == tuple(st[k].shape)
        assert str(sg[k].dtype) == norm(str(st[k].dtype))
        assert not sg[k].requires_grad and type(sg[k]) is G.Tensor
    assert dict(sg._metadata) == dict(st._metadata)
    assert list(sg._metadata) == list(st._metadata)
    kv = NetG().state_dict(keep_vars=True)
    assert isinstance(kv["scale"], G.nn.Parameter)
    pre = NetG().state_dict(prefix="model.")
    assert list(pre) == ["model." + k for k in st]


def test_state_dict_shares_storage_and_positional_warning(torch):
    (_, NetG), (_, NetT) = both(torch)
    n = NetG()
    sd = n.state_dict()
    sd["scale"].add_(1)
    assert n.scale.item() == 2.0  # detached, but the same storage
    assert_same_warning(lambda: NetG().state_dict(None, "p."),
                        lambda: NetT().state_dict(None, "p."))


def _copy_from_torch(sd):
    out = OrderedDict((k, G.tensor(v.numpy())) for k, v in sd.items())
    return out


def test_load_state_dict_from_torch_values(torch):
    (_, NetG), (_, NetT) = both(torch)
    t = NetT()
    with torch.no_grad():
        for p in t.parameters():
            p.mul_(-3).add_(0.5)
        t.a.count.fill_(7)
    g = NetG()
    res = g.load_state_dict(_copy_from_torch(t.state_dict()))
    assert repr(res) == "<All keys matched successfully>" == repr(
        t.load_state_dict(t.state_dict()))
    assert res.missing_keys == [] and res.unexpected_keys == []
    for k, v in t.state_dict().items():
        np.testing.assert_array_equal(to_np(g.state_dict()[k]), v.numpy())
    # copy_ keeps the Parameter objects and their requires_grad
    assert isinstance(g.scale, G.nn.Parameter) and g.scale.requires_grad


def test_load_state_dict_errors(torch):
    def run(M, edit, strict=True):
        _, Net = _models(M)
        n = Net()
        sd = n.state_dict()
        edit(M, sd)
        return n.load_state_dict(sd, strict=strict)

    def drop(M, sd):
        del sd["a.weight"], sd["inner.c.count"]

    def extra(M, sd):
        sd["a.nope"] = M.ones(1)
        sd["zzz.w"] = M.ones(1)
        sd["top"] = M.ones(1)

    def both_(M, sd):
        drop(M, sd)
        extra(M, sd)

    def shape(M, sd):
        sd["a.weight"] = M.ones(2, 2)
        sd["scale"] = M.ones(3)

    def not_tensor(M, sd):
        sd["scale"] = [1.0]

    def scalar_from_1d(M, sd):
        sd["a.count"] = M.tensor([5])

    for edit in (drop, extra, both_, shape, not_tensor):
        assert_same_error(lambda e=edit: run(G, e), lambda e=edit: run(torch, e))
    for edit in (drop, extra, both_):
        rg, rt = run(G, edit, strict=False), run(torch, edit, strict=False)
        assert repr(rg) == repr(rt) and str(rg) == str(rt)
        assert rg.missing_keys == rt.missing_keys
        assert rg.unexpected_keys == rt.unexpected_keys
    assert repr(run(G, scalar_from_1d)) == repr(run(torch, scalar_from_1d))
    assert_same_error(lambda: G.nn.Module().load_state_dict([1]),
                      lambda: torch.nn.Module().load_state_dict([1]))


def test_load_state_dict_strict_false_reports_keys(torch):
    res = []
    for M in (G, torch):
        _, Net = _models(M)
        n = Net()
        sd = n.state_dict()
        del sd["b.weight"]
        sd["extra"] = M.ones(1)
        res.append(n.load_state_dict(sd, strict=False))
    # strict=False records no keys (PyTorch passes strict=True to the per-module loader but
    # only raises when strict): the keys are reported either way.
    assert repr(res[0]) == repr(res[1])
    assert res[0].missing_keys == res[1].missing_keys


def test_load_state_dict_assign(torch):
    (_, NetG) = _models(G)
    g = NetG()
    old = g.scale
    sd = {k: v.clone() * 0 + 2 for k, v in g.state_dict().items()}
    g.load_state_dict(sd, assign=True)
    assert g.scale is not old and isinstance(g.scale, G.nn.Parameter)
    assert g.scale.requires_grad and g.scale.item() == 2.0
    assert g.a.count.item() == 2 and type(g.a.count) is G.Tensor


def _state_dict_hooks_log(M):
    log = []

    class WithExtra(M.nn.Module):
        def __init__(self):
            super().__init__()
            self.w = M.nn.Parameter(M.ones(1))
            self.state = 5

        def get_extra_state(self):
            return {"s": self.state}

        def set_extra_state(self, st):
            self.state = st["s"]

    m = WithExtra()
    m.register_state_dict_pre_hook(lambda mod, prefix, kv: log.append(("pre", prefix)))
    m.register_state_dict_post_hook(lambda mod, sd, prefix, meta: log.append(
        ("post", list(sd), dict(meta))))
    m.register_load_state_dict_pre_hook(lambda mod, sd, prefix, *a: log.append(
        ("lpre", sorted(sd))))
    m.register_load_state_dict_post_hook(lambda mod, keys: log.append(("lpost", repr(keys))))
    sd = m.state_dict()
    sd["_extra_state"] = {"s": 9}
    m.load_state_dict(sd)
    log.append(m.state)
    return log


def test_state_dict_hooks_and_extra_state(torch):
    assert _state_dict_hooks_log(G) == _state_dict_hooks_log(torch)


# ---- conversions --------------------------------------------------------------------------


def test_to_dtype_keeps_parameter_objects():
    (_, Net) = _models(G)
    n = Net()
    p = n.a.weight
    n(G.ones(2, 3)).sum().backward()
    g = p.grad
    assert n.double() is n
    assert n.a.weight is p and p.dtype == G.float64 and isinstance(p, G.nn.Parameter)
    assert p.grad is not None and p.grad.dtype == G.float64
    assert n.a.count.dtype == G.int64  # integer buffers keep their dtype
    del g
    n.float()
    assert p.dtype == G.float32 and p.requires_grad and p.is_leaf
    n.half()
    assert p.dtype == G.float16
    assert n.bfloat16() is n and p.dtype == G.bfloat16 and n.a.count.dtype == G.int64
    n.to(G.float64)
    assert p.dtype == G.float64
    n.to("cpu", G.float32, non_blocking=True)
    assert p.dtype == G.float32
    n.to(G.ones(1, dtype=G.float64))
    assert p.dtype == G.float64
    n.to(device="cpu", dtype=G.float32)
    assert p.dtype == G.float32 and n.cpu() is n
    n.type(G.float64)
    assert p.dtype == G.float64 and n.a.count.dtype == G.float64  # type() casts all


_TO_CASES = [
    ((), {}), ((None,), {}), ((None, None), {}), (("cpu",), {}), (("cpu", "float64"), {}),
    (("cpu", "float64", True), {}), (("cpu", "float64", True, True), {}),
    (("cpu", "float64", True, False), {}), (("float64",), {"non_blocking": False, "copy": False}),
    ((), {"dtype": "float64", "device": "cpu", "non_blocking": True}), ((), {"foo": 1}),
    ((), {"foo": 1, "bar": 2}), (("float64",), {"foo": 1}), (("cpu", "x"), {}), (([1],), {}),
    (("ones_int",), {}), (("ones",), {}), (("ones", True), {}), (("ones", "x"), {}),
    (("float32", "float64"), {}), (("cpu",), {"copy": 1}), (("cpu",), {"memory_format": 3}),
    (("cpu", "float32", 1), {}), ((), {"tensor": "ones"}), (("cpu",), {"device": "cpu"}),
    (("nope",), {}), (("cpu:0",), {}),
]


def _to_arg(M, a):
    named = {"float64": M.float64, "float32": M.float32, "ones": M.ones(1),
             "ones_int": M.ones(1, dtype=M.int64)}
    return named.get(a, a) if isinstance(a, str) else a


@pytest.mark.parametrize("args,kwargs", _TO_CASES)
def test_to_arguments(torch, args, kwargs):
    def run(M):
        m = _leaf(M)
        out = m.to(*[_to_arg(M, a) for a in args],
                   **{k: _to_arg(M, v) for k, v in kwargs.items()})
        assert out is m
        return str(m.w.dtype)

    eg, et = _catch(lambda: run(G)), _catch(lambda: run(torch))
    if et is None and eg is None:
        assert run(G) == norm(run(torch))
    elif "device type at start of device string" in str(et):
        # The device lists differ (gradrs: cpu, gpu, cuda); the error kind is the same.
        assert type(eg) is type(et) and "device type at start of device string" in str(eg)
    else:
        assert_same_error(lambda: run(G), lambda: run(torch))


def test_to_empty():
    (_, Net) = _models(G)
    n = Net()
    p = n.a.weight
    assert n.to_empty(device="cpu") is n
    assert n.a.weight is p and p.shape == (4, 3) and p.requires_grad
    assert n.a.count.dtype == G.int64
    n.a.to_empty(device="cpu", recurse=False)
    with pytest.raises(TypeError):
        n.to_empty("cpu")  # device is keyword-only, as in PyTorch


def test_train_eval_requires_grad_zero_grad(torch):
    (_, Net) = _models(G)
    n = Net()
    assert n.training and n.a.training
    assert n.eval() is n and not n.inner.c.training
    n.train()
    assert n.inner.c.training
    assert n.requires_grad_(False) is n
    assert not any(p.requires_grad for p in n.parameters())
    n.requires_grad_()
    n(G.ones(2, 3)).sum().backward()
    assert all(p.grad is not None for p in n.parameters())
    n.zero_grad(set_to_none=False)
    assert all(p.grad is not None and not to_np(p.grad).any() for p in n.parameters())
    n.zero_grad()
    assert all(p.grad is None for p in n.parameters())


def _apply_log(M):
    _, Net = _models(M)
    seen = []
    assert Net().apply(lambda m: seen.append(type(m).__name__)) is not None
    return seen


def test_apply_order(torch):
    assert _apply_log(G) == _apply_log(torch)


# ---- hooks --------------------------------------------------------------------------------


def _forward_hooks_log(M):
    log = []
    _, Net = _models(M)
    n = Net()
    h1 = n.register_forward_pre_hook(lambda m, a: log.append("pre1"))
    n.register_forward_pre_hook(lambda m, a: log.append("pre0"), prepend=True)
    n.register_forward_pre_hook(lambda m, a, k: log.append(("prek", sorted(k))),
                                with_kwargs=True)
    h2 = n.register_forward_hook(lambda m, a, o: log.append(("post", tuple(o.shape))))
    n.register_forward_hook(lambda m, a, k, o: log.append("postk"), with_kwargs=True,
                            prepend=True)
    n(M.ones(2, 3))
    h1.remove()
    h2.remove()
    h2.remove()  # removing twice is fine
    n(M.ones(2, 3))
    return log


def test_forward_hooks_order_and_removal(torch):
    assert _forward_hooks_log(G) == _forward_hooks_log(torch)


def test_forward_hooks_modify_args_and_output(torch):
    res = []
    for M in (G, torch):
        _, Net = _models(M)
        n = Net()
        n.register_forward_pre_hook(lambda m, a: a[0] * 2)
        n.register_forward_hook(lambda m, a, o: o + 1)
        n.a.register_forward_pre_hook(lambda m, a, k: ((a[0] - 1,), k), with_kwargs=True)
        res.append(to_np(n(M.ones(2, 3))))
    np.testing.assert_allclose(res[0], res[1], rtol=1e-6)


def _always_call_log(M):
    log = []

    class Boom(M.nn.Module):
        def forward(self, x):
            raise ValueError("boom")

    b = Boom()
    b.register_forward_hook(lambda m, a, o: log.append(("always", o)), always_call=True)
    b.register_forward_hook(lambda m, a, o: log.append("never"))
    with pytest.raises(ValueError, match="boom"):
        b(1)
    return log


def test_forward_hook_always_call(torch):
    assert _always_call_log(G) == _always_call_log(torch)


def test_forward_pre_hook_bad_return(torch):
    def run(M):
        m = M.nn.Module()
        m.forward = lambda x: x
        m.register_forward_pre_hook(lambda mod, a, k: 3, with_kwargs=True)
        return m(1)

    assert_same_error(lambda: run(G), lambda: run(torch))


def _global_hooks_log(M):
    mm = M.nn.modules.module
    log = []
    handles = [
        mm.register_module_forward_pre_hook(lambda m, a: log.append(("gpre", type(m).__name__))),
        mm.register_module_forward_hook(lambda m, a, o: log.append(("gpost", type(m).__name__))),
        mm.register_module_full_backward_hook(
            lambda m, gi, go: log.append(("gbw", type(m).__name__, len(gi), len(go)))),
        mm.register_module_parameter_registration_hook(
            lambda m, name, p: log.append(("param", name))),
        mm.register_module_buffer_registration_hook(
            lambda m, name, b: log.append(("buffer", name))),
        mm.register_module_module_registration_hook(
            lambda m, name, sub: log.append(("module", name))),
    ]
    try:
        _, Net = _models(M)
        n = Net()
        n.register_forward_hook(lambda m, a, o: log.append("own"))
        x = M.ones(2, 3, requires_grad=True)
        n(x).sum().backward()
    finally:
        for h in handles:
            h.remove()
    n(M.ones(2, 3))  # removed: nothing logged
    return log


def test_global_hooks(torch):
    assert _global_hooks_log(G) == _global_hooks_log(torch)


def test_module_to_gpu():
    if not G.gpu.is_available():
        pytest.skip("no GPU adapter")
    (_, Net) = _models(G)
    n = Net()
    p = n.a.weight
    n(G.ones(2, 3)).sum().backward()
    assert n.to("gpu") is n and n.a.weight is p
    assert p.device.type == "gpu" and p.grad.device.type == "gpu"
    assert n.a.count.device.type == "gpu"
    assert n(G.ones(2, 3, device="gpu")).device.type == "gpu"
    n.cpu()
    assert p.device.type == "cpu" and p.grad.device.type == "cpu"


def test_compile_runs_eagerly():
    (_, Net) = _models(G)
    n = Net()
    x = G.ones(2, 3)
    before = to_np(n(x))
    log = []
    n.register_forward_hook(lambda m, a, o: log.append(1))
    assert n.compile(backend="eager") is None
    assert n._compiled_call_impl is not None
    np.testing.assert_array_equal(to_np(n(x)), before)
    assert log == [1]  # hooks still run
    assert "_compiled_call_impl" not in copy.deepcopy(n).__dict__
    # the arguments are gradrs.compile's (its tests compare its errors with PyTorch's; importing
    # torch._dynamo here would cost seconds)
    with pytest.raises(RuntimeError, match="Invalid backend"):
        _models(G)[1]().compile(backend="nope")


def test_handle_context_manager():
    m = G.nn.Module()
    m.forward = lambda x: x
    log = []
    with m.register_forward_hook(lambda *a: log.append(1)):
        m(1)
    m(1)
    assert log == [1]


def _backward_hook_log(M, n_inputs_grad=1):
    log = []

    class Two(M.nn.Module):
        def __init__(self):
            super().__init__()
            self.w = M.nn.Parameter(M.tensor([1.0, 2.0, 3.0]))

        def forward(self, x, y, k):
            return x * self.w * k, (y * 2).sum()

    m = Two()

    def pre(mod, go):
        log.append(("pre", [None if g is None else to_np(g).tolist() for g in go]))

    def hook(mod, gi, go):
        log.append(("hook", [None if g is None else to_np(g).tolist() for g in gi],
                    [None if g is None else to_np(g).tolist() for g in go]))

    m.register_full_backward_pre_hook(pre)
    m.register_full_backward_hook(hook)
    x = M.tensor([1.0, 1.0, 2.0], requires_grad=True)
    y = M.tensor([3.0, 4.0], requires_grad=n_inputs_grad > 1)
    a, b = m(x, y, 3.0)
    log.append(type(a.grad_fn).__name__)
    (a.sum() + b * 5).backward()
    log.append(to_np(x.grad).tolist())
    return log


def test_full_backward_hooks(torch):
    assert _backward_hook_log(G) == _backward_hook_log(torch)
    assert _backward_hook_log(G, 2) == _backward_hook_log(torch, 2)


def _backward_hook_case(M, case):
    log = []

    def f(g):
        return None if g is None else to_np(g).round(4).tolist()

    m = M.nn.Module()
    m.w = M.nn.Parameter(M.tensor([1.0, 2.0]))
    if case == "unused_output":
        m.forward = lambda x, y: (x * m.w, y * 3)
    elif case == "list_out":
        m.forward = lambda x: [x * m.w]
    elif case == "nested":
        inner = M.nn.Module()
        inner.forward = lambda x: x * 2
        inner.register_full_backward_hook(
            lambda mod, gi, go: log.append(("inner", [f(g) for g in gi], [f(g) for g in go])))
        m.inner = inner
        m.forward = lambda x, y: m.inner(x) * y
    else:
        m.forward = lambda x, y: (x * m.w + y, x.sum())
    m.register_full_backward_pre_hook(lambda mod, go: log.append(("pre1", [f(g) for g in go])))
    m.register_full_backward_pre_hook(lambda mod, go: log.append(("pre0", [f(g) for g in go])),
                                      prepend=True)
    m.register_full_backward_hook(
        lambda mod, gi, go: log.append(("hook", [f(g) for g in gi], [f(g) for g in go])))
    x = M.tensor([1.0, -1.0], requires_grad=True)
    y = M.tensor([2.0, 3.0], requires_grad=(case != "y_no_grad"))
    if case == "list_out":
        out = m(x)
        loss = out[0].sum()
    else:
        out = m(x, y)
        if case == "unused_output":
            loss = out[0].sum()
        elif case == "nested":
            loss = out.sum()
        else:
            loss = out[0].sum() * 2 + out[1]
    outs = out if isinstance(out, (tuple, list)) else [out]
    log.append([type(o.grad_fn).__name__ for o in outs])
    loss.backward()
    log.append((f(x.grad), f(y.grad), f(m.w.grad)))
    return log


@pytest.mark.parametrize("case", ["basic", "y_no_grad", "unused_output", "list_out", "nested"])
def test_full_backward_hook_cases(torch, case):
    rg, rt = assert_same_warning(lambda: _backward_hook_case(G, case),
                                 lambda: _backward_hook_case(torch, case))
    assert rg == rt


def _double_backward_hook(M):
    log = []
    m = M.nn.Module()
    m.forward = lambda x: x ** 3
    m.register_full_backward_hook(
        lambda mod, gi, go: log.append((to_np(gi[0]).tolist(), to_np(go[0]).tolist())))
    x = M.tensor([1.0, 2.0], requires_grad=True)
    (g,) = M.autograd.grad(m(x).sum(), x, create_graph=True)
    log.append((to_np(g).tolist(), type(g.grad_fn).__name__))
    g.sum().backward()  # reaches the inputs without passing the outputs: no hook call
    log.append(to_np(x.grad).tolist())
    return log


def test_full_backward_hook_double_backward(torch):
    assert _double_backward_hook(G) == _double_backward_hook(torch)


def test_full_backward_hook_replaces_grads(torch):
    res = []
    for M in (G, torch):
        m = M.nn.Module()
        m.forward = lambda x, y: (x * y, x + y)
        m.register_full_backward_pre_hook(lambda mod, go: (go[0] * 10, go[1]))
        m.register_full_backward_hook(lambda mod, gi, go: (gi[0] + 1, None))
        x = M.tensor([1.0, 2.0], requires_grad=True)
        y = M.tensor([3.0, 4.0], requires_grad=True)
        a, b = m(x, y)
        (a * b).sum().backward()
        res.append((to_np(x.grad).tolist(), y.grad))
    assert res[0][0] == res[1][0]
    assert res[0][1] is None and res[1][1] is None


def test_full_backward_hook_no_input_grad(torch):
    def run(M):
        m = M.nn.Module()
        m.w = M.nn.Parameter(M.ones(2))
        m.forward = lambda x: x * m.w
        log = []
        m.register_full_backward_hook(lambda mod, gi, go: log.append((gi, len(go))))
        m(M.ones(2)).sum().backward()
        return log

    rg, rt = assert_same_warning(lambda: run(G), lambda: run(torch))
    assert rg == rt


@pytest.mark.parametrize("which", [0, 1])
def test_full_backward_hook_outputs_refuse_inplace(torch, which):
    # PyTorch's outputs are the inputs returned as is by BackwardHookFunction: views made in a
    # custom Function, so an in-place write raises naming the output's index.
    def run(M):
        m = M.nn.Module()
        m.forward = lambda a, b: (a * 2, b * 3)
        m.register_full_backward_hook(lambda *a: None)
        outs = m(M.ones(2, requires_grad=True), M.ones(2, requires_grad=True))
        outs[which].mul_(2)

    assert_same_error(lambda: run(G), lambda: run(torch))


def test_full_backward_hook_single_node_over_outputs(torch):
    def run(M):
        m = M.nn.Module()
        m.forward = lambda a, b: (a * 2, b * 3)
        log = []
        m.register_full_backward_hook(lambda mod, gi, go: log.append((gi, go)))
        a, b = M.ones(2, requires_grad=True), M.ones(2, requires_grad=True)
        p, q = m(a, b)
        p.sum().backward()
        shared = p.grad_fn is q.grad_fn
        norm_log = [[None if g is None else g.tolist() for g in gi + go] for gi, go in log]
        return shared, norm_log, a.grad.tolist(), b.grad.tolist()

    assert run(G) == run(torch)


def test_backward_hook_mixing_errors(torch):
    def run(M):
        m = M.nn.Module()
        m.register_backward_hook(lambda *a: None)
        m.register_full_backward_hook(lambda *a: None)

    if not hasattr(G.nn.Module, "register_backward_hook"):
        pytest.skip("the deprecated non-full backward hook is not provided")
    assert_same_error(lambda: run(G), lambda: run(torch))


def test_hooks_survive_no_hooks_path(torch):
    m = G.nn.Module()
    m.forward = lambda x: x + 1
    assert m(1) == 2


# ---- copying ------------------------------------------------------------------------------


def test_deepcopy_model():
    try:
        copy.deepcopy(G.ones(1))
    except TypeError:
        pytest.skip("plain tensors do not deep-copy yet")
    (_, Net) = _models(G)
    n = Net()
    c = copy.deepcopy(n)
    assert c is not n and c.a is not n.a and c.a.weight is not n.a.weight
    assert isinstance(c.a.weight, G.nn.Parameter) and c.a.weight.requires_grad
    assert list(c.state_dict()) == list(n.state_dict())
    for k, v in n.state_dict().items():
        np.testing.assert_array_equal(to_np(c.state_dict()[k]), to_np(v))
    with G.no_grad():
        c.a.weight.add_(1)
    assert not np.array_equal(to_np(c.a.weight), to_np(n.a.weight))
    assert "scratch" in c.a._buffers and "scratch" in c.a._non_persistent_buffers_set


def test_pickle_model():
    try:
        pickle.dumps(G.ones(1))
    except TypeError:
        pytest.skip("plain tensors do not pickle yet")
    n = _PicklableNet()
    c = pickle.loads(pickle.dumps(n))
    assert repr(c) == repr(n)
    assert isinstance(c.scale, G.nn.Parameter)


# ---- containers ---------------------------------------------------------------------------


def _leaf(M, n=1, extra=""):
    """A parameter-holding module with a one-line repr, the same in both libraries."""

    class Leaf(M.nn.Module):
        def __init__(self):
            super().__init__()
            self.w = M.nn.Parameter(M.full((1,), float(n)))

        def forward(self, x):
            return x * self.w

        def extra_repr(self):
            return f"n={n}{extra}"

    return Leaf()


def _sequential_ops(M):
    nn = M.nn
    out = []
    s = nn.Sequential(_leaf(M, 1), _leaf(M, 2), _leaf(M, 3))
    out.append(repr(s))
    out.append(repr(s[-1]))
    out.append(repr(s[1:]))
    out.append(repr(s[::-2]))
    out.append(type(s[0:1]).__name__)
    out.append(len(s))
    out.append(to_np(s(M.ones(1))).tolist())
    s.append(_leaf(M, 4))
    s.insert(0, _leaf(M, 5))
    s.insert(-1, _leaf(M, 6))
    s.extend([_leaf(M, 7)])
    out.append(repr(s))
    out.append(repr(s.pop(2)))
    del s[0]
    del s[1:3]
    out.append(repr(s))
    s[0] = _leaf(M, 8)
    s[-1] = _leaf(M, 9)
    out.append(list(s.state_dict()))
    out.append(repr(s + nn.Sequential(_leaf(M, 1))))
    t = nn.Sequential(_leaf(M, 1), _leaf(M, 2))
    out.append(repr(t * 2))
    out.append(repr(2 * t))
    t *= 3
    out.append(list(t._modules))
    t += nn.Sequential(_leaf(M, 5))
    out.append(repr(t))
    od = nn.Sequential(OrderedDict([("first", _leaf(M, 1)), ("second", _leaf(M, 2))]))
    out.append(repr(od))
    out.append(repr(od[1:]))
    out.append([k for k in dir(od) if k in ("first", "0", "1")])
    out.append(repr(nn.Sequential()))
    return out


def test_sequential(torch):
    g, t = _sequential_ops(G), _sequential_ops(torch)
    assert g == [norm(x) if isinstance(x, str) else x for x in t]


@pytest.mark.parametrize("fn", [
    lambda M: M.nn.Sequential(_leaf(M))[3],
    lambda M: M.nn.Sequential(_leaf(M))[-2],
    lambda M: M.nn.Sequential(_leaf(M))["a"],
    lambda M: M.nn.Sequential(_leaf(M)).insert(5, _leaf(M)),
    lambda M: M.nn.Sequential(_leaf(M)).insert(0, 3),
    lambda M: M.nn.Sequential(_leaf(M)) + [1],
    lambda M: M.nn.Sequential(_leaf(M)) * 0,
    lambda M: M.nn.Sequential(_leaf(M)) * 1.5,
    lambda M: M.nn.Sequential(3),
    lambda M: M.nn.ModuleList([_leaf(M)])[1],
    lambda M: M.nn.ModuleList(3),
    lambda M: M.nn.ModuleList([3]),
    lambda M: M.nn.ModuleDict([("a", _leaf(M), 3)]),
    lambda M: M.nn.ModuleDict([3]),
    lambda M: M.nn.ModuleDict(3),
    lambda M: M.nn.ModuleDict({"a.b": _leaf(M)}),
    lambda M: M.nn.ModuleDict()["x"],
    lambda M: M.nn.ParameterList([M.ones(1)])[2],
    lambda M: M.nn.ParameterList(M.ones(2)),
    lambda M: M.nn.ParameterList()(1),
    lambda M: M.nn.ParameterDict()(1),
    lambda M: M.nn.ParameterDict()[3],
    lambda M: M.nn.ParameterDict(3),
    lambda M: M.nn.ParameterDict([("a",)]),
    lambda M: M.nn.ParameterDict([3]),
    lambda M: M.nn.ParameterDict().pop("x"),
])
def test_container_errors(torch, fn):
    assert_same_error(lambda: fn(G), lambda: fn(torch))


def _module_list_ops(M):
    nn = M.nn
    out = []
    ml = nn.ModuleList([_leaf(M, 2) for _ in range(4)] + [_leaf(M, 3), _leaf(M, 3), _leaf(M, 2)])
    out.append(repr(ml))
    out.append(repr(nn.ModuleList()))
    out.append(repr(ml[-1]))
    out.append(repr(ml[1:3]))
    out.append(type(ml[1:3]).__name__)
    ml.append(_leaf(M, 5))
    ml.extend([_leaf(M, 6)])
    ml.insert(1, _leaf(M, 7))
    ml += [_leaf(M, 8)]
    out.append(repr(ml))
    out.append(repr(ml.pop(0)))
    del ml[::2]
    out.append(repr(ml))
    ml[0] = _leaf(M, 9)
    out.append(list(ml.state_dict()))
    out.append(len(ml))
    out.append(repr(ml + nn.ModuleList([_leaf(M, 1)])))
    nested = nn.ModuleList([nn.Sequential(_leaf(M, 1), _leaf(M, 1)) for _ in range(2)])
    out.append(repr(nested))
    return out


def test_module_list(torch):
    g, t = _module_list_ops(G), _module_list_ops(torch)
    assert g == [norm(x) if isinstance(x, str) else x for x in t]


def _module_dict_ops(M):
    nn = M.nn
    out = []
    md = nn.ModuleDict({"z": _leaf(M, 1), "a": _leaf(M, 2)})
    out.append(repr(md))
    md["m"] = _leaf(M, 3)
    md.update([("b", _leaf(M, 4))])
    md.update(nn.ModuleDict({"c": _leaf(M, 5)}))
    out.append(list(md.keys()))
    out.append(list(md))
    out.append("m" in md)
    out.append(repr(md.pop("z")))
    del md["a"]
    out.append([repr(v) for v in md.values()])
    out.append([k for k, _ in md.items()])
    out.append(list(md.state_dict()))
    out.append(len(md))
    md.clear()
    out.append(repr(md))
    return out


def test_module_dict(torch):
    g, t = _module_dict_ops(G), _module_dict_ops(torch)
    assert g == [norm(x) if isinstance(x, str) else x for x in t]


def _parameter_list_ops(M):
    nn = M.nn
    out = []
    pl = nn.ParameterList([M.ones(3), nn.Parameter(M.zeros(2, 2)), "s",
                           M.ones(1, dtype=M.float64)])
    out.append(repr(pl))
    out.append([type(p).__name__ for p in pl])
    out.append(type(pl[0]).__name__)
    out.append(pl[0].requires_grad)
    pl.append(M.ones(4))
    pl.extend([M.ones(5)])
    pl += [7]
    out.append(len(pl))
    out.append(repr(pl[1:3]))
    pl[-1] = M.ones(2)
    out.append([n for n, _ in pl.named_parameters()])
    out.append(list(pl.state_dict()))
    out.append(repr(nn.ParameterList()))
    m = nn.Module()
    m.pl = nn.ParameterList([M.ones(1)])
    out.append(repr(m))
    return out


def test_parameter_list(torch):
    g, t = _parameter_list_ops(G), _parameter_list_ops(torch)
    assert g == [norm(x) if isinstance(x, str) else x for x in t]


def _parameter_dict_ops(M):
    nn = M.nn
    out = []
    pd = nn.ParameterDict({"w": M.ones(3), "b": nn.Parameter(M.zeros(2, 2)), "s": "str"})
    out.append(repr(pd))  # a plain dict is added in sorted key order
    pd.update(OrderedDict([("z", M.ones(1)), ("c", M.ones(1, dtype=M.float64))]))
    pd.update([("y", M.ones(2))])
    out.append(list(pd.keys()))
    out.append(list(reversed(pd)))
    out.append(type(pd["w"]).__name__)
    out.append("w" in pd)
    out.append(repr(pd.get("nope", 3)))
    out.append(type(pd.setdefault("d", M.ones(1))).__name__)
    out.append(pd.popitem()[0])
    out.append(type(pd.pop("w")).__name__)
    out.append([n for n, _ in pd.named_parameters()])
    out.append(list(pd.state_dict()))
    c = pd.copy()
    out.append(list(c.keys()))
    out.append(list((pd | nn.ParameterDict({"new": M.ones(1)})).keys()))
    pd |= nn.ParameterDict({"n2": M.ones(1)})
    out.append(list(pd.keys()))
    out.append(list(pd.fromkeys(["k1", "k2"], M.ones(1)).keys()))
    out.append(len(pd))
    pd.clear()
    out.append(repr(pd))
    return out


def test_parameter_dict(torch):
    g, t = _parameter_dict_ops(G), _parameter_dict_ops(torch)
    assert g == [norm(x) if isinstance(x, str) else x for x in t]


def test_container_deprecated(torch):
    assert_same_warning(lambda: G.nn.Container(a=G.nn.Module()),
                        lambda: torch.nn.Container(a=torch.nn.Module()))


def test_sequential_load_from_torch(torch):
    tm = torch.nn.Sequential(_leaf(torch, 2), torch.nn.ModuleList([_leaf(torch, 3)]),
                             torch.nn.ParameterList([torch.ones(2)]))
    gm = G.nn.Sequential(_leaf(G, 2), G.nn.ModuleList([_leaf(G, 3)]),
                         G.nn.ParameterList([G.ones(2)]))
    assert list(gm.state_dict()) == list(tm.state_dict())
    gm.load_state_dict({k: G.tensor(v.numpy() + 1) for k, v in tm.state_dict().items()})
    assert to_np(gm[2][0]).tolist() == [2.0, 2.0]


# ---- nn.utils -----------------------------------------------------------------------------


def _grads(M, dtype="float32", scale=1.0):
    rng = np.random.default_rng(7)
    ps = []
    for shape in ((3, 4), (5,), (2, 2, 2), (1,)):
        p = M.nn.Parameter(M.tensor(rng.standard_normal(shape).astype(dtype)))
        p.grad = M.tensor((rng.standard_normal(shape) * scale).astype(dtype))
        ps.append(p)
    ps.append(M.nn.Parameter(M.ones(2)))  # no grad: skipped
    return ps


@pytest.mark.parametrize("norm_type", [2.0, 1, 3.5, float("inf"), 0.5, "inf"])
@pytest.mark.parametrize("max_norm", [0.5, 100.0])
@pytest.mark.parametrize("dtype", ["float32", "float64"])
def test_clip_grad_norm(torch, norm_type, max_norm, dtype):
    nt = float(norm_type)
    pg, pt = _grads(G, dtype), _grads(torch, dtype)
    ng = G.nn.utils.clip_grad_norm_(pg, max_norm, norm_type=nt)
    nt_ = torch.nn.utils.clip_grad_norm_(pt, max_norm, norm_type=nt)
    assert isinstance(ng, G.Tensor) and ng.shape == () and str(ng.dtype) == norm(
        str(nt_.dtype))
    np.testing.assert_allclose(to_np(ng), to_np(nt_), rtol=1e-6)
    for a, b in zip(pg, pt):
        if b.grad is None:
            assert a.grad is None
        else:
            np.testing.assert_allclose(to_np(a.grad), to_np(b.grad), rtol=1e-6, atol=1e-7)


def test_clip_grad_norm_forms(torch):
    # one tensor, a generator, the deprecated name, get_total_norm / clip_grads_with_norm_
    def forms(M):
        p = _grads(M)[0]
        n1 = M.nn.utils.clip_grad_norm_(p, 1.0)
        n2 = M.nn.utils.get_total_norm([q.grad for q in _grads(M)[:-1]])
        ps = _grads(M)
        M.nn.utils.clip_grads_with_norm_(ps, 0.1, n2)
        return to_np(n1), to_np(n2), to_np(ps[0].grad)

    for a, b in zip(forms(G), forms(torch)):
        np.testing.assert_allclose(a, b, rtol=1e-6)
    assert to_np(G.nn.utils.clip_grad_norm_([], 1.0)).item() == 0.0
    assert_same_error(lambda: G.nn.utils.get_total_norm([q.grad for q in _grads(G)]),
                      lambda: torch.nn.utils.get_total_norm([q.grad for q in _grads(torch)]))
    assert_same_warning(lambda: G.nn.utils.clip_grad_norm_((p for p in []), 1.0),
                        lambda: torch.nn.utils.clip_grad_norm_((p for p in []), 1.0))
    assert_same_warning(lambda: G.nn.utils.clip_grad_norm(_grads(G), 1.0),
                        lambda: torch.nn.utils.clip_grad_norm(_grads(torch), 1.0))


def test_clip_grad_errors(torch):
    def nonfinite(M):
        ps = _grads(M)
        ps[0].grad[0, 0] = float("inf")
        return M.nn.utils.clip_grad_norm_(ps, 1.0, error_if_nonfinite=True)

    assert_same_error(lambda: nonfinite(G), lambda: nonfinite(torch))
    # foreach=True is accepted (the values are the per-tensor loop's)
    pg, pt = _grads(G), _grads(torch)
    np.testing.assert_allclose(
        to_np(G.nn.utils.clip_grad_norm_(pg, 1.0, foreach=True)),
        to_np(torch.nn.utils.clip_grad_norm_(pt, 1.0, foreach=True)), rtol=1e-6)
    G.nn.utils.clip_grad_value_(pg, 0.01, foreach=True)
    torch.nn.utils.clip_grad_value_(pt, 0.01, foreach=True)
    np.testing.assert_allclose(to_np(pg[0].grad), to_np(pt[0].grad), rtol=1e-6)
    # non-finite without the flag: scaled by the non-finite norm, as PyTorch
    ps = _grads(G)
    ps[0].grad[0, 0] = float("inf")
    assert math.isinf(G.nn.utils.clip_grad_norm_(ps, 1.0).item())


def test_clip_grad_value(torch):
    pg, pt = _grads(G, scale=3.0), _grads(torch, scale=3.0)
    assert G.nn.utils.clip_grad_value_(pg, 1.5) is None
    torch.nn.utils.clip_grad_value_(pt, 1.5)
    for a, b in zip(pg, pt):
        if b.grad is not None:
            np.testing.assert_array_equal(to_np(a.grad), to_np(b.grad))
    p = _grads(G)[0]
    G.nn.utils.clip_grad_value_(p, 0.1, foreach=False)
    assert np.abs(to_np(p.grad)).max() <= np.float32(0.1)


def test_parameters_vector_roundtrip(torch):
    pg, pt = _grads(G), _grads(torch)
    vg = G.nn.utils.parameters_to_vector(pg)
    vt = torch.nn.utils.parameters_to_vector(pt)
    np.testing.assert_array_equal(to_np(vg), to_np(vt))
    assert vg.requires_grad == vt.requires_grad and type(vg.grad_fn).__name__ == type(
        vt.grad_fn).__name__
    new = G.arange(float(vg.numel()))
    G.nn.utils.vector_to_parameters(new, pg)
    torch.nn.utils.vector_to_parameters(torch.arange(float(vt.numel())), pt)
    for a, b in zip(pg, pt):
        np.testing.assert_array_equal(to_np(a), to_np(b))
        assert isinstance(a, G.nn.Parameter)
    new.add_(1)  # the parameters now share the vector's storage, as in PyTorch
    assert to_np(pg[0]).ravel()[0] == 1.0
    assert_same_error(lambda: G.nn.utils.vector_to_parameters([1.0], pg),
                      lambda: torch.nn.utils.vector_to_parameters([1.0], pt))
