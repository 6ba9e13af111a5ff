"""How a backward node's `_saved_<name>` attributes are compared with PyTorch's: shared by
tests/test_graph_attrs.py and tools/saved_attrs.py."""

import numpy as np


def saved_names(fn):
    return sorted(a for a in dir(fn) if a.startswith("_saved_"))


def value(v):
    """A saved value in comparable form."""
    if isinstance(v, (tuple, list)):
        return tuple(value(x) for x in v)
    if hasattr(v, "detach") and hasattr(v, "tolist"):
        return ("tensor", tuple(v.shape), np.asarray(v.detach().tolist(), dtype=np.float64))
    return v


def same(a, b):
    if isinstance(a, tuple) and a and a[0] == "tensor":
        return (isinstance(b, tuple) and b and b[0] == "tensor" and a[1] == b[1]
                and np.allclose(a[2], b[2], rtol=1e-5, atol=1e-6, equal_nan=True))
    if isinstance(a, tuple):
        return isinstance(b, tuple) and len(a) == len(b) and all(map(same, a, b))
    if isinstance(a, float) or isinstance(b, float):
        return isinstance(b, (int, float)) and bool(np.isclose(a, b))
    return a == b and type(a) is type(b)
