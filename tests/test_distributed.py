"""gradrs.distributed over MPI: `mpirun --oversubscribe -np 2` and `-np 4` on localhost run the
scripts in tests/mpi/ (every collective for float32 / float64 / int64, process groups, errors;
DistributedDataParallel trained on 2 and 4 processes equals one process on the full batch);
the API that needs no process group is checked here against torch. Skips when mpirun or mpi4py
is missing."""

from __future__ import annotations

import importlib.util
import os
import re
import shutil
import subprocess
import sys
from pathlib import Path

import pytest
from conftest import G, check_error

HERE = Path(__file__).resolve().parent
MPIRUN = shutil.which("mpirun")
needs_mpi = pytest.mark.skipif(
    MPIRUN is None or importlib.util.find_spec("mpi4py") is None,
    reason="needs mpirun (openmpi-bin) and mpi4py")


def mpirun(nprocs, script, *args):
    """Run tests/mpi/<script> on `nprocs` local processes; return their stdout (mpirun may
    interleave the processes' output)."""
    cmd = [MPIRUN, "--oversubscribe", "--allow-run-as-root", "-np", str(nprocs),
           sys.executable, str(HERE / "mpi" / script), *args]
    env = dict(os.environ, OMP_NUM_THREADS="1")
    r = subprocess.run(cmd, capture_output=True, text=True, timeout=240, env=env)
    assert r.returncode == 0, f"exit {r.returncode}\n{r.stdout}\n{r.stderr}"
    return r.stdout


@needs_mpi
@pytest.mark.parametrize("nprocs", [2, 4])
def test_collectives(nprocs):
    out = mpirun(nprocs, "collectives.py", *(["--gpu"] if nprocs == 2 else []))
    assert sorted(re.findall(r"OK rank \d+ of \d+", out)) == [
        f"OK rank {r} of {nprocs}" for r in range(nprocs)]


@needs_mpi
@pytest.mark.parametrize("nprocs", [2, 4])
def test_ddp_equals_one_process_on_the_full_batch(nprocs):
    out = mpirun(nprocs, "ddp.py", *(["--gpu"] if nprocs == 2 else []))
    assert sorted(re.findall(r"OK rank \d+ of \d+", out)) == [
        f"OK rank {r} of {nprocs}" for r in range(nprocs)]


@needs_mpi
@pytest.mark.parametrize("nprocs", [2, 4])
def test_sync_batch_norm_equals_batch_norm_on_the_full_batch(nprocs):
    out = mpirun(nprocs, "syncbn.py", "--gpu")
    assert sorted(re.findall(r"OK rank \d+ of \d+", out)) == [
        f"OK rank {r} of {nprocs}" for r in range(nprocs)]
    if G.cuda.is_available():  # the synchronized path itself needs the GPU, as PyTorch's
        assert len(re.findall(r"GPU rank \d+", out)) == nprocs


@needs_mpi
@pytest.mark.parametrize("nprocs", [2, 3])
def test_ddp_comm_hooks_and_join(nprocs):
    """tests/mpi/ddp_hooks.py: comm hooks give DDP's averages, Join on uneven inputs."""
    out = mpirun(nprocs, "ddp_hooks.py")
    assert sorted(re.findall(r"OK rank \d+ of \d+", out)) == [
        f"OK rank {r} of {nprocs}" for r in range(nprocs)]


def test_comm_hook_and_join_api_as_torch(torch):
    import enum
    import inspect

    from gradrs.distributed.algorithms import Join, Joinable, JoinHook
    from gradrs.distributed.algorithms.ddp_comm_hooks import debugging_hooks, default_hooks

    import torch.distributed.algorithms.ddp_comm_hooks.debugging_hooks as t_debugging
    import torch.distributed.algorithms.ddp_comm_hooks.default_hooks as t_default
    from torch.distributed.algorithms import join as t_join

    assert default_hooks.__all__ == t_default.__all__
    for name in default_hooks.__all__ + ["_allreduce_fut"]:
        ours, theirs = getattr(default_hooks, name), getattr(t_default, name)
        assert list(inspect.signature(ours).parameters) == \
            list(inspect.signature(theirs).parameters), name
    assert debugging_hooks.__all__ == t_debugging.__all__
    assert G.distributed.algorithms.__all__ == ["Join", "JoinHook", "Joinable"]
    assert sorted(t_join.__all__) == sorted(G.distributed.algorithms.join.__all__)
    for ours, theirs in ((Join, t_join.Join), (JoinHook, t_join.JoinHook),
                         (Joinable, t_join.Joinable)):
        public = sorted(n for n in vars(theirs) if not n.startswith("__"))
        assert public == sorted(n for n in vars(ours) if not n.startswith("__")), ours
    sig, t_sig = inspect.signature(Join), inspect.signature(t_join.Join)
    assert [(p.name, p.kind, p.default) for p in sig.parameters.values()] == \
        [(p.name, p.kind, p.default) for p in t_sig.parameters.values()]
    ddp = G.nn.parallel.DistributedDataParallel
    tddp = torch.nn.parallel.DistributedDataParallel
    for name in ("register_comm_hook", "join", "join_hook", "_register_builtin_comm_hook"):
        assert list(inspect.signature(getattr(ddp, name)).parameters) == \
            list(inspect.signature(getattr(tddp, name)).parameters), name
    assert issubclass(ddp, Joinable) and not inspect.isabstract(ddp)
    hook_type, t_hook_type = G.distributed.BuiltinCommHookType, torch.distributed.BuiltinCommHookType
    assert issubclass(hook_type, enum.Enum)
    assert [(m.name, m.value, repr(m), str(m)) for m in hook_type] == \
        [(n, m.value, repr(m), str(m)) for n, m in t_hook_type.__members__.items()]
    assert [n for n in dir(G.distributed.GradBucket) if not n.startswith("_")] == \
        [n for n in dir(torch.distributed.GradBucket) if not n.startswith("_")]
    with pytest.raises(TypeError, match="^gradrs.distributed.GradBucket: No constructor defined!$"):
        G.distributed.GradBucket()
    with pytest.raises(TypeError, match="GradBucket: No constructor defined!$"):
        torch.distributed.GradBucket()
    # without a process group: Join refuses an empty list first
    for m in (G, torch):
        mod = Join if m is G else t_join.Join
        with pytest.raises(ValueError, match="requires at least one joinable"):
            mod([])
    assert JoinHook().main_hook() is None and JoinHook().post_hook(True) is None
    with pytest.raises(TypeError, match="abstract"):
        Joinable()


def test_ddp_comm_hook_type_as_torch(torch):
    """DDPCommHookType: torch's members for the hooks gradrs has, each value a partial of the
    same wrapper with the same hook; register_ddp_comm_hook registers it (state passed on)."""
    import inspect

    from gradrs.distributed.algorithms import ddp_comm_hooks as ours

    from torch.distributed.algorithms import ddp_comm_hooks as theirs

    assert ours.__all__ == theirs.__all__
    assert list(inspect.signature(ours.register_ddp_comm_hook).parameters) == \
        list(inspect.signature(theirs.register_ddp_comm_hook).parameters)
    t_members = theirs.DDPCommHookType.__members__
    for m in ours.DDPCommHookType:
        t = t_members[m.name]
        assert (str(m), m.value.func.__name__, m.value.keywords["comm_hook"].__name__) == \
            (str(t), t.value.func.__name__, t.value.keywords["comm_hook"].__name__)
    assert [n for n in t_members if n not in ours.DDPCommHookType.__members__] == [
        "QUANTIZE_PER_TENSOR", "QUANTIZE_PER_CHANNEL", "POWER_SGD", "POWER_SGD_RANK2",
        "BATCHED_POWER_SGD", "BATCHED_POWER_SGD_RANK2"]

    def run(mod):
        seen = []

        class Model:
            def register_comm_hook(self, state, hook):
                seen.append((state, hook.__name__))

        hooks = mod.distributed.algorithms.ddp_comm_hooks
        hooks.register_ddp_comm_hook(hooks.DDPCommHookType.FP16_COMPRESS, Model(), "state")
        hooks.register_ddp_comm_hook(hooks.DDPCommHookType.NOOP, Model())
        return seen

    assert run(G) == run(torch)


def test_ddp_module_path(torch):
    from gradrs.nn.parallel.distributed import DistributedDataParallel

    assert DistributedDataParallel is G.nn.parallel.DistributedDataParallel
    assert issubclass(DistributedDataParallel, G.nn.Module)
    assert torch.nn.parallel.DistributedDataParallel.__name__ == DistributedDataParallel.__name__


@pytest.mark.parametrize("limits", [[1024 * 1024, 25 * 1024 * 1024], [524, 524], [600, 2000],
                                    [10, 10], [1 << 40, 1 << 40]])
def test_ddp_bucket_assignment_matches_torch(torch, limits):
    def params(m):
        m.manual_seed(0)
        return list(m.nn.Sequential(m.nn.Linear(8, 32), m.nn.Tanh(), m.nn.Linear(32, 32),
                                    m.nn.Linear(32, 4, dtype=m.float64),
                                    m.nn.Linear(4, 4)).parameters())

    want, _ = torch.distributed._compute_bucket_assignment_by_size(
        params(torch), limits, [False] * 8)
    got = G.nn.parallel.DistributedDataParallel._bucket_indices(params(G), limits)
    assert got == list(reversed(want))


def test_ddp_needs_a_process_group():
    check_error(lambda m: m.nn.parallel.DistributedDataParallel(m.nn.Linear(2, 2)))


def test_api_without_a_process_group(torch):
    d, td = G.distributed, torch.distributed
    assert d.is_available() and not d.is_initialized()
    assert [(n, int(getattr(d.ReduceOp, n))) for n in d.ReduceOp.RedOpType.__members__] == [
        (n, int(getattr(td.ReduceOp, n))) for n in d.ReduceOp.RedOpType.__members__]
    assert repr(d.ReduceOp.SUM).replace("gradrs", "torch") == repr(td.ReduceOp.SUM)
    assert str(d.ReduceOp.MAX) == str(td.ReduceOp.MAX)
    assert d.ReduceOp(d.ReduceOp.MAX) == d.ReduceOp.MAX
    assert d.Backend("MPI") == td.Backend("MPI") == "mpi"
    assert d.Backend("custom") == td.Backend("custom")
    assert d.GroupMember.NON_GROUP_MEMBER == td.GroupMember.NON_GROUP_MEMBER
    assert d.group.WORLD is None and td.group.WORLD is None
    assert d.is_backend_available("mpi") == d.is_mpi_available()
    assert not d.is_backend_available("gloo") and not d.is_backend_available("cpu:gloo")
    assert d.is_torchelastic_launched() == td.is_torchelastic_launched()
    assert d.get_node_local_rank(3) == td.get_node_local_rank(3)
    check_error(lambda m: m.distributed.get_node_local_rank())
    for op in ("SUM", "AVG", "PRODUCT", "MIN", "MAX", "BAND"):
        assert d.supports_complex(getattr(d.ReduceOp, op)) == td.supports_complex(
            getattr(td.ReduceOp, op))


@pytest.mark.parametrize("call", [
    lambda m: m.distributed.get_rank(),
    lambda m: m.distributed.get_world_size(),
    lambda m: m.distributed.get_backend(),
    lambda m: m.distributed.all_reduce(m.ones(2)),
    lambda m: m.distributed.all_reduce([1.0]),
    lambda m: m.distributed.broadcast(m.ones(2), src=0),
    lambda m: m.distributed.barrier(),
    lambda m: m.distributed.new_group([0]),
    lambda m: m.distributed.destroy_process_group(),
    lambda m: m.distributed.all_gather([m.ones(1)], [m.ones(1)]),
    lambda m: m.distributed.init_process_group("mpi", timeout=5),
    lambda m: m.distributed.P2POp(print, m.ones(1), 0),
    lambda m: m.distributed.P2POp(m.distributed.isend, [1.0], 0),
    lambda m: m.distributed.batch_isend_irecv([1]),
    lambda m: m.distributed.all_gather_object([None], 1),
    lambda m: m.distributed.all_to_all_single(m.ones(2), m.ones(2)),
    lambda m: m.distributed.init_process_group("mpi", init_method="env://", store=object()),
])
def test_errors_without_a_process_group_match_torch(call):
    check_error(call)


@pytest.mark.parametrize(("backend", "name"), [("gloo", "Gloo"), ("nccl", "NCCL"), (None, "Gloo")])
def test_only_mpi(backend, name):
    # PyTorch built without these backends says so (after its env:// rendezvous, which MPI
    # does not use)
    with pytest.raises(RuntimeError, match=f"^Distributed package doesn't have {name} built in$"):
        G.distributed.init_process_group(backend)


@pytest.mark.parametrize("n", [1000, 70001])
def test_sampler_order_matches_torch_on_large_datasets(torch, n):
    # randperm with a seeded Generator is PyTorch's stream at every size
    for kw in ({}, {"drop_last": True}, {"seed": 9}):
        for rank in (0, 2):
            s, t = (m.utils.data.DistributedSampler(range(n), num_replicas=3, rank=rank, **kw)
                    for m in (G, torch))
            s.set_epoch(3)
            t.set_epoch(3)
            assert list(s) == list(t)


def test_sampler_without_a_process_group_matches_torch():
    check_error(lambda m: m.utils.data.DistributedSampler(range(4)))
