//! Elementwise fusion: consecutive unary and binary kernels over one index space are held
//! back and recorded as one kernel generated from their declared WGSL expressions, compiled
//! once per pattern (Note [Elementwise fusion]).

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

/// An elementwise op: a unary expression in `v` with parameters `p.a`, `p.b`, `p.c`, or a
/// binary one in `x`, `y` (Note [Op declarations]).
#[derive(Clone, Copy)]
pub(super) enum Op {
    Unary { expr: &'static str, args: [f32; 3] },
    Binary { expr: &'static str },
}

impl Op {
    fn expr(self) -> &'static str {
        match self {
            Op::Unary { expr, .. } | Op::Binary { expr } => expr,
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
    inputs: [Ref; 2],
    out: ::wgpu::Buffer,
    /// Whether its buffer is still held (else its value is only an intermediate).
    live: bool,
}

/// A fused kernel's pattern: what its code depends on (not the buffers, offsets, sizes or
/// parameters, which it reads from its parameter block).
#[derive(Clone, PartialEq, Eq, Hash)]
struct Pattern {
    leaves: Vec<Access>,
    nodes: Vec<PatternOp>,
}

/// One op of a [`Pattern`].
#[derive(Clone, Copy, PartialEq, Eq, Hash)]
struct PatternOp {
    unary: bool,
    expr: &'static str,
    dtype: GpuDType,
    inputs: [Ref; 2],
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
        let storage = g.limits.max_storage_buffers_per_shader_stage as usize;
        self.nodes.len() < MAX_NODES
            && 1 + leaves + args <= PARAM_ROWS
            && leaves + outputs <= storage
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
    st.nodes.push(Node {
        op,
        dtype,
        inputs: [refs[0], *refs.last().expect("an operand")],
        out: out.raw()?.clone(),
        live: true,
    });
    Ok(Some(out))
}

/// Called when a buffer of pool class `class` is dropped: true if the pending group reads or
/// writes it, which then keeps it until the flush and returns it to the pool after.
pub(super) fn claim(g: &Gpu, buf: &::wgpu::Buffer, class: u64) -> bool {
    let mut st = g.fusion.lock();
    if st.nodes.is_empty() {
        return false;
    }
    let mut held = st.leaves.iter().any(|l| &l.buf == buf);
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
    let deferred = std::mem::take(&mut st.deferred);
    let result = record(g, &mut st.cache, st.n, &leaves, &nodes);
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
) -> Result<()> {
    // The ops a live buffer needs, and the leaves they read, renumbered in order.
    let mut need = vec![false; nodes.len()];
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
    let mut used_leaves: Vec<&Leaf> = Vec::new();
    let mut outputs: Vec<&::wgpu::Buffer> = Vec::new();
    let mut args: Vec<[f32; 3]> = Vec::new();
    let mut pattern = Pattern {
        leaves: Vec::new(),
        nodes: Vec::new(),
    };
    for (j, nd) in nodes.iter().enumerate().filter(|(j, _)| need[*j]) {
        let inputs = nd.inputs.map(|r| match r {
            Ref::Leaf(k) => {
                let k = k as usize;
                Ref::Leaf(*leaf_at[k].get_or_insert_with(|| {
                    used_leaves.push(&leaves[k]);
                    pattern.leaves.push(leaves[k].access);
                    (used_leaves.len() - 1) as u8
                }))
            }
            Ref::Node(k) => Ref::Node(node_at[k as usize].expect("an earlier op")),
        });
        node_at[j] = Some(pattern.nodes.len() as u8);
        let out = nd.live.then(|| {
            outputs.push(&nd.out);
            (outputs.len() - 1) as u8
        });
        let arg = match nd.op {
            Op::Unary { args: a, .. } if nd.op.has_args() => {
                args.push(a);
                Some((args.len() - 1) as u8)
            }
            _ => None,
        };
        let unary = matches!(nd.op, Op::Unary { .. });
        pattern.nodes.push(PatternOp {
            unary,
            expr: nd.op.expr(),
            dtype: nd.dtype,
            inputs,
            out,
            arg,
        });
    }
    let kernel = Kernel::Fused {
        inputs: used_leaves.len() as u8,
        outputs: outputs.len() as u8,
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
    for l in &used_leaves {
        params.extend_from_slice(&l.words);
    }
    for a in &args {
        params.extend(a.map(f32::to_bits));
        params.push(0);
    }
    let bufs: Vec<&::wgpu::Buffer> = used_leaves.iter().map(|l| &l.buf).chain(outputs).collect();
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
    let (nl, no) = (
        p.leaves.len(),
        p.nodes.iter().filter(|n| n.out.is_some()).count(),
    );
    let na = p.nodes.iter().filter(|n| n.arg.is_some()).count();
    let mut fns = String::new();
    let mut fn_of: HashMap<(bool, &str), usize> = HashMap::new();
    let mut body = String::new();
    let leaf = |k: u8| format!("l{k}");
    for (k, a) in p.leaves.iter().enumerate() {
        let at = format!("fz_p.leaf[{k}]");
        let idx = match a {
            Access::Contig => format!("{at}.x + i"),
            Access::Number => format!("{at}.x"),
            Access::Run => format!("{at}.x + ((i / {at}.y) % {at}.z) * {at}.w"),
        };
        let _ = writeln!(body, "    let l{k} = fz_in{k}[{idx}];");
    }
    for (j, op) in p.nodes.iter().enumerate() {
        let PatternOp {
            unary,
            expr,
            dtype,
            inputs,
            out,
            arg,
        } = *op;
        let next = fn_of.len();
        let f = *fn_of.entry((unary, expr)).or_insert(next);
        if f == next {
            let _ = if unary {
                writeln!(
                    fns,
                    "fn fz_f{f}(v: f32, p: FzArgs) -> f32 {{\n    return ({expr});\n}}"
                )
            } else {
                writeln!(
                    fns,
                    "fn fz_f{f}(x: f32, y: f32) -> f32 {{\n    return ({expr});\n}}"
                )
            };
        }
        let operand = |r: Ref| match r {
            Ref::Leaf(k) => leaf(k),
            Ref::Node(k) => format!("t{k}"),
        };
        let call = if unary {
            let args = match arg {
                Some(r) => format!("FzArgs(fz_p.arg[{r}].x, fz_p.arg[{r}].y, fz_p.arg[{r}].z)"),
                None => "FzArgs(0.0, 0.0, 0.0)".into(),
            };
            format!("fz_f{f}({}, {args})", operand(inputs[0]))
        } else {
            format!("fz_f{f}({}, {})", operand(inputs[0]), operand(inputs[1]))
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
            let _ = writeln!(body, "    fz_out{o}[i] = t{j};");
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
    if nl > 0 {
        let _ = writeln!(s, "    leaf: array<vec4<u32>, {nl}>,");
    }
    if na > 0 {
        let _ = writeln!(s, "    arg: array<vec4<f32>, {na}>,");
    }
    s.push_str("}\n\n");
    for k in 0..nl {
        let _ = writeln!(
            s,
            "@group(0) @binding({k}) var<storage, read> fz_in{k}: array<f32>;"
        );
    }
    for o in 0..no {
        let _ = writeln!(
            s,
            "@group(0) @binding({}) var<storage, read_write> fz_out{o}: array<f32>;",
            nl + o
        );
    }
    let _ = writeln!(
        s,
        "@group(0) @binding({}) var<uniform> fz_p: FzParams;\n",
        nl + no
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
/// generator with naga): `ops` are (unary?, expression, float16?), each reading the previous
/// value and, for a binary op, a second input read as `second`.
pub fn chain_source(ops: &[(bool, &'static str, bool)], second: u8) -> String {
    let access = [Access::Contig, Access::Number, Access::Run][second as usize % 3];
    let mut p = Pattern {
        leaves: vec![Access::Contig, access],
        nodes: Vec::new(),
    };
    let mut arg = 0;
    for (j, &(unary, expr, half)) in ops.iter().enumerate() {
        let prev = if j == 0 {
            Ref::Leaf(0)
        } else {
            Ref::Node(j as u8 - 1)
        };
        let a = (unary && expr.contains("p.")).then(|| {
            arg += 1;
            arg - 1
        });
        let dtype = if half { GpuDType::F16 } else { GpuDType::F32 };
        let out = (j + 1 == ops.len()).then_some(0);
        p.nodes.push(PatternOp {
            unary,
            expr,
            dtype,
            inputs: [prev, if unary { prev } else { Ref::Leaf(1) }],
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
