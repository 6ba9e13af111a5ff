//! PyTorch's CPU random engine (`at::CPUGeneratorImpl`): mt19937 and its cached normals. It
//! lives in the CPU backend because it is device state below every op, as in ATen.
//!
//! Note [PyTorch's random streams]: the engine is the 32-bit Mersenne Twister seeded with
//! `init_genrand(seed & 0xffffffff)` while the full 64-bit seed is remembered; `random()` is
//! one tempered output, `random64()` two of them (high word first). The distributions in
//! `ops/random.rs` transform these exactly as ATen's CPU kernels do, so the same seed gives
//! the same tensors. `get_state`/`set_state` use PyTorch's 5056-byte layout
//! (`CPUGeneratorImplState`), so states move between the two libraries.

use crate::error::{Error, Result};
use parking_lot::Mutex;
use std::sync::{Arc, OnceLock};

const N: usize = 624;
const M: usize = 397;
const MATRIX_A: u32 = 0x9908_b0df;
const UPPER: u32 = 0x8000_0000;
const LOWER: u32 = 0x7fff_ffff;

/// The seed of a generator nobody seeded (PyTorch's `default_rng_seed_val`).
pub const DEFAULT_SEED: u64 = 67_280_421_310_721;

/// Bytes of PyTorch's `CPUGeneratorImplState` (x86-64 alignment and padding).
pub const STATE_BYTES: usize = 5056;

#[derive(Clone)]
pub struct Mt19937 {
    seed: u64,
    left: i32,
    seeded: bool,
    next: u32,
    state: [u32; N],
}

impl Mt19937 {
    pub fn new(seed: u64) -> Mt19937 {
        let mut state = [0u32; N];
        state[0] = seed as u32;
        for j in 1..N {
            let p = state[j - 1];
            state[j] = 1_812_433_253u32
                .wrapping_mul(p ^ (p >> 30))
                .wrapping_add(j as u32);
        }
        Mt19937 {
            seed,
            left: 1,
            seeded: true,
            next: 0,
            state,
        }
    }

    fn twist(u: u32, v: u32) -> u32 {
        (((u & UPPER) | (v & LOWER)) >> 1) ^ if v & 1 != 0 { MATRIX_A } else { 0 }
    }

    fn next_state(&mut self) {
        let s = &mut self.state;
        self.left = N as i32;
        self.next = 0;
        for k in 0..N - M {
            s[k] = s[k + M] ^ Self::twist(s[k], s[k + 1]);
        }
        for k in N - M..N - 1 {
            s[k] = s[k + M - N] ^ Self::twist(s[k], s[k + 1]);
        }
        s[N - 1] = s[M - 1] ^ Self::twist(s[N - 1], s[0]);
    }

    #[inline]
    pub fn next_u32(&mut self) -> u32 {
        self.left -= 1;
        if self.left == 0 {
            self.next_state();
        }
        let y = self.state[self.next as usize];
        self.next += 1;
        temper(y)
    }

    /// `next_u32()` for each word of `out`, in order: the same words, the same state after.
    /// Runs of the current block are tempered in one loop the compiler vectorizes; a
    /// `next_u32` call refills the block where it would.
    pub fn fill(&mut self, out: &mut [u32]) {
        let mut i = 0;
        while i < out.len() {
            let start = self.next as usize;
            // next_u32 reads without refilling while `left` stays above 0 after its decrement.
            let run = (self.left.max(1) as usize - 1)
                .min(N.saturating_sub(start))
                .min(out.len() - i);
            if run == 0 {
                out[i] = self.next_u32();
                i += 1;
                continue;
            }
            for (o, &y) in out[i..i + run]
                .iter_mut()
                .zip(&self.state[start..start + run])
            {
                *o = temper(y);
            }
            self.left -= run as i32;
            self.next += run as u32;
            i += run;
        }
    }
}

#[inline(always)]
fn temper(mut y: u32) -> u32 {
    y ^= y >> 11;
    y ^= (y << 7) & 0x9d2c_5680;
    y ^= (y << 15) & 0xefc6_0000;
    y ^ (y >> 18)
}

/// `at::CPUGeneratorImpl`: the engine plus the second Box–Muller sample that the scalar
/// normal path keeps for its next call.
#[derive(Clone)]
pub struct CpuGenerator {
    engine: Mt19937,
    pub next_float_normal: Option<f32>,
    pub next_double_normal: Option<f64>,
}

impl CpuGenerator {
    pub fn new(seed: u64) -> CpuGenerator {
        CpuGenerator {
            engine: Mt19937::new(seed),
            next_float_normal: None,
            next_double_normal: None,
        }
    }

    pub fn manual_seed(&mut self, seed: u64) {
        *self = CpuGenerator::new(seed);
    }

    pub fn initial_seed(&self) -> u64 {
        self.engine.seed
    }

    #[inline]
    pub fn random(&mut self) -> u32 {
        self.engine.next_u32()
    }

    /// `random()` for each word of `out`, in order.
    pub fn fill_u32(&mut self, out: &mut [u32]) {
        self.engine.fill(out)
    }

    #[inline]
    pub fn random64(&mut self) -> u64 {
        let hi = self.engine.next_u32() as u64;
        let lo = self.engine.next_u32() as u64;
        (hi << 32) | lo
    }

    /// PyTorch's `CPUGeneratorImplState` bytes: the legacy POD (seed, left, seeded, next,
    /// the state as 624 u64s, normal_x/y/rho, normal_is_valid) then the float cache.
    pub fn get_state(&self) -> Vec<u8> {
        let e = &self.engine;
        let mut b = Vec::with_capacity(STATE_BYTES);
        b.extend_from_slice(&e.seed.to_le_bytes());
        b.extend_from_slice(&e.left.to_le_bytes());
        b.extend_from_slice(&(e.seeded as i32).to_le_bytes());
        b.extend_from_slice(&(e.next as u64).to_le_bytes());
        for &w in &e.state {
            b.extend_from_slice(&(w as u64).to_le_bytes());
        }
        b.extend_from_slice(&0f64.to_le_bytes()); // normal_x (unused)
        b.extend_from_slice(&self.next_double_normal.unwrap_or(0.0).to_le_bytes());
        b.extend_from_slice(&0f64.to_le_bytes()); // normal_rho (unused)
        b.extend_from_slice(&(self.next_double_normal.is_some() as i32).to_le_bytes());
        b.extend_from_slice(&[0; 4]); // padding to 8 bytes
        b.extend_from_slice(&self.next_float_normal.unwrap_or(0.0).to_le_bytes());
        b.push(self.next_float_normal.is_some() as u8);
        b.resize(STATE_BYTES, 0);
        b
    }

    pub fn set_state(&mut self, b: &[u8]) -> Result<()> {
        if b.len() != STATE_BYTES {
            return Err(Error::Runtime(format!(
                "Expected a CPUGeneratorImplState of size {STATE_BYTES} but found the input RNG state size to be {}",
                b.len()
            )));
        }
        let u64_at = |o: usize| u64::from_le_bytes(b[o..o + 8].try_into().unwrap());
        let i32_at = |o: usize| i32::from_le_bytes(b[o..o + 4].try_into().unwrap());
        let mut state = [0u32; N];
        for (k, w) in state.iter_mut().enumerate() {
            *w = u64_at(24 + 8 * k) as u32;
        }
        let engine = Mt19937 {
            seed: u64_at(0),
            left: i32_at(8),
            seeded: i32_at(12) != 0,
            next: u64_at(16) as u32,
            state,
        };
        let valid = engine.seeded
            && engine.left > 0
            && engine.left <= N as i32
            && engine.next as usize <= N;
        if !valid {
            return Err(Error::Runtime("Invalid mt19937 state".into()));
        }
        let tail = 24 + 8 * N; // normal_x, normal_y, normal_rho, normal_is_valid
        let normal_y = f64::from_le_bytes(b[tail + 8..tail + 16].try_into().unwrap());
        let double_valid = i32_at(tail + 24) != 0;
        let fo = tail + 32;
        let float_sample = f32::from_le_bytes(b[fo..fo + 4].try_into().unwrap());
        self.engine = engine;
        self.next_double_normal = double_valid.then_some(normal_y);
        self.next_float_normal = (b[fo + 4] != 0).then_some(float_sample);
        Ok(())
    }
}

/// A generator shared between its Python object and the ops that draw from it.
pub type GeneratorRef = Arc<Mutex<CpuGenerator>>;

/// A fresh 64-bit seed from the OS (PyTorch's `getNonDeterministicRandom`), falling back to
/// the clock.
pub fn nondeterministic_seed() -> u64 {
    use std::io::Read;
    let mut buf = [0u8; 8];
    if std::fs::File::open("/dev/urandom")
        .and_then(|mut f| f.read_exact(&mut buf))
        .is_ok()
    {
        return u64::from_le_bytes(buf);
    }
    let t = std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .map(|d| d.as_nanos() as u64)
        .unwrap_or(DEFAULT_SEED);
    t ^ (std::process::id() as u64).rotate_left(32)
}

/// The process-wide default generator (`torch.default_generator`), seeded
/// nondeterministically at start as PyTorch's is.
pub fn default_generator() -> &'static GeneratorRef {
    static DEFAULT: OnceLock<GeneratorRef> = OnceLock::new();
    DEFAULT.get_or_init(|| Arc::new(Mutex::new(CpuGenerator::new(nondeterministic_seed()))))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn mt19937_reference_outputs() {
        // The reference implementation's first outputs for its default seed 5489.
        let mut m = Mt19937::new(5489);
        let first: Vec<u32> = (0..3).map(|_| m.next_u32()).collect();
        assert_eq!(first, [3_499_211_612, 581_869_302, 3_890_346_734]);
        // std::mt19937's 10000th output for the default seed (C++11 [rand.predef]).
        let mut m = Mt19937::new(5489);
        let v = (0..10_000).map(|_| m.next_u32()).last().unwrap();
        assert_eq!(v, 4_123_659_995);
    }

    #[test]
    fn bulk_fill_is_next_u32() {
        for (skip, len) in [(0, 5000), (1, 623), (622, 2), (623, 1), (7, 624 * 3 + 5)] {
            let (mut a, mut b) = (Mt19937::new(42), Mt19937::new(42));
            for _ in 0..skip {
                a.next_u32();
                b.next_u32();
            }
            let mut out = vec![0u32; len];
            a.fill(&mut out);
            let want: Vec<u32> = (0..len).map(|_| b.next_u32()).collect();
            assert_eq!(out, want);
            assert_eq!(
                (a.left, a.next, a.next_u32()),
                (b.left, b.next, b.next_u32())
            );
        }
    }

    #[test]
    fn state_round_trip() {
        let mut g = CpuGenerator::new(7);
        for _ in 0..1000 {
            g.random();
        }
        g.next_double_normal = Some(0.25);
        let s = g.get_state();
        assert_eq!(s.len(), STATE_BYTES);
        let mut h = CpuGenerator::new(0);
        h.set_state(&s).unwrap();
        assert_eq!(h.next_double_normal, Some(0.25));
        assert_eq!(h.next_float_normal, None);
        assert_eq!(h.initial_seed(), 7);
        for _ in 0..2000 {
            assert_eq!(g.random(), h.random());
        }
        assert!(h.set_state(&[0; 10]).is_err());
        assert!(h.set_state(&[0; STATE_BYTES]).is_err());
    }
}
