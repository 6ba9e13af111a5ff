"""Differential tests of gradrs.nn.utils.parametrizations.orthogonal against PyTorch: the
parametrized weight (tall, wide, square, batched; the three maps, with and without the dynamic
trivialization), the gradients reaching the original, assignment through right_inverse, reprs,
state_dict keys and errors."""

from __future__ import annotations

import numpy as np
import pytest
from conftest import G, check_error, norm

MAPS = ["matrix_exp", "cayley", "householder"]
SHAPES = [(4, 4), (3, 5), (5, 3)]


def _orth(lib, shape, orthogonal_map, trivial, seed=0):
    lib.manual_seed(seed)
    m = lib.nn.Linear(shape[1], shape[0])
    return lib.nn.utils.parametrizations.orthogonal(m, orthogonal_map=orthogonal_map,
                                                    use_trivialization=trivial)


def _np(t):
    return t.detach().numpy()


@pytest.mark.parametrize("shape", SHAPES)
@pytest.mark.parametrize("orthogonal_map", MAPS)
@pytest.mark.parametrize("trivial", [True, False])
def test_weight_and_gradients_match(torch, shape, orthogonal_map, trivial):
    mg = _orth(G, shape, orthogonal_map, trivial)
    mt = _orth(torch, shape, orthogonal_map, trivial)
    np.testing.assert_allclose(_np(mg.weight), _np(mt.weight), atol=2e-5)
    og = mg.parametrizations.weight.original
    ot = mt.parametrizations.weight.original
    np.testing.assert_allclose(_np(og), _np(ot), atol=2e-5)
    x = np.linspace(-1, 1, 2 * shape[1], dtype=np.float32).reshape(2, shape[1])
    (mg(G.tensor(x)) ** 2).sum().backward()
    (mt(torch.tensor(x)) ** 2).sum().backward()
    np.testing.assert_allclose(_np(og.grad), _np(ot.grad), atol=1e-4)
    assert sorted(mg.state_dict()) == sorted(mt.state_dict())


def test_batched_and_float64(torch):
    def run(lib):
        lib.manual_seed(3)
        m = lib.nn.Module()
        m.register_parameter("w", lib.nn.Parameter(lib.randn(2, 4, 3, dtype=lib.float64)))
        lib.nn.utils.parametrizations.orthogonal(m, "w")
        return m

    mg, mt = run(G), run(torch)
    assert str(mg.w.dtype) == norm(str(mt.w.dtype))
    np.testing.assert_allclose(_np(mg.w), _np(mt.w), atol=1e-10)


def test_assignment_and_repr(torch):
    def run(lib):
        lib.manual_seed(1)
        m = lib.nn.utils.parametrizations.orthogonal(lib.nn.Linear(3, 3))
        q = lib.tensor([[0.0, 1.0, 0.0], [0.0, 0.0, 1.0], [1.0, 0.0, 0.0]])
        m.weight = q  # already orthogonal: becomes the base as it is
        return m, q

    (mg, _), (mt, qt) = run(G), run(torch)
    np.testing.assert_allclose(_np(mg.weight), _np(qt), atol=1e-6)
    np.testing.assert_allclose(_np(mg.parametrizations.weight[0].base),
                               _np(mt.parametrizations.weight[0].base), atol=1e-6)
    assert repr(mg) == norm(repr(mt))


@pytest.mark.parametrize("case", range(4))
def test_errors(case):
    def fn(lib):
        if case == 0:
            return lib.nn.utils.parametrizations.orthogonal(lib.nn.Linear(3, 3), "bias")
        if case == 1:
            return lib.nn.utils.parametrizations.orthogonal(lib.nn.Linear(3, 3), orthogonal_map="qr")
        m = lib.nn.utils.parametrizations.orthogonal(
            lib.nn.Linear(3, 3), use_trivialization=False)
        if case == 2:
            m.weight = lib.eye(3)  # matrix_exp cannot be assigned without the trivialization
        m = lib.nn.utils.parametrizations.orthogonal(lib.nn.Linear(3, 3))
        m.weight = lib.eye(2)

    check_error(fn)
