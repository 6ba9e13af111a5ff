//! The Tensor methods of the declared ops, generated from their declarations (Note [Op
//! declarations] in `ops/unary.rs`), and `_native._declared_ops()`, the table that
//! `tools/gen_ops.py` writes the functional forms and stubs from.

use super::convert::tensor_arg;
use super::pointwise::{in_place, in_place_with, operand_arg};
use super::tensor::{wrap, PyTensor};
use crate::ops::binary_decl::binary_table;
use crate::ops::binary_math::{binary_math, BinaryMathOp};
use crate::ops::multi::MultiOp;
use crate::ops::multi_decl::multi_table;
use crate::ops::reduction::ReductionOp;
use crate::ops::reduction_decl::reduction_table;
#[allow(unused_imports)] // `Param` is named by the methods of ops with parameters
use crate::ops::unary::{args_of, unary_args, Param, UnaryOp};
use crate::ops::unary_decl::unary_table;
use crate::ops::view::{Dims, ViewOp};
use crate::ops::view_decl::view_table;
use crate::ops::Operand;
use pyo3::prelude::*;
use pyo3::types::PyDict;

type R = PyResult<Py<PyAny>>;

macro_rules! unary_methods {
    ($(
        $(#[doc = $doc:literal])*
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
        $(unary_methods_of!($V $name [$($params)?] [$($m)*] [$($mi)*] [$($doc),*]);)*
    };
}

/// The methods of one declared unary op (its parameters and doc lines passed on as one token
/// tree each, since they repeat independently of the method names). A method's docstring is
/// its signature line and the entry's `///` lines; an in-place form's points to the op.
macro_rules! unary_methods_of {
    ($V:ident $name:ident $params:tt [$($m:ident)*] [$($mi:ident)*] $docs:tt) => {
        $(unary_method!($V $m $params [
            concat!(stringify!($m), "(", params_sig!($params), ") -> Tensor"), ""
        ] $docs);)*
        $(unary_method!($V $mi $params [
            concat!(stringify!($mi), "(", params_sig!($params), ") -> Tensor"),
            "",
            concat!("In-place version of :meth:`~Tensor.", stringify!($name), "`.")
        ] [] in_place);)*
    };
}

/// A declared unary op's parameters as a Python signature's (`eps=None, lambd=0.5`).
macro_rules! params_sig {
    ([]) => { "" };
    ([[]]) => { "" };
    ([[$p:ident: $pty:ty = $d0:tt $($d1:literal)? $(,)?]]) => {
        concat!(stringify!($p), "=", py_default!($d0 $($d1)?))
    };
    ([[$p:ident: $pty:ty = $d0:tt $($d1:literal)?, $($rest:tt)+]]) => {
        concat!(stringify!($p), "=", py_default!($d0 $($d1)?), ", ", params_sig!([[$($rest)+]]))
    };
}

/// A declared default as Python writes it (`False`, `-1.0`, `None`, `0.5`).
macro_rules! py_default {
    (false) => {
        "False"
    };
    (true) => {
        "True"
    };
    (- $v:literal) => {
        concat!("-", stringify!($v))
    };
    ($v:tt) => {
        stringify!($v)
    };
}

/// One Tensor method of a declared unary op, its parameters (`[[name: type = default, ...]]`,
/// or `[]`) as keyword-or-positional arguments with the declared defaults; `in_place` for the
/// `x.op_()` form. Each method is its own `#[pymethods]` block (pyo3 must see the `fn` items
/// themselves, not a macro call). Defaults are matched as tokens (`None`, `0.01`, `-1.0`), not
/// as expressions: pyo3 shows an expression forwarded by a macro as `...` in the signature.
macro_rules! unary_method {
    ($V:ident $m:ident [] $head:tt $docs:tt $($inplace:ident)?) => {
        unary_method!($V $m [[]] $head $docs $($inplace)?);
    };
    (
        $V:ident $m:ident [[$($p:ident: $pty:ty = $d0:tt $($d1:literal)?),* $(,)?]]
        [$($head:expr),*] [$($doc:literal),*]
    ) => {
        #[pymethods]
        impl PyTensor {
            $(#[doc = $head])*
            $(#[doc = $doc])*
            #[pyo3(signature = ($($p = $d0 $($d1)?),*))]
            fn $m(&self, py: Python<'_>, $($p: $pty),*) -> R {
                let args = args_of(&[$(<$pty as Param>::to_arg($p)),*]);
                let x = &self.t;
                super::boundary::tensor_on(py, &[x], || unary_args(UnaryOp::$V, x, args))
            }
        }
    };
    (
        $V:ident $m:ident [[$($p:ident: $pty:ty = $d0:tt $($d1:literal)?),* $(,)?]]
        [$($head:expr),*] [$($doc:literal),*] in_place
    ) => {
        #[pymethods]
        impl PyTensor {
            $(#[doc = $head])*
            $(#[doc = $doc])*
            #[pyo3(signature = ($($p = $d0 $($d1)?),*))]
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
        $(#[doc = $doc:literal])*
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
        $(binary_methods_of!($V $name $arg $number [$($m)*] [$($mi)*] [$($doc),*]);)*
    };
}

/// The methods of one declared binary op (its doc lines passed on as one token tree), with
/// docstrings as `unary_methods_of!` writes them.
macro_rules! binary_methods_of {
    (
        $V:ident $name:ident $arg:ident $number:literal [$($m:ident)*] [$($mi:ident)*]
        $docs:tt
    ) => {
        $(binary_method!($V $m $arg $number [
            concat!(stringify!($m), "(", stringify!($arg), ") -> Tensor"), ""
        ] $docs);)*
        $(binary_method!($V $mi $arg $number [
            concat!(stringify!($mi), "(", stringify!($arg), ") -> Tensor"),
            "",
            concat!("In-place version of :meth:`~Tensor.", stringify!($name), "`.")
        ] [] in_place);)*
    };
}

/// One Tensor method of a declared binary op (`in_place` for the `x.op_(other)` form).
macro_rules! binary_method {
    ($V:ident $m:ident $arg:ident $number:literal [$($head:expr),*] [$($doc:literal),*]) => {
        #[pymethods]
        impl PyTensor {
            $(#[doc = $head])*
            $(#[doc = $doc])*
            fn $m(&self, py: Python<'_>, $arg: &Bound<'_, PyAny>) -> R {
                let o = other_arg($arg, stringify!($m), stringify!($arg), $number)?;
                let small = super::boundary::is_small_with(&self.t, &o);
                super::boundary::tensor_if(py, small, || {
                    binary_math(BinaryMathOp::$V, &self.t, o)
                })
            }
        }
    };
    (
        $V:ident $mi:ident $arg:ident $number:literal [$($head:expr),*] [$($doc:literal),*]
        in_place
    ) => {
        #[pymethods]
        impl PyTensor {
            $(#[doc = $head])*
            $(#[doc = $doc])*
            fn $mi(slf: &Bound<'_, Self>, $arg: &Bound<'_, PyAny>) -> R {
                let o = other_arg($arg, stringify!($mi), stringify!($arg), $number)?;
                let edge = o.edge_tensor(crate::DType::F32);
                in_place_with(slf, &[&edge], |x| binary_math(BinaryMathOp::$V, x, o))
            }
        }
    };
}

binary_table!(binary_methods);

macro_rules! reduction_methods {
    ($(
        $(#[doc = $doc:literal])*
        $V:ident $name:ident {
            dtypes: $dtypes:expr,
            compose: |$x:ident, $dims:ident, $keepdim:ident| $compose:expr,
            $(node: $node:literal, grad: |$g:ident, $gx:ident| $grad:expr,)?
            methods: [$($m:ident),*], functions: [$($f:ident),*],
            sig: $sig:expr,
        }
    )*) => {
        $(reduction_methods_of!($V [$($m)*] [$($doc),*]);)*
    };
}

/// The methods of one declared reduction (its doc lines passed on as one token tree).
macro_rules! reduction_methods_of {
    ($V:ident [$($m:ident)*] $docs:tt) => {
        $(reduction_method!($V $m $docs);)*
    };
}

/// One Tensor method of a declared reduction, its docstring the signature and the doc lines.
macro_rules! reduction_method {
    ($V:ident $m:ident [$($doc:literal),*]) => {
        #[pymethods]
        impl PyTensor {
            #[doc = concat!(
                stringify!($m), "(dim=None, keepdim=False, *, dtype=None) -> Tensor"
            )]
            #[doc = ""]
            $(#[doc = $doc])*
            #[pyo3(signature = (dim=None, keepdim=false, *, dtype=None))]
            fn $m(
                &self,
                py: Python<'_>,
                dim: Option<&Bound<'_, PyAny>>,
                keepdim: bool,
                dtype: Option<&Bound<'_, PyAny>>,
            ) -> R {
                let dims = super::tensor::dims_arg(dim)?;
                let dtype = super::dtype::extract_dtype(dtype)?;
                let x = self.t.clone();
                super::boundary::tensor_on(py, &[&self.t], || {
                    let op = ReductionOp::$V;
                    crate::ops::reduction::reduction(op, &x, dims.as_deref(), keepdim, dtype)
                })
            }
        }
    };
}

reduction_table!(reduction_methods);

/// A declared view op's argument, from Python, with PyTorch's TypeError.
#[allow(dead_code)] // used once the view table has an entry
trait ViewArg: Sized {
    fn from_py(obj: &Bound<'_, PyAny>, op: &str, name: &str) -> PyResult<Self>;
}

#[allow(dead_code)]
fn not_ints(obj: &Bound<'_, PyAny>, op: &str, name: &str, want: &str) -> PyErr {
    let got = obj
        .get_type()
        .name()
        .map_or_else(|_| "object".into(), |n| n.to_string());
    super::errors::type_error(format!(
        "{op}(): argument '{name}' must be {want}, not {got}"
    ))
}

impl ViewArg for i64 {
    fn from_py(obj: &Bound<'_, PyAny>, op: &str, name: &str) -> PyResult<Self> {
        if obj.is_instance_of::<pyo3::types::PyBool>() {
            return Err(not_ints(obj, op, name, "int"));
        }
        obj.extract().map_err(|_| not_ints(obj, op, name, "int"))
    }
}

impl ViewArg for Dims {
    fn from_py(obj: &Bound<'_, PyAny>, op: &str, name: &str) -> PyResult<Self> {
        if let Ok(d) = i64::from_py(obj, op, name) {
            return Ok(Dims::One(d));
        }
        let ints = obj.is_instance_of::<pyo3::types::PyTuple>()
            || obj.is_instance_of::<pyo3::types::PyList>();
        match obj.extract::<Vec<Bound<'_, PyAny>>>() {
            Ok(items) if ints => items
                .iter()
                .map(|v| i64::from_py(v, op, name))
                .collect::<PyResult<Vec<_>>>()
                .map(Dims::Many)
                .map_err(|_| not_ints(obj, op, name, "tuple of ints")),
            _ => Err(not_ints(obj, op, name, "tuple of ints")),
        }
    }
}

macro_rules! view_methods {
    ($(
        $(#[doc = $doc:literal])*
        $V:ident $name:ident {
            args: [$($a:ident: $aty:ty),* $(,)?],
            compose: |$x:ident| $compose:expr,
            methods: [$($m:ident),*], functions: [$($f:ident),*],
            sigs: [$($sig:expr),* $(,)?],
        }
    )*) => {
        $(view_methods_of!($name [$($a: $aty),*] [$($m)*] [$($doc),*]);)*
    };
}

/// The methods of one declared view op (its arguments and doc lines passed on as one token
/// tree each).
#[allow(unused_macros)] // used once the table has an entry
macro_rules! view_methods_of {
    ($name:ident $args:tt [$($m:ident)*] $docs:tt) => {
        $(view_method!($name $m $args $docs);)*
    };
}

/// One Tensor method of a declared view op: its arguments converted with PyTorch's errors.
#[allow(unused_macros)] // used once the table has an entry
macro_rules! view_method {
    ($name:ident $m:ident [$($a:ident: $aty:ty),*] [$($doc:literal),*]) => {
        #[pymethods]
        impl PyTensor {
            #[doc = concat!(stringify!($m), "(", view_args_sig!($($a),*), ") -> Tensor")]
            #[doc = ""]
            $(#[doc = $doc])*
            fn $m(&self, py: Python<'_>, $($a: &Bound<'_, PyAny>),*) -> R {
                $(let $a = <$aty as ViewArg>::from_py($a, stringify!($m), stringify!($a))?;)*
                let x = self.t.clone();
                super::boundary::tensor(py, || crate::ops::view::$name(&x, $($a),*))
            }
        }
    };
}

/// A declared view op's arguments as a Python signature's (`source, destination`).
#[allow(unused_macros)] // used once the table has an entry
macro_rules! view_args_sig {
    ($a:ident) => { stringify!($a) };
    ($a:ident, $($rest:ident),+) => { concat!(stringify!($a), ", ", view_args_sig!($($rest),+)) };
}

view_table!(view_methods);

macro_rules! multi_methods {
    ($(
        $(#[doc = $doc:literal])*
        $V:ident $name:ident {
            node: $node:literal,
            outputs: [$($o:ident),* $(,)?],
            kwargs: $kwargs:tt,
            forward: |$x:ident| $forward:expr,
            grad: |$grads:ident, $gx:ident, $outs:ident| $grad:expr,
            jvp: |$jt:ident, $jx:ident, $jouts:ident| $jvp:expr,
            methods: [$($m:ident),*], functions: [$($f:ident),*],
            sig: $sig:expr,
        }
    )*) => {
        $(multi_methods_of!($name $kwargs [$($m)*] [$($doc),*]);)*
    };
}

/// The methods of one declared multi-output op (its keyword arguments and doc lines as one
/// token tree each).
#[allow(unused_macros)] // used once the table has an entry
macro_rules! multi_methods_of {
    ($name:ident $kwargs:tt [$($m:ident)*] $docs:tt) => {
        $(multi_method!($name $m $kwargs $docs);)*
    };
}

/// One Tensor method of a declared multi-output op: keyword-only arguments with their
/// defaults; the outputs as `gradrs.return_types.<name>`.
#[allow(unused_macros)] // used once the table has an entry
macro_rules! multi_method {
    (
        $name:ident $m:ident [$($k:ident: $kty:ty = $d0:tt $($d1:literal)?),* $(,)?]
        [$($doc:literal),*]
    ) => {
        #[pymethods]
        impl PyTensor {
            #[doc = concat!(
                stringify!($m), "(*", $(", ", stringify!($k), "=", py_default!($d0 $($d1)?),)*
                ") -> (Tensor, Tensor)"
            )]
            #[doc = ""]
            $(#[doc = $doc])*
            #[pyo3(signature = (*, $($k = $d0 $($d1)?),*))]
            fn $m(&self, py: Python<'_>, $($k: $kty),*) -> R {
                let x = self.t.clone();
                let outs = super::boundary::run(py, || crate::ops::multi::$name(&x, $($k),*))?;
                let outs = outs.into_iter().map(|t| wrap(py, t)).collect::<PyResult<Vec<_>>>()?;
                super::helpers::return_type_of(py, stringify!($name), outs)
            }
        }
    };
}

multi_table!(multi_methods);

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
    for op in ReductionOp::ALL {
        let d = op.declared();
        let row = PyDict::new(py);
        row.set_item("kind", "reduction")?;
        row.set_item("name", d.name)?;
        row.set_item("methods", d.methods.to_vec())?;
        row.set_item("inplace", Vec::<&str>::new())?;
        row.set_item("functions", d.functions.to_vec())?;
        row.set_item("signature", d.sig)?;
        rows.push(row.unbind());
    }
    for op in ViewOp::ALL {
        let d = op.declared();
        let row = PyDict::new(py);
        row.set_item("kind", "view")?;
        row.set_item("name", d.name)?;
        row.set_item("args", d.args.to_vec())?;
        row.set_item("methods", d.methods.to_vec())?;
        row.set_item("inplace", Vec::<&str>::new())?;
        row.set_item("functions", d.functions.to_vec())?;
        row.set_item("signature", d.sigs.to_vec())?;
        rows.push(row.unbind());
    }
    for op in MultiOp::ALL {
        let d = op.declared();
        let row = PyDict::new(py);
        row.set_item("kind", "multi")?;
        row.set_item("name", d.name)?;
        row.set_item("node", d.node)?;
        row.set_item("outputs", d.outputs.to_vec())?;
        row.set_item("kwargs", d.kwargs.to_vec())?;
        row.set_item("methods", d.methods.to_vec())?;
        row.set_item("inplace", Vec::<&str>::new())?;
        row.set_item("functions", d.functions.to_vec())?;
        row.set_item("signature", d.sig)?;
        rows.push(row.unbind());
    }
    Ok(rows)
}

pub fn register(m: &Bound<'_, PyModule>) -> PyResult<()> {
    m.add_function(wrap_pyfunction!(_declared_ops, m)?)
}
