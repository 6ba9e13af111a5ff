"""Every op of ``tests/op_table.py`` (one ``OpInfo`` entry each) checked sample by sample.

For each (entry, sample) and each device of ``DEVICES``:

* ``test_forward``      values, dtype and shape against PyTorch (each element of a tuple or list);
* ``test_autograd_meta`` ``requires_grad`` / ``is_leaf`` / ``grad_fn`` class of the outputs;
* ``test_grad``         ``out.backward(grad)`` with a fixed random ``grad``: every input's
                        ``.grad`` (``None`` included) against PyTorch;
* ``test_gradgrad``     first derivatives with ``create_graph=True``, then the backward of
                        ``sum(g * v)`` for fixed random ``v``: against PyTorch;
* ``test_fd_grad`` / ``test_fd_gradgrad``  float64 finite differences of the first and second
                        derivatives (no PyTorch), with ``numerical_jacobian`` and
                        ``first_derivative`` from ``test_gradcheck.py``;
* ``test_variant``      the other spellings (method, operator, ...): forward and gradients;
* ``test_error``        the entry's error cases: same exception type and message as PyTorch.

The reference always runs on PyTorch's CPU; the module under test runs on each device of
``DEVICES`` (inputs get ``device=...`` only off the CPU, so the CPU path is the plain one).
On ``gpu`` float64 becomes float32 in the sample (tensors and dtype arguments, for gradrs and
the reference alike: the GPU computes in float32), values are compared within
``GPU_RTOL``/``GPU_ATOL``, error cases with a float64 tensor (dtype checks) and the
float64 finite-difference checks run on the CPU only, and every GPU test skips, with the
reason, where no adapter exists.

Known differences between gradrs and PyTorch are listed in ``KNOWN`` below and run as strict
xfails (only against gradrs; under GRADRS_TEST_SELFTEST=1 everything must pass).  When one is
fixed its test XPASSes, which fails: delete its ``KNOWN`` line.
"""

from __future__ import annotations

import numpy as np
import pytest
from conftest import SELFTEST, G, assert_same_error, assert_same_values, dtype_name, node_name
from op_table import (OPS, T, as_outputs, device_kwargs, for_device, make_args, seed_of,
                      tensor_data)
from test_gradcheck import first_derivative, numerical_jacobian

pytestmark = pytest.mark.usefixtures("restore_grad_mode")

# Devices the module under test is run on.  The GPU runs skip, with the reason, only where
# no adapter exists (or under the self-test: PyTorch's CPU wheel has no GPU).
DEVICES = ["cpu", "gpu"]
if SELFTEST:
    GPU_SKIP = "self-test: the reference PyTorch build has no GPU"
elif not G.gpu.is_available():
    GPU_SKIP = "no wgpu adapter (on Linux without a GPU install Mesa's lavapipe)"
else:
    GPU_SKIP = None

# (device, test kind, "op/sample id") -> reason: strict xfails against gradrs (see the module
# doc).  Kinds: forward, meta, grad, gradgrad, variant ("op/variant/sample"), error
# ("op/case"), fd_grad, fd_gradgrad (CPU only).  Entries hold on both devices unless marked.
KNOWN: dict = {}


def _known(reason, *keys, devices=("cpu", "gpu")):
    """A difference on each of ``devices`` (the finite-difference kinds run on the CPU only)."""
    for key in keys:
        kind, _, pid = key.partition(" ")
        for device in ("cpu",) if kind.startswith("fd_") else devices:
            assert (device, kind, pid) not in KNOWN, key
            KNOWN[(device, kind, pid)] = reason


# float64 precision differences: the GPU runs these samples in float32, where they agree.
F64_ONLY = ("cpu",)


# ---- element-wise math, activations, reductions, shape and indexing ops ------------------
_known(
    "float32 input with a float64 0-dim tensor value (masked_fill's): the value's gradient is "
    "a float32 sum cast to float64. PyTorch sums masked_select(mask) (the selected values "
    "alone, in its cascade order), gradrs sums the masked gradient with zeros in the other "
    "places; the results differ by one float32 ulp (relative ~6e-8 in a float64 gradient). "
    "(clamp_max's max, a sum_to, is bit-equal since sums follow ATen's order.)",
    'variant masked_fill/method/f32_2x3__b_2x3__f64_0d',
    devices=F64_ONLY,
)

_known(
    "PyTorch's inverse is column-major (LAPACK's layout), so reshaping it is a "
    "_reshape_alias (ReshapeAliasBackward0); gradrs's is row-major and the reshape a view "
    "(ViewBackward0). Values and gradients agree",
    "meta linalg.tensorinv/f32_2x2x4", "meta linalg.tensorinv/f64_4x2x2__ind=1",
)

# float_power computes in float64, which the GPU backend lacks (it raises its TypeError).
for _s in ("f32_2x3_positive__2", "f64_2x3_positive__f32_3", "f32_2x3_positive__0.5"):
    _known("float64 result on the GPU: gradrs's GPU backend has no float64 kernels",
           f"forward float_power/{_s}", f"meta float_power/{_s}", f"grad float_power/{_s}",
           f"gradgrad float_power/{_s}", f"variant float_power/method/{_s}", devices=("gpu",))
_known("float64 result on the GPU: gradrs's GPU backend has no float64 kernels",
       "forward float_power/i64_2x3__2", "variant float_power/method/i64_2x3__2",
       devices=("gpu",))

# error cases: op/case -> (what PyTorch raises, what gradrs does)
_ERROR_DIFFS: dict = {}
for _case, (_torch, _gradrs) in _ERROR_DIFFS.items():
    _known(f"PyTorch: {_torch} / gradrs: {_gradrs}", f"error {_case}")


# --------------------------------------------------------------------------------------------
# parametrization
# --------------------------------------------------------------------------------------------


_GENERATED: set = set()


def _params(kind, items, devices=DEVICES):
    """``pytest.param(op, item, device, id=...)`` for each (op, item) and device, marked when
    listed in KNOWN (or skipped on a GPU that does not exist)."""
    out = []
    for device in devices:
        for op, item, pid in items:
            _GENERATED.add((device, kind, pid))
            reason = None if SELFTEST else KNOWN.get((device, kind, pid))
            marks = [pytest.mark.xfail(strict=True, reason=reason)] if reason else []
            if device != "cpu" and GPU_SKIP:
                marks = [pytest.mark.skip(reason=GPU_SKIP)]
            out.append(pytest.param(op, item, device, id=f"{device}-{pid}", marks=marks))
    return out


def _samples(kind, pred=lambda op, s: True):
    return _params(kind, [(op, s, f"{op.name}/{s.id}") for op in OPS for s in op.samples
                          if pred(op, s)])


def _grad_ok(op, s):
    return op.differentiable and s.needs_grad


def _gradgrad_ok(op, s):
    return _grad_ok(op, s) and op.gradgrad and s.gradgrad


def _fd_ok(op, s):
    return (_grad_ok(op, s) and op.fd and s.fd and s.min_numel > 0
            and s.numel <= op.fd_max_numel)


def _fd_samples(kind, pred):
    """One finite-difference check per distinct sample once floats are cast to float64."""
    seen, items = set(), []
    for op in OPS:
        for s in op.samples:
            if not pred(op, s):
                continue
            key = (op.name, _fd_key(s))
            if key not in seen:
                seen.add(key)
                items.append((op, s, f"{op.name}/{s.id}"))
    return _params(kind, items, devices=["cpu"])


def _fd_key(s):
    def norm_arg(a):
        if isinstance(a, T) and a.floating:
            return (a.shape, a.layout, a.expand, a.requires_grad, a.data is None)
        return repr(a)

    return tuple(map(norm_arg, s.args)), repr(sorted(s.kwargs.items()))


def _variants(kind):
    items = [(op, (vname, v, s), f"{op.name}/{vname}/{s.id}")
             for op in OPS for vname, v in op.variants.items() for s in op.samples
             if v.applies(s)]
    return _params(kind, items)


def _errors(kind):
    """Error cases on every device; those with a float64 tensor (dtype checks) on the CPU only:
    float64 tensors cannot be made on the GPU, and casting them away would lose the error."""
    def cases(f64):
        return [(op, e, f"{op.name}/{e.id}") for op in OPS for e in op.errors
                if any(isinstance(a, T) and a.dtype == "float64" for a in e.args) == f64]

    return _params(kind, cases(False)) + _params(kind, cases(True), devices=["cpu"])



# --------------------------------------------------------------------------------------------
# helpers
# --------------------------------------------------------------------------------------------


def _host(t, device):
    """A tensor of the module under test, on the CPU (for numpy)."""
    return t if device == "cpu" or t is None else t.cpu()


def _run(m, op, item, device="cpu", fn=None, grad=True):
    leaves, args = make_args(m, item, device, grad=grad)
    result = (fn or op.fn)(m, *args, **item.kwargs)
    return leaves, result


def _rand_like(m, t, tag, device="cpu"):
    """Fixed random values of ``t``'s shape and dtype (the same for gradrs and torch)."""
    rng = np.random.default_rng(seed_of(tag, tuple(t.shape)))
    v = rng.uniform(-1.5, 1.5, size=tuple(t.shape))
    return m.tensor(tensor_data(v), dtype=getattr(m, dtype_name(t.dtype)), **device_kwargs(device))


def _dense(t):
    """PyTorch's ZeroTensor (e.g. abs's second derivative) as an ordinary tensor of zeros."""
    if getattr(t, "_is_zerotensor", None) is not None and t._is_zerotensor():
        return t.new_zeros(t.shape)
    return t


# The GPU's float32 differs from PyTorch's CPU in the order of its sums (workgroup trees) and
# in WGSL's transcendental functions; its results must agree within these bounds.
GPU_RTOL, GPU_ATOL = 1e-4, 1e-5


def _gpu_tolerance(tol):
    return {"rtol": max(tol.get("rtol", 0.0), GPU_RTOL),
            "atol": max(tol.get("atol", 0.0), GPU_ATOL)}


def _compare_tensor(g, t, op, device, what):
    if t is None:
        assert g is None, f"{what}: expected None, got a tensor"
        return
    assert g is not None, f"{what}: expected a tensor, got None"
    g, t = _dense(g), _dense(t)
    tol = op.tolerance(dtype_name(t.dtype))
    if device != "cpu" and dtype_name(t.dtype) != "float16":  # half's own bound is wider
        tol = _gpu_tolerance(tol)
    try:
        assert_same_values(_host(g, device), t, **tol)
    except AssertionError as e:
        raise AssertionError(f"{what}: {e}") from None


def _compare_result(gres, tres, op, device):
    if isinstance(tres, (tuple, list)):
        kind = list if isinstance(tres, list) else tuple
        assert isinstance(gres, kind), f"expected a {kind.__name__}, got {type(gres)!r}"
        assert len(gres) == len(tres), f"length {len(gres)} != {len(tres)}"
        if hasattr(tres, "_fields"):
            assert getattr(gres, "_fields", None) == tres._fields, "named tuple fields differ"
    gouts, touts = as_outputs(gres), as_outputs(tres)
    for k, (g, t) in enumerate(zip(gouts, touts)):
        assert isinstance(g, G.Tensor), f"output {k}: expected a tensor, got {type(g)!r}"
        _compare_tensor(g, t, op, device, f"output {k}")


def _backward(m, outs, tag, device):
    """Backward of the outputs that require grad, each with a fixed random gradient."""
    outs = [o for o in outs if o.requires_grad]
    grads = [_rand_like(m, o, f"{tag}/go{k}", device) for k, o in enumerate(outs)]
    if len(outs) == 1:
        outs[0].backward(grads[0])
    elif outs:
        m.autograd.backward(outs, grads)
    return len(outs)


def _check_grads(gleaves, tleaves, op, device, what="grad"):
    assert len(gleaves) == len(tleaves)
    for i, (g, t) in enumerate(zip(gleaves, tleaves)):
        _compare_tensor(g.grad, t.grad, op, device, f"{what} of input {i}")


def _forward_backward(torch, op, item, device, fn=None, tag=""):
    gleaves, gres = _run(G, op, item, device, fn)
    tleaves, tres = _run(torch, op, item, "cpu", fn)
    _compare_result(gres, tres, op, device)
    if op.differentiable and item.needs_grad:
        gouts, touts = as_outputs(gres), as_outputs(tres)
        assert [o.requires_grad for o in gouts] == [o.requires_grad for o in touts], (
            "requires_grad of the outputs differs")
        n = _backward(torch, touts, tag, "cpu")
        assert n > 0, "table error: no output of the reference requires grad"
        _backward(G, gouts, tag, device)
        _check_grads(gleaves, tleaves, op, device)


# --------------------------------------------------------------------------------------------
# tests against PyTorch
# --------------------------------------------------------------------------------------------


@pytest.mark.parametrize("op, sample, device", _samples("forward"))
def test_forward(torch, op, sample, device):
    sample = for_device(sample, device)
    _, gres = _run(G, op, sample, device)
    _, tres = _run(torch, op, sample)
    _compare_result(gres, tres, op, device)


@pytest.mark.parametrize("op, sample, device", _samples("meta", lambda op, s: s.needs_grad))
def test_autograd_meta(torch, op, sample, device):
    sample = for_device(sample, device)
    _, gres = _run(G, op, sample, device)
    _, tres = _run(torch, op, sample)
    gouts, touts = as_outputs(gres), as_outputs(tres)
    assert len(gouts) == len(touts), f"{len(gouts)} outputs != {len(touts)}"
    for k, (g, t) in enumerate(zip(gouts, touts)):
        got = (g.requires_grad, g.is_leaf, node_name(g.grad_fn))
        want = (t.requires_grad, t.is_leaf, node_name(t.grad_fn))
        assert got == want, f"output {k}: (requires_grad, is_leaf, grad_fn) {got} != {want}"


@pytest.mark.parametrize("op, sample, device", _samples("grad", _grad_ok))
def test_grad(torch, op, sample, device):
    sample = for_device(sample, device)
    tag = f"{op.name}/{sample.id}"
    gleaves, gres = _run(G, op, sample, device)
    tleaves, tres = _run(torch, op, sample)
    gouts, touts = as_outputs(gres), as_outputs(tres)
    assert [o.requires_grad for o in gouts] == [o.requires_grad for o in touts], (
        "requires_grad of the outputs differs")
    assert _backward(torch, touts, tag, "cpu") > 0, "table error: reference needs no grad"
    _backward(G, gouts, tag, device)
    _check_grads(gleaves, tleaves, op, device)


def _double_backward(m, op, sample, device, tag):
    leaves, res = _run(m, op, sample, device)
    rg = [x for x in leaves if x.requires_grad]
    outs = [o for o in as_outputs(res) if o.requires_grad]
    grads = [_rand_like(m, o, f"{tag}/go{k}", device) for k, o in enumerate(outs)]
    first = m.autograd.grad(outs, rg, grad_outputs=grads, create_graph=True, allow_unused=True)
    terms = [(g * _rand_like(m, g, f"{tag}/v{i}", device)).sum()
             for i, g in enumerate(first) if g is not None and g.requires_grad]
    if terms:
        total = terms[0]
        for t in terms[1:]:
            total = total + t
        total.backward()
    return leaves, first


@pytest.mark.parametrize("op, sample, device", _samples("gradgrad", _gradgrad_ok))
def test_gradgrad(torch, op, sample, device):
    sample = for_device(sample, device)
    tag = f"{op.name}/{sample.id}"
    tleaves, tfirst = _double_backward(torch, op, sample, "cpu", tag)
    gleaves, gfirst = _double_backward(G, op, sample, device, tag)
    assert len(gfirst) == len(tfirst)
    for i, (g, t) in enumerate(zip(gfirst, tfirst)):
        _compare_tensor(g, t, op, device, f"first derivative {i}")
        if t is not None:
            assert g.requires_grad == t.requires_grad, (
                f"first derivative {i}: requires_grad {g.requires_grad} != {t.requires_grad}")
    _check_grads(gleaves, tleaves, op, device, "second derivative")


@pytest.mark.parametrize("op, item, device", _variants("variant"))
def test_variant(torch, op, item, device):
    vname, variant, sample = item
    sample = for_device(sample, device)
    _forward_backward(torch, op, sample, device, variant.fn, f"{op.name}/{vname}/{sample.id}")


@pytest.mark.parametrize("op, case, device", _errors("error"))
def test_error(torch, op, case, device):
    fn = case.fn or op.fn
    case = for_device(case, device)

    def call(m, dev):
        _, args = make_args(m, case, dev)
        return fn(m, *args, **case.kwargs)

    assert_same_error(lambda: call(G, device), lambda: call(torch, "cpu"))


# --------------------------------------------------------------------------------------------
# finite differences (float64, no PyTorch)
# --------------------------------------------------------------------------------------------
# ``numerical_jacobian`` and ``first_derivative`` are test_gradcheck.py's; the analytical
# Jacobian is computed the same way as there, but reads gradients with ``numpy(force=True)``
# (PyTorch returns ZeroTensors for some second derivatives, which plain ``numpy()`` refuses)
# and builds the one-hot ``grad_outputs`` on the output's device.


def _np64(t):
    return np.array(t.detach().numpy(force=True), dtype=np.float64, copy=True)


def _analytical_jacobian(f, arrays):
    inputs = [G.tensor(tensor_data(a), dtype=G.float64, requires_grad=True) for a in arrays]
    out = f(*inputs)
    assert isinstance(out, G.Tensor) and dtype_name(out.dtype) == "float64", repr(out)
    shape = tuple(out.shape)
    n_out = int(np.prod(shape, dtype=np.int64))
    jacs = [np.zeros((n_out, a.size)) for a in arrays]
    if not out.requires_grad:  # independent of every input
        return jacs
    for k in range(n_out):
        onehot = np.zeros(n_out)
        onehot[k] = 1.0
        go = G.tensor(tensor_data(onehot.reshape(shape)), dtype=G.float64)
        grads = G.autograd.grad(out, inputs, grad_outputs=go, retain_graph=True,
                                allow_unused=True)
        for i, (g, x) in enumerate(zip(grads, inputs)):
            if g is None:
                continue
            assert tuple(g.shape) == tuple(x.shape), f"grad {i}: shape {tuple(g.shape)}"
            assert dtype_name(g.dtype) == "float64", f"grad {i}: dtype {g.dtype}"
            jacs[i][k, :] = _np64(g).reshape(-1)
    return jacs


def _gradcheck(f, arrays, eps=1e-6, atol=1e-5, rtol=1e-3):
    _, num = numerical_jacobian(f, [a.copy() for a in arrays], eps)
    ana = _analytical_jacobian(f, arrays)
    for i, (n, a) in enumerate(zip(num, ana)):
        if not np.allclose(a, n, atol=atol, rtol=rtol):
            raise AssertionError(
                f"Jacobian mismatch for input {i}:\nnumerical:\n{n}\nanalytical:\n{a}")


def _gradgradcheck(f, arrays, **kw):
    for i in range(len(arrays)):
        _gradcheck(first_derivative(f, i), arrays, **kw)



def _fd_function(op, sample, device, k):
    """``f(*float64 leaves) -> output k`` for the checker; other inputs are constants."""
    positions = [i for i, a in sample.tensor_args if a.requires_grad]

    def f(*xs):
        _, args = make_args(G, sample, device, grad=False, cast="float64")
        for i, x in zip(positions, xs):
            leaf = x if device == "cpu" else x.to(device)
            args[i] = sample.args[i].transform(leaf)
        out = as_outputs(op.fn(G, *args, **sample.kwargs))[k]
        return _host(out, device)

    arrays = [np.asarray(sample.arrays[i], dtype=np.float64) for i in positions]
    return f, arrays


def _fd_outputs(op, sample, device):
    """Indices of the floating outputs (the ones the checker can differentiate)."""
    _, args = make_args(G, sample, device, grad=False, cast="float64")
    outs = as_outputs(op.fn(G, *args, **sample.kwargs))
    return [k for k, o in enumerate(outs) if o.is_floating_point()]


@pytest.mark.parametrize("op, sample, device", _fd_samples("fd_grad", _fd_ok))
def test_fd_grad(op, sample, device):
    for k in _fd_outputs(op, sample, device):
        f, arrays = _fd_function(op, sample, device, k)
        _gradcheck(f, arrays, **op.fd_tol)


@pytest.mark.parametrize("op, sample, device",
                         _fd_samples("fd_gradgrad", lambda op, s: _fd_ok(op, s)
                                     and _gradgrad_ok(op, s)))
def test_fd_gradgrad(op, sample, device):
    for k in _fd_outputs(op, sample, device):
        f, arrays = _fd_function(op, sample, device, k)
        _gradgradcheck(f, arrays, **op.fd_tol)


# every KNOWN entry names a test that exists (catches typos and stale entries)
assert not set(KNOWN) - _GENERATED, f"KNOWN entries without a test: {set(KNOWN) - _GENERATED}"
