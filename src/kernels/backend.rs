//! The storage-level backend interface: the elementwise primitive set as one trait, with the
//! GPU's and the host's implementations, and `run`, the one match between them.
//!
//! Note [Backend interface]: as candle's `Storage` enum + `BackendStorage` trait, each
//! primitive is implemented once per device: `Gpu` by the wgpu kernels (`gpu/`, tensors to
//! buffers and views), `Cpu` by the host loops (`backend::cpu`). An elementwise op reaches both
//! through one descriptor holding its two forms (as candle's `UnaryOpT` holds a CUDA kernel's
//! name and a CPU function): the declared WGSL expression the GPU compiles, and the CPU kernel,
//! a closure over host tensors (one monomorphized loop per op and dtype, written where the op
//! is declared). `run` asks the GPU first; its implementation answers `Ok(None)` when it does
//! not apply (no operand there, a dtype or layout its shader cannot read, a tensor past one
//! binding) and the host's then runs on the synchronized host copies, its result landing on
//! the operands' device. A GPU error is returned, never turned into a host fallback.

use super::gpu;
use crate::dtype::DType;
use crate::error::Result;
use crate::tensor::Tensor;

/// `f(x)` of each element: `wgsl`, an expression in `v` with parameters `p.a`, `p.b`, `p.c`
/// (`args`), of a float32 or float16 tensor; `cpu` for any tensor.
pub struct Unary<'a> {
    pub wgsl: &'static str,
    pub args: [f64; 3],
    pub cpu: &'a dyn Fn(&Tensor) -> Result<Tensor>,
}

/// How the GPU reads a binary op's operands and types its result.
#[derive(Clone, Copy)]
pub enum Words {
    /// Float32 operands (float16 ones read in place as float32 words), a `DType` result:
    /// float16 rounds in the kernel, any other dtype gets float32 for the caller to narrow.
    Float(DType),
    /// A comparison, a bool result: floats as float32 words, int64 / int32 operands as int32
    /// words compared by the second expression, bools as 0.0 / 1.0.
    Compare(&'static str),
    /// A logical op of two bool tensors (their 0.0 / 1.0 words), a bool result.
    Logical,
}

/// A binary op's CPU kernel: `(a, b, broadcast shape)` to the result.
pub type BinaryCpu<'a> = &'a dyn Fn(&Tensor, &Tensor, &[usize]) -> Result<Tensor>;
/// A ternary op's CPU kernel: `(c, a, b, broadcast shape)` to the result.
pub type TernaryCpu<'a> = &'a dyn Fn(&Tensor, &Tensor, &Tensor, &[usize]) -> Result<Tensor>;

/// `f(x, y)` over the broadcast shape: `wgsl` an expression in `x`, `y`.
pub struct Binary<'a> {
    pub wgsl: &'static str,
    pub words: Words,
    pub cpu: BinaryCpu<'a>,
}

/// A ternary op over the broadcast shape (`where`'s select, `lerp`), the host's in `cpu`.
pub struct Ternary<'a> {
    pub op: TernaryKind,
    pub cpu: TernaryCpu<'a>,
}

#[derive(Clone, Copy)]
pub enum TernaryKind {
    /// `c ? a : b`.
    Select,
    /// `lerp(a, b, weight c)` of float32 tensors.
    Lerp,
}

/// The elementwise primitives every device implements; `Ok(None)`: not applicable here.
pub trait Backend {
    fn unary(&self, op: &Unary<'_>, x: &Tensor) -> Result<Option<Tensor>>;
    fn binary(
        &self,
        op: &Binary<'_>,
        a: &Tensor,
        b: &Tensor,
        shape: &[usize],
    ) -> Result<Option<Tensor>>;
    fn ternary(
        &self,
        op: &Ternary<'_>,
        c: &Tensor,
        a: &Tensor,
        b: &Tensor,
        shape: &[usize],
    ) -> Result<Option<Tensor>>;
    /// `src` (of `dst`'s shape, any dtype, not sharing its memory) written into `dst`.
    fn write(&self, dst: &Tensor, src: &Tensor) -> Result<Option<()>>;
}

/// The wgpu kernels (`gpu/`).
pub struct Gpu;
/// The host loops (`backend::cpu`), which run every primitive.
pub struct Cpu;

impl Backend for Gpu {
    fn unary(&self, op: &Unary<'_>, x: &Tensor) -> Result<Option<Tensor>> {
        gpu::unary_with(op.wgsl, x, op.args)
    }

    fn binary(
        &self,
        op: &Binary<'_>,
        a: &Tensor,
        b: &Tensor,
        shape: &[usize],
    ) -> Result<Option<Tensor>> {
        match op.words {
            Words::Float(dtype) => gpu::binary_to(op.wgsl, a, b, shape, dtype),
            Words::Compare(int) => {
                if !a.device().is_gpu() && !b.device().is_gpu() {
                    return Ok(None);
                }
                if matches!(a.dtype(), DType::F32 | DType::F16) {
                    // float16 values compare exactly as the float32 words the GPU holds.
                    let (wa, wb) = (super::wide(a), super::wide(b));
                    gpu::compare(op.wgsl, &wa, &wb, shape)
                } else {
                    // Index and mask tests (`target != ignore_index`) stay on the GPU too.
                    gpu::compare_words(op.wgsl, int, a, b, shape)
                }
            }
            Words::Logical => gpu::logical(op.wgsl, a, b, shape),
        }
    }

    fn ternary(
        &self,
        op: &Ternary<'_>,
        c: &Tensor,
        a: &Tensor,
        b: &Tensor,
        shape: &[usize],
    ) -> Result<Option<Tensor>> {
        match op.op {
            TernaryKind::Select => gpu::select(c, a, b, shape),
            TernaryKind::Lerp => gpu::lerp(a, b, c, shape),
        }
    }

    fn write(&self, dst: &Tensor, src: &Tensor) -> Result<Option<()>> {
        Ok(gpu::write_into(dst, src)?.then_some(()))
    }
}

impl Backend for Cpu {
    fn unary(&self, op: &Unary<'_>, x: &Tensor) -> Result<Option<Tensor>> {
        (op.cpu)(x).map(Some)
    }

    fn binary(
        &self,
        op: &Binary<'_>,
        a: &Tensor,
        b: &Tensor,
        shape: &[usize],
    ) -> Result<Option<Tensor>> {
        (op.cpu)(a, b, shape).map(Some)
    }

    fn ternary(
        &self,
        op: &Ternary<'_>,
        c: &Tensor,
        a: &Tensor,
        b: &Tensor,
        shape: &[usize],
    ) -> Result<Option<Tensor>> {
        (op.cpu)(c, a, b, shape).map(Some)
    }

    fn write(&self, dst: &Tensor, src: &Tensor) -> Result<Option<()>> {
        super::elementwise::write_host(dst, src).map(Some)
    }
}

/// The one place that picks the device: `f` on the GPU's implementation, which applies only
/// where an operand lives there, else on the host's (Note [Backend interface]).
#[inline]
pub fn run<R>(f: impl Fn(&dyn Backend) -> Result<Option<R>>) -> Result<R> {
    if let Some(out) = f(&Gpu)? {
        return Ok(out);
    }
    Ok(f(&Cpu)?.expect("the host implements every primitive"))
}
