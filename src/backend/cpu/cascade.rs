//! PyTorch's CPU float sum, in its order of adds, so float32 / float64 sums are bit-equal to
//! PyTorch's on the same machine (Note [Cascade sum]).
//!
//! Note [Cascade sum]
//! ATen sums floats with `cascade_sum` (aten/src/ATen/native/cpu/SumKernel.cpp) under a
//! reduction `TensorIterator` (TensorIterator.cpp, TensorIteratorReduce.cpp): accumulators of
//! the element type (float32 sums in float32), a four-level cascade, `Vectorized` lanes and a
//! loop for each layout of the 2-D slice it is handed. This file repeats each step:
//! - the iterator: dims sorted with the reduced ones first (by input stride), the kept ones by
//!   the (contiguous) output's strides, with ATen's insertion sort and its ambiguous
//!   comparisons, then adjacent dims coalesced (`ReduceIter::new`);
//! - its walk: 2-D slices (`DimCounter`), split across threads as `parallel_reduce` splits
//!   them: one output sums per thread into a buffer then sums the buffer (`two_pass`),
//!   several outputs split their outermost kept dim, rounded to 128 bytes (`by_dim`); both
//!   only from `GRAIN` elements on and for the thread count `set_num_threads` gives;
//! - the kernel of a slice (`loop2d`): `vectorized_inner_sum`, `vectorized_outer_sum`,
//!   `scalar_inner_sum` or `scalar_outer_sum`, each a `multi_row_sum` / `row_sum` cascade.
//!
//! The lanes are 32-byte `Vectorized` ones (8 float32, 4 float64) on every x86 CPU: ATen
//! registers `sum_stub` with `REGISTER_DISPATCH`, which leaves its AVX-512 slot empty, so a
//! CPU whose `get_cpu_capability()` is AVX512 runs the AVX2 kernel, and ATen's default
//! (non-SIMD) build has 32-byte vectors too (`tests/test_sum_order.py` finds 8 lanes on an
//! AVX-512 machine). A PyTorch built with other vectors (aarch64's 16-byte NEON ones) adds
//! in another order and differs from these sums in the last bits. Float adds are exact IEEE
//! operations at any vector width, so the SIMD the compiler picks here does not change a bit.

use super::parallel::{for_each_index, num_threads};
use crate::tensor::layout::Layout;
use std::ops::Add;

/// ATen's `internal::GRAIN_SIZE`: below it a reduction runs on one thread.
pub(crate) const GRAIN: usize = 32768;

/// A float type ATen's cascade sum accumulates in itself (`acc_type<T, /*is_cuda=*/true>`).
pub trait CascadeFloat: Copy + Send + Sync + Add<Output = Self> + PartialEq + 'static {
    const ZERO: Self;
}
impl CascadeFloat for f32 {
    const ZERO: f32 = 0.0;
}
impl CascadeFloat for f64 {
    const ZERO: f64 = 0.0;
}

/// An accumulator: one value or a vector of `W` lanes.
trait Acc: Copy {
    fn zero() -> Self;
    fn plus(self, o: Self) -> Self;
}
impl<T: CascadeFloat> Acc for Lane<T> {
    #[inline(always)]
    fn zero() -> Self {
        Lane(T::ZERO)
    }
    #[inline(always)]
    fn plus(self, o: Self) -> Self {
        Lane(self.0 + o.0)
    }
}
impl<T: CascadeFloat, const W: usize> Acc for [T; W] {
    #[inline(always)]
    fn zero() -> Self {
        [T::ZERO; W]
    }
    #[inline(always)]
    fn plus(self, o: Self) -> Self {
        let mut r = self;
        for i in 0..W {
            r[i] = r[i] + o[i];
        }
        r
    }
}
#[derive(Clone, Copy)]
struct Lane<T>(T);

/// ATen's `utils::CeilLog2`.
fn ceil_log2(x: usize) -> u32 {
    if x <= 2 {
        1
    } else {
        usize::BITS - (x - 1).leading_zeros()
    }
}

/// `multi_row_sum`: `N` sums at once over `size` rows (`row` apart), the `k`-th reading at
/// `k * col` within each row, in a cascade of four levels.
///
/// # Safety
/// Every address read (`base + i * row + k * col` and what `load` reads there) is in bounds.
#[inline(always)]
#[allow(clippy::needless_range_loop)] // ATen's loops, index for index
unsafe fn multi_row_sum<T, A: Acc, const N: usize>(
    base: *const T,
    row: isize,
    col: isize,
    size: usize,
    load: &impl Fn(*const T) -> A,
) -> [A; N] {
    const LEVELS: usize = 4;
    let power = 4.max(ceil_log2(size) / LEVELS as u32);
    let step = 1usize << power;
    let mask = step - 1;
    let mut acc = [[A::zero(); N]; LEVELS];
    let mut i = 0usize;
    while i + step <= size {
        for _ in 0..step {
            let p = base.offset(i as isize * row);
            for k in 0..N {
                acc[0][k] = acc[0][k].plus(load(p.offset(k as isize * col)));
            }
            i += 1;
        }
        for j in 1..LEVELS {
            for k in 0..N {
                acc[j][k] = acc[j][k].plus(acc[j - 1][k]);
                acc[j - 1][k] = A::zero();
            }
            if i & (mask << (j as u32 * power)) != 0 {
                break;
            }
        }
    }
    while i < size {
        let p = base.offset(i as isize * row);
        for k in 0..N {
            acc[0][k] = acc[0][k].plus(load(p.offset(k as isize * col)));
        }
        i += 1;
    }
    for j in 1..LEVELS {
        for k in 0..N {
            acc[0][k] = acc[0][k].plus(acc[j][k]);
        }
    }
    acc[0]
}

/// `row_sum`: `size` values `stride` apart, as four interleaved `multi_row_sum`s.
///
/// # Safety
/// As `multi_row_sum`.
#[inline(always)]
unsafe fn row_sum<T, A: Acc>(
    base: *const T,
    stride: isize,
    size: usize,
    load: &impl Fn(*const T) -> A,
) -> A {
    let ilp = size / 4;
    let mut p = multi_row_sum::<T, A, 4>(base, stride * 4, stride, ilp, load);
    for i in ilp * 4..size {
        p[0] = p[0].plus(load(base.offset(i as isize * stride)));
    }
    for k in 1..4 {
        p[0] = p[0].plus(p[k]);
    }
    p[0]
}

/// One value, NaN read as zero for nansum.
#[inline(always)]
unsafe fn scalar<T: CascadeFloat, const NAN: bool>(p: *const T) -> Lane<T> {
    let v = *p;
    #[allow(clippy::eq_op)]
    if NAN && v != v {
        return Lane(T::ZERO);
    }
    Lane(v)
}

/// `W` consecutive values (`Vectorized::loadu`), NaN read as zero for nansum.
#[inline(always)]
unsafe fn vector<T: CascadeFloat, const W: usize, const NAN: bool>(p: *const T) -> [T; W] {
    let mut v = std::ptr::read_unaligned(p as *const [T; W]);
    if NAN {
        for x in v.iter_mut() {
            #[allow(clippy::eq_op)]
            if *x != *x {
                *x = T::ZERO;
            }
        }
    }
    v
}

/// `CastStoreAccumulate`: the output adds what a slice summed.
#[inline(always)]
unsafe fn store<T: CascadeFloat>(out: *mut T, at: isize, v: T) {
    let p = out.offset(at);
    *p = *p + v;
}

/// The kernel ATen's `cascade_sum` runs on one 2-D slice: `size0` x `size1` values, strides
/// `[out0, in0, out1, in1]` in elements.
///
/// # Safety
/// The slice lies inside `inp`'s and `out`'s storage.
unsafe fn loop2d<T: CascadeFloat, const W: usize, const NAN: bool>(
    out: *mut T,
    inp: *const T,
    strides: [isize; 4],
    size0: usize,
    size1: usize,
) {
    let (mut ins, mut outs) = ([strides[1], strides[3]], [strides[0], strides[2]]);
    let (mut size0, mut size1) = (size0, size1);
    if outs[0] != 0 && outs[1] == 0 {
        ins.swap(0, 1);
        outs.swap(0, 1);
        std::mem::swap(&mut size0, &mut size1);
    }
    let sl = &|p| scalar::<T, NAN>(p);
    let vl = &|p| vector::<T, W, NAN>(p);
    if outs[0] != 0 && outs[1] != 0 {
        // Not a reduction: each output adds its one value.
        for j in 0..size1 as isize {
            for i in 0..size0 as isize {
                let o = out.offset(j * outs[1] + i * outs[0]);
                let a = scalar::<T, NAN>(o).0;
                *o = a + sl(inp.offset(j * ins[1] + i * ins[0])).0;
            }
        }
        return;
    }
    let os = outs[1];
    let w = W as isize;
    if ins[0] == 1 && size0 >= W {
        // vectorized_inner_sum
        let vecs = size0 / W;
        for j in 0..size1 as isize {
            let row = inp.offset(j * ins[1]);
            let v = row_sum::<T, [T; W]>(row, w, vecs, vl);
            let mut total = T::ZERO;
            for k in vecs * W..size0 {
                total = total + sl(row.add(k)).0;
            }
            for lane in v {
                total = total + lane;
            }
            store(out, j * os, total);
        }
    } else if ins[1] == 1 && size1 >= W {
        // vectorized_outer_sum
        let mut j = 0usize;
        while j + 4 * W <= size1 {
            let sums = multi_row_sum::<T, [T; W], 4>(inp.add(j), ins[0], w, size0, vl);
            for (i, s) in sums.iter().enumerate() {
                for (l, &v) in s.iter().enumerate() {
                    store(out, (j + i * W + l) as isize * os, v);
                }
            }
            j += 4 * W;
        }
        while j + W <= size1 {
            let s = row_sum::<T, [T; W]>(inp.add(j), ins[0], size0, vl);
            for (l, &v) in s.iter().enumerate() {
                store(out, (j + l) as isize * os, v);
            }
            j += W;
        }
        while j < size1 {
            let s = row_sum::<T, Lane<T>>(inp.add(j), ins[0], size0, sl);
            store(out, j as isize * os, s.0);
            j += 1;
        }
    } else if ins[0] < ins[1] {
        // scalar_inner_sum
        for j in 0..size1 as isize {
            let s = row_sum::<T, Lane<T>>(inp.offset(j * ins[1]), ins[0], size0, sl);
            store(out, j * os, s.0);
        }
    } else {
        // scalar_outer_sum
        let mut j = 0usize;
        while j + 3 < size1 {
            let sums = multi_row_sum::<T, Lane<T>, 4>(
                inp.offset(j as isize * ins[1]),
                ins[0],
                ins[1],
                size0,
                sl,
            );
            for (k, s) in sums.iter().enumerate() {
                store(out, (j + k) as isize * os, s.0);
            }
            j += 4;
        }
        while j < size1 {
            let s = row_sum::<T, Lane<T>>(inp.offset(j as isize * ins[1]), ins[0], size0, sl);
            store(out, j as isize * os, s.0);
            j += 1;
        }
    }
}

/// A reduction's `TensorIterator` after `reorder_dimensions` and `coalesce_dimensions`:
/// dim 0 moves fastest; strides in elements, the output's first.
#[derive(Clone, Debug, PartialEq)]
pub struct ReduceIter {
    pub shape: Vec<usize>,
    pub out: Vec<isize>,
    pub inp: Vec<isize>,
}

impl ReduceIter {
    /// The iterator of a sum of `layout` over `dims` (sorted, unique) into a new contiguous
    /// output (`keepdim` decides the output strides of reduced dims of size 1).
    pub fn new(layout: &Layout, dims: &[usize], keepdim: bool) -> ReduceIter {
        let nd = layout.ndim();
        let shape = &layout.shape;
        // The output: contiguous over the keepdim shape, reduced dims read at stride 0
        // (`review_reduce_result`, then `compute_strides` for size-1 dims).
        let mut out = vec![0isize; nd];
        let mut s = 1isize;
        for d in (0..nd).rev() {
            let reduced = dims.contains(&d);
            out[d] = if reduced && (shape[d] != 1 || !keepdim) {
                0
            } else {
                s
            };
            if !reduced {
                s *= shape[d].max(1) as isize;
            }
        }
        ReduceIter::with_output(layout, out)
    }

    /// The iterator of `layout` into an output read at `out` strides (elements; 0 on the
    /// reduced dims).
    pub(crate) fn with_output(layout: &Layout, out: Vec<isize>) -> ReduceIter {
        let nd = layout.ndim();
        let shape = &layout.shape;
        let inp: Vec<isize> = layout.strides.to_vec();
        // reorder_dimensions: perm starts reversed; insertion sort with ambiguity.
        let mut perm: Vec<usize> = (0..nd).rev().collect();
        let should_swap = |d0: usize, d1: usize| -> i32 {
            for (arg, st) in [&out, &inp].into_iter().enumerate() {
                let (s0, s1) = (st[d0], st[d1]);
                if arg == 0 && (s0 == 0) != (s1 == 0) {
                    return if s1 == 0 { 1 } else { -1 };
                }
                if s0 == 0 || s1 == 0 {
                    continue;
                }
                if s0 < s1 {
                    return -1;
                }
                if s0 > s1 {
                    return 1;
                }
                if shape[d0] > shape[d1] {
                    return 1;
                }
            }
            0
        };
        for i in 1..nd {
            let mut d1 = i;
            for d0 in (0..i).rev() {
                let c = should_swap(perm[d0], perm[d1]);
                if c > 0 {
                    perm.swap(d0, d1);
                    d1 = d0;
                } else if c < 0 {
                    break;
                }
            }
        }
        let mut it = ReduceIter {
            shape: perm.iter().map(|&d| shape[d]).collect(),
            out: perm.iter().map(|&d| out[d]).collect(),
            inp: perm.iter().map(|&d| inp[d]).collect(),
        };
        it.coalesce();
        it
    }

    fn coalesce(&mut self) {
        let n = self.shape.len();
        if n <= 1 {
            return;
        }
        let mut prev = 0usize;
        for d in 1..n {
            let (s0, s1) = (self.shape[prev], self.shape[d]);
            let can = s0 == 1
                || s1 == 1
                || (s0 as isize * self.out[prev] == self.out[d]
                    && s0 as isize * self.inp[prev] == self.inp[d]);
            if can {
                if s0 == 1 {
                    self.out[prev] = self.out[d];
                    self.inp[prev] = self.inp[d];
                }
                self.shape[prev] *= s1;
            } else {
                prev += 1;
                if prev != d {
                    self.out[prev] = self.out[d];
                    self.inp[prev] = self.inp[d];
                    self.shape[prev] = self.shape[d];
                }
            }
        }
        self.shape.truncate(prev + 1);
        self.out.truncate(prev + 1);
        self.inp.truncate(prev + 1);
    }

    fn numel(&self) -> usize {
        self.shape.iter().product()
    }

    /// `serial_for_each` over the flat range `[begin, end)`: the 2-D slices `DimCounter` cuts.
    ///
    /// # Safety
    /// The iterator's strides stay inside `out`'s and `inp`'s storage.
    #[allow(clippy::needless_range_loop)] // DimCounter's loops, index for index
    unsafe fn walk<T: CascadeFloat, const W: usize, const NAN: bool>(
        &self,
        out: *mut T,
        inp: *const T,
        begin: usize,
        end: usize,
    ) {
        let nd = self.shape.len();
        if nd <= 1 {
            let (o, i) = (self.out.first().copied(), self.inp.first().copied());
            let (o, i) = (o.unwrap_or(0), i.unwrap_or(0));
            let b = begin as isize;
            loop2d::<T, W, NAN>(
                out.offset(b * o),
                inp.offset(b * i),
                [o, i, 0, 0],
                end - begin,
                1,
            );
            return;
        }
        let strides = [self.out[0], self.inp[0], self.out[1], self.inp[1]];
        let mut values = vec![0usize; nd];
        let mut rem = begin;
        for d in 0..nd {
            values[d] = rem % self.shape[d];
            rem /= self.shape[d];
        }
        let mut offset = begin;
        while offset < end {
            let (mut po, mut pi) = (0isize, 0isize);
            for d in 0..nd {
                po += values[d] as isize * self.out[d];
                pi += values[d] as isize * self.inp[d];
            }
            let step0 = (self.shape[0] - values[0]).min(end - offset);
            let step1 = if values[0] == 0 {
                (self.shape[1] - values[1]).min((end - offset) / self.shape[0])
            } else {
                1
            }
            .max(1);
            loop2d::<T, W, NAN>(out.offset(po), inp.offset(pi), strides, step0, step1);
            // DimCounter::increment
            offset += step0 * step1;
            let (mut i, mut overflow) = (0usize, step0);
            if step1 != 1 {
                i = 1;
                overflow = step1;
            }
            while i < nd && overflow > 0 {
                let v = values[i] + overflow;
                if v >= self.shape[i] {
                    overflow = 1;
                    values[i] = v - self.shape[i];
                } else {
                    overflow = 0;
                    values[i] = v;
                }
                i += 1;
            }
        }
    }

    #[allow(clippy::needless_range_loop)] // DimCounter's loops, index for index
    /// `serial_for_each`'s 2-D blocks of the flat range `[begin, end)`, as `walk` cuts them:
    /// `f(output offset, input offset, size0, size1)` (offsets in elements; the block's rows
    /// are `size0` elements along dim 0, `size1` of them along dim 1).
    pub(crate) fn for_each_block(
        &self,
        begin: usize,
        end: usize,
        mut f: impl FnMut(isize, isize, usize, usize),
    ) {
        let nd = self.shape.len();
        if nd <= 1 {
            let (o, i) = (self.out.first().copied(), self.inp.first().copied());
            let b = begin as isize;
            f(b * o.unwrap_or(0), b * i.unwrap_or(0), end - begin, 1);
            return;
        }
        let mut values = vec![0usize; nd];
        let mut rem = begin;
        for d in 0..nd {
            values[d] = rem % self.shape[d];
            rem /= self.shape[d];
        }
        let mut offset = begin;
        while offset < end {
            let (mut po, mut pi) = (0isize, 0isize);
            for d in 0..nd {
                po += values[d] as isize * self.out[d];
                pi += values[d] as isize * self.inp[d];
            }
            let step0 = (self.shape[0] - values[0]).min(end - offset);
            let step1 = if values[0] == 0 {
                (self.shape[1] - values[1]).min((end - offset) / self.shape[0])
            } else {
                1
            }
            .max(1);
            f(po, pi, step0, step1);
            offset += step0 * step1;
            let (mut i, mut overflow) = (0usize, step0);
            if step1 != 1 {
                i = 1;
                overflow = step1;
            }
            while i < nd && overflow > 0 {
                let v = values[i] + overflow;
                if v >= self.shape[i] {
                    overflow = 1;
                    values[i] = v - self.shape[i];
                } else {
                    overflow = 0;
                    values[i] = v;
                }
                i += 1;
            }
        }
    }

    fn is_reduced(&self, d: usize) -> bool {
        self.out[d] == 0 && self.shape[d] > 1
    }
}

/// Raw pointers handed to the threads of one sum; each writes its own outputs.
#[derive(Clone, Copy)]
struct Ptrs<T>(*mut T, *const T);
// SAFETY: the threads of `run` write disjoint outputs (or buffer slots) and only read input.
unsafe impl<T> Send for Ptrs<T> {}
unsafe impl<T> Sync for Ptrs<T> {}

impl<T> Ptrs<T> {
    /// Both pointers; a method, so a closure captures the whole `Ptrs` (Send) and not its
    /// fields (raw pointers).
    fn get(&self) -> (*mut T, *const T) {
        (self.0, self.1)
    }
}

/// ATen's `at::parallel_for` chunks of `0..n` for `threads`: (begin, end) per thread id.
pub(crate) fn omp_chunks(n: usize, grain: usize, threads: usize) -> Vec<(usize, usize)> {
    if n == 0 {
        return Vec::new();
    }
    if n <= grain || n <= 1 || threads <= 1 {
        return vec![(0, n)];
    }
    let t = threads.min(n.div_ceil(grain.max(1)));
    let chunk = n.div_ceil(t);
    (0..t)
        .map(|tid| (tid * chunk, ((tid + 1) * chunk).min(n)))
        .filter(|(b, _)| *b < n)
        .collect()
}

/// `parallel_reduce` of `cascade_sum` into `out` (zeros, `outs` values).
///
/// # Safety
/// `it` describes a view inside `inp` and the contiguous `out`.
unsafe fn run<T: CascadeFloat, const W: usize, const NAN: bool>(
    layout: &Layout,
    it: &ReduceIter,
    out: &mut [T],
    inp: *const T,
) {
    let numel = it.numel();
    let threads = num_threads();
    if numel == 0 {
        return;
    }
    if numel < GRAIN || threads == 1 {
        return it.walk::<T, W, NAN>(out.as_mut_ptr(), inp, 0, numel);
    }
    if out.len() == 1 {
        // two_pass_reduction: a buffer slot per thread, then their sum. Its first pass is an
        // iterator of its own, into a slot of the contiguous buffer (strides 1 on size-1 dims).
        let it = &ReduceIter::with_output(
            layout,
            layout.shape.iter().map(|&n| (n == 1) as isize).collect(),
        );
        let mut buffer = vec![T::ZERO; threads];
        let chunks = omp_chunks(numel, GRAIN, threads);
        let p = Ptrs(buffer.as_mut_ptr(), inp);
        for_each_index(chunks.len(), |tid| {
            let (o, i) = p.get();
            let (b, e) = chunks[tid];
            it.walk::<T, W, NAN>(o.add(tid), i, b, e);
        });
        loop2d::<T, W, NAN>(out.as_mut_ptr(), buffer.as_ptr(), [0, 1, 0, 0], threads, 1);
        return;
    }
    // parallel_dim_reduction: split the outermost kept dim as wide as the thread count.
    let nd = it.shape.len();
    let mut dim = nd - 1;
    let mut d = nd - 1;
    loop {
        if it.is_reduced(d) {
            break;
        }
        if it.shape[d] >= threads {
            dim = d;
            break;
        } else if it.shape[d] > it.shape[dim] {
            dim = d;
        }
        if d == 0 {
            break;
        }
        d -= 1;
    }
    let cols = it.shape[dim];
    let round = it.inp[dim] == 1;
    let per = 128 / std::mem::size_of::<T>();
    let chunks: Vec<(usize, usize)> = omp_chunks(cols, 1, threads)
        .into_iter()
        .map(|(mut b, mut e)| {
            if round {
                b -= b % per;
                if e != cols {
                    e -= e % per;
                }
            }
            (b, e)
        })
        .filter(|(b, e)| b != e)
        .collect();
    let p = Ptrs(out.as_mut_ptr(), inp);
    for_each_index(chunks.len(), |c| {
        let (po, pi) = p.get();
        let (b, e) = chunks[c];
        let mut sub = it.clone();
        sub.shape[dim] = e - b;
        let (o, i) = (b as isize * it.out[dim], b as isize * it.inp[dim]);
        sub.walk::<T, W, NAN>(po.offset(o), pi.offset(i), 0, sub.numel());
    });
}

/// PyTorch's CPU `sum` (or `nansum`, `nan`) of `layout` over `dims` (sorted, unique), in
/// ATen's order: the values in the row-major order of the kept dims.
pub fn cascade_sum<T: CascadeFloat>(
    src: &[T],
    layout: &Layout,
    dims: &[usize],
    keepdim: bool,
    nan: bool,
) -> Vec<T> {
    let outs: usize = (0..layout.ndim())
        .filter(|d| !dims.contains(d))
        .map(|d| layout.shape[d])
        .product();
    let mut out = vec![T::ZERO; outs];
    if layout.numel() == 0 {
        return out;
    }
    let it = ReduceIter::new(layout, dims, keepdim);
    // SAFETY: the layout is a view of `src` (every index it reaches is inside it), and the
    // iterator's output strides are the contiguous strides of `out`.
    unsafe {
        let inp = src.as_ptr().add(layout.offset);
        match (std::mem::size_of::<T>(), nan) {
            (4, false) => run::<T, 8, false>(layout, &it, &mut out, inp),
            (4, true) => run::<T, 8, true>(layout, &it, &mut out, inp),
            (_, false) => run::<T, 4, false>(layout, &it, &mut out, inp),
            (_, true) => run::<T, 4, true>(layout, &it, &mut out, inp),
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The iterator of common layouts: contiguous sums coalesce to one dim, column sums keep
    /// the reduced dim first.
    #[test]
    fn reduce_iter_orders_like_aten() {
        let c = Layout::contiguous(&[3, 4, 5]);
        let all = ReduceIter::new(&c, &[0, 1, 2], false);
        assert_eq!((all.shape, all.inp), (vec![60], vec![1]));
        let cols = ReduceIter::new(&Layout::contiguous(&[7, 9]), &[0], false);
        assert_eq!(
            (cols.shape, cols.out, cols.inp),
            (vec![7, 9], vec![0, 1], vec![9, 1])
        );
        let mid = ReduceIter::new(&c, &[0, 2], false);
        assert_eq!(
            (mid.shape, mid.out, mid.inp),
            (vec![5, 3, 4], vec![0, 0, 1], vec![1, 20, 5])
        );
    }

    /// Small sums equal a plain loop (exact values), under one and two threads.
    #[test]
    fn cascade_sum_exact_values() {
        for threads in [1, 2] {
            super::super::parallel::with_threads(threads, || {
                for (shape, dims) in [
                    (vec![3usize, 5], vec![0usize]),
                    (vec![4, 3, 70_000], vec![1]),
                    (vec![2, 3, 4], vec![0, 1]),
                    (vec![3, 4, 50], vec![0, 2]),
                    (vec![300, 301], vec![0, 1]),
                    (vec![2, 3, 4, 5], vec![0, 2, 3]),
                ] {
                    let n: usize = shape.iter().product();
                    let x: Vec<f32> = (0..n).map(|i| ((i * 7919) % 101) as f32 * 0.25).collect();
                    let layout = Layout::contiguous(&shape);
                    let got = cascade_sum(&x, &layout, &dims, false, false);
                    let want = super::super::reference_sum(&x, &shape, &dims);
                    assert_eq!(got, want, "shape {shape:?} dims {dims:?}");
                }
            })
        }
    }
}
