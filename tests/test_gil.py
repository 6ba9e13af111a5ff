"""The GIL is released while kernels run: a pure-Python thread keeps running beside them."""

from __future__ import annotations

import threading
import time

import pytest
from conftest import G


# Each work below is one native call. While a call holds the GIL the counter cannot run at
# all (measured on main before the release, 2 loaded cores: 0.00 of its solo progress during a
# 1024x1024 matmul, 0.04 during a sort); with the GIL released it runs beside the kernel
# (0.65-0.75 there, about 1 on an idle machine). The bar sits far below the released value.
BAR = 0.25
# The backward pass calls back into Python: the counter also runs whenever that Python code
# does, so a held GIL already gave it 0.30 of its speed there. Its bar sits between that and
# the released value.
BAR_WITH_PYTHON = 0.4


class Counter:
    """A pure-Python thread counting as fast as it can, until stopped."""

    def __init__(self):
        self.n = 0
        self.stop = False
        self.thread = threading.Thread(target=self._run, daemon=True)

    def _run(self):
        while not self.stop:
            self.n += 1

    def __enter__(self):
        self.thread.start()
        time.sleep(0.05)  # running before the measurement starts
        return self

    def __exit__(self, *exc):
        self.stop = True
        self.thread.join()


@pytest.fixture
def one_thread():
    """One kernel thread, so the test measures the GIL and not the thread pool."""
    before = G.get_num_threads()
    G.set_num_threads(1)
    yield
    G.set_num_threads(before)


def ratio(work, repeats=3):

    """The counter's best progress during one call of `work` over its progress while this
    thread sleeps as long (the best of a few: a loaded machine may not schedule the counter
    at all during one window)."""

    work()  # warm (pool buffers, kernels)
    best = 0.0
    with Counter() as c:
        for _ in range(repeats):
            t0, c0 = time.perf_counter(), c.n
            work()
            busy, took = c.n - c0, time.perf_counter() - t0
            c0 = c.n
            time.sleep(took)
            best = max(best, busy / max(c.n - c0, 1))
    return best


def test_matmul_releases_the_gil(one_thread):
    a = G.randn(1024, 1024)
    assert ratio(lambda: a @ a) > BAR


def test_matmul_spellings_release_the_gil(one_thread):
    a, b, c = G.randn(4, 512, 512), G.randn(512, 512), G.randn(1024, 1024)
    ops = {
        "mm": lambda: c.mm(c),
        "matmul": lambda: G.matmul(a, b),
        "bmm": lambda: a.bmm(a),
        "addmm": lambda: c.addmm(c, c),
        "einsum": lambda: G.einsum("bij,jk->bik", a, b),
    }
    for name, op in ops.items():
        assert ratio(op) > BAR, name


def test_conv_releases_the_gil(one_thread):
    # The binding F.conv2d calls (F.conv2d's own Python would let the counter run between).
    x = G.randn(16, 32, 64, 64)
    w = G.randn(32, 32, 3, 3)
    assert ratio(lambda: G._native.convolution(x, w, None, [1, 1], [1, 1], [1, 1], 1)) > BAR



def test_backward_releases_the_gil(one_thread):
    a = G.randn(768, 768, requires_grad=True)
    b = G.randn(768, 768)
    loss = (a @ b @ b).sum()
    assert ratio(lambda: loss.backward(retain_graph=True)) > BAR_WITH_PYTHON


def test_reductions_and_copies_release_the_gil(one_thread):
    x = G.randn(2048, 2048)
    y = G.randn(4096, 4096)
    yt = y.t()
    ops = {
        "sort": lambda: x.sort(dim=1),
        "cumsum": lambda: y.cumsum(1),
        "contiguous": lambda: yt.contiguous(),

        "softmax": lambda: y.softmax(1),
    }
    for name, op in ops.items():
        assert ratio(op) > BAR, name
