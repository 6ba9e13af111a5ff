"""autograd.graph.increment_version, testing.assert_allclose (deprecated) and
utils.hooks.warn_if_has_hooks against torch 2.13: effects, messages, errors."""

from __future__ import annotations

import warnings

import pytest
from conftest import G, check_error, check_warning


def test_increment_version(torch):
    def run(m):
        x = m.ones(2)
        m.autograd.graph.increment_version(x)
        m.autograd.graph.increment_version([x, x])
        with m.inference_mode():
            y = m.ones(2)
        m.autograd.graph.increment_version(y)
        return x._version

    assert run(G) == run(torch) == 3


def test_increment_version_makes_backward_raise(torch):
    def run(m):
        a = m.ones(2, requires_grad=True)
        b = a * 1
        c = b * b
        m.autograd.graph.increment_version(b)
        c.sum().backward()

    check_error(run)


@pytest.mark.parametrize("arg", [3, "bad"])
def test_increment_version_errors(arg):
    check_error(lambda m: m.autograd.graph.increment_version(arg if arg == 3 else [m.ones(1), 3]))


@pytest.mark.parametrize("case", [
    lambda m: m.testing.assert_allclose(m.tensor([1.0, 2.0]), [1.00001, 2.0]),
    lambda m: m.testing.assert_allclose(m.tensor([1.0, 2.0]), [1.001, 2.0]),
    lambda m: m.testing.assert_allclose(1.0, 1.0 + 1e-6),
    lambda m: m.testing.assert_allclose(m.tensor([1.0, float("nan")]), [1.0, float("nan")]),
    lambda m: m.testing.assert_allclose(m.tensor([1.0], dtype=m.float64),
                                        m.tensor([1.0 + 2e-8], dtype=m.float64)),
    lambda m: m.testing.assert_allclose(m.tensor([1.0], dtype=m.float64),
                                        m.tensor([1.1], dtype=m.float16)),
    lambda m: m.testing.assert_allclose(m.tensor([1, 2]), [1, 3], msg="custom"),
    lambda m: m.testing.assert_allclose(m.tensor([1.0]), [1.5], rtol=0.1, atol=0.0),
    lambda m: m.testing.assert_allclose(m.tensor([1.0]), [1.5], rtol=0.1),
])
def test_assert_allclose_matches_torch(torch, case):
    outcome = []
    for m in (G, torch):
        try:
            case(m)
            outcome.append(None)
        except Exception as e:  # noqa: BLE001 - compared below
            outcome.append(e)
    if outcome[1] is None:
        assert outcome[0] is None, outcome[0]
    else:
        check_error(case)


def test_warn_if_has_hooks(torch):
    def run(m):
        t = m.ones(2, requires_grad=True)
        m.utils.hooks.warn_if_has_hooks(t)  # no hook: silent
        t.register_hook(m.utils.hooks.unserializable_hook(lambda g: g))
        m.utils.hooks.warn_if_has_hooks(t)  # marked: silent
        t.register_hook(print)
        m.utils.hooks.warn_if_has_hooks(t)

    with warnings.catch_warnings():
        warnings.simplefilter("always")
        check_warning(run)
