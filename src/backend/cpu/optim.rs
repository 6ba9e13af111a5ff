//! The per-element updates of the fused optimizer steps (`ops::optim`): one pass over a
//! parameter and its state, in the order of PyTorch's single-tensor update and with the
//! roundings of ATen's CPU kernels, so a step gives PyTorch's bits. Those kernels fuse a
//! multiply-add wherever their vectorized form calls `fmadd` (and GCC contracts the scalar tail
//! the same way): `add(x, y, alpha)` is `fma(y, alpha, x)`, `lerp` is `fma(w, end - start,
//! start)` (or `fma(w - 1, end - start, end)` for w >= 0.5), `addcmul(x, a, b, value)` is
//! `fma(value * a, b, x)`; `addcdiv(x, a, b, value)` is `x + value * a / b`, no fusion. The one
//! operation that can differ is float32 `sqrt` of larger tensors, which PyTorch sends to MKL's
//! vector math (within an ulp, not always correctly rounded); here it is the correctly rounded
//! one, and an ulp of the denominator rarely reaches the parameter's last bit.
//!
//! Each loop body is written once and compiled twice (`with_fma`): with AVX2+FMA (picked at run
//! time, the fused multiply-adds then vectorize) and for the baseline CPU, where `mul_add` is
//! libm's `fma`: the same correctly rounded result, one element at a time.

use super::parallel::map_chunks;
use super::with_fma;
use std::ops::{Add, Div, Mul, Neg, Sub};

/// float32 and float64, the dtypes the fused steps run on.
pub trait Real:
    Copy
    + Send
    + Sync
    + PartialOrd
    + Add<Output = Self>
    + Sub<Output = Self>
    + Mul<Output = Self>
    + Div<Output = Self>
    + Neg<Output = Self>
    + 'static
{
    const NAN: Self;
    /// A hyperparameter as the kernel's scalar (ATen's `Scalar::to<scalar_t>()`: a double
    /// rounded to the element type).
    fn of(v: f64) -> Self;
    fn fma(self, a: Self, b: Self) -> Self;
    fn sqrt(self) -> Self;
    fn is_nan(self) -> bool;
}

macro_rules! real {
    ($t:ty) => {
        impl Real for $t {
            const NAN: Self = <$t>::NAN;
            #[inline(always)]
            fn of(v: f64) -> Self {
                v as $t
            }
            #[inline(always)]
            fn fma(self, a: Self, b: Self) -> Self {
                self.mul_add(a, b)
            }
            #[inline(always)]
            fn sqrt(self) -> Self {
                <$t>::sqrt(self)
            }
            #[inline(always)]
            fn is_nan(self) -> bool {
                <$t>::is_nan(self)
            }
        }
    };
}
real!(f32);
real!(f64);

/// The scalars of one Adam/AdamW step of one parameter, already in the element type.
#[derive(Clone, Copy, Debug)]
pub struct AdamScalars<T> {
    pub maximize: bool,
    /// `grad = grad.add(param, alpha=weight_decay)` (L2 penalty), when Some.
    pub l2: Option<T>,
    /// `param.mul_(1 - lr * weight_decay)` (decoupled decay), when Some.
    pub decay: Option<T>,
    /// The lerp weight `1 - beta1`.
    pub one_minus_beta1: T,
    pub beta2: T,
    pub one_minus_beta2: T,
    pub bias_correction2_sqrt: T,
    pub eps: T,
    /// `-lr / bias_correction1`, addcdiv's value.
    pub neg_step_size: T,
}

/// The slices of one parameter's Adam update (equal lengths); `max_exp_avg_sq` with amsgrad.
pub struct AdamSlices<'a, T> {
    pub param: &'a mut [T],
    pub grad: &'a [T],
    pub exp_avg: &'a mut [T],
    pub exp_avg_sq: &'a mut [T],
    pub max_exp_avg_sq: Option<&'a mut [T]>,
}

/// One Adam step over a parameter, in parallel over large ones.
pub fn adam<T: Real>(s: AdamSlices<'_, T>, c: &AdamScalars<T>) {
    let n = s.param.len();
    assert!(
        s.grad.len() == n
            && s.exp_avg.len() == n
            && s.exp_avg_sq.len() == n
            && s.max_exp_avg_sq.as_ref().is_none_or(|m| m.len() == n),
        "adam: slice lengths differ"
    );
    let p = Ptr(s.param.as_mut_ptr());
    let g = Ptr(s.grad.as_ptr() as *mut T);
    let m = Ptr(s.exp_avg.as_mut_ptr());
    let v = Ptr(s.exp_avg_sq.as_mut_ptr());
    let vmax = s.max_exp_avg_sq.map(|x| Ptr(x.as_mut_ptr()));
    map_chunks(n, |r| {
        // SAFETY: the slices are exclusively borrowed (or, the gradient, only read) for this
        // call, have n elements, and the chunks `r` are disjoint ranges inside 0..n.
        let part = unsafe {
            AdamSlices {
                param: p.part(&r),
                grad: g.part(&r),
                exp_avg: m.part(&r),
                exp_avg_sq: v.part(&r),
                max_exp_avg_sq: vmax.as_ref().map(|x| x.part(&r)),
            }
        };
        with_fma(|| adam_loop(part, c))
    });
}

/// PyTorch's `_single_tensor_adam` (not capturable) for one element at a time:
///   grad = -grad if maximize; grad = grad.add(param, alpha=wd) | param.mul_(1 - lr * wd)
///   exp_avg.lerp_(grad, 1 - beta1)
///   exp_avg_sq.mul_(beta2).addcmul_(grad, grad, value=1 - beta2)
///   [torch.maximum(max_exp_avg_sq, exp_avg_sq, out=max_exp_avg_sq)]
///   denom = (exp_avg_sq.sqrt() / bias_correction2_sqrt).add_(eps)
///   param.addcdiv_(exp_avg, denom, value=-step_size)
#[inline(always)]
fn adam_loop<T: Real>(s: AdamSlices<'_, T>, c: &AdamScalars<T>) {
    let c = *c;
    let w = c.one_minus_beta1;
    let small = w.abs_lt_half();
    let (coeff, from_start) = if small {
        (w, true)
    } else {
        (w - T::of(1.0), false)
    };
    let step = |p: &mut T, g: T, m: &mut T, v: &mut T| -> T {
        let mut g = if c.maximize { -g } else { g };
        if let Some(wd) = c.l2 {
            g = p.fma(wd, g);
        }
        if let Some(f) = c.decay {
            *p = *p * f;
        }
        let d = g - *m;
        *m = coeff.fma(d, if from_start { *m } else { g });
        *v = *v * c.beta2;
        *v = (c.one_minus_beta2 * g).fma(g, *v);
        g
    };
    let finish = |p: &mut T, m: T, second: T| {
        let denom = second.sqrt() / c.bias_correction2_sqrt + c.eps;
        *p = *p + c.neg_step_size * m / denom;
    };
    let n = s.param.len();
    let (ps, gs, ms, vs) = (
        s.param,
        &s.grad[..n],
        &mut s.exp_avg[..n],
        &mut s.exp_avg_sq[..n],
    );
    match s.max_exp_avg_sq {
        None => {
            for i in 0..n {
                step(&mut ps[i], gs[i], &mut ms[i], &mut vs[i]);
                finish(&mut ps[i], ms[i], vs[i]);
            }
        }
        Some(xs) => {
            let xs = &mut xs[..n];
            for i in 0..n {
                step(&mut ps[i], gs[i], &mut ms[i], &mut vs[i]);
                // torch.maximum: NaN from either side, else the larger (the first on ties, as
                // the vector instruction does).
                let (a, b) = (xs[i], vs[i]);
                xs[i] = if a.is_nan() || b.is_nan() {
                    T::NAN
                } else if a > b {
                    a
                } else {
                    b
                };
                finish(&mut ps[i], ms[i], xs[i]);
            }
        }
    }
}

/// The scalars of one SGD step.
#[derive(Clone, Copy, Debug)]
pub struct SgdScalars<T> {
    pub maximize: bool,
    /// `grad = grad.add(param, alpha=weight_decay)`, when Some.
    pub weight_decay: Option<T>,
    /// Momentum, when nonzero.
    pub momentum: Option<T>,
    /// `1 - dampening`, add_'s alpha for the buffer.
    pub one_minus_dampening: T,
    pub nesterov: bool,
    /// `-lr`.
    pub neg_lr: T,
}

/// The momentum buffer of an SGD step: none (no momentum), a fresh one that the step fills
/// with the gradient (the first step), or the running one.
pub enum Buffer<'a, T> {
    None,
    Fresh(&'a mut [T]),
    Running(&'a mut [T]),
}

/// One SGD step over a parameter, in parallel over large ones.
pub fn sgd<T: Real>(param: &mut [T], grad: &[T], buf: Buffer<'_, T>, c: &SgdScalars<T>) {
    let n = param.len();
    let (b, fresh) = match buf {
        Buffer::None => (None, false),
        Buffer::Fresh(b) => (Some(b), true),
        Buffer::Running(b) => (Some(b), false),
    };
    assert!(
        grad.len() == n && b.as_ref().is_none_or(|b| b.len() == n),
        "sgd: slice lengths differ"
    );
    let p = Ptr(param.as_mut_ptr());
    let g = Ptr(grad.as_ptr() as *mut T);
    let b = b.map(|b| Ptr(b.as_mut_ptr()));
    map_chunks(n, |r| {
        // SAFETY: as in `adam`: exclusive (or read-only) slices of n elements, disjoint chunks.
        let (p, g, b) = unsafe { (p.part(&r), &*g.part(&r), b.as_ref().map(|b| b.part(&r))) };
        with_fma(|| sgd_loop(p, g, b, fresh, c))
    });
}

/// PyTorch's `_single_tensor_sgd` for one element at a time:
///   grad = -grad if maximize; grad = grad.add(param, alpha=weight_decay)
///   buf = grad.clone() (first step) | buf.mul_(momentum).add_(grad, alpha=1 - dampening)
///   grad = grad.add(buf, alpha=momentum) if nesterov else buf
///   param.add_(grad, alpha=-lr)
#[inline(always)]
fn sgd_loop<T: Real>(p: &mut [T], g: &[T], b: Option<&mut [T]>, fresh: bool, c: &SgdScalars<T>) {
    let c = *c;
    let n = p.len();
    let g = &g[..n];
    let grad = |p: T, g: T| {
        let g = if c.maximize { -g } else { g };
        match c.weight_decay {
            Some(wd) => p.fma(wd, g),
            None => g,
        }
    };
    match (b, c.momentum) {
        (Some(b), Some(mom)) => {
            let b = &mut b[..n];
            for i in 0..n {
                let d = grad(p[i], g[i]);
                b[i] = if fresh {
                    d
                } else {
                    d.fma(c.one_minus_dampening, b[i] * mom)
                };
                let d = if c.nesterov { b[i].fma(mom, d) } else { b[i] };
                p[i] = d.fma(c.neg_lr, p[i]);
            }
        }
        _ => {
            for i in 0..n {
                let d = grad(p[i], g[i]);
                p[i] = d.fma(c.neg_lr, p[i]);
            }
        }
    }
}

trait HalfTest {
    fn abs_lt_half(self) -> bool;
}
impl<T: Real> HalfTest for T {
    /// ATen's `is_lerp_weight_small`: |w| < 0.5.
    fn abs_lt_half(self) -> bool {
        let z = T::of(0.0);
        let a = if self < z { -self } else { self };
        a < T::of(0.5)
    }
}

/// A base pointer handed to the chunks of one call; see the SAFETY notes where it is used.
struct Ptr<T>(*mut T);
// SAFETY: only used to hand out disjoint parts of slices borrowed for the whole call.
unsafe impl<T: Send> Sync for Ptr<T> {}
unsafe impl<T: Send> Send for Ptr<T> {}

impl<T> Ptr<T> {
    /// # Safety
    /// `r` lies inside the allocation, and no other live reference covers it mutably.
    #[allow(clippy::mut_from_ref)]
    unsafe fn part(&self, r: &std::ops::Range<usize>) -> &mut [T] {
        // SAFETY: the caller's contract.
        unsafe { std::slice::from_raw_parts_mut(self.0.add(r.start), r.len()) }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The fused multiply-add reference, for float32: exact in float64 then rounded once
    /// (a float32 product is exact in float64 and the sum is within the double's reach for
    /// the magnitudes used here).
    fn fma32(a: f32, b: f32, c: f32) -> f32 {
        (a as f64 * b as f64 + c as f64) as f32
    }

    #[test]
    fn sgd_matches_the_written_out_formula_on_both_copies() {
        let n = 1000;
        let p0: Vec<f32> = (0..n)
            .map(|i| ((i * 37 % 101) as f32 - 50.0) / 7.0)
            .collect();
        let g: Vec<f32> = (0..n)
            .map(|i| ((i * 53 % 97) as f32 - 48.0) / 11.0)
            .collect();
        let b0: Vec<f32> = (0..n)
            .map(|i| ((i * 13 % 89) as f32 - 44.0) / 5.0)
            .collect();
        let c = SgdScalars {
            maximize: true,
            weight_decay: Some(0.01f32),
            momentum: Some(0.9),
            one_minus_dampening: 0.7,
            nesterov: false,
            neg_lr: -0.05,
        };
        let (mut p, mut b) = (p0.clone(), b0.clone());
        sgd(&mut p, &g, Buffer::Running(&mut b), &c);
        let (mut p2, mut b2) = (p0.clone(), b0.clone());
        sgd_loop(&mut p2, &g, Some(&mut b2), false, &c);
        for i in 0..n {
            let d = fma32(p0[i], 0.01, -g[i]);
            let buf = fma32(d, 0.7, b0[i] * 0.9);
            let want = fma32(buf, -0.05, p0[i]);
            assert_eq!((p[i], b[i]), (want, buf), "element {i}");
            assert_eq!((p2[i], b2[i]), (want, buf), "element {i} (baseline copy)");
        }
    }

    #[test]
    fn adam_lerp_takes_the_nearer_end() {
        for w in [0.1f64, 0.9] {
            let c = AdamScalars {
                maximize: false,
                l2: None,
                decay: None,
                one_minus_beta1: w,
                beta2: 0.999,
                one_minus_beta2: 1.0 - 0.999,
                bias_correction2_sqrt: 1.0,
                eps: 1e-8,
                neg_step_size: -0.0,
            };
            let (mut p, g, mut m, mut v) = (vec![1.0], vec![0.3], vec![0.7], vec![0.0]);
            let s = AdamSlices {
                param: &mut p,
                grad: &g,
                exp_avg: &mut m,
                exp_avg_sq: &mut v,
                max_exp_avg_sq: None,
            };
            adam(s, &c);
            let want = if w < 0.5 {
                w.mul_add(0.3 - 0.7, 0.7)
            } else {
                (w - 1.0).mul_add(0.3 - 0.7, 0.3)
            };
            assert_eq!(m[0], want);
        }
    }
}
