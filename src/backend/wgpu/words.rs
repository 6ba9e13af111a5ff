//! How each dtype is held in 32-bit GPU words, and the conversions at upload and download.

use super::check_dtype;
use crate::dtype::DType;
use crate::error::{Error, Result};

/// int64 values narrowed to the int32 the shaders index with, refusing any that do not fit.
pub fn narrow_i64(values: &[i64]) -> Result<Vec<i32>> {
    values
        .iter()
        .map(|&v| {
            i32::try_from(v).map_err(|_| {
                Error::Runtime(format!(
                    "int64 value {v} does not fit in the int32 the GPU uses for integers"
                ))
            })
        })
        .collect()
}

/// How a dtype is held in GPU words, and the conversions at upload and download.
pub enum Words {}

impl Words {
    const ONE: u32 = 0x3f80_0000; // 1.0f32

    /// The words of `n` elements of `dtype` at `host` (float64 is refused).
    ///
    /// # Safety
    /// `host` must point to `n` valid elements of `dtype`.
    pub unsafe fn encode(dtype: DType, host: *const u8, n: usize) -> Result<Vec<u32>> {
        Ok(match dtype {
            DType::F32 => std::slice::from_raw_parts(host as *const u32, n).to_vec(),
            DType::Bool => std::slice::from_raw_parts(host as *const bool, n)
                .iter()
                .map(|&b| if b { Words::ONE } else { 0 })
                .collect(),
            DType::I64 => narrow_i64(std::slice::from_raw_parts(host as *const i64, n))?
                .into_iter()
                .map(|v| v as u32)
                .collect(),
            DType::I32 => std::slice::from_raw_parts(host as *const u32, n).to_vec(),
            // Computed in float32 (Note [Narrow dtypes]); each op's result rounded to half.
            DType::F16 => {
                let mut w = vec![0u32; n];
                let src = std::slice::from_raw_parts(host as *const half::f16, n);
                crate::backend::cpu::f16c::widen(src, bytemuck::cast_slice_mut(&mut w));
                w
            }
            // Refused before a tensor reaches the GPU (`check_gpu_dtype`).
            DType::F64 | DType::BF16 | DType::U8 | DType::I8 | DType::I16 => {
                return check_dtype(dtype).map(|_| Vec::new())
            }
        })
    }

    /// Writes `words` back as elements of `dtype` at `host`.
    ///
    /// # Safety
    /// `host` must be valid for `words.len()` writes of `dtype`.
    pub unsafe fn decode(dtype: DType, words: &[u32], host: *mut u8) -> Result<()> {
        let n = words.len();
        match dtype {
            DType::F32 => std::ptr::copy_nonoverlapping(words.as_ptr(), host as *mut u32, n),
            DType::Bool => {
                let out = std::slice::from_raw_parts_mut(host as *mut bool, n);
                for (o, &w) in out.iter_mut().zip(words) {
                    *o = w != 0;
                }
            }
            DType::I64 => {
                let out = std::slice::from_raw_parts_mut(host as *mut i64, n);
                for (o, &w) in out.iter_mut().zip(words) {
                    *o = i64::from(w as i32);
                }
            }
            DType::I32 => std::ptr::copy_nonoverlapping(words.as_ptr(), host as *mut u32, n),
            DType::F16 => crate::backend::cpu::f16c::narrow(
                bytemuck::cast_slice(words),
                std::slice::from_raw_parts_mut(host as *mut half::f16, n),
            ),
            DType::F64 | DType::BF16 | DType::U8 | DType::I8 | DType::I16 => check_dtype(dtype)?,
        }
        Ok(())
    }
}
