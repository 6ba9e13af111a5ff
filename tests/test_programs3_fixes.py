"""Behaviours that the third-party programs of tests/programs/ (session 2026-11-27, helper
"programs3") found different from PyTorch and that were fixed in Python, checked against torch."""

import numpy as np
import pytest

from conftest import check, check_error, run_both, to_np

# cross_entropy / nll_loss targets: ATen's cross_entropy_loss reads a target of the input's
# shape as class probabilities (which must be floating point), any other as class indices,
# whose dtype nll_loss_nd checks after the batch sizes (Long or Byte; Byte only for 1-D / 2-D
# inputs); label_smoothing above 1 is refused, at or below 0 means none.
TARGET_ERRORS = {
    "one-hot long target": lambda M: M.nn.functional.cross_entropy(
        M.zeros(2, 3), M.zeros(2, 3, dtype=M.long)),
    "module one-hot int target": lambda M: M.nn.CrossEntropyLoss()(
        M.zeros(2, 3), M.zeros(2, 3, dtype=M.int32)),
    "float target of another shape": lambda M: M.nn.functional.cross_entropy(
        M.zeros(2, 3), M.tensor([0.0, 1.0])),
    "float target, K-dim input": lambda M: M.nn.functional.cross_entropy(
        M.zeros(2, 3, 4), M.zeros(2, 4)),
    "int32 target": lambda M: M.nn.functional.cross_entropy(
        M.zeros(2, 3), M.tensor([0, 1], dtype=M.int32)),
    "nll int16 target": lambda M: M.nn.functional.nll_loss(
        M.zeros(2, 3), M.tensor([0, 1], dtype=M.int16)),
    "nll bool 1-d": lambda M: M.nn.functional.nll_loss(M.zeros(3), M.tensor(True)),
    "nll batch sizes before dtype": lambda M: M.nn.functional.nll_loss(
        M.zeros(2, 3), M.zeros(3, dtype=M.int32)),
    "nll byte K-dim": lambda M: M.nn.functional.nll_loss(
        M.zeros(2, 3, 2, 2), M.zeros(2, 2, 2, dtype=M.uint8)),
    "nll byte 3-d": lambda M: M.nn.functional.nll_loss(
        M.zeros(2, 3, 4), M.zeros(2, 4, dtype=M.uint8)),
    "probabilities with ignore_index": lambda M: M.nn.functional.cross_entropy(
        M.zeros(2, 3), M.full((2, 3), 1 / 3), ignore_index=0),
    "label_smoothing above 1, class path": lambda M: M.nn.functional.cross_entropy(
        M.zeros(2, 3), M.tensor([0.0, 1.0]), label_smoothing=1.5),
    "label_smoothing above 1, probabilities": lambda M: M.nn.functional.cross_entropy(
        M.zeros(2, 3), M.full((2, 3), 1 / 3), label_smoothing=1.5),
}


@pytest.mark.parametrize("case", list(TARGET_ERRORS))
def test_cross_entropy_target_errors(case):
    check_error(TARGET_ERRORS[case])


def _logits(M):
    return M.tensor([[0.2, -1.0, 0.5], [1.5, 0.3, -0.7]], requires_grad=True)


VALUES = {
    "byte targets": lambda M, x: M.nn.functional.cross_entropy(
        x, M.tensor([2, 1], dtype=M.uint8)),
    "byte targets, weighted, none": lambda M, x: M.nn.functional.cross_entropy(
        x, M.tensor([2, 1], dtype=M.uint8), weight=M.tensor([1.0, 2.0, 3.0]), reduction="none"),
    "byte targets, smoothing": lambda M, x: M.nn.functional.cross_entropy(
        x, M.tensor([2, 0], dtype=M.uint8), label_smoothing=0.1),
    "nll byte unbatched": lambda M, x: M.nn.functional.nll_loss(
        x[0].log_softmax(0), M.tensor(1, dtype=M.uint8)),
    "negative smoothing is none, class path": lambda M, x: M.nn.functional.cross_entropy(
        x, M.tensor([2, 1]), label_smoothing=-0.5),
    "negative smoothing is none, probabilities": lambda M, x: M.nn.functional.cross_entropy(
        x, M.tensor([[0.2, 0.3, 0.5], [1.0, 0.0, 0.0]]), label_smoothing=-0.5),
    "probabilities with a negative ignore_index": lambda M, x: M.nn.functional.cross_entropy(
        x, M.tensor([[0.2, 0.3, 0.5], [1.0, 0.0, 0.0]]), ignore_index=-1),
}


@pytest.mark.parametrize("case", list(VALUES))
def test_cross_entropy_target_values(case):
    def run(M):
        x = _logits(M)
        out = VALUES[case](M, x)
        out.sum().backward()
        return out, x.grad

    check(run)


# nll_loss_nd's shape checks: a (N, 1, H, W) mask given for (N, C, H, W) logits was read as
# N*H*W targets and trained silently
SHAPE_ERRORS = {
    "mask with a channel dim": lambda M: M.nn.functional.cross_entropy(
        M.zeros(2, 3, 4, 4), M.zeros(2, 1, 4, 4, dtype=M.long)),
    "flattened mask": lambda M: M.nn.functional.nll_loss(
        M.zeros(2, 3, 4, 4), M.zeros(2, 16, dtype=M.long)),
    "spatial size mismatch": lambda M: M.nn.functional.nll_loss(
        M.zeros(2, 3, 4, 4), M.zeros(2, 5, 4, dtype=M.long)),
    "spatial size mismatch, int32": lambda M: M.nn.functional.nll_loss(
        M.zeros(2, 3, 4, 4), M.zeros(2, 5, 4, dtype=M.int32)),
    "K-dim weight": lambda M: M.nn.functional.nll_loss(
        M.zeros(2, 3, 4, 4), M.zeros(2, 4, 4, dtype=M.long), weight=M.ones(2)),
    "3-d target size": lambda M: M.nn.functional.nll_loss(
        M.zeros(2, 3, 4), M.zeros(2, 1, 4, dtype=M.long)),
    "3-d batch only": lambda M: M.nn.functional.nll_loss(M.zeros(2, 3, 4), M.zeros(2, dtype=M.long)),
    "5-d target size": lambda M: M.nn.functional.nll_loss(
        M.zeros(2, 3, 2, 2, 2), M.zeros(2, 8, dtype=M.long)),
    "2-d multi-target": lambda M: M.nn.functional.nll_loss(
        M.zeros(2, 3), M.zeros(2, 1, dtype=M.long)),
    "2-d weight": lambda M: M.nn.functional.nll_loss(
        M.zeros(2, 3), M.zeros(2, dtype=M.long), weight=M.ones(2)),
    "0-d input": lambda M: M.nn.functional.nll_loss(M.tensor(1.0), M.tensor(0)),
    "0-d target": lambda M: M.nn.functional.nll_loss(M.zeros(2, 3), M.tensor(0)),
    # binary losses: the target's dtype
    "bce long target": lambda M: M.nn.functional.binary_cross_entropy(
        M.full((4,), 0.5), M.ones(4, dtype=M.long)),
    "bce float64 target": lambda M: M.nn.functional.binary_cross_entropy(
        M.full((4,), 0.5), M.ones(4, dtype=M.float64)),
    "bce with logits long target": lambda M: M.nn.BCEWithLogitsLoss()(
        M.zeros(4), M.ones(4, dtype=M.long)),
    "bce with logits int target, pos_weight": lambda M: M.nn.functional.binary_cross_entropy_with_logits(
        M.zeros(4), M.ones(4, dtype=M.int32), pos_weight=M.ones(4)),
    "bce with logits bool target": lambda M: M.nn.functional.binary_cross_entropy_with_logits(
        M.zeros(4), M.ones(4, dtype=M.bool)),
    "kl_div long target": lambda M: M.nn.functional.kl_div(
        M.zeros(4), M.ones(4, dtype=M.long), reduction="sum"),
}


@pytest.mark.parametrize("case", list(SHAPE_ERRORS))
def test_loss_target_shape_and_dtype_errors(case):
    check_error(SHAPE_ERRORS[case])


def test_nll_loss_k_dim_values_unchanged():
    def run(M):
        x = M.tensor([[[0.2, -1.0], [0.5, 1.5]], [[0.3, -0.7], [0.0, 2.0]]],
                     requires_grad=True)  # (N=2, C=2, d=2)
        t = M.tensor([[1, 0], [0, 1]])
        out = M.nn.functional.cross_entropy(x, t, weight=M.tensor([1.0, 3.0]), reduction="none")
        out.sum().backward()
        return out, x.grad

    check(run)


@pytest.mark.parametrize("loss", ["multi_margin_loss", "multilabel_margin_loss"])
def test_margin_losses_take_long_targets_only(loss):
    def run(M):
        target = M.ones(2, dtype=M.int32) if loss == "multi_margin_loss" else M.ones(
            2, 3, dtype=M.int32)
        return getattr(M.nn.functional, loss)(M.zeros(2, 3), target)

    check_error(run)


# ATen's CPU norm kernels refuse parameters of another dtype than the input's unless they are
# float32 ones of a float16 / bfloat16 input (a float64 batch through a float32 model computed
# in float64 instead of raising); rms_norm's composite path for mixed dtypes
NORMS = {
    "batch_norm": lambda M, x, p: M.nn.functional.batch_norm(
        x, M.zeros(3, dtype=p), M.ones(3, dtype=p), M.ones(3, dtype=p), M.zeros(3, dtype=p),
        training=True),
    "batch_norm eval": lambda M, x, p: M.nn.functional.batch_norm(
        x, M.zeros(3, dtype=p), M.ones(3, dtype=p), M.ones(3, dtype=p), M.zeros(3, dtype=p)),
    "batch_norm stats only": lambda M, x, p: M.nn.functional.batch_norm(
        x, M.zeros(3, dtype=p), M.ones(3, dtype=p), training=True),
    "layer_norm": lambda M, x, p: M.nn.functional.layer_norm(
        x, (4,), M.ones(4, dtype=p), M.zeros(4, dtype=p)),
    "layer_norm bias only": lambda M, x, p: M.nn.functional.layer_norm(
        x, (4,), None, M.zeros(4, dtype=p)),
    "group_norm": lambda M, x, p: M.nn.functional.group_norm(
        x, 1, M.ones(3, dtype=p), M.zeros(3, dtype=p)),
    "instance_norm": lambda M, x, p: M.nn.InstanceNorm1d(3, affine=True).to(p)(x),
}
DTYPES = [("float64", "float32"), ("float32", "float64"), ("float32", "bfloat16"),
          ("bfloat16", "float64"), ("float16", "bfloat16"), ("int64", "float32")]


@pytest.mark.parametrize("norm", list(NORMS))
@pytest.mark.parametrize("dtypes", DTYPES, ids="-".join)
def test_norms_refuse_mixed_dtypes(norm, dtypes):
    def run(M):
        x = M.arange(24.0).reshape(2, 3, 4).to(getattr(M, dtypes[0]))
        return NORMS[norm](M, x, getattr(M, dtypes[1]))

    check_error(run)


@pytest.mark.parametrize("norm", ["batch_norm", "layer_norm", "group_norm"])
@pytest.mark.parametrize("low", ["float16", "bfloat16"])
def test_norms_take_float32_parameters_of_a_half_input(norm, low):
    def run(M):
        x = (M.arange(24.0).reshape(2, 3, 4) / 7).to(getattr(M, low))
        return NORMS[norm](M, x, M.float32)

    check(run)


@pytest.mark.parametrize("dtypes", [("float16", "float32"), ("bfloat16", "float32"),
                                    ("float32", "float64"), ("float64", "float32"),
                                    ("float16", "bfloat16")], ids="-".join)
def test_rms_norm_mixed_dtypes(dtypes):
    def run(M):
        x = (M.arange(24.0).reshape(2, 3, 4) / 7 - 1).to(getattr(M, dtypes[0]))
        w = M.linspace(0.5, 2.0, 4).to(getattr(M, dtypes[1])).requires_grad_()
        out = M.nn.functional.rms_norm(x, [4], w)
        out.float().sum().backward()
        return out, w.grad

    check(run)


def test_rms_norm_integer_input():
    check_error(lambda M: M.nn.functional.rms_norm(M.ones(2, 4, dtype=M.long), [4]))


PARAMETER_MIXES = {
    "bn weight f32, bias f64": lambda M, x: M.nn.functional.batch_norm(
        x, None, None, M.ones(3), M.ones(3).double(), training=True),
    "bn running stats f32 / f64": lambda M, x: M.nn.functional.batch_norm(
        x, M.zeros(3), M.ones(3).double()),
    "bn half input, bias f64": lambda M, x: M.nn.functional.batch_norm(
        x.half(), None, None, M.ones(3), M.ones(3).double(), training=True),
    "ln weight f32, bias f64": lambda M, x: M.nn.functional.layer_norm(
        x, (4,), M.ones(4), M.ones(4).double()),
    "ln half input, bias f16": lambda M, x: M.nn.functional.layer_norm(
        x.half(), (4,), M.ones(4), M.ones(4).half()),
    "gn weight f32, bias f64": lambda M, x: M.nn.functional.group_norm(
        x, 1, M.ones(3), M.ones(3).double()),
}


@pytest.mark.parametrize("case", list(PARAMETER_MIXES))
def test_norm_parameters_of_two_dtypes(case):
    check_error(lambda M: PARAMETER_MIXES[case](M, M.arange(24.0).reshape(2, 3, 4)))


CONV_TRANSPOSE_DTYPES = {
    "float64 input": lambda M, x, w: M.nn.functional.conv_transpose2d(x.double(), w),
    "float64 weight": lambda M, x, w: M.nn.functional.conv_transpose2d(x, w.double()),
    "float64 input, 3-d": lambda M, x, w: M.nn.functional.conv_transpose3d(
        x.unsqueeze(2).double(), w.unsqueeze(2)),
    "float64 module": lambda M, x, w: M.nn.ConvTranspose2d(2, 3, 3).double()(x),
}


@pytest.mark.parametrize("case", list(CONV_TRANSPOSE_DTYPES))
def test_conv_transpose_dtype_message(case):
    check_error(lambda M: CONV_TRANSPOSE_DTYPES[case](M, M.ones(1, 2, 5, 5), M.ones(2, 3, 3, 3)))


def test_conv_transpose_float64_bias_is_accepted():
    def run(M):
        b = M.tensor([0.1, 0.2, 0.3], dtype=M.float64, requires_grad=True)
        out = M.nn.functional.conv_transpose2d(M.ones(1, 2, 3, 3), M.ones(2, 3, 2, 2), b)
        out.sum().backward()
        return out, b.grad

    check(run)


# PyTorch's CPU flash kernel (tried first) takes an attn_mask together with is_causal=True,
# applying both; only the math path refuses the pair
def _qkv(M, shape_q=(1, 2, 3, 4), shape_k=(1, 2, 5, 4)):
    g = M.Generator().manual_seed(0)
    return (M.randn(*shape_q, generator=g, dtype=M.float64),
            M.randn(*shape_k, generator=g, dtype=M.float64),
            M.randn(*shape_k, generator=g, dtype=M.float64))


SDPA_CAUSAL = {
    "float mask": lambda M, q, k, v: M.nn.functional.scaled_dot_product_attention(
        q, k, v, attn_mask=M.linspace(-1, 1, 15, dtype=M.float64).reshape(3, 5), is_causal=True),
    "bool mask": lambda M, q, k, v: M.nn.functional.scaled_dot_product_attention(
        q, k, v, attn_mask=M.tensor([[True, False, True, True, False]] * 3), is_causal=True),
    "4-d float mask": lambda M, q, k, v: M.nn.functional.scaled_dot_product_attention(
        q, k, v, attn_mask=M.ones(1, 2, 3, 5, dtype=M.float64), is_causal=True),
}


@pytest.mark.parametrize("case", list(SDPA_CAUSAL))
def test_sdpa_mask_and_causal(case):
    def run(M):
        q, k, v = _qkv(M)
        q.requires_grad_()
        out = SDPA_CAUSAL[case](M, q, k, v)
        (out * out).sum().backward()
        return to_np(out), to_np(q.grad)

    # (the values: flash's blockwise order in torch, the math path's here)
    (go, gg), (to, tg) = run_both(run)
    np.testing.assert_allclose(go, to, rtol=1e-12, atol=1e-12)
    np.testing.assert_allclose(gg, tg, rtol=1e-12, atol=1e-12)


SDPA_CAUSAL_ERRORS = {
    "3-d inputs": lambda M: M.nn.functional.scaled_dot_product_attention(
        *[t[0] for t in _qkv(M)], attn_mask=M.zeros(3, 5, dtype=M.float64), is_causal=True),
    "dropout": lambda M: M.nn.functional.scaled_dot_product_attention(
        *_qkv(M), attn_mask=M.zeros(3, 5, dtype=M.float64), dropout_p=0.5, is_causal=True),
    "mask needing a gradient": lambda M: M.nn.functional.scaled_dot_product_attention(
        *_qkv(M), attn_mask=M.zeros(3, 5, dtype=M.float64, requires_grad=True), is_causal=True),
}


@pytest.mark.parametrize("case", list(SDPA_CAUSAL_ERRORS))
def test_sdpa_mask_and_causal_on_the_math_path(case):
    check_error(SDPA_CAUSAL_ERRORS[case])


DROPOUT_INTEGER = {
    "dropout long": lambda M: M.nn.functional.dropout(M.ones(4, dtype=M.long), 0.5),
    "dropout bool": lambda M: M.nn.functional.dropout(M.ones(4, dtype=M.bool), 0.5),
    "dropout2d uint8": lambda M: M.nn.functional.dropout2d(M.ones(1, 2, 2, 2, dtype=M.uint8), 0.5),
    "alpha_dropout int32": lambda M: M.nn.functional.alpha_dropout(M.ones(4, dtype=M.int32), 0.5, True),
    "alpha_dropout bool": lambda M: M.nn.functional.alpha_dropout(M.ones(4, dtype=M.bool), 0.5, True),
}


@pytest.mark.parametrize("case", list(DROPOUT_INTEGER))
def test_dropout_of_an_integer_tensor(case):
    # PyTorch draws the noise, then fails to scale it in place: the stream has moved on
    def run(M):
        M.manual_seed(0)
        try:
            DROPOUT_INTEGER[case](M)
        except RuntimeError as e:
            return str(e), M.rand(3)
        return None, M.rand(3)

    (gm, gr), (tm, tr) = run_both(run)
    assert gm == tm
    assert gr.tolist() == tr.tolist()


@pytest.mark.parametrize("dtype", ["long", "bool"])
def test_dropout_of_an_integer_tensor_when_nothing_is_drawn(dtype):
    check(lambda M: [M.nn.functional.dropout(M.ones(4, dtype=getattr(M, dtype)), 0.5,
                                             training=False),
                     M.nn.functional.dropout(M.ones(4, dtype=getattr(M, dtype)), 0.0),
                     M.nn.functional.dropout(M.ones(4, dtype=getattr(M, dtype)), 1.0)])


INTEGER_LOSSES = {
    "mse long": lambda M: M.nn.functional.mse_loss(M.ones(3, dtype=M.long), M.ones(3, dtype=M.long)),
    "mse bool": lambda M: M.nn.functional.mse_loss(M.ones(3, dtype=M.bool), M.ones(3, dtype=M.bool)),
    "mse int32 / long": lambda M: M.nn.functional.mse_loss(M.ones(3, dtype=M.int32),
                                                          M.ones(3, dtype=M.long)),
    "smooth_l1 int32": lambda M: M.nn.functional.smooth_l1_loss(M.ones(3, dtype=M.int32),
                                                               M.ones(3, dtype=M.int32)),
    "huber long": lambda M: M.nn.functional.huber_loss(M.ones(3, dtype=M.long), M.ones(3, dtype=M.long)),
    "soft_margin long": lambda M: M.nn.functional.soft_margin_loss(M.ones(3, dtype=M.long),
                                                                  M.ones(3, dtype=M.long)),
    "soft_margin long input, float target": lambda M: M.nn.functional.soft_margin_loss(
        M.ones(3, dtype=M.long), M.ones(3)),
}


@pytest.mark.parametrize("case", list(INTEGER_LOSSES))
def test_pointwise_losses_of_integer_tensors(case):
    check_error(INTEGER_LOSSES[case])


MIXED_LOSSES = {
    "mse long input, float target": lambda M, x: M.nn.functional.mse_loss(M.ones(4, dtype=M.long), x),
    "bce logits float64 input, float32 target": lambda M, x: (
        M.nn.functional.binary_cross_entropy_with_logits(x.double(), M.tensor([1.0, 0.0, 1.0, 0.5]))),
    "bce logits float64 weight": lambda M, x: M.nn.functional.binary_cross_entropy_with_logits(
        x, M.tensor([1.0, 0.0, 1.0, 0.5]), weight=M.full((4,), 0.5, dtype=M.float64)),
}


@pytest.mark.parametrize("case", list(MIXED_LOSSES))
def test_loss_result_dtypes(case):
    def run(M):
        x = M.tensor([0.5, -1.5, 2.0, 0.25], requires_grad=True)
        out = MIXED_LOSSES[case](M, x)
        out.sum().backward()
        return out, x.grad

    check(run)


def test_smooth_l1_beta_0_of_integers_is_l1():
    # the composed l1_loss: mean() of a Long tensor
    check_error(lambda M: M.nn.functional.smooth_l1_loss(M.ones(3, dtype=M.long), M.zeros(3, dtype=M.long),
                                                   beta=0.0))


# nn.RNN / LSTM / GRU read their weights as PyTorch's RNNBase: the flat weights refreshed only
# when _weights_have_changed() (which reads each weight again up to the first changed one), the
# forward using the flat weights; a random parametrization (AWD-LSTM's DropConnect on
# weight_hh_l0) then draws as many masks as in torch, so a seed gives torch's stream
def _weight_dropped_lstm(M, cls="LSTM"):
    class WeightDrop(M.nn.Module):
        def forward(self, w):
            return M.nn.functional.dropout(w, p=0.3, training=self.training)

    M.manual_seed(0)
    rnn = getattr(M.nn, cls)(3, 4, 2, dtype=M.float64)
    M.nn.utils.parametrize.register_parametrization(rnn, "weight_hh_l0", WeightDrop())
    return rnn


@pytest.mark.parametrize("cls", ["LSTM", "GRU", "RNN"])
def test_random_parametrization_of_an_rnn_draws_as_torch(cls):
    def run(M):
        rnn = _weight_dropped_lstm(M, cls)
        x = M.linspace(-1, 1, 18, dtype=M.float64).reshape(3, 2, 3)
        out1 = rnn(x)[0]
        out2 = rnn(x)[0]
        rnn.eval()
        out3 = rnn(x)[0]
        return out1, out2, out3, M.rand(2)

    check(run)


def test_rnn_pickles_and_copies_with_its_flat_weights():
    import copy
    import io

    def run(M):
        M.manual_seed(0)
        rnn = M.nn.LSTM(2, 3)
        x = M.ones(4, 1, 2)
        twin = copy.deepcopy(rnn)
        buf = io.BytesIO()
        M.save(rnn, buf)
        buf.seek(0)
        loaded = M.load(buf, weights_only=False)
        with M.no_grad():
            twin.weight_ih_l0.add_(1.0)
        return rnn(x)[0].detach(), twin(x)[0].detach(), loaded(x)[0].detach()

    check(run)


def test_rnn_functional_call_uses_the_given_weights():
    def run(M):
        M.manual_seed(0)
        rnn = M.nn.GRU(2, 3)
        params = {k: v * 2 for k, v in rnn.named_parameters()}
        x = M.ones(4, 1, 2)
        swapped = M.func.functional_call(rnn, params, (x,))[0]
        return swapped.detach(), rnn(x)[0].detach()

    check(run)
