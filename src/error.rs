//! The one error type. Each variant is the Python exception it becomes; the text is PyTorch's.

/// An error raised by a tensor operation, carrying PyTorch's message.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum Error {
    #[error("{0}")]
    Runtime(String),
    #[error("{0}")]
    Type(String),
    #[error("{0}")]
    Value(String),
    #[error("{0}")]
    Index(String),
    #[error("{0}")]
    NotImplemented(String),
}

pub type Result<T> = std::result::Result<T, Error>;

/// `bail!(Runtime, "...", args)` returns early with a formatted error.
#[macro_export]
macro_rules! bail {
    ($kind:ident, $($arg:tt)*) => {
        return Err($crate::error::Error::$kind(format!($($arg)*)))
    };
}
