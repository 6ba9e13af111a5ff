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
    'accepted': {
        '[gpu] F.embedding(torch.tensor([-1], device=dev), torch.ones(2, 3, device=dev))',
    },
    'wrong_type': {
        '[cpu] torch.arange(6., device=dev).view(2, 3).index_put_((torch.tensor([-2**40], device=dev),), torch.tensor(1., device=dev))',
        '[cpu] torch.arange(6., device=dev).view(2, 3).index_put_((torch.tensor([-3], device=dev),), torch.tensor(1., device=dev))',
        '[cpu] torch.arange(6., device=dev).view(2, 3).index_put_((torch.tensor([2**40], device=dev),), torch.tensor(1., device=dev))',
        '[cpu] torch.arange(6., device=dev).view(2, 3).index_put_((torch.tensor([2], device=dev),), torch.tensor(1., device=dev))',
        '[cpu] torch.arange(6., device=dev).view(2, 3).put_(torch.tensor([-2**40], device=dev), torch.ones(1, device=dev))',
        '[cpu] torch.arange(6., device=dev).view(2, 3).put_(torch.tensor([2**40], device=dev), torch.ones(1, device=dev))',
        "[cpu] torch.arange(6., device=dev).view(2, 3).scatter_reduce(0, torch.tensor([-1], device=dev).view(1, 1), torch.ones(1, 1, device=dev), 'sum')",
        "[cpu] torch.arange(6., device=dev).view(2, 3).scatter_reduce(0, torch.tensor([-2**40], device=dev).view(1, 1), torch.ones(1, 1, device=dev), 'sum')",
        "[cpu] torch.arange(6., device=dev).view(2, 3).scatter_reduce(0, torch.tensor([-3], device=dev).view(1, 1), torch.ones(1, 1, device=dev), 'sum')",
        "[cpu] torch.arange(6., device=dev).view(2, 3).scatter_reduce(0, torch.tensor([2**40], device=dev).view(1, 1), torch.ones(1, 1, device=dev), 'sum')",
        "[cpu] torch.arange(6., device=dev).view(2, 3).scatter_reduce(0, torch.tensor([2], device=dev).view(1, 1), torch.ones(1, 1, device=dev), 'sum')",
        '[cpu] torch.empty_strided((2**40,), (1,))',
        '[cpu] torch.empty_strided((2, 2), (2**62, 1))',
        '[cpu] torch.logspace(0, 1, -2)',
        "[cpu] torch.ones(2)[[0, 'a']]",
        '[cpu] torch.ones(3).repeat_interleave(2**40)',
        '[cpu] torch.ones(3).unfold(1, 1, 1)',
        '[cpu] torch.ones(4).index_put_((torch.tensor([0, 1]),), torch.ones(3))',
        "[cpu] torch.ones(4).index_reduce(0, torch.tensor([4]), torch.ones(1), 'prod')",
        '[cpu] torch.ones(4).put_(torch.tensor([4]), torch.ones(1), accumulate=True)',
        '[cpu] torch.ones(4).unfold(0, 2, 0)',
        '[cpu] torch.ones(4).unfold(0, 5, 1)',
        '[cpu] torch.ones(4, 4).index_put_((torch.tensor([4]), torch.tensor([0])), torch.tensor(1.))',
        '[cpu] torch.tensor([1.5], device=5.5)',
        '[gpu] (lambda t: t.__setitem__(torch.tensor([-2**40], device=dev), 1.) or t)(torch.arange(6., device=dev).view(2, 3))',
        '[gpu] (lambda t: t.__setitem__(torch.tensor([2**40], device=dev), 1.) or t)(torch.arange(6., device=dev).view(2, 3))',
        '[gpu] F.embedding(torch.tensor([-2**40], device=dev), torch.ones(2, 3, device=dev))',
        '[gpu] F.embedding(torch.tensor([2**40], device=dev), torch.ones(2, 3, device=dev))',
        '[gpu] torch.arange(6., device=dev).view(2, 3).index_copy(0, torch.tensor([-2**40], device=dev), torch.ones(1, 3, device=dev))',
        '[gpu] torch.arange(6., device=dev).view(2, 3).index_copy(0, torch.tensor([2**40], device=dev), torch.ones(1, 3, device=dev))',
        '[gpu] torch.arange(6., device=dev).view(2, 3).index_fill(0, torch.tensor([-2**40], device=dev), 1.)',
        '[gpu] torch.arange(6., device=dev).view(2, 3).index_fill(0, torch.tensor([2**40], device=dev), 1.)',
        '[gpu] torch.arange(6., device=dev).view(2, 3).index_put_((torch.tensor([-2**40], device=dev),), torch.tensor(1., device=dev))',
        '[gpu] torch.arange(6., device=dev).view(2, 3).index_put_((torch.tensor([-3], device=dev),), torch.tensor(1., device=dev))',
        '[gpu] torch.arange(6., device=dev).view(2, 3).index_put_((torch.tensor([2**40], device=dev),), torch.tensor(1., device=dev))',
        '[gpu] torch.arange(6., device=dev).view(2, 3).index_put_((torch.tensor([2], device=dev),), torch.tensor(1., device=dev))',
        '[gpu] torch.arange(6., device=dev).view(2, 3).index_select(0, torch.tensor([-2**40], device=dev))',
        '[gpu] torch.arange(6., device=dev).view(2, 3).index_select(0, torch.tensor([2**40], device=dev))',
        '[gpu] torch.arange(6., device=dev).view(2, 3).put_(torch.tensor([-2**40], device=dev), torch.ones(1, device=dev))',
        '[gpu] torch.arange(6., device=dev).view(2, 3).put_(torch.tensor([2**40], device=dev), torch.ones(1, device=dev))',
        "[gpu] torch.arange(6., device=dev).view(2, 3).scatter_reduce(0, torch.tensor([-1], device=dev).view(1, 1), torch.ones(1, 1, device=dev), 'sum')",
        "[gpu] torch.arange(6., device=dev).view(2, 3).scatter_reduce(0, torch.tensor([-2**40], device=dev).view(1, 1), torch.ones(1, 1, device=dev), 'sum')",
        "[gpu] torch.arange(6., device=dev).view(2, 3).scatter_reduce(0, torch.tensor([-3], device=dev).view(1, 1), torch.ones(1, 1, device=dev), 'sum')",
        "[gpu] torch.arange(6., device=dev).view(2, 3).scatter_reduce(0, torch.tensor([2**40], device=dev).view(1, 1), torch.ones(1, 1, device=dev), 'sum')",
        "[gpu] torch.arange(6., device=dev).view(2, 3).scatter_reduce(0, torch.tensor([2], device=dev).view(1, 1), torch.ones(1, 1, device=dev), 'sum')",
        '[gpu] torch.arange(6., device=dev).view(2, 3).take(torch.tensor([-2**40], device=dev))',
        '[gpu] torch.arange(6., device=dev).view(2, 3).take(torch.tensor([2**40], device=dev))',
        '[gpu] torch.arange(6., device=dev).view(2, 3)[:, torch.tensor([-2**40], device=dev)]',
        '[gpu] torch.arange(6., device=dev).view(2, 3)[:, torch.tensor([2**40], device=dev)]',
        '[gpu] torch.arange(6., device=dev).view(2, 3)[torch.tensor([-2**40], device=dev)]',
        '[gpu] torch.arange(6., device=dev).view(2, 3)[torch.tensor([2**40], device=dev)]',
        '[gpu] torch.tensor([1.5], device=5.5)',
    },
    'wrong_message': {
        '[gpu] F.embedding(torch.tensor([-3], device=dev), torch.ones(2, 3, device=dev))',
        '[gpu] F.embedding(torch.tensor([2], device=dev), torch.ones(2, 3, device=dev))',
        "[cpu] torch.ones(2, device='xyz')",
        '[gpu] torch.arange(6., device=dev).view(2, 3).gather(0, torch.tensor([-2**40], device=dev).view(1, 1))',
        '[gpu] torch.arange(6., device=dev).view(2, 3).gather(0, torch.tensor([2**40], device=dev).view(1, 1))',
        '[gpu] torch.arange(6., device=dev).view(2, 3).gather(1, torch.tensor([-2**40], device=dev).view(1, 1).expand(2, 1))',
        '[gpu] torch.arange(6., device=dev).view(2, 3).gather(1, torch.tensor([2**40], device=dev).view(1, 1).expand(2, 1))',
        '[gpu] torch.arange(6., device=dev).view(2, 3).scatter(0, torch.tensor([-2**40], device=dev).view(1, 1), 1.)',
        '[gpu] torch.arange(6., device=dev).view(2, 3).scatter(0, torch.tensor([-2**40], device=dev).view(1, 1), torch.ones(1, 1, device=dev))',
        '[gpu] torch.arange(6., device=dev).view(2, 3).scatter(0, torch.tensor([2**40], device=dev).view(1, 1), 1.)',
        '[gpu] torch.arange(6., device=dev).view(2, 3).scatter(0, torch.tensor([2**40], device=dev).view(1, 1), torch.ones(1, 1, device=dev))',
        '[gpu] torch.arange(6., device=dev).view(2, 3).scatter_add(0, torch.tensor([-2**40], device=dev).view(1, 1), torch.ones(1, 1, device=dev))',
        '[gpu] torch.arange(6., device=dev).view(2, 3).scatter_add(0, torch.tensor([2**40], device=dev).view(1, 1), torch.ones(1, 1, device=dev))',
        '[gpu] torch.empty(2**40, device=dev)',
        '[gpu] torch.empty(2**62, device=dev)',
        '[gpu] torch.full((2**40,), 1.5, device=dev)',
        '[gpu] torch.full((2**62,), 1.5, device=dev)',
        '[gpu] torch.ones(2**40, device=dev)',
        '[gpu] torch.ones(2**62, device=dev)',
        "[gpu] torch.ones(2, device='xyz')",
        '[gpu] torch.zeros(2**40, device=dev)',
        '[gpu] torch.zeros(2**62, device=dev)',
    },
    'wrong_value': {
        "[cpu] torch.tensor(float('nan')).long()",
    },
    'rejected': {
        '[cpu] torch.arange(6., device=dev).view(2, 3).index_put_((torch.tensor([-1], device=dev),), torch.tensor(1., device=dev))',
        '[cpu] torch.arange(6., device=dev).view(2, 3).put_(torch.tensor([-1], device=dev), torch.ones(1, device=dev))',
        '[cpu] torch.arange(6., device=dev).view(2, 3).put_(torch.tensor([-3], device=dev), torch.ones(1, device=dev))',
        '[cpu] torch.arange(6., device=dev).view(2, 3).put_(torch.tensor([2], device=dev), torch.ones(1, device=dev))',
        '[cpu] torch.ones(2)[..., ...]',
        '[cpu] torch.ones(2**20).unfold(0, 2, 1).contiguous().shape',
        "[cpu] torch.ones(2, device='cpu:1')",
        '[cpu] torch.ones(3).take_along_dim(torch.tensor([-4]), 0)',
        "[cpu] torch.tensor(__import__('numpy').array([1+2j]))",
        '[gpu] torch.arange(6., device=dev).view(2, 3).index_put_((torch.tensor([-1], device=dev),), torch.tensor(1., device=dev))',
        '[gpu] torch.arange(6., device=dev).view(2, 3).put_(torch.tensor([-1], device=dev), torch.ones(1, device=dev))',
        '[gpu] torch.arange(6., device=dev).view(2, 3).put_(torch.tensor([-3], device=dev), torch.ones(1, device=dev))',
        '[gpu] torch.arange(6., device=dev).view(2, 3).put_(torch.tensor([2], device=dev), torch.ones(1, device=dev))',
        "[gpu] torch.ones(2, device='cpu:1')",
        '[gpu] torch.ones(2, device=dev) + torch.ones(2)',
        '[gpu] torch.ones(2, device=dev).dot(torch.ones(2))',
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
