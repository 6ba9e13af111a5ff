"""`gradrs.func` beyond the transforms, against PyTorch: `functional_call` on tied weights
(one value given, both given, the same value twice, tie_weights=False), `linearize` (values and
its tangent checks), `stack_module_state` (ensembling with vmap, its errors),
`replace_all_batch_norm_modules_` and `debug_unwrap`."""

import numpy as np
import pytest
from conftest import G, norm, norm_g

_rng = np.random.default_rng(5)
Y = _rng.standard_normal((2, 3))
X3 = _rng.standard_normal((3,))
W = _rng.standard_normal((3, 3))


def _tied(m):
    m.manual_seed(0)
    lin = m.nn.Linear(3, 3, bias=False).double()
    return m.nn.Sequential(lin, m.nn.Tanh(), lin)


def _eye(m, k=1.0):
    return k * m.eye(3, dtype=m.float64)


TIED = {
    "one given": lambda m: m.func.functional_call(_tied(m), {"0.weight": _eye(m)},
                                                  (m.tensor(Y),)),
    "other name given": lambda m: m.func.functional_call(_tied(m), {"2.weight": _eye(m, 2)},
                                                         (m.tensor(Y),)),
    "same value twice": lambda m: (lambda e: m.func.functional_call(
        _tied(m), {"0.weight": e, "2.weight": e}, (m.tensor(Y),)))(_eye(m, 3)),
    "untied": lambda m: m.func.functional_call(_tied(m), {"0.weight": _eye(m)}, (m.tensor(Y),),
                                               tie_weights=False),
}


@pytest.mark.parametrize("name", list(TIED))
def test_functional_call_tied_vs_torch(name, torch):
    np.testing.assert_allclose(np.asarray(TIED[name](G).tolist()),
                               TIED[name](torch).detach().numpy(), rtol=1e-12)


def _errors(m, call):
    with pytest.raises(Exception) as info:
        call(m)
    return type(info.value).__name__, str(info.value)


ERRORS = {
    "tied, two values": lambda m: m.func.functional_call(
        _tied(m), {"0.weight": _eye(m), "2.weight": _eye(m, 2)}, (m.tensor(Y),)),
    "linearize, tangent shape": lambda m: m.func.linearize(m.sin, m.tensor(X3))[1](
        m.ones(2, dtype=m.float64)),
    "linearize, tangent dtype": lambda m: m.func.linearize(m.sin, m.tensor(X3))[1](
        m.ones(3)),
    "linearize, tangent structure": lambda m: m.func.linearize(m.sin, m.tensor(X3))[1](
        m.ones(3, dtype=m.float64), m.ones(3, dtype=m.float64)),
    "stack_module_state, none": lambda m: m.func.stack_module_state([]),
    "stack_module_state, modes": lambda m: m.func.stack_module_state(
        [m.nn.Linear(2, 2), m.nn.Linear(2, 2).eval()]),
    "stack_module_state, classes": lambda m: m.func.stack_module_state(
        [m.nn.Linear(2, 2), m.nn.Bilinear(2, 2, 2)]),
    "stack_module_state, requires_grad": lambda m: m.func.stack_module_state(
        [m.nn.Linear(2, 2), m.nn.Linear(2, 2).requires_grad_(False)]),
}


@pytest.mark.parametrize("name", list(ERRORS))
def test_errors_as_torch(name, torch):
    (ours_type, ours), (theirs_type, theirs) = _errors(G, ERRORS[name]), _errors(torch,
                                                                                ERRORS[name])
    assert ours_type == theirs_type
    assert norm_g(ours) == norm(theirs)


def test_linearize_vs_torch(torch):
    def run(m):
        w = m.tensor(W)
        out, jvp_fn = m.func.linearize(lambda x, y: ((w @ x).sin() * y, x.sum()),
                                       m.tensor(X3), m.tensor(X3 * 2))
        t1 = jvp_fn(m.ones(3, dtype=m.float64), m.tensor(X3))
        t2 = jvp_fn(m.tensor(X3), m.zeros(3, dtype=m.float64))
        return [np.asarray(v.tolist()) for v in (*out, *t1, *t2)]

    for a, b in zip(run(G), run(torch)):
        np.testing.assert_allclose(a, b, rtol=1e-12, atol=1e-14)


def test_linearize_vs_torch_same_weights(torch):
    def run(m):
        w = m.tensor(W)
        out, jvp_fn = m.func.linearize(lambda x: (w @ x).tanh(), m.tensor(X3))
        return np.asarray(out.tolist()), np.asarray(jvp_fn(m.tensor(X3 + 1)).tolist())

    for a, b in zip(run(G), run(torch)):
        np.testing.assert_allclose(a, b, rtol=1e-12, atol=1e-14)


def test_stack_module_state_ensemble_vs_torch(torch):
    def run(m):
        m.manual_seed(0)
        models = [m.nn.Sequential(m.nn.Linear(3, 4), m.nn.BatchNorm1d(4), m.nn.Linear(4, 2))
                  .double().eval() for _ in range(3)]
        params, buffers = m.func.stack_module_state(models)
        out = m.func.vmap(lambda p, b, x: m.func.functional_call(models[0], (p, b), (x,)),
                          in_dims=(0, 0, None))(params, buffers, m.tensor(Y))
        leaf = params["0.weight"]
        return (np.asarray(out.tolist()), list(params), list(buffers), leaf.is_leaf,
                leaf.requires_grad, tuple(buffers["1.running_mean"].shape),
                buffers["1.running_mean"].requires_grad)

    ours, theirs = run(G), run(torch)
    np.testing.assert_allclose(ours[0], theirs[0], rtol=1e-12)
    assert ours[1:] == theirs[1:]


def test_replace_all_batch_norm_modules_vs_torch(torch):
    def run(m):
        net = m.nn.Sequential(m.nn.BatchNorm1d(3), m.nn.Sequential(m.nn.BatchNorm2d(2)),
                              m.nn.BatchNorm1d(3, track_running_stats=False))
        assert m.func.replace_all_batch_norm_modules_(net) is net
        return [(bn.running_mean, bn.running_var, bn.num_batches_tracked,
                 bn.track_running_stats) for bn in (net[0], net[1][0], net[2])]

    assert run(G) == run(torch)


def test_debug_unwrap_vs_torch(torch):
    def run(m):
        seen = []

        def f(x):
            seen.append((tuple(m.func.debug_unwrap(x).shape),
                         tuple(m.func.debug_unwrap(x, recurse=False).shape)))
            return x

        m.func.vmap(m.func.vmap(f))(m.ones(2, 3, 4))
        plain = m.ones(2)
        return seen, m.func.debug_unwrap(plain) is plain

    assert run(G) == run(torch)
