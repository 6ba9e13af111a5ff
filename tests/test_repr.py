"""gradrs._tensor_str must print tensors exactly as PyTorch's repr() does.

The module is loaded straight from its file so that these tests run before the
native package is built.
"""

from __future__ import annotations

import importlib.util
import math
import pathlib
import re
import subprocess
import sys

import numpy as np
import pytest

torch = pytest.importorskip("torch")

_SRC = pathlib.Path(__file__).resolve().parents[1] / "python" / "gradrs" / "_tensor_str.py"
_spec = importlib.util.spec_from_file_location("_gradrs_tensor_str_under_test", _SRC)
ts = importlib.util.module_from_spec(_spec)
_spec.loader.exec_module(ts)


# ----------------------------------------------------------------------- helpers


def _ours(t, device="cpu"):
    return ts.format_tensor(
        t.detach().numpy(),
        dtype=str(t.dtype).removeprefix("torch."),
        device=device,
        requires_grad=t.requires_grad,
        grad_fn_name=type(t.grad_fn).__name__ if t.grad_fn is not None else None,
        is_leaf=t.is_leaf,
    )


def _theirs(t):
    return repr(t).replace("torch.", "gradrs.")


def _check(t):
    expected = _theirs(t)
    got = _ours(t)
    assert got == expected, f"\n--- torch:\n{expected}\n--- gradrs:\n{got}"


@pytest.fixture
def reset_options():
    torch.set_printoptions(profile="default")
    ts.set_printoptions(profile="default")
    yield
    torch.set_printoptions(profile="default")
    ts.set_printoptions(profile="default")


def _gen(seed):
    return torch.Generator().manual_seed(seed)


# ------------------------------------------------------------------ case builders

_SCALES = [
    1e-10, 1e-8, 1e-6, 1e-5, 1e-4, 3e-4, 1e-3, 0.01, 0.1, 0.5, 1.0, 3.0, 10.0, 100.0,
    999.0, 1e3, 1e4, 1e5, 1e6, 1e7, 1e8, 1e9, 1e10, 1e20, 1e-20, 1e100, 1e-100,
]
_SHAPES = [(), (1,), (4,), (7,), (3, 4), (2, 3, 4), (2, 2, 2, 3)]


def _float_cases():
    cases = []
    seed = 0
    for dtype in (torch.float32, torch.float64):
        for scale in _SCALES:
            if dtype == torch.float32 and scale in (1e100, 1e-100):
                continue
            for shape in _SHAPES:
                seed += 1
                name = f"{str(dtype)[6:]}-{scale:g}-{'x'.join(map(str, shape)) or 'scalar'}"
                cases.append(
                    pytest.param(
                        lambda s=seed, sh=shape, sc=scale, dt=dtype: (
                            torch.randn(sh, generator=_gen(s), dtype=dt) * sc
                        ),
                        id="normal-" + name,
                    )
                )
            seed += 1
            cases.append(
                pytest.param(
                    lambda s=seed, sc=scale, dt=dtype: torch.rand(5, 3, generator=_gen(s), dtype=dt)
                    * sc,
                    id=f"uniform-{str(dtype)[6:]}-{scale:g}",
                )
            )
            seed += 1
            cases.append(
                pytest.param(
                    lambda s=seed, sc=scale, dt=dtype: torch.rand(6, generator=_gen(s), dtype=dt)
                    * sc
                    - sc / 2,
                    id=f"uniform-signed-{str(dtype)[6:]}-{scale:g}",
                )
            )
    # Magnitudes spread across many decades inside one tensor.
    for k in range(12):
        cases.append(
            pytest.param(
                lambda k=k: torch.exp(torch.randn(3, 5, generator=_gen(500 + k)) * (2 + 2 * k)),
                id=f"lognormal-{k}",
            )
        )
    return cases


_F = float("nan"), float("inf"), float("-inf")
_LITERALS = {
    # integers stored in float tensors
    "int-valued": [1.0, 2.0, -3.0, 100.0],
    "int-valued-big": [1.0, 2e5, -3e7],
    "int-valued-sci": [1.0, 1e9],
    "int-valued-1e8": [1e8, 1.0],
    "int-valued-ratio": [1.0, 1001.0],
    "int-valued-ratio-1000": [1.0, 1000.0],
    "zeros": [0.0, 0.0, 0.0],
    "neg-zero": [-0.0],
    "neg-zero-pair": [-0.0, 0.0],
    "neg-zero-frac": [-0.0, 1.5],
    "neg-zero-sci": [-0.0, 1e-7],
    "neg-zero-int": [-0.0, 2.0],
    "neg-tiny": [-1e-7, 0.5],
    "neg-rounds-to-zero": [-0.00001, 1.0, 2.0, 3.0, 4.0],
    "rounding-up-width": [9.99996, 1.0],
    "rounding-up-width2": [99.99995, -0.5],
    "rounding-sci": [9.99996e-5, 1.0],
    "rounding-sci-exp": [9.99999e99, 1.0],
    "boundary-1e-4": [1e-4, 0.01],
    "below-1e-4": [0.99e-4, 0.01],
    "ratio-1000": [0.001, 1.0],
    "ratio-1000.1": [0.001, 1.0001],
    "nan-only": [_F[0]],
    "inf-only": [_F[1]],
    "ninf-only": [_F[2]],
    "nonfinite": list(_F),
    "nonfinite-zero": [*_F, 0.0],
    "nonfinite-int": [*_F, 1.0, -2.0],
    "nonfinite-frac": [*_F, 1.5, -2.25],
    "nonfinite-sci": [*_F, 1e-9, 3.0],
    "nonfinite-big": [*_F, 1e12],
    "nonfinite-negzero": [_F[0], -0.0],
    "max-float32": [3.4028234663852886e38, 1.0],
    "min-normal": [1.1754943508222875e-38, 1.0],
    "subnormal": [1e-45, 0.0],
    "paper-example": [0.0, 8.4452e-29, 1.0, 2.0],
    "halves": [0.5, 1.5, 2.5, 3.5],
    "precision-edge": [0.00005, 0.00015, 0.00025],
    "negative-ints": [-1.0, -10.0, -100.0, -1000.0],
}


def _literal_cases():
    cases = []
    for name, vals in _LITERALS.items():
        for dtype in (torch.float32, torch.float64, torch.float16):
            cases.append(
                pytest.param(
                    lambda v=vals, dt=dtype: torch.tensor(v, dtype=dt),
                    id=f"lit-{name}-{str(dtype)[6:]}",
                )
            )
        cases.append(
            pytest.param(lambda v=vals: torch.tensor(v[0]), id=f"lit-{name}-scalar")
        )
        cases.append(
            pytest.param(
                lambda v=vals: torch.tensor(v * 3, dtype=torch.float64).reshape(3, len(v)),
                id=f"lit-{name}-2d",
            )
        )
    return cases


def _int_bool_cases():
    cases = []
    ranges = [(0, 10), (-10, 10), (-1000, 1000), (0, 2**31 - 1), (-(2**62), 2**62)]
    for lo, hi in ranges:
        for dtype in (torch.int64, torch.int32):
            if dtype == torch.int32 and hi > 2**31:
                continue
            for shape in [(), (5,), (3, 4), (2, 3, 2), (40,)]:
                cases.append(
                    pytest.param(
                        lambda lo=lo, hi=hi, dt=dtype, sh=shape: torch.randint(
                            lo, hi, sh, generator=_gen(hi % 997 + len(sh)), dtype=dt
                        ),
                        id=f"int-{str(dtype)[6:]}-{lo}-{hi}-{'x'.join(map(str, shape))}",
                    )
                )
    cases += [
        pytest.param(lambda: torch.tensor(-(2**63)), id="int-min"),
        pytest.param(lambda: torch.tensor([2**63 - 1, -(2**63)]), id="int-extremes"),
        pytest.param(lambda: torch.tensor([0, 0, 0], dtype=torch.int32), id="int32-zeros"),
        pytest.param(lambda: torch.tensor(True), id="bool-scalar-true"),
        pytest.param(lambda: torch.tensor(False), id="bool-scalar-false"),
        pytest.param(lambda: torch.tensor([True, True]), id="bool-all-true"),
        pytest.param(lambda: torch.tensor([False, True, False]), id="bool-mixed"),
        pytest.param(lambda: torch.rand(4, 6, generator=_gen(7)) > 0.5, id="bool-2d"),
        pytest.param(lambda: torch.rand(50, generator=_gen(8)) > 0.5, id="bool-wrap"),
    ]
    return cases


def _empty_cases():
    cases = []
    for shape in [(0,), (0, 3), (3, 0), (2, 0, 3), (0, 0), (1, 0, 1, 2)]:
        for dtype in (torch.float32, torch.float64, torch.float16, torch.int64, torch.int32,
                      torch.bool):
            cases.append(
                pytest.param(
                    lambda sh=shape, dt=dtype: torch.zeros(sh, dtype=dt),
                    id=f"empty-{'x'.join(map(str, shape))}-{str(dtype)[6:]}",
                )
            )
    return cases


def _large_cases():
    return [
        pytest.param(lambda: torch.arange(2000), id="arange-2000"),
        pytest.param(lambda: torch.arange(2000, dtype=torch.float32), id="arange-2000-f"),
        pytest.param(lambda: torch.arange(1000.0), id="arange-1000-not-summarised"),
        pytest.param(lambda: torch.arange(1001.0), id="arange-1001"),
        pytest.param(lambda: torch.randn(2000, generator=_gen(1)), id="randn-2000"),
        pytest.param(lambda: torch.randn(30, 1000, generator=_gen(2)), id="randn-30x1000"),
        pytest.param(lambda: torch.randn(40, 40, generator=_gen(3)), id="randn-40x40"),
        pytest.param(lambda: torch.randn(10, 10, 11, generator=_gen(4)), id="randn-10x10x11"),
        pytest.param(lambda: torch.randn(2, 3, 200, generator=_gen(5)), id="randn-2x3x200"),
        pytest.param(lambda: torch.randn(7, 7, 7, 7, generator=_gen(6)), id="randn-7x7x7x7"),
        pytest.param(lambda: torch.randn(2000, generator=_gen(9)) * 1e6, id="randn-2000-1e6"),
        pytest.param(
            lambda: torch.randn(30, 1000, generator=_gen(10), dtype=torch.float64) * 1e-7,
            id="randn-30x1000-f64-tiny",
        ),
        pytest.param(
            lambda: torch.randint(-5000, 5000, (30, 1000), generator=_gen(11)), id="int-30x1000"
        ),
        pytest.param(lambda: torch.rand(50, 50, generator=_gen(12)) > 0.3, id="bool-50x50"),
        pytest.param(
            # only the shown edges decide the style: hidden middle has a huge value
            lambda: torch.cat([torch.ones(10), torch.tensor([1e20, 0.5]), torch.ones(2000)]),
            id="hidden-middle",
        ),
        pytest.param(
            lambda: torch.cat([torch.tensor([1.5, float("nan")]), torch.zeros(2000),
                               torch.tensor([float("-inf"), 1e9])]),
            id="summarised-nonfinite",
        ),
        pytest.param(lambda: torch.randn(100, generator=_gen(13)), id="wrap-100"),
        pytest.param(lambda: torch.randn(3, 50, generator=_gen(14)), id="wrap-3x50"),
        pytest.param(
            lambda: torch.randn(2, 2, 2, 30, generator=_gen(15), dtype=torch.float64) * 1e5,
            id="wrap-4d-sci",
        ),
        pytest.param(lambda: torch.arange(300).reshape(3, 100), id="wrap-int-3x100"),
    ]


def _autograd_cases():
    def leaf(shape, dtype=torch.float32, seed=0):
        return torch.randn(shape, generator=_gen(seed), dtype=dtype).requires_grad_()

    return [
        pytest.param(lambda: leaf(()), id="leaf-scalar"),
        pytest.param(lambda: torch.tensor(1.0, dtype=torch.float64, requires_grad=True),
                     id="leaf-scalar-f64-one"),
        pytest.param(lambda: leaf((3,)), id="leaf-vector"),
        pytest.param(lambda: leaf((3, 4), torch.float64), id="leaf-f64-matrix"),
        pytest.param(lambda: leaf((2000,)), id="leaf-large"),
        pytest.param(lambda: torch.zeros(0, requires_grad=True), id="leaf-empty"),
        pytest.param(lambda: torch.zeros(2, 0, dtype=torch.float64, requires_grad=True),
                     id="leaf-empty-f64"),
        pytest.param(lambda: torch.full((3,), 4.0, requires_grad=True) * 2, id="mul-eights"),
        pytest.param(lambda: leaf((3,)) * 2, id="mul"),
        pytest.param(lambda: leaf((3,)) + 1, id="add"),
        pytest.param(lambda: leaf((3, 4)).sum(), id="sum"),
        pytest.param(lambda: leaf((3, 4), torch.float64).mean(), id="mean-f64"),
        pytest.param(lambda: leaf((3, 4)).exp(), id="exp"),
        pytest.param(lambda: leaf((3, 4))[0], id="select"),
        pytest.param(lambda: leaf((3, 4)).t(), id="transpose"),
        pytest.param(lambda: leaf((3, 4)).reshape(2, 6), id="reshape"),
        pytest.param(lambda: leaf((3, 4)).double(), id="to-double"),
        pytest.param(lambda: leaf((30, 1000)) * 3, id="mul-large"),
        pytest.param(lambda: leaf((5, 5)) @ leaf((5, 5), seed=1), id="matmul"),
    ]


# Lengths chosen to cross the 80-column limit when the dtype / grad suffixes are added.
def _suffix_wrap_cases():
    cases = []
    for n in range(1, 12):
        cases.append(
            pytest.param(
                lambda n=n: torch.arange(n, dtype=torch.float64) + 0.5,
                id=f"suffix-wrap-f64-{n}",
            )
        )
        cases.append(
            pytest.param(
                lambda n=n: (torch.arange(n, dtype=torch.float64) + 0.25).requires_grad_(),
                id=f"suffix-wrap-f64-grad-{n}",
            )
        )
        cases.append(
            pytest.param(
                lambda n=n: (torch.arange(n, dtype=torch.float16).requires_grad_() * 1.5),
                id=f"suffix-wrap-f16-mul-{n}",
            )
        )
        cases.append(
            pytest.param(
                lambda n=n: torch.arange(n * 3, dtype=torch.int32).reshape(3, n) * 1000,
                id=f"suffix-wrap-int32-{n}",
            )
        )
    return cases


ALL_CASES = (
    _float_cases()
    + _literal_cases()
    + _int_bool_cases()
    + _empty_cases()
    + _large_cases()
    + _autograd_cases()
    + _suffix_wrap_cases()
)


@pytest.mark.parametrize("make", ALL_CASES)
def test_repr_matches_torch(make, reset_options):
    _check(make())


# ------------------------------------------------------------------ print options

_OPTION_SETS = [
    {"precision": 0},
    {"precision": 1},
    {"precision": 2},
    {"precision": 7},
    {"precision": 10},
    {"sci_mode": True},
    {"sci_mode": False},
    {"sci_mode": True, "precision": 2},
    {"sci_mode": False, "precision": 6},
    {"threshold": 5},
    {"threshold": 0},
    {"threshold": 5, "edgeitems": 1},
    {"edgeitems": 0},
    {"edgeitems": 0, "threshold": 3},
    {"edgeitems": 5, "threshold": 20},
    {"linewidth": 1},
    {"linewidth": 20},
    {"linewidth": 45},
    {"linewidth": 200},
    {"profile": "short"},
    {"profile": "full"},
    {"profile": "full", "linewidth": 150, "precision": 3},
    {"profile": "short", "sci_mode": True},
]

_OPTION_TENSORS = [
    ("scalar", lambda: torch.tensor(3.14159)),
    ("scalar-int", lambda: torch.tensor(7)),
    ("ints-f", lambda: torch.tensor([1.0, -2.0, 300.0])),
    ("zeros", lambda: torch.zeros(4)),
    ("neg-zero", lambda: torch.tensor([-0.0, 0.0])),
    ("normal", lambda: torch.randn(6, generator=_gen(21))),
    ("normal-2d", lambda: torch.randn(4, 9, generator=_gen(22))),
    ("normal-3d-f64", lambda: torch.randn(3, 4, 5, generator=_gen(23), dtype=torch.float64)),
    ("tiny", lambda: torch.randn(5, generator=_gen(24)) * 1e-6),
    ("huge", lambda: torch.randn(5, generator=_gen(25)) * 1e12),
    ("mixed", lambda: torch.tensor([1e-5, 1.0, 1e5, float("nan"), float("inf")])),
    ("f16", lambda: torch.randn(8, generator=_gen(26)).half()),
    ("int", lambda: torch.randint(-100, 100, (4, 7), generator=_gen(27))),
    ("int32", lambda: torch.randint(-100, 100, (12,), generator=_gen(28), dtype=torch.int32)),
    ("bool", lambda: torch.rand(3, 8, generator=_gen(29)) > 0.5),
    ("empty", lambda: torch.zeros(0, 2)),
    ("arange-2000", lambda: torch.arange(2000)),
    ("randn-2000", lambda: torch.randn(2000, generator=_gen(30))),
    ("randn-30x1000", lambda: torch.randn(30, 1000, generator=_gen(31))),
    ("randn-12x12x12", lambda: torch.randn(12, 12, 12, generator=_gen(32))),
    ("grad-leaf", lambda: torch.randn(5, generator=_gen(33), dtype=torch.float64).requires_grad_()),
    ("grad-mul", lambda: torch.randn(3, 3, generator=_gen(34)).requires_grad_() * 2),
    ("long-row", lambda: torch.randn(60, generator=_gen(35)) * 100),
    ("halves", lambda: torch.tensor([0.5, 1.5, 2.5, -3.5])),
]


@pytest.mark.parametrize("opts", _OPTION_SETS, ids=lambda o: ",".join(f"{k}={v}" for k, v in o.items()))
@pytest.mark.parametrize("make", [pytest.param(f, id=n) for n, f in _OPTION_TENSORS])
def test_repr_with_printoptions(opts, make, reset_options):
    torch.set_printoptions(**opts)
    ts.set_printoptions(**opts)
    assert ts.get_printoptions() == torch._tensor_str.get_printoptions()
    _check(make())


def test_printoptions_sequence(reset_options):
    """Options accumulate between calls; sci_mode resets whenever it is omitted."""
    calls = [
        {"precision": 2},
        {"sci_mode": True},
        {"threshold": 10},
        {"profile": "short", "precision": 6},
        {"linewidth": 30, "sci_mode": False},
        {"profile": "full"},
        {"edgeitems": 1},
        {"profile": "default"},
    ]
    t = torch.randn(4, 20, generator=_gen(40)) * 50
    for call in calls:
        torch.set_printoptions(**call)
        ts.set_printoptions(**call)
        assert ts.get_printoptions() == torch._tensor_str.get_printoptions()
        _check(t)


def test_printoptions_context_manager(reset_options):
    t = torch.tensor([1.23456789, 2.0])
    with ts.printoptions(precision=2, sci_mode=True):
        assert ts.get_printoptions()["precision"] == 2
        assert _ours(t) == "tensor([1.23e+00, 2.00e+00])"
    assert ts.get_printoptions() == torch._tensor_str.get_printoptions()
    _check(t)


def test_default_options():
    torch.set_printoptions(profile="default")
    ts.set_printoptions(profile="default")
    assert ts.get_printoptions() == {
        "precision": 4, "threshold": 1000, "edgeitems": 3, "linewidth": 80, "sci_mode": None
    }
    ts.set_printoptions(profile="full")
    assert ts.get_printoptions()["threshold"] == math.inf
    ts.set_printoptions(profile="default")


# ----------------------------------------------------------------------- devices


def _torch_with_device(t, device, monkeypatch):
    """PyTorch's repr of ``t`` as it would read on another device.

    With torch's default device patched to something else, torch prints the CPU
    tensor with ``device='cpu'`` in its proper place among the suffixes.  That
    suffix is swapped for ``device`` and torch's own wrapping code re-joins them.
    """
    tstr = torch._tensor_str
    with monkeypatch.context() as m:
        m.setattr(torch._C, "_get_default_device", lambda: "meta")
        shown = repr(t)
    assert "device='cpu'" in shown
    body = "tensor(" + ("[]" if t.numel() == 0 else tstr._tensor_str(t.detach(), 7))
    assert shown.startswith(body)
    tail = shown[len(body):-1]
    suffixes = [s for s in re.split(r",\s*(?=[a-z_]+=)", tail) if s]
    suffixes = [f"device='{device}'" if s == "device='cpu'" else s for s in suffixes]
    return tstr._add_suffixes(body, suffixes, 7, False).replace("torch.", "gradrs.")


@pytest.mark.parametrize(
    "make",
    [
        pytest.param(lambda: torch.tensor([1.0, 2.0]), id="plain"),
        pytest.param(lambda: torch.tensor(2.5), id="scalar"),
        pytest.param(lambda: torch.tensor([1.0, 2.0], dtype=torch.float64), id="f64"),
        pytest.param(lambda: torch.zeros(2, 0), id="empty"),
        pytest.param(lambda: torch.zeros(0, dtype=torch.int32), id="empty-int32"),
        pytest.param(lambda: torch.ones(3, requires_grad=True), id="leaf"),
        pytest.param(lambda: torch.ones(3, dtype=torch.float64, requires_grad=True) * 2,
                     id="mul-f64"),
        pytest.param(lambda: torch.randn(4, 9, generator=_gen(50)), id="wide"),
        pytest.param(lambda: torch.arange(8, dtype=torch.float64) + 0.5, id="suffix-wrap"),
        pytest.param(lambda: torch.arange(9, dtype=torch.float64) + 0.5, id="suffix-wrap-9"),
        pytest.param(lambda: torch.arange(2000), id="summarised"),
    ],
)
@pytest.mark.parametrize("device", ["gpu:0", "gpu:1", "cuda:0"])
def test_device_suffix(make, device, reset_options, monkeypatch):
    t = make()
    assert _ours(t, device=device) == _torch_with_device(t, device, monkeypatch)


def test_device_literals():
    assert ts.format_tensor(np.array([1.0, 2.0], np.float32), dtype="float32",
                            device="gpu:0") == "tensor([1., 2.], device='gpu:0')"
    assert (
        ts.format_tensor(np.array(1.0), dtype="float64", device="gpu:0", requires_grad=True)
        == "tensor(1., device='gpu:0', dtype=gradrs.float64, requires_grad=True)"
    )
    assert (
        ts.format_tensor(np.zeros((0, 3), np.int64), dtype="int64", device="gpu:0")
        == "tensor([], device='gpu:0', size=(0, 3), dtype=gradrs.int64)"
    )
    assert ts.format_tensor(np.ones(2, np.float32), dtype="float32", device="cpu") == (
        "tensor([1., 1.])"
    )


# ----------------------------------------------------------------------- misc API


def test_literal_examples():
    f32 = np.float32
    assert ts.format_tensor(np.full(3, 8, f32), dtype="float32", grad_fn_name="MulBackward0",
                            is_leaf=False) == "tensor([8., 8., 8.], grad_fn=<MulBackward0>)"
    assert ts.format_tensor(np.array(1.0), dtype="float64", requires_grad=True) == (
        "tensor(1., dtype=gradrs.float64, requires_grad=True)"
    )
    assert ts.format_tensor(np.zeros((0, 3), f32), dtype="float32") == "tensor([], size=(0, 3))"
    assert ts.format_tensor(np.array([True, False]), dtype="bool") == "tensor([ True, False])"


def test_shape_argument(reset_options):
    t = torch.randn(2, 3, 4, generator=_gen(60))
    flat = t.numpy().reshape(-1)
    assert ts.format_tensor(flat, dtype="float32", shape=(2, 3, 4)) == _theirs(t)
    e = torch.zeros(2, 0, 3)
    assert ts.format_tensor(np.zeros(0, np.float32), dtype="float32", shape=(2, 0, 3)) == (
        _theirs(e)
    )


def test_non_contiguous_input(reset_options):
    t = torch.randn(5, 6, generator=_gen(61)).t()
    assert ts.format_tensor(t.numpy(), dtype="float32") == _theirs(t)


def test_module_imports_no_torch():
    """The module loads with numpy and the standard library only."""
    code = (
        "import importlib.util, sys\n"
        f"spec = importlib.util.spec_from_file_location('m', {str(_SRC)!r})\n"
        "m = importlib.util.module_from_spec(spec); spec.loader.exec_module(m)\n"
        "bad = [n for n in sys.modules if n.split('.')[0] in ('torch', 'gradrs')]\n"
        "assert not bad, bad\n"
        "print(m.format_tensor(m.np.arange(3), dtype='int64'))\n"
    )
    out = subprocess.run(
        [sys.executable, "-c", code], check=False, capture_output=True, text=True
    )
    assert out.returncode == 0, out.stderr
    assert out.stdout.strip() == "tensor([0, 1, 2])"


# ------------------------------------------------------------------------- fuzzing


def _random_tensor(rng):
    ndim = int(rng.integers(0, 5))
    shape = tuple(int(rng.integers(0 if rng.random() < 0.05 else 1, 9)) for _ in range(ndim))
    if rng.random() < 0.1:
        shape = (int(rng.integers(300, 1500)),) if rng.random() < 0.5 else (40, 60)
    kind = rng.choice(["f32", "f64", "f16", "i64", "i32", "bool"], p=[.35, .25, .1, .15, .05, .1])
    n = int(np.prod(shape, dtype=np.int64))
    if kind in ("i64", "i32"):
        hi = 10 ** int(rng.integers(1, 9 if kind == "i32" else 18))
        arr = rng.integers(-hi, hi, size=n)
        t = torch.tensor(arr, dtype=torch.int64 if kind == "i64" else torch.int32)
    elif kind == "bool":
        t = torch.tensor(rng.random(n) < 0.5)
    else:
        dtype = {"f32": torch.float32, "f64": torch.float64, "f16": torch.float16}[kind]
        style = rng.integers(0, 4)
        if style == 0:  # one scale
            vals = rng.standard_normal(n) * 10.0 ** rng.integers(-12, 13)
        elif style == 1:  # spread over decades
            vals = rng.standard_normal(n) * 10.0 ** rng.uniform(-12, 12, size=n)
        elif style == 2:  # integers
            vals = rng.integers(-1000, 1000, size=n).astype(float) * 10.0 ** rng.integers(0, 10)
        else:  # few decimals
            vals = np.round(rng.standard_normal(n) * 100, int(rng.integers(0, 4)))
        special = rng.random(n)
        vals[special < 0.05] = np.nan
        vals[(special >= 0.05) & (special < 0.08)] = np.inf
        vals[(special >= 0.08) & (special < 0.1)] = -np.inf
        vals[(special >= 0.1) & (special < 0.13)] = 0.0
        vals[(special >= 0.13) & (special < 0.15)] = -0.0
        with np.errstate(over="ignore"):
            t = torch.tensor(vals).to(dtype)
        if rng.random() < 0.3:
            t = t.requires_grad_()
            if rng.random() < 0.5:
                t = t * 2
    return t.reshape(shape)


def _random_options(rng):
    opts = {}
    if rng.random() < 0.3:
        opts["precision"] = int(rng.integers(0, 9))
    if rng.random() < 0.3:
        opts["sci_mode"] = bool(rng.random() < 0.5)
    if rng.random() < 0.2:
        opts["threshold"] = int(rng.integers(0, 200))
    if rng.random() < 0.2:
        opts["edgeitems"] = int(rng.integers(0, 5))
    if rng.random() < 0.3:
        opts["linewidth"] = int(rng.integers(10, 160))
    if rng.random() < 0.1:
        opts["profile"] = str(rng.choice(["default", "short", "full"]))
    return opts


@pytest.mark.parametrize("seed", range(300))
def test_fuzz(seed, reset_options):
    rng = np.random.default_rng(seed)
    t = _random_tensor(rng)
    opts = _random_options(rng)
    torch.set_printoptions(**opts)
    ts.set_printoptions(**opts)
    _check(t)
