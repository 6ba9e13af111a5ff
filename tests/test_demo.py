"""The demo (README's first command): its training part reaches the accuracy it promises, and
the reloaded models score the same. Skipped without scikit-learn/tqdm (the `demo` extra)."""

from __future__ import annotations

import subprocess
import sys

import pytest

pytest.importorskip("sklearn")
pytest.importorskip("tqdm")


def test_digits_mlp_and_cnn_reach_97_percent_and_reload_equal():
    from gradrs import demo

    results = demo.train_digits(epochs=10, device=demo.torch.device("cpu"), progress=False)
    assert set(results) == {"MLP", "CNN"}
    for name, (acc, acc_reloaded, seconds) in results.items():
        assert acc >= 0.97, (name, acc)
        assert acc_reloaded == acc, (name, acc, acc_reloaded)
        assert seconds < 60, (name, seconds)


def test_demo_command_line_runs_the_tour_and_the_training():
    out = subprocess.run(
        [sys.executable, "-m", "gradrs.demo", "--epochs", "1", "--device", "cpu"],
        capture_output=True, text=True, timeout=300, check=True,
    ).stdout
    assert "The autograd tour" in out
    assert "9. Training: fit y = 3x + 2" in out
    assert "10. Training on real data" in out
    assert "MLP: test accuracy" in out and "CNN: test accuracy" in out
    assert "reloaded:" in out
