//! `einsum`: PyTorch's algorithm (aten `Linear.cpp`) as a composition of differentiable ops, so
//! gradients of any order come from diagonal/permute/unsqueeze/sum/mul/bmm/view themselves and
//! the graph has PyTorch's nodes. Every operand is aligned to `output dims + contracted dims`,
//! then operands are contracted left to right, each pair through one bmm.

use crate::bail;
use crate::error::Result;
use crate::ops::{arithmetic, matmul, movement, reduce, slicing};
use crate::tensor::shape::sizes_i64;
use crate::tensor::Tensor;
use std::collections::VecDeque;

const LETTERS: usize = 26;
/// Labels are `[A-Za-z]`, upper case first (the implicit output is sorted this way).
const TOTAL: usize = 2 * LETTERS;

#[derive(Clone, Copy, PartialEq, Eq)]
enum Sub {
    Label(usize),
    Ellipsis,
}

fn to_label(c: u8) -> usize {
    if c.is_ascii_uppercase() {
        (c - b'A') as usize
    } else {
        (c - b'a') as usize + LETTERS
    }
}

fn to_char(s: usize) -> char {
    if s < LETTERS {
        (b'A' + s as u8) as char
    } else {
        (b'a' + (s - LETTERS) as u8) as char
    }
}

/// Is `s[i..]` an ellipsis (PyTorch requires the third dot to exist).
fn is_ellipsis(s: &[u8], i: usize) -> bool {
    i + 2 < s.len() && s[i + 1] == b'.' && s[i + 2] == b'.'
}

pub fn einsum(equation: &str, operands: &[Tensor]) -> Result<Tensor> {
    if operands.is_empty() {
        bail!(Runtime, "einsum(): must provide at least one operand");
    }
    let num_ops = operands.len();
    let eq = equation.as_bytes();
    let arrow = equation.find("->");
    let lhs = &eq[..arrow.unwrap_or(eq.len())];

    // Parse each operand's subscripts.
    let mut op_labels: Vec<Vec<Sub>> = vec![vec![]; num_ops];
    let mut ell_in_input = false;
    let mut cur = 0usize;
    let mut i = 0usize;
    while i < lhs.len() {
        match lhs[i] {
            b' ' => {}
            b'.' => {
                if ell_in_input {
                    bail!(
                        Runtime,
                        "einsum(): found '.' for operand {cur} for which an ellipsis was already found"
                    );
                }
                if !is_ellipsis(lhs, i) {
                    bail!(
                        Runtime,
                        "einsum(): found '.' for operand {cur} that is not part of any ellipsis"
                    );
                }
                i += 2;
                op_labels[cur].push(Sub::Ellipsis);
                ell_in_input = true;
            }
            b',' => {
                cur += 1;
                if cur >= num_ops {
                    bail!(
                        Runtime,
                        "einsum(): fewer operands were provided than specified in the equation"
                    );
                }
                ell_in_input = false;
            }
            c => {
                if !c.is_ascii_alphabetic() {
                    bail!(Runtime, "einsum(): invalid subscript given at index {i} in the equation string, subscripts must be in [a-zA-Z]");
                }
                op_labels[cur].push(Sub::Label(to_label(c)));
            }
        }
        i += 1;
    }
    if cur != num_ops - 1 {
        bail!(
            Runtime,
            "einsum(): more operands were provided than specified in the equation"
        );
    }

    // Label counts and the number of dims any ellipsis covers.
    let mut label_count = [0usize; TOTAL];
    let mut ell_num_dim = 0usize;
    for (k, (t, labels)) in operands.iter().zip(&op_labels).enumerate() {
        let ndims = t.dim();
        let mut nlabels = labels.len();
        let mut has_ell = false;
        for s in labels {
            match *s {
                Sub::Ellipsis => {
                    nlabels -= 1;
                    has_ell = true;
                    ell_num_dim = ell_num_dim.max(ndims.saturating_sub(nlabels));
                }
                Sub::Label(l) => label_count[l] += 1,
            }
        }
        if has_ell && nlabels > ndims {
            bail!(Runtime, "einsum(): the number of subscripts in the equation ({nlabels}) is more than the number of dimensions ({ndims}) for operand {k}");
        }
        if !has_ell && nlabels != ndims {
            bail!(Runtime, "einsum(): the number of subscripts in the equation ({nlabels}) does not match the number of dimensions ({ndims}) for operand {k} and no ellipsis was given");
        }
    }

    // Where each label goes in the aligned shape: output dims first, then contracted dims.
    let mut label_pos: [Option<usize>; TOTAL] = [None; TOTAL];
    let mut perm_index = 0usize;
    let mut ell_index = 0usize;
    let mut ell_in_output = false;
    match arrow {
        None => {
            // Implicit output: the ellipsis, then the labels seen once, in label order.
            perm_index = ell_num_dim;
            ell_in_output = true;
            for l in 0..TOTAL {
                if label_count[l] == 1 {
                    label_pos[l] = Some(perm_index);
                    perm_index += 1;
                }
            }
        }
        Some(pos) => {
            let rhs = &eq[pos + 2..];
            let mut i = 0usize;
            while i < rhs.len() {
                match rhs[i] {
                    b' ' => {}
                    b'.' => {
                        if ell_in_output {
                            bail!(Runtime, "einsum(): found '.' for output but an ellipsis (...) was already found");
                        }
                        if !is_ellipsis(rhs, i) {
                            bail!(Runtime, "einsum(): found '.' for output that is not part of any ellipsis (...)");
                        }
                        i += 2;
                        ell_index = perm_index;
                        perm_index += ell_num_dim;
                        ell_in_output = true;
                    }
                    c => {
                        if !c.is_ascii_alphabetic() {
                            bail!(Runtime, "einsum(): invalid subscript given at index {} in the equation string, subscripts must be in [a-zA-Z]", lhs.len() + 2 + i);
                        }
                        let l = to_label(c);
                        if label_pos[l].is_some() {
                            bail!(
                                Runtime,
                                "einsum(): output subscript {} appears more than once in the output",
                                c as char
                            );
                        }
                        if label_count[l] == 0 {
                            bail!(Runtime, "einsum(): output subscript {} does not appear in the equation for any input operand", c as char);
                        }
                        label_pos[l] = Some(perm_index);
                        perm_index += 1;
                    }
                }
                i += 1;
            }
        }
    }
    let out_num_dim = perm_index;
    if !ell_in_output {
        ell_index = perm_index;
        perm_index += ell_num_dim;
    }
    for l in 0..TOTAL {
        if label_count[l] > 0 && label_pos[l].is_none() {
            label_pos[l] = Some(perm_index);
            perm_index += 1;
        }
    }

    // Check sizes, take diagonals of repeated labels, unsqueeze missing dims and permute every
    // operand to the aligned order; count the operands where each aligned dim is not 1.
    let mut label_size = [1usize; TOTAL];
    let mut ell_sizes = vec![1usize; ell_num_dim];
    let mut dim_counts = vec![0usize; perm_index];
    let mut ops: VecDeque<Tensor> = VecDeque::with_capacity(num_ops);
    for (k, labels) in op_labels.iter().enumerate() {
        let mut op = operands[k].clone();
        let mut permutation: Vec<Option<usize>> = vec![None; perm_index];
        let mut dim = 0usize;
        for s in labels {
            match *s {
                Sub::Ellipsis => {
                    let ndim = operands[k].dim() - (labels.len() - 1);
                    for j in ell_num_dim - ndim..ell_num_dim {
                        let size = op.shape()[dim];
                        if size != 1 {
                            if ell_sizes[j] != 1 && ell_sizes[j] != size {
                                bail!(Runtime, "einsum(): dimension {dim} covered by ellipsis in operand {k}has size {size} which does not broadcast with previously seen ellipsis with size {} for the respective dimension", ell_sizes[j]);
                            }
                            ell_sizes[j] = size;
                            dim_counts[ell_index + j] += 1;
                        }
                        permutation[ell_index + j] = Some(dim);
                        dim += 1;
                    }
                }
                Sub::Label(l) => {
                    let p = label_pos[l].expect("every input label has a position");
                    match permutation[p] {
                        None => {
                            let size = op.shape()[dim];
                            if size != 1 {
                                if label_size[l] != 1 && label_size[l] != size {
                                    bail!(Runtime, "einsum(): subscript {} has size {size} for operand {k} which does not broadcast with previously seen size {}", to_char(l), label_size[l]);
                                }
                                label_size[l] = size;
                                dim_counts[p] += 1;
                            }
                            permutation[p] = Some(dim);
                            dim += 1;
                        }
                        Some(prev) => {
                            let shape = op.shape();
                            if shape[dim] != shape[prev] {
                                bail!(Runtime, "einsum(): subscript {} is repeated for operand {k} but the sizes don't match, {} != {}", to_char(l), shape[dim], shape[prev]);
                            }
                            let d = slicing::diagonal(&op, 0, prev as i64, dim as i64)?;
                            op = movedim_last_to(&d, prev)?;
                        }
                    }
                }
            }
        }
        let permutation: Vec<i64> = permutation
            .into_iter()
            .map(|p| -> Result<i64> {
                Ok(match p {
                    Some(p) => p as i64,
                    None => {
                        op = movement::unsqueeze(&op, dim as i64)?;
                        dim += 1;
                        (dim - 1) as i64
                    }
                })
            })
            .collect::<Result<_>>()?;
        ops.push_back(movement::permute(&op, &permutation)?);
    }

    // Contract left to right, summing each dim as soon as no later operand has it.
    while ops.len() > 1 {
        let mut a = ops.pop_front().expect("two operands");
        let mut b = ops.pop_front().expect("two operands");
        let (sa_shape, sb_shape) = (a.shape(), b.shape());
        let mut sum_dims = vec![];
        let (mut a_sum, mut b_sum) = (vec![], vec![]);
        for dim in out_num_dim..perm_index {
            let (sa, sb) = (sa_shape[dim] != 1, sb_shape[dim] != 1);
            if sa && sb {
                if sa_shape[dim] != sb_shape[dim] {
                    bail!(Runtime, "non-broadcast dimensions must match");
                }
                dim_counts[dim] -= 1;
                if dim_counts[dim] == 1 {
                    sum_dims.push(dim);
                    dim_counts[dim] = 0;
                }
            } else if dim_counts[dim] == 1 {
                if sa {
                    a_sum.push(dim as i64);
                    dim_counts[dim] = 0;
                } else if sb {
                    b_sum.push(dim as i64);
                    dim_counts[dim] = 0;
                }
            }
        }
        if !a_sum.is_empty() {
            a = reduce::sum(&a, Some(&a_sum), true)?;
        }
        if !b_sum.is_empty() {
            b = reduce::sum(&b, Some(&b_sum), true)?;
        }
        ops.push_front(sumproduct_pair(&a, &b, &sum_dims)?);
    }

    let result = ops.pop_front().expect("one operand left");
    if perm_index > out_num_dim {
        if num_ops > 1 {
            // The contracted dims are all 1 now.
            let sizes = sizes_i64(&result.shape()[..out_num_dim]);
            return movement::view(&result, &sizes);
        }
        let dims: Vec<i64> = (out_num_dim as i64..perm_index as i64).collect();
        return reduce::sum(&result, Some(&dims), false);
    }
    Ok(result)
}

/// `x.movedim(-1, to)`, as the permute PyTorch records for it.
fn movedim_last_to(x: &Tensor, to: usize) -> Result<Tensor> {
    let n = x.dim();
    let mut order: Vec<i64> = (0..n as i64 - 1).collect();
    order.insert(to, n as i64 - 1);
    movement::permute(x, &order)
}

/// `(left * right).sum(sum_dims, keepdim=True)` for aligned operands, through one bmm.
fn sumproduct_pair(left: &Tensor, right: &Tensor, sum_dims: &[usize]) -> Result<Tensor> {
    if sum_dims.is_empty() {
        return arithmetic::mul(left, right);
    }
    let (mut left, mut right) = (left.clone(), right.clone());
    let ndim = left.dim();
    let (ls, rs) = (left.shape(), right.shape());
    let (mut lro, mut lo, mut ro) = (vec![], vec![], vec![]);
    let (mut lro_size, mut lo_size, mut ro_size, mut sum_size) = (1usize, 1usize, 1usize, 1usize);
    for i in 0..ndim {
        let (sl, sr) = (ls[i] != 1, rs[i] != 1);
        if sum_dims.contains(&i) {
            if sl && sr {
                if ls[i] != rs[i] {
                    bail!(Runtime, "non-broadcast dimensions must match");
                }
                sum_size *= ls[i];
            } else if sl {
                left = reduce::sum(&left, Some(&[i as i64]), true)?;
            } else if sr {
                right = reduce::sum(&right, Some(&[i as i64]), true)?;
            }
        } else if sl && sr {
            if ls[i] != rs[i] {
                bail!(Runtime, "non-broadcast dimensions must match");
            }
            lro.push(i);
            lro_size *= ls[i];
        } else if sl {
            lo.push(i);
            lo_size *= ls[i];
        } else {
            ro.push(i);
            ro_size *= rs[i];
        }
    }
    // Swapping the operands lets bmm write the output in its final memory order.
    if !lo.is_empty() && !ro.is_empty() && ro.last() < lo.first() {
        std::mem::swap(&mut left, &mut right);
        std::mem::swap(&mut lo, &mut ro);
        std::mem::swap(&mut lo_size, &mut ro_size);
    }
    let (ls, rs) = (left.shape(), right.shape());
    let mut out_size: Vec<i64> = vec![];
    out_size.extend(lro.iter().map(|&d| ls[d] as i64));
    out_size.extend(lo.iter().map(|&d| ls[d] as i64));
    out_size.extend(sum_dims.iter().map(|_| 1i64));
    out_size.extend(ro.iter().map(|&d| rs[d] as i64));

    let cat = |parts: &[&[usize]]| -> Vec<i64> {
        parts
            .iter()
            .flat_map(|p| p.iter().map(|&d| d as i64))
            .collect()
    };
    let lperm = cat(&[&lro, &lo, sum_dims, &ro]);
    let rperm = cat(&[&lro, sum_dims, &ro, &lo]);
    let mut operm = vec![0i64; out_size.len()];
    for (i, &d) in lro.iter().chain(&lo).chain(sum_dims).chain(&ro).enumerate() {
        operm[d] = i as i64;
    }
    let (a, b, c, d) = (
        lro_size as i64,
        lo_size as i64,
        sum_size as i64,
        ro_size as i64,
    );
    let left = movement::reshape(&movement::permute(&left, &lperm)?, &[a, b, c])?;
    let right = movement::reshape(&movement::permute(&right, &rperm)?, &[a, c, d])?;
    let result = matmul::bmm(&left, &right)?;
    movement::permute(&movement::view(&result, &out_size)?, &operm)
}
