"""The restricted unpickler of `gradrs.load(weights_only=True)`, and the table mapping PyTorch's
pickled globals (`torch._utils._rebuild_tensor_v2`, `torch.FloatStorage`, ...) to gradrs's.

Like PyTorch's `torch/_weights_only_unpickler.py` it interprets the pickle opcodes itself:
GLOBAL only resolves names from an allowlist (tensor rebuild functions, storage classes, dtypes,
`collections.OrderedDict`, a few builtins, and what `add_safe_globals` adds), REDUCE/NEWOBJ only
call those, BUILD only fills tensors, OrderedDicts and allowlisted types, and anything else is
an `UnpicklingError` raised before any code from the pickle runs.
"""

import _compat_pickle
import functools
import warnings
from _codecs import encode
from collections import Counter, OrderedDict
from pickle import (
    APPEND,
    APPENDS,
    BINFLOAT,
    BINGET,
    BININT,
    BININT1,
    BININT2,
    BINPERSID,
    BINPUT,
    BINUNICODE,
    BUILD,
    EMPTY_DICT,
    EMPTY_LIST,
    EMPTY_SET,
    EMPTY_TUPLE,
    GLOBAL,
    LONG1,
    LONG_BINGET,
    LONG_BINPUT,
    MARK,
    NEWFALSE,
    NEWOBJ,
    NEWTRUE,
    NONE,
    PROTO,
    REDUCE,
    SETITEM,
    SETITEMS,
    SHORT_BINSTRING,
    STOP,
    TUPLE,
    TUPLE1,
    TUPLE2,
    TUPLE3,
    UnpicklingError,
    decode_long,
)
from struct import unpack
from sys import maxsize

from . import _native, _pickle
from ._size import Size

# Modules never allowed, even when a user allowlists something from them.
_BLOCKLISTED_MODULES = ["sys", "os", "posix", "nt"]

# PyTorch's dtype names (canonical, as `str(torch.float32)` spells them in a pickle).
_TORCH_DTYPES = [
    "float32", "float64", "float16", "bfloat16", "int64", "int32", "int16", "int8", "uint8",
    "bool", "complex32", "complex64", "complex128", "uint16", "uint32", "uint64",
    "float8_e4m3fn", "float8_e5m2", "float8_e4m3fnuz", "float8_e5m2fnuz", "float8_e8m0fnu",
    "float4_e2m1fn_x2", "qint8", "quint8", "qint32", "quint4x2", "quint2x4", "bits1x8",
    "bits2x4", "bits4x2", "bits8", "bits16",
] + [f"int{x}" for x in range(1, 8)] + [f"uint{x}" for x in range(1, 8)]


class MissingDType:
    """A PyTorch dtype gradrs does not have: it unpickles, and fails when a tensor needs it."""

    def __init__(self, name):
        self.name = name

    def __repr__(self):
        return f"torch.{self.name}"


class _UntypedStorage:
    """What `torch.UntypedStorage` unpickles to (the storage of `_rebuild_tensor_v3`)."""

    def __repr__(self):
        return "torch.UntypedStorage"


UNTYPED_STORAGE = _UntypedStorage()


def _dtype(name):
    if name in _pickle.NUMPY_DTYPE:
        return _pickle.dtype_of(name)
    return _missing_dtypes.setdefault(name, MissingDType(name))


_missing_dtypes = {}


def _device(*args):
    kind = args[0]
    if isinstance(kind, str) and kind.split(":")[0] == "cuda":
        kind = "gpu" + kind[len("cuda"):]
    return _native.device(kind, *args[1:])


def _unsupported(what):
    def rebuild(*args, **kwargs):
        raise RuntimeError(f"gradrs cannot load {what}: it has no such tensors")

    return rebuild


def _rebuild_tensor_v3(storage, storage_offset, size, stride, requires_grad, backward_hooks,
                       dtype, metadata=None):
    if isinstance(dtype, MissingDType):
        raise RuntimeError(
            f"gradrs has no torch.{dtype.name} dtype: the checkpoint holds a torch.{dtype.name} "
            "tensor that gradrs cannot load "
            "(supported: float16, float32, float64, uint8, int8, int16, int32, int64, bool)")
    np_dtype = _pickle.NUMPY_DTYPE[_pickle.dtype_name(dtype)]
    typed = _pickle.TypedStorage(storage.array.view(np_dtype), dtype)
    from .serialization import _default_restore_location

    typed = _default_restore_location(typed, storage.location)
    return _pickle._rebuild_tensor_v2(typed, storage_offset, size, stride, requires_grad,
                                      backward_hooks, metadata)


def _rebuild_device_tensor_from_cpu_tensor(data, dtype, device, requires_grad):
    t = data.to(dtype=dtype, device=_device(device))
    t.requires_grad = requires_grad
    return t


def _rebuild_meta_tensor_no_storage(dtype, size, stride, requires_grad):
    raise RuntimeError("gradrs cannot load meta tensors: it has no meta device")


def _get_layout(name):
    if name == "torch.strided":
        return name
    raise RuntimeError(f"gradrs cannot load a {name} tensor: it has only strided tensors")


def _parameter():
    from .nn.parameter import Parameter

    return Parameter


def _rebuild_functions():
    return {
        "_rebuild_tensor": _pickle._rebuild_tensor,
        "_rebuild_tensor_v2": _pickle._rebuild_tensor_v2,
        "_rebuild_tensor_v3": _rebuild_tensor_v3,
        "_rebuild_parameter": _pickle._rebuild_parameter,
        "_rebuild_parameter_with_state": _pickle._rebuild_parameter_with_state,
        "_rebuild_device_tensor_from_cpu_tensor": _rebuild_device_tensor_from_cpu_tensor,
        "_rebuild_meta_tensor_no_storage": _rebuild_meta_tensor_no_storage,
        "_rebuild_qtensor": _unsupported("quantized tensors"),
        "_rebuild_sparse_tensor": _unsupported("sparse tensors"),
        "_rebuild_nested_tensor": _unsupported("nested tensors"),
        "_rebuild_wrapper_subclass": _unsupported("wrapper tensor subclasses"),
        "_rebuild_device_tensor_from_numpy": _unsupported("tensors pickled through numpy"),
    }


@functools.cache
def _torch_globals():
    rc = {
        "torch.Size": Size,
        "torch.Tensor": _native.Tensor,
        "torch.device": _device,
        "torch.serialization._get_layout": _get_layout,
        "torch._tensor._rebuild_from_type_v2": _pickle._rebuild_from_type_v2,
        "torch.UntypedStorage": UNTYPED_STORAGE,
        "torch.storage.UntypedStorage": UNTYPED_STORAGE,
    }
    for name in _TORCH_DTYPES:
        rc[f"torch.{name}"] = _dtype(name)
    for name in _pickle.STORAGE_DTYPE:
        rc[f"torch.{name}"] = _pickle.StorageType(name)
    for name, fn in _rebuild_functions().items():
        rc[f"torch._utils.{name}"] = fn
    return rc


def torch_global(module, name):
    """gradrs's object for one of PyTorch's pickled globals, or None when it has no mapping."""
    if module == "torch.nn.parameter" and name == "Parameter":
        return _parameter()
    if module == "torch.tensor":
        module = "torch._tensor"
    return _torch_globals().get(f"{module}.{name}")


@functools.cache
def _allowed_globals():
    rc = {
        "collections.OrderedDict": OrderedDict,
        "collections.Counter": Counter,
        "_codecs.encode": encode,
        "builtins.bytearray": bytearray,
        "builtins.set": set,
        "builtins.complex": complex,
    }
    rc.update(_torch_globals())
    return rc


def _allowed(full_path):
    if full_path == "torch.nn.parameter.Parameter":
        return _parameter()
    return _allowed_globals().get(full_path)


def allowed_names():
    return set(_allowed_globals()) | {"torch.nn.parameter.Parameter"} | set(_user_allowed())


# --------------------------------------------------------------------------------------------
# the user's allowlist (gradrs.serialization.add_safe_globals)
# --------------------------------------------------------------------------------------------

_marked_safe_globals = set()


def add_safe_globals(safe_globals):
    """Marks the given globals as safe for ``weights_only`` load: a list of classes or
    functions, or of ``(object, "module.name")`` pairs naming them as the checkpoint does."""
    global _marked_safe_globals
    _marked_safe_globals = _marked_safe_globals.union(set(safe_globals))


def get_safe_globals():
    """The list of user-added globals that are safe for ``weights_only`` load."""
    return list(_marked_safe_globals)


def clear_safe_globals():
    """Clears the list of globals that are safe for ``weights_only`` load."""
    global _marked_safe_globals
    _marked_safe_globals = set()


class safe_globals:
    """Context manager adding certain globals as safe for ``weights_only`` load."""

    def __init__(self, safe_globals):
        self.safe_globals = safe_globals

    def __enter__(self):
        add_safe_globals(self.safe_globals)

    def __exit__(self, type, value, tb):
        global _marked_safe_globals
        _marked_safe_globals = _marked_safe_globals - set(self.safe_globals)


def _user_allowed():
    rc = {}
    for f in _marked_safe_globals:
        if isinstance(f, tuple):
            if len(f) != 2:
                raise ValueError(
                    "Expected tuple of length 2 (global, str of callable full path), but got "
                    f"tuple of length: {len(f)}")
            if type(f[1]) is not str:
                raise TypeError(
                    "Expected second item in tuple to be str of callable full path, but got: "
                    f"{type(f[1])}")
            f, name = f
            rc[name] = f
        else:
            rc[f"{f.__module__}.{f.__qualname__}"] = f
    return rc


@functools.cache
def _allowed_ids():
    return frozenset(id(v) for v in _allowed_globals().values()) | {id(_parameter())}


def _is_allowed_value(obj):
    """Whether REDUCE / NEWOBJ / BUILD may use `obj`: one of the allowlisted globals (by
    identity, as PyTorch checks it)."""
    if id(obj) in _allowed_ids():
        return True
    return any(obj is v for v in _user_allowed().values())


# --------------------------------------------------------------------------------------------
# the interpreter
# --------------------------------------------------------------------------------------------


def _read_global(readline):
    module = readline()[:-1].decode("utf-8")
    name = readline()[:-1].decode("utf-8")
    # Protocol-2 pickles written by Python 3 spell builtins the Python 2 way (__builtin__).
    if (module, name) in _compat_pickle.NAME_MAPPING:
        module, name = _compat_pickle.NAME_MAPPING[(module, name)]
    elif module in _compat_pickle.IMPORT_MAPPING:
        module = _compat_pickle.IMPORT_MAPPING[module]
    return module, name


def globals_in_pickle(file):
    """The `module.name` of every GLOBAL in a pickle, read without running it."""
    found = set()
    skip = {
        BININT[0]: 4, BININT1[0]: 1, BININT2[0]: 2, BINFLOAT[0]: 8, BINGET[0]: 1,
        LONG_BINGET[0]: 4, BINPUT[0]: 1, LONG_BINPUT[0]: 4,
    }
    bare = {op[0] for op in (NEWOBJ, REDUCE, BUILD, APPEND, APPENDS, SETITEM, SETITEMS, MARK,
                             TUPLE, TUPLE1, TUPLE2, TUPLE3, NONE, NEWFALSE, NEWTRUE, EMPTY_TUPLE,
                             EMPTY_LIST, EMPTY_DICT, EMPTY_SET, BINPERSID)}
    while True:
        key = file.read(1)
        if not key:
            raise EOFError
        op = key[0]
        if op == GLOBAL[0]:
            module, name = _read_global(file.readline)
            found.add(f"{module}.{name}")
        elif op in bare:
            pass
        elif op in skip:
            file.read(skip[op])
        elif op == BINUNICODE[0]:
            file.read(unpack("<I", file.read(4))[0])
        elif op in (SHORT_BINSTRING[0], LONG1[0]):
            file.read(file.read(1)[0])
        elif op == PROTO[0]:
            file.read(1)
        elif op == STOP[0]:
            return found
        else:
            raise UnpicklingError(f"Unsupported operand {op}")


class Unpickler:
    def __init__(self, file, *, encoding="bytes"):
        self.encoding = encoding
        self.readline = file.readline
        self.read = file.read
        self.memo = {}
        self.proto = -1

    def load(self):
        """Read a pickled object representation from the open file."""
        self.metastack = []
        self.stack = []
        self.append = self.stack.append
        read = self.read
        while True:
            key = read(1)
            if not key:
                raise EOFError
            op = key[0]
            if op == GLOBAL[0]:
                self._global()
            elif op == NEWOBJ[0]:
                args = self.stack.pop()
                cls = self.stack.pop()
                if cls is _parameter():
                    self.append(cls(*args))
                elif _is_allowed_value(cls):
                    self.append(cls.__new__(cls, *args))
                else:
                    raise UnpicklingError(
                        "Can only create new object for nn.Parameter or classes allowlisted "
                        f"via `add_safe_globals` but got {cls}")
            elif op == REDUCE[0]:
                args = self.stack.pop()
                func = self.stack[-1]
                if not _is_allowed_value(func):
                    error_msg = f"Trying to call reduce for unrecognized function {func}"
                    if hasattr(func, "__self__"):
                        error_msg += f" which belongs to {func.__self__}"
                    raise UnpicklingError(error_msg)
                self.stack[-1] = func(*args)
            elif op == BUILD[0]:
                self._build()
            elif op == APPEND[0]:
                item = self.stack.pop()
                list_obj = self.stack[-1]
                if type(list_obj) is not list:
                    raise UnpicklingError(f"Can only append to lists, but got {type(list_obj)}")
                list_obj.append(item)
            elif op == APPENDS[0]:
                items = self.pop_mark()
                list_obj = self.stack[-1]
                if type(list_obj) is not list:
                    raise UnpicklingError(f"Can only extend lists, but got {type(list_obj)}")
                list_obj.extend(items)
            elif op == SETITEM[0]:
                (v, k) = (self.stack.pop(), self.stack.pop())
                self._check_set_item_target("SETITEM")
                self.stack[-1][k] = v
            elif op == SETITEMS[0]:
                items = self.pop_mark()
                self._check_set_item_target("SETITEMS")
                for i in range(0, len(items), 2):
                    self.stack[-1][items[i]] = items[i + 1]
            elif op == MARK[0]:
                self.metastack.append(self.stack)
                self.stack = []
                self.append = self.stack.append
            elif op == TUPLE[0]:
                items = self.pop_mark()  # before self.append: pop_mark rebinds it
                self.append(tuple(items))
            elif op == TUPLE1[0]:
                self.stack[-1] = (self.stack[-1],)
            elif op == TUPLE2[0]:
                self.stack[-2:] = [(self.stack[-2], self.stack[-1])]
            elif op == TUPLE3[0]:
                self.stack[-3:] = [(self.stack[-3], self.stack[-2], self.stack[-1])]
            elif op == NONE[0]:
                self.append(None)
            elif op == NEWFALSE[0]:
                self.append(False)
            elif op == NEWTRUE[0]:
                self.append(True)
            elif op == EMPTY_TUPLE[0]:
                self.append(())
            elif op == EMPTY_LIST[0]:
                self.append([])
            elif op == EMPTY_DICT[0]:
                self.append({})
            elif op == EMPTY_SET[0]:
                self.append(set())
            elif op == BININT[0]:
                self.append(unpack("<i", read(4))[0])
            elif op == BININT1[0]:
                self.append(read(1)[0])
            elif op == BININT2[0]:
                self.append(unpack("<H", read(2))[0])
            elif op == BINFLOAT[0]:
                self.append(unpack(">d", read(8))[0])
            elif op == BINUNICODE[0]:
                strlen = unpack("<I", read(4))[0]
                if strlen > maxsize:
                    raise UnpicklingError("String is too long")
                self.append(str(read(strlen), "utf-8", "surrogatepass"))
            elif op == SHORT_BINSTRING[0]:
                strdata = read(read(1)[0])
                if self.encoding != "bytes":
                    strdata = strdata.decode(self.encoding, "strict")
                self.append(strdata)
            elif op == BINPERSID[0]:
                pid = self.stack.pop()
                if type(pid) is not tuple and type(pid) is not int:
                    raise UnpicklingError(
                        f"persistent_load id must be tuple or int, but got {type(pid)}")
                if type(pid) is tuple and len(pid) > 0:
                    tag = pid[0].decode("ascii") if isinstance(pid[0], bytes) else pid[0]
                    if tag != "storage":
                        raise UnpicklingError(
                            f"Only persistent_load of storage is allowed, but got {type(pid[0])}")
                self.append(self.persistent_load(pid))
            elif op in (BINGET[0], LONG_BINGET[0]):
                idx = (read(1) if op == BINGET[0] else unpack("<I", read(4)))[0]
                self.append(self.memo[idx])
            elif op in (BINPUT[0], LONG_BINPUT[0]):
                i = (read(1) if op == BINPUT[0] else unpack("<I", read(4)))[0]
                self.memo[i] = self.stack[-1]
            elif op == LONG1[0]:
                self.append(decode_long(read(read(1)[0])))
            elif op == PROTO[0]:
                self.proto = read(1)[0]
                if self.proto != 2:
                    warnings.warn(
                        f"Detected pickle protocol {self.proto} in the checkpoint, which was "
                        "not the default pickle protocol used by `gradrs.load` (2). The "
                        "weights_only Unpickler might not support all instructions implemented "
                        "by this protocol, please file an issue for adding support if you "
                        "encounter this.",
                        stacklevel=2)
            elif op == STOP[0]:
                return self.stack.pop()
            else:
                raise UnpicklingError(f"Unsupported operand {op}")

    def _global(self):
        module, name = _read_global(self.readline)
        full_path = f"{module}.{name}"
        if module in _BLOCKLISTED_MODULES:
            raise UnpicklingError(
                f"Trying to load unsupported GLOBAL {full_path} whose module {module} is "
                "blocked.")
        found = _allowed(full_path)
        if found is None:
            found = _user_allowed().get(full_path)
        if found is not None:
            self.append(found)
            return
        if full_path.startswith("builtins"):
            rest = full_path[len("builtins"):]
            full_path = rest[1:] if rest.startswith(".") else "builtins" + rest
        raise UnpicklingError(
            f"Unsupported global: GLOBAL {full_path} was not an allowed global by default. "
            f"Please use `gradrs.serialization.add_safe_globals([{full_path}])` or the "
            f"`gradrs.serialization.safe_globals([{full_path}])` context manager to allowlist "
            "this global if you trust this class/function.")

    def _build(self):
        state = self.stack.pop()
        inst = self.stack[-1]
        cls = type(inst)
        if cls is _native.Tensor:
            raise UnpicklingError(
                "gradrs cannot load a tensor in PyTorch's legacy Tensor.set_ form")
        if cls is _parameter() or cls in (OrderedDict,) or _is_allowed_value(cls):
            if cls is OrderedDict:
                inst.__dict__.update(state)
            elif hasattr(inst, "__setstate__"):
                inst.__setstate__(state)
            else:
                slotstate = None
                if isinstance(state, tuple) and len(state) == 2:
                    state, slotstate = state
                if state:
                    inst.__dict__.update(state)
                if slotstate:
                    for k, v in slotstate.items():
                        setattr(inst, k, v)
            return
        raise UnpicklingError(
            "Can only build Tensor, Parameter, OrderedDict or types allowlisted "
            f"via `add_safe_globals`, but got {cls}")

    def pop_mark(self):
        items = self.stack
        self.stack = self.metastack.pop()
        self.append = self.stack.append
        return items

    def _check_set_item_target(self, opcode):
        if type(self.stack[-1]) not in [dict, OrderedDict, Counter]:
            raise UnpicklingError(
                f"Can only {opcode} for dict, collections.OrderedDict, "
                f"collections.Counter, but got {type(self.stack[-1])}")

    def persistent_load(self, pid):
        raise UnpicklingError("unsupported persistent id encountered")
