"""``finfo`` / ``iinfo``: the numeric limits of a dtype, as PyTorch's (values from numpy)."""

import numpy as np

_FLOATS = {"float16": np.float16, "float32": np.float32, "float64": np.float64}
_INTS = {"uint8": np.uint8, "int8": np.int8, "int16": np.int16, "int32": np.int32,
         "int64": np.int64}
# numpy has no bfloat16: its limits, as PyTorch reports them (8 significand bits, float32's
# exponent range; resolution 10 ** -2, numpy's `precision` rule for 8 bits).
_BFLOAT16 = {"bits": 16, "eps": 2.0 ** -7, "max": float.fromhex("0x1.fep127"),
             "smallest_normal": 2.0 ** -126, "resolution": 0.01}


def _name(dtype):
    return str(dtype)[len("gradrs."):]


class finfo:
    """Limits of a floating point dtype (``gradrs.finfo(gradrs.float16).max``).

    Examples:
        >>> gradrs.finfo(gradrs.float32).eps
        1.1920928955078125e-07
        >>> gradrs.finfo(gradrs.float16).max
        65504.0
    """

    def __init__(self, type=None):
        name = _name(type) if type is not None else "float32"  # the default dtype
        if name == "bfloat16":
            b = _BFLOAT16
            self.bits, self.eps, self.max, self.min = b["bits"], b["eps"], b["max"], -b["max"]
            self.tiny = self.smallest_normal = b["smallest_normal"]
            self.resolution, self.dtype = b["resolution"], name
            return
        if name not in _FLOATS:
            raise TypeError("gradrs.finfo() requires a floating point input type. Use "
                            "gradrs.iinfo to handle 'gradrs.finfo'")
        f = np.finfo(_FLOATS[name])
        self.bits = int(f.bits)
        self.eps = float(f.eps)
        self.max = float(f.max)
        self.min = float(f.min)
        self.tiny = self.smallest_normal = float(f.smallest_normal)
        self.resolution = 10.0 ** -f.precision  # as a double, not in the dtype (numpy)
        self.dtype = name

    def __eq__(self, other):
        return isinstance(other, finfo) and other.dtype == self.dtype

    def __hash__(self):
        return hash(("finfo", self.dtype))

    def __repr__(self):
        return (f"finfo(resolution={self.resolution:g}, min={self.min:g}, max={self.max:g}, "
                f"eps={self.eps:g}, smallest_normal={self.smallest_normal:g}, "
                f"tiny={self.tiny:g}, dtype={self.dtype})")


class iinfo:
    """Limits of an integer dtype (``gradrs.iinfo(gradrs.int32).max``).

    Examples:
        >>> gradrs.iinfo(gradrs.int32).max
        2147483647
    """

    def __init__(self, type):
        name = _name(type)
        if name == "bool":
            raise TypeError("gradrs.bool is not supported by gradrs.iinfo")
        if name not in _INTS:
            raise TypeError("gradrs.iinfo() requires an integer input type. Use gradrs.finfo "
                            "to handle 'gradrs.iinfo'")
        i = np.iinfo(_INTS[name])
        self.bits, self.max, self.min, self.dtype = int(i.bits), int(i.max), int(i.min), name

    def __eq__(self, other):
        return isinstance(other, iinfo) and other.dtype == self.dtype

    def __hash__(self):
        return hash(("iinfo", self.dtype))

    def __repr__(self):
        return f"iinfo(min={self.min:g}, max={self.max:g}, dtype={self.dtype})"
