//! Every differentiable op, defined once: the forward (calling primitive kernels) and the
//! backward formula written in tensor ops, side by side, so higher-order gradients come free.
//! See ARCHITECTURE.md, "Adding an op".

pub mod activation;
pub mod arithmetic;
pub mod backward_ops;
pub mod binary_decl;
pub mod binary_kernels;
pub mod binary_kernels_decl;
pub mod binary_math;
pub mod clamp;
pub mod compare;
pub mod creation;
pub mod divmod;
pub mod einsum;
pub mod extrema;
pub mod forward;
pub mod index;
pub mod inplace;
pub mod inplace_view;
pub mod linalg;
pub mod logical;
pub mod matmul;
pub mod movement;
pub mod multi;
pub mod multi_decl;
pub mod nll_grad;
pub mod nn;
mod nn_saved;
pub mod norm;
pub mod optim;
pub mod pointwise;
pub mod random;
pub mod reduce;
pub mod reduction;
pub mod reduction_decl;
pub mod resize;
pub mod rnn;
pub mod sampling;
pub mod scan;
pub mod shape;
pub mod slicing;
pub mod sort;
pub mod special;
pub mod special_fns;
pub mod statistics;
pub mod strided;
pub mod unary;
pub mod unary_decl;
pub mod view;
pub mod view_decl;
pub mod where_;

pub use crate::tensor::Operand;
