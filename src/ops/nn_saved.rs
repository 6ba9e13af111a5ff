//! What the nodes of `nn.rs` show as PyTorch's `_saved_<name>` attributes (gap 73).

use crate::autograd::saved::Value;
use crate::autograd::SavedTensor;
use crate::error::Result;
use crate::ops::nn::ConvArgs;
use crate::tensor::Tensor;

/// ConvolutionBackward0's values: the arguments one per spatial dim, the bias's sizes.
pub(super) fn conv_values(
    x: &Tensor,
    bias: Option<&Tensor>,
    args: &ConvArgs,
) -> Vec<(&'static str, Value)> {
    let nd = x.dim().saturating_sub(2);
    let per_dim = |v: &[i64]| {
        Value::Ints(if v.len() == 1 {
            vec![v[0]; nd]
        } else {
            v.to_vec()
        })
    };
    vec![
        (
            "bias_sym_sizes_opt",
            Value::Ints(vec![bias.map_or(0, |b| b.shape()[0] as i64)]),
        ),
        ("dilation", per_dim(&args.dilation)),
        ("groups", Value::Int(args.groups)),
        ("output_padding", Value::Ints(vec![0; nd])),
        ("padding", per_dim(&args.padding)),
        ("stride", per_dim(&args.stride)),
        ("transposed", Value::Bool(false)),
    ]
}

/// NllLossBackward0's saved tensors (self, target, total_weight (0 for reduction none),
/// weight), their names and its values.
#[allow(clippy::type_complexity)]
pub(super) fn nll_saved(
    logp: &Tensor,
    target: &Tensor,
    weight: Option<&Tensor>,
    total_w: f64,
    ignore_index: i64,
    reduction: u8,
) -> Result<(
    Vec<SavedTensor>,
    &'static [&'static str],
    Vec<(&'static str, Value)>,
)> {
    let total_weight = Tensor::full_on(
        &[],
        crate::dtype::Scalar::Float(if reduction == 0 { 0.0 } else { total_w }),
        logp.dtype(),
        logp.device(),
    );
    let mut saved = vec![
        SavedTensor::input(logp)?,
        SavedTensor::input(target)?,
        SavedTensor::input(&total_weight)?,
    ];
    let mut values = vec![
        ("ignore_index", Value::Int(ignore_index)),
        ("reduction", Value::Int(reduction as i64)),
    ];
    let names: &'static [&'static str] = match weight {
        Some(w) => {
            saved.push(SavedTensor::input(w)?);
            &["self", "target", "total_weight", "weight"]
        }
        None => {
            values.push(("weight", Value::None));
            &["self", "target", "total_weight"]
        }
    };
    Ok((saved, names, values))
}
