"""gradrs.nn.utils.stateless.functional_call (PyTorch's deprecated form of func.functional_call)
vs torch: values, gradients through the given tensors, the FutureWarning, the dict-only argument."""

import pytest

from conftest import G, assert_same, check_error, check_warning


def _model(M):
    M.manual_seed(0)
    return M.nn.Sequential(M.nn.Linear(3, 4), M.nn.Tanh(), M.nn.BatchNorm1d(4), M.nn.Linear(4, 2))


def _call(M, **kw):
    model = _model(M)
    params = {n: p.detach() * 2 for n, p in model.named_parameters()}
    params["0.weight"].requires_grad_()
    x = M.arange(15.0).view(5, 3).sin()
    out = M.nn.utils.stateless.functional_call(model, params, (x,), **kw)
    out = out * M.arange(5.0).view(5, 1)
    out.sum().backward()
    return out, params["0.weight"].grad, model[0].weight.grad, model[2].running_mean


def test_functional_call_values_and_gradients(torch):
    g, t = _call(G), _call(torch)
    for a, b in zip(g[:2], t[:2]):
        assert_same(a, b, check_repr=False, rtol=1e-4, atol=1e-5)
    assert g[2] is None and t[2] is None  # the module's own parameters are not used
    assert_same(g[3], t[3])  # buffers not given still update in place


def test_functional_call_args_kwargs_and_strict(torch):
    def run(M, **kw):
        model = M.nn.Linear(2, 1)
        params = {"weight": M.ones(1, 2), "bias": M.zeros(1)}
        return M.nn.utils.stateless.functional_call(model, params, kwargs={"input": M.ones(3, 2)},
                                                    **kw)

    assert_same(run(G, strict=True), run(torch, strict=True))
    check_error(lambda M: M.nn.utils.stateless.functional_call(
        M.nn.Linear(2, 1), {"weight": M.ones(1, 2)}, M.ones(1, 2), strict=True))


def test_functional_call_warns_and_takes_only_a_dict():
    check_warning(lambda M: M.nn.utils.stateless.functional_call(
        M.nn.Linear(2, 1), {"weight": M.ones(1, 2)}, M.ones(1, 2)))
    check_error(lambda M: M.nn.utils.stateless.functional_call(
        M.nn.Linear(2, 1), [{"weight": M.ones(1, 2)}], M.ones(1, 2)))


def test_module_is_reachable_as_an_attribute():
    assert G.nn.utils.stateless.__all__ == ["functional_call"]
    pytest.importorskip("gradrs.nn.utils.stateless")
