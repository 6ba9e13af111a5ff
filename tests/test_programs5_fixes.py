"""Behaviours that the third-party programs of tests/programs/ (session 2026-11-28, helper
"programs5") found different from PyTorch: the ones fixed in Python, checked against torch, and
strict expected failures for the gaps that need Rust (tests/programs_gaps.md 71-73)."""

import pytest

from conftest import G, need_torch, norm


# ---- Function.jvp: `del ctx.<attr>` (the forward-mode AD tutorial's Fn) ----------------------

def _fn_jvp_with_del(M):
    class Fn(M.autograd.Function):
        @staticmethod
        def forward(ctx, foo):
            result = M.exp(foo)
            ctx.result = result
            return result

        @staticmethod
        def jvp(ctx, gI):
            gO = gI * ctx.result
            del ctx.result
            return gO

    fwAD = M.autograd.forward_ad
    primal = M.tensor([[0.5, -1.0], [2.0, 0.25]], dtype=M.float64, requires_grad=True)
    tangent = M.tensor([[1.0, 2.0], [-1.0, 0.5]], dtype=M.float64)
    with fwAD.dual_level():
        out = Fn.apply(fwAD.make_dual(primal, tangent))
        jvp = fwAD.unpack_dual(out).tangent
        # the attribute is gone from the forward's ctx too
        gone = not hasattr(out.grad_fn, "result")
    return repr(jvp), gone, repr(jvp[0, :1])


def test_function_jvp_can_delete_ctx_attributes():
    # gradrs's jvp context had no __delattr__: `del ctx.result` raised AttributeError
    torch = need_torch()
    assert _fn_jvp_with_del(G) == tuple(norm(x) if isinstance(x, str) else x
                                        for x in _fn_jvp_with_del(torch))


def test_function_jvp_del_missing_attribute_raises():
    class Fn(G.autograd.Function):
        @staticmethod
        def forward(ctx, x):
            return x * 2

        @staticmethod
        def jvp(ctx, t):
            del ctx.nothing_here
            return t * 2

    fwAD = G.autograd.forward_ad
    with fwAD.dual_level(), pytest.raises(AttributeError):
        Fn.apply(fwAD.make_dual(G.ones(2), G.ones(2)))


def _jvp_tangent_identity(M):
    """Which tensor a custom Function's output gets as its tangent: PyTorch's set_fw_grad keeps
    the jvp's result as it is when it is laid out as the output (aliasing the input's tangent
    when jvp returns it), else copies it in."""
    fwAD = M.autograd.forward_ad

    class Id(M.autograd.Function):
        @staticmethod
        def forward(ctx, x):
            return x * 1

        @staticmethod
        def jvp(ctx, g):
            return g

    class Dirty(M.autograd.Function):
        @staticmethod
        def forward(ctx, x):
            x.mul_(2)
            ctx.mark_dirty(x)
            return x

        @staticmethod
        def jvp(ctx, g):
            return g.mul_(2)

    class T(M.autograd.Function):
        @staticmethod
        def forward(ctx, x):
            return x.t().contiguous()

        @staticmethod
        def jvp(ctx, g):
            return g.t()

    out = []
    for F in (Id, Dirty, T):
        t = M.arange(6.0).view(2, 3)
        with fwAD.dual_level():
            d = fwAD.make_dual(M.ones(2, 3) * M.arange(3.0), t)
            o = F.apply(d)
            ot = fwAD.unpack_dual(o).tangent
            out.append((F.__name__, ot.tolist(), ot is t, ot.stride()))
            t.add_(100)
            out.append(fwAD.unpack_dual(o).tangent.tolist())
    return out


def test_function_jvp_tangent_kept_or_copied_as_torch():
    torch = need_torch()
    assert _jvp_tangent_identity(G) == _jvp_tangent_identity(torch)


# ---- SavedTensor.register_hooks: the pack hook sees the tensor without history --------------

def _raw_saved_hooks(M):
    seen = []

    def pack(t):
        seen.append(("pack", repr(t), t.requires_grad, t.grad_fn is None, M.is_grad_enabled()))
        return t

    def unpack(t):
        seen.append(("unpack", repr(t)))
        return t

    a = M.ones(3, requires_grad=True)
    b = M.ones(3, requires_grad=True) * 2
    y = a * b
    y.grad_fn._raw_saved_self.register_hooks(pack, unpack)
    y.grad_fn._raw_saved_other.register_hooks(pack, unpack)
    z = a.exp()
    z.grad_fn._raw_saved_result.register_hooks(pack, unpack)
    seen.append(("saved self", repr(y.grad_fn._saved_self)))
    seen.append(("saved result", repr(z.grad_fn._saved_result)))
    y.sum().backward()
    z.sum().backward()
    seen.append(("grad", repr(a.grad)))
    return seen


def test_register_hooks_pack_sees_detached_tensor():
    # the saved-tensor hooks tutorial: torch prints `Packing tensor([1., 1., 1., 1., 1.])`
    # (SavedVariable::register_hooks packs data.detach() under NoGradGuard); gradrs passed
    # the saved tensor with requires_grad / grad_fn
    torch = need_torch()
    ours = _raw_saved_hooks(G)
    theirs = _raw_saved_hooks(torch)
    assert ours == [tuple(norm(x) if isinstance(x, str) else x for x in e) for e in theirs]


def test_register_hooks_errors_unchanged():
    torch = need_torch()

    def twice(M):
        y = M.ones(2, requires_grad=True).exp()
        y.grad_fn._raw_saved_result.register_hooks(lambda t: t, lambda t: t)
        y.grad_fn._raw_saved_result.register_hooks(lambda t: t, lambda t: t)

    for fn in (twice,):
        with pytest.raises(RuntimeError) as theirs:
            fn(torch)
        with pytest.raises(RuntimeError) as ours:
            fn(G)
        assert str(ours.value) == norm(str(theirs.value))


# ---- out= of the factories; integer arange from fractional bounds ----------------------------

def _outcome(fn, M):
    M.manual_seed(0)
    try:
        r = fn(M)
        return (repr(r), tuple(r.shape), r.dtype == getattr(M, str(r.dtype).split(".")[-1]))
    except Exception as e:  # noqa: BLE001 - the error itself is compared
        return (type(e).__name__, str(e))


_FACTORY_OUT = {
    "rand": lambda M: M.rand(2, 2, out=M.zeros(2, 2)),
    "rand_f64": lambda M: M.rand(3, out=M.zeros(1, dtype=M.float64)),
    "rand_long": lambda M: M.rand(2, out=M.zeros(2, dtype=M.int64)),
    "rand_generator": lambda M: M.rand(2, 2, generator=M.Generator().manual_seed(3),
                                       out=M.zeros(4)),
    "randn_vectorized": lambda M: M.randn(20, out=M.zeros(2)),
    "randint_float": lambda M: M.randint(0, 5, (3,), out=M.zeros(3)),
    "randint_int32": lambda M: M.randint(5, (3,), out=M.zeros(3, dtype=M.int32)),
    "randperm": lambda M: M.randperm(5, out=M.zeros(2, 2, dtype=M.int64)),
    "full": lambda M: M.full((2,), 1.5, out=M.zeros(2, dtype=M.int64)),
    "full_resize": lambda M: M.full((2, 2), 7, out=M.zeros(1, dtype=M.int32)),
    "eye": lambda M: M.eye(2, 3, out=M.zeros(2, dtype=M.int64)),
    "arange_keeps_shape": lambda M: M.arange(4, out=M.zeros(2, 2)),
    "arange_resizes": lambda M: M.arange(5, out=M.zeros(2, 2)),
    "arange_long_out": lambda M: M.arange(4.5, out=M.zeros(2, 2, dtype=M.int64)),
    "linspace_keeps_shape": lambda M: M.linspace(0, 1, 4, out=M.zeros(2, 2, dtype=M.float64)),
    "logspace_keeps_shape": lambda M: M.logspace(0, 1, 4, out=M.zeros(2, 2)),
    "range_keeps_shape": lambda M: M.range(0, 3, out=M.zeros(2, 2)),
    "normal_floats": lambda M: M.normal(2.0, 3.0, (3,), out=M.zeros(3, dtype=M.float64)),
    "normal_tensor": lambda M: M.normal(M.zeros(3), 1.0, out=M.zeros(3, dtype=M.float64)),
    "dtype_mismatch": lambda M: M.rand(2, out=M.zeros(2), dtype=M.float64),
    "requires_grad_out": lambda M: M.rand(2, out=M.zeros(2, requires_grad=True)),
    "requires_grad_kw": lambda M: M.rand(2, out=M.zeros(2), requires_grad=True),
}


@pytest.mark.parametrize("case", sorted(_FACTORY_OUT))
def test_factory_out_as_torch(case):
    # `torch.rand(2, 2, out=c)` (the introyt tensors tutorial) raised TypeError; randint's
    # out= was ignored (a new tensor returned, `out` untouched)
    torch = need_torch()
    fn = _FACTORY_OUT[case]
    theirs = _outcome(fn, torch)
    assert _outcome(fn, G) == tuple(norm(x) if isinstance(x, str) else x for x in theirs)


def test_factory_out_is_the_same_object():
    out = G.zeros(2, 2)
    assert G.rand(2, 2, out=out) is out and G.arange(4, out=out) is out


@pytest.mark.parametrize("dtype", ["int64", "int32", "int16", "uint8", "int8", "float32",
                                   "float64"])
@pytest.mark.parametrize("args", [(4.5,), (0.5, 4.5), (0, 5, 1.5), (-2.7, 3.2, 0.9), (5.9,),
                                  (1, 10, 2.5), (-0.5, 2), (3, -2.2, -1.2), (0, 1, 0.3),
                                  (2.5, 0.5, -0.5), (0, -3.5), (1e10, 1e10 + 3.5), (0, 6, 2)])
def test_arange_integer_dtype_from_fractional_bounds(args, dtype):
    # ATen truncates the bounds / step of an int64 arange before counting (arange(4.5,
    # dtype=long) has 4 values, gradrs gave 5); narrower integer dtypes count in double
    torch = need_torch()
    fn = lambda M: M.arange(*args, dtype=getattr(M, dtype))  # noqa: E731
    theirs = _outcome(fn, torch)
    assert _outcome(fn, G) == tuple(norm(x) if isinstance(x, str) else x for x in theirs)


@pytest.mark.parametrize("dtype", ["float32", "float64"])
def test_float_arange_bits_equal_torch(dtype):
    # ATen's AVX2 arange kernel: vectors of base + k * step from an FMA-contracted base, a
    # scalar FMA tail; gradrs's kernel rounded start + i * step otherwise (arange(-1, 1, 0.01):
    # 45 of 200 float32 values differed, arange(0, 10, 0.1) float64: 17 of 100)
    import random

    import numpy as np
    torch = need_torch()
    rng = random.Random(0)
    for _ in range(300):
        start = round(rng.uniform(-50, 50), rng.randint(0, 4))
        step = round(rng.uniform(0.001, 3), rng.randint(2, 5)) * rng.choice([1, -1])
        end = start + step * rng.randint(1, 300) + rng.uniform(-0.5, 0.5) * step
        theirs = torch.arange(start, end, step, dtype=getattr(torch, dtype)).numpy()
        ours = G.arange(start, end, step, dtype=getattr(G, dtype)).numpy()
        assert theirs.shape == ours.shape and np.array_equal(theirs, ours), (start, end, step)
    for args in [(-1, 1, 0.01), (0, 10, 0.1), (40.0, -7.6, -0.2), (0, 100000, 0.37)]:
        theirs = torch.arange(*args, dtype=getattr(torch, dtype)).numpy()
        assert np.array_equal(G.arange(*args, dtype=getattr(G, dtype)).numpy(), theirs), args


def test_float_arange_keeps_the_factory_arguments():
    torch = need_torch()
    for fn in [lambda M: M.arange(0.5, 3, requires_grad=True),
               lambda M: M.arange(0, 1, 0.25, out=M.zeros(2, 2, dtype=M.float64)),
               lambda M: M.arange(0, 1, 0.3, device="cpu"),
               lambda M: M.arange(0.0, 1.0, 0.0), lambda M: M.arange(1.5, 0.0),
               lambda M: M.arange(0, float("inf"), 0.5)]:
        assert _outcome(fn, G) == tuple(norm(x) if isinstance(x, str) else x
                                        for x in _outcome(fn, torch))
    torch.set_default_dtype(torch.float64)
    G.set_default_dtype(G.float64)
    try:
        fn = lambda M: M.arange(0, 1, 0.1)  # noqa: E731
        assert _outcome(fn, G) == tuple(norm(x) if isinstance(x, str) else x
                                        for x in _outcome(fn, torch))
    finally:
        torch.set_default_dtype(torch.float32)
        G.set_default_dtype(G.float32)


def test_integer_arange_requires_grad_message():
    torch = need_torch()
    fn = lambda M: M.arange(4.5, dtype=M.int64, requires_grad=True)  # noqa: E731
    assert _outcome(fn, G) == _outcome(fn, torch)


# ---- torch.library.custom_op -------------------------------------------------------------------

_NS = iter(range(10**6))


def _custom_ops(M):
    """What a program sees of custom ops (torch registers a name once per process: each call
    uses a namespace of its own)."""
    ns = f"p5lib{next(_NS)}"
    out = []

    @M.library.custom_op(f"{ns}::mysin", mutates_args=())
    def mysin(x: M.Tensor) -> M.Tensor:
        return x.sin()

    @mysin.register_fake
    def _(x):
        return M.empty_like(x)

    def setup_context(ctx, inputs, output):
        x, = inputs
        ctx.save_for_backward(x)

    def backward(ctx, grad):
        x, = ctx.saved_tensors
        return grad * x.cos()

    mysin.register_autograd(backward, setup_context=setup_context)
    x = M.tensor([0.5, 1.0], requires_grad=True)
    y = mysin(x)
    y.sum().backward()
    out += [repr(mysin).replace(ns, "NS"), repr(y).replace(ns, "NS"), repr(x.grad),
            repr(getattr(M.ops, ns).mysin).replace(ns, "NS"),
            str(getattr(M.ops, ns).mysin).replace(ns, "NS"),
            repr(getattr(M.ops, ns).mysin.default).replace(ns, "NS"),
            str(getattr(M.ops, ns).mysin.default).replace(ns, "NS"),
            repr(getattr(M.ops, ns)).replace(ns, "NS"), getattr(M.ops, ns).mysin.overloads(),
            repr(getattr(M.ops, ns).mysin.default(x.detach()))]

    @M.library.custom_op(f"{ns}::scaled", mutates_args=())
    def scaled(x: M.Tensor, k: int = 2) -> M.Tensor:
        return x * k

    y = scaled(x, k=3)
    out.append(repr(scaled(x.detach())))
    try:
        y.sum().backward()
    except RuntimeError as e:
        out.append(str(e).replace(ns, "NS"))

    @M.library.custom_op(f"{ns}::pair", mutates_args=())
    def pair(x: M.Tensor, w: M.Tensor) -> tuple[M.Tensor, M.Tensor]:
        return x * w, x + w

    def pair_setup(ctx, inputs, output):
        ctx.save_for_backward(*inputs)

    def pair_backward(ctx, g1, g2):
        x, w = ctx.saved_tensors
        return g1 * w + g2, g1 * x + g2

    pair.register_autograd(pair_backward, setup_context=pair_setup)
    x.grad = None
    w = M.tensor([2.0, 3.0], requires_grad=True)
    a, b = pair(x, w)
    (a.sum() + 2 * b.sum()).backward()
    out += [repr(a).replace(ns, "NS"), repr(x.grad), repr(w.grad)]
    with M.no_grad():
        out.append(pair(x, w)[0].grad_fn)

    @M.library.custom_op(f"{ns}::add_", mutates_args={"x"})
    def add_(x: M.Tensor, y: float) -> None:
        x.add_(y)

    t = M.zeros(2)
    out += [add_(t, 2.0), repr(t)]

    def opt(x: M.Tensor, scale: float = 1.0, bias: M.Tensor | None = None) -> M.Tensor:
        return x

    def many(a: list[M.Tensor], b: bool, c: str, d: int = -1) -> list[M.Tensor]:
        return a

    out += [M.library.infer_schema(opt, mutates_args=()),
            M.library.infer_schema(add_._init_fn, mutates_args={"x"}),
            M.library.infer_schema(many, mutates_args=())]
    for bad in (lambda: M.library.custom_op(f"{ns}::bad", mutates_args=())(lambda x: x),
                lambda: mysin([1]), lambda: M.library.custom_op("nonamespace",
                                                                mutates_args=())(opt)):
        try:
            bad()
            out.append("no error")
        except Exception as e:  # noqa: BLE001 - compared
            out.append((type(e).__name__, str(e).replace(ns, "NS").splitlines()[0]))
    try:
        out.append(getattr(M.ops, ns).nothing)
    except AttributeError as e:
        out.append(str(e).replace(ns, "NS"))
    xd = M.tensor([0.3, 0.7], dtype=M.float64, requires_grad=True)
    out.append(M.autograd.gradcheck(mysin, (xd,)))
    return [norm(o) if isinstance(o, str) else o for o in out]


def test_custom_op_as_torch():
    # torch.library.custom_op (PyTorch 2.4's custom-operator API) was missing
    torch = need_torch()
    assert _custom_ops(G) == _custom_ops(torch)


# ---- nodes named as PyTorch's (a sweep of grad_fn names over ~320 expressions) --------------

_NAMED = {
    "cummax": lambda M, x, v: x.cummax(0)[0],
    "cummin": lambda M, x, v: M.cummin(x, 1).values,
    "mode": lambda M, x, v: x.round().mode(1)[0],
    "mode_keepdim": lambda M, x, v: x.mode(0, keepdim=True)[0],
    "cummax_0dim": lambda M, x, v: v.cummax(0)[0],
    "rot90": lambda M, x, v: x.rot90(),
    "rot90_2": lambda M, x, v: x.rot90(2),
    "rot90_neg": lambda M, x, v: x.rot90(-1, (1, 0)),
    "rot90_4": lambda M, x, v: x.rot90(4),
    "index_fill": lambda M, x, v: x.index_fill(0, M.tensor([0, 2]), 1.5),
    "index_fill_tensor": lambda M, x, v: x.index_fill(1, M.tensor([1]), v),
    "repeat_interleave": lambda M, x, v: x.repeat_interleave(2),
    "repeat_interleave_dim": lambda M, x, v: x.t().repeat_interleave(3, dim=0),
    "repeat_interleave_0dim": lambda M, x, v: v.repeat_interleave(2),
    "repeat_interleave_tensor": lambda M, x, v: x.repeat_interleave(M.tensor([1, 0, 2]), 0),
}


def _named(M, case):
    M.manual_seed(0)
    x = M.randn(3, 4, requires_grad=True)
    v = M.tensor(2.0, requires_grad=True)
    y = _NAMED[case](M, x, v)
    (y * M.arange(float(y.numel())).reshape(y.shape)).sum().backward()
    return (repr(y), repr(x.grad), repr(v.grad), y.stride(),
            [type(t).__name__ if t is not None else None for t, _ in y.grad_fn.next_functions])


@pytest.mark.parametrize("case", sorted(_NAMED))
def test_composed_ops_nodes_named_as_torch(case):
    # cummax / cummin / mode printed GatherBackward0 / SqueezeBackward1, rot90 a
    # TransposeBackward0, index_fill a MaskedFillBackward0
    torch = need_torch()
    theirs = _named(torch, case)
    assert _named(G, case) == tuple(norm(t) if isinstance(t, str) else t for t in theirs)


def test_composed_ops_nodes_differentiate_twice():
    x = G.randn(2, 3, dtype=G.float64, requires_grad=True)
    for fn in (lambda t: t.cummax(1)[0], lambda t: t.cummin(0)[0], lambda t: t.rot90(1),
               lambda t: t.rot90(3, (1, 0)), lambda t: t.index_fill(1, G.tensor([0]), 2.0),
               lambda t: t.mode(1)[0]):
        assert G.autograd.gradcheck(fn, (x,))
        assert G.autograd.gradgradcheck(fn, (x,))


@pytest.mark.parametrize("call", [
    lambda M: M.randn(2, 3).repeat_interleave(2, output_size=5),
    lambda M: M.tensor(3.0).repeat_interleave(2, output_size=5),
    lambda M: M.randn(2, 3).repeat_interleave(M.tensor([1, 2]), 0, output_size=7),
])
def test_repeat_interleave_output_size_messages(call):
    torch = need_torch()
    with pytest.raises(RuntimeError) as theirs:
        call(torch)
    with pytest.raises(RuntimeError) as ours:
        call(G)
    assert str(ours.value) == str(theirs.value)


@pytest.mark.parametrize("call", [
    lambda M, x, y: M.nn.functional.soft_margin_loss(x, y),
    lambda M, x, y: M.nn.functional.soft_margin_loss(x.detach(), y, reduction="none"),
    lambda M, x, y: M.nn.functional.multi_margin_loss(x, M.tensor([0, 1, 2]),
                                                      weight=y[0].detach().requires_grad_()),
])
def test_loss_arguments_not_differentiable(call):
    # derivatives.yaml's non-differentiable target / weight: torch refuses them in grad mode
    torch = need_torch()
    for M in (torch, G):
        M.manual_seed(0)
    xs = {M: (M.randn(3, 4, requires_grad=True), M.randn(3, 4, requires_grad=True))
          for M in (torch, G)}
    with pytest.raises(RuntimeError) as theirs:
        call(torch, *xs[torch])
    with pytest.raises(RuntimeError) as ours:
        call(G, *xs[G])
    assert str(ours.value) == str(theirs.value)
    with G.no_grad():
        call(G, *xs[G])  # allowed without grad mode, as in torch


# ---- var_mean / std_mean: one node over both outputs --------------------------------------------

_MOMENT_KWARGS = [{}, {"dim": 1}, {"dim": (0, 1), "keepdim": True}, {"dim": 0, "correction": 0},
                  {"unbiased": False}, {"dim": [1], "keepdim": False, "unbiased": True},
                  {"dim": -1, "correction": 2}]


def _moments(M, fname, kw):
    M.manual_seed(0)
    x = M.randn(3, 4, dtype=M.float64, requires_grad=True)
    f = getattr(M, fname)
    a, b = f(x, **kw)
    fn = a.grad_fn
    out = [repr(a), repr(b), type(fn).__name__, type(b.grad_fn).__name__, fn._saved_correction,
           fn._saved_dim, fn._saved_keepdim, [type(t).__name__ for t, _ in fn.next_functions]]
    (a.sum() * 2 + b.sum() * 3).backward()
    out.append(repr(x.grad))
    for pick in (0, 1):
        x.grad = None
        f(x, **kw)[pick].sum().backward()
        out.append(repr(x.grad))
    return [norm(o) if isinstance(o, str) else o for o in out]


@pytest.mark.parametrize("fname", ["var_mean", "std_mean"])
@pytest.mark.parametrize("kw", _MOMENT_KWARGS)
def test_var_mean_std_mean_node_as_torch(fname, kw):
    # VarBackward0 / MeanBackward0 (two nodes) where torch has VarMeanBackward0 /
    # StdMeanBackward0 over both outputs
    torch = need_torch()
    assert _moments(G, fname, kw) == _moments(torch, fname, kw)
    x = G.randn(3, 4, dtype=G.float64, requires_grad=True)
    f = getattr(G, fname)
    assert G.autograd.gradcheck(lambda t: f(t, **kw), (x,))
    assert G.autograd.gradgradcheck(lambda t: f(t, **kw), (x,))


def test_var_mean_without_grad_and_under_transforms():
    torch = need_torch()
    for M in (torch, G):
        M.manual_seed(0)
    xs = [M.randn(4, 3) for M in (torch, G)]
    with G.no_grad():
        assert G.var_mean(xs[1], 1)[0].grad_fn is None
    assert repr(G.std_mean(xs[1], 0)) == norm(repr(torch.std_mean(xs[0], 0)))
    batched = G.vmap(lambda r: G.var_mean(r))(xs[1])
    expected = torch.vmap(lambda r: torch.var_mean(r))(xs[0])
    assert [repr(t) for t in batched] == [norm(repr(t)) for t in expected]
    tangent = G.ones(4, 3)
    out, tan = G.func.jvp(lambda t: G.std_mean(t, 1)[0], (xs[1],), (tangent,))
    out_t, tan_t = torch.func.jvp(lambda t: torch.std_mean(t, 1)[0], (xs[0],),
                                  (torch.ones(4, 3),))
    assert repr(tan) == norm(repr(tan_t)) and repr(out) == norm(repr(out_t))


# ---- gaps that need Rust: strict expected failures --------------------------------------------

def test_lstm_output_node_is_mkldnn_rnn_layer():
    # programs_gaps.md 71 (fixed): nn.LSTM's float32 CPU layers are MkldnnRnnLayerBackward0
    # nodes, as torch's oneDNN layers
    lstm = G.nn.LSTM(3, 3)
    out, (h, c) = lstm(G.ones(4, 1, 3))
    assert type(out.grad_fn).__name__ == "MkldnnRnnLayerBackward0"
    assert h.grad_fn.next_functions[0] == (out.grad_fn, 1)


@pytest.mark.xfail(strict=True, reason="programs_gaps.md 72: torch's forward-AD formulas "
                   "multiply an undefined tangent as an efficient zero tensor by a primal "
                   "that requires grad, so the tangent records a graph")
def test_tangent_records_graph_through_zero_terms():
    fwAD = G.autograd.forward_ad
    p = G.ones(2, 3, requires_grad=True)
    x = G.ones(4, 3)
    with fwAD.dual_level():
        out = G.nn.functional.linear(x, fwAD.make_dual(p, G.ones(2, 3)))
        tangent = fwAD.unpack_dual(out).tangent
    assert tangent.requires_grad and type(tangent.grad_fn).__name__ == "AddBackward0"


def test_softmax_node_shows_saved_dim_and_result():
    x = G.ones(2, 3, requires_grad=True)
    y = G.softmax(x, 1)
    assert y.grad_fn._saved_dim == 1 and y.grad_fn._saved_result.equal(y)
