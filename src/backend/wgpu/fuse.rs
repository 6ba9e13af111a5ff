//! Elementwise fusion: consecutive unary, binary and ternary (where / lerp) kernels over one
//! index space, and in-place ops' copies of their values into their tensors, are held back and
//! recorded as one kernel generated from their declared WGSL expressions, compiled once per
//! pattern (Note [Elementwise fusion]).

use super::buffer::{len_u32, words, GpuBuffer};
use super::context::{Gpu, GpuDType, Kernel, Pipeline, WORKGROUP};
use crate::error::Result;
use std::collections::{HashMap, HashSet};
use std::fmt::Write as _;
use std::sync::atomic::{AtomicU8, Ordering};
use std::sync::OnceLock;

// Note [Elementwise fusion]: fusion happens at the dispatch level, below tensors, so nothing
// above the backend changes: every op still gets its own, real output buffer, allocated when
// the op runs, and its tensor, views, version counter and saved values are what they were.
// What changes is when the kernel is recorded. A unary or binary kernel whose operands are
// read contiguously, as a broadcast number, or through one strided run (`Access`) is not
// dispatched but appended to the pending group (`State`): a DAG of ops over one index space
// of n elements, whose leaves are the buffers read and whose nodes are the ops. An operand
// that is a node's output read element for element becomes an edge, so the value never
// leaves the registers. Before anything else is recorded (any other dispatch, a copy, a
// read-back, a submit; `Gpu::dispatch` / `record` / `flush` call `flush` here), the group is
// recorded as one dispatch of a kernel generated for its pattern: each node's declared
// expression as a function, called in the order the ops ran, each result rounded to half
// after its op when that op's dtype is float16 (as the unfused kernels do), and written to
// the node's buffer if the buffer is still alive. A node's buffer dropped before the flush
// (a temporary such as `x * w` in `x * w + b`) is not written, and it and any dropped leaf
// go back to the pool only after the flush (`claim`), so no buffer the kernel reads or
// writes is handed out again meanwhile. The group is bounded (`MAX_NODES`, the storage
// bindings, the 256-byte parameter block): an op that does not fit flushes it first, which
// also bounds the memory that held-back temporaries keep. The same ops run in the same
// order on the same values, and each op's value passes through an opaque select (`fz_keep`)
// as an unfused op's passes through memory, so the compiler optimizes each op's code alone,
// as it does unfused: the results are bit-identical on lavapipe (no multiply contracted with
// the next op's add, no log(exp(x)) folded to x).
// Where and lerp (`TernaryOp::fused_expr`: where.wgsl's computation) join like binary ops.
// An in-place op computes its value into a new buffer and copies it into its tensor; when
// that value is a node of the group and the copy is dense, the copy becomes a store of the
// group (`store`): the kernel writes the node's value into the tensor's buffer at its offset
// too, so `p.sub_(lr * g)` and Adam's updates are part of the kernel. Each invocation reads
// its leaves before it writes anything, so a store target may be read by the group's earlier
// ops only at the stored elements (each invocation its own element, before its store); after
// the store, reading those elements is reading the stored node's value, and another store
// there replaces it (the last write wins); any other read of the target, or a store into it
// at another offset, waits for a new kernel (`resolve` / `store` refuse, the caller flushes
// or copies). A store into a node's own output buffer writes the stored value instead of
// that node's.
// `GRADRS_GPU_FUSION=0` (or `_native._gpu_set_fusion(False)`) turns it off: the unfused
// reference for tests.

/// Set to "0", elementwise kernels are dispatched one by one (the unfused reference).
pub const FUSION_VAR: &str = "GRADRS_GPU_FUSION";

/// Ops in one fused kernel at most: a longer chain is split.
const MAX_NODES: usize = 16;

/// 16-byte rows of the parameter block (256 bytes): the header, one per leaf, one per op
/// with parameters.
const PARAM_ROWS: usize = 16;

/// Fused pipelines kept; past it the cache starts over.
const MAX_PATTERNS: usize = 1024;

/// 0: not yet read from [`FUSION_VAR`], 1: on, 2: off.
static ENABLED: AtomicU8 = AtomicU8::new(0);

/// Whether elementwise kernels are fused.
pub fn enabled() -> bool {
    match ENABLED.load(Ordering::Relaxed) {
        1 => true,
        2 => false,
        _ => {
            let on = std::env::var(FUSION_VAR).map_or(true, |v| v.trim() != "0");
            ENABLED.store(if on { 1 } else { 2 }, Ordering::Relaxed);
            on
        }
    }
}

/// Turns fusion on or off (tests compare fused results with unfused ones); returns whether
/// it was on. Ops already held back are still fused.
pub fn set_enabled(on: bool) -> bool {
    let was = enabled();
    ENABLED.store(if on { 1 } else { 2 }, Ordering::Relaxed);
    was
}

/// How a fused kernel reads an operand at flat index `i`: `Contig`: `offset + i`;
/// `Number`: `offset` (a broadcast number); `Run`: `offset + ((i / div) % len) * stride`
/// (a broadcast bias row, a per-row statistic, a strided view of one run).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub(super) enum Access {
    Contig,
    Number,
    Run,
}

/// An operand: its buffer, how it is read, and the access's words (offset, div, len,
/// stride).
pub(super) struct Operand<'a> {
    pub buf: &'a GpuBuffer,
    pub access: Access,
    pub words: [u32; 4],
}

/// How a view with `strides` (0 on broadcast dims) over the contiguous index space `shape`
/// is read by a fused kernel, if one [`Access`] describes it.
pub(super) fn access(
    strides: &[usize],
    shape: &[usize],
    offset: usize,
) -> Option<(Access, [u32; 4])> {
    let off = u32::try_from(offset).ok()?;
    let varying: Vec<usize> = (0..shape.len())
        .filter(|&d| shape[d] > 1 && strides[d] != 0)
        .collect();
    let (Some(&first), Some(&last)) = (varying.first(), varying.last()) else {
        return Some((Access::Number, [off, 0, 0, 0]));
    };
    // One run: the dims from first to last step through memory as one, innermost last.
    let stride = strides[last];
    let mut expect = stride;
    for d in (first..=last).rev() {
        if shape[d] == 1 {
            continue;
        }
        if strides[d] != expect {
            return None;
        }
        expect = expect.checked_mul(shape[d])?;
    }
    let div: usize = shape[last + 1..].iter().product();
    let len: usize = shape[first..=last].iter().product();
    let n: usize = shape.iter().product();
    if div == 1 && stride == 1 && len == n {
        return Some((Access::Contig, [off, 0, 0, 0]));
    }
    let w = |v: usize| u32::try_from(v).ok();
    Some((Access::Run, [off, w(div)?, w(len)?, w(stride)?]))
}

/// What an op reads: a leaf (an input buffer) or an earlier node's value.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
enum Ref {
    Leaf(u8),
    Node(u8),
}

/// An elementwise op: a unary expression in `v` with parameters `p.a`, `p.b`, `p.c`, a
/// binary one in `x`, `y` (Note [Op declarations]), or a ternary one in `c`, `x`, `y` (the
/// where shader's select and lerp, [`super::TernaryOp::fused_expr`]).
#[derive(Clone, Copy)]
pub(super) enum Op {
    Unary { expr: &'static str, args: [f32; 3] },
    Binary { expr: &'static str },
    Ternary { expr: &'static str },
}

impl Op {
    fn expr(self) -> &'static str {
        match self {
            Op::Unary { expr, .. } | Op::Binary { expr } | Op::Ternary { expr } => expr,
        }
    }

    /// Operands read: 1, 2 or 3.
    fn arity(self) -> u8 {
        match self {
            Op::Unary { .. } => 1,
            Op::Binary { .. } => 2,
            Op::Ternary { .. } => 3,
        }
    }

    /// Whether it reads parameters (and so takes a row of the parameter block).
    fn has_args(self) -> bool {
        matches!(self, Op::Unary { expr, .. } if expr.contains("p."))
    }
}

struct Leaf {
    buf: ::wgpu::Buffer,
    access: Access,
    words: [u32; 4],
}

struct Node {
    op: Op,
    dtype: GpuDType,
    inputs: [Ref; 3],
    out: ::wgpu::Buffer,
    /// Whether its buffer is still held (else its value is only an intermediate).
    live: bool,
}

/// A node's value also written into an existing buffer at `offset + i`: an in-place op's
/// copy into its tensor (`copy` of a fused value, [`store`]).
struct Store {
    node: u8,
    buf: ::wgpu::Buffer,
    offset: u32,
}

/// A fused kernel's pattern: what its code depends on (not the buffers, offsets, sizes or
/// parameters, which it reads from its parameter block).
#[derive(Clone, PartialEq, Eq, Hash)]
struct Pattern {
    /// Each leaf: how it is read, and its binding.
    leaves: Vec<(Access, u8)>,
    nodes: Vec<PatternOp>,
    /// Each store: the op whose value it writes, and its binding.
    stores: Vec<(u8, u8)>,
    /// Bindings: read-only ones, then written ones.
    read: u8,
    write: u8,
}

/// One op of a [`Pattern`].
#[derive(Clone, Copy, PartialEq, Eq, Hash)]
struct PatternOp {
    arity: u8,
    expr: &'static str,
    dtype: GpuDType,
    inputs: [Ref; 3],
    /// The output binding it writes, if its value is still held.
    out: Option<u8>,
    /// Its row of the parameter block, if it reads parameters.
    arg: Option<u8>,
}

/// The pending group and the fused pipelines (`Gpu::fusion`).
#[derive(Default)]
pub struct State {
    n: usize,
    leaves: Vec<Leaf>,
    nodes: Vec<Node>,
    stores: Vec<Store>,
    /// Buffers dropped while the group reads or writes them: back to the pool after it.
    deferred: Vec<(::wgpu::Buffer, u64)>,
    cache: HashMap<Pattern, Pipeline>,
}

impl State {
    /// The refs of `operands` in the group, pushing new leaves only when `push`; None when an
    /// operand cannot be read inside it (a node's value read other than element for element,
    /// or another index space).
    fn resolve(&mut self, operands: &[Operand], n: usize, push: bool) -> Option<Vec<Ref>> {
        if !self.nodes.is_empty() && self.n != n {
            return None;
        }
        let mut refs = Vec::with_capacity(operands.len());
        for o in operands {
            let buf = o.buf.raw().ok()?;
            if let Some(s) = self.stores.iter().find(|s| &s.buf == buf) {
                // Read where it was stored, element for element, it is the stored value; read
                // elsewhere, other invocations' stores race with the read: a new kernel.
                if o.access != Access::Contig || o.words[0] != s.offset {
                    return None;
                }
                refs.push(Ref::Node(s.node));
                continue;
            }
            if let Some(j) = self.nodes.iter().position(|nd| &nd.out == buf) {
                if o.access != Access::Contig || o.words[0] != 0 {
                    return None;
                }
                refs.push(Ref::Node(j as u8));
                continue;
            }
            let same = |l: &Leaf| &l.buf == buf && l.access == o.access && l.words == o.words;
            if let Some(k) = self.leaves.iter().position(same) {
                refs.push(Ref::Leaf(k as u8));
            } else if push {
                self.leaves.push(Leaf {
                    buf: buf.clone(),
                    access: o.access,
                    words: o.words,
                });
                refs.push(Ref::Leaf((self.leaves.len() - 1) as u8));
            } else {
                // A leaf to come (`fits` counts it); pushed on the second pass.
                refs.push(Ref::Leaf(u8::MAX));
            }
        }
        Some(refs)
    }

    /// Whether `op` over `operands` fits the group (bindings, parameter rows, length).
    fn fits(&self, g: &Gpu, op: Op, operands: &[Operand]) -> bool {
        let mut new: Vec<(&::wgpu::Buffer, Access, [u32; 4])> = Vec::new();
        for o in operands {
            let Ok(buf) = o.buf.raw() else { return false };
            let known = self.nodes.iter().any(|nd| &nd.out == buf)
                || self.stores.iter().any(|s| &s.buf == buf)
                || self
                    .leaves
                    .iter()
                    .any(|l| &l.buf == buf && l.access == o.access && l.words == o.words);
            if !known
                && !new
                    .iter()
                    .any(|&(b, a, w)| b == buf && a == o.access && w == o.words)
            {
                new.push((buf, o.access, o.words));
            }
        }
        let leaves = self.leaves.len() + new.len();
        let outputs = self.nodes.iter().filter(|nd| nd.live).count() + 1;
        let args = self.nodes.iter().filter(|nd| nd.op.has_args()).count() + op.has_args() as usize;
        self.nodes.len() < MAX_NODES && Self::room(g, leaves, outputs, args, self.stores.len())
    }

    /// Whether `leaves`, `outputs`, `args` and `stores` fit the storage bindings and the
    /// parameter block (a leaf that is also stored into counts twice: an upper bound).
    fn room(g: &Gpu, leaves: usize, outputs: usize, args: usize, stores: usize) -> bool {
        let storage = g.limits.max_storage_buffers_per_shader_stage as usize;
        1 + leaves + args + stores <= PARAM_ROWS && leaves + outputs + stores <= storage
    }
}

/// Appends `op` over `operands` (an index space of `n` elements, results `dtype`) to the
/// pending group, returning its output buffer; None where it is not fused (fusion off, int32
/// words, chunked or empty tensors), and the caller dispatches it itself.
pub(super) fn append(
    g: &'static Gpu,
    dtype: GpuDType,
    op: Op,
    operands: &[Operand],
    n: usize,
) -> Result<Option<GpuBuffer>> {
    if !enabled()
        || dtype == GpuDType::I32
        || n == 0
        || n > g.chunk_words()
        || operands.iter().any(|o| o.buf.is_chunked())
    {
        return Ok(None);
    }
    let mut st = g.fusion.lock();
    let fits = st.resolve(operands, n, false).is_some() && st.fits(g, op, operands);
    if !fits {
        flush(g, &mut st)?;
        if !st.fits(g, op, operands) {
            return Ok(None);
        }
    }
    let Some(refs) = st.resolve(operands, n, true) else {
        return Ok(None);
    };
    let out = GpuBuffer::alloc(g, n)?;
    st.n = n;
    let last = |k: usize| refs[k.min(refs.len() - 1)];
    st.nodes.push(Node {
        op,
        dtype,
        inputs: [last(0), last(1), last(2)],
        out: out.raw()?.clone(),
        live: true,
    });
    Ok(Some(out))
}

/// Records a copy of `x`'s `n` words into `out` at `offset` (an in-place op writing its
/// result into its tensor) as part of the pending group, when `x` is an op's value there:
/// the kernel writes the value into `out` directly. True when done so; false (nothing
/// recorded) and the caller copies. Before the store, the group may read `out` only element
/// for element at the same place (each invocation reads its element before writing it);
/// after it, such a read is the stored value (`resolve`), and another store there replaces
/// this one (the last write wins, as unfused). `out` may be an op's own output (`d.add_(eps)`
/// on a fused `d`): that op's value is then not written, the stored one is.
pub(super) fn store(x: &GpuBuffer, n: usize, out: &GpuBuffer, offset: usize) -> Result<bool> {
    let g = x.gpu;
    if !enabled() || x.is_chunked() || out.is_chunked() || n == 0 {
        return Ok(false);
    }
    let Ok(offset) = u32::try_from(offset) else {
        return Ok(false);
    };
    let (xb, ob) = (x.raw()?, out.raw()?);
    let mut st = g.fusion.lock();
    let Some(j) = st.nodes.iter().position(|nd| &nd.out == xb) else {
        return Ok(false);
    };
    if st.n != n {
        return Ok(false);
    }
    if let Some(s) = st.stores.iter_mut().find(|s| &s.buf == ob) {
        if s.offset != offset {
            return Ok(false);
        }
        s.node = j as u8;
        return Ok(true);
    }
    // An op's output holds n words: a dense copy of n words into it starts at 0.
    let overwritten = st.nodes.iter().position(|nd| &nd.out == ob);
    if overwritten.is_some() && offset != 0 {
        return Ok(false);
    }
    let outputs = st.nodes.iter().filter(|nd| nd.live).count();
    let args = st.nodes.iter().filter(|nd| nd.op.has_args()).count();
    let ok = st
        .leaves
        .iter()
        .filter(|l| &l.buf == ob)
        .all(|l| l.access == Access::Contig && l.words[0] == offset)
        && State::room(g, st.leaves.len(), outputs, args, st.stores.len() + 1);
    if !ok {
        return Ok(false);
    }
    if let Some(k) = overwritten {
        st.nodes[k].live = false;
    }
    st.stores.push(Store {
        node: j as u8,
        buf: ob.clone(),
        offset,
    });
    Ok(true)
}

/// Called when a buffer of pool class `class` is dropped: true if the pending group reads or
/// writes it, which then keeps it until the flush and returns it to the pool after.
pub(super) fn claim(g: &Gpu, buf: &::wgpu::Buffer, class: u64) -> bool {
    let mut st = g.fusion.lock();
    if st.nodes.is_empty() {
        return false;
    }
    let mut held =
        st.leaves.iter().any(|l| &l.buf == buf) || st.stores.iter().any(|s| &s.buf == buf);
    for nd in st.nodes.iter_mut().filter(|nd| &nd.out == buf) {
        nd.live = false;
        held = true;
    }
    if held {
        st.deferred.push((buf.clone(), class));
    }
    held
}

/// Records the pending group as one dispatch (nothing when no op's value is still needed)
/// and empties it.
pub(super) fn flush(g: &Gpu, st: &mut State) -> Result<()> {
    if st.nodes.is_empty() {
        return Ok(());
    }
    let leaves = std::mem::take(&mut st.leaves);
    let nodes = std::mem::take(&mut st.nodes);
    let stores = std::mem::take(&mut st.stores);
    let deferred = std::mem::take(&mut st.deferred);
    let result = record(g, &mut st.cache, st.n, &leaves, &nodes, &stores);
    if !deferred.is_empty() {
        let mut pool = g.pool.lock();
        for (b, class) in deferred {
            pool.give_back(class, b);
        }
    }
    result
}

fn record(
    g: &Gpu,
    cache: &mut HashMap<Pattern, Pipeline>,
    n: usize,
    leaves: &[Leaf],
    nodes: &[Node],
    stores: &[Store],
) -> Result<()> {
    // The ops a live buffer or a store needs, and the leaves they read, renumbered in order.
    let mut need = vec![false; nodes.len()];
    for s in stores {
        need[s.node as usize] = true;
    }
    for j in (0..nodes.len()).rev() {
        need[j] |= nodes[j].live;
        if need[j] {
            for r in nodes[j].inputs {
                if let Ref::Node(k) = r {
                    need[k as usize] = true;
                }
            }
        }
    }
    if !need.contains(&true) {
        return Ok(());
    }
    let mut leaf_at = vec![None; leaves.len()];
    let mut node_at = vec![None; nodes.len()];
    let mut used: Vec<usize> = Vec::new();
    let mut outputs: Vec<usize> = Vec::new();
    let mut args: Vec<[f32; 3]> = Vec::new();
    let mut ops: Vec<PatternOp> = Vec::new();
    for (j, nd) in nodes.iter().enumerate().filter(|(j, _)| need[*j]) {
        let inputs = nd.inputs.map(|r| match r {
            Ref::Leaf(k) => {
                let k = k as usize;
                Ref::Leaf(*leaf_at[k].get_or_insert_with(|| {
                    used.push(k);
                    (used.len() - 1) as u8
                }))
            }
            Ref::Node(k) => Ref::Node(node_at[k as usize].expect("an earlier op")),
        });
        node_at[j] = Some(ops.len() as u8);
        let out = nd.live.then(|| {
            outputs.push(j);
            (outputs.len() - 1) as u8
        });
        let arg = match nd.op {
            Op::Unary { args: a, .. } if nd.op.has_args() => {
                args.push(a);
                Some((args.len() - 1) as u8)
            }
            _ => None,
        };
        ops.push(PatternOp {
            arity: nd.op.arity(),
            expr: nd.op.expr(),
            dtype: nd.dtype,
            inputs,
            out,
            arg,
        });
    }
    // Bindings: the leaves only read, then the written buffers: leaves that a store writes
    // (read and written through one binding), the ops' outputs, the other store targets.
    let stored = |b: &::wgpu::Buffer| stores.iter().any(|s| &s.buf == b);
    let mut bufs: Vec<&::wgpu::Buffer> = Vec::new();
    let mut leaf_binding = vec![0u8; used.len()];
    for written in [false, true] {
        for (u, &k) in used.iter().enumerate() {
            if stored(&leaves[k].buf) == written {
                leaf_binding[u] = bufs.len() as u8;
                bufs.push(&leaves[k].buf);
            }
        }
    }
    let read = used.iter().filter(|&&k| !stored(&leaves[k].buf)).count();
    let out_base = bufs.len();
    for &j in &outputs {
        bufs.push(&nodes[j].out);
    }
    for op in &mut ops {
        op.out = op.out.map(|o| (out_base + o as usize) as u8);
    }
    let mut pattern_stores = Vec::new();
    for s in stores {
        let at = match bufs.iter().position(|&b| b == &s.buf) {
            Some(at) => at,
            None => {
                bufs.push(&s.buf);
                bufs.len() - 1
            }
        };
        let node = node_at[s.node as usize].expect("a stored op is needed");
        pattern_stores.push((node, at as u8));
    }
    let pattern = Pattern {
        leaves: used
            .iter()
            .zip(&leaf_binding)
            .map(|(&k, &b)| (leaves[k].access, b))
            .collect(),
        nodes: ops,
        stores: pattern_stores,
        read: read as u8,
        write: (bufs.len() - read) as u8,
    };
    let kernel = Kernel::Fused {
        inputs: pattern.read,
        outputs: pattern.write,
    };
    let pipeline = match cache.get(&pattern) {
        Some(p) => p.clone(),
        None => {
            let p = g.fused_pipeline(kernel, source(&pattern))?;
            if cache.len() >= MAX_PATTERNS {
                cache.clear();
            }
            cache.insert(pattern, p.clone());
            p
        }
    };
    let mut params = vec![len_u32(n, "length")?, 0, 0, 0];
    for &k in &used {
        params.extend_from_slice(&leaves[k].words);
    }
    for a in &args {
        params.extend(a.map(f32::to_bits));
        params.push(0);
    }
    for s in stores {
        params.extend([s.offset, 0, 0, 0]);
    }
    let groups = g.grid((n as u64).div_ceil(WORKGROUP))?;
    g.dispatch_now(&pipeline, &bufs, words(&params), groups)
}

/// The helper functions of the unary and binary shaders, which declared expressions call.
struct Library {
    /// (name, source, identifiers it uses), in file order, each name once.
    items: Vec<(String, &'static str, Vec<String>)>,
    at: HashMap<String, usize>,
}

/// The identifiers in `src` (comments skipped, numbers not counted).
fn identifiers(src: &str) -> Vec<String> {
    let mut out = Vec::new();
    for line in src.lines() {
        let code = line.split("//").next().unwrap_or("");
        let mut cur = String::new();
        let mut number = false;
        for ch in code.chars().chain(std::iter::once(' ')) {
            if ch.is_ascii_alphanumeric() || ch == '_' {
                if cur.is_empty() {
                    number = ch.is_ascii_digit();
                }
                cur.push(ch);
            } else {
                if !cur.is_empty() && !number {
                    out.push(std::mem::take(&mut cur));
                }
                cur.clear();
            }
        }
    }
    out
}

/// The top-level items of a WGSL source (each with the comments before it): from one item's
/// end to the next `;` or closing `}` at depth 0.
fn items(src: &'static str) -> Vec<&'static str> {
    let b = src.as_bytes();
    let (mut out, mut start, mut depth, mut i) = (Vec::new(), 0, 0i32, 0);
    while i < b.len() {
        if b[i] == b'/' && b.get(i + 1) == Some(&b'/') {
            while i < b.len() && b[i] != b'\n' {
                i += 1;
            }
            continue;
        }
        let end = match b[i] {
            b'{' => {
                depth += 1;
                false
            }
            b'}' => {
                depth -= 1;
                depth == 0
            }
            b';' => depth == 0,
            _ => false,
        };
        if end {
            out.push(&src[start..=i]);
            start = i + 1;
        }
        i += 1;
    }
    out
}

/// The name an item declares, if it declares one.
fn declared_name(ids: &[String]) -> Option<&str> {
    let at = ids.iter().position(|t| {
        matches!(
            t.as_str(),
            "fn" | "struct" | "const" | "override" | "alias" | "var"
        )
    })?;
    ids[at + 1..]
        .iter()
        .find(|t| {
            !matches!(
                t.as_str(),
                "private" | "workgroup" | "storage" | "uniform" | "read" | "read_write"
            )
        })
        .map(String::as_str)
}

fn library() -> &'static Library {
    static LIB: OnceLock<Library> = OnceLock::new();
    LIB.get_or_init(|| {
        let mut lib = Library {
            items: Vec::new(),
            at: HashMap::new(),
        };
        // The kernels' own parts (bindings, parameters, entry points, the expression slots)
        // are left out: a fused kernel has its own.
        let skip = [
            "main",
            "apply",
            "declared",
            "declared_int",
            "Params",
            "HALF",
            "INT",
        ];
        for file in [
            include_str!("shaders/unary.wgsl"),
            include_str!("shaders/special_gamma.wgsl"),
            include_str!("shaders/special_normal.wgsl"),
            include_str!("shaders/special_bessel.wgsl"),
            include_str!("shaders/binary.wgsl"),
        ] {
            for item in items(file) {
                let ids = identifiers(item);
                let Some(name) = declared_name(&ids) else {
                    continue;
                };
                if skip.contains(&name) || item.contains("@group(") || lib.at.contains_key(name) {
                    continue;
                }
                let name = name.to_string();
                lib.at.insert(name.clone(), lib.items.len());
                lib.items.push((name, item, ids));
            }
        }
        lib
    })
}

/// The helpers `code` calls, directly or through each other, in the files' order.
fn helpers(code: &str) -> String {
    let lib = library();
    let mut keep = vec![false; lib.items.len()];
    let mut todo = identifiers(code);
    let mut seen: HashSet<String> = HashSet::new();
    while let Some(id) = todo.pop() {
        if !seen.insert(id.clone()) {
            continue;
        }
        if let Some(&i) = lib.at.get(&id) {
            keep[i] = true;
            todo.extend(lib.items[i].2.iter().cloned());
        }
    }
    let mut out = String::new();
    for (i, (_, src, _)) in lib.items.iter().enumerate() {
        if keep[i] {
            out.push_str(src.trim_start_matches('\n'));
            out.push('\n');
        }
    }
    out
}

/// The WGSL of a fused kernel: the helpers its expressions need, one function per distinct
/// expression, and `main` computing the ops in order (Note [Elementwise fusion]).
fn source(p: &Pattern) -> String {
    let na = p.nodes.iter().filter(|n| n.arg.is_some()).count();
    let mut fns = String::new();
    let mut fn_of: HashMap<(u8, &str), usize> = HashMap::new();
    let mut body = String::new();
    for (k, &(a, b)) in p.leaves.iter().enumerate() {
        let at = format!("fz_p.leaf[{k}]");
        let idx = match a {
            Access::Contig => format!("{at}.x + i"),
            Access::Number => format!("{at}.x"),
            Access::Run => format!("{at}.x + ((i / {at}.y) % {at}.z) * {at}.w"),
        };
        let _ = writeln!(body, "    let l{k} = fz_b{b}[{idx}];");
    }
    for (j, op) in p.nodes.iter().enumerate() {
        let PatternOp {
            arity,
            expr,
            dtype,
            inputs,
            out,
            arg,
        } = *op;
        let next = fn_of.len();
        let f = *fn_of.entry((arity, expr)).or_insert(next);
        if f == next {
            let params = [
                "v: f32, p: FzArgs",
                "x: f32, y: f32",
                "c: f32, x: f32, y: f32",
            ];
            let params = params[arity as usize - 1];
            let _ = writeln!(
                fns,
                "fn fz_f{f}({params}) -> f32 {{\n    return ({expr});\n}}"
            );
        }
        let operand = |r: Ref| match r {
            Ref::Leaf(k) => format!("l{k}"),
            Ref::Node(k) => format!("t{k}"),
        };
        let call = match arity {
            1 => {
                let args = match arg {
                    Some(r) => {
                        format!("FzArgs(fz_p.arg[{r}].x, fz_p.arg[{r}].y, fz_p.arg[{r}].z)")
                    }
                    None => "FzArgs(0.0, 0.0, 0.0)".into(),
                };
                format!("fz_f{f}({}, {args})", operand(inputs[0]))
            }
            2 => format!("fz_f{f}({}, {})", operand(inputs[0]), operand(inputs[1])),
            _ => format!(
                "fz_f{f}({}, {}, {})",
                operand(inputs[0]),
                operand(inputs[1]),
                operand(inputs[2])
            ),
        };
        let _ = writeln!(body, "    var t{j} = {call};");
        if dtype == GpuDType::F16 {
            let _ = writeln!(
                body,
                "    t{j} = bitcast<f32>(round_half(bitcast<u32>(t{j})));"
            );
        }
        let _ = writeln!(body, "    t{j} = fz_keep(t{j});");
        if let Some(o) = out {
            let _ = writeln!(body, "    fz_b{o}[i] = t{j};");
        }
        for (s, &(node, b)) in p.stores.iter().enumerate() {
            if node as usize == j {
                let _ = writeln!(body, "    fz_b{b}[fz_p.sto[{s}].x + i] = t{j};");
            }
        }
    }
    let mut s = String::new();
    s.push_str(include_str!("shaders/common.wgsl"));
    s.push_str(&helpers(&fns));
    s.push_str(include_str!("shaders/half.wgsl"));
    s.push_str("\nstruct FzArgs {\n    a: f32,\n    b: f32,\n    c: f32,\n}\n\n");
    s.push_str(
        "struct FzParams {\n    n: u32,\n    opaque: u32,\n    _pad1: u32,\n    _pad2: u32,\n",
    );
    let rows = [
        ("leaf", "u32", p.leaves.len()),
        ("arg", "f32", na),
        ("sto", "u32", p.stores.len()),
    ];
    for (name, ty, count) in rows {
        if count > 0 {
            let _ = writeln!(s, "    {name}: array<vec4<{ty}>, {count}>,");
        }
    }
    s.push_str("}\n\n");
    let (read, write) = (p.read as usize, p.write as usize);
    for b in 0..read + write {
        let access = if b < read { "read" } else { "read_write" };
        let _ = writeln!(
            s,
            "@group(0) @binding({b}) var<storage, {access}> fz_b{b}: array<f32>;"
        );
    }
    let _ = writeln!(
        s,
        "@group(0) @binding({}) var<uniform> fz_p: FzParams;\n",
        read + write
    );
    // Each op's value passes through a select on a uniform the compiler cannot see through
    // (`opaque` is 0), as an unfused op's value passes through memory: without it a compiler
    // rewrites across ops with its inexact algebra (lavapipe's NIR turned log(exp(x)) into x,
    // dropping exp's overflow) or contracts one op's multiply with the next op's add.
    s.push_str(
        "fn fz_keep(v: f32) -> f32 {\n    return select(v, bitcast<f32>(fz_p.opaque), fz_p.opaque != 0u);\n}\n\n",
    );
    s.push_str(&fns);
    s.push_str(
        "\n@compute @workgroup_size(256)\nfn main(\n    @builtin(global_invocation_id) gid: vec3<u32>,\n    @builtin(num_workgroups) nwg: vec3<u32>,\n) {\n    let i = flat_index(gid, nwg);\n    if (i >= fz_p.n) {\n        return;\n    }\n",
    );
    s.push_str(&body);
    s.push_str("}\n");
    s
}

/// A fused kernel's source for a chain of ops over one contiguous input (tests validate the
/// generator with naga): `ops` are (operands, expression, float16?), each reading the previous
/// value and, for a binary or ternary op, inputs read as `second` picks; the last value is
/// also stored into the first input (an in-place op).
pub fn chain_source(ops: &[(u8, &'static str, bool)], second: u8) -> String {
    let access = [Access::Contig, Access::Number, Access::Run][second as usize % 3];
    let mut p = Pattern {
        leaves: vec![(Access::Contig, 2), (access, 0), (Access::Contig, 1)],
        nodes: Vec::new(),
        stores: vec![((ops.len() - 1) as u8, 2)],
        read: 2,
        write: 2,
    };
    let mut arg = 0;
    for (j, &(arity, expr, half)) in ops.iter().enumerate() {
        let prev = if j == 0 {
            Ref::Leaf(0)
        } else {
            Ref::Node(j as u8 - 1)
        };
        let a = (arity == 1 && expr.contains("p.")).then(|| {
            arg += 1;
            arg - 1
        });
        let dtype = if half { GpuDType::F16 } else { GpuDType::F32 };
        let out = (j + 1 == ops.len()).then_some(3);
        p.nodes.push(PatternOp {
            arity,
            expr,
            dtype,
            inputs: [prev, Ref::Leaf(1), Ref::Leaf(2)],
            out,
            arg: a,
        });
    }
    source(&p)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn access_classifies_views() {
        let shape = [4, 3];
        assert_eq!(
            access(&[3, 1], &shape, 5).map(|a| a.0),
            Some(Access::Contig)
        );
        assert_eq!(
            access(&[0, 0], &shape, 2),
            Some((Access::Number, [2, 0, 0, 0]))
        );
        // A bias row broadcast over rows; a per-row statistic broadcast over columns.
        assert_eq!(
            access(&[0, 1], &shape, 0),
            Some((Access::Run, [0, 1, 3, 1]))
        );
        assert_eq!(
            access(&[1, 0], &shape, 0),
            Some((Access::Run, [0, 3, 4, 1]))
        );
        // A transpose is two runs: not fused.
        assert_eq!(access(&[1, 4], &shape, 0), None);
        assert_eq!(
            access(&[6, 2], &shape, 0),
            Some((Access::Run, [0, 1, 12, 2]))
        );
    }

    #[test]
    fn the_library_has_every_helper_once_and_no_kernel_parts() {
        let lib = library();
        for name in ["sigmoid", "log1p_", "pow_", "round_half_", "main", "Params"] {
            let found = lib.at.contains_key(name);
            assert_eq!(
                found,
                !matches!(name, "main" | "Params" | "round_half_"),
                "{name}"
            );
        }
        assert!(lib.items.iter().all(|(_, src, _)| !src.contains("@group(")));
    }
}
