"""PyTorch's errors and results for arguments of the wrong kind (issue 25), vs torch 2.13:
detach_() on views, xlogy with a number first, F.* given a non-tensor, bool parameters."""

from __future__ import annotations

import pytest
from conftest import G, check, check_error

# ---- detach_() on a view ---------------------------------------------------------------------


def _in_no_grad(m, fn):
    with m.no_grad():
        return fn()


DETACH_VIEW = {
    "view of a leaf": lambda m: m.ones(2, requires_grad=True)[0].detach_(),
    "view of a plain tensor": lambda m: m.ones(2)[0].detach_(),
    "view of a non-leaf": lambda m: (m.ones(2, requires_grad=True) * 2)[0].detach_(),
    "view made under no_grad": lambda m: _in_no_grad(
        m, lambda: m.ones(2, requires_grad=True)[0]).detach_(),
    "view of a detached tensor": lambda m: m.ones(2, requires_grad=True).detach()[0].detach_(),
    "view of a view": lambda m: m.ones(2, 2)[0][0].detach_(),
    "reshape view": lambda m: m.ones(4).reshape(2, 2).detach_(),
    "unbind": lambda m: m.ones(2, 2).unbind()[0].detach_(),
    "split": lambda m: m.ones(4).split(2)[0].detach_(),
    "expand": lambda m: m.ones(2, 1).expand(2, 2).detach_(),
    "transpose": lambda m: m.ones(2, 2).T.detach_(),
}


@pytest.mark.parametrize("name", sorted(DETACH_VIEW))
def test_detach_view_in_place_raises(name):
    check_error(DETACH_VIEW[name])


def _detached(t):
    r = t.detach_()
    return r, r is t, r.requires_grad, r.grad_fn is None


DETACH_FINE = {
    "non-leaf": lambda m: _detached(m.ones(2, requires_grad=True) * 2),
    "detach() result": lambda m: _detached(m.ones(2, requires_grad=True).detach()),
    "copying reshape": lambda m: _detached(m.ones(2, 2).t().reshape(4)),
    "contiguous copy": lambda m: _detached(m.ones(2, 2).t().contiguous()),
    "view's .data": lambda m: _detached(m.ones(2)[0].data),
}


@pytest.mark.parametrize("name", sorted(DETACH_FINE))
def test_detach_in_place_allowed(name):
    check(DETACH_FINE[name])


def test_detach_view_in_inference_mode(torch):
    # PyTorch skips its autograd checks in inference mode: a view detaches there.
    for m in (G, torch):
        base = m.ones(2)
        with m.inference_mode():
            assert base[0].detach_().requires_grad is False


# ---- xlogy(number, tensor) -------------------------------------------------------------------


def _xlogy_grad(m, s, dtype):
    x = m.tensor([0.5, 1.0, 2.0, 0.0], dtype=dtype, requires_grad=True)
    y = m.xlogy(s, x)
    y.sum().backward()
    return y, x.grad


XLOGY_VALUES = {
    "int, float32": lambda m: m.xlogy(2, m.tensor([1.0, 2.0, 0.0, -1.0])),
    "float, float32": lambda m: m.xlogy(2.5, m.tensor([1.0, 2.0, 0.0])),
    "int, int64 (promotes to float32)": lambda m: m.xlogy(2, m.tensor([1, 2, 3])),
    "float, int64": lambda m: m.xlogy(2.5, m.tensor([1, 2, 3])),
    "bool, int64": lambda m: m.xlogy(True, m.tensor([1, 2])),
    "zero, nan": lambda m: m.xlogy(0, m.tensor([0.0, float("nan"), 1.0])),
    "float, float16 dtype": lambda m: m.xlogy(2.5, m.tensor([1.0, 2.0], dtype=m.float16)).dtype,
    "float, 0-dim float16 dtype": lambda m: m.xlogy(2.5, m.tensor(2.0, dtype=m.float16)).dtype,
    "int, float64": lambda m: m.xlogy(3, m.tensor([1.0, 2.0], dtype=m.float64)),
    "out=": lambda m: m.xlogy(2, m.tensor([1.0, 2.0]), out=m.empty(2)),
    "grad float32": lambda m: _xlogy_grad(m, 2.5, m.float32),
    "grad float64 int": lambda m: _xlogy_grad(m, 3, m.float64),
}


@pytest.mark.parametrize("name", sorted(XLOGY_VALUES))
def test_xlogy_number_first(name):
    check(XLOGY_VALUES[name])


XLOGY_ERRORS = {
    "two numbers": lambda m: m.xlogy(2, 3),
    "number and list": lambda m: m.xlogy(2, [1.0]),
    "string": lambda m: m.xlogy("a", m.ones(2)),
}


@pytest.mark.parametrize("name", sorted(XLOGY_ERRORS))
def test_xlogy_number_first_errors(name):
    check_error(XLOGY_ERRORS[name])


# ---- F.* given a non-tensor where a tensor goes ----------------------------------------------

# A valid call of each function: each tensor in it is replaced in turn by a non-tensor.
F_CALLS = {
    **dict.fromkeys([
        "adaptive_avg_pool1d", "adaptive_max_pool1d", "adaptive_max_pool1d_with_indices",
        "avg_pool1d", "max_pool1d", "max_pool1d_with_indices",
    ], lambda m: (m.rand(1, 2, 4), 2)),
    **dict.fromkeys([
        "adaptive_avg_pool2d", "adaptive_max_pool2d", "adaptive_max_pool2d_with_indices",
        "avg_pool2d", "avg_pool3d", "channel_shuffle", "max_pool2d", "max_pool2d_with_indices",
        "max_pool3d", "max_pool3d_with_indices", "native_channel_shuffle", "pixel_unshuffle",
        "unfold",
    ], lambda m: (m.rand(1, 2, 4, 4), 2)),
    **dict.fromkeys([
        "alpha_dropout", "celu", "celu_", "dropout", "elu", "elu_", "feature_alpha_dropout",
        "gelu", "gumbel_softmax", "hardshrink", "hardsigmoid", "hardswish", "hardtanh",
        "hardtanh_", "leaky_relu", "leaky_relu_", "log_softmax", "logsigmoid", "mish", "relu",
        "relu6", "relu_", "rrelu", "rrelu_", "selu", "selu_", "silu", "softmax", "softplus",
        "softshrink",
    ], lambda m: (m.rand(1, 2, 4, 4),)),
    "batch_norm": lambda m: (m.rand(2, 3), m.zeros(3), m.ones(3)),
    "bilinear": lambda m: (m.rand(2, 3), m.rand(2, 4), m.rand(5, 3, 4)),
    **dict.fromkeys([
        "binary_cross_entropy", "binary_cross_entropy_with_logits", "conv2d",
        "cosine_similarity", "cross_entropy", "hinge_embedding_loss", "huber_loss", "kl_div",
        "l1_loss", "mse_loss", "multilabel_soft_margin_loss", "pairwise_distance",
        "poisson_nll_loss", "smooth_l1_loss", "soft_margin_loss",
    ], lambda m: (m.rand(1, 2, 4, 4), m.rand(1, 2, 4, 4))),
    **dict.fromkeys(["conv1d", "conv_transpose1d"], lambda m: (m.rand(1, 2, 4), m.rand(2, 2, 3))),
    **dict.fromkeys(["conv3d", "conv_transpose3d"],
                    lambda m: (m.rand(1, 2, 4, 4, 4), m.rand(2, 2, 3, 3, 3))),
    "conv_transpose2d": lambda m: (m.rand(1, 2, 4, 4), m.rand(2, 2, 3, 3)),
    "cosine_embedding_loss": lambda m: (m.rand(2, 3), m.rand(2, 3), m.tensor([1, -1])),
    "embedding": lambda m: (m.tensor([0, 1]), m.rand(3, 4)),
    "fold": lambda m: (m.rand(1, 4, 4), (3, 3), (2, 2)),
    **dict.fromkeys(["gaussian_nll_loss", "threshold", "threshold_"],
                    lambda m: (m.rand(1, 2, 4, 4), 0.5, 0.5)),
    "grid_sample": lambda m: (m.rand(1, 2, 4, 4), m.rand(1, 4, 4, 2)),
    **dict.fromkeys(["layer_norm", "rms_norm"], lambda m: (m.rand(2, 3), [3])),
    "linear": lambda m: (m.rand(2, 3), m.rand(4, 3)),
    **dict.fromkeys(["multi_margin_loss", "nll_loss"], lambda m: (m.rand(2, 3), m.tensor([0, 1]))),
    "multilabel_margin_loss": lambda m: (m.rand(2, 3), m.tensor([[0, 1, -1], [1, -1, 0]])),
    "one_hot": lambda m: (m.tensor([0, 1]),),
    "pad": lambda m: (m.rand(1, 2, 4, 4), (2, 2)),
    "pdist": lambda m: (m.rand(2, 4), 2),
    "pixel_shuffle": lambda m: (m.rand(1, 2, 4, 4, 4), 2),
    "prelu": lambda m: (m.rand(2, 3), m.rand(3)),
    **dict.fromkeys([
        "scaled_dot_product_attention", "triplet_margin_loss", "triplet_margin_with_distance_loss",
    ], lambda m: (m.rand(2, 3), m.rand(2, 3), m.rand(2, 3))),
}
NOT_TENSORS = {"list": [1.0, 2.0], "float": 1.5, "None": None, "int": 3}


def _f_case(name, at, bad):
    def fn(m):
        m.manual_seed(0)  # the same inputs in both (gradrs draws PyTorch's CPU streams)
        args = list(F_CALLS[name](m))
        args[at] = NOT_TENSORS[bad]
        return getattr(m.nn.functional, name)(*args)
    return fn


# PyTorch's own text is not involved: Python's operator error names the tensor's class, which
# is `Tensor` there and `gradrs.Tensor` here.
PYTHON_TEXT = {("multilabel_soft_margin_loss", 1, "None")}
F_CASES = {
    f"{name} arg {at} {bad}": _f_case(name, at, bad)
    for name, make in F_CALLS.items()
    for at, arg in enumerate(make(G)) if isinstance(arg, G.Tensor)
    for bad in NOT_TENSORS if (name, at, bad) not in PYTHON_TEXT
}


@pytest.mark.parametrize("name", sorted(F_CASES))
def test_functional_non_tensor(name, torch):
    fn = F_CASES[name]
    try:  # PyTorch takes a number for some (multilabel_soft_margin_loss's target)
        fn(torch)
    except Exception:  # noqa: BLE001 - whatever PyTorch raises, gradrs must raise too
        check_error(fn)
    else:
        check(fn)


def test_functional_non_tensor_by_keyword(torch):
    for m in (G, torch):
        with pytest.raises(TypeError, match=r"embedding\(\): argument 'indices' \(position 2\)"):
            m.nn.functional.embedding(weight=m.ones(2, 2), input=[0])
    check_error(lambda m: m.nn.functional.conv2d(m.ones(1, 1, 2, 2), weight=[1.0]))
    check_error(lambda m: m.nn.functional.conv2d(m.ones(1, 1, 2, 2), m.ones(1, 1, 1, 1), [1.0]))
    check_error(lambda m: m.nn.functional.relu(input="a"))


def test_functional_checks_keep_results():
    # The checks wrap the functions: valid calls, by position or keyword, run unchanged.
    check(lambda m: m.nn.functional.embedding(weight=m.arange(6.0).view(3, 2),
                                              input=m.tensor([2, 0])))
    check(lambda m: m.nn.functional.conv1d(m.ones(1, 2, 4), m.ones(1, 2, 3), padding="same"))
    check(lambda m: m.nn.functional.batch_norm(m.ones(2, 3), None, None, training=True))


def test_batch_norm_eval_needs_running_stats():
    check_error(lambda m: m.nn.functional.batch_norm(m.ones(2, 3), None, None))
    check_error(lambda m: m.nn.functional.batch_norm(m.ones(2, 3), m.zeros(3), None))


# ---- embedding's index checks, on every device -----------------------------------------------

DEVICES = ["cpu"] + (["gpu"] if G.gpu.is_available() else [])
EMBEDDING_INDICES = {
    "-1": lambda m: m.tensor([-1]),
    "-3": lambda m: m.tensor([-3]),
    "2": lambda m: m.tensor([0, 2]),
    "2**40": lambda m: m.tensor([2**40]),
    "-2**40": lambda m: m.tensor([[0], [-2**40]]),
    "int32 2": lambda m: m.tensor([2], dtype=m.int32),
    "float": lambda m: m.tensor([0.0]),
    "float64": lambda m: m.tensor([0.0], dtype=m.float64),
    "bool": lambda m: m.tensor([True]),
}


# The GPU holds int64 as int32 and has no float64: those indices cannot be made there.
NOT_ON_GPU = {"2**40", "-2**40", "float64"}
# The dtype error names the tensor's type, which names its device.
NAMES_DEVICE = {"float", "bool"}


# GPU indices are not bounds-checked (a read-back per training step): only their dtype.
GPU_UNCHECKED = {"-1", "-3", "2", "int32 2"}


@pytest.mark.parametrize("device", DEVICES)
@pytest.mark.parametrize("name", sorted(EMBEDDING_INDICES))
def test_embedding_bad_indices(torch, name, device):
    if device == "gpu" and name in NOT_ON_GPU | GPU_UNCHECKED:
        pytest.skip("not representable or not checked on the GPU")

    # PyTorch's CPU kernel raises eagerly; the GPU must too (the reference runs on the CPU).
    def fn(m):
        dev = device if m is G else "cpu"
        idx = EMBEDDING_INDICES[name](m).to(dev)
        return m.nn.functional.embedding(idx, m.ones(2, 3, device=dev))
    if device == "gpu" and name in NAMES_DEVICE:
        with pytest.raises(RuntimeError, match="Expected tensor for argument #1 'indices' to "
                           "have one of the following scalar types: Long, Int; but got"):
            fn(G)
        return
    check_error(fn)


@pytest.mark.parametrize("device", DEVICES)
def test_embedding_in_range_indices(torch, device):
    def fn(m):
        dev = device if m is G else "cpu"
        w = m.arange(6.0).view(3, 2).to(dev).requires_grad_()
        out = m.nn.functional.embedding(m.tensor([[2, 0], [1, 2]], device=dev), w)
        out.sum().backward()
        return out.detach().cpu(), w.grad.cpu()
    check(fn)


# ---- bool parameters: a bool (or NumPy bool), nothing else -----------------------------------

def _x(m):
    return m.arange(6.0).view(2, 3)


BAD_BOOLS = {
    "sum keepdim float": lambda m: _x(m).sum(0, keepdim=1.5),
    "sum keepdim int": lambda m: _x(m).sum(0, keepdim=1),
    "mean keepdim None": lambda m: _x(m).mean(0, keepdim=None),
    "max keepdim float": lambda m: _x(m).max(0, keepdim=1.5),
    "max keepdim int": lambda m: _x(m).max(0, keepdim=1),
    "min keepdim str": lambda m: _x(m).min(0, keepdim="a"),
    "amax keepdim int": lambda m: _x(m).amax(0, keepdim=1),
    "argmax keepdim str": lambda m: _x(m).argmax(0, keepdim="a"),
    "argmin keepdim int": lambda m: _x(m).argmin(0, keepdim=1),
    "prod keepdim int": lambda m: _x(m).prod(0, keepdim=1),
    "logsumexp keepdim str": lambda m: _x(m).logsumexp(0, keepdim="a"),
    "median keepdim str": lambda m: _x(m).median(0, keepdim="a"),
    "kthvalue keepdim int": lambda m: _x(m).kthvalue(1, 0, keepdim=1),
    "topk largest int": lambda m: _x(m).topk(1, largest=1),
    "topk sorted int": lambda m: _x(m).topk(1, sorted=1),
    "nonzero as_tuple int": lambda m: _x(m).nonzero(as_tuple=1),
    "numpy force int": lambda m: _x(m).numpy(force=1),
    "new_tensor requires_grad int": lambda m: _x(m).new_tensor([1.0], requires_grad=1),
    "multinomial replacement int": lambda m: _x(m).multinomial(1, replacement=1),
    "full requires_grad int": lambda m: m.full((2,), 1.0, requires_grad=1),
    "full_like requires_grad int": lambda m: m.full_like(_x(m), 1.0, requires_grad=1),
    "ones requires_grad int": lambda m: m.ones(2, requires_grad=1),
    "zeros requires_grad str": lambda m: m.zeros(2, requires_grad="a"),
    "empty requires_grad float": lambda m: m.empty(2, requires_grad=1.0),
    "zeros_like requires_grad int": lambda m: m.zeros_like(_x(m), requires_grad=1),
    "tensor requires_grad str": lambda m: m.tensor([1.0], requires_grad="a"),
    "tensor requires_grad int": lambda m: m.tensor([1.0], requires_grad=0),
    "tensor pin_memory int": lambda m: m.tensor([1.0], pin_memory=0),
}


@pytest.mark.parametrize("name", sorted(BAD_BOOLS))
def test_bool_parameter_refuses_others(name):
    check_error(BAD_BOOLS[name])


def test_bool_parameter_numpy_bool():
    # PyTorch 2.13 does not take NumPy 2's bool for a bool parameter.
    check_error(lambda m: _x(m).sum(0, keepdim=_np().bool_(True)))
    check_error(lambda m: m.ones(2, requires_grad=_np().True_))
    check(lambda m: tuple(_x(m).max(0, keepdim=True)))


BAD_BOOLS_TYPE_ONLY = {
    # PyTorch lists its overloads ("received an invalid combination of arguments"), or numbers
    # a positional argument: the type is PyTorch's, the text its keyword form.
    "sum positional int": lambda m: _x(m).sum(0, 1),
    "requires_grad_ int": lambda m: _x(m).requires_grad_(1),
    "eye requires_grad int": lambda m: m.eye(2, requires_grad=1),
    "arange requires_grad int": lambda m: m.arange(3.0, requires_grad=1),
    "all keepdim int": lambda m: _x(m).all(0, keepdim=1),
    "any keepdim int": lambda m: _x(m).any(0, keepdim=1),
    "sum no dim keepdim str": lambda m: _x(m).sum(keepdim="a"),
}


@pytest.mark.parametrize("name", sorted(BAD_BOOLS_TYPE_ONLY))
def test_bool_parameter_refuses_others_type(torch, name):
    for m in (G, torch):
        with pytest.raises(TypeError):
            BAD_BOOLS_TYPE_ONLY[name](m)


# ---- indexing keys and assigned values of the wrong kind -------------------------------------


def _assign(m, key, value, dtype=None):
    a = m.ones(2, 2, dtype=dtype)
    a[key] = value
    return a


def _np():
    import numpy as np

    return np


SETITEM = {
    "None": lambda m: _assign(m, 0, None),
    "list": lambda m: _assign(m, 0, [1.0, 2.0]),
    "tuple": lambda m: _assign(m, 0, (1.0, 2.0)),
    "str": lambda m: _assign(m, 0, "a"),
    "bytes": lambda m: _assign(m, 0, b"a"),
    "object": lambda m: _assign(m, 0, object()),
    "numpy float32": lambda m: _assign(m, 0, _np().float32(1.0)),
    "numpy bool": lambda m: _assign(m, 0, _np().bool_(True)),
    "numpy array": lambda m: _assign(m, 0, _np().ones(2)),
    "numpy 0-dim array": lambda m: _assign(m, 0, _np().array(1.0)),
    "int64 tensor, list": lambda m: _assign(m, 0, [1, 2], m.int64),
    "str key": lambda m: _assign(m, "a", 1.0),
    "int past int64": lambda m: _assign(m, 0, 2**70),
    "int past int64 into int64": lambda m: _assign(m, 0, 2**70, m.int64),
}


@pytest.mark.parametrize("name", sorted(SETITEM))
def test_setitem_value_kinds_refused(name):
    check_error(SETITEM[name])


SETITEM_FINE = {
    "float": lambda m: _assign(m, 0, 1.5),
    "int": lambda m: _assign(m, (0, 1), 3),
    "bool": lambda m: _assign(m, 1, True),
    "numpy int64": lambda m: _assign(m, 0, _np().int64(4)),
    "numpy float64": lambda m: _assign(m, 0, _np().float64(2.5)),
    "tensor": lambda m: _assign(m, 0, m.tensor([5.0, 6.0])),
    "int into int64": lambda m: _assign(m, 0, 7, m.int64),
}


@pytest.mark.parametrize("name", sorted(SETITEM_FINE))
def test_setitem_value_kinds_taken(name):
    check(SETITEM_FINE[name])


GETITEM_KEYS = {
    "str": lambda m: m.ones(2)["a"],
    "bytes": lambda m: m.ones(2)[b"a"],
    "list of str": lambda m: m.ones(2)[["a"]],
    "nested list of str": lambda m: m.ones(2, 2)[[["a"]]],
    "tuple with str": lambda m: m.ones(2)[("a",)],
    "2**64": lambda m: m.ones(2)[2**64],
    "-2**64": lambda m: m.ones(2)[-(2**64)],
}


@pytest.mark.parametrize("name", sorted(GETITEM_KEYS))
def test_getitem_key_kinds_refused(name):
    check_error(GETITEM_KEYS[name])


@pytest.mark.parametrize("seed", ["a", None, 2**64, -(2**63) - 1, [1]])
def test_manual_seed_refuses(seed):
    check_error(lambda m: m.manual_seed(seed))


@pytest.mark.parametrize("seed", [1.7, "12", True, -1])
def test_manual_seed_takes_int_of(seed):
    check(lambda m: (m.manual_seed(seed).initial_seed(), m.initial_seed(), m.rand(2)))


RAGGED = {
    "int then list": lambda m: m.tensor([1, [2]]),
    "float then list": lambda m: m.tensor([1.0, [2]]),
    "bool then list": lambda m: m.tensor([True, [True]]),
    "int then list of float": lambda m: m.tensor([1, [2.5]]),
    "int then tuple": lambda m: m.tensor([1, (2,)]),
    "list then int": lambda m: m.tensor([[1], 2]),
    "list then float": lambda m: m.tensor([[1.0], 2.0]),
    "deeper": lambda m: m.tensor([[1], [[2]]]),
    "later": lambda m: m.tensor([1, 2, [3]]),
    "float dtype": lambda m: m.tensor([1, [2]], dtype=m.float32),
    "int64 dtype": lambda m: m.tensor([1.0, [2]], dtype=m.int64),
    "bool dtype": lambda m: m.tensor([1.0, [2]], dtype=m.bool),
    "list then None": lambda m: m.tensor([[1], None]),
    "lengths": lambda m: m.tensor([[1, 2], [3]]),
}


@pytest.mark.parametrize("name", sorted(RAGGED))
def test_ragged_data_refused(name):
    check_error(RAGGED[name])
