//! Logical and bitwise ops: logical_and / or / xor / not on truth values, and `&`, `|`, `^`,
//! `~` (bools: logical; integers: bitwise). No gradients.

use crate::dtype::{DType, Scalar};
use crate::error::Result;
use crate::kernels::{self, map, zip};
use crate::ops::binary_kernels::promoted;
use crate::ops::binary_kernels_decl::LogicalOp;
use crate::ops::creation::{cast_data, narrow};
use crate::ops::Operand;
use crate::tensor::shape::broadcast_shapes;
use crate::tensor::Tensor;

/// `logical_and/or/xor`: truthiness of each side, bool result, no gradient.
pub fn logical(a: &Tensor, b: &Tensor, op: &str) -> Result<Tensor> {
    let (ba, bb) = (cast_data(a, DType::Bool), cast_data(b, DType::Bool));
    let shape = broadcast_shapes(&ba.shape(), &bb.shape())?;
    let op = match op {
        "and" => LogicalOp::And,
        "or" => LogicalOp::Or,
        _ => LogicalOp::Xor,
    };
    kernels::logical(op.wgsl(), &ba, &bb, &shape, |a, b, shape| {
        op.zip_any(DType::Bool, a, b, shape)
    })
}
pub fn logical_not(a: &Tensor) -> Result<Tensor> {
    let ba = cast_data(a, DType::Bool);
    // not v = v xor true.
    let t = Tensor::scalar(Scalar::Bool(true), DType::Bool);
    kernels::logical(LogicalOp::Xor.wgsl(), &ba, &t, &ba.shape(), |a, _, _| {
        Ok(map::<bool, bool>(a, |v| !v))
    })
}

/// `&`, `|`, `^` on bool and integer tensors (bools: logical; ints: bitwise).
pub fn bitwise(a: &Tensor, b: Operand, op: &str) -> Result<Tensor> {
    let a_op = Operand::Tensor(a.clone());
    let (ta, tb, shape, dtype) = promoted(&a_op, &b, false)?;
    Ok(narrow(
        match ta.dtype() {
            DType::Bool => {
                // On bools these are the logical ops, which the GPU has (masks stay there).
                let l = match op {
                    "and" => LogicalOp::And,
                    "or" => LogicalOp::Or,
                    _ => LogicalOp::Xor,
                };
                kernels::logical(l.wgsl(), &ta, &tb, &shape, |a, b, shape| {
                    l.zip_any(DType::Bool, a, b, shape)
                })?
            }
            DType::I64 => {
                let f: fn(i64, i64) -> i64 = match op {
                    "and" => |p, q| p & q,
                    "or" => |p, q| p | q,
                    _ => |p, q| p ^ q,
                };
                zip::<i64, i64>(&ta, &tb, &shape, f)?
            }
            // Named by the promoted dtype (float16 computes as float32).
            _ => {
                return Err(crate::dtype::unsupported(
                    &format!("bitwise_{op}_cpu"),
                    dtype,
                ))
            }
        },
        dtype,
    ))
}

/// `~x`: logical not of bools, bitwise not of ints.
pub fn bitwise_not(a: &Tensor) -> Result<Tensor> {
    Ok(match a.dtype() {
        DType::Bool => return logical_not(a),
        DType::I64 => map::<i64, i64>(a, |v| !v),
        DType::I32 => map::<i32, i32>(a, |v| !v),
        DType::I16 => map::<i16, i16>(a, |v| !v),
        DType::I8 => map::<i8, i8>(a, |v| !v),
        DType::U8 => map::<u8, u8>(a, |v| !v),
        d => return Err(crate::dtype::unsupported("bitwise_not_cpu", d)),
    })
}
