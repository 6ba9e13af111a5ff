"""`gradrs.utils.benchmark` against `torch.utils.benchmark`: Measurement statistics and reprs,
Compare's tables (trimmed, coloured, highlighted, threads and envs), the unit helpers, and
Timer's results and errors. Times are given, not measured, where outputs are compared."""

import importlib
import re

import pytest
from conftest import G, assert_same_error, norm

_ADDR = re.compile(r" at 0x[0-9a-f]+>")


def _bm(mod):
    return importlib.import_module(f"{mod.__name__}.utils.benchmark")


def _measurements(bm, spread=0.0):
    out = []
    specs = [
        ("add", "float", "n=1", 1, None, 2.1e-6),
        ("add", "float", "n=64", 1, None, 5.7e-6),
        ("add", "int", "n=1", 1, None, 3.3e-6),
        ("add", "int", "n=64", 4, None, 1.9e-6),
        ("add", "float", "n=1", 4, None, 1.2e-6),
        ("mm", "a", "small", 1, "env1", 3.5e-4),
        ("mm", "a", "small", 1, "env2", 4.2e-4),
        ("mm", "b", "big", 1, "env1", 1.25e-2),
    ]
    for k, (label, sub, desc, thr, env, t) in enumerate(specs):
        times = [t * (1 + spread * ((i * 7 + k) % 5 - 2) / 2) for i in range(8)]
        spec = bm.TaskSpec(stmt="x + y", setup="x = 1", label=label, sub_label=sub, description=desc,
                           num_threads=thr, env=env)
        out.append(bm.Measurement(number_per_run=10, raw_times=[x * 10 for x in times], task_spec=spec))
    return out


@pytest.mark.parametrize("spread", [0.0, 0.05, 0.4])
def test_measurement(torch, spread):
    for g, t in zip(_measurements(_bm(G), spread), _measurements(_bm(torch), spread)):
        assert g.times == t.times
        assert g.median == pytest.approx(t.median, rel=1e-12)
        assert g.mean == pytest.approx(t.mean, rel=1e-12)
        assert g.iqr == pytest.approx(t.iqr, rel=1e-9, abs=1e-18)
        assert g.significant_figures == t.significant_figures
        assert g.has_warnings == t.has_warnings
        assert g.meets_confidence() == t.meets_confidence()
        assert (g.title, g.env, g.as_row_name, g.label, g.num_threads) == (
            t.title, t.env, t.as_row_name, t.label, t.num_threads)
        assert _ADDR.sub(">", repr(g)) == norm(_ADDR.sub(">", repr(t)))


@pytest.mark.parametrize("n", [1, 2, 3, 4, 5])
def test_measurement_repr_counts(torch, n):
    for bm, mod in ((_bm(G), G), (_bm(torch), torch)):
        spec = bm.TaskSpec(stmt="f(x)\ng(x)", setup="a = 1\nb = 2", sub_label="s", description="d")
        m = bm.Measurement(3, [1e-3 * (1 + i / 10) for i in range(n)], spec)
        if mod is G:
            g = _ADDR.sub(">", repr(m))
        else:
            t = norm(_ADDR.sub(">", repr(m)))
    assert g == t


@pytest.mark.parametrize("options", [(), ("trim",), ("colorize",), ("rowwise",), ("highlight",),
                                     ("trim", "highlight", "colorize")])
@pytest.mark.parametrize("spread", [0.0, 0.3])
def test_compare(torch, options, spread):
    def render(bm):
        c = bm.Compare(_measurements(bm, spread))
        if "trim" in options:
            c.trim_significant_figures()
        if "colorize" in options:
            c.colorize()
        if "rowwise" in options:
            c.colorize(rowwise=True)
        if "highlight" in options:
            c.highlight_warnings()
        return str(c)

    assert render(_bm(G)) == render(_bm(torch))


def test_compare_merges_replicates(torch):
    def render(bm):
        spec = bm.TaskSpec("f()", "pass", label="L", description="c")
        return str(bm.Compare([bm.Measurement(2, [4e-6, 5e-6], spec), bm.Measurement(1, [2.2e-6], spec)]))

    assert render(_bm(G)) == render(_bm(torch))
    assert_same_error(lambda: _bm(G).Compare([1]), lambda: _bm(torch).Compare([1]))


@pytest.mark.parametrize("t", [1e-10, 3e-9, 999e-9, 1e-6, 4.5e-5, 0.999e-3, 2e-3, 0.7, 1.0, 31.0])
def test_units(torch, t):
    g, r = _bm(G), _bm(torch)
    assert g.select_unit(t) == r.select_unit(t)
    for n in (1, 2, 3, 4):
        assert g.trim_sigfig(t, n) == r.trim_sigfig(t, n)
    assert g.unit_to_english(g.select_unit(t)[0]) == r.unit_to_english(r.select_unit(t)[0])
    assert g.ordered_unique([3, 1, 3, 2]) == r.ordered_unique([3, 1, 3, 2])


def test_timer(torch):
    bm = _bm(G)
    x = G.ones(8)
    t = bm.Timer("y = x * 2\ny.sum()", setup="z = 1", globals={"x": x}, label="mul", sub_label="f32",
                 description="n=8", num_threads=1)
    m = t.timeit(50)
    assert m.number_per_run == 50 and len(m.raw_times) == 1 and m.raw_times[0] > 0
    assert (m.label, m.sub_label, m.description, m.stmt, m.setup) == ("mul", "f32", "n=8", "y = x * 2\ny.sum()", "z = 1")
    m = t.blocked_autorange(min_run_time=0.02)
    assert sum(m.raw_times) >= 0.02 and m.number_per_run >= 1 and m.median > 0
    calls = []
    m = bm.Timer("torch.ones(2) + 1").adaptive_autorange(min_run_time=0.01, max_run_time=0.3,
                                                         callback=lambda n, s: calls.append((n, s)))
    assert len(calls) == len(m.raw_times) and all(n == m.number_per_run for n, _ in calls)
    before = G.get_num_threads()
    seen = []
    bm.Timer("seen.append(torch.get_num_threads())", globals={"seen": seen}, num_threads=1).timeit(3)
    assert set(seen) == {1} and G.get_num_threads() == before
    # the compared structure of a result from real timing
    s = bm.Compare([t.timeit(10), t.blocked_autorange(min_run_time=0.01)])
    assert "Times are in" in str(s)


@pytest.mark.parametrize("case", [
    lambda bm: bm.Timer(stmt=lambda: 1),
    lambda bm: bm.Timer("x", global_setup="#include <x>"),
    lambda bm: bm.Timer("x", language="fortran"),
    lambda bm: bm.Timer("x").repeat(),
    lambda bm: bm.Timer("x").autorange(),
    lambda bm: bm.Timer("undefined_name").timeit(1),
])
def test_timer_errors(torch, case):
    assert_same_error(lambda: case(_bm(G)), lambda: case(_bm(torch)))
