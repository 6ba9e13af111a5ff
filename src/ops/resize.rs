//! `resize_` / `resize_as_`: PyTorch's `resize_` (ATen's Resize.cpp, autograd's
//! VariableTypeManual.cpp): a tensor that requires grad cannot be resized (in any grad mode);
//! new sizes give the tensor contiguous strides from its storage offset, and the version
//! counter is bumped, unless the sizes are unchanged; the storage grows in place when it is
//! too small (Note [Storage growth]: every alias sees it; old elements kept, new ones zeroed
//! where PyTorch leaves them uninitialized) and is never shrunk. Memory owned elsewhere (a
//! numpy array's) cannot grow; neither can a GPU storage in gradrs (a clear error).

use crate::error::{Error, Result};
use crate::tensor::shape::{contiguous_strides, Shape};
use crate::tensor::{Layout, Tensor};

/// `x.resize_(*sizes)` (see the module's doc).
pub fn resize_(x: &Tensor, sizes: &[i64]) -> Result<()> {
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
