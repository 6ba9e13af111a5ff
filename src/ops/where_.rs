//! `where(cond, a, b)`: elementwise selection with broadcasting and its backward.

use crate::autograd::formula::{Saved, Values};
use crate::autograd::{attach_named_jvp, SavedTensor};
use crate::dtype::{result_type, DType};
use crate::error::{Error, Result};
use crate::kernels::{select_host as select_host_values, Src};
use crate::ops::binary_kernels::materialize;
use crate::ops::creation::contiguous_clone;
use crate::ops::Operand;
use crate::tensor::shape::broadcast_shapes;
use crate::tensor::{Device, Element, Tensor};

/// `where(cond, a, b)`: `a` where `cond` is true, else `b`, broadcast together.
pub fn where_(cond: &Tensor, a: impl Into<Operand>, b: impl Into<Operand>) -> Result<Tensor> {
    let (a, b) = (a.into(), b.into());
    if cond.dtype() != DType::Bool {
        return Err(Error::Runtime(format!(
            "where expected condition to be a boolean tensor, but got a tensor with dtype {}",
            crate::dtype::pretty_kernel_name(cond.dtype())
        )));
    }
    let dtype = result_type(&[a.participant(), b.participant()]);
    let (ta, tb) = (materialize(&a, dtype), materialize(&b, dtype));
    let shape = broadcast_shapes(&broadcast_shapes(&cond.shape(), &ta.shape())?, &tb.shape())?;
    let out = crate::kernels::select(cond, &ta, &tb, &shape, |cond, ta, tb, shape| {
        select_host(cond, ta, tb, shape, dtype)
    })?;
    where_record(out, cond, a, b, dtype)
}

/// `where`'s CPU kernel over operands of `dtype`.
fn select_host(
    cond: &Tensor,
    ta: &Tensor,
    tb: &Tensor,
    shape: &[usize],
    dtype: DType,
) -> Result<Tensor> {
    let sizes = crate::tensor::shape::sizes_i64(shape);
    let expand = |t: &Tensor| -> Result<Tensor> {
        let _g = crate::autograd::GradModeGuard::new(false);
        Ok(contiguous_clone(&crate::ops::movement::expand(t, &sizes)?))
    };
    let device = Device::of(&[cond, ta, tb])?;
    // Operands that already are the output's contiguous shape, or single values, are read in
    // place (relu's backward, `where(x > 0, g, 0)`, takes this path); others are expanded.
    let n = crate::tensor::shape::numel(shape);
    let in_place = |t: &Tensor| {
        let d = t.read();
        d.layout.numel() == 1 || (d.layout.shape.as_slice() == shape && d.layout.is_contiguous())
    };
    let c = if in_place(cond) && cond.numel() == n {
        cond.clone()
    } else {
        expand(cond)?
    };
    let (xa, xb) = (
        if in_place(ta) {
            ta.clone()
        } else {
            expand(ta)?
        },
        if in_place(tb) {
            tb.clone()
        } else {
            expand(tb)?
        },
    );
    Ok(crate::dispatch!(dtype, T => {
        let (dc, da, db) = (c.read(), xa.read(), xb.read());
        let mask = &dc.storage.slice::<bool>()[dc.layout.offset..dc.layout.offset + n];
        let v = select_host_values(mask, select_src::<T>(&da, n), select_src::<T>(&db, n));
        Tensor::from_vec_on(v, shape, device)
    }))
}

fn where_record(
    out: Tensor,
    cond: &Tensor,
    a: Operand,
    b: Operand,
    dtype: DType,
) -> Result<Tensor> {
    if (crate::autograd::is_grad_enabled() && (a.requires_grad() || b.requires_grad()))
        || crate::autograd::forward::operand_tangent(&[&a, &b])
    {
        let (oa, ob) = (a.edge_tensor(dtype), b.edge_tensor(dtype));
        let saved: Saved = [SavedTensor::input(cond)?].into_iter().collect();
        let names: &'static [&'static str] = &["condition"];
        // (where(cond, g, 0), where(cond, 0, g)).
        attach_named_jvp(
            &[&out],
            &[&oa, &ob],
            "WhereBackward0",
            saved,
            names,
            Values::new(),
            |g, s| {
                let (g, cond) = (g[0].as_ref().expect("engine passes a gradient"), &s[0]);
                Ok(vec![Some(where_(cond, g, 0)?), Some(where_(cond, 0, g)?)])
            },
            crate::autograd::Jvp::Elementwise,
        );
    }
    Ok(out)
}

/// A `where` operand of `n` contiguous elements, or of one.
fn select_src<T: Element>(d: &crate::tensor::Data, n: usize) -> Src<'_, T> {
    let (s, o) = (d.storage.slice::<T>(), d.layout.offset);
    if d.layout.numel() == n {
        Src::Full(&s[o..o + n])
    } else {
        Src::One(s[o])
    }
}
