"""The bad-input corpus (tests/hardening_corpus.py): no crash, no panic, PyTorch's exceptions."""

from __future__ import annotations

import pytest
from conftest import HAVE_TORCH, SELFTEST, G

import hardening_corpus as H

pytestmark = pytest.mark.skipif(SELFTEST, reason="runs gradrs itself in child processes")

# What the corpus still finds, by verdict (issue 25 tracks them): a case listed here may
# start passing (the list is then stale, not wrong), but a case not listed must pass.
# "accepted": gradrs returns where PyTorch raises; "wrong_type"/"wrong_message": both raise,
# differently; "wrong_value": both return, different values; "rejected": PyTorch returns,
# gradrs raises (a missing feature rather than a safety bug).
KNOWN: dict[str, set[str]] = {
    'accepted': set(),
    'wrong_type': set(),
    # A GPU allocation past memory is compared with PyTorch's CPU allocator's text; a GPU's
    # is an OutOfMemoryError of its own (PyTorch's CUDA allocator words it otherwise too).
    'wrong_message': {
        '[gpu] torch.empty(2**40, device=dev)',
        '[gpu] torch.full((2**40,), 1.5, device=dev)',
        '[gpu] torch.ones(2**40, device=dev)',
        '[gpu] torch.zeros(2**40, device=dev)',
    },
    'wrong_value': set(),
    # complex dtypes are out of scope (issue 24); the GPU rows mixing devices are compared
    # with PyTorch's CPU run, where nothing is mixed (PyTorch's CUDA raises the same error)
    'rejected': {
        '[cpu] torch.ones(2).add(np.complex128(1)).dtype',
        "[cpu] torch.tensor(__import__('numpy').array([1+2j]))",
        '[gpu] F.linear(torch.ones(2, device=dev), torch.ones(2, 2))',
        '[gpu] torch.cat([torch.ones(2, device=dev), torch.ones(2)])',
        '[gpu] torch.ones(2, device=dev) + torch.ones(2)',
        '[gpu] torch.ones(2, device=dev) @ torch.ones(2)',
        '[gpu] torch.ones(2, device=dev).add(torch.ones(2))',
        '[gpu] torch.ones(2, device=dev).dot(torch.ones(2))',
        '[gpu] torch.ones(2, device=dev).gather(0, torch.tensor([0]))',
        '[gpu] torch.ones(2, device=dev).index_select(0, torch.tensor([0]))',
        '[gpu] torch.where(torch.ones(2, device=dev) > 0, torch.ones(2), 0.)',
    },
}


@pytest.fixture(scope="module")
def outcome(tmp_path_factory):
    gpu = G.gpu.is_available()  # the GPU variants run where there is a device (lavapipe in CI)
    rows, counts = H.tally(str(tmp_path_factory.mktemp("corpus")), with_torch=HAVE_TORCH, gpu=gpu)
    print("hardening corpus:", counts)
    return rows


def _fmt(rows):
    return "\n".join(
        f"[{dev}] {code}\n    gradrs: {g.get('type', g.get('why', g.get('value')))} "
        f"{str(g.get('msg', ''))[:200]!r}\n    torch : {(t or {}).get('type', (t or {}).get('value'))} "
        f"{str((t or {}).get('msg', ''))[:200]!r}"
        for code, dev, _, g, t in rows
    )


def test_no_crash(outcome):
    bad = [r for r in outcome if r[2] == "crash"]
    assert not bad, f"{len(bad)} cases killed the interpreter:\n{_fmt(bad)}"


def test_no_panic(outcome):
    bad = [r for r in outcome if r[2] == "panic"]
    assert not bad, f"{len(bad)} cases raised a Rust panic:\n{_fmt(bad)}"


@pytest.mark.parametrize("verdict", sorted(KNOWN))
def test_same_outcome_as_torch(outcome, verdict):
    if not HAVE_TORCH:
        pytest.skip("needs torch")
    bad = [r for r in outcome if r[2] == verdict and f"[{r[1]}] {r[0]}" not in KNOWN[verdict]]
    assert not bad, f"{len(bad)} new '{verdict}' cases:\n{_fmt(bad)}"
