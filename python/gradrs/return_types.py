"""Named tuples returned by ops such as `max(dim)`: `gradrs.return_types.max(values, indices)`,
printed as PyTorch prints `torch.return_types.max(...)`."""

from collections import namedtuple


def _make_type(name, fields=("values", "indices")):
    base = namedtuple(name, fields)  # noqa: PYI024 - built per name at runtime

    class _T(base):
        __slots__ = ()

        def __repr__(self):
            inner = ",\n".join(f"{f}={getattr(self, f)!r}" for f in fields)
            return f"gradrs.return_types.{name}(\n{inner})"

    _T.__name__ = _T.__qualname__ = name
    _T.__module__ = "gradrs.return_types"
    return _T


max = _make_type("max")
min = _make_type("min")
# What max/min(dim, out=(values, indices)) return.
max_out = _make_type("max_out")
min_out = _make_type("min_out")
sort_out = _make_type("sort_out")
topk_out = _make_type("topk_out")
kthvalue_out = _make_type("kthvalue_out")
median_out = _make_type("median_out")
sort = _make_type("sort")
topk = _make_type("topk")
kthvalue = _make_type("kthvalue")
median = _make_type("median")
mode = _make_type("mode")
cummax = _make_type("cummax")
cummin = _make_type("cummin")


# <generated: declared ops> (tools/gen_ops.py writes this block)
aminmax = _make_type("aminmax", ("min", "max"))
aminmax_out = _make_type("aminmax_out", ("min", "max"))
# </generated: declared ops>


def _make(name, *outputs):
    return globals()[name](*outputs)
