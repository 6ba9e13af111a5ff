//! The storage-level backend interface: the primitive set as one trait, with the GPU's and the
//! host's implementations, and `run` / `pick`, the one match between them.
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
//! the operands' device. A GPU error is returned, never turned into a host fallback, except in
//! the families that have always left a failed GPU copy, reduction or compaction to the host
//! (`pick`: their methods return no `Result`; the host then computes, or reports, it). The
//! other families hand over the arguments as their family function took them; the host's
//! implementation is that family's `*_host` function (`copy.rs`, `reduce.rs`, ...).

use super::nn::{Window, WindowOp};
use super::reduce::{ReduceOp, ScanOp};
use super::{copy, gpu, index, matmul, nn, reduce, sort};
use crate::dtype::DType;
use crate::error::Result;
use crate::tensor::{Device, Operand, Tensor};

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

/// The primitives every device implements; `None`: not applicable here (the GPU only).
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

    /// `t`'s values as `dtype`, a new contiguous tensor on its device (`copy.rs`).
    fn copy(&self, t: &Tensor, dtype: DType) -> Option<Tensor>;
    /// A float16 tensor's values as float32 (`copy::wide`): the GPU reads its words in place.
    fn wide_half(&self, t: &Tensor) -> Option<Tensor>;
    /// `op` (`Sum`, `Prod`, `Max`, `Min`) over `dims` (`reduce.rs`).
    /// (`shape`: the reduced shape, size-1 dims kept when `keepdim`.)
    fn reduce(
        &self,
        op: ReduceOp,
        x: &Tensor,
        dims: &[usize],
        keepdim: bool,
        shape: &[usize],
    ) -> Option<Tensor>;
    fn all_any(
        &self,
        all: bool,
        x: &Tensor,
        dims: &[usize],
        keepdim: bool,
        shape: &[usize],
    ) -> Option<Tensor>;
    fn arg_extreme(
        &self,
        max: bool,
        x: &Tensor,
        dims: &[usize],
        keepdim: bool,
        shape: &[usize],
    ) -> Option<(Tensor, Tensor)>;
    /// `acc`: the dtype the running value is kept in (ATen's `acc_type`: float64 for a float32
    /// scan on the host; the GPU's shaders keep float32).
    fn scan(&self, op: ScanOp, x: &Tensor, dim: usize, acc: DType) -> Option<Tensor>;
    /// The coordinates of the nonzero elements (`index.rs`).
    fn nonzero(&self, x: &Tensor) -> Option<Tensor>;

    /// `index.rs`'s gather: `idx` the index's checked values (None: in range by construction).
    fn gather(
        &self,
        x: &Tensor,
        dim: usize,
        index: &Tensor,
        idx: Option<&[i64]>,
        along: Option<&[usize]>,
    ) -> Result<Option<Tensor>>;
    #[allow(clippy::too_many_arguments)]
    fn scatter(
        &self,
        out: &Tensor,
        dim: usize,
        index: &Tensor,
        idx: Option<&[i64]>,
        along: Option<&[usize]>,
        src: &Operand,
        accumulate: bool,
    ) -> Result<Option<()>>;
    fn put(
        &self,
        x: &Tensor,
        offsets: &[i64],
        shape: &[usize],
        value: &Tensor,
    ) -> Result<Option<()>>;
    /// The positions of a 1-D bool mask's true elements and the 1-D `flat`'s elements there.
    fn masked_select(&self, flat: &Tensor, mask: &Tensor) -> Result<Option<(Tensor, Tensor)>>;
    /// The batched product (`matmul.rs`).
    fn bmm(&self, a: &Tensor, b: &Tensor) -> Result<Option<Tensor>>;
    /// Softmax / log-softmax along `dim` (`nn.rs`).
    fn softmax(&self, x: &Tensor, dim: usize, log: bool) -> Result<Option<Tensor>>;
    /// im2col (`Im2Col`: `x` an image, `pad_value` what padding reads) or col2im (`Col2Im`:
    /// `x` columns summed back into an image of `hw` with `c` channels).
    fn window(
        &self,
        op: WindowOp,
        x: &Tensor,
        win: Window,
        c: usize,
        hw: [usize; 2],
        pad_value: f64,
    ) -> Result<Option<Tensor>>;
    /// Values sorted along `d` and their positions (`sort.rs`).
    fn sort(&self, x: &Tensor, d: usize, descending: bool) -> Result<Option<(Tensor, Tensor)>>;
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

    // A failure of these kernels leaves the work to the host (`pick`).
    fn copy(&self, t: &Tensor, dtype: DType) -> Option<Tensor> {
        gpu::contiguous_as(t, dtype).ok().flatten()
    }

    fn wide_half(&self, t: &Tensor) -> Option<Tensor> {
        gpu::half_as_float(t).ok().flatten()
    }

    fn reduce(
        &self,
        op: ReduceOp,
        x: &Tensor,
        dims: &[usize],
        _: bool,
        shape: &[usize],
    ) -> Option<Tensor> {
        gpu::reduce(op, x, dims, shape).ok().flatten()
    }

    fn all_any(
        &self,
        all: bool,
        x: &Tensor,
        dims: &[usize],
        _: bool,
        shape: &[usize],
    ) -> Option<Tensor> {
        gpu::all_any(all, x, dims, shape).ok().flatten()
    }

    fn arg_extreme(
        &self,
        max: bool,
        x: &Tensor,
        dims: &[usize],
        _: bool,
        shape: &[usize],
    ) -> Option<(Tensor, Tensor)> {
        gpu::arg_extreme(max, x, dims, shape).ok().flatten()
    }

    fn scan(&self, op: ScanOp, x: &Tensor, dim: usize, _: DType) -> Option<Tensor> {
        gpu::scan(op, x, dim).ok().flatten()
    }

    fn nonzero(&self, x: &Tensor) -> Option<Tensor> {
        gpu::nonzero(x).ok().flatten()
    }

    fn gather(
        &self,
        x: &Tensor,
        dim: usize,
        index: &Tensor,
        idx: Option<&[i64]>,
        along: Option<&[usize]>,
    ) -> Result<Option<Tensor>> {
        if !x.device().is_gpu() {
            return Ok(None);
        }
        if let Some(idx) = idx {
            // The host kernel's check, in its order, before the GPU reads anything.
            index::check(idx, x.shape()[dim], dim)?;
        }
        gpu::gather(x, dim, index, idx.unwrap_or(&[]), along)
    }

    fn scatter(
        &self,
        out: &Tensor,
        dim: usize,
        index: &Tensor,
        idx: Option<&[i64]>,
        along: Option<&[usize]>,
        src: &Operand,
        accumulate: bool,
    ) -> Result<Option<()>> {
        if !out.device().is_gpu() {
            return Ok(None);
        }
        if let Some(idx) = idx {
            index::check(idx, out.shape().get(dim).copied().unwrap_or(1), dim)?;
        }
        // A 0-dim tensor is written as one element.
        let s1 = match src {
            Operand::Tensor(t) => Operand::Tensor(index::flat1(t)),
            s => s.clone(),
        };
        let (out1, index1) = (index::flat1(out), index::flat1(index));
        let idx = idx.unwrap_or(&[]);
        let written = gpu::scatter(&out1, dim, &index1, idx, along, &s1, accumulate)?;
        Ok(written.then_some(()))
    }

    fn put(
        &self,
        x: &Tensor,
        offsets: &[i64],
        shape: &[usize],
        value: &Tensor,
    ) -> Result<Option<()>> {
        Ok(gpu::put(x, offsets, shape, value)?.then_some(()))
    }

    fn masked_select(&self, flat: &Tensor, mask: &Tensor) -> Result<Option<(Tensor, Tensor)>> {
        gpu::masked_select(flat, mask)
    }

    fn bmm(&self, a: &Tensor, b: &Tensor) -> Result<Option<Tensor>> {
        if !Device::of(&[a, b])?.is_gpu() {
            return Ok(None);
        }
        gpu::bmm(a, b)
    }

    fn softmax(&self, x: &Tensor, dim: usize, log: bool) -> Result<Option<Tensor>> {
        gpu::softmax(x, dim, log)
    }

    fn window(
        &self,
        op: WindowOp,
        x: &Tensor,
        win: Window,
        c: usize,
        hw: [usize; 2],
        pad_value: f64,
    ) -> Result<Option<Tensor>> {
        // The family function has checked the geometry.
        let (n, out) = (x.shape()[0], win.out_size(hw[0], hw[1])?);
        let geom = win.geom(n, c, hw, out);
        let shape: Vec<usize> = match op {
            WindowOp::Im2Col => {
                let [kh, kw] = win.kernel;
                vec![n, c * kh * kw, out[0] * out[1]]
            }
            WindowOp::Col2Im => vec![n, c, hw[0], hw[1]],
        };
        gpu::window(op, x, &geom, pad_value, &shape)
    }

    fn sort(&self, x: &Tensor, d: usize, descending: bool) -> Result<Option<(Tensor, Tensor)>> {
        gpu::sort(x, d, descending)
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

    fn copy(&self, t: &Tensor, dtype: DType) -> Option<Tensor> {
        Some(copy::cast_host(t, dtype))
    }

    fn wide_half(&self, t: &Tensor) -> Option<Tensor> {
        // A copy: the dispatching `cast`, which a GPU tensor's copy kernel may still take.
        Some(copy::cast(t, DType::F32))
    }

    fn reduce(
        &self,
        op: ReduceOp,
        x: &Tensor,
        dims: &[usize],
        keepdim: bool,
        shape: &[usize],
    ) -> Option<Tensor> {
        Some(reduce::reduce_host(op, x, dims, keepdim, shape))
    }

    fn all_any(
        &self,
        all: bool,
        x: &Tensor,
        dims: &[usize],
        keepdim: bool,
        _: &[usize],
    ) -> Option<Tensor> {
        Some(reduce::all_any_host(all, x, dims, keepdim))
    }

    fn arg_extreme(
        &self,
        max: bool,
        x: &Tensor,
        dims: &[usize],
        keepdim: bool,
        _: &[usize],
    ) -> Option<(Tensor, Tensor)> {
        Some(reduce::arg_extreme_host(max, x, dims, keepdim))
    }

    fn scan(&self, op: ScanOp, x: &Tensor, dim: usize, acc: DType) -> Option<Tensor> {
        Some(reduce::scan_host(op, x, dim, acc))
    }

    fn nonzero(&self, x: &Tensor) -> Option<Tensor> {
        Some(index::nonzero_host(x))
    }

    fn gather(
        &self,
        x: &Tensor,
        dim: usize,
        index: &Tensor,
        idx: Option<&[i64]>,
        along: Option<&[usize]>,
    ) -> Result<Option<Tensor>> {
        index::gather_host(x, dim, index, idx, along).map(Some)
    }

    fn scatter(
        &self,
        out: &Tensor,
        dim: usize,
        index: &Tensor,
        idx: Option<&[i64]>,
        along: Option<&[usize]>,
        src: &Operand,
        accumulate: bool,
    ) -> Result<Option<()>> {
        index::scatter_host(out, dim, index, idx, along, src, accumulate).map(Some)
    }

    fn put(
        &self,
        x: &Tensor,
        offsets: &[i64],
        shape: &[usize],
        value: &Tensor,
    ) -> Result<Option<()>> {
        index::put_host(x, offsets, shape, value).map(Some)
    }

    fn masked_select(&self, flat: &Tensor, mask: &Tensor) -> Result<Option<(Tensor, Tensor)>> {
        index::masked_select_host(flat, mask).map(Some)
    }

    fn bmm(&self, a: &Tensor, b: &Tensor) -> Result<Option<Tensor>> {
        matmul::bmm_host(a, b).map(Some)
    }

    fn softmax(&self, x: &Tensor, dim: usize, log: bool) -> Result<Option<Tensor>> {
        nn::softmax_host(x, dim, log).map(Some)
    }

    fn window(
        &self,
        op: WindowOp,
        x: &Tensor,
        win: Window,
        c: usize,
        hw: [usize; 2],
        pad_value: f64,
    ) -> Result<Option<Tensor>> {
        match op {
            WindowOp::Im2Col => nn::im2col_host(x, win, pad_value),
            WindowOp::Col2Im => nn::col2im_host(x, hw, c, win),
        }
        .map(Some)
    }

    fn sort(&self, x: &Tensor, d: usize, descending: bool) -> Result<Option<(Tensor, Tensor)>> {
        sort::lines(x, d, sort::Rows::Sort { descending }).map(Some)
    }
}

/// The one place that picks the device: `$body` with `$b` the GPU's implementation, which
/// applies only where an operand lives there, else the host's (Note [Backend interface]);
/// straight to the host while no storage has ever lived on the GPU (`device::gpu_in_use`).
/// A macro rather than a function over `&dyn Backend`: each device's call is a direct call
/// of its implementation (static dispatch), so the GPU's device test inlines into the family
/// function and the host's implementation is called without a vtable; the op's CPU kernel
/// stays one `&dyn Fn` call, which keeps one copy of each family function rather than one
/// per op (measured: monomorphizing the kernels too made `x * 1.0001` 4% slower).
macro_rules! run {
    (|$b:ident| $body:expr) => {{
        use $crate::kernels::backend::Backend as _;
        match if $crate::tensor::device::gpu_in_use() {
            let $b = &$crate::kernels::backend::Gpu;
            $body
        } else {
            Ok(None)
        }? {
            Some(out) => Ok(out),
            None => {
                let $b = &$crate::kernels::backend::Cpu;
                $body
            }
            .map(|out| out.expect("the host implements every primitive")),
        }
    }};
}
pub(crate) use run;

/// `run` for the primitives whose GPU failure is left to the host (copies, reductions,
/// nonzero): `$body` on the GPU's implementation, else on the host's.
macro_rules! pick {
    (|$b:ident| $body:expr) => {{
        use $crate::kernels::backend::Backend as _;
        match if $crate::tensor::device::gpu_in_use() {
            let $b = &$crate::kernels::backend::Gpu;
            $body
        } else {
            None
        } {
            Some(out) => out,
            None => {
                let $b = &$crate::kernels::backend::Cpu;
                $body
            }
            .expect("the host implements every primitive"),
        }
    }};
}
pub(crate) use pick;
