//! The one mapping from crate errors to Python exceptions (every binding raises through it) (and back, for exceptions raised by
//! Python code the core calls: hooks and Python backward functions).

use crate::error::{Error, Foreign};
use pyo3::exceptions::{
    PyAttributeError, PyIndexError, PyNotImplementedError, PyRuntimeError, PyTypeError,
    PyValueError,
};
use pyo3::{PyErr, Python};

pyo3::create_exception!(
    gradrs,
    OutOfMemoryError,
    PyRuntimeError,
    "A device allocation failed (PyTorch's `torch.OutOfMemoryError`, a RuntimeError)."
);

impl From<Error> for PyErr {
    fn from(e: Error) -> PyErr {
        match e {
            Error::Runtime(m) => PyRuntimeError::new_err(m),
            Error::Type(m) => PyTypeError::new_err(m),
            Error::Value(m) => PyValueError::new_err(m),
            Error::Index(m) => PyIndexError::new_err(m),
            Error::NotImplemented(m) => PyNotImplementedError::new_err(m),
            Error::OutOfMemory(m) => OutOfMemoryError::new_err(m),
            Error::Attribute(m) => PyAttributeError::new_err(m),
            Error::Foreign(f) => match f.payload.downcast_ref::<PyErr>() {
                Some(err) => Python::attach(|py| err.clone_ref(py)),
                None => PyRuntimeError::new_err(f.message),
            },
        }
    }
}

/// A Python exception as a crate error that `From<Error>` turns back into the same exception
/// (type, message, traceback), so it leaves `backward()` unchanged.
pub fn foreign(py: Python<'_>, e: PyErr) -> Error {
    Error::Foreign(Foreign {
        message: e.value(py).to_string(),
        payload: std::sync::Arc::new(e),
    })
}

// The Python exception of each `Error` kind, for bindings that raise one directly.
pub fn type_error(m: impl Into<String>) -> PyErr {
    Error::Type(m.into()).into()
}
pub fn value_error(m: impl Into<String>) -> PyErr {
    Error::Value(m.into()).into()
}
pub fn index_error(m: impl Into<String>) -> PyErr {
    Error::Index(m.into()).into()
}
pub fn runtime_error(m: impl Into<String>) -> PyErr {
    Error::Runtime(m.into()).into()
}
pub fn not_implemented_error(m: impl Into<String>) -> PyErr {
    Error::NotImplemented(m.into()).into()
}
pub fn attribute_error(m: impl Into<String>) -> PyErr {
    Error::Attribute(m.into()).into()
}
