"""Forked children and thread counts: large ops in a forked child finish (the parent's pool
threads do not exist there), set_num_threads(1) keeps them on one thread, and a child refuses
the parent's GPU with PyTorch's error instead of hanging (Note [Fork] in src/backend/fork.rs).

Every child runs under a timeout, so a regression fails the test instead of hanging the suite.
"""

from __future__ import annotations

import multiprocessing as mp
import os
import subprocess
import sys
import textwrap

import pytest
from conftest import SELFTEST, G

pytestmark = pytest.mark.skipif(
    not hasattr(os, "fork") or not os.path.isdir("/proc/self/task"),
    reason="needs fork and Linux's /proc",
)

TIMEOUT = 60


def in_fork(fn):
    """`fn()` run in a child forked from this process: ("ok", value) or ("error", message).
    Fails the test when the child does not answer within TIMEOUT seconds."""
    ctx = mp.get_context("fork")
    recv, send = ctx.Pipe(duplex=False)

    def child():
        try:
            send.send(("ok", fn()))
        except BaseException as e:  # noqa: BLE001 - everything goes back to the parent
            send.send(("error", f"{type(e).__name__}: {e}"))

    p = ctx.Process(target=child)
    p.start()
    try:
        if not recv.poll(TIMEOUT):
            pytest.fail(f"the forked child hung (no answer in {TIMEOUT} s)")
        return recv.recv()
    finally:
        p.join(5)
        if p.is_alive():
            p.kill()
            p.join()


def os_threads():
    return len(os.listdir("/proc/self/task"))


def large_ops():
    """Ops past PAR_THRESHOLD (32K elements) of each parallel kernel family."""
    G.manual_seed(0)
    x = G.randn(3, 224, 224)
    a = G.randn(256, 300)
    rows = G.randn(64, 1000)
    return [
        round(float((G.ones(3, 224, 224) * 3).sum()), 3),  # elementwise + reduction
        round(float(x.exp().mean()), 4),
        round(float((a @ a.T).abs().sum()), 0),  # blocked matmul
        round(float(rows.softmax(1)[:, 0].sum()), 4),  # row kernels
        rows.sort(1).values[:, 0].tolist()[:4],  # row sorts
        round(float(x.clamp(-0.5, 0.5).sum()), 2),
    ]


@pytest.fixture
def threads():
    """Two threads in the parent, its pool started (as in any real program); restored after."""
    before = G.get_num_threads()
    G.set_num_threads(2)
    G.ones(1000, 100).sum()
    yield
    G.set_num_threads(before)


# PyTorch itself hangs here (its GNU OpenMP pool is not fork-safe); gradrs must not.
TORCH_HANGS = pytest.mark.skipif(SELFTEST, reason="torch's OpenMP pool hangs in a forked child")


@TORCH_HANGS
def test_forked_child_runs_large_ops(threads):
    want = large_ops()
    assert in_fork(large_ops) == ("ok", want)


@pytest.mark.skipif(SELFTEST, reason="gradrs's own pool: torch's OpenMP threads differ")
def test_forked_child_builds_its_own_pool(threads):
    # The child starts with one OS thread; its first large op builds a fresh pool of
    # get_num_threads() - 1 workers (the calling thread works too).
    def child():
        before = os_threads()
        (G.ones(1000, 100) * 2).sum()
        return before, os_threads(), G.get_num_threads()

    assert in_fork(child) == ("ok", (1, 2, 2))


@pytest.mark.skipif(SELFTEST, reason="counts gradrs's own threads")
def test_one_thread_stays_on_the_calling_thread(threads):
    # What DataLoader workers do: set_num_threads(1), then any op runs on the calling thread
    # (no pool is built, so the child keeps its single OS thread).
    def child():
        G.set_num_threads(1)
        out = large_ops()
        return G.get_num_threads(), os_threads(), out

    want = large_ops()
    assert in_fork(child) == ("ok", (1, 1, want))


@TORCH_HANGS
def test_a_grandchild_runs_large_ops_too(threads):
    def child():
        (G.ones(1000, 100) * 2).sum()  # the child's own pool is up
        return in_fork(large_ops)

    assert in_fork(child) == ("ok", ("ok", large_ops()))


def test_set_num_threads(threads):
    G.set_num_threads(3)
    assert G.get_num_threads() == 3
    assert float((G.ones(1000, 100) * 2).sum()) == 200000.0
    G.set_num_threads(1)
    assert G.get_num_threads() == 1
    assert float((G.ones(1000, 100) * 2).sum()) == 200000.0


def test_set_num_threads_errors(torch):
    for bad in [0, -1, 2.5, "2", True, None, 2**40]:
        errors = []
        for lib in (torch, G):
            with pytest.raises((RuntimeError, ValueError)) as e:
                lib.set_num_threads(bad)
            errors.append((e.type, str(e.value)))
        assert errors[0] == errors[1], bad
    with pytest.raises(RuntimeError, match="set_num_threads expects an int, but got Tensor"):
        G.set_num_threads(G.tensor(2))


def _gpu_available():
    return not SELFTEST and G.gpu.is_available()


@pytest.mark.skipif(not _gpu_available(), reason="no GPU adapter")
def test_forked_child_refuses_the_parents_gpu():
    x = G.ones(1000, device="gpu") * 2
    assert float(x.sum()) == 2000.0
    held = [G.ones(1000, device="gpu") * 2]  # the child drops the last reference to this one

    def child():
        results = [G.gpu.is_available()]  # as torch.cuda.is_available() in a bad fork
        for use in (lambda: G.ones(10, device="gpu"), lambda: (x * 3).sum().item(),
                    G.gpu.synchronize):
            try:
                use()
                results.append("ran")
            except RuntimeError as e:
                results.append(str(e))
        results.append(float((G.ones(1000, 100) * 2).sum()))  # the CPU still works
        held.clear()  # dropping the parent's GPU buffers must not touch its device
        return results

    msg = ("Cannot re-initialize the GPU in forked subprocess. To use the GPU with "
           "multiprocessing, you must use the 'spawn' start method")
    assert in_fork(child) == ("ok", [True, msg, msg, msg, 200000.0])
    assert float((x * 3).sum()) == 6000.0  # the parent's device is untouched


@pytest.mark.skipif(not _gpu_available(), reason="no GPU adapter")
def test_forked_child_opens_its_own_gpu_when_the_parent_had_none():
    # A fresh interpreter that never touched the GPU forks; its child opens the device.
    script = textwrap.dedent("""
        import multiprocessing as mp
        import gradrs
        gradrs.ones(1000, 100).sum()
        def child(q):
            q.put(float((gradrs.ones(1000, device="gpu") * 3).sum()))
        ctx = mp.get_context("fork")
        q = ctx.Queue()
        p = ctx.Process(target=child, args=(q,))
        p.start()
        print(q.get(timeout=50))
        p.join()
    """)
    out = subprocess.run([sys.executable, "-c", script], capture_output=True, text=True,
                         timeout=TIMEOUT)
    assert out.returncode == 0, out.stderr
    assert out.stdout.strip() == "3000.0"
