//! Random tensors from one seedable generator (`manual_seed`): xoshiro256++ seeded by
//! splitmix64; normals by Box–Muller.

use crate::dispatch;
use crate::dtype::DType;
use crate::error::{Error, Result};
use crate::shape::numel;
use crate::tensor::{Element, Tensor};
use parking_lot::Mutex;

pub struct Generator {
    s: [u64; 4],
    seed: u64,
}

impl Generator {
    pub fn new(seed: u64) -> Generator {
        let mut x = seed;
        let mut next = || {
            x = x.wrapping_add(0x9E37_79B9_7F4A_7C15);
            let mut z = x;
            z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
            z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
            z ^ (z >> 31)
        };
        Generator {
            s: [next(), next(), next(), next()],
            seed,
        }
    }

    pub fn next_u64(&mut self) -> u64 {
        let s = &mut self.s;
        let result = s[0].wrapping_add(s[3]).rotate_left(23).wrapping_add(s[0]);
        let t = s[1] << 17;
        s[2] ^= s[0];
        s[3] ^= s[1];
        s[1] ^= s[2];
        s[0] ^= s[3];
        s[2] ^= t;
        s[3] = s[3].rotate_left(45);
        result
    }

    /// Uniform in [0, 1) with 53 random bits.
    pub fn uniform(&mut self) -> f64 {
        (self.next_u64() >> 11) as f64 * (1.0 / (1u64 << 53) as f64)
    }

    pub fn normal(&mut self) -> f64 {
        let u1 = 1.0 - self.uniform();
        let u2 = self.uniform();
        (-2.0 * u1.ln()).sqrt() * (2.0 * std::f64::consts::PI * u2).cos()
    }
}

static GENERATOR: Mutex<Option<Generator>> = Mutex::new(None);

fn with_gen<R>(f: impl FnOnce(&mut Generator) -> R) -> R {
    let mut g = GENERATOR.lock();
    let gen = g.get_or_insert_with(|| Generator::new(67_280_421_310_721));
    f(gen)
}

pub fn manual_seed(seed: u64) {
    *GENERATOR.lock() = Some(Generator::new(seed));
}

pub fn initial_seed() -> u64 {
    with_gen(|g| g.seed)
}

fn float_only(name: &str, dtype: DType) -> Result<()> {
    if !dtype.is_floating_point() {
        return Err(Error::NotImplemented(format!(
            "\"{name}\" not implemented for '{}'",
            crate::dtype::pretty_kernel_name(dtype)
        )));
    }
    Ok(())
}

pub fn rand(shape: &[usize], dtype: DType) -> Result<Tensor> {
    float_only("check_uniform_bounds", dtype)?;
    let n = numel(shape);
    Ok(dispatch!(dtype, T => {
        let v: Vec<T> = with_gen(|g| (0..n).map(|_| T::from_f64(g.uniform())).collect());
        Tensor::from_vec(v, shape)
    }))
}

pub fn randn(shape: &[usize], dtype: DType) -> Result<Tensor> {
    float_only("normal_kernel_cpu", dtype)?;
    let n = numel(shape);
    Ok(dispatch!(dtype, T => {
        let v: Vec<T> = with_gen(|g| {
            let mut v = crate::tensor::pool::alloc(n);
            v.extend((0..n).map(|_| T::from_f64(g.normal())));
            v
        });
        Tensor::from_vec(v, shape)
    }))
}

pub fn randint(low: i64, high: i64, shape: &[usize], dtype: DType) -> Result<Tensor> {
    if high <= low {
        return Err(Error::Runtime(format!(
            "random_ expects 'from' to be less than 'to', but got from={low} >= to={high}"
        )));
    }
    let range = (high - low) as u64;
    let n = numel(shape);
    Ok(dispatch!(dtype, T => {
        let v: Vec<T> = with_gen(|g| (0..n).map(|_| T::from_i64(low + (g.next_u64() % range) as i64)).collect());
        Tensor::from_vec(v, shape)
    }))
}
