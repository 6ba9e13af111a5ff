//! The one error type. Each variant is the Python exception it becomes; the text is PyTorch's.

/// An error raised by a tensor operation, carrying PyTorch's message.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum Error {
    /// An exception raised by user code the core called back into (a hook, a Python
    /// backward), carried through the engine unchanged for the bindings to re-raise.
    #[error("{0}")]
    Foreign(Foreign),
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

/// An error the core does not interpret: `message` for display, `payload` for whoever made it.
#[derive(Clone)]
pub struct Foreign {
    pub message: String,
    pub payload: std::sync::Arc<dyn std::any::Any + Send + Sync>,
}

impl std::fmt::Display for Foreign {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(&self.message)
    }
}

impl std::fmt::Debug for Foreign {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "Foreign({:?})", self.message)
    }
}

impl PartialEq for Foreign {
    fn eq(&self, other: &Foreign) -> bool {
        std::sync::Arc::ptr_eq(&self.payload, &other.payload)
    }
}

impl Eq for Foreign {}

pub type Result<T> = std::result::Result<T, Error>;

/// `bail!(Runtime, "...", args)` returns early with a formatted error.
#[macro_export]
macro_rules! bail {
    ($kind:ident, $($arg:tt)*) => {
        return Err($crate::error::Error::$kind(format!($($arg)*)))
    };
}
