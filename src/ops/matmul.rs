//! Matrix products: mm, bmm, mv, dot, and `matmul` decomposed into them exactly as PyTorch
//! does (so results carry the same grad_fn names).

use crate::autograd::saved::{SavedValue, Value};
use crate::autograd::{needs_grad, record, Backward, Ctx, SavedTensor};
use crate::dtype::{cpp_name, pretty_kernel_name, unsupported, DType, Scalar};
use crate::error::{Error, Result};
use crate::kernels;
use crate::ops::arithmetic::{binary, mul, BinaryOp};
use crate::ops::creation::wide;
use crate::ops::movement::{expand, reshape, squeeze_fresh, t, transpose, unsafe_view, unsqueeze};
use crate::ops::Operand;
use crate::tensor::device::check_args;
use crate::tensor::shape::{broadcast_shapes, numel};
use crate::tensor::{Device, Tensor};

/// mm's (addmm's) check: `expected m1 and m2 to have the same dtype, but got: float != double`.
fn check_mm_dtypes(a: &Tensor, b: &Tensor) -> Result<()> {
    let (da, db) = (a.dtype(), b.dtype());
    if da != db {
        return Err(Error::Runtime(format!(
            "expected m1 and m2 to have the same dtype, but got: {} != {}",
            cpp_name(da),
            cpp_name(db)
        )));
    }
    Ok(())
}

/// The CPU BLAS kernels have no bool version (PyTorch skips them when there is nothing to sum).
fn check_not_bool(kernel: &str, a: &Tensor, skip: bool) -> Result<()> {
    if a.dtype() == DType::Bool && !skip {
        return Err(unsupported(kernel, DType::Bool));
    }
    Ok(())
}

/// Batched product without autograd: a (B, m, k) · b (B, k, n) → (B, m, n), any strides.
fn bmm_data(a: &Tensor, b: &Tensor) -> Result<Tensor> {
    kernels::bmm(a, b)
}

/// 2-D product as a batch of one (views, no copies).
fn mm_data(a: &Tensor, b: &Tensor) -> Result<Tensor> {
    let _no_grad = crate::autograd::GradModeGuard::new(false);
    let r = bmm_data(&unsqueeze(a, 0)?, &unsqueeze(b, 0)?)?;
    let shape = r.shape();
    reshape(&r, &[shape[1] as i64, shape[2] as i64])
}

pub fn mm(a: &Tensor, b: &Tensor) -> Result<Tensor> {
    check_args("mm", &[("self", Some(a)), ("mat2", Some(b))])?;
    if a.dim() != 2 {
        return Err(Error::Runtime("self must be a matrix".into()));
    }
    if b.dim() != 2 {
        return Err(Error::Runtime("mat2 must be a matrix".into()));
    }
    let (sa, sb) = (a.shape(), b.shape());
    if sa[1] != sb[0] {
        return Err(Error::Runtime(format!(
            "mat1 and mat2 shapes cannot be multiplied ({}x{} and {}x{})",
            sa[0], sa[1], sb[0], sb[1]
        )));
    }
    check_mm_dtypes(a, b)?;
    check_not_bool("addmm_impl_cpu_", a, sa[0] * sa[1] * sb[1] == 0)?;
    let out = mm_data(a, b)?.detach();
    with_grad(out, a, b, ProductKind::Mm)
}

pub fn bmm(a: &Tensor, b: &Tensor) -> Result<Tensor> {
    check_args("bmm", &[("self", Some(a)), ("mat2", Some(b))])?;
    if a.dim() != 3 {
        return Err(Error::Runtime("batch1 must be a 3D tensor".into()));
    }
    if b.dim() != 3 {
        return Err(Error::Runtime("batch2 must be a 3D tensor".into()));
    }
    let (sa, sb) = (a.shape(), b.shape());
    if sa[0] != sb[0] || sa[2] != sb[1] {
        return Err(Error::Runtime(format!(
            "Expected size for first two dimensions of batch2 tensor to be: [{}, {}] but got: [{}, {}].",
            sa[0], sa[2], sb[0], sb[1]
        )));
    }
    // The kernel dispatches on batch1's dtype, then checks batch2's.
    check_not_bool("bmm", a, sa[0] * sa[1] * sb[2] == 0 || sa[2] == 0)?;
    if a.dtype() != b.dtype() {
        return Err(Error::Runtime(format!(
            "expected scalar type {} but found {}",
            pretty_kernel_name(a.dtype()),
            pretty_kernel_name(b.dtype())
        )));
    }
    let out = bmm_data(a, b)?;
    with_grad(out, a, b, ProductKind::Bmm)
}

pub fn mv(a: &Tensor, v: &Tensor) -> Result<Tensor> {
    // PyTorch's mv is addmv_ into a result made on the vector's device.
    let args = [("self", Some(v)), ("mat", Some(a)), ("vec", Some(v))];
    check_args("addmv_", &args)?;
    let (sa, sv) = (a.shape(), v.shape());
    if sa.len() != 2 || sv.len() != 1 {
        return Err(Error::Runtime(format!(
            "vector + matrix @ vector expected, got {}, {}, {}",
            1,
            sa.len(),
            sv.len()
        )));
    }
    if sa[1] != sv[0] {
        return Err(Error::Runtime(format!(
            "size mismatch, got input ({}), mat ({}x{}), vec ({})",
            sa[0], sa[0], sa[1], sv[0]
        )));
    }
    // mv is addmv into a result of the vector's dtype.
    if a.dtype() != v.dtype() {
        let (r, m) = (pretty_kernel_name(v.dtype()), pretty_kernel_name(a.dtype()));
        return Err(Error::Runtime(format!(
            "addmv input tensors must have the same dtype, but got {r}, {m}, and {r}"
        )));
    }
    check_not_bool("addmv_impl_cpu", a, sa[0] * sa[1] == 0)?;
    let _g = crate::autograd::GradModeGuard::new(false);
    let r = mm_data(a, &unsqueeze(v, 1)?)?;
    let out = reshape(&r, &[sa[0] as i64])?.detach();
    drop(_g);
    with_grad(out, a, v, ProductKind::Mv)
}

pub fn dot(a: &Tensor, b: &Tensor) -> Result<Tensor> {
    check_args("_dot", &[("self", Some(a)), ("tensor", Some(b))])?;
    let (sa, sb) = (a.shape(), b.shape());
    if sa.len() != 1 || sb.len() != 1 {
        return Err(Error::Runtime(format!(
            "1D tensors expected, but got {}D and {}D tensors",
            sa.len(),
            sb.len()
        )));
    }
    if sa[0] != sb[0] {
        return Err(Error::Runtime(format!(
            "inconsistent tensor size, expected tensor [{}] and src [{}] to have the same number of elements, but got {} and {} elements respectively",
            sa[0], sb[0], sa[0], sb[0]
        )));
    }
    if a.dtype() != b.dtype() {
        return Err(Error::Runtime(format!(
            "dot : expected both vectors to have same dtype, but found {} and {}",
            pretty_kernel_name(a.dtype()),
            pretty_kernel_name(b.dtype())
        )));
    }
    check_not_bool("dot", a, false)?;
    if let Some(out) = kernels::dot(a, b) {
        return with_grad(out, a, b, ProductKind::Dot);
    }
    let _g = crate::autograd::GradModeGuard::new(false);
    let r = mm_data(&unsqueeze(a, 0)?, &unsqueeze(b, 1)?)?;
    let out = reshape(&r, &[])?.detach();
    drop(_g);
    with_grad(out, a, b, ProductKind::Dot)
}

/// `beta * input + alpha * (mat1 @ mat2)` (PyTorch's `addmm`; `input` broadcasts to the
/// product's shape). For floats the product accumulates straight into the scaled input (one
/// gemm call, no temporary); with `beta == 0` the input's values are ignored (NaN included).
pub fn addmm(
    input: &Tensor,
    m1: &Tensor,
    m2: &Tensor,
    beta: Scalar,
    alpha: Scalar,
) -> Result<Tensor> {
    let args = [
        ("self", Some(input)),
        ("mat1", Some(m1)),
        ("mat2", Some(m2)),
    ];
    check_args("addmm", &args)?;
    let (di, d1, d2) = (input.dtype(), m1.dtype(), m2.dtype());
    if di != d2 {
        return Err(Error::Runtime(format!(
            "self and mat2 must have the same dtype, but got {} and {}",
            pretty_kernel_name(di),
            pretty_kernel_name(d2)
        )));
    }
    if d1 != d2 {
        return Err(Error::Runtime(format!(
            "mat1 and mat2 must have the same dtype, but got {} and {}",
            pretty_kernel_name(d1),
            pretty_kernel_name(d2)
        )));
    }
    for (name, m) in [("mat1", m1), ("mat2", m2)] {
        if m.dim() != 2 {
            return Err(Error::Runtime(format!(
                "{name} must be a matrix, got {}-D tensor",
                m.dim()
            )));
        }
    }
    let (s1, s2) = (m1.shape(), m2.shape());
    if s1[1] != s2[0] {
        return Err(Error::Runtime(format!(
            "mat1 and mat2 shapes cannot be multiplied ({}x{} and {}x{})",
            s1[0], s1[1], s2[0], s2[1]
        )));
    }
    if d1 == crate::DType::Bool {
        return Err(Error::NotImplemented(format!(
            "\"addmm_impl_cpu_\" not implemented for '{}'",
            pretty_kernel_name(d1)
        )));
    }
    let (m, n) = (s1[0], s2[1]);
    let device = Device::of(&[input, m1, m2])?;
    let out = if d1.compute() != d1 {
        // Note [Narrow dtypes]
        let _no_grad = crate::autograd::GradModeGuard::new(false);
        let r = addmm(&wide(input), &wide(m1), &wide(m2), beta, alpha)?;
        crate::ops::creation::narrow(r, d1)
    } else {
        let _no_grad = crate::autograd::GradModeGuard::new(false);
        let bias = expand(input, &[m as i64, n as i64])?;
        match kernels::addmm(&bias, m1, m2, beta, alpha, device) {
            Some(out) => out,
            None => addmm_composed(input, m1, m2, beta, alpha)?,
        }
    };
    if !needs_grad(&[input, m1, m2]) {
        return Ok(out);
    }
    // Under forward AD every factor is needed (Note [Forward AD]).
    let fw = crate::autograd::forward::any_tangent(&[input, m1, m2]);
    let node = AddmmBackward {
        m1: (fw || m2.requires_grad())
            .then(|| SavedTensor::input(m1))
            .transpose()?,
        m2: (fw || m1.requires_grad())
            .then(|| SavedTensor::input(m2))
            .transpose()?,
        col_major: [column_major(m1), column_major(m2)],
        input_needs: fw || input.requires_grad(),
        beta,
        alpha,
        geometry: Geometry::of(m1, m2),
    };
    Ok(record(out, &[input, m1, m2], node))
}

/// `beta * input + alpha * (m1 @ m2)` where the kernels have no fused addmm (float32 GPU
/// tensors), without autograd: the product (the GPU matmul kernel where it applies), then the
/// broadcast add (`beta == 0` ignores `input`, nan included, as PyTorch).
fn addmm_composed(
    input: &Tensor,
    m1: &Tensor,
    m2: &Tensor,
    beta: Scalar,
    alpha: Scalar,
) -> Result<Tensor> {
    let _no_grad = crate::autograd::GradModeGuard::new(false);
    let bias = expand(input, &[m1.shape()[0] as i64, m2.shape()[1] as i64])?;
    let mut out = mm_data(m1, m2)?;
    if alpha.to_f64() != 1.0 {
        out = binary(BinaryOp::Mul, Operand::Tensor(out), Operand::Scalar(alpha))?;
    }
    if beta.to_f64() != 0.0 {
        let mut bias = Operand::Tensor(bias);
        if beta.to_f64() != 1.0 {
            bias = Operand::Tensor(binary(BinaryOp::Mul, bias, Operand::Scalar(beta))?);
        }
        out = binary(BinaryOp::Add, bias, Operand::Tensor(out))?;
    }
    Ok(out)
}

/// A matrix stored column-major (the transpose of a contiguous one, e.g. `weight.t()`).
fn column_major(m: &Tensor) -> bool {
    let (sh, st) = (m.shape(), m.strides());
    st[0] == 1 && st[1] == sh[0] as isize
}

/// dA for C = A B: `g Bᵀ`, computed as `(B gᵀ)ᵀ` when A was column-major so the gradient has
/// A's layout (as PyTorch's `mm_mat1_backward` does; `x.t()`'s gradient then comes out
/// contiguous for `x`, and an optimizer step reads it without a strided gather).
fn mm_mat1_backward(g: &Tensor, b: &Tensor, col_major: bool) -> Result<Tensor> {
    if col_major {
        t(&mm(b, &t(g)?)?)
    } else {
        mm(g, &t(b)?)
    }
}

/// dB for C = A B: `Aᵀ g`, as `(gᵀ A)ᵀ` when B was column-major (`mm_mat2_backward`).
fn mm_mat2_backward(g: &Tensor, a: &Tensor, col_major: bool) -> Result<Tensor> {
    if col_major {
        t(&mm(&t(g)?, a)?)
    } else {
        mm(&t(a)?, g)
    }
}

/// `maybe_multiply` in PyTorch's formulas: `g` itself when `s` is 1.
/// The sum of a formula's terms (None: no term, a zero tangent).
fn sum_terms(terms: Vec<Tensor>) -> Result<Option<Tensor>> {
    let mut it = terms.into_iter();
    let Some(mut acc) = it.next() else {
        return Ok(None);
    };
    for t in it {
        acc = crate::ops::arithmetic::add(&acc, t)?;
    }
    Ok(Some(acc))
}

fn maybe_multiply(g: Tensor, s: Scalar) -> Result<Tensor> {
    if s.to_f64() == 1.0 {
        return Ok(g);
    }
    binary(BinaryOp::Mul, Operand::Tensor(g), Operand::Scalar(s))
}

struct AddmmBackward {
    m1: Option<SavedTensor>,
    m2: Option<SavedTensor>,
    /// Whether mat1 / mat2 were column-major (see `mm_mat1_backward`).
    col_major: [bool; 2],
    input_needs: bool,
    beta: Scalar,
    alpha: Scalar,
    geometry: Geometry,
}

/// The operands' sizes (always) and strides (of those that require grad), which PyTorch's mm
/// and addmm nodes keep for their backward and show as `_saved_<x>_sym_sizes/strides`.
struct Geometry {
    sizes: [Vec<i64>; 2],
    strides: [Vec<i64>; 2],
}

impl Geometry {
    fn of(a: &Tensor, b: &Tensor) -> Geometry {
        let sizes = |t: &Tensor| t.shape().iter().map(|&d| d as i64).collect();
        let strides = |t: &Tensor| {
            if t.requires_grad() {
                t.strides().iter().map(|&d| d as i64).collect()
            } else {
                Vec::new()
            }
        };
        Geometry {
            sizes: [sizes(a), sizes(b)],
            strides: [strides(a), strides(b)],
        }
    }

    fn values(&self, names: [&'static str; 4]) -> Vec<(&'static str, SavedValue<'static>)> {
        let [s0, t0, s1, t1] = names;
        vec![
            (s0, SavedValue::Value(Value::Ints(self.sizes[0].clone()))),
            (t0, SavedValue::Value(Value::Ints(self.strides[0].clone()))),
            (s1, SavedValue::Value(Value::Ints(self.sizes[1].clone()))),
            (t1, SavedValue::Value(Value::Ints(self.strides[1].clone()))),
        ]
    }
}

/// An optional saved tensor as a `_saved_<name>` value (None when it was not saved).
fn saved_opt(s: &mut Option<SavedTensor>) -> SavedValue<'_> {
    match s {
        Some(s) => SavedValue::Tensor(s),
        None => SavedValue::Absent,
    }
}

impl Backward for AddmmBackward {
    fn name(&self) -> &'static str {
        "AddmmBackward0"
    }

    fn apply(&mut self, g: &[Option<Tensor>], ctx: &Ctx) -> Result<Vec<Option<Tensor>>> {
        let g = g[0].as_ref().expect("gradient");
        let m1 = self.m1.as_ref().map(|s| s.unpack(ctx)).transpose()?;
        let m2 = self.m2.as_ref().map(|s| s.unpack(ctx)).transpose()?;
        // out = β·input + α·A B: d input = β g (summed to input's shape by the engine),
        // dA = α g Bᵀ, dB = α Aᵀ g.
        let gi = if self.input_needs {
            Some(maybe_multiply(g.clone(), self.beta)?)
        } else {
            None
        };
        let ga = m2
            .map(|b| maybe_multiply(mm_mat1_backward(g, &b, self.col_major[0])?, self.alpha))
            .transpose()?;
        let gb = m1
            .map(|a| maybe_multiply(mm_mat2_backward(g, &a, self.col_major[1])?, self.alpha))
            .transpose()?;
        Ok(vec![gi, ga, gb])
    }

    // β t_input + α (t_A B + A t_B).
    fn jvp(&mut self, t: &[Option<Tensor>], ctx: &Ctx) -> Result<Vec<Option<Tensor>>> {
        let m1 = self.m1.as_ref().map(|s| s.unpack(ctx)).transpose()?;
        let m2 = self.m2.as_ref().map(|s| s.unpack(ctx)).transpose()?;
        let mut terms = Vec::new();
        if let Some(ti) = &t[0] {
            terms.push(maybe_multiply(ti.clone(), self.beta)?);
        }
        if let (Some(t1), Some(m2)) = (&t[1], &m2) {
            terms.push(maybe_multiply(mm(t1, m2)?, self.alpha)?);
        }
        if let (Some(t2), Some(m1)) = (&t[2], &m1) {
            terms.push(maybe_multiply(mm(m1, t2)?, self.alpha)?);
        }
        Ok(vec![sum_terms(terms)?])
    }

    fn release(&mut self) {
        self.m1
            .iter_mut()
            .chain(self.m2.iter_mut())
            .for_each(|s| s.release());
    }

    fn saved_values(&mut self) -> Vec<(&'static str, SavedValue<'_>)> {
        let mut v = self.geometry.values([
            "mat1_sym_sizes",
            "mat1_sym_strides",
            "mat2_sym_sizes",
            "mat2_sym_strides",
        ]);
        v.push(("alpha", SavedValue::Value(Value::Scalar(self.alpha))));
        v.push(("beta", SavedValue::Value(Value::Scalar(self.beta))));
        v.push(("mat1", saved_opt(&mut self.m1)));
        v.push(("mat2", saved_opt(&mut self.m2)));
        v
    }
}

#[derive(Clone, Copy)]
enum ProductKind {
    Mm,
    Bmm,
    Mv,
    Dot,
}

fn with_grad(out: Tensor, a: &Tensor, b: &Tensor, kind: ProductKind) -> Result<Tensor> {
    if !needs_grad(&[a, b]) {
        return Ok(out);
    }
    let save = |cond: bool, t: &Tensor| cond.then(|| SavedTensor::input(t)).transpose();
    let col_major = match kind {
        ProductKind::Mm => [column_major(a), column_major(b)],
        _ => [false, false],
    };
    // Under forward AD both factors are needed (Note [Forward AD]).
    let fw = crate::autograd::forward::any_tangent(&[a, b]);
    let node = ProductBackward {
        kind,
        a: save(fw || b.requires_grad(), a)?,
        b: save(fw || a.requires_grad(), b)?,
        col_major,
        geometry: matches!(kind, ProductKind::Mm).then(|| Geometry::of(a, b)),
    };
    Ok(record(out, &[a, b], node))
}

struct ProductBackward {
    kind: ProductKind,
    a: Option<SavedTensor>,
    b: Option<SavedTensor>,
    /// mm only: whether a / b were column-major (see `mm_mat1_backward`).
    col_major: [bool; 2],
    /// mm only.
    geometry: Option<Geometry>,
}

impl Backward for ProductBackward {
    fn name(&self) -> &'static str {
        match self.kind {
            ProductKind::Mm => "MmBackward0",
            ProductKind::Bmm => "BmmBackward0",
            ProductKind::Mv => "MvBackward0",
            ProductKind::Dot => "DotBackward0",
        }
    }

    fn apply(&mut self, g: &[Option<Tensor>], ctx: &Ctx) -> Result<Vec<Option<Tensor>>> {
        let g = g[0].as_ref().expect("gradient");
        let a = self.a.as_ref().map(|s| s.unpack(ctx)).transpose()?;
        let b = self.b.as_ref().map(|s| s.unpack(ctx)).transpose()?;
        let (ga, gb) = match self.kind {
            // C = A B: dA = dC Bᵀ, dB = Aᵀ dC.
            ProductKind::Mm => (
                b.map(|b| mm_mat1_backward(g, &b, self.col_major[0]))
                    .transpose()?,
                a.map(|a| mm_mat2_backward(g, &a, self.col_major[1]))
                    .transpose()?,
            ),
            ProductKind::Bmm => (
                b.map(|b| bmm(g, &transpose(&b, 1, 2)?)).transpose()?,
                a.map(|a| bmm(&transpose(&a, 1, 2)?, g)).transpose()?,
            ),
            // y = A v: dA = dy ⊗ v, dv = Aᵀ dy.
            ProductKind::Mv => (
                b.map(|v| mm(&unsqueeze(g, 1)?, &unsqueeze(&v, 0)?))
                    .transpose()?,
                a.map(|a| mv(&t(&a)?, g)).transpose()?,
            ),
            ProductKind::Dot => (
                b.map(|b| mul(g, &b)).transpose()?,
                a.map(|a| mul(g, &a)).transpose()?,
            ),
        };
        Ok(vec![ga, gb])
    }

    // The product rule: t_A B + A t_B.
    fn jvp(&mut self, t: &[Option<Tensor>], ctx: &Ctx) -> Result<Vec<Option<Tensor>>> {
        let a = self.a.as_ref().map(|s| s.unpack(ctx)).transpose()?;
        let b = self.b.as_ref().map(|s| s.unpack(ctx)).transpose()?;
        let prod = |x: &Tensor, y: &Tensor| match self.kind {
            ProductKind::Mm => mm(x, y),
            ProductKind::Bmm => bmm(x, y),
            ProductKind::Mv => mv(x, y),
            ProductKind::Dot => dot(x, y),
        };
        let mut terms = Vec::new();
        if let (Some(ta), Some(b)) = (&t[0], &b) {
            terms.push(prod(ta, b)?);
        }
        if let (Some(tb), Some(a)) = (&t[1], &a) {
            terms.push(prod(a, tb)?);
        }
        Ok(vec![sum_terms(terms)?])
    }

    fn release(&mut self) {
        self.a
            .iter_mut()
            .chain(self.b.iter_mut())
            .for_each(|s| s.release());
    }

    fn saved_values(&mut self) -> Vec<(&'static str, SavedValue<'_>)> {
        let other = match self.kind {
            ProductKind::Mm | ProductKind::Bmm => "mat2",
            ProductKind::Mv => "vec",
            ProductKind::Dot => "tensor",
        };
        let mut v = match &self.geometry {
            Some(g) => g.values([
                "self_sym_sizes",
                "self_sym_strides",
                "mat2_sym_sizes",
                "mat2_sym_strides",
            ]),
            None => Vec::new(),
        };
        v.push(("self", saved_opt(&mut self.a)));
        v.push((other, saved_opt(&mut self.b)));
        v
    }
}

/// PyTorch's `should_fold` for a batched `b` (3-D or more) and a 1-D or 2-D `a`: fold b's
/// batch dims into one mm when `a` requires grad (so a's gradient is one mm rather than a
/// batch of products summed), or, for a 1-D `a`, when bᵀ folds without a copy; otherwise the
/// broadcast bmm, which reads `a` in place across the batch (stride 0).
fn fold_into_mm(a: &Tensor, b: &Tensor) -> bool {
    if a.requires_grad() {
        return true;
    }
    if a.dim() == 2 {
        return false;
    }
    if b.numel() == 0 {
        return true;
    }
    // bᵀ viewed as rows needs its leading dims contiguous over each other.
    let l = b.data().layout;
    let nd = l.ndim();
    let mut shape: Vec<usize> = l.shape.to_vec();
    let mut strides: Vec<isize> = l.strides.to_vec();
    shape.swap(nd - 2, nd - 1);
    strides.swap(nd - 2, nd - 1);
    (0..nd - 2).all(|i| strides[i] == strides[i + 1] * shape[i + 1] as isize)
}

/// `a @ b` with all of PyTorch's cases (1-D, 2-D, folded and broadcast batched).
pub fn matmul(a: &Tensor, b: &Tensor) -> Result<Tensor> {
    let (d1, d2) = (a.dim(), b.dim());
    if d1 == 0 || d2 == 0 {
        return Err(Error::Runtime(format!(
            "both arguments to matmul need to be at least 1D, but they are {d1}D and {d2}D"
        )));
    }
    let (sa, sb) = (a.shape(), b.shape());
    match (d1, d2) {
        (1, 1) => dot(a, b),
        (2, 1) => mv(a, b),
        (1, 2) => squeeze_fresh(&mm(&unsqueeze(a, 0)?, b)?, 0, 4),
        (2, 2) => mm(a, b),
        _ if d1 >= 3 && d2 <= 2 => {
            // Fold a's batch dims into rows: one big mm (or mv).
            let k = sa[d1 - 1] as i64;
            let folded = reshape(a, &[-1, k])?;
            let prod = if d2 == 1 {
                mv(&folded, b)?
            } else {
                mm(&folded, b)?
            };
            let mut shape: Vec<usize> = sa[..d1 - 1].to_vec();
            if d2 == 2 {
                shape.push(sb[1]);
            }
            unsafe_view(&prod, &shape)
        }
        _ if d2 >= 3 && d1 <= 2 && fold_into_mm(a, b) => {
            // (a @ b) = (bᵀ @ aᵀ)ᵀ, folding b's batch dims.
            let bt = transpose(b, -1, -2)?;
            if d1 == 1 {
                return matmul(&bt, a);
            }
            let r = matmul(&bt, &t(a)?)?;
            Ok(crate::ops::creation::contiguous(&transpose(&r, -1, -2)?))
        }
        _ => {
            // General broadcast batched product through bmm.
            let a2 = if d1 == 1 { unsqueeze(a, 0)? } else { a.clone() };
            let b2 = if d2 == 1 {
                unsqueeze(b, -1)?
            } else {
                b.clone()
            };
            let (s1, s2) = (a2.shape(), b2.shape());
            let (n, k1) = (s1[s1.len() - 2], s1[s1.len() - 1]);
            let (k2, p) = (s2[s2.len() - 2], s2[s2.len() - 1]);
            if k1 != k2 {
                return Err(Error::Runtime(format!(
                    "Expected size for first two dimensions of batch2 tensor to be: [{}, {}] but got: [{}, {}].",
                    numel(&s1[..s1.len() - 2]).max(1), k1, numel(&s2[..s2.len() - 2]).max(1), k2
                )));
            }
            let batch = broadcast_shapes(&s1[..s1.len() - 2], &s2[..s2.len() - 2])?;
            let bsz = numel(&batch) as i64;
            let mut e1: Vec<i64> = batch.iter().map(|&x| x as i64).collect();
            let mut e2 = e1.clone();
            e1.extend([n as i64, k1 as i64]);
            e2.extend([k2 as i64, p as i64]);
            let x = reshape(&expand(&a2, &e1)?, &[bsz, n as i64, k1 as i64])?;
            let y = reshape(&expand(&b2, &e2)?, &[bsz, k2 as i64, p as i64])?;
            let prod = bmm(&x, &y)?;
            let mut shape: Vec<usize> = batch.to_vec();
            if d1 > 1 {
                shape.push(n);
            }
            if d2 > 1 {
                shape.push(p);
            }
            unsafe_view(&prod, &shape)
        }
    }
}
