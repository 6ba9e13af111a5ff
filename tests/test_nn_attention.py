"""gradrs.nn.attention (SDPBackend, sdpa_kernel) vs torch 2.13: the enum, the flags the
context manager sets and restores, and scaled_dot_product_attention's CPU backend choice: no
viable backend, and the flash kernel's refusals (warnings, then 'No available kernel')."""

import importlib

import numpy as np
import pytest

from conftest import G, assert_same_error, assert_same_warning, need_torch, run_both, to_np

# torch warns when its flash-only calls fail (the refusal tests record the warnings themselves)
pytestmark = [pytest.mark.filterwarnings("ignore::UserWarning"),
              pytest.mark.filterwarnings("ignore::FutureWarning")]


def _attention(M):
    return importlib.import_module(M.__name__ + ".nn.attention")


def test_sdpbackend_members(torch):
    def run(M):
        S = _attention(M).SDPBackend
        return [(m, repr(S.__members__[m]), str(b), int(b), b.name, b.value, hash(b), b == b,
                 b == int(b), bool(b), S(int(b)) == b, S.__name__, S.__module__)
                for m, b in S.__members__.items()]

    g, t = run_both(run)
    assert g == [tuple(x.replace("torch", "gradrs") if isinstance(x, str) else x for x in row)
                 for row in t]


def test_sdpa_kernel_sets_and_restores_flags(torch):
    def run(M):
        A, cuda = _attention(M), M.backends.cuda
        seen = []
        flags = (cuda.flash_sdp_enabled, cuda.math_sdp_enabled, cuda.mem_efficient_sdp_enabled,
                 cuda.cudnn_sdp_enabled)
        for backends in (A.SDPBackend.MATH, [A.SDPBackend.FLASH_ATTENTION],
                         [A.SDPBackend.MATH, A.SDPBackend.EFFICIENT_ATTENTION,
                          A.SDPBackend.MATH], [], [A.SDPBackend.ERROR]):
            with A.sdpa_kernel(backends) as ctx:
                seen.append((ctx, [f() for f in flags],
                             [b.name for b in A._cur_sdpa_kernel_backends()]))
            seen.append([f() for f in flags])
        with A.sdpa_kernel([A.SDPBackend.MATH, A.SDPBackend.FLASH_ATTENTION], set_priority=True):
            seen.append([b.name for b in A._cur_sdpa_kernel_backends(with_priority=True)])
        seen.append([b.name for b in A._cur_sdpa_kernel_backends(with_priority=True)])
        return seen

    g, t = run_both(run)
    assert g == t


def test_sdpa_kernel_refuses_other_types(torch):
    assert_same_error(lambda: _attention(G).sdpa_kernel("math").__enter__(),
                      lambda: _attention(torch).sdpa_kernel("math").__enter__())


def _qkv(M, shapes=((2, 4, 5, 8), (2, 4, 5, 8), (2, 4, 5, 8))):
    rng = np.random.default_rng(0)
    return [M.from_numpy(rng.standard_normal(s).astype(np.float32)) for s in shapes]


def _sdpa(M, backends, make, **kwargs):
    A = _attention(M)
    with A.sdpa_kernel(backends(A.SDPBackend)):
        return M.nn.functional.scaled_dot_product_attention(*make(M), **kwargs)


_GQA = ((2, 4, 5, 8), (2, 2, 5, 8), (2, 2, 5, 8))


@pytest.mark.parametrize("backends", [
    lambda S: S.MATH, lambda S: S.FLASH_ATTENTION, lambda S: [S.FLASH_ATTENTION, S.MATH],
])
@pytest.mark.parametrize("make, kwargs", [
    (_qkv, {}), (_qkv, {"is_causal": True}), (lambda M: _qkv(M, _GQA), {"enable_gqa": True}),
    (lambda M: _qkv(M) + [M.ones(5, 5, dtype=M.bool).tril()], {}),
    (lambda M: _qkv(M) + [M.zeros(5, 5).t()], {}),
    (lambda M: [t[0] for t in _qkv(M)], {}),
    (lambda M: [t[:, :, :0] for t in _qkv(M)], {}),
])
def test_sdpa_runs_where_torch_runs(backends, make, kwargs):
    torch = need_torch()
    ok = []
    for M in (G, torch):
        try:
            ok.append(to_np(_sdpa(M, backends, make, **kwargs)))
        except RuntimeError as e:
            ok.append(str(e).replace("torch", "gradrs"))
    if isinstance(ok[1], str):
        assert ok[0] == ok[1]
    else:
        np.testing.assert_allclose(ok[0], ok[1], atol=1e-6)


_REFUSED = [
    (lambda S: [S.EFFICIENT_ATTENTION], _qkv, {}),
    (lambda S: [], _qkv, {}),
    (lambda S: S.FLASH_ATTENTION, lambda M: [t[0] for t in _qkv(M)], {}),
    (lambda S: S.FLASH_ATTENTION, lambda M: [_qkv(M)[0], *[t[0] for t in _qkv(M)[1:]]], {}),
    (lambda S: S.FLASH_ATTENTION, _qkv, {"dropout_p": 0.1}),
    (lambda S: S.FLASH_ATTENTION, lambda M: [t.transpose(-1, -2) for t in _qkv(M)], {}),
    (lambda S: S.FLASH_ATTENTION, lambda M: _qkv(M) + [M.ones(3, 5, 5, dtype=M.bool)], {}),
    (lambda S: S.FLASH_ATTENTION, lambda M: _qkv(M) + [M.zeros(2, 5)], {}),
    (lambda S: S.FLASH_ATTENTION, lambda M: _qkv(M) + [M.zeros(5, 5, requires_grad=True)], {}),
    (lambda S: S.FLASH_ATTENTION, lambda M: _qkv(M, ((2, 4, 5, 8), (2, 3, 5, 8), (2, 3, 5, 8))),
     {}),
    (lambda S: S.FLASH_ATTENTION, lambda M: _qkv(M, ((2, 4, 5, 8), (2, 3, 5, 8), (2, 3, 5, 8))),
     {"enable_gqa": True}),
    (lambda S: S.FLASH_ATTENTION, lambda M: _qkv(M, ((2, 4, 5, 8), (2, 2, 5, 8), (2, 1, 5, 8))),
     {"enable_gqa": True}),
    (lambda S: S.FLASH_ATTENTION, lambda M: _qkv(M, ((2, 4, 5, 8), (1, 4, 5, 8), (1, 4, 5, 8))),
     {}),
    (lambda S: S.FLASH_ATTENTION, lambda M: _qkv(M, ((2, 4, 5, 8), (2, 4, 5, 8), (2, 4, 5, 6))),
     {}),
    (lambda S: S.FLASH_ATTENTION, lambda M: [t.long() for t in _qkv(M)], {}),
]


@pytest.mark.parametrize("backends, make, kwargs", _REFUSED)
def test_sdpa_refusals(backends, make, kwargs):
    torch = need_torch()
    errors = {}

    def run(M):
        try:
            _sdpa(M, backends, make, **kwargs)
        except RuntimeError as e:
            errors[M] = e
            return
        raise AssertionError(f"{M.__name__} did not raise")

    assert_same_warning(lambda: run(G), lambda: run(torch))
    assert str(errors[G]) == str(errors[torch])


def test_deprecated_backends_cuda_sdp_kernel(torch):
    def run(M):
        cuda = M.backends.cuda
        seen = []
        for kwargs in ({}, {"enable_flash": False}, {"enable_math": False, "enable_cudnn": False},
                       {"enable_flash": False, "enable_math": False,
                        "enable_mem_efficient": False, "enable_cudnn": False}):
            with cuda.sdp_kernel(**kwargs) as ctx:
                seen.append((ctx, cuda.flash_sdp_enabled(), cuda.math_sdp_enabled(),
                             cuda.mem_efficient_sdp_enabled(), cuda.cudnn_sdp_enabled()))
        seen.append((cuda.flash_sdp_enabled(), cuda.math_sdp_enabled()))
        return seen

    g, t = run_both(run)
    assert g == t
    assert_same_warning(lambda: G.backends.cuda.sdp_kernel(enable_flash=False),
                        lambda: torch.backends.cuda.sdp_kernel(enable_flash=False))
    # only math disabled: the flash kernel runs these inputs, both refuse 3-D ones
    for M in (G, torch):
        with M.backends.cuda.sdp_kernel(enable_math=False):
            q = M.ones(1, 2, 3, 4)
            assert tuple(M.nn.functional.scaled_dot_product_attention(q, q, q).shape) == (1, 2, 3, 4)
    assert_same_error(
        lambda: _sdp_3d(G), lambda: _sdp_3d(torch))


def _sdp_3d(M):
    with M.backends.cuda.sdp_kernel(enable_math=False):
        q = M.ones(2, 3, 4)
        return M.nn.functional.scaled_dot_product_attention(q, q, q)
