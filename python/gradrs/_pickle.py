"""Tensor pickling and deep copy: `Tensor.__reduce_ex__` / `__deepcopy__`, storages and the rebuild
functions that PyTorch names `torch._utils._rebuild_tensor_v2` & co.

A tensor pickles as PyTorch's does: a rebuild call over (storage, storage_offset, size, stride,
requires_grad, backward_hooks), the storage holding the raw bytes of the memory the tensor
lives in. gradrs does not expose its storages, so a tensor's storage is found by address:
it starts `storage_offset()` elements before `data_ptr()` and reaches at least to the end of
the tensor and of its view base (`_base`), which is what PyTorch would save for a view.
"""

import copyreg
from collections import OrderedDict
from multiprocessing.reduction import ForkingPickler

import numpy as np

from . import _native
from ._grad_mode import no_grad

Tensor = _native.Tensor

# PyTorch's legacy storage class of each dtype (the names a checkpoint's pickle uses).
STORAGE_NAME = {
    "float32": "FloatStorage",
    "float64": "DoubleStorage",
    "float16": "HalfStorage",
    "int64": "LongStorage",
    "int32": "IntStorage",
    "int16": "ShortStorage",
    "int8": "CharStorage",
    "uint8": "ByteStorage",
    "bool": "BoolStorage",
}
# Every storage class PyTorch writes, with its dtype; the ones gradrs lacks are refused on load.
STORAGE_DTYPE = {
    "FloatStorage": "float32",
    "DoubleStorage": "float64",
    "HalfStorage": "float16",
    "LongStorage": "int64",
    "IntStorage": "int32",
    "BoolStorage": "bool",
    "ShortStorage": "int16",
    "CharStorage": "int8",
    "ByteStorage": "uint8",
    "BFloat16Storage": "bfloat16",
    "ComplexFloatStorage": "complex64",
    "ComplexDoubleStorage": "complex128",
    "QInt8Storage": "qint8",
    "QUInt8Storage": "quint8",
    "QInt32Storage": "qint32",
    "QUInt4x2Storage": "quint4x2",
    "QUInt2x4Storage": "quint2x4",
}
NUMPY_DTYPE = {
    "float32": np.float32,
    "float64": np.float64,
    "float16": np.float16,
    "int64": np.int64,
    "int32": np.int32,
    "int16": np.int16,
    "int8": np.int8,
    "uint8": np.uint8,
    "bool": np.bool_,
}

NON_LEAF_DEEPCOPY = (
    "Only Tensors created explicitly by the user "
    "(graph leaves) support the deepcopy protocol at the moment.  "
    "If you were attempting to deepcopy a module, this may be because "
    "of a gradrs.nn.utils.weight_norm usage, "
    "see https://github.com/pytorch/pytorch/pull/103001"
)


def dtype_name(dtype):
    """`gradrs.float32` -> `"float32"`."""
    return str(dtype).rpartition(".")[2]


def dtype_of(name):
    return getattr(_native, name)


class StorageRange:
    """Where a CPU tensor's storage lies in memory: `start` address and `nbytes`."""

    __slots__ = ("start", "nbytes")

    def __init__(self, start, nbytes):
        self.start, self.nbytes = start, nbytes


def span_bytes(t):
    """Bytes from the tensor's first element to just past its last one (0 when empty)."""
    if t.numel() == 0:
        return 0
    last = sum((n - 1) * s for n, s in zip(t.shape, t.stride()))
    return (last + 1) * t.element_size()


def view_root(t):
    while True:
        b = t._base
        if b is None:
            return t
        t = b


def storage_range(t):
    """The memory of a CPU tensor's storage that a checkpoint must hold for it: from the
    storage's start to the end of the tensor or of its view base, whichever is further."""
    item = t.element_size()
    start = t.data_ptr() - t.storage_offset() * item
    end = t.data_ptr() + span_bytes(t)
    root = view_root(t)
    if root is not t and root.numel() > 0:
        end = max(end, root.data_ptr() + span_bytes(root))
    return StorageRange(start, end - start)


class _Memory:
    """Hands numpy `nbytes` at an address; holding `owner` (the tensor) keeps them alive."""

    __slots__ = ("__array_interface__", "_owner")

    def __init__(self, start, nbytes, owner):
        self.__array_interface__ = {"data": (start, False), "shape": (nbytes,),
                                    "typestr": "|u1", "version": 3}
        self._owner = owner


def memory_array(start, nbytes, np_dtype, owner=None):
    """A numpy array viewing `nbytes` at address `start`, no copy. The array keeps `owner`
    alive; without one the caller must keep the memory alive."""
    if nbytes == 0:
        return np.empty(0, dtype=np_dtype)
    return np.asarray(_Memory(start, nbytes, owner)).view(np_dtype)


class TypedStorage:
    """A flat, typed run of elements that tensors are rebuilt over: what `torch.FloatStorage`
    & co. unpickle to. `device` says where the tensors built over it go (`map_location`)."""

    __slots__ = ("_array", "dtype", "device", "_flats")

    def __init__(self, array, dtype, device="cpu"):
        self._array = array
        self.dtype = dtype
        self.device = _native.device(device)
        self._flats = {}  # device -> the storage as one 1-d tensor there, shared when moved

    def size(self):
        return len(self._array)

    def __len__(self):
        return len(self._array)

    def nbytes(self):
        return self._array.nbytes

    def element_size(self):
        return self._array.itemsize

    def _moved(self, device):
        s = TypedStorage(self._array, self.dtype, device)
        s._flats = self._flats
        return s

    def cpu(self):
        return self._moved("cpu")

    def cuda(self, device=None, non_blocking=False):
        return self._moved("gpu" if device is None else _gpu_device(device))

    gpu = cuda

    def to(self, device=None, non_blocking=False):
        return self._moved(device)

    def flat(self):
        """The storage as one 1-d tensor on its device (over the same memory on the CPU;
        copied there once per device, so that views built on it share it there too)."""
        key = str(self.device)
        if key not in self._flats:
            if self.device.type == "cpu":
                self._flats[key] = _native.from_numpy(self._array)
            else:
                self._flats[key] = self.cpu().flat().to(self.device)
        return self._flats[key]

    def __repr__(self):
        values = " " + "\n ".join(str(v) for v in self._array.tolist())
        return (f"{values}\n[gradrs.storage.TypedStorage(dtype={self.dtype}, "
                f"device={self.device}) of size {len(self)}]")

    def __reduce__(self):
        return (_storage_from_bytes,
                (self._array.tobytes(), dtype_name(self.dtype), str(self.device)))


class StorageType:
    """What a pickled storage class (`torch.FloatStorage`) unpickles to: its dtype's name."""

    def __init__(self, name):
        self.name = name
        self.dtype_name = STORAGE_DTYPE[name]

    def __str__(self):
        return f"StorageType(dtype=torch.{self.dtype_name})"

    __repr__ = __str__


def _gpu_device(device):
    if isinstance(device, int):
        return _native.device("gpu", device)
    return _native.device(device)


def _storage_from_bytes(data, dtype, device):
    array = np.frombuffer(data, dtype=NUMPY_DTYPE[dtype]).copy()
    return TypedStorage(array, dtype_of(dtype), device)


def storage_of(t):
    """A TypedStorage over the tensor's storage, and the tensor's offset in it. On the CPU it
    is the tensor's own memory, not a copy: `copy.copy(t)` then shares it, as in PyTorch,
    and pickling reads it."""
    dev = t.device
    if dev.type != "cpu":
        t = t.detach().cpu()
    # (not detached on the CPU: a detached view forgets its base, whose storage it shares)
    # Each tensor gets its own TypedStorage, so a pickle of several views holds the storage
    # once per view and loads them unshared, as PyTorch's plain pickling does.
    rng = storage_range(t)
    np_dtype = NUMPY_DTYPE[dtype_name(t.dtype)]
    array = memory_array(rng.start, rng.nbytes, np_dtype, owner=t)
    return TypedStorage(array, t.dtype, dev), (t.data_ptr() - rng.start) // t.element_size()


def reduce_for_ipc(t):
    """How a tensor crosses a multiprocessing queue (DataLoader workers): only the memory from
    its first to its last element, so a sample that is a view of a large dataset tensor does
    not send the whole of it; strides and attributes are kept."""
    if t.requires_grad and not t.is_leaf:
        raise RuntimeError(
            "Cowardly refusing to serialize non-leaf tensor which requires_grad, since "
            "autograd does not support crossing process boundaries.  If you just want to "
            "transfer the data, call detach() on the tensor before serializing (e.g., putting "
            "it on the queue).")
    dev = t.device
    host = t.detach().cpu() if dev.type != "cpu" else t
    np_dtype = NUMPY_DTYPE[dtype_name(t.dtype)]
    storage = TypedStorage(memory_array(host.data_ptr(), span_bytes(host), np_dtype, owner=host),
                           t.dtype, dev)
    args = (storage, 0, tuple(t.shape), tuple(t.stride()), t.requires_grad, OrderedDict())
    state = get_obj_state(t)
    if type(t) is Tensor and not state:
        return (_rebuild_tensor_v2, args)
    return (_rebuild_from_type_v2, (_rebuild_tensor_v2, type(t), args, state))


def _contiguous_strides(size):
    strides, acc = [], 1
    for n in reversed(size):
        strides.append(acc)
        acc *= max(n, 1)
    return tuple(reversed(strides))


def _native_view(flat, offset, size, stride):
    """`flat` viewed with (offset, size, stride) through gradrs's own view ops, or None when
    the layout is not a box cut out of a row-major block (sorted by stride, each stride a
    multiple of the next, no overlap) that lies within the storage.

    Such a block of `n_0 * s_0` elements, viewed with shape (n_0, s_0/s_1, ..., s_{k-1}), has
    strides (s_0, ..., s_{k-1}, 1); narrowing its dims to the sizes and taking index 0 of the
    last gives the layout. Stride-0 dims come back with `expand`.
    """
    keep = [d for d in range(len(size)) if stride[d] != 0 or size[d] == 1]
    order = sorted(keep, key=lambda d: -stride[d])
    strides = [stride[d] for d in order] + [1]
    sizes = [size[d] for d in order]
    if strides[-2:-1] == [0]:
        return None
    shape = [sizes[0] if sizes else 1]
    for i in range(len(order)):
        if strides[i] % strides[i + 1] or (i + 1 < len(order) and
                                           sizes[i + 1] * strides[i + 1] > strides[i]):
            return None
        shape.append(strides[i] // strides[i + 1])
    shape[-1] = strides[-2] if order else 1
    block = shape[0] * (strides[0] if order else 1)
    if offset + block > flat.shape[0]:
        return None
    try:
        t = flat.narrow(0, offset, block).view(shape)
        for i in range(1, len(order)):
            t = t.narrow(i, 0, sizes[i])
        t = t.select(-1, 0) if order else t.view([])
    except (RuntimeError, IndexError, ValueError):
        return None
    inverse = [order.index(d) for d in keep]
    if inverse != list(range(len(inverse))):
        t = t.permute(inverse)
    if len(keep) != len(size):
        for d in range(len(size)):
            if d not in keep:
                t = t.unsqueeze(d)
        t = t.expand(list(size))
    if tuple(t.stride()) != tuple(stride) or tuple(t.shape) != tuple(size):
        return None
    return t


def tensor_from_storage(storage, offset, size, stride):
    """A tensor over `storage`'s memory with the given layout, as PyTorch's `Tensor.set_`."""
    size, stride = tuple(int(n) for n in size), tuple(int(s) for s in stride)
    n = len(storage)
    need = 0 if 0 in size else offset + 1 + sum((a - 1) * b for a, b in zip(size, stride))
    if need > n or offset < 0 or any(s < 0 for s in stride):
        item = storage.element_size()
        raise RuntimeError(
            f"setStorage: sizes {list(size)}, strides {list(stride)}, storage offset {offset}, "
            f"and itemsize {item} requiring a storage size of {need * item} are out of bounds "
            f"for storage of size {n * item}")
    t = None
    if 0 not in size:
        t = _native_view(storage.flat(), offset, size, stride)
    if t is None:
        # Slices with gaps, overlapping strides, empty tensors: a numpy view over the same
        # memory keeps the sharing (and the exact strides) that gradrs's view ops cannot
        # express; on a GPU the tensor is a copy of it.
        item = storage.element_size()
        arr = np.lib.stride_tricks.as_strided(
            storage._array[offset:], shape=size, strides=[s * item for s in stride])
        t = _native.from_numpy(arr)
        if storage.device.type != "cpu":
            t = t.to(storage.device)
    return t


def _rebuild_tensor(storage, storage_offset, size, stride):
    return tensor_from_storage(storage, storage_offset, size, stride)


def _rebuild_tensor_v2(storage, storage_offset, size, stride, requires_grad, backward_hooks,
                       metadata=None):
    t = tensor_from_storage(storage, storage_offset, size, stride)
    if metadata:
        raise RuntimeError(
            f"gradrs tensors have no conjugate or negative bit; cannot rebuild a tensor with "
            f"metadata {metadata}")
    t.requires_grad = requires_grad
    return t


def _rebuild_parameter(data, requires_grad, backward_hooks):
    from .nn.parameter import Parameter

    return Parameter(data, requires_grad)


def _rebuild_parameter_with_state(data, requires_grad, backward_hooks, state):
    return _set_obj_state(_rebuild_parameter(data, requires_grad, backward_hooks), state)


def _set_obj_state(obj, state):
    if isinstance(state, tuple):
        if not len(state) == 2:
            raise RuntimeError(f"Invalid serialized state: {state}")
        dict_state, slots_state = state
    else:
        dict_state, slots_state = state, None
    if dict_state:
        for k, v in dict_state.items():
            setattr(obj, k, v)
    if slots_state:
        for k, v in slots_state.items():
            setattr(obj, k, v)
    return obj


def as_subclass(t, cls):
    """A `cls` object aliasing `t` (PyTorch's `Tensor.as_subclass`)."""
    if type(t) is cls:
        return t
    out = Tensor.__new__(cls, t)
    if t.requires_grad:
        out.requires_grad_(True)
    return out


def _rebuild_from_type_v2(func, new_type, args, state):
    ret = func(*args)
    if type(ret) is not new_type:
        ret = as_subclass(ret, new_type)
    setstate = getattr(ret.__class__, "__setstate__", None)
    if setstate is not None:
        ret.__setstate__(state)
    else:
        ret = _set_obj_state(ret, state)
    return ret


def get_obj_state(t):
    getstate = getattr(t, "__getstate__", None)
    if getstate is not None:
        return getstate()
    return getattr(t, "__dict__", None)


def _reduce_ex(self, proto):
    storage, offset = storage_of(self)
    args = (storage, offset, tuple(self.shape), tuple(self.stride()), self.requires_grad,
            OrderedDict())
    state = get_obj_state(self)
    if type(self) is Tensor and not state:
        return (_rebuild_tensor_v2, args)
    return (_rebuild_from_type_v2, (_rebuild_tensor_v2, type(self), args, state))


def _deepcopy(self, memo):
    if not self.is_leaf:
        raise RuntimeError(NON_LEAF_DEEPCOPY)
    if id(self) in memo:
        return memo[id(self)]
    with no_grad():
        new = _copy_storage(self, memo)
        if type(self) is not Tensor:
            new = as_subclass(new, type(self))
        if self.requires_grad:
            new.requires_grad_()
        if self.grad is not None:
            new.grad = self.grad.__deepcopy__(memo)
        state = getattr(self, "__dict__", None)
        if state:
            import copy

            new.__dict__.update(copy.deepcopy(state, memo))
        memo[id(self)] = new
        return new


def _copy_storage(t, memo):
    # As PyTorch: tensors deep-copied in one call that share a storage share the copy (memo
    # entries keyed by storage).
    copies = memo.setdefault("gradrs", {})
    if t.device.type != "cpu":
        return _copy_gpu_storage(t, copies)
    rng = storage_range(t)
    key = (rng.start, dtype_name(t.dtype))
    entry = copies.get(key)
    if entry is None or entry[1] < rng.nbytes:
        np_dtype = NUMPY_DTYPE[dtype_name(t.dtype)]
        array = memory_array(rng.start, rng.nbytes, np_dtype).copy()
        entry = (TypedStorage(array, t.dtype), rng.nbytes)
        copies[key] = entry
    storage = entry[0]
    offset = (t.data_ptr() - rng.start) // t.element_size()
    return tensor_from_storage(storage, offset, tuple(t.shape), tuple(t.stride()))


def _copy_gpu_storage(t, copies):
    # A GPU storage that is one contiguous root tensor is cloned on the GPU once and the views
    # are rebuilt on the clone; any other GPU tensor is cloned by itself.
    rng = storage_range(t)  # addresses only: GPU memory is not read
    key = (str(t.device), rng.start, dtype_name(t.dtype))
    flat = copies.get(key)
    if flat is None:
        root = view_root(t)
        if root.storage_offset() == 0 and root.is_contiguous() and root.numel() > 0 and \
                root.numel() * root.element_size() == rng.nbytes:
            flat = copies[key] = root.detach().clone().reshape(-1)
    if flat is not None and flat.numel() * flat.element_size() >= rng.nbytes:
        view = _native_view(flat, t.storage_offset(), tuple(t.shape), tuple(t.stride()))
        if view is not None:
            return view
    return t.detach().clone()


def _reduce_dtype(d):
    return dtype_name(d)


def _reduce_device(d):
    return (_native.device, (str(d),))


Tensor.__reduce_ex__ = _reduce_ex
Tensor.__deepcopy__ = _deepcopy
ForkingPickler.register(Tensor, reduce_for_ipc)
copyreg.pickle(_native.dtype, _reduce_dtype)
copyreg.pickle(_native.device, _reduce_device)
