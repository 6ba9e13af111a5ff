//! The one mapping from crate errors to Python exceptions.

use crate::error::Error;
use pyo3::exceptions::{
    PyIndexError, PyNotImplementedError, PyRuntimeError, PyTypeError, PyValueError,
};
use pyo3::PyErr;

impl From<Error> for PyErr {
    fn from(e: Error) -> PyErr {
        match e {
            Error::Runtime(m) => PyRuntimeError::new_err(m),
            Error::Type(m) => PyTypeError::new_err(m),
            Error::Value(m) => PyValueError::new_err(m),
            Error::Index(m) => PyIndexError::new_err(m),
            Error::NotImplemented(m) => PyNotImplementedError::new_err(m),
        }
    }
}
