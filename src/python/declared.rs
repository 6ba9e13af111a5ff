//! The Tensor methods of the declared ops, generated from their declarations (Note [Op
//! declarations] in `ops/unary.rs`), and `_native._declared_ops()`, the table that
//! `tools/gen_ops.py` writes the functional forms and stubs from.

use super::convert::tensor_arg;
use super::pointwise::{in_place, in_place_with, operand_arg};
use super::tensor::{wrap, PyTensor};
use crate::ops::binary_decl::binary_table;
use crate::ops::binary_math::{binary_math, BinaryMathOp};
#[allow(unused_imports)] // `Param` is named by the methods of ops with parameters
use crate::ops::unary::{args_of, unary_args, Param, UnaryOp};
use crate::ops::unary_decl::unary_table;
use crate::ops::Operand;
use pyo3::prelude::*;
use pyo3::types::PyDict;

type R = PyResult<Py<PyAny>>;

macro_rules! unary_methods {
    ($(
        $V:ident $name:ident {
            node: $node:literal,
            dtypes: $dtypes:expr,
            $(params: $params:tt,)?
            save: $save:ident,
            cpu: |$v:ident| $cpu:expr,
            wgsl: $wgsl:literal,
            grad: |$g:ident, $s:ident| $grad:expr,
            methods: [$($m:ident),*], inplace: [$($mi:ident),*], functions: [$($f:ident),*],
            sig: $sig:expr,
        }
    )*) => {
        $(unary_methods_of!($V [$($params)?] [$($m)*] [$($mi)*]);)*
    };
}

/// The methods of one declared unary op (its parameters passed on as one token tree, since
/// they repeat independently of the method names).
macro_rules! unary_methods_of {
    ($V:ident $params:tt [$($m:ident)*] [$($mi:ident)*]) => {
        $(unary_method!($V $m $params);)*
        $(unary_method!($V $mi $params in_place);)*
    };
}

/// One Tensor method of a declared unary op, its parameters (`[[name: type = default, ...]]`,
/// or `[]`) as keyword-or-positional arguments with the declared defaults; `in_place` for the
/// `x.op_()` form. Each method is its own `#[pymethods]` block (pyo3 must see the `fn` items
/// themselves, not a macro call).
macro_rules! unary_method {
    ($V:ident $m:ident [] $($inplace:ident)?) => {
        unary_method!($V $m [[]] $($inplace)?);
    };
    ($V:ident $m:ident [[$($p:ident: $pty:ty = $pdef:expr),* $(,)?]]) => {
        #[pymethods]
        impl PyTensor {
            #[pyo3(signature = ($($p = $pdef),*))]
            fn $m(&self, py: Python<'_>, $($p: $pty),*) -> R {
                let args = args_of(&[$(<$pty as Param>::to_arg($p)),*]);
                wrap(py, unary_args(UnaryOp::$V, &self.t, args)?)
            }
        }
    };
    ($V:ident $m:ident [[$($p:ident: $pty:ty = $pdef:expr),* $(,)?]] in_place) => {
        #[pymethods]
        impl PyTensor {
            #[pyo3(signature = ($($p = $pdef),*))]
            fn $m(slf: &Bound<'_, Self>, $($p: $pty),*) -> R {
                let args = args_of(&[$(<$pty as Param>::to_arg($p)),*]);
                in_place(slf, |x| unary_args(UnaryOp::$V, x, args))
            }
        }
    };
}

unary_table!(unary_methods);

/// The second operand of a binary method: a tensor, or also a Python number where the op
/// takes one, with PyTorch's TypeError otherwise.
fn other_arg(obj: &Bound<'_, PyAny>, op: &str, arg: &str, number: bool) -> PyResult<Operand> {
    if number {
        operand_arg(obj, op, arg)
    } else {
        Ok(Operand::Tensor(tensor_arg(obj, op, arg, 1)?))
    }
}

macro_rules! binary_methods {
    ($(
        $V:ident $name:ident {
            node: $node:literal, node_scalar: $node_scalar:literal,
            dtypes: $dtypes:expr,
            cpu: |$a:ident, $b:ident| $cpu:expr,
            wgsl: $wgsl:literal,
            grad_self: |$g1:ident, $a1:ident, $b1:ident| $grad_self:expr,
            grad_other: |$g2:ident, $a2:ident, $b2:ident| $grad_other:expr,
            arg: $arg:ident, number: $number:literal,
            methods: [$($m:ident),*], inplace: [$($mi:ident),*], functions: [$($f:ident),*],
            sig: $sig:expr,
        }
    )*) => {
        #[pymethods]
        impl PyTensor {
            $(
                $(
                    fn $m(&self, py: Python<'_>, $arg: &Bound<'_, PyAny>) -> R {
                        let o = other_arg($arg, stringify!($m), stringify!($arg), $number)?;
                        wrap(py, binary_math(BinaryMathOp::$V, &self.t, o)?)
                    }
                )*
                $(
                    fn $mi(slf: &Bound<'_, Self>, $arg: &Bound<'_, PyAny>) -> R {
                        let o = other_arg($arg, stringify!($mi), stringify!($arg), $number)?;
                        let edge = o.edge_tensor(crate::DType::F32);
                        in_place_with(slf, &[&edge], |x| binary_math(BinaryMathOp::$V, x, o))
                    }
                )*
            )*
        }
    };
}

binary_table!(binary_methods);

/// `_native._declared_ops()`: one dict per declared op (kind, name, node, wgsl, methods,
/// inplace methods, functions, the functions' signature; unary ops also their parameters as
/// (name, Rust type, default); binary ops the second argument's name and whether it may be a
/// number), in table order.
#[pyfunction]
pub fn _declared_ops(py: Python<'_>) -> PyResult<Vec<Py<PyDict>>> {
    let mut rows = Vec::new();
    for op in UnaryOp::ALL {
        let d = op.declared();
        let row = PyDict::new(py);
        row.set_item("kind", "unary")?;
        row.set_item("name", d.name)?;
        row.set_item("node", d.node)?;
        row.set_item("wgsl", d.wgsl)?;
        row.set_item("params", d.params.to_vec())?;
        row.set_item("methods", d.methods.to_vec())?;
        row.set_item("inplace", d.inplace.to_vec())?;
        row.set_item("functions", d.functions.to_vec())?;
        row.set_item("signature", d.sig)?;
        rows.push(row.unbind());
    }
    for op in BinaryMathOp::ALL {
        let d = op.declared();
        let row = PyDict::new(py);
        row.set_item("kind", "binary")?;
        row.set_item("name", d.name)?;
        row.set_item("node", d.node)?;
        row.set_item("wgsl", d.wgsl)?;
        row.set_item("arg", d.arg)?;
        row.set_item("number", d.number)?;
        row.set_item("methods", d.methods.to_vec())?;
        row.set_item("inplace", d.inplace.to_vec())?;
        row.set_item("functions", d.functions.to_vec())?;
        row.set_item("signature", d.sig)?;
        rows.push(row.unbind());
    }
    Ok(rows)
}

pub fn register(m: &Bound<'_, PyModule>) -> PyResult<()> {
    m.add_function(wrap_pyfunction!(_declared_ops, m)?)
}
