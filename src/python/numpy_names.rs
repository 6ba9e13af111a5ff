//! NumPy's keyword names on the native Tensor methods (`x.sum(axis=0, keepdims=True)`,
//! `x.add(x2=y)`), as PyTorch's argument parser takes them (`numpy_compatibility_arg_names` in
//! `torch/csrc/utils/python_arg_parser.cpp`): `axis` for `dim`, `keepdims` for `keepdim`, `x2`
//! for `other` (`x` / `a` / `x1` for `input` live in the Python functions, as methods take
//! `self`).
//!
//! PyO3 matches keywords by the declared names only, so `_numpy_names` replaces each listed
//! method descriptor with one of the same name, flags and doc whose C function is a
//! trampoline: without keywords (nearly every call) it calls the original function at once;
//! with keywords it renames the aliases first. Each trampoline is one instance of
//! `trampoline::<I>` reading its slot `I` (a method definition has no closure).

use pyo3::ffi;
use pyo3::prelude::*;
use pyo3::types::{PyString, PyTuple, PyType};
use std::sync::OnceLock;

/// What slot `I`'s trampoline calls and renames.
struct Slot {
    meth: ffi::PyCFunctionFastWithKeywords,
    /// The op's name in PyTorch's errors (`sum`).
    name: String,
    /// `(alias, PyTorch's name, position of that parameter or None when keyword-only)`.
    aliases: Vec<(String, Py<PyString>, Option<usize>)>,
}

const ROWS: usize = 12;
const SLOTS: usize = ROWS * 16;
static TABLE: [OnceLock<Slot>; SLOTS] = [const { OnceLock::new() }; SLOTS];

/// The keywords `kwnames` with the aliases renamed, None when there is none, or PyTorch's
/// error when the parameter is also given by its own name or by position.
fn renamed<'py>(
    py: Python<'py>,
    slot: &Slot,
    nargs: usize,
    kwnames: &Bound<'py, PyTuple>,
) -> PyResult<Option<Bound<'py, PyTuple>>> {
    let names: Vec<Bound<'py, PyString>> = kwnames
        .iter()
        .map(|k| Ok(k.cast_into::<PyString>()?))
        .collect::<PyResult<_>>()?;
    let mut out: Option<Vec<Bound<'py, PyAny>>> = None;
    for (i, k) in names.iter().enumerate() {
        let k = k.to_str()?;
        let Some((alias, target, pos)) = slot.aliases.iter().find(|(a, _, _)| a == k) else {
            continue;
        };
        let target = target.bind(py);
        let given = pos.is_some_and(|p| nargs > p)
            || names
                .iter()
                .any(|n| n.to_str().is_ok_and(|n| n == target.to_str().unwrap_or("")));
        if given {
            return Err(super::errors::type_error(format!(
                "{}() got an unexpected keyword argument '{alias}'",
                slot.name
            )));
        }
        out.get_or_insert_with(|| names.iter().map(|n| n.clone().into_any()).collect())[i] =
            target.clone().into_any();
    }
    out.map(|v| PyTuple::new(py, v)).transpose()
}

unsafe extern "C" fn trampoline<const I: usize>(
    slf: *mut ffi::PyObject,
    args: *const *mut ffi::PyObject,
    nargs: ffi::Py_ssize_t,
    kwnames: *mut ffi::PyObject,
) -> *mut ffi::PyObject {
    // Set before the descriptor that calls this one exists.
    let Some(slot) = TABLE[I].get() else {
        return std::ptr::null_mut();
    };
    if kwnames.is_null() {
        return unsafe { (slot.meth)(slf, args, nargs, kwnames) };
    }
    // Called by the interpreter with the thread attached.
    let py = unsafe { Python::assume_attached() };
    let names = unsafe { Bound::from_borrowed_ptr(py, kwnames) };
    let result = names
        .cast_into::<PyTuple>()
        .map_err(PyErr::from)
        .and_then(|names| renamed(py, slot, nargs.max(0) as usize, &names));
    match result {
        Ok(None) => unsafe { (slot.meth)(slf, args, nargs, kwnames) },
        Ok(Some(names)) => unsafe { (slot.meth)(slf, args, nargs, names.as_ptr()) },
        Err(e) => {
            e.restore(py);
            std::ptr::null_mut()
        }
    }
}

type Fast = ffi::PyCFunctionFastWithKeywords;

macro_rules! row {
    ($hi:literal) => {
        row!(@ $hi; 0 1 2 3 4 5 6 7 8 9 10 11 12 13 14 15)
    };
    (@ $hi:literal; $($lo:literal)*) => {
        [$(trampoline::<{ $hi * 16 + $lo }> as Fast),*]
    };
}

static TRAMPOLINES: [[Fast; 16]; ROWS] = [
    row!(0),
    row!(1),
    row!(2),
    row!(3),
    row!(4),
    row!(5),
    row!(6),
    row!(7),
    row!(8),
    row!(9),
    row!(10),
    row!(11),
];

/// A method's `(alias, PyTorch's parameter name, its position or None)`s.
type Aliases = Vec<(String, String, Option<usize>)>;

static USED: std::sync::atomic::AtomicUsize = std::sync::atomic::AtomicUsize::new(0);

/// `_numpy_names(cls, methods)`: each `(name, aliases)` of `methods` names a native method of
/// `cls` (a method descriptor taking fast-call keywords) and its `(alias, parameter,
/// position or None)`s; the method then takes each alias for its parameter, as PyTorch's
/// parser does. Returns the names it could not wrap (not such a descriptor).
#[pyfunction]
pub fn _numpy_names(
    py: Python<'_>,
    cls: &Bound<'_, PyType>,
    methods: Vec<(String, Aliases)>,
) -> PyResult<Vec<String>> {
    let mut skipped = Vec::new();
    for (name, aliases) in methods {
        let descr = cls.getattr(name.as_str())?;
        let is_descr = unsafe {
            ffi::Py_TYPE(descr.as_ptr()) == std::ptr::addr_of_mut!(ffi::PyMethodDescr_Type)
        };
        if !is_descr {
            skipped.push(name);
            continue;
        }
        // A method descriptor's definition (its layout is CPython's, not limited API).
        let def = unsafe { &*(*(descr.as_ptr() as *mut ffi::PyMethodDescrObject)).d_method };
        if def.ml_flags != ffi::METH_FASTCALL | ffi::METH_KEYWORDS {
            skipped.push(name);
            continue;
        }
        let i = USED.fetch_add(1, std::sync::atomic::Ordering::Relaxed);
        if i >= SLOTS {
            return Err(super::errors::runtime_error(format!(
                "_numpy_names: more than {SLOTS} methods"
            )));
        }
        let meth = unsafe { def.ml_meth.PyCFunctionFastWithKeywords };
        let aliases = aliases
            .into_iter()
            .map(|(a, t, p)| (a, PyString::intern(py, &t).unbind(), p))
            .collect();
        let _ = TABLE[i].set(Slot {
            meth,
            name: name.clone(),
            aliases,
        });
        // Lives as long as the type that holds its descriptor: for the program.
        let new_def: &'static mut ffi::PyMethodDef = Box::leak(Box::new(ffi::PyMethodDef {
            ml_name: def.ml_name,
            ml_meth: ffi::PyMethodDefPointer {
                PyCFunctionFastWithKeywords: TRAMPOLINES[i / 16][i % 16],
            },
            ml_flags: def.ml_flags,
            ml_doc: def.ml_doc,
        }));
        let new_descr = unsafe {
            Bound::from_owned_ptr_or_err(
                py,
                ffi::PyDescr_NewMethod(cls.as_type_ptr(), new_def as *mut ffi::PyMethodDef),
            )?
        };
        cls.setattr(name.as_str(), new_descr)?;
    }
    Ok(skipped)
}
