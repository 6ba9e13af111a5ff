//! `resize_` / `resize_as_`: PyTorch's `resize_` (ATen's Resize.cpp, autograd's
//! VariableTypeManual.cpp): a tensor that requires grad cannot be resized (in any grad mode);
//! new sizes give the tensor contiguous strides from its storage offset, and the version
//! counter is bumped, unless the sizes are unchanged; the storage grows in place when it is
//! too small (Note [Storage growth]: every alias sees it; old elements kept, new ones zeroed
//! where PyTorch leaves them uninitialized) and is never shrunk. Memory owned elsewhere (a
//! numpy array's) cannot grow; neither can a GPU storage in gradrs (a clear error).

use crate::error::{Error, Result};
use crate::tensor::layout::{like_strides, suggest_memory_format, MemoryFormat};
use crate::tensor::shape::{contiguous_strides, Shape};
use crate::tensor::{Layout, Tensor};

/// `x.resize_(*sizes, memory_format=fmt)` (see the module's doc); given a format, the
/// resized tensor then takes its strides (ATen's `empty_tensor_restride`: `contiguous_format`,
/// `channels_last` for rank 4, `channels_last_3d` for rank 5; `preserve_format` is refused,
/// after the resize, as ATen's `_resize_` does).
pub fn resize_(x: &Tensor, sizes: &[i64], fmt: Option<MemoryFormat>) -> Result<()> {
    resize_contiguous(x, sizes)?;
    let Some(fmt) = fmt else {
        return Ok(());
    };
    if fmt == MemoryFormat::Preserve {
        return Err(Error::Runtime("Unsupported memory formatPreserve".into()));
    }
    let layout = x.read().layout.clone();
    let strides = like_strides(&layout, fmt)?.unwrap_or_else(|| contiguous_strides(&layout.shape));
    if strides != layout.strides {
        x.set_layout(Layout { strides, ..layout });
    }
    Ok(())
}

/// `x.resize_as_(template, memory_format=fmt)`: `resize_` to the template's sizes;
/// `preserve_format` is the format the template's strides suggest (c10's
/// `suggest_memory_format`).
pub fn resize_as_(x: &Tensor, template: &Tensor, fmt: Option<MemoryFormat>) -> Result<()> {
    let (shape, fmt) = {
        let t = template.read();
        let fmt = match fmt {
            Some(MemoryFormat::Preserve) => Some(suggest_memory_format(&t.layout)),
            f => f,
        };
        (crate::tensor::shape::sizes_i64(&t.layout.shape), fmt)
    };
    resize_(x, &shape, fmt)
}

/// The new sizes with contiguous strides, the storage grown when needed.
fn resize_contiguous(x: &Tensor, sizes: &[i64]) -> Result<()> {
    if x.requires_grad() {
        return Err(Error::Runtime(
            "cannot resize variables that require grad".into(),
        ));
    }
    x.check_inplace_version()?;
    if sizes.iter().any(|&s| s < 0) {
        return Err(Error::Runtime(
            "numel: integer multiplication overflow".into(),
        ));
    }
    let shape: Shape = sizes.iter().map(|&s| s as usize).collect();
    let numel = crate::tensor::shape::checked_numel(&shape)
        .filter(|&n| n <= i64::MAX as usize)
        .ok_or_else(|| Error::Runtime("numel: integer multiplication overflow".into()))?;
    let (current, storage) = {
        let d = x.read();
        (d.layout.clone(), d.storage.clone())
    };
    if current.shape == shape {
        return Ok(());
    }
    if numel > 0 {
        let needed = current
            .offset
            .checked_add(numel)
            .ok_or_else(|| Error::Runtime("numel: integer multiplication overflow".into()))?;
        storage.grow(needed)?;
    }
    let strides = contiguous_strides(&shape);
    x.set_layout(Layout {
        shape,
        strides,
        offset: current.offset,
    });
    x.bump_version();
    if crate::ops::forward::tangent(x).is_some() {
        return Err(Error::Runtime(
            "cannot resize variables that has a forward grad".into(),
        ));
    }
    Ok(())
}
