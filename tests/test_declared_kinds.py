"""The ops of the declaration kinds beyond plain elementwise (a unary op with a parameter,
reductions, views, multi-output ops): what the op table does not check, against torch 2.13 --
reprs, named-tuple results, in-place and out= forms, saved values, view sharing, errors."""

import pytest
from conftest import G, assert_same_repr, check, check_error, need_torch, run_both

NAN = float("nan")


def _data(m):
    return m.tensor([[0.1, 0.5, 0.9], [0.0, 1.0, -0.2]])


def test_logit_in_place_and_out():
    check(lambda m: _data(m).logit_(0.25))
    check(lambda m: _data(m).logit_())
    check(lambda m: m.logit_(_data(m), eps=0.3))

    def out(m):
        o = m.empty(0)
        r = m.logit(_data(m), 0.2, out=o)
        assert r is o
        return o

    check(out)


def test_logit_saved_eps_and_repr():
    for eps in (None, 0.2):
        g, t = check(lambda m, eps=eps: m.logit(_data(m).requires_grad_(), eps))
        assert g.grad_fn._saved_eps == t.grad_fn._saved_eps
        assert_same_repr(g, t)


def test_logit_errors():
    check_error(lambda m: m.logit(_data(m), "a"))
    check_error(lambda m: m.logit(_data(m), 0.1, 0.2))
    check_error(lambda m: _data(m).requires_grad_().logit_())


def _nans(m):
    return m.tensor([[1.0, NAN, 3.0], [NAN, NAN, 2.0]])


@pytest.mark.parametrize("name", ["nansum", "nanmean"])
def test_nan_reductions_forms(name):
    check(lambda m: getattr(m, name)(_nans(m), 1, True, dtype=m.float64))
    check(lambda m: getattr(_nans(m), name)(dim=(0, 1)))

    def out(m):
        o = m.empty(0)
        assert getattr(m, name)(_nans(m), 0, out=o) is o
        return o

    check(out)


def test_nanmean_graph_is_pytorch_s():
    torch = need_torch()
    for m in (G, torch):
        y = m.nanmean(_nans(m).requires_grad_(), 1)
        assert type(y.grad_fn).__name__ == "DivBackward0"
        assert type(y.grad_fn.next_functions[0][0]).__name__ == "NansumBackward0"
    check(lambda m: m.nanmean(_nans(m).requires_grad_(), 1).grad_fn._saved_other)


def test_nan_reduction_errors():
    check_error(lambda m: m.nanmean(m.tensor([1, 2])))
    check_error(lambda m: m.nanmean(m.tensor([1.0]), dtype=m.int64))
    check_error(lambda m: m.nansum(_nans(m), 2))


def test_movedim_is_a_view():
    torch = need_torch()
    for m in (G, torch):
        base = m.zeros(2, 3, 4)
        v = m.movedim(base, 0, -1)
        assert v._base is base and v._is_view() and not v.is_contiguous()
        v.add_(1)
        assert base._version == v._version == 1 and float(base.sum()) == 24.0
    check(lambda m: m.zeros(2, 3, 4).moveaxis((0, 1), (2, 0)).stride())


def test_movedim_mixed_int_and_tuple_raise_type_error():
    x = G.zeros(2, 3)
    with pytest.raises(TypeError):
        G.movedim(x, 0, (1,))
    with pytest.raises(TypeError):
        x.movedim((0,), 1)


def test_aminmax_named_tuple():
    def f(m):
        return m.aminmax(m.tensor([[1.0, 5.0], [-2.0, 3.0]]), dim=1, keepdim=True)

    g, t = run_both(f)
    check(lambda m: tuple(f(m)))
    assert type(g).__name__ == "aminmax" and type(g).__module__ == "gradrs.return_types"
    assert g._fields == ("min", "max") and g.min is g[0] and g.max is g[1]
    assert_same_repr(g, t)


def test_aminmax_out_and_saved_values():
    def out(m):
        mn, mx = m.empty(0), m.empty(0)
        r = m.aminmax(m.tensor([[1.0, 5.0], [-2.0, 3.0]]), dim=0, out=(mn, mx))
        assert r[0] is mn and r[1] is mx and type(r).__name__ == "aminmax_out"
        return mn, mx

    check(out)
    torch = need_torch()
    for dim in (None, -1):
        g = G.aminmax(G.ones(2, 3).requires_grad_(), dim=dim).min.grad_fn
        t = torch.aminmax(torch.ones(2, 3).requires_grad_(), dim=dim).min.grad_fn
        assert g._saved_dim == t._saved_dim and g._saved_keepdim == t._saved_keepdim
        assert type(g).__name__ == "AminmaxBackward0"


def test_aminmax_errors():
    check_error(lambda m: m.aminmax(m.empty(0)))
    check_error(lambda m: m.aminmax(m.empty(2, 0), dim=-1))
    check_error(lambda m: m.aminmax(m.ones(2), 0))
