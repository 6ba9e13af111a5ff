//! Engine invariants, tested without Python: linear-time diamonds, no stack overflow on
//! long chains, nodes reclaimed when tensors die, the second-backward error.

use gradrs::autograd::graph::live_nodes;
use gradrs::autograd::{backward, grad, BackwardOptions};
use gradrs::ops::arithmetic::{add, mul};
use gradrs::ops::reduce::sum;
use gradrs::{DType, Scalar, Tensor};
use std::time::{Duration, Instant};

fn leaf(values: Vec<f64>) -> Tensor {
    let n = values.len();
    let t = Tensor::from_vec(values, &[n]);
    t.set_requires_grad(true).unwrap();
    t
}

fn scalar_backward(t: &Tensor) {
    backward(
        std::slice::from_ref(t),
        &[None],
        BackwardOptions::default(),
        None,
    )
    .unwrap();
}

#[test]
fn diamond_of_depth_1000_is_linear() {
    let x = leaf(vec![1.0, 2.0]);
    let mut y = x.clone();
    for _ in 0..1000 {
        // Both branches read y: a naive per-path recursion would take 2^1000 steps.
        y = add(&mul(&y, 0.5).unwrap(), mul(&y, 0.5).unwrap()).unwrap();
    }
    let start = Instant::now();
    scalar_backward(&sum(&y, None, false).unwrap());
    assert!(start.elapsed() < Duration::from_secs(5));
    assert_eq!(x.grad().unwrap().to_vec::<f64>(), vec![1.0, 1.0]);
}

#[test]
fn long_chains_backward_and_drop_without_recursion() {
    let before = live_nodes();
    {
        let x = leaf(vec![1.0]);
        let mut y = x.clone();
        for _ in 0..200_000 {
            y = mul(&y, 1.0).unwrap();
        }
        scalar_backward(&sum(&y, None, false).unwrap());
        assert_eq!(x.grad().unwrap().to_vec::<f64>(), vec![1.0]);
    }
    // Every node of the chain is reclaimed once its tensors are gone.
    // (Other tests run concurrently and own a few nodes; a leak here would be 200,000.)
    assert!(live_nodes() < before + 1_000);
}

#[test]
fn second_backward_through_saved_tensors_fails() {
    let x = leaf(vec![2.0]);
    let y = sum(&mul(&x, &x).unwrap(), None, false).unwrap();
    scalar_backward(&y);
    let err = backward(&[y], &[None], BackwardOptions::default(), None).unwrap_err();
    assert!(err
        .to_string()
        .starts_with("Trying to backward through the graph a second time"));
}

#[test]
fn second_derivative_with_create_graph() {
    let x = leaf(vec![3.0]);
    let y = sum(&mul(&mul(&x, &x).unwrap(), &x).unwrap(), None, false).unwrap();
    let opts = BackwardOptions {
        retain_graph: true,
        create_graph: true,
        batch: None,
    };
    let dy = grad(&[y], &[None], std::slice::from_ref(&x), opts, false).unwrap()[0]
        .clone()
        .unwrap();
    assert_eq!(dy.to_vec::<f64>(), vec![27.0]); // 3x²
    let d2 = grad(
        &[sum(&dy, None, false).unwrap()],
        &[None],
        &[x],
        BackwardOptions::default(),
        false,
    )
    .unwrap();
    assert_eq!(d2[0].clone().unwrap().to_vec::<f64>(), vec![18.0]); // 6x
}

#[test]
fn broadcasting_is_undone_into_the_input_shape() {
    let a = Tensor::from_vec(vec![1.0f32, 2.0, 3.0, 4.0, 5.0, 6.0], &[2, 3]);
    let b = Tensor::from_vec(vec![1.0f32, 1.0, 1.0], &[3]);
    b.set_requires_grad(true).unwrap();
    scalar_backward(&sum(&mul(&a, &b).unwrap(), None, false).unwrap());
    assert_eq!(b.grad().unwrap().to_vec::<f32>(), vec![5.0, 7.0, 9.0]);
    assert_eq!(b.grad().unwrap().dtype(), DType::F32);
    let _ = Scalar::Int(0);
}
