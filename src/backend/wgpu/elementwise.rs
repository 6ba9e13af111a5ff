//! Elementwise kernels: the unary and binary kernels generated around an op's WGSL expression
//! (Note [Op declarations]), the ternary op enum (the `OP` values of `where.wgsl`) and their
//! calls over strided, broadcast views.

use super::buffer::{for_each_piece, key, len_u32, signed, words, GpuBuffer};
use super::context::{guarded, GpuDType, Kernel, PipelineKey, WORKGROUP};
use super::fuse;
use crate::error::{Error, Result};
use crate::tensor::shape::contiguous_strides;

/// `y[i] = f(x[offset + i])` for `i < n`, `f` the WGSL expression `expr` in `v` (an op's
/// declared expression, Note [Op declarations]; the unary shader is generated around it).
pub fn unary(expr: &'static str, x: &GpuBuffer, offset: usize, n: usize) -> Result<GpuBuffer> {
    unary_with(expr, x, offset, n, [0.0; 3])
}

/// `unary` for expressions that read parameters (`p.a`, `p.b`, `p.c`).
pub fn unary_with(
    expr: &'static str,
    x: &GpuBuffer,
    offset: usize,
    n: usize,
    args: [f32; 3],
) -> Result<GpuBuffer> {
    unary_as(GpuDType::F32, expr, x, offset, n, args)
}

/// `unary_with` giving `dtype` values (float16: each result rounded to half).
pub fn unary_as(
    dtype: GpuDType,
    expr: &'static str,
    x: &GpuBuffer,
    offset: usize,
    n: usize,
    args: [f32; 3],
) -> Result<GpuBuffer> {
    guarded(|| {
        if offset + n > x.len {
            return Err(Error::Runtime(format!(
                "GPU unary: elements {offset}..{} out of a buffer of {}",
                offset + n,
                x.len
            )));
        }
        let g = x.gpu;
        let operand = fuse::Operand {
            buf: x,
            access: fuse::Access::Contig,
            words: [len_u32(offset, "offset")?, 0, 0, 0],
        };
        let op = fuse::Op::Unary { expr, args };
        if let Some(out) = fuse::append(g, dtype, op, &[operand], n)? {
            return Ok(out);
        }
        let out = GpuBuffer::alloc(g, n)?;
        if n == 0 {
            return Ok(out);
        }
        let pipeline = g.pipeline(PipelineKey {
            kernel: Kernel::Unary,
            op: 0,
            dtype,
            expr,
        })?;
        let [a, b, c] = args.map(f32::to_bits);
        let unit = [1isize];
        let operands = [(x, &unit[..], offset), (&out, &unit[..], 0)];
        for_each_piece(&[n], &operands, true, |shape, bufs, offsets| {
            let n = shape[0];
            let params = [
                len_u32(n, "length")?,
                len_u32(offsets[0], "offset")?,
                a,
                b,
                c,
                len_u32(offsets[1], "offset")?,
                0,
                0,
            ];
            let groups = g.grid((n as u64).div_ceil(WORKGROUP))?;
            g.dispatch(&pipeline, bufs, words(&params), groups)
        })?;
        Ok(out)
    })
}

/// A strided view into a buffer: element `idx` is at `offset + sum(idx[d] * strides[d])`.
#[derive(Clone, Debug)]
pub struct View<'a> {
    pub shape: &'a [usize],
    pub strides: &'a [usize],
    pub offset: usize,
}

impl<'a> View<'a> {
    pub fn contiguous(shape: &'a [usize], strides_out: &'a mut Vec<usize>) -> View<'a> {
        strides_out.clear();
        let mut s = 1;
        for &d in shape.iter().rev() {
            strides_out.push(s);
            s *= d;
        }
        strides_out.reverse();
        View {
            shape,
            strides: strides_out,
            offset: 0,
        }
    }
}

/// The most dims `binary.wgsl` indexes over (after merging, see [`collapse`]).
pub const MAX_DIMS: usize = 8;

/// The parameters of the binary and where kernels: n, ndim, each buffer's offset from word 2
/// (operands, then out; 6 at most), then the collapsed shape and each of the `K` operands'
/// strides, `MAX_DIMS` words each.
pub(super) fn strided_params<const K: usize>(
    n: usize,
    dims: &[(usize, [isize; K])],
    offsets: &[usize],
) -> Result<Vec<u32>> {
    let mut p = vec![0u32; 8 + (K + 1) * MAX_DIMS];
    p[0] = len_u32(n, "length")?;
    p[1] = dims.len() as u32;
    for (i, &o) in offsets.iter().enumerate() {
        p[2 + i] = len_u32(o, "offset")?;
    }
    for (d, (size, strides)) in dims.iter().enumerate() {
        p[8 + d] = len_u32(*size, "dim")?;
        for (k, &s) in strides.iter().enumerate() {
            p[8 + (k + 1) * MAX_DIMS + d] = len_u32(s as usize, "stride")?;
        }
    }
    Ok(p)
}

/// The index space `shape` with each operand's strides (0 where broadcast), size-1 dims
/// dropped and adjacent dims merged wherever every operand steps through them as one: fewer
/// dims is less index arithmetic per element, and most tensors of any rank fit in
/// [`MAX_DIMS`], past which `what`'s kernel is refused.
pub(super) fn collapse<const K: usize>(
    what: &str,
    shape: &[usize],
    strides: [&[isize]; K],
) -> Result<Vec<(usize, [isize; K])>> {
    let mut dims: Vec<(usize, [isize; K])> = Vec::new();
    for (d, &n) in shape.iter().enumerate() {
        if n == 1 {
            continue;
        }
        let cur = strides.map(|s| s[d]);
        match dims.last_mut() {
            Some(l) if (0..K).all(|k| l.1[k] == cur[k] * n as isize) => *l = (l.0 * n, cur),
            _ => dims.push((n, cur)),
        }
    }
    if dims.len() > MAX_DIMS {
        return Err(Error::Runtime(format!(
            "GPU {what}: {} non-mergeable dims exceed the kernel's {MAX_DIMS}",
            dims.len()
        )));
    }
    Ok(dims)
}

/// Each operand's strides against `out_shape` (right-aligned; 0 on broadcast dims).
pub(super) fn broadcast_strides(v: &View, out_shape: &[usize], which: &str) -> Result<Vec<usize>> {
    if v.shape.len() != v.strides.len() || v.shape.len() > out_shape.len() {
        return Err(Error::Runtime(format!(
            "GPU binary: operand {which} of shape {:?} does not broadcast to {out_shape:?}",
            v.shape
        )));
    }
    let lead = out_shape.len() - v.shape.len();
    let mut s = vec![0; out_shape.len()];
    for (d, (&size, &stride)) in v.shape.iter().zip(v.strides).enumerate() {
        if size == out_shape[lead + d] {
            s[lead + d] = if size == 1 { 0 } else { stride };
        } else if size != 1 {
            return Err(Error::Runtime(format!(
                "GPU binary: operand {which} of shape {:?} does not broadcast to {out_shape:?}",
                v.shape
            )));
        }
    }
    Ok(s)
}

/// The largest element index a view reads, plus one (0 for an empty view).
pub(super) fn extent(v: &View) -> usize {
    if v.shape.contains(&0) {
        return 0;
    }
    v.offset
        + 1
        + v.shape
            .iter()
            .zip(v.strides)
            .map(|(&n, &s)| (n - 1) * s)
            .sum::<usize>()
}

/// `out = f(a, b)` over `out_shape` (contiguous), `f` the WGSL expression `expr` in `x`, `y`
/// (a declared op's expression, Note [Op declarations]; the binary shader is generated around
/// it), each operand read through its view with broadcasting, as `dtype` values (float16: each
/// result rounded to half; `I32`: the operands are int32 words and `expr` is in `i32`s).
pub fn binary(
    dtype: GpuDType,
    expr: &'static str,
    a: &GpuBuffer,
    va: &View,
    b: &GpuBuffer,
    vb: &View,
    out_shape: &[usize],
) -> Result<GpuBuffer> {
    let key = PipelineKey {
        kernel: Kernel::Binary,
        op: 0,
        dtype,
        expr,
    };
    binary_key(key, a, va, b, vb, out_shape)
}

fn binary_key(
    key: PipelineKey,
    a: &GpuBuffer,
    va: &View,
    b: &GpuBuffer,
    vb: &View,
    out_shape: &[usize],
) -> Result<GpuBuffer> {
    guarded(|| {
        let sa = broadcast_strides(va, out_shape, "a")?;
        let sb = broadcast_strides(vb, out_shape, "b")?;
        let n: usize = out_shape.iter().product();
        if n > 0 && (extent(va) > a.len || extent(vb) > b.len) {
            return Err(Error::Runtime(
                "GPU binary: a view reads past its buffer".into(),
            ));
        }
        let g = a.gpu;
        let views = (
            fuse::access(&sa, out_shape, va.offset),
            fuse::access(&sb, out_shape, vb.offset),
        );
        if let (Some((aa, wa)), Some((ab, wb))) = views {
            let operands = [
                fuse::Operand {
                    buf: a,
                    access: aa,
                    words: wa,
                },
                fuse::Operand {
                    buf: b,
                    access: ab,
                    words: wb,
                },
            ];
            let op = fuse::Op::Binary { expr: key.expr };
            if let Some(out) = fuse::append(g, key.dtype, op, &operands, n)? {
                return Ok(out);
            }
        }
        let out = GpuBuffer::alloc(g, n)?;
        if n == 0 {
            return Ok(out);
        }
        let pipeline = g.pipeline(key)?;
        let (ia, ib, io) = (signed(&sa), signed(&sb), contiguous_strides(out_shape));
        let operands = [
            (a, &ia[..], va.offset),
            (b, &ib[..], vb.offset),
            (&out, &io[..], 0),
        ];
        for_each_piece(out_shape, &operands, true, |shape, bufs, offsets| {
            let dims = collapse("binary", shape, [&ia, &ib])?;
            let n: usize = shape.iter().product();
            let p = strided_params(n, &dims, offsets)?;
            let groups = g.grid((n as u64).div_ceil(WORKGROUP))?;
            g.dispatch(&pipeline, bufs, words(&p), groups)
        })?;
        Ok(out)
    })
}

/// `out = cond ? a : b` over `out_shape` (contiguous), each operand broadcast through its
/// view; any dtype's words.
pub fn select(
    cond: (&GpuBuffer, &View),
    a: (&GpuBuffer, &View),
    b: (&GpuBuffer, &View),
    out_shape: &[usize],
) -> Result<GpuBuffer> {
    ternary(TernaryOp::Select, cond, a, b, out_shape)
}

op_codes! {
    /// Ternary elementwise ops (the `OP` values of `where.wgsl`: `OP_SELECT`, `OP_LERP`).
    pub enum TernaryOp {
        /// `cond ? a : b`, any 32-bit words.
        Select,
        /// `lerp(a, b, weight)` of float32 words, the weight in the `cond` slot.
        Lerp,
    }
}

impl TernaryOp {
    /// The op as a fused kernel computes it (Note [Elementwise fusion]), in `c` (cond or
    /// weight), `x` (a), `y` (b): `where.wgsl`'s computation of it, word for word (select
    /// tests the word and moves the bits).
    pub fn fused_expr(self) -> &'static str {
        match self {
            TernaryOp::Select => "select(y, x, bitcast<u32>(c) != 0u)",
            TernaryOp::Lerp => "select(y - (y - x) * (1.0 - c), x + c * (y - x), abs(c) < 0.5)",
        }
    }
}

/// `out = op(cond, a, b)` over the broadcast `out_shape` (`TernaryOp` says what the operands
/// are).
pub fn ternary(
    op: TernaryOp,
    cond: (&GpuBuffer, &View),
    a: (&GpuBuffer, &View),
    b: (&GpuBuffer, &View),
    out_shape: &[usize],
) -> Result<GpuBuffer> {
    guarded(|| {
        let ops = [cond, a, b];
        let mut strides = Vec::with_capacity(3);
        for (i, (buf, v)) in ops.iter().enumerate() {
            strides.push(broadcast_strides(v, out_shape, ["cond", "a", "b"][i])?);
            let n: usize = out_shape.iter().product();
            if n > 0 && extent(v) > buf.len {
                return Err(Error::Runtime(
                    "GPU where: a view reads past its buffer".into(),
                ));
            }
        }
        let n: usize = out_shape.iter().product();
        let g = a.0.gpu;
        let fused: Option<Vec<fuse::Operand>> = ops
            .iter()
            .zip(&strides)
            .map(|((buf, v), s)| {
                let (access, words) = fuse::access(s, out_shape, v.offset)?;
                Some(fuse::Operand { buf, access, words })
            })
            .collect();
        if let Some(operands) = fused {
            let fop = fuse::Op::Ternary {
                expr: op.fused_expr(),
            };
            if let Some(out) = fuse::append(g, GpuDType::F32, fop, &operands, n)? {
                return Ok(out);
            }
        }
        let out = GpuBuffer::alloc(g, n)?;
        if n == 0 {
            return Ok(out);
        }
        let pipeline = g.pipeline(key(Kernel::Where, op.code()))?;
        let signed_strides: Vec<Vec<isize>> = strides.iter().map(|s| signed(s)).collect();
        let io = contiguous_strides(out_shape);
        let mut operands: Vec<(&GpuBuffer, &[isize], usize)> = ops
            .iter()
            .zip(&signed_strides)
            .map(|((buf, v), s)| (*buf, &s[..], v.offset))
            .collect();
        operands.push((&out, &io, 0));
        for_each_piece(out_shape, &operands, true, |shape, bufs, offsets| {
            let s = &signed_strides;
            let dims = collapse("where", shape, [&s[0], &s[1], &s[2]])?;
            let n: usize = shape.iter().product();
            let p = strided_params(n, &dims, offsets)?;
            let groups = g.grid((n as u64).div_ceil(WORKGROUP))?;
            g.dispatch(&pipeline, bufs, words(&p), groups)
        })?;
        Ok(out)
    })
}
