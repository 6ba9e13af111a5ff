"""`gradrs.save` / `gradrs.load`: PyTorch's checkpoint format, written and read with the standard
library (`zipfile`, `pickle`), so PyTorch and gradrs read each other's checkpoints.

The format (PyTorch's `torch.save` since 1.6): a zip archive `<name>/` holding `data.pkl`, a
protocol-2 pickle whose tensors are `torch._utils._rebuild_tensor_v2(storage, offset, size,
stride, requires_grad, OrderedDict())` calls over persistent ids `('storage', torch.FloatStorage,
key, location, numel)`, and each storage's raw little-endian bytes in `data/<key>`, every
record's data aligned to 64 bytes by padding in a local-header extra field, as PyTorch's
writer does. The pickle names PyTorch's globals (`torch.FloatStorage`, not gradrs's), so
`torch.load(weights_only=True)` accepts it; reading maps them back to gradrs. The format before
1.6 (`_use_new_zipfile_serialization=False`: pickles one after another, then the raw storages)
is read and written too (`_legacy_load`, `_legacy_save`).

`load(weights_only=True)`, the default, runs the restricted unpickler of
`_weights_only_unpickler.py`: it builds only tensors, containers and the allowlisted globals,
and never calls anything else a pickle names.
"""

import bisect
import importlib
import inspect
import io
import os
import pickle
import struct
import sys
import types
import warnings
import zipfile
import zlib
from collections import OrderedDict

import numpy as np

from . import _native, _pickle
from . import _weights_only_unpickler
from ._size import Size
from ._weights_only_unpickler import (  # noqa: F401 - public names of gradrs.serialization
    add_safe_globals,
    clear_safe_globals,
    get_safe_globals,
    safe_globals,
)

__all__ = [
    "save",
    "load",
    "add_safe_globals",
    "clear_safe_globals",
    "get_safe_globals",
    "safe_globals",
    "get_unsafe_globals_in_checkpoint",
]

DEFAULT_PROTOCOL = 2
MAGIC_NUMBER = 0x1950A86A20F9469CFC6C  # the legacy format's first pickle, then its version
PROTOCOL_VERSION = 1001
STORAGE_ALIGNMENT = 64
UNSAFE_MESSAGE = (
    "In PyTorch 2.6, we changed the default value of the `weights_only` argument in `gradrs.load` "
    "from `False` to `True`. Re-running `gradrs.load` with `weights_only` set to `False` will "
    "likely succeed, but it can result in arbitrary code execution. Do it only if you got the "
    "file from a trusted source."
)
DOCS_MESSAGE = (
    "\n\nCheck the documentation of gradrs.load to learn more about types accepted by default with "
    "weights_only https://pytorch.org/docs/stable/generated/torch.load.html."
)


# --------------------------------------------------------------------------------------------
# save
# --------------------------------------------------------------------------------------------


class _TorchName:
    """A global the pickle must name as PyTorch does (`torch._utils._rebuild_tensor_v2`),
    written as a GLOBAL opcode without importing it."""

    __slots__ = ("module", "name")

    def __init__(self, module, name):
        self.module, self.name = module, name

    def __call__(self, *args):
        # pickle wants a reduce function to be callable; this one is only ever written out.
        raise TypeError(f"{self.module}.{self.name} is PyTorch's, not gradrs's")


_names = {}


def _torch_name(module, name):
    key = (module, name)
    if key not in _names:
        _names[key] = _TorchName(module, name)
    return _names[key]


class _StorageRef:
    """Stands for a tensor's storage in the reduce tuple; persistent_id turns it into the
    `('storage', ...)` id."""

    __slots__ = ("pid",)

    def __init__(self, pid):
        self.pid = pid


class _Layout:
    """Storages of one save: tensors whose memory overlaps share one storage record."""

    def __init__(self):
        self.ranges = []  # (location, start, end, dtype name) of each tensor seen
        self.starts = {}  # after plan(): location -> sorted group starts
        self.groups = {}  # location -> [start, end, dtype] of each group, by start
        self.empty = {}  # (location, address, dtype) -> group of 0-byte storages
        self.keys = {}  # group -> key, in order of first use
        self.records = []  # (key, start, nbytes) in key order
        self.gpu_storages = {}  # (start, dtype) -> CPU copy of a GPU tensor's storage
        self.copies = {}  # CPU copies of GPU tensors, alive until written

    def cpu_tensor(self, t):
        """The tensor, or for a GPU tensor a CPU view of a copy of its storage (one copy per
        storage, so its views stay one storage record), and its location tag."""
        if t.device.type == "cpu":
            return t, "cpu"
        loc = "cuda:" + str(t.device.index or 0)
        rng = _pickle.storage_range(t)  # GPU addresses: arithmetic only, nothing is read
        key = (rng.start, _pickle.dtype_name(t.dtype))
        storage = self.gpu_storages.get(key)
        if storage is None:
            root = _pickle.view_root(t)
            if root.storage_offset() == 0 and root.is_contiguous() and root.numel() > 0 and \
                    root.numel() * root.element_size() == rng.nbytes:
                storage = _pickle.TypedStorage(root.detach().cpu().numpy().reshape(-1), t.dtype)
                self.gpu_storages[key] = storage
        if storage is not None:
            view = _pickle.tensor_from_storage(storage, t.storage_offset(), t.shape, t.stride())
            self.copies[(key, t.storage_offset(), tuple(t.shape), tuple(t.stride()))] = view
            return view, loc
        # A storage that is not one contiguous root tensor: this tensor alone.
        key = (t.data_ptr(), str(t.dtype), tuple(t.shape), tuple(t.stride()))
        if key not in self.copies:
            self.copies[key] = t.detach().cpu()
        return self.copies[key], loc

    def note(self, t, location):
        rng = _pickle.storage_range(t)
        self.ranges.append((location, rng.start, rng.start + rng.nbytes,
                            _pickle.dtype_name(t.dtype)))

    def plan(self):
        """Merge overlapping memory ranges into storages."""
        for loc, start, end, dtype in sorted(self.ranges):
            if end == start:
                self.empty.setdefault((loc, start, dtype), [start, end, dtype])
                continue
            groups = self.groups.setdefault(loc, [])
            if groups and start < groups[-1][1]:
                if groups[-1][2] != dtype:
                    raise RuntimeError(
                        "Cannot save multiple tensors or storages that "
                        "view the same data as different types")
                groups[-1][1] = max(groups[-1][1], end)
            else:
                groups.append([start, end, dtype])
        self.starts = {loc: [g[0] for g in groups] for loc, groups in self.groups.items()}

    def pid(self, t, location):
        """(persistent id, storage offset) of a tensor noted in the planning pass."""
        rng = _pickle.storage_range(t)
        dtype = _pickle.dtype_name(t.dtype)
        if rng.nbytes == 0:
            group = self.empty[(location, rng.start, dtype)]
        else:
            group = self.groups[location][bisect.bisect_right(self.starts[location],
                                                              rng.start) - 1]
        start, end = group[0], group[1]
        if id(group) not in self.keys:
            self.keys[id(group)] = str(len(self.keys))
            self.records.append((self.keys[id(group)], start, end - start))
        item = t.element_size()
        storage_type = _torch_name("torch", _pickle.STORAGE_NAME[dtype])
        pid = ("storage", storage_type, self.keys[id(group)], location, (end - start) // item)
        return pid, (t.data_ptr() - start) // item


class _SavePickler(pickle._Pickler):
    """The pure-Python pickler (the C one cannot write a global it cannot import) with
    gradrs's tensors, dtypes, devices and sizes reduced to PyTorch's names."""

    dispatch = dict(pickle._Pickler.dispatch)

    def __init__(self, file, protocol, layout, planning):
        super().__init__(file, protocol=protocol)
        self.layout = layout
        self.planning = planning
        self.seen = []  # every tensor reduced, so ids stay unique for the whole save

    legacy = False  # writing the format before PyTorch 1.6 (`_legacy_save`)

    def persistent_id(self, obj):
        if type(obj) is _StorageRef:
            if self.legacy and obj.pid is not None:
                self.legacy_numel[obj.pid[2]] = obj.pid[4]
                return obj.pid + (None,)  # no view metadata: storages are never views now
            return obj.pid
        if self.legacy and isinstance(obj, type):
            return self._legacy_module_id(obj)
        return None

    def _legacy_module_id(self, cls):
        """The legacy format's ('module', class, source file, source) id of a Module class,
        the first time the class is written."""
        from .nn.modules.module import Module

        if not issubclass(cls, Module) or cls in self.container_types:
            return None
        self.container_types.add(cls)
        source_file = source = None
        try:
            source = "".join(inspect.getsourcelines(cls)[0])
            source_file = inspect.getsourcefile(cls)
        except Exception:  # noqa: BLE001 - the source is optional, as in PyTorch
            warnings.warn(f"Couldn't retrieve source code for container of type {cls.__name__}. "
                          "It won't be checked for correctness upon loading.", stacklevel=2)
        return ("module", cls, source_file, source)

    def save_global(self, obj, name=None):
        """The pure-Python pickler's save_global with the C pickler's errors (the one
        torch.save uses): a local object is an AttributeError, a failed lookup names it."""
        qualname = name if name is not None else getattr(obj, "__qualname__", None)
        if qualname is not None and "<locals>" in qualname.split("."):
            raise AttributeError(f"Can't pickle local object {qualname!r}")
        try:
            return super().save_global(obj, name)
        except pickle.PicklingError as e:
            if "it's not found as" not in str(e):
                raise
            qualname = qualname or getattr(obj, "__name__", None)
            module_name = pickle.whichmodule(obj, qualname)
            try:
                importlib.import_module(module_name)
            except ImportError:
                raise pickle.PicklingError(
                    f"Can't pickle {obj!r}: import of module {module_name!r} failed") from None
            raise pickle.PicklingError(
                f"Can't pickle {obj!r}: attribute lookup {qualname} on {module_name} "
                "failed") from None

    dispatch[types.FunctionType] = save_global  # the base's table names its own save_global

    def _save_torch_name(self, obj):
        if self.proto >= 4:
            self.save(obj.module)
            self.save(obj.name)
            self.write(pickle.STACK_GLOBAL)
        else:
            self.write(pickle.GLOBAL + obj.module.encode("utf-8") + b"\n" +
                       obj.name.encode("utf-8") + b"\n")
        self.memoize(obj)

    dispatch[_TorchName] = _save_torch_name

    def _save_dtype(self, obj):
        self._save_torch_name(_torch_name("torch", _pickle.dtype_name(obj)))

    dispatch[_native.dtype] = _save_dtype

    def reducer_override(self, obj):
        if isinstance(obj, _native.Tensor):
            return self._reduce_tensor(obj)
        if isinstance(obj, _native.device):
            kind = "cuda" if obj.type == "gpu" else obj.type
            args = (kind,) if obj.index is None else (kind, obj.index)
            return (_torch_name("torch", "device"), args)
        if isinstance(obj, Size):
            return (_torch_name("torch", "Size"), (tuple(obj),))
        return NotImplemented

    def _reduce_tensor(self, obj):
        self.seen.append(obj)
        from .nn.parameter import Parameter

        if isinstance(obj, Parameter) and type(obj) is not _native.Tensor:
            state = _pickle.get_obj_state(obj)
            data = obj.detach()
            if not state:
                return (_torch_name("torch._utils", "_rebuild_parameter"),
                        (data, obj.requires_grad, OrderedDict()))
            return (_torch_name("torch._utils", "_rebuild_parameter_with_state"),
                    (data, obj.requires_grad, OrderedDict(), state))
        t, location = self.layout.cpu_tensor(obj)
        self.seen.append(t)
        if self.planning:
            self.layout.note(t, location)
            pid, offset = None, 0
        else:
            pid, offset = self.layout.pid(t, location)
        rebuild = _torch_name("torch._utils", "_rebuild_tensor_v2")
        args = (_StorageRef(pid), offset, tuple(obj.shape), tuple(obj.stride()),
                obj.requires_grad, OrderedDict())
        state = _pickle.get_obj_state(obj)
        if type(obj) is _native.Tensor and not state:
            return (rebuild, args)
        cls = _torch_name("torch", "Tensor") if type(obj) is _native.Tensor else type(obj)
        return (_torch_name("torch._tensor", "_rebuild_from_type_v2"), (rebuild, cls, args, state))


def _pickler_class(pickle_module):
    base = getattr(pickle_module, "Pickler", pickle._Pickler)
    if isinstance(base, type) and issubclass(base, pickle._Pickler) and base is not pickle._Pickler:
        # A pure-Python pickler of its own (dill's): keep its dispatch, add ours.
        class _Custom(_SavePickler, base):
            dispatch = {**base.dispatch, **_SavePickler.dispatch}

        return _Custom
    return _SavePickler


class _ZipWriter:
    """Writes records as PyTorch's writer does: `<archive>/<name>`, stored, data 64-aligned."""

    def __init__(self, f, archive):
        self.zf = zipfile.ZipFile(f, mode="w", compression=zipfile.ZIP_STORED, allowZip64=True)
        self.archive = archive
        self.crcs = []

    def write_record(self, name, data):
        full = f"{self.archive}/{name}"
        info = zipfile.ZipInfo(full, date_time=(1980, 1, 1, 0, 0, 0))
        info.compress_type = zipfile.ZIP_STORED
        size = len(data) if isinstance(data, bytes) else data.nbytes
        header = 30 + len(full.encode("utf-8")) + 4
        if size * 1.05 > zipfile.ZIP64_LIMIT:
            header += 20  # zipfile adds a zip64 extra field to the local header
        pad = -(self.zf.fp.tell() + header) % STORAGE_ALIGNMENT
        info.extra = b"FB" + struct.pack("<H", pad) + b"Z" * pad
        with self.zf.open(info, mode="w", force_zip64=size * 1.05 > zipfile.ZIP64_LIMIT) as out:
            out.write(data)
        self.crcs.append(info.CRC)

    def close(self):
        # PyTorch's writer ends with a serialization id: 40 decimal digits. Drawn from
        # os.urandom, so that saving leaves the user's `random` stream alone.
        ident = int.from_bytes(os.urandom(8), "little") ^ zlib.crc32(str(self.crcs).encode())
        tail = int.from_bytes(os.urandom(8), "little")
        self.write_record(".data/serialization_id", f"{ident:020d}{tail:020d}".encode("ascii"))
        self.zf.close()


def _archive_name(f):
    if isinstance(f, str):
        base = os.path.basename(f)
        stem = base.rsplit(".", 1)[0] if "." in base else base
        return stem or "archive"
    return "archive"


def save(obj, f, pickle_module=pickle, pickle_protocol=DEFAULT_PROTOCOL,
         _use_new_zipfile_serialization=True, _disable_byteorder_record=False):
    """save(obj, f, pickle_module=pickle, pickle_protocol=2, _use_new_zipfile_serialization=True)

    Saves an object to a disk file in PyTorch's checkpoint format.

    Args:
        obj: saved object
        f: a file-like object (has to implement write and flush) or a string or
            os.PathLike object containing a file name
        pickle_module: module used for pickling metadata and objects
        pickle_protocol: can be specified to override the default protocol

    Examples:
        >>> import io
        >>> buf = io.BytesIO()
        >>> gradrs.save({"w": gradrs.tensor([1.0, 2.0])}, buf)
        >>> _ = buf.seek(0)
        >>> gradrs.load(buf)
        {'w': tensor([1., 2.])}
    """
    if not isinstance(f, (str, os.PathLike)) and not hasattr(f, "write"):
        raise AttributeError(
            "expected 'f' to be string, path, or a file-like object with "
            "a 'write' attribute")
    if isinstance(f, os.PathLike):
        f = os.fspath(f)
    if not isinstance(f, str) and not callable(getattr(f, "write", None)):
        raise TypeError(
            f"Buffer of {str(type(f)).strip('<>')} has no callable attribute 'write'")

    pickler_class = _pickler_class(pickle_module)
    layout = _Layout()
    # Pass 1 finds every tensor, so tensors whose memory overlaps can share one storage
    # record (gradrs has no storage objects to key them by); pass 2 writes the pickle.
    planner = pickler_class(_NullWriter(), pickle_protocol, layout, planning=True)
    planner.dump(obj)
    layout.plan()
    data_buf = io.BytesIO()
    writer = pickler_class(data_buf, pickle_protocol, layout, planning=False)
    if not _use_new_zipfile_serialization:
        writer.legacy, writer.legacy_numel, writer.container_types = True, {}, set()
    writer.dump(obj)
    data_value = data_buf.getvalue()
    if not _use_new_zipfile_serialization:
        opened = open(f, "wb") if isinstance(f, str) else f  # noqa: SIM115
        try:
            _legacy_save(opened, data_value, layout, writer.legacy_numel, pickle_module,
                         pickle_protocol)
        finally:
            if opened is not f:
                opened.close()
            elif hasattr(opened, "flush"):
                opened.flush()
        return

    if isinstance(f, str):
        parent = os.path.dirname(os.path.abspath(f))
        if not os.path.isdir(parent):
            raise RuntimeError(f"Parent directory {parent} does not exist.")
    opened = open(f, "wb") if isinstance(f, str) else f  # noqa: SIM115
    try:
        zw = _ZipWriter(opened, _archive_name(f))
        zw.write_record("data.pkl", data_value)
        zw.write_record(".format_version", b"1")
        zw.write_record(".storage_alignment", str(STORAGE_ALIGNMENT).encode("ascii"))
        if not _disable_byteorder_record:
            zw.write_record("byteorder", sys.byteorder.encode("ascii"))
        for key, start, nbytes in layout.records:
            zw.write_record(f"data/{key}", _pickle.memory_array(start, nbytes, np.uint8))
        zw.write_record("version", b"3\n")
        zw.close()
    finally:
        if opened is not f:
            opened.close()
        elif hasattr(opened, "flush"):
            opened.flush()
    del planner, writer


def _legacy_save(f, data_value, layout, numels, pickle_module, pickle_protocol):
    """The format of PyTorch before 1.6 (see `_legacy_load`), around the main pickle."""
    sys_info = {
        "protocol_version": PROTOCOL_VERSION,
        "little_endian": sys.byteorder == "little",
        "type_sizes": {"short": struct.Struct("=h").size, "int": struct.Struct("=i").size,
                       "long": struct.Struct("=l").size},
    }
    pickle_module.dump(MAGIC_NUMBER, f, protocol=pickle_protocol)
    pickle_module.dump(PROTOCOL_VERSION, f, protocol=pickle_protocol)
    pickle_module.dump(sys_info, f, protocol=pickle_protocol)
    f.write(data_value)
    keys = sorted(numels)  # PyTorch sorts its string keys
    pickle_module.dump(keys, f, protocol=pickle_protocol)
    records = {key: (start, nbytes) for key, start, nbytes in layout.records}
    for key in keys:
        start, nbytes = records[key]
        f.write(struct.pack("<q", numels[key]))
        f.write(_pickle.memory_array(start, nbytes, np.uint8).tobytes())


class _NullWriter:
    def write(self, data):
        return len(data)


# --------------------------------------------------------------------------------------------
# load
# --------------------------------------------------------------------------------------------


class _ZipReader:
    """The records of a checkpoint archive, by name relative to its top directory."""

    def __init__(self, f):
        self.zf = zipfile.ZipFile(f)
        names = self.zf.namelist()
        if not names:
            raise RuntimeError(
                "PytorchStreamReader failed reading zip archive: failed finding central directory")
        self.prefix = names[0].split("/", 1)[0] + "/"
        self.names = set(names)

    def has_record(self, name):
        return self.prefix + name in self.names

    def get_record(self, name):
        return self.zf.read(self.prefix + name)

    def data_offset(self, name):
        """Where a stored record's bytes begin in the file (for mmap)."""
        info = self.zf.getinfo(self.prefix + name)
        fp = self.zf.fp
        fp.seek(info.header_offset)
        header = fp.read(30)
        name_len, extra_len = struct.unpack("<HH", header[26:30])
        return info.header_offset + 30 + name_len + extra_len, info


def _restore_location(map_location):
    """`(storage, location) -> storage`, PyTorch's map_location rules."""
    if map_location is None:
        return _default_restore_location
    if isinstance(map_location, dict):
        return lambda s, loc: _default_restore_location(s, map_location.get(loc, loc))
    if isinstance(map_location, (str, bytes)):
        target = map_location.decode() if isinstance(map_location, bytes) else map_location
        return lambda s, loc: _default_restore_location(s, target)
    if isinstance(map_location, _native.device):
        return lambda s, loc: _default_restore_location(s, str(map_location))

    def call(s, loc):
        result = map_location(s, loc)
        if result is None:
            result = _default_restore_location(s, loc)
        return result

    return call


def _default_restore_location(storage, location):
    if isinstance(location, _native.device):
        location = str(location)
    if location == "cpu":
        return storage.cpu()
    kind, _, index = location.partition(":")
    if kind in ("cuda", "gpu"):
        from . import gpu

        if not gpu.is_available():
            raise RuntimeError(
                "Attempting to deserialize object on a CUDA device but "
                "gradrs.cuda.is_available() is False. If you are running on a CPU-only machine, "
                "please use gradrs.load with map_location=gradrs.device('cpu') "
                "to map your storages to the CPU.")
        return storage.to(_native.device("gpu", int(index) if index else 0))
    raise RuntimeError(
        "don't know how to restore data location of gradrs.storage.TypedStorage "
        f"(tagged with {location})")


class _BytesStorage:
    """The raw bytes of an `UntypedStorage` record, typed later by `_rebuild_tensor_v3`."""

    def __init__(self, array, location):
        self.array, self.location = array, location


def _load_from_zip(reader, map_location, unpickler_factory, mmap_path):
    restore = _restore_location(map_location)
    byteorder = "little"
    if reader.has_record("byteorder"):
        byteorder = reader.get_record("byteorder").decode()
        if byteorder not in ("little", "big"):
            raise ValueError("Unknown endianness type: " + byteorder)
    loaded = {}

    def raw_bytes(key, nbytes, np_dtype):
        name = f"data/{key}"
        if mmap_path is not None:
            offset, info = reader.data_offset(name)
            if info.compress_type != zipfile.ZIP_STORED:
                raise RuntimeError(f"cannot mmap the compressed record {name}")
            count = nbytes // np.dtype(np_dtype).itemsize
            if count == 0:
                return np.empty(0, dtype=np_dtype)
            # A private (copy-on-write) mapping, as PyTorch's default MAP_PRIVATE.
            return np.memmap(mmap_path, dtype=np_dtype, mode="c", offset=offset, shape=(count,))
        info = reader.zf.getinfo(reader.prefix + name)
        if info.file_size != nbytes:
            raise RuntimeError(
                f"record {name} holds {info.file_size} bytes; the pickle expects {nbytes}")
        array = np.empty(nbytes // np.dtype(np_dtype).itemsize, dtype=np_dtype)
        if nbytes and info.compress_type == zipfile.ZIP_STORED:
            # Straight from the file into the array: one copy instead of two.
            offset, _ = reader.data_offset(name)
            reader.zf.fp.seek(offset)
            if reader.zf.fp.readinto(memoryview(array).cast("B")) != nbytes:
                raise RuntimeError(f"record {name} is truncated")
        elif nbytes:
            array[...] = np.frombuffer(reader.get_record(name), dtype=np_dtype)
        return array

    def persistent_load(saved_id):
        if not isinstance(saved_id, tuple):
            raise AssertionError(f"saved_id must be a tuple, got {type(saved_id).__name__}")
        typename = saved_id[0].decode("ascii") if isinstance(saved_id[0], bytes) else saved_id[0]
        if typename != "storage":
            raise AssertionError(
                f"Unknown typename for persistent_load, expected 'storage' but got '{typename}'")
        storage_type, key, location, numel = saved_id[1:]
        location = location.decode("ascii") if isinstance(location, bytes) else location
        if key in loaded:
            return loaded[key]
        if storage_type is _weights_only_unpickler.UNTYPED_STORAGE:
            result = _BytesStorage(raw_bytes(key, numel, np.uint8), location)
        else:
            if not isinstance(storage_type, _pickle.StorageType):
                raise pickle.UnpicklingError(f"unknown storage type {storage_type!r}")
            dtype = storage_type.dtype_name
            if dtype not in _pickle.NUMPY_DTYPE:
                raise RuntimeError(
                    f"gradrs has no torch.{dtype} dtype: the checkpoint holds a "
                    f"torch.{storage_type.name} that gradrs cannot load "
                    "(supported: float16, float32, float64, uint8, int8, int16, int32, int64, bool)")
            np_dtype = _pickle.NUMPY_DTYPE[dtype]
            array = raw_bytes(key, numel * np.dtype(np_dtype).itemsize, np_dtype)
            if byteorder != sys.byteorder and array.itemsize > 1:
                array = array.byteswap()
            storage = _pickle.TypedStorage(array, _pickle.dtype_of(dtype))
            result = restore(storage, location)
        loaded[key] = result
        return result

    data_file = io.BytesIO(reader.get_record("data.pkl"))
    unpickler = unpickler_factory(data_file)
    unpickler.persistent_load = persistent_load
    return unpickler.load()


class _Anything:
    """Every object of a legacy pickle's first reading pass, which only collects the storages'
    types and sizes: calling, building or filling it does nothing, so no code the pickle names
    runs in that pass."""

    def __new__(cls, *args, **kwargs):
        return object.__new__(cls)

    def __init__(self, *args, **kwargs):
        pass

    def __call__(self, *args, **kwargs):
        return _Anything()

    def __setstate__(self, state):
        pass

    def append(self, item):
        pass

    def extend(self, items):
        pass

    def __setitem__(self, key, value):
        pass


class _StorageScanner(pickle.Unpickler):
    """Reads a legacy checkpoint's main pickle for its persistent ids only: root key ->
    (dtype name, number of elements)."""

    def __init__(self, f, **kwargs):
        super().__init__(f, **kwargs)
        self.storages = {}

    def find_class(self, mod_name, name):
        if mod_name == "torch" and name in _pickle.STORAGE_DTYPE:
            return _pickle.StorageType(name)
        return _Anything

    def persistent_load(self, saved_id):
        if isinstance(saved_id, tuple) and len(saved_id) == 6 and \
                _maybe_decode_ascii(saved_id[0]) == "storage":
            storage_type, root_key, _, numel, _ = saved_id[1:]
            if isinstance(storage_type, _pickle.StorageType):
                self.storages.setdefault(root_key, (storage_type.dtype_name, numel))
        return _Anything  # a class: a ('module', cls, ...) id's class is instantiated


def _maybe_decode_ascii(value):
    return value.decode("ascii") if isinstance(value, bytes) else value


def _legacy_load(f, map_location, unpickler_factory, load_one):
    """PyTorch's checkpoint format before 1.6 (`_use_new_zipfile_serialization=False`): the
    pickles of the magic number, the protocol version and the system's sizes, the main pickle
    (persistent ids `('storage', torch.FloatStorage, key, location, numel, view_metadata)`),
    the pickled list of storage keys, then each storage as an int64 element count and its
    little-endian bytes. The tensors are built from the main pickle, whose storages' data
    come after it: a first pass reads their types and sizes (running none of the pickle's
    code), the data are read, and the main pickle is read again over them."""
    magic_number = load_one(f)
    if magic_number != MAGIC_NUMBER:
        raise RuntimeError("Invalid magic number; corrupt file?")
    protocol_version = load_one(f)
    if protocol_version != PROTOCOL_VERSION:
        raise RuntimeError(f"Invalid protocol version: {protocol_version}")
    load_one(f)  # sys_info: the saving system's byte order and C type sizes
    start = f.tell()
    scanner = _StorageScanner(f)
    scanner.load()
    keys = load_one(f)
    arrays = {}
    for key in keys:
        if key not in scanner.storages:
            raise AssertionError(f"storage key {key!r} not found in deserialized_objects")
        dtype, numel = scanner.storages[key]
        if dtype not in _pickle.NUMPY_DTYPE:
            raise RuntimeError(
                f"gradrs has no torch.{dtype} dtype: the checkpoint holds a "
                f"torch.{_pickle.STORAGE_NAME.get(dtype, dtype)} that gradrs cannot load")
        np_dtype = np.dtype(_pickle.NUMPY_DTYPE[dtype])
        (size,) = struct.unpack("<q", f.read(8))
        if size * np_dtype.itemsize != numel * np_dtype.itemsize:
            raise RuntimeError(f"storage has wrong byte size: expected "
                               f"{numel * np_dtype.itemsize} got {size * np_dtype.itemsize}")
        data = f.read(size * np_dtype.itemsize)
        if len(data) != size * np_dtype.itemsize:
            raise RuntimeError("unexpected EOF, expected "
                               f"{size * np_dtype.itemsize - len(data)} more bytes. The file "
                               "might be corrupted.")
        arrays[key] = np.frombuffer(data, dtype=np_dtype.newbyteorder("<")).astype(np_dtype)
    end = f.tell()

    restore = _restore_location(map_location)
    roots, views = {}, {}

    def persistent_load(saved_id):
        if not isinstance(saved_id, tuple):
            raise AssertionError(f"saved_id must be a tuple, got {type(saved_id).__name__}")
        typename = _maybe_decode_ascii(saved_id[0])
        data = saved_id[1:]
        if typename == "module":
            return data[0]  # a whole module's class, saved with its source
        if typename != "storage":
            raise RuntimeError(f"Unknown saved id type: {saved_id[0]}")
        storage_type, root_key, location, numel, view_metadata = data
        location = _maybe_decode_ascii(location)
        if not isinstance(storage_type, _pickle.StorageType):
            raise pickle.UnpicklingError(f"unknown storage type {storage_type!r}")
        dtype = _pickle.dtype_of(storage_type.dtype_name)
        if root_key not in roots:
            array = arrays.get(root_key)
            if array is None:  # listed in no record: PyTorch leaves it uninitialized
                array = np.zeros(numel, dtype=_pickle.NUMPY_DTYPE[storage_type.dtype_name])
            roots[root_key] = (array, restore(_pickle.TypedStorage(array, dtype), location))
        array, storage = roots[root_key]
        if view_metadata is None:
            return storage
        view_key, offset, view_size = view_metadata
        if view_key not in views:
            views[view_key] = restore(
                _pickle.TypedStorage(array[offset:offset + view_size], dtype), location)
        return views[view_key]

    f.seek(start)
    unpickler = unpickler_factory(f)
    unpickler.persistent_load = persistent_load
    result = unpickler.load()
    f.seek(end)
    return result


def _wo_message(message):
    if "was not an allowed global by default." in message:
        updated = (
            "Weights only load failed. This file can still be loaded, to do so you have two "
            "options, \033[1mdo those steps only if you trust the source of the checkpoint\033[0m. "
            f"\n\t(1) {UNSAFE_MESSAGE}\n\t(2) Alternatively, to load with `weights_only=True` "
            "please check the recommended steps in the following error message.\n\t"
            "WeightsUnpickler error: " + message)
    else:
        updated = f"Weights only load failed. {UNSAFE_MESSAGE}\n"
        if "whose module" not in message or "is blocked" not in message:
            updated += ("Please file an issue with the following so that we can make "
                        "`weights_only=True` compatible with your use case: WeightsUnpickler "
                        "error: ")
        updated += "\n\n" + message
    return updated + DOCS_MESSAGE


def _open_for_read(f):
    if isinstance(f, (str, os.PathLike)):
        return open(f, "rb"), True  # noqa: SIM115
    for attr in ("read", "seek", "tell"):
        if not hasattr(f, attr):
            raise AttributeError(
                f"'{type(f).__name__}' object has no attribute '{attr}'")
    return f, False


def _is_zipfile(f):
    start = f.tell()
    magic = f.read(4)
    f.seek(start)
    return magic == b"PK\x03\x04"


def _is_tarfile(f):
    """A tar archive (ustar magic at offset 257), what PyTorch before 0.4 wrote."""
    start = f.tell()
    f.seek(start + 257)
    magic = f.read(5)
    f.seek(start)
    return magic == b"ustar"


def load(f, map_location=None, pickle_module=None, *, weights_only=None, mmap=None,
         **pickle_load_args):
    """load(f, map_location=None, pickle_module=pickle, *, weights_only=True, mmap=None, **pickle_load_args)

    Loads an object saved with :func:`gradrs.save` or ``torch.save`` from a file.

    Args:
        f: a file-like object (has to implement read, readline, tell, and seek), or a string or
            os.PathLike object containing a file name
        map_location: a function, :class:`gradrs.device`, string or a dict specifying how to
            remap storage locations (``'cpu'``, ``'cuda:0'``/``'gpu'``)
        pickle_module: module used for unpickling metadata and objects (only with
            ``weights_only=False``)
        weights_only: restrict the unpickler to tensors, primitive types, dictionaries and the
            globals allowed by :func:`add_safe_globals` (default True)
        mmap: map the file instead of reading the storages into memory
    """
    if weights_only is None:
        weights_only = pickle_module is None
    if weights_only:
        if pickle_module is not None:
            raise RuntimeError(
                "Can not safely load weights when explicit pickle_module is specified")
    elif pickle_module is None:
        pickle_module = pickle
    if pickle_load_args and weights_only:
        warnings.warn("pickle_load_args only works if `weights_only=False`.", stacklevel=2)
    pickle_load_args.setdefault("encoding", "utf-8")

    opened, owned = _open_for_read(f)
    try:
        if not _is_zipfile(opened):
            if mmap:
                name = "" if not isinstance(f, str) else f"{f}, "
                raise RuntimeError(
                    "mmap can only be used with files saved with "
                    f"`gradrs.save({name}_use_new_zipfile_serialization=True), "
                    "please gradrs.save your checkpoint with this option in order to use mmap.")
            if _is_tarfile(opened):
                if weights_only:
                    raise RuntimeError(
                        "Cannot use ``weights_only=True`` with files saved in the legacy .tar "
                        "format. " + UNSAFE_MESSAGE)
                raise RuntimeError(
                    "gradrs.load does not read the .tar checkpoint format of PyTorch before "
                    "0.4; load it with torch and re-save it with torch.save.")
            encoding = pickle_load_args["encoding"]
            if weights_only:
                def wo_factory(data_file):
                    return _weights_only_unpickler.Unpickler(data_file, encoding=encoding)

                try:
                    return _legacy_load(opened, map_location, wo_factory,
                                        lambda fh: wo_factory(fh).load())
                except pickle.UnpicklingError as e:
                    raise pickle.UnpicklingError(_wo_message(str(e))) from None

            def full_factory(data_file):
                return _full_unpickler_class(pickle_module)(data_file, **pickle_load_args)

            return _legacy_load(opened, map_location, full_factory,
                                lambda fh: pickle_module.load(fh, **pickle_load_args))
        reader = _ZipReader(opened)
        if reader.has_record("constants.pkl"):
            raise RuntimeError(
                "gradrs.load received a TorchScript archive, which gradrs cannot load")
        mmap_path = None
        if mmap:
            if not isinstance(f, (str, os.PathLike)):
                raise ValueError("f must be a file path in order to use the mmap argument")
            mmap_path = os.fspath(f)
        if weights_only:
            def factory(data_file):
                return _weights_only_unpickler.Unpickler(
                    data_file, encoding=pickle_load_args["encoding"])

            try:
                return _load_from_zip(reader, map_location, factory, mmap_path)
            except pickle.UnpicklingError as e:
                raise pickle.UnpicklingError(_wo_message(str(e))) from None

        def factory(data_file):
            return _full_unpickler_class(pickle_module)(data_file, **pickle_load_args)

        return _load_from_zip(reader, map_location, factory, mmap_path)
    finally:
        if owned:
            opened.close()


def _full_unpickler_class(pickle_module):
    class UnpicklerWrapper(pickle_module.Unpickler):
        # PyTorch's names resolve to gradrs's: torch.X -> gradrs.X.
        def find_class(self, mod_name, name):
            if type(name) is str and "Storage" in name and name in _pickle.STORAGE_DTYPE:
                return _pickle.StorageType(name)
            found = _weights_only_unpickler.torch_global(mod_name, name)
            if found is not None:
                return found
            if mod_name == "torch" or mod_name.startswith("torch."):
                mod_name = "gradrs" + mod_name[len("torch"):]
            return super().find_class(mod_name, name)

    return UnpicklerWrapper


def get_unsafe_globals_in_checkpoint(f):
    """The GLOBALs of a checkpoint's pickle that `weights_only=True` would refuse."""
    opened, owned = _open_for_read(f)
    try:
        if not _is_zipfile(opened):
            raise ValueError("Expected input to be a checkpoint returned by torch.save")
        reader = _ZipReader(opened)
        if reader.has_record("constants.pkl"):
            raise ValueError(
                "Expected input to be a checkpoint returned by torch.save but got a "
                "torchscript checkpoint")
        found = _weights_only_unpickler.globals_in_pickle(io.BytesIO(reader.get_record("data.pkl")))
        return list(found - _weights_only_unpickler.allowed_names())
    finally:
        if owned:
            opened.close()
