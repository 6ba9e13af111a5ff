//! Note [Parser errors]: PyTorch's argument-parser texts for the Tensor methods' own
//! argument errors.
//!
//! pyo3 parses a method's arguments before its body runs, and its TypeErrors are Python's
//! wordings (`Tensor.sum() got an unexpected keyword argument 'foo'`, `'list' object is not an
//! instance of 'Tensor'` with a note naming the parameter), where PyTorch's parser
//! (`torch/csrc/utils/python_arg_parser.cpp`) names the function, the parameter and its
//! position (`gather(): argument 'index' (position 2) must be Tensor, not list`) or lists the
//! signatures of an overloaded one. Neither pyo3 nor a method body can see those errors, so
//! the boundary is moved one call out: `_install_parser_errors` gives every native method of
//! the class a descriptor of its own whose C function calls the method's and, only when that
//! raised a TypeError, hands the call and the error to a Python callback
//! (`gradrs._argparse.method_error`), whose exception, if it returns one, replaces pyo3's. A
//! call that succeeds pays one indirect call. Methods taking no arguments (`METH_NOARGS`) get
//! CPython's own "takes no arguments" texts with PyTorch's class name, `TensorBase`.
//!
//! The top-level functions are Python wrappers already (the functional forms, the dispatching
//! wrapper of `_torch_function`, the factories' default-device wrapper, `_foreach`), so their
//! boundary is there: a call that raised is matched against the listing of PyTorch's overloads
//! of that function (`_function_signatures.py`) and raises PyTorch's parser TypeError where no
//! overload takes its arguments, whatever gradrs raised (PyTorch's parser runs first). The
//! success path pays nothing (`_argparse.listed_error`).

use pyo3::exceptions::PyTypeError;
use pyo3::ffi;
use pyo3::prelude::*;
use pyo3::sync::PyOnceLock;
use pyo3::types::{PyDict, PyTuple, PyType};
use std::ffi::CStr;
use std::os::raw::c_int;
use std::sync::atomic::{AtomicPtr, AtomicUsize, Ordering};

type Fast = unsafe extern "C" fn(
    *mut ffi::PyObject,
    *const *mut ffi::PyObject,
    ffi::Py_ssize_t,
    *mut ffi::PyObject,
) -> *mut ffi::PyObject;

const ROWS: usize = 32;
const SLOTS: usize = ROWS * 32;

/// The original method definition each trampoline calls, by slot.
static ORIGINAL: [AtomicPtr<ffi::PyMethodDef>; SLOTS] =
    [const { AtomicPtr::new(std::ptr::null_mut()) }; SLOTS];
static USED: AtomicUsize = AtomicUsize::new(0);
static CALLBACK: PyOnceLock<Py<PyAny>> = PyOnceLock::new();

unsafe extern "C" fn trampoline<const I: usize>(
    slf: *mut ffi::PyObject,
    args: *const *mut ffi::PyObject,
    nargsf: ffi::Py_ssize_t,
    kwnames: *mut ffi::PyObject,
) -> *mut ffi::PyObject {
    let def = ORIGINAL[I].load(Ordering::Relaxed);
    // SAFETY: the slot was filled before the descriptor calling this trampoline existed, with
    // a definition pyo3 keeps alive as long as the class; the arguments are CPython's
    // vectorcall arguments, passed on unchanged.
    unsafe {
        let result = if (*def).ml_flags & ffi::METH_NOARGS != 0 {
            noargs(def, slf, nargsf, kwnames)
        } else {
            ((*def).ml_meth.PyCFunctionFastWithKeywords)(slf, args, nargsf, kwnames)
        };
        if result.is_null() {
            rewrite(def, slf, args, nargsf, kwnames);
        }
        result
    }
}

/// A `METH_NOARGS` method called through the vectorcall convention: CPython's checks
/// (`method_vectorcall_NOARGS`), with the texts PyTorch's methods give.
unsafe fn noargs(
    def: *mut ffi::PyMethodDef,
    slf: *mut ffi::PyObject,
    nargsf: ffi::Py_ssize_t,
    kwnames: *mut ffi::PyObject,
) -> *mut ffi::PyObject {
    // SAFETY: as in `trampoline`; `def` is a METH_NOARGS definition, so `PyCFunction`.
    unsafe {
        let py = Python::assume_attached();
        let name = CStr::from_ptr((*def).ml_name).to_string_lossy();
        if !kwnames.is_null() && ffi::PyTuple_GET_SIZE(kwnames) > 0 {
            super::errors::type_error(format!("TensorBase.{name}() takes no keyword arguments"))
                .restore(py);
            return std::ptr::null_mut();
        }
        let n = ffi::PyVectorcall_NARGS(nargsf as usize);
        if n != 0 {
            super::errors::type_error(format!(
                "TensorBase.{name}() takes no arguments ({n} given)"
            ))
            .restore(py);
            return std::ptr::null_mut();
        }
        ((*def).ml_meth.PyCFunction)(slf, std::ptr::null_mut())
    }
}

/// The method's call raised: a TypeError goes to the callback with the call, and the
/// exception it returns (if any) is raised instead.
#[cold]
unsafe fn rewrite(
    def: *mut ffi::PyMethodDef,
    slf: *mut ffi::PyObject,
    args: *const *mut ffi::PyObject,
    nargsf: ffi::Py_ssize_t,
    kwnames: *mut ffi::PyObject,
) {
    // SAFETY: the GIL is held (we are inside a method call) and the pointers are the call's.
    unsafe {
        let py = Python::assume_attached();
        let Some(err) = PyErr::take(py) else { return };
        let Some(callback) = CALLBACK.get(py) else {
            return err.restore(py);
        };
        if !err.is_instance_of::<PyTypeError>(py) {
            return err.restore(py);
        }
        let n = ffi::PyVectorcall_NARGS(nargsf as usize);
        let positional: Vec<Bound<'_, PyAny>> = (0..n as usize)
            .map(|i| Bound::from_borrowed_ptr(py, *args.add(i)))
            .collect();
        let replaced = (|| -> PyResult<Option<PyErr>> {
            let kwargs = PyDict::new(py);
            if !kwnames.is_null() {
                let names = Bound::from_borrowed_ptr(py, kwnames);
                for (j, key) in names.try_iter()?.enumerate() {
                    kwargs.set_item(
                        key?,
                        Bound::from_borrowed_ptr(py, *args.add(n as usize + j)),
                    )?;
                }
            }
            let name = CStr::from_ptr((*def).ml_name).to_string_lossy();
            let me = Bound::from_borrowed_ptr(py, slf);
            let exc = err.clone_ref(py).into_value(py);
            let r = callback.call1(py, (name, me, PyTuple::new(py, positional)?, kwargs, exc))?;
            Ok(if r.is_none(py) {
                None
            } else {
                Some(PyErr::from_value(r.into_bound(py)))
            })
        })();
        match replaced {
            Ok(Some(new)) => new.restore(py),
            Ok(None) => err.restore(py),
            // a bug in the callback must not hide the method's own error
            Err(_) => err.restore(py),
        }
    }
}

macro_rules! table {
    ($($row:literal)*) => { [$(table!(@row $row; 0 1 2 3 4 5 6 7 8 9 10 11 12 13 14 15 16 17
        18 19 20 21 22 23 24 25 26 27 28 29 30 31)),*] };
    (@row $row:literal; $($col:literal)*) => { [$(trampoline::<{ $row * 32 + $col }> as Fast),*] };
}

static TRAMPOLINES: [[Fast; 32]; ROWS] = table!(0 1 2 3 4 5 6 7 8 9 10 11 12 13 14 15 16 17 18
    19 20 21 22 23 24 25 26 27 28 29 30 31);

/// `_native._install_parser_errors(cls, callback)`: route the TypeErrors of `cls`'s native
/// methods through `callback(name, self, args, kwargs, error)` (Note [Parser errors]).
/// Returns how many methods it rerouted.
#[pyfunction]
pub fn _install_parser_errors(
    py: Python<'_>,
    cls: &Bound<'_, PyType>,
    callback: Py<PyAny>,
) -> PyResult<usize> {
    if CALLBACK.set(py, callback).is_err() {
        return Ok(0); // installed once per process
    }
    let dict = cls.getattr("__dict__")?;
    let items: Vec<(Bound<'_, PyAny>, Bound<'_, PyAny>)> = dict
        .call_method0("items")?
        .try_iter()?
        .map(|kv| kv?.extract())
        .collect::<PyResult<_>>()?;
    let mut count = 0;
    for (name, descr) in items {
        // SAFETY: reading the type of a live object and, for a method descriptor, its
        // definition pointer (CPython's `PyMethodDescrObject` layout, not the limited API).
        let def = unsafe {
            if ffi::Py_TYPE(descr.as_ptr()) != std::ptr::addr_of_mut!(ffi::PyMethodDescr_Type) {
                continue;
            }
            (*(descr.as_ptr() as *mut ffi::PyMethodDescrObject)).d_method
        };
        // SAFETY: `def` is the descriptor's definition, alive with the class.
        let flags = unsafe { (*def).ml_flags };
        let fast = ffi::METH_FASTCALL | ffi::METH_KEYWORDS;
        if flags & !ffi::METH_COEXIST != fast && flags & !ffi::METH_COEXIST != ffi::METH_NOARGS {
            continue;
        }
        let slot = USED.fetch_add(1, Ordering::Relaxed);
        if slot >= SLOTS {
            break; // the rest keep pyo3's texts
        }
        ORIGINAL[slot].store(def, Ordering::Relaxed);
        // SAFETY: as above; the new definition is leaked, as a descriptor needs it forever.
        let new_def: &'static mut ffi::PyMethodDef = Box::leak(Box::new(unsafe {
            ffi::PyMethodDef {
                ml_name: (*def).ml_name,
                ml_meth: ffi::PyMethodDefPointer {
                    PyCFunctionFastWithKeywords: TRAMPOLINES[slot / 32][slot % 32],
                },
                ml_flags: fast as c_int,
                ml_doc: (*def).ml_doc,
            }
        }));
        // SAFETY: a new reference to a method descriptor of `cls` over the leaked definition.
        let new_descr = unsafe {
            Bound::from_owned_ptr_or_err(
                py,
                ffi::PyDescr_NewMethod(cls.as_type_ptr(), new_def as *mut ffi::PyMethodDef),
            )?
        };
        cls.setattr(name.cast::<pyo3::types::PyString>()?, new_descr)?;
        count += 1;
    }
    Ok(count)
}
