//! Bindings of the neural-network kernels (`ops::nn`) that `gradrs.nn.functional` builds on.

use super::tensor::PyTensor;
use crate::ops::nn::{self, Window};
use crate::python::convert::Int;
use pyo3::prelude::*;

type R = PyResult<Py<PyAny>>;

fn window(
    kernel: (usize, usize),
    stride: (usize, usize),
    padding: (usize, usize),
    dilation: (usize, usize),
) -> Window {
    Window {
        kernel: [kernel.0, kernel.1],
        stride: [stride.0, stride.1],
        padding: [padding.0, padding.1],
        dilation: [dilation.0, dilation.1],
    }
}

#[pymethods]
impl PyTensor {
    /// softmax(dim, dtype=None) -> Tensor
    ///
    /// Applies the softmax function along the dimension `dim`: `exp(x_i) / sum_j exp(x_j)`, so each
    /// slice along `dim` is in `[0, 1]` and sums to 1. See `gradrs.nn.functional.softmax`.
    ///
    /// Args:
    ///     dim (int): the dimension along which softmax is computed.
    ///     dtype (gradrs.dtype, optional): the data type of the result; `self` is cast to it first
    ///         (avoids overflow in `float16`).
    ///
    /// Example:
    ///     >>> gradrs.tensor([[1.0, 2.0, 3.0], [1.0, 1.0, 1.0]]).softmax(dim=1)
    ///     tensor([[0.0900, 0.2447, 0.6652],
    ///             [0.3333, 0.3333, 0.3333]])
    #[pyo3(signature = (dim, dtype=None))]
    fn softmax(&self, py: Python<'_>, dim: Int, dtype: Option<&Bound<'_, PyAny>>) -> R {
        let dim = dim.get("softmax", "dim", 1)?;
        let x = self.cast_to(dtype)?;
        super::boundary::tensor(py, || nn::softmax(&x, dim, false))
    }
    /// log_softmax(dim, dtype=None) -> Tensor
    ///
    /// Applies the softmax function followed by a logarithm along the dimension `dim`, computed
    /// together for numerical stability: `x_i - log(sum_j exp(x_j))`. See
    /// `gradrs.nn.functional.log_softmax`.
    ///
    /// Args:
    ///     dim (int): the dimension along which log_softmax is computed.
    ///     dtype (gradrs.dtype, optional): the data type of the result; `self` is cast to it first.
    ///
    /// Example:
    ///     >>> gradrs.tensor([[1.0, 2.0, 3.0], [1.0, 1.0, 1.0]]).log_softmax(dim=1)
    ///     tensor([[-2.4076, -1.4076, -0.4076],
    ///             [-1.0986, -1.0986, -1.0986]])
    #[pyo3(signature = (dim, dtype=None))]
    fn log_softmax(&self, py: Python<'_>, dim: Int, dtype: Option<&Bound<'_, PyAny>>) -> R {
        let dim = dim.get("log_softmax", "dim", 1)?;
        let x = self.cast_to(dtype)?;
        super::boundary::tensor(py, || nn::softmax(&x, dim, true))
    }
}

/// `nll_loss(input, target, weight, ignore_index, reduction)`; reduction 0 none, 1 mean, 2 sum.
/// `method` is the PyTorch kernel whose device check a mixed-device call fails (the 2-D one,
/// or `_nll_loss2d_forward` for inputs past 2-D).
#[pyfunction]
#[pyo3(signature = (input, target, weight, ignore_index, reduction, method="nll_loss_forward"))]
pub fn nll_loss(
    py: Python<'_>,
    input: PyRef<'_, PyTensor>,
    target: PyRef<'_, PyTensor>,
    weight: Option<PyRef<'_, PyTensor>>,
    ignore_index: Int,
    reduction: u8,
    method: &str,
) -> R {
    let ignore_index = ignore_index.get("nll_loss", "ignore_index", 4)?;
    let w = weight.map(|w| w.t.clone());
    let args = [
        ("self", Some(&input.t)),
        ("target", Some(&target.t)),
        ("weight", w.as_ref()),
    ];
    crate::tensor::device::check_args(method, &args)?;
    let (x, t) = (input.t.clone(), target.t.clone());
    super::boundary::tensor(py, || {
        nn::nll_loss(&x, &t, w.as_ref(), ignore_index, reduction)
    })
}

/// `native_batch_norm(input, weight, bias, running_mean, running_var, training, momentum,
/// eps)` -> `(output, save_mean, save_invstd)`: one NativeBatchNormBackward0 (`ops::norm`).
/// Training writes the running statistics in place, so the GIL is kept (Note [Storage
/// mutation]).
#[allow(clippy::too_many_arguments)]
#[pyfunction]
pub fn native_batch_norm(
    py: Python<'_>,
    input: PyRef<'_, PyTensor>,
    weight: Option<PyRef<'_, PyTensor>>,
    bias: Option<PyRef<'_, PyTensor>>,
    running_mean: Option<PyRef<'_, PyTensor>>,
    running_var: Option<PyRef<'_, PyTensor>>,
    training: bool,
    momentum: f64,
    eps: f64,
) -> PyResult<(Py<PyAny>, Py<PyAny>, Py<PyAny>)> {
    let t = |p: &Option<PyRef<'_, PyTensor>>| p.as_ref().map(|p| p.t.clone());
    let (w, b, rm, rv) = (t(&weight), t(&bias), t(&running_mean), t(&running_var));
    let args = [
        ("input", Some(&input.t)),
        ("weight", w.as_ref()),
        ("bias", b.as_ref()),
        ("running_mean", rm.as_ref()),
        ("running_var", rv.as_ref()),
    ];
    crate::tensor::device::check_args("native_batch_norm", &args)?;
    let x = input.t.clone();
    let (out, mean, invstd) = super::boundary::catch(|| {
        crate::ops::norm::native_batch_norm(
            &x,
            w.as_ref(),
            b.as_ref(),
            rm.as_ref(),
            rv.as_ref(),
            training,
            momentum,
            eps,
        )
    })?;
    let wrap = |t| super::tensor::wrap(py, t);
    Ok((wrap(out)?, wrap(mean)?, wrap(invstd)?))
}

/// `native_layer_norm(input, normalized_shape, weight, bias, eps)` -> `(output, mean, rstd)`:
/// one NativeLayerNormBackward0 (`ops::norm`).
#[pyfunction]
pub fn native_layer_norm(
    py: Python<'_>,
    input: PyRef<'_, PyTensor>,
    normalized_shape: Vec<usize>,
    weight: Option<PyRef<'_, PyTensor>>,
    bias: Option<PyRef<'_, PyTensor>>,
    eps: f64,
) -> PyResult<(Py<PyAny>, Py<PyAny>, Py<PyAny>)> {
    let (w, b) = (weight.map(|p| p.t.clone()), bias.map(|p| p.t.clone()));
    let args = [
        ("input", Some(&input.t)),
        ("weight", w.as_ref()),
        ("bias", b.as_ref()),
    ];
    crate::tensor::device::check_args("native_layer_norm", &args)?;
    let x = input.t.clone();
    let (out, mean, rstd) = super::boundary::run(py, || {
        crate::ops::norm::native_layer_norm(&x, &normalized_shape, w.as_ref(), b.as_ref(), eps)
    })?;
    let wrap = |t| super::tensor::wrap(py, t);
    Ok((wrap(out)?, wrap(mean)?, wrap(rstd)?))
}

/// im2col of `[N, C, H, W]` into `[N, C*kh*kw, L]`.
#[pyfunction]
pub fn im2col(
    py: Python<'_>,
    input: PyRef<'_, PyTensor>,
    kernel: (usize, usize),
    stride: (usize, usize),
    padding: (usize, usize),
    dilation: (usize, usize),
    pad_value: f64,
) -> R {
    let x = input.t.clone();
    super::boundary::tensor(py, || {
        nn::unfold(&x, window(kernel, stride, padding, dilation), pad_value)
    })
}

/// col2im: `[N, C*kh*kw, L]` summed back into `[N, C, H, W]`.
#[allow(clippy::too_many_arguments)]
#[pyfunction]
pub fn col2im(
    py: Python<'_>,
    input: PyRef<'_, PyTensor>,
    output_size: (usize, usize),
    channels: usize,
    kernel: (usize, usize),
    stride: (usize, usize),
    padding: (usize, usize),
    dilation: (usize, usize),
) -> R {
    let x = input.t.clone();
    super::boundary::tensor(py, || {
        nn::fold(
            &x,
            [output_size.0, output_size.1],
            channels,
            window(kernel, stride, padding, dilation),
        )
    })
}

/// Max pooling of a `[*, H, W]` input with output size `output_size`: (values, int64
/// indices), one MaxPool2DWithIndicesBackward0; None where the host kernel does not apply
/// (GPU tensors, half precision), for `nn.functional` to compose it.
#[pyfunction]
pub fn _max_pool2d(
    py: Python<'_>,
    input: PyRef<'_, PyTensor>,
    kernel: (usize, usize),
    stride: (usize, usize),
    padding: (usize, usize),
    dilation: (usize, usize),
    output_size: (usize, usize),
) -> PyResult<Option<(Py<PyAny>, Py<PyAny>)>> {
    let x = input.t.clone();
    let win = window(kernel, stride, padding, dilation);
    let out = [output_size.0, output_size.1];
    let r = super::boundary::run(py, || nn::max_pool2d_with_indices(&x, win, out))?;
    r.map(|(v, i)| Ok((super::tensor::wrap(py, v)?, super::tensor::wrap(py, i)?)))
        .transpose()
}

/// Convolution of a batched `[N, C, H, W]` (or `[N, C, L]`) input: one ConvolutionBackward0.
#[allow(clippy::too_many_arguments)]
#[pyfunction]
pub fn convolution(
    py: Python<'_>,
    input: PyRef<'_, PyTensor>,
    weight: PyRef<'_, PyTensor>,
    bias: Option<PyRef<'_, PyTensor>>,
    stride: Vec<i64>,
    padding: Vec<i64>,
    dilation: Vec<i64>,
    groups: Int,
) -> R {
    let groups = groups.get("convolution", "groups", 7)?;
    let b = bias.map(|b| b.t.clone());
    let args = nn::ConvArgs {
        stride,
        padding,
        dilation,
        groups,
    };
    let (x, w) = (input.t.clone(), weight.t.clone());
    super::boundary::tensor(py, || nn::convolution(&x, &w, b.as_ref(), &args))
}

/// `_fused_lstm_cell(input_gates, hidden_gates, cx)` -> `(hy, cy)`: one LSTM step's pointwise
/// part, one ThnnFusedLstmCellBackward0 (`ops::rnn`; `nn.LSTM`'s steps).
#[pyfunction]
pub fn _fused_lstm_cell(
    py: Python<'_>,
    input_gates: PyRef<'_, PyTensor>,
    hidden_gates: PyRef<'_, PyTensor>,
    cx: PyRef<'_, PyTensor>,
) -> PyResult<(Py<PyAny>, Py<PyAny>)> {
    let (ig, hg, c) = (input_gates.t.clone(), hidden_gates.t.clone(), cx.t.clone());
    let args = [
        ("input_gates", Some(&ig)),
        ("hidden_gates", Some(&hg)),
        ("cx", Some(&c)),
    ];
    crate::tensor::device::check_args("_fused_lstm_cell", &args)?;
    let (hy, cy) = super::boundary::run(py, || crate::ops::rnn::fused_lstm_cell(&ig, &hg, &c))?;
    let wrap = |t| super::tensor::wrap(py, t);
    Ok((wrap(hy)?, wrap(cy)?))
}

/// Three Python objects: `_lstm_layer`'s `(output, hy, cy)`.
type Triple = (Py<PyAny>, Py<PyAny>, Py<PyAny>);

/// `_lstm_layer(input, w_ih, w_hh, b_ih, b_hh, hx, cx, reverse, bidirectional, num_layers,
/// train)` -> `(output, hy, cy)` or None: one LSTM layer and direction as one op and one
/// MkldnnRnnLayerBackward0 (`ops::rnn::lstm_layer`; `nn.LSTM`'s float32 host layers); None
/// where it does not apply, and the caller composes the steps.
#[pyfunction]
#[allow(clippy::too_many_arguments)]
pub fn _lstm_layer(
    py: Python<'_>,
    input: PyRef<'_, PyTensor>,
    w_ih: PyRef<'_, PyTensor>,
    w_hh: PyRef<'_, PyTensor>,
    b_ih: Option<PyRef<'_, PyTensor>>,
    b_hh: Option<PyRef<'_, PyTensor>>,
    hx: PyRef<'_, PyTensor>,
    cx: PyRef<'_, PyTensor>,
    reverse: bool,
    bidirectional: bool,
    num_layers: i64,
    train: bool,
) -> PyResult<Option<Triple>> {
    let (x, wi, wh) = (input.t.clone(), w_ih.t.clone(), w_hh.t.clone());
    let (bi, bh) = (b_ih.map(|b| b.t.clone()), b_hh.map(|b| b.t.clone()));
    let (h, c) = (hx.t.clone(), cx.t.clone());
    let args = crate::ops::rnn::LayerArgs {
        reverse,
        bidirectional,
        num_layers,
        train,
    };
    let out = super::boundary::run(py, || {
        let inputs = crate::ops::rnn::LayerInputs {
            input: &x,
            w_ih: &wi,
            w_hh: &wh,
            b_ih: bi.as_ref(),
            b_hh: bh.as_ref(),
            hx: &h,
            cx: &c,
        };
        crate::ops::rnn::lstm_layer(&inputs, args)
    })?;
    let Some((o, hy, cy)) = out else {
        return Ok(None);
    };
    let wrap = |t| super::tensor::wrap(py, t);
    Ok(Some((wrap(o)?, wrap(hy)?, wrap(cy)?)))
}

pub fn register(m: &Bound<'_, PyModule>) -> PyResult<()> {
    m.add_function(wrap_pyfunction!(_fused_lstm_cell, m)?)?;
    m.add_function(wrap_pyfunction!(_lstm_layer, m)?)?;
    m.add_function(wrap_pyfunction!(nll_loss, m)?)?;
    m.add_function(wrap_pyfunction!(native_batch_norm, m)?)?;
    m.add_function(wrap_pyfunction!(native_layer_norm, m)?)?;
    m.add_function(wrap_pyfunction!(im2col, m)?)?;
    m.add_function(wrap_pyfunction!(col2im, m)?)?;
    m.add_function(wrap_pyfunction!(convolution, m)?)?;
    m.add_function(wrap_pyfunction!(_max_pool2d, m)?)?;
    Ok(())
}
