"""Questions about a tensor or a value: `is_floating_point`, `is_complex`, `is_signed`,
`is_nonzero`, `is_same_size`, `get_device`, `typename`, `is_distributed`, and the `sym_*`
helpers PyTorch's symbolic shapes export.
"""

import builtins
import math

import numpy as np

from .. import _native
from .._native import Tensor
from ..functional import _check_tensor
from ._common import _as_method, _G

__all__ = [
    "is_complex", "is_floating_point", "is_nonzero", "is_same_size", "is_signed", "get_device",
    "typename", "is_distributed", "sym_not", "sym_float", "sym_int", "sym_max", "sym_min",
    "sym_sum", "sym_sqrt", "sym_ite",
]


def is_floating_point(input):
    """`gradrs.is_floating_point(input)`.

    Examples:
        >>> gradrs.is_floating_point(gradrs.ones(1)), gradrs.is_floating_point(gradrs.tensor([1]))
        (True, False)
    """
    _check_tensor("is_floating_point", "input", 1, input)
    return input.is_floating_point()


def is_complex(input):
    """`gradrs.is_complex(input)`: gradrs has no complex dtypes, so False.

    Examples:
        >>> gradrs.is_complex(gradrs.ones(1))
        False
    """
    _check_tensor("is_complex", "input", 1, input)
    return False


def is_signed(input):
    """`gradrs.is_signed(input)`: False for bool (and unsigned) dtypes.

    Examples:
        >>> gradrs.is_signed(gradrs.tensor([1]))
        True
    """
    _check_tensor("is_signed", "input", 1, input)
    return input.dtype != _G.bool


def is_nonzero(input):
    """`gradrs.is_nonzero(input)`: the truth of a one-element tensor.

    Examples:
        >>> gradrs.is_nonzero(gradrs.tensor([0.5]))
        True
    """
    _check_tensor("is_nonzero", "input", 1, input)
    n = input.numel()
    if n == 0:
        raise RuntimeError("Boolean value of Tensor with no values is ambiguous")
    if n > 1:
        raise RuntimeError("Boolean value of Tensor with more than one value is ambiguous")
    return builtins.bool(input.item() != 0)


def is_same_size(input, other):
    """`gradrs.is_same_size(input, other)`: equal shapes.

    Examples:
        >>> gradrs.is_same_size(gradrs.ones(2, 3), gradrs.zeros(2, 3))
        True
    """
    _check_tensor("is_same_size", "input", 1, input)
    _check_tensor("is_same_size", "other", 2, other)
    return tuple(input.shape) == tuple(other.shape)
for _fn in (is_nonzero, is_signed, is_complex, is_same_size):
    setattr(Tensor, _fn.__name__, _as_method(_fn))


def get_device(input):
    """`gradrs.get_device(input)`: -1 for a CPU tensor, else the device index."""
    _check_tensor("get_device", "input", 1, input)
    return -1 if input.device.type == "cpu" else (input.device.index or 0)


for _fn in (get_device,):
    setattr(Tensor, _fn.__name__, _as_method(_fn))


def typename(obj):
    """`gradrs.typename(obj)`: a tensor's type string (`gradrs.FloatTensor`), else the
    object's `module.qualname` (`int` for builtins).

    Examples:
        >>> gradrs.typename(gradrs.ones(2))
        'gradrs.FloatTensor'
    """
    if isinstance(obj, Tensor):
        return obj.type()
    module = getattr(obj, "__module__", "") or ""
    if hasattr(obj, "__qualname__"):
        qualname = obj.__qualname__
    elif hasattr(obj, "__name__"):
        qualname = obj.__name__
    else:
        module = obj.__class__.__module__ or ""
        qualname = obj.__class__.__qualname__
    return qualname if module in ("", "builtins") else f"{module}.{qualname}"


def is_distributed(input):
    """`gradrs.is_distributed(input)`: False (no tensor of gradrs is distributed)."""
    return False


def _is_distributed(self):
    """`Tensor.is_distributed()`: False."""
    return False
Tensor.is_distributed = _is_distributed

# Layouts and backends gradrs has none of: every tensor is dense and strided, never quantized
# or nested, on the CPU or a GPU that answers as cuda. Libraries ask (`if grad.is_sparse: raise
# RuntimeError(...)` opens many a third-party optimizer's step).
for _name in ("is_sparse", "is_sparse_csr", "is_quantized", "is_mkldnn", "is_nested", "is_mps",
              "is_xpu", "is_xla", "is_vulkan", "is_ipu", "is_maia", "is_mtia"):
    setattr(Tensor, _name, property(lambda self: False, doc=f"`Tensor.{_name}`: always False."))
del _name


def _all_and_float_types():
    return (np.integer, np.floating, int, float), (np.floating, float)


def sym_not(a):
    """`gradrs.sym_not(a)`: `not a` (gradrs has no symbolic sizes)."""
    return not a


def sym_float(a):
    """`gradrs.sym_float(a)`: `float(a)`."""
    return float(a)


def sym_int(a):
    """`gradrs.sym_int(a)`: `int(a)`."""
    return int(a)


def _sym_extreme(pick, a, b):
    all_types, float_types = _all_and_float_types()
    for v in (a, b):
        if not isinstance(v, all_types):
            raise AssertionError(f"expected {all_types}, got {type(v)}")
    if isinstance(a, float_types) or isinstance(b, float_types):
        return float(pick(a, b))
    return pick(a, b)


def sym_max(a, b):
    """`gradrs.sym_max(a, b)`: `max(a, b)`, a float when either is one."""
    return _sym_extreme(builtins.max, a, b)


def sym_min(a, b):
    """`gradrs.sym_min(a, b)`: `min(a, b)`, a float when either is one."""
    return _sym_extreme(builtins.min, a, b)


def sym_sum(*args):
    """`gradrs.sym_sum(a, b, ...)` or `sym_sum([a, b, ...])`: their sum."""
    if len(args) == 1 and isinstance(args[0], (list, tuple)):
        args = args[0]
    return builtins.sum(args)


def sym_sqrt(a):
    """`gradrs.sym_sqrt(a)`: `math.sqrt(a)`."""
    return math.sqrt(a)


def sym_ite(b, t, f):
    """`gradrs.sym_ite(b, t, f)`: `t if b else f` (`t` and `f` of one type)."""
    if not isinstance(b, bool):
        raise AssertionError(f"expected SymBool or bool, got {type(b)}")
    if type(t) is not type(f):
        raise AssertionError(f"type mismatch: {type(t)} vs {type(f)}")
    return t if b else f



def _storage_base(t):
    """The address of `t`'s storage (its data pointer less its offset)."""
    return t.data_ptr() - t.storage_offset() * t.element_size()


def _is_set_to(self, tensor):
    """True when `self` and `tensor` are the same view of the same memory: one storage, one
    storage offset, the same sizes and strides (ATen's `is_set_to`).

    Examples:
        >>> x = gradrs.ones(2, 3)
        >>> x.is_set_to(x.view(2, 3)), x.is_set_to(x.t()), x.is_set_to(x.clone())
        (True, False, False)
    """
    if self.numel() and tensor.numel():
        same = _storage_base(self) == _storage_base(tensor)
    else:  # empty memory has no address to tell storages apart: the same tensor's views
        mine = self if self._base is None else self._base
        theirs = tensor if tensor._base is None else tensor._base
        same = mine is theirs
    return bool(same and self.storage_offset() == tensor.storage_offset()
                and tuple(self.shape) == tuple(tensor.shape)
                and tuple(self.stride()) == tuple(tensor.stride()))


def _const_data_ptr(self):
    """The address of the first element, for reading only (`data_ptr`'s value: gradrs has no
    copy-on-write tensors to materialize).

    Examples:
        >>> x = gradrs.ones(2)
        >>> x.const_data_ptr() == x.data_ptr()
        True
    """
    return self.data_ptr()


def _module_load(self, other, assign=False):
    """What `nn.Module.load_state_dict` loads into a parameter or buffer when it swaps them
    (`torch.__future__.set_swap_module_params_on_conversion`): `other` detached when `assign`,
    else `self` with `other` copied in, detached.

    Examples:
        >>> gradrs.zeros(2).module_load(gradrs.ones(2))
        tensor([1., 1.])
    """
    if assign:
        return other.detach()
    return self.copy_(other).detach()


for _name, _fn in (("is_set_to", _is_set_to), ("const_data_ptr", _const_data_ptr),
                   ("module_load", _module_load)):
    _fn.__name__ = _fn.__qualname__ = _name
    setattr(Tensor, _name, _fn)

del _fn


# ---- type promotion queries: answered by the promotion the ops themselves apply -------------------

def _probe(value):
    """An empty stand-in for a `result_type` operand: same dtype and same 0-dim-ness (a 0-dim
    tensor promotes as a lower priority operand, as a Python number does below it)."""
    if isinstance(value, Tensor):
        return _native.empty((), dtype=value.dtype) if value.dim() == 0 else \
            _native.empty(0, dtype=value.dtype)
    return value


def result_type(tensor, other):
    """`gradrs.result_type(tensor, other)`: the dtype `tensor + other` would have (either may be
    a Python number).

    Examples:
        >>> gradrs.result_type(gradrs.tensor([1, 2]), 1.5)
        gradrs.float32
    """
    a, b = _probe(tensor), _probe(other)
    if not isinstance(a, Tensor) and not isinstance(b, Tensor):
        a = _native.tensor(a)  # two numbers: the first as a 0-dim tensor of its default dtype
    return (a + b).dtype


def promote_types(type1, type2):
    """`gradrs.promote_types(type1, type2)`: the smallest dtype both cast to without losing
    their category.

    Examples:
        >>> gradrs.promote_types(gradrs.int32, gradrs.float32)
        gradrs.float32
    """
    return (_native.empty(0, dtype=type1) + _native.empty(0, dtype=type2)).dtype


def _category(dtype):
    if dtype == _native.bool:
        return 0
    return 2 if dtype.is_floating_point else 1


def can_cast(from_, to):
    """`gradrs.can_cast(from_, to)`: whether PyTorch's casting rules allow `from_` to `to`: no
    cast to a lower category (float to integer, anything but bool to bool).

    Examples:
        >>> gradrs.can_cast(gradrs.float32, gradrs.int64), gradrs.can_cast(gradrs.int64, gradrs.float32)
        (False, True)
    """
    return _category(from_) <= _category(to)


# ---- layouts: gradrs has only the strided one ---------------------------------------------------

class layout:
    """`gradrs.layout`: the memory layout of a tensor; `gradrs.strided` is its only instance."""

    __slots__ = ("_name",)

    def __new__(cls, *args, **kwargs):
        raise TypeError("cannot create 'gradrs.layout' instances")

    def __repr__(self):
        return f"gradrs.{self._name}"

    def __reduce__(self):
        return self._name  # pickled as the module global `gradrs.strided`


layout.__module__ = "gradrs"
strided = object.__new__(layout)
object.__setattr__(strided, "_name", "strided")
Tensor.layout = property(lambda self: strided, doc="Always `gradrs.strided`.")


