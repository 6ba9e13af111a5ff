"""`gradrs._foreach_*` (torch._foreach_*: timm's ModelEmaV3, multi-tensor optimizer copies) vs
torch: values, dtypes, return conventions (tuple / the list given), list checks, gradients."""

from __future__ import annotations

import pytest
from conftest import G, check, check_error, need_torch


def _lists(m):
    a = [m.tensor([1.5, -2.0]), m.tensor([[0.25, 3.0], [4.0, -0.5]])]
    b = [m.tensor([2.0, 0.5]), m.tensor([[1.0, 2.0], [-3.0, 0.75]])]
    return a, b


BINARY = ["add", "sub", "mul", "div", "clamp_min", "clamp_max", "maximum", "minimum", "pow"]
OTHERS = {
    "scalar": lambda m, b: 1.5,
    "int scalar": lambda m, b: 2,
    "list": lambda m, b: b,
    "scalars": lambda m, b: [2.0, -1.0],
    "tensor": lambda m, b: m.tensor(3.0),
}


@pytest.mark.parametrize("other", sorted(OTHERS))
@pytest.mark.parametrize("op", BINARY)
def test_binary(op, other):
    if op in ("maximum", "minimum", "pow") and other == "tensor":
        pytest.skip("no Tensor overload in PyTorch")
    if op in ("maximum", "minimum") and other == "int scalar":
        pytest.skip("covered by scalar")

    def run(m):
        a, b = _lists(m)
        out = getattr(m, f"_foreach_{op}")(a, OTHERS[other](m, b))
        a2, b2 = _lists(m)
        ret = getattr(m, f"_foreach_{op}_")(a2, OTHERS[other](m, b2))
        return type(out).__name__, list(out), ret is a2, a2
    check(run)


@pytest.mark.parametrize("op", ["add", "sub"])
def test_alpha(op):
    def run(m):
        a, b = _lists(m)
        out = getattr(m, f"_foreach_{op}")(a, b, alpha=0.5)
        getattr(m, f"_foreach_{op}_")(a, b, alpha=-2)
        return list(out), a
    check(run)


UNARY = ["abs", "acos", "asin", "atan", "ceil", "cos", "cosh", "erf", "erfc", "exp", "expm1",
         "floor", "frac", "lgamma", "log", "log10", "log1p", "log2", "neg", "reciprocal",
         "round", "rsqrt", "sigmoid", "sign", "sin", "sinh", "sqrt", "tan", "tanh", "trunc"]


@pytest.mark.parametrize("op", UNARY)
def test_unary(op):
    def run(m):
        a = [m.tensor([0.25, 0.5], dtype=m.float64), m.tensor([[0.75], [0.125]], dtype=m.float64)]
        out = getattr(m, f"_foreach_{op}")(a)
        ret = getattr(m, f"_foreach_{op}_")(a)
        return list(out), a, ret is a
    check(run)


def test_pointwise_lerp_norm_max_copy_zero():
    def run(m):
        a, b = _lists(m)
        c = [t * 2 + 1 for t in b]
        res = [
            list(m._foreach_addcmul(a, b, c, value=0.5)),
            list(m._foreach_addcdiv(a, b, c, [1.0, 2.0])),
            list(m._foreach_addcdiv(a, b, c, m.tensor([0.5, -1.0]))),
            list(m._foreach_lerp(a, b, 0.25)),
            list(m._foreach_lerp(a, b, c)),
            list(m._foreach_norm(a)), list(m._foreach_norm(a, 1)),
            list(m._foreach_norm(a, float("inf"))), list(m._foreach_norm(a, dtype=m.float64)),
            list(m._foreach_max(a)),
            list(m._foreach_pow(2.0, b)),
            list(m._foreach_clone(a)),
        ]
        m._foreach_addcmul_(a, b, c, value=2)
        m._foreach_lerp_(a, b, 0.1)
        res.append([t.clone() for t in a])
        ret = m._foreach_copy_(a, b)
        res += [a, ret is a]
        t = (m.ones(2), m.ones(3))
        res += [m._foreach_zero_(t) is t, t]
        return res
    check(run)


def test_integer_promotion():
    check(lambda m: list(m._foreach_add([m.ones(2, dtype=m.int64)], 1.5))
          + list(m._foreach_div([m.arange(3)], 2)) + list(m._foreach_exp([m.arange(2)])))


def test_errors():
    check_error(lambda m: m._foreach_add([], 1))
    check_error(lambda m: m._foreach_add([m.ones(2), m.ones(3)], [m.ones(2)]))
    check_error(lambda m: m._foreach_mul([m.ones(2), m.ones(3)], [1.0]))
    check_error(lambda m: m._foreach_add_([m.ones(2, requires_grad=True)], 1))


def test_bad_argument_types_raise_type_error():
    torch = need_torch()
    for fn in (lambda m: m._foreach_add([m.ones(2)], "x"), lambda m: m._foreach_add(m.ones(2), 1),
               lambda m: m._foreach_mul([m.ones(2)], 1, alpha=2)):
        for m in (G, torch):
            with pytest.raises(TypeError, match="_foreach_(add|mul)\\(\\) received an invalid"):
                fn(m)


def test_gradients_flow_through():
    def run(m):
        a = [m.tensor([1.0, 2.0], requires_grad=True), m.tensor([3.0], requires_grad=True)]
        b = [m.tensor([0.5, 0.25]), m.tensor([2.0])]
        out = m._foreach_lerp(m._foreach_mul(a, b), a, 0.3)
        norms = m._foreach_norm(out)
        sum(norms).backward()
        return [t.grad for t in a]
    check(run)


def test_ema_update_as_timm_writes_it():
    def run(m):
        m.manual_seed(0)
        model = m.nn.Sequential(m.nn.Linear(3, 4), m.nn.BatchNorm1d(4))
        ema = [v.clone() for v in model.state_dict().values()]
        model(m.randn(5, 3))
        with m.no_grad():
            floats = [e for e in ema if e.is_floating_point()]
            src = [v for v in model.state_dict().values() if v.is_floating_point()]
            m._foreach_lerp_(floats, src, weight=0.1)
            m._foreach_mul_(floats, 0.5)
        return ema
    check(run)


def test_copy_non_blocking():
    # Tensor.copy_(src, non_blocking) as prefetching loops call it (the flag checked as a bool)
    check(lambda m: m.ones(2).copy_(m.arange(2.), True))
    check(lambda m: m.ones(2).copy_(m.arange(2.), non_blocking=True))
    check_error(lambda m: m.ones(2).copy_(m.arange(2.), 1))
    check_error(lambda m: m.ones(2).copy_(m.arange(2.), non_blocking=1))
