"""Custom `autograd.Function`s against PyTorch: forward/backward and the setup_context style,
saved tensors and their version checks, several and non-tensor outputs, mark_dirty,
mark_non_differentiable, set_materialize_grads, once_differentiable, double backward
(against torch and float64 finite differences), node names and the error texts."""

import numpy as np
import pytest
from conftest import G, check, check_error, norm, norm_g, run_both


def _defs(m):
    """The test Functions, defined against module `m` (gradrs or torch)."""
    F = m.autograd.Function

    class Exp(F):
        @staticmethod
        def forward(ctx, x):
            r = x.exp()
            ctx.save_for_backward(r)
            return r

        @staticmethod
        def backward(ctx, g):
            (r,) = ctx.saved_tensors
            return g * r

    class MulAdd(F):
        """Two outputs and a non-tensor argument."""

        @staticmethod
        def forward(ctx, x, y, k):
            ctx.save_for_backward(x, y)
            ctx.k = k
            return x * y * k, x + y

        @staticmethod
        def backward(ctx, ga, gb):
            x, y = ctx.saved_tensors
            return ga * y * ctx.k + gb, ga * x * ctx.k + gb, None

    class Scale(F):
        """setup_context style, with a keyword default."""

        @staticmethod
        def forward(x, k, scale=2.0):
            return x * k * scale

        @staticmethod
        def setup_context(ctx, inputs, output):
            _, k, scale = inputs
            ctx.factor = k * scale

        @staticmethod
        def backward(ctx, g):
            return g * ctx.factor, None, None

    class Double(F):
        """In place: marks its input dirty."""

        @staticmethod
        def forward(ctx, x):
            x.mul_(2)
            ctx.mark_dirty(x)
            return x

        @staticmethod
        def backward(ctx, g):
            return g * 2

    class MaxArg(F):
        @staticmethod
        def forward(ctx, x):
            i = x.argmax()
            ctx.mark_non_differentiable(i)
            ctx.save_for_backward(x, i)
            return x.max(), i

        @staticmethod
        def backward(ctx, gv, gi):
            x, i = ctx.saved_tensors
            out = m.zeros_like(x)
            out[i] = gv
            return out

    class NoMaterialize(F):
        @staticmethod
        def forward(ctx, x):
            ctx.set_materialize_grads(False)
            return x * 1, x * 2

        @staticmethod
        def backward(ctx, ga, gb):
            ctx.seen = (ga is None, gb is None)
            return (ga if ga is not None else 0) + (gb * 2 if gb is not None else 0)

    class Cube(F):
        """backward in differentiable ops: double backward works."""

        @staticmethod
        def forward(ctx, x):
            ctx.save_for_backward(x)
            return x ** 3

        @staticmethod
        def backward(ctx, g):
            (x,) = ctx.saved_tensors
            return g * 3 * x ** 2

    class CubeOnce(F):
        @staticmethod
        def forward(ctx, x):
            ctx.save_for_backward(x)
            return x ** 3

        @staticmethod
        @m.autograd.function.once_differentiable
        def backward(ctx, g):
            (x,) = ctx.saved_tensors
            return g * 3 * x ** 2

    class Identity(F):
        @staticmethod
        def forward(ctx, x):
            return x

        @staticmethod
        def backward(ctx, g):
            return g

    class WithInt(F):
        """A non-tensor output next to a tensor one."""

        @staticmethod
        def forward(ctx, x):
            return x * 2, 7

        @staticmethod
        def backward(ctx, g, g_int):
            ctx.g_int = g_int
            return g * 2

    return dict(Exp=Exp, MulAdd=MulAdd, Scale=Scale, Double=Double, MaxArg=MaxArg,
                NoMaterialize=NoMaterialize, Cube=Cube, CubeOnce=CubeOnce, Identity=Identity,
                WithInt=WithInt)


def test_exp_values_grad_and_names():
    def f(m):
        Exp = _defs(m)["Exp"]
        x = m.tensor([0.5, -1.0, 2.0], requires_grad=True)
        y = Exp.apply(x)
        y.sum().backward()
        return y, x.grad, type(y.grad_fn).__name__, y.grad_fn.name(), y.grad_fn.next_functions

    check(f)
    g, t = run_both(lambda m: repr(_defs(m)["Exp"].apply(m.ones(1, requires_grad=True)).grad_fn))
    pattern = r"<{}\.autograd\.function\.ExpBackward object at 0x[0-9a-f]+>"
    assert __import__("re").fullmatch(pattern.format("gradrs"), g), g
    assert __import__("re").fullmatch(pattern.format("torch"), t), t


def test_grad_fn_is_the_ctx():
    def f(m):
        Exp = _defs(m)["Exp"]
        x = m.ones(2, requires_grad=True)
        y = Exp.apply(x)
        fn = y.grad_fn
        return [fn is y.grad_fn, fn.needs_input_grad, fn.saved_tensors[0].tolist(),
                type(fn).__mro__[1].__name__, isinstance(fn, m.autograd.function.FunctionCtx)]

    g, t = run_both(f)
    assert g == t


def test_multi_output_and_non_tensor_args():
    def f(m):
        MulAdd = _defs(m)["MulAdd"]
        x = m.tensor([1.0, 2.0], requires_grad=True)
        y = m.tensor([3.0, -1.0], requires_grad=True)
        a, b = MulAdd.apply(x, y, 0.5)
        (a.sum() * 2 + b.sum()).backward()
        a2, _ = MulAdd.apply(x, y, 3)
        a2.sum().backward()  # b unused: its gradient is materialized as zeros
        return a, b, x.grad, y.grad, a.grad_fn is b.grad_fn

    check(f)


def test_setup_context_style():
    def f(m):
        Scale = _defs(m)["Scale"]
        x = m.ones(2, requires_grad=True)
        y = Scale.apply(x, 3, scale=0.5)
        z = Scale.apply(x, 2)
        (y.sum() + z.sum()).backward()
        return y, z, x.grad

    check(f)


def test_mark_dirty():
    def f(m):
        Double = _defs(m)["Double"]
        x = m.tensor([1.0, 2.0], requires_grad=True)
        z = x * 1
        w = Double.apply(z)
        w.sum().backward()
        return w, x.grad, w is z, z._version

    check(f)


def test_mark_non_differentiable():
    def f(m):
        MaxArg = _defs(m)["MaxArg"]
        x = m.tensor([1.0, 5.0, 2.0], requires_grad=True)
        v, i = MaxArg.apply(x)
        v.backward()
        return v, i, i.requires_grad, x.grad

    check(f)


def test_set_materialize_grads_false():
    def f(m):
        NM = _defs(m)["NoMaterialize"]
        x = m.ones(2, requires_grad=True)
        a, b = NM.apply(x)
        a.sum().backward()
        return x.grad, a.grad_fn.seen

    check(f)


def test_non_tensor_output_gets_none_grad():
    def f(m):
        W = _defs(m)["WithInt"]
        x = m.ones(2, requires_grad=True)
        y, k = W.apply(x)
        y.sum().backward()
        return y, k, x.grad, y.grad_fn.g_int

    check(f)


def test_input_returned_as_is_is_a_view():
    def f(m):
        Identity = _defs(m)["Identity"]
        x = m.ones(2, requires_grad=True)
        y = Identity.apply(x)
        with m.no_grad():
            z = Identity.apply(x)
        y.sum().backward()
        return y, y is x, y._base is x, z is x, z.requires_grad, x.grad

    check(f)


def test_no_grad_and_needs_input_grad():
    def f(m):
        seen = []

        class F(m.autograd.Function):
            @staticmethod
            def forward(ctx, x, y, k):
                seen.append((ctx.needs_input_grad, m.is_grad_enabled()))
                return x * y * k

            @staticmethod
            def backward(ctx, g):
                return g, None, None

        x = m.ones(2, requires_grad=True)
        with m.no_grad():
            r = F.apply(x, m.ones(2), 2)
        r2 = F.apply(x, m.ones(2), 2)
        return seen, r.requires_grad, r.grad_fn is None, r2.requires_grad

    g, t = run_both(f)
    assert g == t


def test_double_backward_against_torch():
    def f(m):
        Cube = _defs(m)["Cube"]
        x = m.tensor([0.5, -1.5, 2.0], dtype=m.float64, requires_grad=True)
        y = Cube.apply(x * 2)
        (g,) = m.autograd.grad(y.sum(), x, create_graph=True)
        (gg,) = m.autograd.grad(g.sum(), x)
        return g, gg

    check(f)


def test_double_backward_finite_differences():
    Cube = _defs(G)["Cube"]
    x0 = np.array([0.3, -1.2, 2.5])

    def first(v):
        x = G.tensor(v, dtype=G.float64, requires_grad=True)
        (g,) = G.autograd.grad(Cube.apply(x).sum(), x)
        return g.numpy()

    x = G.tensor(x0, dtype=G.float64, requires_grad=True)
    (g,) = G.autograd.grad(Cube.apply(x).sum(), x, create_graph=True)
    (gg,) = G.autograd.grad(g.sum(), x)
    eps = 1e-6
    fd = np.array([(first(x0 + eps * e).sum() - first(x0 - eps * e).sum()) / (2 * eps)
                   for e in np.eye(3)])
    np.testing.assert_allclose(gg.numpy(), fd, rtol=1e-6, atol=1e-8)
    np.testing.assert_allclose(g.detach().numpy(), 3 * x0 ** 2, rtol=1e-12)


def test_once_differentiable():
    def f(m):
        CubeOnce = _defs(m)["CubeOnce"]
        x = m.tensor([1.0, 2.0], dtype=m.float64, requires_grad=True)
        go = m.ones(2, dtype=m.float64, requires_grad=True)
        (g,) = m.autograd.grad(CubeOnce.apply(x), x, go, create_graph=True)
        return g, type(g.grad_fn).__name__, len(g.grad_fn.next_functions)

    check(f)
    g, t = run_both(lambda m: f(m)[0].grad_fn.name())
    assert norm_g(g) == norm(t) == "gradrs::autograd::Error"

    def again(m):
        CubeOnce = _defs(m)["CubeOnce"]
        x = m.tensor([1.0, 2.0], dtype=m.float64, requires_grad=True)
        go = m.ones(2, dtype=m.float64, requires_grad=True)
        (g,) = m.autograd.grad(CubeOnce.apply(x), x, go, create_graph=True)
        g.sum().backward()

    check_error(again)


def test_saved_tensor_errors():
    def twice(m):
        Exp = _defs(m)["Exp"]
        y = Exp.apply(m.ones(2, requires_grad=True))
        y.sum().backward()
        y.sum().backward()

    def after_free(m):
        Exp = _defs(m)["Exp"]
        y = Exp.apply(m.ones(2, requires_grad=True))
        y.sum().backward()
        return y.grad_fn.saved_tensors

    def bad_save(m):
        class S(m.autograd.Function):
            @staticmethod
            def forward(ctx, x):
                ctx.save_for_backward(x, 3)
                return x * 1

        S.apply(m.ones(2, requires_grad=True))

    for fn in (twice, after_free, bad_save):
        check_error(fn)


def test_saved_tensor_modified_in_place():
    # PyTorch names the custom Function's forward class there ("output 0 of Exp"); gradrs
    # names the node ("ExpBackward"): compare up to that word and the anomaly hint.
    def f(m):
        Exp = _defs(m)["Exp"]
        x = m.ones(2, dtype=m.float64, requires_grad=True)
        y = Exp.apply(x)
        with m.no_grad():
            y.mul_(2)
        y.sum().backward()

    g, t = run_both(lambda m: _error(lambda: f(m)))
    assert type(g) is type(t) is RuntimeError
    head = "one of the variables needed for gradient computation has been modified by an "\
           "inplace operation: [gradrs.DoubleTensor [2]], which is output 0 of Exp"
    assert norm_g(str(g)).startswith(head) and norm(str(t)).startswith(head)
    assert "is at version 1; expected version 0 instead" in str(g)


def _error(fn):
    try:
        fn()
    except Exception as e:  # noqa: BLE001 - the exception itself is compared
        return e
    raise AssertionError("did not raise")


def test_error_texts():
    def count(m):
        class Bad(m.autograd.Function):
            @staticmethod
            def forward(ctx, x, k):
                return x * k

            @staticmethod
            def backward(ctx, g):
                return g

        Bad.apply(m.ones(2, requires_grad=True), 2).sum().backward()

    def too_many(m):
        class Bad(m.autograd.Function):
            @staticmethod
            def forward(ctx, x):
                return x * 2

            @staticmethod
            def backward(ctx, g):
                return g, g

        Bad.apply(m.ones(2, requires_grad=True)).sum().backward()

    def non_tensor_grad(m):
        class Bad(m.autograd.Function):
            @staticmethod
            def forward(ctx, x, k):
                return x * k

            @staticmethod
            def backward(ctx, g):
                return g, g

        Bad.apply(m.ones(2, requires_grad=True), 3).sum().backward()

    def bad_shape(m):
        class Bad(m.autograd.Function):
            @staticmethod
            def forward(ctx, x):
                return x * 2

            @staticmethod
            def backward(ctx, g):
                return m.ones(3)

        Bad.apply(m.ones(2, requires_grad=True)).sum().backward()

    def dirty_leaf(m):
        Double = _defs(m)["Double"]
        Double.apply(m.ones(2, requires_grad=True))

    def dirty_not_returned(m):
        class D(m.autograd.Function):
            @staticmethod
            def forward(ctx, x):
                ctx.mark_dirty(x)
                return x * 2

        D.apply(m.ones(2, requires_grad=True) * 1)

    def legacy(m):
        class Leg(m.autograd.Function):
            def forward(self, x):
                return x

        import warnings
        with warnings.catch_warnings():
            warnings.simplefilter("ignore", DeprecationWarning)
            Leg()(m.ones(1))

    def jvp(m):
        _defs(m)["Exp"].jvp(None, m.ones(1))

    def no_backward(m):
        class NB(m.autograd.Function):
            @staticmethod
            def forward(ctx, x):
                return x * 2

        NB.apply(m.ones(2, requires_grad=True)).sum().backward()

    for fn in (count, too_many, non_tensor_grad, bad_shape, dirty_leaf, dirty_not_returned,
               legacy, jvp, no_backward):
        check_error(fn)


def test_exception_in_backward_propagates():
    class Oops(KeyError):
        pass

    class F(G.autograd.Function):
        @staticmethod
        def forward(ctx, x):
            return x * 2

        @staticmethod
        def backward(ctx, g):
            raise Oops("from backward")

    with pytest.raises(Oops):
        F.apply(G.ones(2, requires_grad=True)).sum().backward()


def test_vjp_alias_and_hooks_on_function_node():
    def f(m):
        log = []

        class V(m.autograd.Function):
            @staticmethod
            def forward(ctx, x):
                return x * 3

            @staticmethod
            def vjp(ctx, g):
                return g * 3

        x = m.ones(2, requires_grad=True)
        y = V.apply(x)
        y.grad_fn.register_hook(lambda gi, go: log.append([t.tolist() for t in gi]))
        y.register_hook(lambda g: g * 2)
        y.sum().backward()
        log.append(x.grad.tolist())
        log.append(m.autograd.Function.vjp is m.autograd.Function.backward)
        return log

    g, t = run_both(f)
    assert g == t


def test_function_in_a_training_step_frees_graph():
    Exp = _defs(G)["Exp"]
    before = G._native._live_nodes()
    for _ in range(3):
        x = G.ones(4, requires_grad=True)
        Exp.apply(x * 2).sum().backward()
        del x
    assert G._native._live_nodes() == before


@pytest.mark.parametrize("case", ["inputs_as_is", "input_and_new", "one_output",
                                  "non_differentiable_second"])
def test_view_outputs_refuse_inplace(case):
    # PyTorch: a view output is IN_CUSTOM_FUNCTION; with more than one differentiable output
    # every view output is MULTI_OUTPUT_NODE (another message).
    def run(m):
        class F(m.autograd.Function):
            @staticmethod
            def forward(ctx, x, y):
                if case == "inputs_as_is":
                    return x, y
                if case == "input_and_new":
                    return x, y * 2
                if case == "non_differentiable_second":
                    z = y * 2
                    ctx.mark_non_differentiable(z)
                    return x, z
                return x

            @staticmethod
            def backward(ctx, *grads):
                return grads[0], (grads[1] if len(grads) > 1 else None)

        a = m.ones(2, requires_grad=True) * 1
        b = m.ones(2, requires_grad=True) * 1
        out = F.apply(a, b)
        (out[0] if isinstance(out, tuple) else out).mul_(2)

    check_error(run)


def _undefined_grad_defs(m, calls):
    class Twice(m.autograd.Function):
        @staticmethod
        def forward(ctx, x, materialize):
            ctx.set_materialize_grads(materialize)
            return x * 2

        @staticmethod
        def backward(ctx, g):
            calls.append(None if g is None else g.tolist())
            return (None if g is None else g * 2), None

    class Drop(m.autograd.Function):
        """Its backward gives its input an undefined gradient."""

        @staticmethod
        def forward(ctx, x):
            return x.clone()

        @staticmethod
        def backward(ctx, g):
            return None

    return Twice, Drop


@pytest.mark.parametrize("materialize", [True, False])
def test_backward_called_when_every_grad_is_undefined(materialize):
    # tests/programs_gaps.md 36: PyTorch's engine runs a node whose incoming gradients are all
    # undefined; PyNode calls a Function's backward with zeros (materialize_grads) or Nones.
    def f(m):
        calls = []
        Twice, Drop = _undefined_grad_defs(m, calls)
        x = m.ones(2, requires_grad=True)
        by_grad = m.autograd.grad(Drop.apply(Twice.apply(x, materialize)).sum(), x,
                                  allow_unused=True)
        by_grad_calls = list(calls)
        calls.clear()
        hooks = []
        y = Twice.apply(x, materialize)
        y.grad_fn.register_prehook(lambda go: hooks.append(("pre", go)))
        y.grad_fn.register_hook(lambda gi, go: hooks.append(("post", gi, go)))
        Drop.apply(y).sum().backward()
        return by_grad, by_grad_calls, x.grad, calls, hooks

    check(f)


def test_generated_node_with_undefined_grads_runs_its_hooks():
    # A native node given only undefined gradients returns undefined ones without its formula,
    # but its pre and post hooks see them, as PyTorch's engine calls every node it reaches.
    def f(m):
        _, Drop = _undefined_grad_defs(m, [])
        hooks = []
        x = m.ones(2, requires_grad=True)
        y = x * 3
        y.grad_fn.register_prehook(lambda go: hooks.append(("pre", go)))
        y.grad_fn.register_hook(lambda gi, go: hooks.append(("post", gi, go)))
        Drop.apply(y).sum().backward()
        return x.grad, hooks

    check(f)


def test_gradcheck_undefined_grad_calls_backward_as_torch():
    # gradcheck's check_undefined_grad step calls a Function's backward once more (with zeros).
    def f(m):
        calls = []

        class Sq(m.autograd.Function):
            @staticmethod
            def forward(ctx, x):
                ctx.save_for_backward(x)
                return x * x

            @staticmethod
            def backward(ctx, g):
                calls.append(g.tolist())
                (x,) = ctx.saved_tensors
                return 2 * x * g

        x = m.tensor([0.5, -1.5], dtype=m.float64, requires_grad=True)
        ok = m.autograd.gradcheck(Sq.apply, (x,), fast_mode=True)
        return ok, len(calls), calls[-1]

    check(f)
