//! The kernel families (one shader file each, or a fused kernel generated per pattern), the
//! WGSL source each is built from, and the context's pipeline cache: compiling a kernel for
//! an (op, dtype, expression) and reading its bind group layout off the shader.

use super::{usable, Gpu};
use crate::error::{Error, Result};
use std::borrow::Cow;
use std::sync::Arc;

/// Threads per workgroup of the 1-D kernels (unary, binary); their shaders hard-code it.
pub const WORKGROUP: u64 = 256;

/// Matmul's op for its 64x64-tile entry point (op 0 is the 128x128 one).
pub const MATMUL_SMALL: u32 = 1;

/// The sort op bit that picks its one-step-per-dispatch entry point (sort.wgsl).
pub const SORT_STEP: u32 = 2;

/// The kernel families, one shader file each.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Kernel {
    Unary,
    Binary,
    Reduce,
    Matmul,
    Copy,
    Where,
    Softmax,
    Scan,
    Window,
    Index,
    Sort,
    /// A fused chain of elementwise ops (`fuse.rs`), generated per pattern: `inputs`
    /// read-only storage buffers, then `outputs` written ones, then the uniform.
    Fused {
        inputs: u8,
        outputs: u8,
    },
}

/// What a pipeline's results are: float32, or float16 (float32 words holding half values,
/// Note [Narrow dtypes]), which the unary and binary shaders round to under their `HALF`
/// override; or, for the binary shader's comparisons only (its `INT` override), operands
/// that are int32 words (int64 and int32 tensors), compared as integers.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum GpuDType {
    F32,
    F16,
    I32,
}

/// What a pipeline is cached under: the kernel family, the op (its `OP` override), dtype and,
/// for the kernels generated around an elementwise expression ([`Kernel::with_expr`]), that
/// expression (empty for the others).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct PipelineKey {
    pub kernel: Kernel,
    pub op: u32,
    pub dtype: GpuDType,
    pub expr: &'static str,
}

/// Where a generated shader's expression goes: the rest of that statement (up to its `;`) is
/// replaced by the expression.
const EXPR_MARK: &str = "/*expr*/";
/// The same over int32 words (the binary shader's `INT` pipelines: integer comparisons).
const EXPR_INT_MARK: &str = "/*expr_int*/";

impl Kernel {
    /// The WGSL source: `common.wgsl` (the dispatch index, packed dims, NaN test) prepended
    /// to every shader, and `half.wgsl` appended to those that write half values (WGSL has no
    /// includes); for the shaders that select an op by its code, the constants naming the
    /// codes at the end (`op_codes!`: `ReduceOp`, `ScanOp`, `TernaryOp`).
    pub fn source(self) -> Cow<'static, str> {
        let codes = match self {
            Kernel::Reduce => super::super::ReduceOp::wgsl_consts(),
            Kernel::Scan => super::super::ScanOp::wgsl_consts(),
            Kernel::Where => super::super::TernaryOp::wgsl_consts(),
            _ => return Cow::Borrowed(self.file()),
        };
        Cow::Owned(format!(
            "{}\n// Op codes, from the op enum's table.\n{codes}",
            self.file()
        ))
    }

    /// The shader's own source (with its prelude and postlude files).
    const fn file(self) -> &'static str {
        macro_rules! shader {
            ($file:literal) => {
                concat!(include_str!("../shaders/common.wgsl"), include_str!($file))
            };
            ($($file:literal),+; half) => {
                concat!(
                    include_str!("../shaders/common.wgsl"),
                    $(include_str!($file),)+
                    include_str!("../shaders/half.wgsl")
                )
            };
        }
        match self {
            Kernel::Unary => shader!(
                "../shaders/unary.wgsl",
                "../shaders/special_gamma.wgsl",
                "../shaders/special_normal.wgsl",
                "../shaders/special_bessel.wgsl";
                half
            ),
            Kernel::Binary => shader!("../shaders/binary.wgsl"; half),
            Kernel::Reduce => shader!("../shaders/reduce.wgsl"),
            Kernel::Matmul => shader!("../shaders/matmul.wgsl"),
            Kernel::Copy => shader!("../shaders/copy.wgsl"; half),
            Kernel::Where => shader!("../shaders/where.wgsl"),
            Kernel::Softmax => shader!("../shaders/softmax.wgsl"),
            Kernel::Scan => shader!("../shaders/scan.wgsl"),
            Kernel::Index => shader!("../shaders/index.wgsl"),
            Kernel::Window => shader!("../shaders/window.wgsl"),
            Kernel::Sort => shader!("../shaders/sort.wgsl"),
            // Generated per pattern (fuse.rs); it has no file.
            Kernel::Fused { .. } => "",
        }
    }

    pub fn name(self) -> &'static str {
        match self {
            Kernel::Unary => "unary",
            Kernel::Binary => "binary",
            Kernel::Reduce => "reduce",
            Kernel::Matmul => "matmul",
            Kernel::Copy => "copy",
            Kernel::Where => "where",
            Kernel::Softmax => "softmax",
            Kernel::Scan => "scan",
            Kernel::Index => "index",
            Kernel::Window => "window",
            Kernel::Sort => "sort",
            Kernel::Fused { .. } => "fused",
        }
    }

    /// Whether the shader selects its op through an `OP` override constant (the unary and
    /// binary shaders are generated around their op's expression instead).
    pub fn has_op(self) -> bool {
        !matches!(
            self,
            Kernel::Matmul | Kernel::Unary | Kernel::Binary | Kernel::Fused { .. }
        )
    }

    /// The shader computing `expr` (Note [Op declarations]): the statement marked `/*expr*/`
    /// in the kernel's source returns the expression instead. The elementwise ops declare
    /// expressions, not switch arms, so a fuser can later inline a chain of them.
    pub fn with_expr(self, expr: &str) -> String {
        self.with_expr_at(EXPR_MARK, expr)
    }

    /// [`Kernel::with_expr`] for an expression over int32 words (`x`, `y` are `i32`s), which
    /// the binary shader computes under its `INT` override.
    pub fn with_int_expr(self, expr: &str) -> String {
        self.with_expr_at(EXPR_INT_MARK, expr)
    }

    fn with_expr_at(self, mark: &str, expr: &str) -> String {
        let src = self.source();
        let at = src.find(mark).expect("the shader marks its expression");
        let end = at + src[at..].find(';').expect("a statement");
        format!("{}({expr}){}", &src[..at], &src[end..])
    }

    /// The entry point of `op`: matmul's op picks its tiling ([`MATMUL_SMALL`]: 64x64 tiles),
    /// sort's [`SORT_STEP`] bit its global step; the other kernels have one entry point.
    pub fn entry(self, op: u32) -> &'static str {
        match (self, op) {
            (Kernel::Matmul, MATMUL_SMALL) => "small",
            (Kernel::Sort, op) if op & SORT_STEP != 0 => "step",
            _ => "main",
        }
    }
}

/// A compiled kernel, its family and the family's bind group layout.
#[derive(Clone)]
pub struct Pipeline {
    pub(super) pipeline: ::wgpu::ComputePipeline,
    pub(super) kernel: Kernel,
    pub(super) layout: Arc<KernelLayout>,
}

/// A kernel family's bindings as its shader declares them: storage buffers (read-only or
/// not) at 0, 1, ..., then the parameters as one uniform with a dynamic offset, so a bind
/// group serves every dispatch over the same buffers whatever their parameters.
pub(super) struct KernelLayout {
    pub(super) bind_group: ::wgpu::BindGroupLayout,
    pipeline: ::wgpu::PipelineLayout,
    pub(super) storage: usize,
}

impl Gpu {
    /// The compiled pipeline for `key`, compiled on first use.
    pub fn pipeline(&self, key: PipelineKey) -> Result<Pipeline> {
        usable()?;
        let mut cache = self.pipelines.lock();
        if let Some(p) = cache.get(&key) {
            return Ok(p.clone());
        }
        let label = format!(
            "{}:{}:{:?}:{}",
            key.kernel.name(),
            key.op,
            key.dtype,
            key.expr
        );
        let source = if key.expr.is_empty() {
            key.kernel.source()
        } else if key.dtype == GpuDType::I32 {
            Cow::Owned(key.kernel.with_int_expr(key.expr))
        } else {
            Cow::Owned(key.kernel.with_expr(key.expr))
        };
        let pipeline = self.build(key, &label, source)?;
        cache.insert(key, pipeline.clone());
        Ok(pipeline)
    }

    /// A fused kernel's pipeline (`fuse.rs`, which caches them by pattern) from its source.
    pub(in crate::backend::wgpu) fn fused_pipeline(
        &self,
        kernel: Kernel,
        source: String,
    ) -> Result<Pipeline> {
        usable()?;
        let key = PipelineKey {
            kernel,
            op: 0,
            dtype: GpuDType::F32,
            expr: "",
        };
        self.build(key, "fused", Cow::Owned(source))
    }

    /// Compiles `source` into the pipeline of `key`'s kernel, op and dtype.
    fn build(&self, key: PipelineKey, label: &str, source: Cow<'_, str>) -> Result<Pipeline> {
        let desc = ::wgpu::ShaderModuleDescriptor {
            label: Some(label),
            source: ::wgpu::ShaderSource::Wgsl(source),
        };
        let module = if key.kernel == Kernel::Matmul {
            // SAFETY: the matmul shader's indices stay in bounds by construction: the host
            // checks that each operand view fits its buffer (`MatView::extent`), loads test
            // rows/cols/k against m/n/k, and shared-memory indices are bounded by the tile
            // constants; its loops are counted. wgpu's injected index clamps and loop counters
            // sit in the innermost loop (together with the hand unrolling, dropping them took
            // 4096^3 on an H100 from 25 to 35 TFLOP/s).
            unsafe {
                self.device
                    .create_shader_module_trusted(desc, ::wgpu::ShaderRuntimeChecks::unchecked())
            }
        } else {
            self.device.create_shader_module(desc)
        };
        let layout = self.layout(key.kernel)?;
        let mut constants = Vec::new();
        if key.kernel.has_op() {
            constants.push(("OP", f64::from(key.op)));
        }
        if key.dtype == GpuDType::F16 {
            constants.push(("HALF", 1.0));
        }
        if key.dtype == GpuDType::I32 {
            constants.push(("INT", 1.0));
        }
        let pipeline = self
            .device
            .create_compute_pipeline(&::wgpu::ComputePipelineDescriptor {
                label: Some(label),
                layout: Some(&layout.pipeline),
                module: &module,
                entry_point: Some(key.kernel.entry(key.op)),
                compilation_options: ::wgpu::PipelineCompilationOptions {
                    constants: &constants,
                    ..Default::default()
                },
                cache: None,
            });
        self.check()?;
        Ok(Pipeline {
            pipeline,
            kernel: key.kernel,
            layout,
        })
    }

    /// The bind group layout of `kernel`, read off its shader's `@binding` declarations.
    fn layout(&self, kernel: Kernel) -> Result<Arc<KernelLayout>> {
        if let Some(l) = self.layouts.lock().get(&kernel) {
            return Ok(l.clone());
        }
        use ::wgpu::BufferBindingType::{Storage, Uniform};
        let mut kinds = Vec::new();
        if let Kernel::Fused { inputs, outputs } = kernel {
            kinds.extend((0..inputs).map(|_| Storage { read_only: true }));
            kinds.extend((0..outputs).map(|_| Storage { read_only: false }));
            kinds.push(Uniform);
        }
        for line in kernel.source().lines() {
            let Some(decl) = line.trim().strip_prefix("@group(0) @binding(") else {
                continue;
            };
            kinds.push(if decl.contains("var<uniform>") {
                Uniform
            } else if decl.contains("var<storage, read>") {
                Storage { read_only: true }
            } else if decl.contains("var<storage, read_write>") {
                Storage { read_only: false }
            } else {
                return Err(Error::Runtime(format!(
                    "{}.wgsl: unexpected binding `{line}`",
                    kernel.name()
                )));
            });
        }
        let storage = kinds.len().saturating_sub(1);
        if kinds.last() != Some(&Uniform) || kinds[..storage].contains(&Uniform) {
            return Err(Error::Runtime(format!(
                "{}.wgsl: bindings must be storage buffers then one uniform",
                kernel.name()
            )));
        }
        let entries: Vec<::wgpu::BindGroupLayoutEntry> = kinds
            .iter()
            .enumerate()
            .map(|(i, &ty)| ::wgpu::BindGroupLayoutEntry {
                binding: i as u32,
                visibility: ::wgpu::ShaderStages::COMPUTE,
                ty: ::wgpu::BindingType::Buffer {
                    ty,
                    has_dynamic_offset: ty == Uniform,
                    min_binding_size: None,
                },
                count: None,
            })
            .collect();
        let bind_group = self
            .device
            .create_bind_group_layout(&::wgpu::BindGroupLayoutDescriptor {
                label: Some(kernel.name()),
                entries: &entries,
            });
        let pipeline = self
            .device
            .create_pipeline_layout(&::wgpu::PipelineLayoutDescriptor {
                label: Some(kernel.name()),
                bind_group_layouts: &[Some(&bind_group)],
                immediate_size: 0,
            });
        let layout = Arc::new(KernelLayout {
            bind_group,
            pipeline,
            storage,
        });
        self.layouts.lock().insert(kernel, layout.clone());
        Ok(layout)
    }
}
