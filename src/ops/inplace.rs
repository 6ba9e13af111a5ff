//! In-place variants (`x.relu_()`, `x.mul_(2)`, `x.clamp_(0, 1)`): the op runs out of place on
//! an alias that carries `x`'s history, the result is written into `x`'s memory (bumping its
//! version), and `x` takes the new node as its history — PyTorch's rules for in-place autograd.

use crate::autograd::is_grad_enabled;
use crate::dtype::pretty_kernel_name;
use crate::error::{Error, Result};
use crate::ops::binary::{check_inplace_leaf, write_into};
use crate::tensor::Tensor;

/// Apply `op` to `dst` in place; `others_need_grad`: whether another operand requires grad.
pub fn apply_(
    dst: &Tensor,
    others_need_grad: bool,
    op: impl FnOnce(&Tensor) -> Result<Tensor>,
) -> Result<()> {
    check_inplace_leaf(dst)?;
    let tracked = is_grad_enabled() && (dst.requires_grad() || others_need_grad);
    // A recorded node may save its input: give it the values before the write (PyTorch saves
    // a clone of the original self), not memory that is about to change.
    let alias = if tracked {
        crate::ops::creation::contiguous_clone(dst)
    } else {
        dst.detach()
    };
    if tracked {
        alias.set_grad_fn(dst.grad_fn(), dst.output_nr());
        if alias.grad_fn().is_none() && dst.requires_grad() {
            alias.set_requires_grad(true)?;
        }
    }
    let result = op(&alias)?;
    let (rd, dd) = (result.dtype(), dst.dtype());
    if rd != dd && !(rd.is_floating_point() && dd.is_floating_point()) {
        return Err(Error::Runtime(format!(
            "result type {} can't be cast to the desired output type {}",
            pretty_kernel_name(rd),
            pretty_kernel_name(dd)
        )));
    }
    let shape = dst.shape();
    if result.shape() != shape {
        return Err(Error::Runtime(format!(
            "output with shape {} doesn't match the broadcast shape {}",
            crate::shape::list_repr(&shape),
            crate::shape::list_repr(&result.shape())
        )));
    }
    write_into(dst, &result)?;
    if result.requires_grad() && is_grad_enabled() {
        dst.set_grad_fn(result.grad_fn(), result.output_nr());
    }
    Ok(())
}
