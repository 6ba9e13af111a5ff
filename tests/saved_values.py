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


def difference(gf, tf):
    """None when `gf` shows what `tf` shows, else a short description of the first difference."""
    gn, tn = saved_names(gf), saved_names(tf)
    if gn != tn:
        return f"names: gradrs {gn}, torch {tn}"
    for attr in tn:
        if attr.endswith("_sym_strides") and 0 in getattr(tf, attr[:-7] + "sizes"):
            continue  # an empty operand: PyTorch shows zeros, gradrs its strides
        gv, tv = value(getattr(gf, attr)), value(getattr(tf, attr))
        if not same(gv, tv):
            return f"{attr}: gradrs {gv!r:.80}, torch {tv!r:.80}"
    raw = sorted(a for a in dir(tf) if a.startswith("_raw_saved_"))
    if sorted(a for a in dir(gf) if a.startswith("_raw_saved_")) != raw:
        return "_raw_saved_ names differ"
    return None


def same_named_nodes(g_outs, t_outs):
    """(name, gradrs node, torch node) for each output pair whose grad_fn is the same node
    type; outputs composed differently (another node) have nothing to compare by name."""
    for g, t in zip(g_outs, t_outs):
        gf, tf = getattr(g, "grad_fn", None), getattr(t, "grad_fn", None)
        if gf is not None and tf is not None and type(gf).__name__ == type(tf).__name__:
            yield type(gf).__name__, gf, tf
