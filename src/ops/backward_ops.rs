//! PyTorch's `*_backward` ops as nodes of their own (threshold / leaky_relu / hardtanh / elu
//! backward), so a first derivative taken with `create_graph` is differentiable again.

use crate::error::Result;
use crate::tensor::Tensor;

/// A shared backward formula `f(g, x)`, linear in `g`.
pub type GradFn = std::sync::Arc<dyn Fn(&Tensor, &Tensor) -> Result<Tensor> + Send + Sync>;
/// The derivative of such a formula in `x`, given the incoming `gg`, then `g` and `x`.
pub type GradXFn =
    std::sync::Arc<dyn Fn(&Tensor, &Tensor, &Tensor) -> Result<Tensor> + Send + Sync>;

/// PyTorch's `*_backward` ops as nodes of their own (threshold/leaky_relu/hardtanh/elu
/// backward): `f(g, x)` is linear in `g`, so its derivative in `g` is the same formula again;
/// its derivative in `x` is `fx` (zero when `None`: a piecewise-constant slope). Recording it
/// makes a first derivative taken with `create_graph` require grad, as PyTorch's does.
pub fn backward_node(
    name: &'static str,
    g: &Tensor,
    x: &Tensor,
    f: GradFn,
    fx: Option<GradXFn>,
) -> Result<Tensor> {
    backward_node_with(name, g, x, f, fx, false)
}

/// `backward_node` whose tangent is derivatives.yaml's explicit `result:` formula
/// `f(g_t, x) + fx(x_t, g, x)`, an undefined tangent standing as zeros (PyTorch's
/// `tanh_backward` / `sigmoid_backward`: the tangent is an AddBackward0 of the two terms),
/// instead of `auto_element_wise`'s sum of the terms that have a tangent.
pub fn backward_node_summed_jvp(
    name: &'static str,
    g: &Tensor,
    x: &Tensor,
    f: GradFn,
    fx: GradXFn,
) -> Result<Tensor> {
    backward_node_with(name, g, x, f, Some(fx), true)
}

fn backward_node_with(
    name: &'static str,
    g: &Tensor,
    x: &Tensor,
    f: GradFn,
    fx: Option<GradXFn>,
    summed_jvp: bool,
) -> Result<Tensor> {
    use crate::autograd::{needs_grad, record_formula_jvp, Jvp, SavedTensor};
    let out = {
        let _no_grad = crate::autograd::GradModeGuard::new(false);
        f(g, x)?
    };
    if !needs_grad(&[g, x]) {
        return Ok(out);
    }
    let mut saved = vec![SavedTensor::input(x)?];
    if fx.is_some() {
        saved.push(SavedTensor::input(g)?);
    }
    let jvp = match (&fx, summed_jvp) {
        (Some(fx), true) => {
            let (f, fx) = (f.clone(), fx.clone());
            Jvp::of(move |t, s| {
                let zeros = crate::ops::creation::zeros_like;
                let tg = t[0].clone().unwrap_or_else(|| zeros(&s[1]));
                let tx = t[1].clone().unwrap_or_else(|| zeros(&s[0]));
                let by_g = backward_node_with(name, &tg, &s[0], f.clone(), Some(fx.clone()), true)?;
                Ok(vec![Some(crate::ops::arithmetic::add(
                    &by_g,
                    &fx(&tx, &s[1], &s[0])?,
                )?)])
            })
        }
        _ => Jvp::Elementwise,
    };
    Ok(record_formula_jvp(
        out,
        &[g, x],
        name,
        saved,
        move |gg, s| {
            let dx = match &fx {
                Some(fx) => fx(gg, &s[1], &s[0])?,
                None => crate::ops::creation::zeros_like(&s[0]),
            };
            let dg = backward_node_with(name, gg, &s[0], f.clone(), fx.clone(), summed_jvp)?;
            Ok(vec![Some(dg), Some(dx)])
        },
        jvp,
    ))
}
