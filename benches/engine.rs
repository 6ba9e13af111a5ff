//! Criterion benches of the core without Python: per-op cost with and without graph
//! recording, the seed article's graph forward+backward, and a long chain backward.

use criterion::{black_box, criterion_group, criterion_main, Criterion};
use gradrs::autograd::{backward, BackwardOptions};
use gradrs::ops::arithmetic::{add, mul, rsub};
use gradrs::ops::random::randn;
use gradrs::ops::reduce::sum;
use gradrs::ops::unary::tanh;
use gradrs::ops::Operand;
use gradrs::{DType, Scalar, Tensor};

fn leaf(shape: &[usize]) -> Tensor {
    let t = randn(shape, DType::F32).unwrap();
    t.set_requires_grad(true).unwrap();
    t
}

fn per_op(c: &mut Criterion) {
    let (a, b) = (
        Tensor::scalar(Scalar::Float(2.0), DType::F32),
        Tensor::scalar(Scalar::Float(3.0), DType::F32),
    );
    c.bench_function("mul 1-elem", |bch| {
        bch.iter(|| mul(black_box(&a), black_box(&b)).unwrap())
    });
    let (a, b) = (leaf(&[1]), leaf(&[1]));
    c.bench_function("mul 1-elem requires_grad", |bch| {
        bch.iter(|| mul(black_box(&a), black_box(&b)).unwrap())
    });
}

fn seed_graph(c: &mut Criterion) {
    let (a, w1, w2, w3, w4) = (
        leaf(&[3, 3]),
        leaf(&[3, 3]),
        leaf(&[3, 3]),
        leaf(&[3, 3]),
        leaf(&[3, 3]),
    );
    c.bench_function("seed graph 3x3 fwd+bwd", |bch| {
        bch.iter(|| {
            let b = mul(&w1, &a).unwrap();
            let c = mul(&w2, &a).unwrap();
            let d = add(&mul(&w3, &b).unwrap(), mul(&w4, &c).unwrap()).unwrap();
            let l = sum(
                &rsub(&d, Operand::Scalar(Scalar::Int(10))).unwrap(),
                None,
                false,
            )
            .unwrap();
            backward(&[l], &[None], BackwardOptions::default(), None).unwrap();
            for t in [&a, &w1, &w2, &w3, &w4] {
                t.set_grad(None);
            }
        })
    });
}

fn tanh_chain(c: &mut Criterion) {
    let x = leaf(&[64]);
    c.bench_function("tanh chain 1000 on 64 elems fwd+bwd", |bch| {
        bch.iter(|| {
            let mut y = x.clone();
            for _ in 0..1000 {
                y = tanh(&y).unwrap();
            }
            let l = sum(&y, None, false).unwrap();
            backward(&[l], &[None], BackwardOptions::default(), None).unwrap();
            x.set_grad(None);
        })
    });
}

criterion_group!(benches, per_op, seed_graph, tanh_chain);
criterion_main!(benches);
