//! The one mapping from crate errors to Python exceptions (and back, for exceptions raised by
//! Python code the core calls: hooks and Python backward functions).

use crate::error::{Error, Foreign};
use pyo3::exceptions::{
    PyIndexError, PyNotImplementedError, PyRuntimeError, PyTypeError, PyValueError,
};
use pyo3::{PyErr, Python};

impl From<Error> for PyErr {
    fn from(e: Error) -> PyErr {
        match e {
            Error::Runtime(m) => PyRuntimeError::new_err(m),
            Error::Type(m) => PyTypeError::new_err(m),
            Error::Value(m) => PyValueError::new_err(m),
            Error::Index(m) => PyIndexError::new_err(m),
            Error::NotImplemented(m) => PyNotImplementedError::new_err(m),
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
