"""gradrs.multiprocessing (torch.multiprocessing): the standard module's API, the sharing
strategies, spawn / start_processes with PyTorch's failure reporting, vs torch."""

from __future__ import annotations

import os

import pytest
from conftest import G, need_torch

mp = G.multiprocessing


def _write_rank(i, directory, scale):
    # the spawned function: fn(i, *args); a gradrs tensor computed in the child
    t = G.arange(3.) * scale + i
    with open(os.path.join(directory, f"rank{i}"), "w") as fh:
        fh.write(repr(t.tolist()))


def _raise_in_child(i):
    if i == 1:
        raise ValueError("bad rank")


def _exit_in_child(i):
    os._exit(3)


def test_module_surface_matches_torch():
    torch = need_torch()
    assert sorted(mp.__all__) == sorted(torch.multiprocessing.__all__)
    assert mp.get_all_sharing_strategies() == torch.multiprocessing.get_all_sharing_strategies()
    assert mp.get_sharing_strategy() == torch.multiprocessing.get_sharing_strategy()
    for name in ("Process", "Queue", "Pool", "get_context", "set_start_method", "cpu_count",
                 "spawn", "start_processes", "ProcessContext", "ProcessRaisedException",
                 "ProcessExitedException"):
        assert hasattr(mp, name), name
    assert G.multiprocessing is mp  # reachable as an attribute after `import gradrs`


def test_sharing_strategy_switch_and_error():
    torch = need_torch()
    try:
        mp.set_sharing_strategy("file_system")
        assert mp.get_sharing_strategy() == "file_system"
    finally:
        mp.set_sharing_strategy("file_descriptor")
    errors = []
    for m in (mp, torch.multiprocessing):
        with pytest.raises(AssertionError) as info:
            m.set_sharing_strategy("nope")
        errors.append(str(info.value))
    assert errors[0] == errors[1]


def test_spawn_runs_every_rank(tmp_path):
    assert mp.spawn(_write_rank, args=(str(tmp_path), 2.0), nprocs=2) is None
    assert [(tmp_path / f"rank{i}").read_text() for i in range(2)] == [
        "[0.0, 2.0, 4.0]", "[1.0, 3.0, 5.0]"]


def test_raised_exception_carries_the_child_traceback():
    with pytest.raises(mp.ProcessRaisedException) as info:
        mp.start_processes(_raise_in_child, nprocs=2, start_method="fork")
    msg = str(info.value)
    assert msg.startswith("\n\n-- Process 1 terminated with the following error:\nTraceback")
    assert msg.rstrip().endswith("ValueError: bad rank")
    assert info.value.error_index == 1


def test_exit_code_and_context():
    with pytest.raises(mp.ProcessExitedException, match="process 0 terminated with exit code 3") \
            as info:
        mp.start_processes(_exit_in_child, nprocs=1, start_method="fork")
    assert info.value.exit_code == 3
    ctx = mp.start_processes(_raise_in_child, nprocs=1, join=False, start_method="fork")
    assert isinstance(ctx, mp.ProcessContext) and len(ctx.pids()) == 1
    while not ctx.join():
        pass
    assert ctx.join() is True


def test_spawn_other_start_method_warns():
    torch = need_torch()
    messages = []
    for m in (mp, torch.multiprocessing):
        with pytest.warns(FutureWarning) as record:
            m.spawn(_raise_in_child, nprocs=0, start_method="fork")
        messages.append(str(record[0].message))
    assert messages[0] == messages[1]
