"""`gradrs.profiler` / `gradrs.autograd.profiler` against torch's: schedules and their
ProfilerAction sequence, on_trace_ready calls, the recorded record_function and ProfilerStep
ranges (torch's user annotations), nesting, key averages, the tables (built from the same
events, so identical), Chrome traces, and errors. gradrs records no per-op events, so torch's
`aten::*` events are filtered out before comparing."""

import gzip
import json
import os
import warnings

import pytest
from conftest import G, assert_same_error

pytestmark = pytest.mark.filterwarnings("ignore::UserWarning")


def _annotations(events):
    return [(e.name, e.trace_name, e.count) for e in events if e.is_user_annotation]


def _program(mod, sched, steps=6, nested=True):
    ready = []
    kw = {"schedule": sched(mod)} if sched else {}
    with mod.profiler.profile(activities=[mod.profiler.ProfilerActivity.CPU],
                              on_trace_ready=lambda p: ready.append((p.step_num, _annotations(p.events()))),
                              **kw) as p:
        for i in range(steps):
            with mod.profiler.record_function(f"step_work_{i % 2}"):
                if nested:
                    with mod.autograd.profiler.record_function("inner"):
                        mod.ones(3).sum()
            if sched:
                p.step()
    return ready, p


SCHEDULES = [
    None,
    lambda m: m.profiler.schedule(wait=1, warmup=1, active=2),
    lambda m: m.profiler.schedule(wait=0, warmup=1, active=1, repeat=2),
    lambda m: m.profiler.schedule(wait=1, warmup=0, active=3, repeat=1, skip_first=1),
    lambda m: m.profiler.schedule(wait=2, warmup=1, active=1, skip_first=1, skip_first_wait=1),
]


@pytest.mark.parametrize("k", range(len(SCHEDULES)))
def test_schedule_and_steps(torch, k):
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        g_ready, gp = _program(G, SCHEDULES[k])
        t_ready, tp = _program(torch, SCHEDULES[k])
    assert [r[0] for r in g_ready] == [r[0] for r in t_ready]
    assert [sorted(r[1]) for r in g_ready] == [sorted(r[1]) for r in t_ready]
    assert gp.step_num == tp.step_num
    assert gp.current_action.name == tp.current_action.name


def test_schedule_actions(torch):
    for args in [dict(wait=1, warmup=2, active=3), dict(wait=0, warmup=1, active=1, repeat=3),
                 dict(wait=2, warmup=1, active=2, skip_first=3, repeat=2),
                 dict(wait=3, warmup=1, active=1, skip_first=2, skip_first_wait=1)]:
        gs, ts = G.profiler.schedule(**args), torch.profiler.schedule(**args)
        assert [gs(i).name for i in range(30)] == [ts(i).name for i in range(30)]
    with pytest.warns(UserWarning, match="won't be using warmup"):
        G.profiler.schedule(wait=0, warmup=0, active=1)
    for args in [dict(wait=-1, warmup=1, active=1), dict(wait=0, warmup=1, active=0),
                 dict(wait=0, warmup=1, active=1, repeat=-1)]:
        assert_same_error(lambda a=args: G.profiler.schedule(**a), lambda a=args: torch.profiler.schedule(**a))
    assert_same_error(lambda: G.profiler.schedule(wait=0, warmup=1, active=1)(-1),
                      lambda: torch.profiler.schedule(wait=0, warmup=1, active=1)(-1))
    assert [a.name for a in G.profiler.ProfilerAction] == [a.name for a in torch.profiler.ProfilerAction]
    assert repr(G.profiler.ProfilerActivity.CPU) == repr(torch.profiler.ProfilerActivity.CPU)
    assert repr(G.profiler.supported_activities()) == repr(torch.profiler.supported_activities())


def test_events_and_averages(torch):
    def run(mod):
        with mod.profiler.profile(record_shapes=True) as p:
            for _ in range(3):
                with mod.profiler.record_function("outer"):
                    with mod.profiler.record_function("inner"):
                        pass
        return p

    gp, tp = run(G), run(torch)
    assert _annotations(gp.events()) == _annotations(tp.events())
    g_outer = [e for e in gp.events() if e.name == "outer"]
    assert all([c.name for c in e.cpu_children] == ["inner"] for e in g_outer)
    assert all(e.cpu_parent is None for e in g_outer)
    gavg = {e.key: e.count for e in gp.key_averages()}
    tavg = {e.key: e.count for e in tp.key_averages() if e.key in ("outer", "inner")}
    assert gavg == tavg
    assert type(gp.events()).__name__ == type(tp.events()).__name__ == "EventList"
    assert type(gp.key_averages()[0]).__name__ == type(tp.key_averages()[0]).__name__
    e = gp.events()[0]
    assert e.cpu_time_total >= e.self_cpu_time_total >= 0
    assert e.input_shapes == [] and e.stack == [] and e.overload_name == ""
    assert gp.profiler.self_cpu_time_total == pytest.approx(sum(x.self_cpu_time_total for x in gp.events()))


def _synthetic(mod):
    from importlib import import_module

    util = import_module(f"{mod.__name__}.autograd.profiler_util")
    spec = [("ProfilerStep*", 0.0, 2500.0), ("forward", 10.0, 1200.0), ("linear", 20.0, 700.0),
            ("backward", 1300.0, 2400.0), ("forward", 2600.0, 2700.5), ("a_very_long_name_" * 5, 2800.0, 2801.0)]
    events = util.EventList([util.FunctionEvent(i, n, 1, s, e, overload_name="", input_shapes=[], stack=[],
                                                trace_name=n, is_user_annotation=True)
                             for i, (n, s, e) in enumerate(spec)], profile_memory=False)
    events._build_tree()
    return events


@pytest.mark.parametrize("kw", [{}, {"sort_by": "cpu_time_total"}, {"sort_by": "self_cpu_time_total", "row_limit": 2},
                                {"sort_by": "count"}, {"top_level_events_only": True}, {"time_unit": "ms"},
                                {"header": "TITLE"}, {"max_name_column_width": 20}])
def test_tables(torch, kw):
    g, t = _synthetic(G), _synthetic(torch)
    assert g.table(**kw) == t.table(**kw)
    assert g.key_averages().table(**kw) == t.key_averages().table(**kw)
    assert g.total_average().count == t.total_average().count
    assert repr(g.key_averages()[0]) == repr(t.key_averages()[0])
    assert repr(g[1]) == repr(t[1])


def test_table_memory_columns(torch):
    g, t = _synthetic(G), _synthetic(torch)
    g._profile_memory = t._profile_memory = True
    assert g.table() == t.table()


def test_chrome_trace(tmp_path, torch):
    path = str(tmp_path / "trace.json")
    with G.profiler.profile(schedule=G.profiler.schedule(wait=0, warmup=1, active=2),
                            on_trace_ready=lambda p: p.export_chrome_trace(path)) as p:
        for _ in range(3):
            with G.profiler.record_function("work"):
                pass
            p.step()
    with open(path) as f:
        doc = json.load(f)
    names = [e["name"] for e in doc["traceEvents"] if e["ph"] == "X"]
    assert names == ["ProfilerStep#1", "work", "ProfilerStep#2", "work"]
    assert all({"ts", "dur", "pid", "tid", "cat"} <= set(e) for e in doc["traceEvents"] if e["ph"] == "X")
    with G.profiler.profile() as p:
        with G.profiler.record_function("work"):
            pass
    p.export_chrome_trace(path)
    with open(path) as f:
        doc = json.load(f)
    p.export_chrome_trace(path + ".gz")
    with gzip.open(path + ".gz", "rt") as f:
        assert json.load(f) == doc
    with G.autograd.profiler.profile() as legacy:
        with G.autograd.profiler.record_function("x"):
            pass
    legacy.export_chrome_trace(path)
    legacy.function_events.export_chrome_trace(path)  # the EventList's own list format
    with open(path) as f:
        assert [e["name"] for e in json.load(f)] == ["x"]
    d = tmp_path / "tb"
    with G.profiler.profile(on_trace_ready=G.profiler.tensorboard_trace_handler(str(d), use_gzip=True)):
        with G.profiler.record_function("y"):
            pass
    (name,) = os.listdir(d)
    assert name.endswith(".pt.trace.json.gz")


def test_record_function_decorator_and_threads(torch):
    import threading

    @G.profiler.record_function("decorated")
    def f(x):
        return x + 1

    with G.profiler.profile() as p:
        f(G.ones(1))
        th = threading.Thread(target=lambda: f(G.ones(1)))
        th.start()
        th.join()
    evs = p.events()
    assert [e.name for e in evs] == ["decorated", "decorated"]
    assert len({e.thread for e in evs}) == 2
    # no profiler: nothing recorded, the function still runs
    assert f(G.ones(1)).item() == 2.0


def test_legacy_profile_api(torch):
    for mod in (G, torch):
        p = mod.autograd.profiler.profile()
        assert str(p) == f"<unfinished {mod.__name__}.autograd.profile>"
    assert len(G.autograd.profiler.profile().key_averages()) == len(torch.autograd.profiler.profile().key_averages())
    with G.autograd.profiler.profile(enabled=False) as p:
        pass
    assert p is None
    with G.autograd.profiler.emit_nvtx(enabled=False):
        pass
    # torch built without CUDA raises on entry ("Torch not compiled ..."; gradrs names itself)
    with pytest.raises(AssertionError) as eg:
        G.autograd.profiler.emit_nvtx().__enter__()
    with pytest.raises(AssertionError) as et:
        torch.autograd.profiler.emit_nvtx().__enter__()
    assert str(eg.value) == str(et.value).replace("Torch", "gradrs")
