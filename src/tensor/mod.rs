//! Tensor = shared storage + layout (shape, strides, offset) + autograd metadata.

pub mod device;
pub mod element;
pub mod grad_mode;
pub mod history;
pub mod layout;
pub mod operand;
pub mod pool;
pub mod shape;
pub mod storage;

use crate::dtype::{DType, Scalar};
use crate::error::{Error, Result};
use crate::tensor::shape::{numel, Shape, Strides};
pub use device::Device;
use history::{NodeRef, PostAccumulateGradHook, Rebase, TensorHook, WeakNode};
pub use layout::Layout;
pub use operand::Operand;
use parking_lot::{Mutex, RwLock, RwLockReadGuard};
use std::sync::Arc;
pub use storage::{Element, Storage};

/// The tensor's data: which storage, and how to read it.
#[derive(Clone)]
pub struct Data {
    pub storage: Arc<Storage>,
    pub layout: Layout,
}

impl Data {
    pub fn dtype(&self) -> DType {
        self.storage.dtype()
    }

    pub fn device(&self) -> Device {
        self.storage.device()
    }
}

/// Autograd state of one tensor (PyTorch's `AutogradMeta`).
#[derive(Default)]
pub struct AutogradMeta {
    /// Only meaningful for leaves; a non-leaf requires grad iff it has a `grad_fn`.
    pub requires_grad: bool,
    pub grad: Option<Tensor>,
    pub grad_fn: Option<NodeRef>,
    pub output_nr: u32,
    /// The leaf's `AccumulateGrad` node, reused while something keeps it alive.
    pub grad_accumulator: Option<WeakNode>,
    pub retains_grad: bool,
    /// For a view: the storage version its `grad_fn` was made for (see `ops::views`).
    pub view_version: u64,
    /// Hooks registered since the history last changed (`autograd::hooks`); a leaf's are run
    /// by its `AccumulateGrad`, a non-leaf's are also on its `grad_fn`.
    pub hooks: Hooks<dyn TensorHook>,
    pub post_accumulate_hooks: Hooks<dyn PostAccumulateGradHook>,
    /// For a view: how it was made (Note [View creation meta]), and whether it was made in
    /// no_grad mode itself (not only a view of such a view).
    pub creation_meta: CreationMeta,
    pub made_in_no_grad: bool,
    /// The tangent at the live dual level (forward-mode AD, `autograd::forward`), laid out as
    /// this tensor over a storage of the same size, so a view's tangent is the same view of
    /// its base's.
    pub fw_grad: Option<Tensor>,
    /// A view whose tangent is its own, not a view of its base's (`make_dual`'s result and
    /// `unpack_dual`'s primal, PyTorch's views without forward-grad view metadata).
    pub fw_standalone: bool,
}

/// A tensor's hook list: one null pointer while empty, which most tensors stay (a `Vec` is
/// three words to copy into each new tensor and a call to drop: ~50 instructions per 1-element
/// op for the two lists, issue 23).
// The Box is the point: one pointer in every tensor instead of a Vec's three words.
#[allow(clippy::box_collection)]
pub struct Hooks<T: ?Sized>(Option<Box<Vec<Arc<T>>>>);

impl<T: ?Sized> Default for Hooks<T> {
    fn default() -> Self {
        Hooks(None)
    }
}

impl<T: ?Sized> Hooks<T> {
    pub fn push(&mut self, hook: Arc<T>) {
        self.0.get_or_insert_with(Default::default).push(hook);
    }

    pub fn is_empty(&self) -> bool {
        self.0.as_ref().is_none_or(|v| v.is_empty())
    }

    /// The hooks, oldest first.
    pub fn to_vec(&self) -> Vec<Arc<T>> {
        self.0.as_deref().cloned().unwrap_or_default()
    }
}

/// Note [View creation meta]: PyTorch's `CreationMeta`. A view made in no_grad mode, in
/// inference mode (of a normal tensor), by an op returning several views (unbind, split,
/// chunk) or inside a custom Function cannot have its history rebased by an in-place op: the
/// write (`ops::inplace::check_inplace`) or the next read of the view's history after its base
/// was written (`ops::inplace::refresh_view`) raises PyTorch's error for it. A view of such a
/// view keeps its kind (`propagate`).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub enum CreationMeta {
    #[default]
    Default,
    NoGradMode,
    InferenceMode,
    MultiOutputNode,
    InCustomFunction,
}

impl CreationMeta {
    /// The kind a view made now gets (before `propagate`): `multi` for an op returning views.
    pub fn current(multi: bool) -> CreationMeta {
        if grad_mode::is_inference_mode_enabled() {
            CreationMeta::InferenceMode
        } else if !grad_mode::is_grad_enabled() {
            CreationMeta::NoGradMode
        } else if multi {
            CreationMeta::MultiOutputNode
        } else {
            CreationMeta::Default
        }
    }

    /// PyTorch's `propagate_creation_meta`: a view of a view keeps the older kind unless the
    /// new one is special (an inference-mode kind is never replaced).
    pub fn propagate(prev: CreationMeta, new: CreationMeta) -> CreationMeta {
        if new == CreationMeta::Default || prev == CreationMeta::InferenceMode {
            prev
        } else {
            new
        }
    }
}

pub struct TensorImpl {
    data: RwLock<Data>,
    pub(crate) meta: Mutex<AutogradMeta>,
    /// Address of the language binding's object for this tensor, or 0. The bindings keep one
    /// object per tensor (so `x.grad is x.grad`), set it on creation and clear it on drop.
    pub binding: std::sync::atomic::AtomicUsize,
    /// For a view: the tensor that owns the memory (never itself a view), PyTorch's `_base`.
    view_base: std::sync::OnceLock<Tensor>,
    /// An inference tensor (Note [Inference mode]): allocated in inference mode, or a view of one.
    inference: bool,
    /// Keeps no version counter (PyTorch's disabled `VariableVersion`): an inference tensor,
    /// except a `detach()` or `.data` of one made outside inference mode.
    no_version: bool,
}

pub const INFERENCE_INPLACE: &str = "Inplace update to inference tensor outside InferenceMode is not allowed.You can make a clone to get a normal tensor before doing inplace update.See https://github.com/pytorch/rfcs/pull/17 for more details.";

/// Where `requires_grad` is being set from (decides PyTorch's error wording).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum GradSetter {
    Attribute,
    Method,
    Factory,
}

/// A reference-counted handle; clones share the same tensor (identity, grad, data).
#[derive(Clone)]
pub struct Tensor(pub(crate) Arc<TensorImpl>);

impl std::fmt::Debug for Tensor {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(
            f,
            "Tensor(shape={:?}, dtype={:?})",
            self.shape(),
            self.dtype()
        )
    }
}

/// Run `$body` with `$T` bound to the Rust element type of `$dtype`.
#[macro_export]
macro_rules! dispatch {
    ($dtype:expr, $T:ident => $body:expr) => {
        match $dtype {
            $crate::dtype::DType::F32 => {
                type $T = f32;
                $body
            }
            $crate::dtype::DType::F64 => {
                type $T = f64;
                $body
            }
            $crate::dtype::DType::I64 => {
                type $T = i64;
                $body
            }
            $crate::dtype::DType::I32 => {
                type $T = i32;
                $body
            }
            $crate::dtype::DType::F16 => {
                type $T = half::f16;
                $body
            }
            $crate::dtype::DType::BF16 => {
                type $T = half::bf16;
                $body
            }
            $crate::dtype::DType::U8 => {
                type $T = u8;
                $body
            }
            $crate::dtype::DType::I8 => {
                type $T = i8;
                $body
            }
            $crate::dtype::DType::I16 => {
                type $T = i16;
                $body
            }
            $crate::dtype::DType::Bool => {
                type $T = bool;
                $body
            }
        }
    };
}

impl Tensor {
    /// A new tensor over `data`; an inference tensor when made in inference mode.
    pub fn from_data(data: Data) -> Tensor {
        let inference = grad_mode::is_inference_mode_enabled();
        Tensor::with_flags(data, inference, inference)
    }

    fn with_flags(data: Data, inference: bool, no_version: bool) -> Tensor {
        Tensor(Arc::new(TensorImpl {
            data: RwLock::new(data),
            meta: Mutex::new(AutogradMeta::default()),
            binding: std::sync::atomic::AtomicUsize::new(0),
            view_base: std::sync::OnceLock::new(),
            inference,
            no_version,
        }))
    }

    /// A tensor sharing `self`'s memory that is not a view for autograd (`detach`, `.data`):
    /// inference if `self` is. Made outside inference mode from a tensor without a version
    /// counter, it gets a fresh one (at 0), as PyTorch's do.
    fn alias_with(&self, mut data: Data) -> Tensor {
        let inside = grad_mode::is_inference_mode_enabled();
        if self.0.no_version && !inside {
            data.storage = Storage::alias(&data.storage);
        }
        Tensor::with_flags(data, self.0.inference, self.0.no_version && inside)
    }

    /// `Tensor.is_inference()` (Note [Inference mode]).
    #[inline]
    pub fn is_inference(&self) -> bool {
        self.0.inference
    }

    /// PyTorch's `VariableVersion::bump` check, made before an in-place write: a tensor without
    /// a version counter may only be modified inside inference mode.
    pub fn check_inplace_version(&self) -> Result<()> {
        if self.0.no_version && !grad_mode::is_inference_mode_enabled() {
            return Err(Error::Runtime(INFERENCE_INPLACE.into()));
        }
        Ok(())
    }

    /// `_version`, or PyTorch's error for a tensor that keeps no version counter.
    pub fn checked_version(&self) -> Result<u64> {
        if self.0.no_version {
            return Err(Error::Runtime(
                "Inference tensors do not track version counter.".into(),
            ));
        }
        Ok(self.version())
    }

    pub fn from_vec<T: Element>(v: Vec<T>, shape: &[usize]) -> Tensor {
        Tensor::from_vec_on(v, shape, Device::Cpu)
    }

    /// A contiguous tensor of `v` on `device` (see Note [Devices]).
    pub fn from_vec_on<T: Element>(v: Vec<T>, shape: &[usize], device: Device) -> Tensor {
        // A short vector would be read past its end: a kernel's bug panics (a Python
        // exception) instead.
        assert_eq!(
            v.len(),
            numel(shape),
            "from_vec_on: length and shape differ"
        );
        Tensor::from_data(Data {
            storage: Storage::from_vec_on(v, device),
            layout: Layout::contiguous(shape),
        })
    }

    pub fn from_storage(storage: Arc<Storage>, layout: Layout) -> Tensor {
        Tensor::from_data(Data { storage, layout })
    }

    /// A view of `of`'s memory with `layout`; its base is `of`'s base, or `of`.
    /// A view is an inference tensor exactly when `of` is (made inside inference mode or not);
    /// as in PyTorch, a view of an inference tensor is no view for autograd (no `_base`).
    /// `multi`: one of several views an op returns (Note [View creation meta]).
    pub fn new_view(of: &Tensor, layout: Layout, multi: bool) -> Tensor {
        let data = Data {
            storage: of.read().storage.clone(),
            layout,
        };
        let view = Tensor::with_flags(data, of.0.inference, of.0.no_version);
        if of.0.inference {
            return view;
        }
        let base = of.view_base().unwrap_or(of).clone();
        let mut meta = CreationMeta::current(multi);
        if of.view_base().is_some() {
            meta = CreationMeta::propagate(of.creation_meta(), meta);
        }
        {
            let mut m = view.0.meta.lock();
            m.view_version = base.version();
            m.creation_meta = meta;
            m.made_in_no_grad = !grad_mode::is_grad_enabled();
        }
        let _ = view.0.view_base.set(base);
        view
    }

    /// `self`, or, when it is a view of a tensor that is none of `inputs` nor their base, a
    /// non-view alias of its memory. An op's result reshaped or squeezed from a temporary of
    /// its own (a product, a reduction) is no view for autograd in PyTorch (`_unsafe_view`):
    /// an in-place op on it must record on its own node, not rebase onto the hidden temporary.
    pub fn unview_internal(self, inputs: &[&Tensor]) -> Tensor {
        let Some(base) = self.view_base() else {
            return self;
        };
        if inputs
            .iter()
            .any(|t| base.ptr_eq(t.view_base().unwrap_or(t)))
        {
            return self;
        }
        Tensor::with_flags(self.data(), self.0.inference, self.0.no_version)
    }

    /// How this view was made (Note [View creation meta]); `Default` for a non-view.
    pub fn creation_meta(&self) -> CreationMeta {
        self.0.meta.lock().creation_meta
    }

    /// Mark a view as made by a custom Function (which returned it): its history cannot be
    /// rebased (Note [View creation meta]). Does nothing for a tensor that is not a view.
    pub fn mark_custom_function_view(&self, multi_output: bool) {
        if self.view_base().is_some() {
            self.0.meta.lock().creation_meta = if multi_output {
                CreationMeta::MultiOutputNode
            } else {
                CreationMeta::InCustomFunction
            };
        }
    }

    /// The tensor whose memory this view shares (None when not a view).
    pub fn view_base(&self) -> Option<&Tensor> {
        self.0.view_base.get()
    }

    /// A 0-dim tensor holding `s` as `dtype`.
    pub fn scalar(s: Scalar, dtype: DType) -> Tensor {
        dispatch!(dtype, T => Tensor::from_vec(vec![scalar_as::<T>(s)], &[]))
    }

    pub fn full(shape: &[usize], s: Scalar, dtype: DType) -> Tensor {
        Tensor::full_on(shape, s, dtype, Device::Cpu)
    }

    pub fn zeros(shape: &[usize], dtype: DType) -> Tensor {
        Tensor::full_on(shape, Scalar::Int(0), dtype, Device::Cpu)
    }

    pub fn full_on(shape: &[usize], s: Scalar, dtype: DType, device: Device) -> Tensor {
        if device.is_gpu() {
            // Filled by a kernel: nothing to upload.
            if let Ok(Some(t)) = crate::tensor::device::gpu_full(shape, s, dtype) {
                return t;
            }
        }
        if let Err(e) = crate::tensor::shape::storage_nbytes(shape, dtype.itemsize()) {
            crate::error::raise(e)
        }
        dispatch!(dtype, T => Tensor::from_vec_on(pool::filled(numel(shape), scalar_as::<T>(s)), shape, device))
    }

    pub fn zeros_on(shape: &[usize], dtype: DType, device: Device) -> Tensor {
        Tensor::full_on(shape, Scalar::Int(0), dtype, device)
    }

    pub fn ptr_eq(&self, other: &Tensor) -> bool {
        Arc::ptr_eq(&self.0, &other.0)
    }

    pub fn id(&self) -> usize {
        Arc::as_ptr(&self.0) as usize
    }

    /// Read access to storage and layout; cheap (no copy).
    pub fn read(&self) -> RwLockReadGuard<'_, Data> {
        self.0.data.read()
    }

    pub fn data(&self) -> Data {
        self.0.data.read().clone()
    }

    /// `tensor.data = other`: swap storage and layout in place, keeping identity and autograd meta.
    pub fn set_data(&self, new: &Tensor) {
        let d = new.data();
        *self.0.data.write() = d;
    }

    /// An in-place view op (`t_`, `squeeze_`, `as_strided_`, `resize_`): the same storage read
    /// with another layout, identity and autograd meta kept.
    pub fn set_layout(&self, layout: Layout) {
        self.0.data.write().layout = layout;
    }

    pub fn shape(&self) -> Shape {
        Shape::from_slice(&self.0.data.read().layout.shape)
    }

    pub fn strides(&self) -> Strides {
        Strides::from_slice(&self.0.data.read().layout.strides)
    }

    pub fn dtype(&self) -> DType {
        self.0.data.read().storage.dtype()
    }

    pub fn device(&self) -> Device {
        self.0.data.read().storage.device()
    }

    pub fn numel(&self) -> usize {
        self.0.data.read().layout.numel()
    }

    /// `(numel(), device().is_gpu())` under one read of the tensor's data.
    #[inline]
    pub fn numel_and_gpu(&self) -> (usize, bool) {
        let d = self.0.data.read();
        (d.layout.numel(), d.storage.device().is_gpu())
    }

    pub fn dim(&self) -> usize {
        self.0.data.read().layout.ndim()
    }

    pub fn is_contiguous(&self) -> bool {
        self.0.data.read().layout.is_contiguous()
    }

    pub fn version(&self) -> u64 {
        self.0.data.read().storage.version()
    }

    pub fn bump_version(&self) {
        self.0.data.read().storage.bump_version()
    }

    // ---- autograd metadata -------------------------------------------------------------

    /// A view also requires grad when its base does (a view made in no_grad mode has no
    /// `grad_fn` but requires grad, as PyTorch's).
    pub fn requires_grad(&self) -> bool {
        {
            let m = self.0.meta.lock();
            if m.requires_grad || m.grad_fn.is_some() {
                return true;
            }
        }
        self.view_base().is_some_and(|b| b.requires_grad())
    }

    pub fn is_leaf(&self) -> bool {
        self.0.meta.lock().grad_fn.is_none()
    }

    pub fn grad_fn(&self) -> Option<NodeRef> {
        self.0.meta.lock().grad_fn.clone()
    }

    pub fn output_nr(&self) -> u32 {
        self.0.meta.lock().output_nr
    }

    pub fn grad(&self) -> Option<Tensor> {
        self.0.meta.lock().grad.clone()
    }

    pub fn set_grad(&self, grad: Option<Tensor>) {
        let old = std::mem::replace(&mut self.0.meta.lock().grad, grad);
        drop(old); // outside the lock: dropping a graph may touch other tensors
    }

    pub fn retains_grad(&self) -> bool {
        self.0.meta.lock().retains_grad
    }

    /// `.requires_grad = b`, with PyTorch's checks and wording.
    pub fn set_requires_grad(&self, value: bool) -> Result<()> {
        self.set_requires_grad_from(value, GradSetter::Attribute)
    }

    /// `requires_grad_(b)`: a no-op `True` on non-leaves.
    pub fn requires_grad_(&self, value: bool) -> Result<()> {
        self.set_requires_grad_from(value, GradSetter::Method)
    }

    /// PyTorch words the same mistake differently depending on where the flag was set.
    pub fn set_requires_grad_from(&self, value: bool, from: GradSetter) -> Result<()> {
        let mut m = self.0.meta.lock();
        if m.grad_fn.is_some() {
            return match (value, from) {
                (true, GradSetter::Method) => Ok(()),
                (true, _) => Err(Error::Runtime("you can only change requires_grad flags of leaf variables.".into())),
                (false, _) => Err(Error::Runtime("you can only change requires_grad flags of leaf variables. If you want to use a computed variable in a subgraph that doesn't require differentiation use var_no_grad = var.detach().".into())),
            };
        }
        if value && self.0.inference && !grad_mode::is_inference_mode_enabled() {
            return Err(Error::Runtime(
                "Setting requires_grad=True on inference tensor outside InferenceMode is not allowed."
                    .into(),
            ));
        }
        if value && !self.dtype().is_floating_point() {
            return Err(Error::Runtime(
                match from {
                    GradSetter::Attribute => {
                        "only Tensors of floating point and complex dtype can require gradients"
                    }
                    GradSetter::Method => {
                        "only Tensors of floating point dtype can require gradients"
                    }
                    GradSetter::Factory => {
                        "Only Tensors of floating point and complex dtype can require gradients"
                    }
                }
                .into(),
            ));
        }
        m.requires_grad = value;
        Ok(())
    }

    /// Make this tensor the `output_nr`-th output of `node` (ops call this on fresh results).
    pub(crate) fn set_grad_fn(&self, node: Option<NodeRef>, output_nr: u32) {
        let (old, rebased) = {
            let mut m = self.0.meta.lock();
            m.output_nr = output_nr;
            if m.made_in_no_grad && node.is_some() && grad_mode::is_grad_enabled() {
                // A view an op made under its own no_grad guard and then recorded as its
                // result: PyTorch's op would have made it in grad mode (Note [View creation
                // meta]).
                m.made_in_no_grad = false;
                if m.creation_meta == CreationMeta::NoGradMode {
                    m.creation_meta = CreationMeta::Default;
                }
            }
            let old = std::mem::replace(&mut m.grad_fn, node);
            let rebased = old.is_some() && (m.retains_grad || !m.hooks.is_empty());
            (old, rebased)
        };
        if let (true, Some(old)) = (rebased, &old) {
            // The autograd layer's, through the interface this layer declares.
            old.rebase(self);
        }
        drop(old);
    }

    pub fn set_retains_grad(&self) {
        self.0.meta.lock().retains_grad = true;
    }

    /// A new leaf sharing storage (and version counter) that does not require grad.
    pub fn detach(&self) -> Tensor {
        self.alias_with(self.data())
    }

    /// `detach_()`: drop history in place. A view cannot: its history is its base's (outside
    /// inference mode, where PyTorch skips the autograd check as it skips autograd).
    pub fn detach_(&self) -> Result<()> {
        if self.view_base().is_some() && !grad_mode::is_inference_mode_enabled() {
            crate::bail!(
                Runtime,
                "Can't detach views in-place. Use detach() instead. If you are using \
                 DistributedDataParallel (DDP) for training, and gradient_as_bucket_view is set \
                 as True, gradients are views of DDP buckets, and hence detach_() cannot be \
                 called on these gradients. To fix this error, please refer to the \
                 Optimizer.zero_grad() function in gradrs/optim/optimizer.py as the solution."
            );
        }
        let old = {
            let mut m = self.0.meta.lock();
            m.requires_grad = false;
            m.output_nr = 0;
            m.grad_fn.take()
        };
        drop(old);
        Ok(())
    }

    /// Like `detach`, but with a fresh version counter: `tensor.data`.
    pub fn data_alias(&self) -> Tensor {
        let d = self.data();
        let storage = if self.0.no_version {
            d.storage // alias_with gives it a fresh counter outside inference mode
        } else {
            Storage::alias(&d.storage)
        };
        self.alias_with(Data {
            storage,
            layout: d.layout,
        })
    }

    // ---- element access --------------------------------------------------------------------

    /// The elements in logical (row-major) order.
    pub fn to_vec<T: Element>(&self) -> Vec<T> {
        let d = self.read();
        crate::backend::cpu::copy::gather_contiguous::<T>(d.storage.slice::<T>(), &d.layout)
    }

    /// The elements as f64, whatever the dtype (for kernels that work in double precision).
    pub fn to_f64_vec(&self) -> Vec<f64> {
        crate::dispatch!(self.dtype(), T => self.to_vec::<T>().into_iter().map(Element::to_f64).collect())
    }

    /// The one element of a 1-element tensor as f64/i64/bool (`item()`).
    pub fn item(&self) -> Result<Scalar> {
        let n = self.numel();
        if n != 1 {
            return Err(Error::Runtime(format!(
                "a Tensor with {n} elements cannot be converted to Scalar"
            )));
        }
        let d = self.read();
        let off = d.layout.offset;
        Ok(match d.dtype() {
            DType::F32 => Scalar::Float(d.storage.slice::<f32>()[off] as f64),
            DType::F64 => Scalar::Float(d.storage.slice::<f64>()[off]),
            DType::I64 => Scalar::Int(d.storage.slice::<i64>()[off]),
            DType::F16 => Scalar::Float(d.storage.slice::<half::f16>()[off].to_f64()),
            DType::I32 => Scalar::Int(d.storage.slice::<i32>()[off] as i64),
            DType::BF16 => Scalar::Float(d.storage.slice::<half::bf16>()[off].to_f64()),
            DType::U8 => Scalar::Int(d.storage.slice::<u8>()[off] as i64),
            DType::I8 => Scalar::Int(d.storage.slice::<i8>()[off] as i64),
            DType::I16 => Scalar::Int(d.storage.slice::<i16>()[off] as i64),
            DType::Bool => Scalar::Bool(d.storage.slice::<bool>()[off]),
        })
    }
}

pub fn scalar_as<T: Element>(s: Scalar) -> T {
    match s {
        Scalar::Bool(b) => T::from_bool(b),
        Scalar::Int(i) => T::from_i64(i),
        Scalar::Float(f) => T::from_f64(f),
    }
}

/// Storage over memory owned elsewhere (see [`Storage::external`]).
///
/// # Safety
/// As for [`Storage::external`].
pub unsafe fn storage_from_parts(
    ptr: *mut u8,
    len: usize,
    dtype: DType,
    owner: Box<dyn std::any::Any + Send + Sync>,
) -> Arc<Storage> {
    Storage::external(ptr, len, dtype, owner)
}
