//! Indexing ops, one family per file: `gather.rs` (gather / scatter / scatter_add along a dim,
//! take_along_dim), `index_select.rs` (index_select / index_add), `masked.rs` (masked_fill,
//! masked_select, nonzero), `subscript.rs` (advanced (tensor) indexing `index`, and `x[key]` /
//! `x[key] = v` as `IndexStep`s); here the index checks they share. Backwards are the dual ops
//! (gather <-> scatter_add, index_select <-> index_add), so higher-order gradients come free.

mod gather;
mod index_select;
mod masked;
mod subscript;

pub use gather::{gather, scatter, scatter_add, take_along_dim};
pub use index_select::{index_add, index_select};
pub use masked::{masked_fill, masked_select, nonzero};
pub use subscript::{
    basic_view, check_index_devices, getitem, index, setitem, setitem_, setitem_data, IndexStep,
};

use crate::dtype::DType;
use crate::error::{Error, Result};
use crate::tensor::Tensor;

/// int64 and int32 tensors index (PyTorch takes both).
pub(super) fn is_index_dtype(d: DType) -> bool {
    matches!(d, DType::I64 | DType::I32)
}

/// An index tensor's values (int64 or int32).
pub(super) fn index_values(index: &Tensor) -> Vec<i64> {
    crate::ops::creation::wide(index).to_vec::<i64>()
}

pub(super) fn check_index(index: &Tensor, op: &str) -> Result<Vec<i64>> {
    if !is_index_dtype(index.dtype()) {
        return Err(Error::Runtime(format!(
            "{op}(): Expected dtype int32/int64 for index"
        )));
    }
    Ok(index_values(index))
}
