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
    /// `OutOfMemoryError` (a RuntimeError): a device allocation failed.
    #[error("{0}")]
    OutOfMemory(String),
    /// AttributeError: an attribute PyTorch lacks or refuses (`Tensor.grad` of a non-leaf...).
    #[error("{0}")]
    Attribute(String),
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

/// Raises `e` from code that cannot return a `Result` (a kernel deep in a loop, an allocation
/// inside a closure): it unwinds with the error as its payload, and the binding boundary
/// (`python::boundary`) turns it back into `e`. Never use it for a bug: bugs keep `panic!`.
pub fn raise(e: Error) -> ! {
    std::panic::panic_any(e)
}

/// The error a caught unwind carries: the `Error` it was raised with, or a Runtime error
/// naming the panic (a bug in gradrs, reported as PyTorch reports its internal asserts).
pub fn from_panic(payload: Box<dyn std::any::Any + Send>) -> Error {
    match payload.downcast::<Error>() {
        Ok(e) => *e,
        Err(payload) => {
            let msg = payload
                .downcast_ref::<&str>()
                .map(|s| s.to_string())
                .or_else(|| payload.downcast_ref::<String>().cloned())
                .unwrap_or_else(|| "unknown panic".into());
            Error::Runtime(format!(
                "{msg}\nINTERNAL ASSERT FAILED in gradrs: this is a bug, please report it"
            ))
        }
    }
}

/// The message PyTorch's CPU allocator raises for `bytes` it could not get.
pub fn cpu_out_of_memory(bytes: usize) -> Error {
    Error::Runtime(format!(
        "[enforce fail at alloc_cpu.cpp:127] err == 0. DefaultCPUAllocator: can't allocate memory: you tried to allocate {bytes} bytes. Error code 12 (Cannot allocate memory)"
    ))
}
