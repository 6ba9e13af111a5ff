"""Render tensors as text, character for character the way PyTorch's ``repr`` does.

This module only needs numpy and the standard library so that importing ``gradrs``
stays cheap.  The caller hands over the tensor's elements as a numpy array plus a
few pieces of metadata (dtype name, device, autograd state) and gets back the exact
string PyTorch would print, with ``gradrs`` in place of ``torch``.

The layout rules, summarised:

* Elements of one tensor share a single width, decided by one formatter that looks
  at every element that will be shown (only the edges when the tensor is summarised).
* Floating tensors print in one of three styles: "integer" (``2.``) when every finite
  non-zero value is integral, fixed point with ``precision`` decimals, or scientific
  when the magnitudes span too much (max/min > 1e3, max > 1e8 or min < 1e-4), unless
  ``sci_mode`` forces the choice.
* Rows wrap at ``linewidth``; tensors with more than ``threshold`` elements show
  only ``edgeitems`` entries at each end of every dimension, with ``...`` between.
* Keyword suffixes follow the body in this order: device, size (empty tensors, or
  when ``edgeitems`` is 0), dtype (when not implied), then grad_fn / requires_grad.
"""

from __future__ import annotations

import math
from contextlib import contextmanager

import numpy as np

__all__ = ["format_tensor", "get_printoptions", "printoptions", "set_printoptions"]

_MODULE_NAME = "gradrs"
# Suffix wrapping is decided with the length PyTorch's own text would have
# ("dtype=torch.float64"), so that the output is PyTorch's repr with only the module
# name substituted: same line breaks, even though "gradrs" is one character longer.
_LAYOUT_LENGTH_DELTA = len("torch") - len(_MODULE_NAME)
# Non-empty tensors of these dtypes and of the default float dtype (which never needs a
# ``dtype=`` suffix) never show ``dtype=``: their elements make the type obvious (``2.`` is a
# float, ``2`` an int64, ``True`` a bool).
_IMPLIED_DTYPES = frozenset({"int64", "bool"})

_NUMPY_DTYPES = {
    "float16": np.float16,
    "float32": np.float32,
    "float64": np.float64,
    "int8": np.int8,
    "int16": np.int16,
    "int32": np.int32,
    "int64": np.int64,
    "uint8": np.uint8,
    "bool": np.bool_,
}


# --------------------------------------------------------------------------- options


class _Options:
    """The live print settings (one shared instance, like PyTorch's PRINT_OPTS)."""

    _ORDER = ("precision", "threshold", "edgeitems", "linewidth", "sci_mode")
    __slots__ = _ORDER

    def __init__(self) -> None:
        self.precision = 4
        self.threshold = 1000
        self.edgeitems = 3
        self.linewidth = 80
        self.sci_mode = None

    def as_dict(self) -> dict:
        return {name: getattr(self, name) for name in self._ORDER}


_PROFILES = {
    "default": {"precision": 4, "threshold": 1000, "edgeitems": 3, "linewidth": 80},
    "short": {"precision": 2, "threshold": 1000, "edgeitems": 2, "linewidth": 80},
    "full": {"precision": 4, "threshold": math.inf, "edgeitems": 3, "linewidth": 80},
}

_OPTS = _Options()


def set_printoptions(
    precision=None,
    threshold=None,
    edgeitems=None,
    linewidth=None,
    profile=None,
    sci_mode=None,
) -> None:
    """Change how tensors print; same meaning as ``torch.set_printoptions``.

    ``profile`` ("default", "short" or "full") is applied first and the explicit
    arguments override it.  As in PyTorch, ``sci_mode`` is always assigned, so any
    call that omits it returns to automatic choice of scientific notation.

    Examples:
        >>> gradrs.set_printoptions(precision=2)
        >>> gradrs.tensor([1.23456])
        tensor([1.23])
        >>> gradrs.set_printoptions(profile='default')
    """
    preset = _PROFILES.get(profile) if profile is not None else None
    if preset is not None:
        for name, value in preset.items():
            setattr(_OPTS, name, value)
    for name, value in (
        ("precision", precision),
        ("threshold", threshold),
        ("edgeitems", edgeitems),
        ("linewidth", linewidth),
    ):
        if value is not None:
            setattr(_OPTS, name, value)
    _OPTS.sci_mode = sci_mode


def get_printoptions() -> dict:
    """The current settings, as keyword arguments accepted by ``set_printoptions``.

    Examples:
        >>> gradrs.get_printoptions()['precision']
        4
    """
    return _OPTS.as_dict()


@contextmanager
def printoptions(**kwargs):
    """Temporarily change the print options inside a ``with`` block."""
    saved = get_printoptions()
    set_printoptions(**kwargs)
    try:
        yield
    finally:
        set_printoptions(**saved)


# ------------------------------------------------------------------- element format


def _is_floating(dtype: str) -> bool:
    return dtype.startswith(("float", "bfloat"))


class _ElementStyle:
    """Chooses one textual style and one column width for all elements of a tensor.

    ``sample`` holds exactly the elements that will be displayed (the summarised
    edges when the tensor is large).
    """

    def __init__(self, sample: np.ndarray, floating: bool, opts: _Options) -> None:
        self.floating = floating
        self.precision = opts.precision
        self.int_mode = True
        self.sci_mode = False
        self.width = 1

        flat = sample.reshape(-1)
        if not floating:
            if flat.size:
                # str() length is largest at one of the extremes (most negative or
                # largest value; "False" sorts below "True").
                for extreme in (flat.min(), flat.max()):
                    self.width = max(self.width, len(str(extreme.item())))
            return

        wanted = flat[np.isfinite(flat) & (flat != 0)]
        if wanted.size == 0:
            # Only zeros, nans and infs: keep the integer style with width 1,
            # whatever sci_mode says.
            return

        self.int_mode = bool(np.all(wanted == np.ceil(wanted)))
        magnitudes = np.abs(wanted).astype(np.float64)
        smallest = float(magnitudes.min())
        largest = float(magnitudes.max())
        if opts.sci_mode is None:
            self.sci_mode = largest / smallest > 1000.0 or largest > 1.0e8 or smallest < 1.0e-4
        else:
            self.sci_mode = bool(opts.sci_mode)

        # The printed length grows with the magnitude in fixed-point style; in
        # scientific style it only depends on the sign and on whether the exponent
        # needs three digits, which happens at the magnitude extremes.  So the
        # widest string comes from the smallest / largest value of either sign.
        candidates = []
        positives = wanted[wanted > 0]
        negatives = wanted[wanted < 0]
        if positives.size:
            candidates += [positives.min().item(), positives.max().item()]
        if negatives.size:
            candidates += [negatives.min().item(), negatives.max().item()]

        if self.sci_mode:
            spec = f".{self.precision}e"
            extra = 0
        elif self.int_mode:
            spec = ".0f"
            extra = 1  # the trailing "." that marks a float
        else:
            spec = f".{self.precision}f"
            extra = 0
        for value in candidates:
            self.width = max(self.width, len(format(value, spec)) + extra)

    def render(self, value) -> str:
        if not self.floating:
            text = f"{value}"
        elif self.sci_mode:
            text = format(value, f"{self.width}.{self.precision}e")
        elif self.int_mode:
            text = format(value, ".0f")
            if math.isfinite(value):
                text += "."
        else:
            text = format(value, f".{self.precision}f")
        return text.rjust(self.width)


# ------------------------------------------------------------------------- layout


def _edge_sample(arr: np.ndarray, edge: int) -> np.ndarray:
    """The elements a summarised print shows: along every axis longer than
    ``2 * edge``, only the first and last ``edge`` entries are kept."""
    if arr.ndim == 0 or edge <= 0:
        return arr
    for axis, size in enumerate(arr.shape):
        if size > 2 * edge:
            keep = np.r_[0:edge, size - edge : size]
            arr = np.take(arr, keep, axis=axis)
    return arr


def _render_row(arr, indent, summarize, style, opts) -> str:
    """A 1-d tensor: comma separated elements, wrapped to the line width."""
    edge = opts.edgeitems
    length = arr.shape[0]
    if summarize and not edge:
        cells = ["..."]
    elif summarize and length > 2 * edge:
        cells = [style.render(v) for v in arr[:edge].tolist()]
        cells.append(" ...")
        cells += [style.render(v) for v in arr[length - edge :].tolist()]
    else:
        cells = [style.render(v) for v in arr.tolist()]

    per_line = max(1, math.floor((opts.linewidth - indent) / (style.width + 2)))
    lines = [", ".join(cells[at : at + per_line]) for at in range(0, len(cells), per_line)]
    return "[" + (",\n" + " " * (indent + 1)).join(lines) + "]"


def _render_block(arr, indent, summarize, style, opts) -> str:
    """Any tensor: nests brackets, one blank line fewer per level going inwards."""
    if arr.ndim == 0:
        return style.render(arr.item())
    if arr.ndim == 1:
        return _render_row(arr, indent, summarize, style, opts)

    edge = opts.edgeitems
    length = arr.shape[0]
    if summarize and length > 2 * edge:
        parts = [_render_block(arr[i], indent + 1, summarize, style, opts) for i in range(edge)]
        parts.append("...")
        parts += [
            _render_block(arr[i], indent + 1, summarize, style, opts)
            for i in range(length - edge, length)
        ]
    else:
        parts = [_render_block(sub, indent + 1, summarize, style, opts) for sub in arr]
    glue = "," + "\n" * (arr.ndim - 1) + " " * (indent + 1)
    return "[" + glue.join(parts) + "]"


def _render_body(arr: np.ndarray, floating: bool, indent: int, opts: _Options) -> str:
    if arr.size == 0:
        return "[]"
    summarize = arr.size > opts.threshold
    sample = _edge_sample(arr, opts.edgeitems) if summarize else arr
    style = _ElementStyle(sample, floating, opts)
    return _render_block(arr, indent, summarize, style, opts)


def _attach_suffixes(text: str, suffixes, indent: int, linewidth) -> str:
    """Append ``, key=value`` items, moving one to a new line when it would overflow.

    ``suffixes`` holds ``(text, layout_length)`` pairs.  The starting column is
    computed exactly as PyTorch does (including its off-by-two when the text has
    no newline), since that decides the wrapping.
    """
    pieces = [text]
    column = len(text) - text.rfind("\n") + 1
    for suffix, length in suffixes:
        if column + length + 2 > linewidth:
            pieces.append(",\n" + " " * indent + suffix)
            column = indent + length
        else:
            pieces.append(", " + suffix)
            column += length + 2
    pieces.append(")")
    return "".join(pieces)


def _shape_text(shape) -> str:
    return str(tuple(int(n) for n in shape))


def format_tensor(
    values,
    *,
    dtype: str,
    device: str = "cpu",
    requires_grad: bool = False,
    grad_fn_name: str | None = None,
    is_leaf: bool = True,
    shape=None,
    default_dtype: str = "float32",
    tangent: str | None = None,
    name: str = "tensor",
    contents: str | None = None,
) -> str:
    """Return what PyTorch's ``repr`` prints for a tensor with these elements.

    ``values`` is a numpy array of the elements (reshaped to ``shape`` when given);
    ``dtype`` is a dtype name such as ``"float32"``; ``device`` is printed as
    ``device='...'`` unless it is the CPU.  A ``grad_fn_name`` produces
    ``grad_fn=<Name>``; otherwise ``requires_grad`` produces ``requires_grad=True``.
    ``is_leaf`` is accepted for symmetry with the tensor API; a non-leaf tensor is
    identified by its ``grad_fn_name``. ``default_dtype`` names the default float dtype
    (``set_default_dtype``), whose tensors print no ``dtype=``. ``tangent`` (a tensor's
    repr) produces ``tangent=...`` (forward AD's dual tensors). ``name``: what the repr
    opens with (a Tensor subclass's name, as PyTorch prints ``MySub([1., 2.])``).
    ``contents``: text printed in place of the elements (``Tensor.__repr__``'s
    ``tensor_contents``); the suffixes are still those of the tensor.
    """
    del is_leaf  # the grad_fn decides; kept in the signature for callers
    arr = np.asarray(values)
    np_dtype = _NUMPY_DTYPES.get(dtype)
    if np_dtype is not None and arr.dtype != np_dtype:
        arr = arr.astype(np_dtype)
    if shape is not None:
        arr = arr.reshape(tuple(shape))

    opts = _OPTS
    prefix = f"{name}("
    indent = len(prefix)
    suffixes = []  # (text, length used for wrapping)

    def add(text: str, layout_length: int | None = None) -> None:
        suffixes.append((text, len(text) if layout_length is None else layout_length))

    def add_dtype() -> None:
        text = f"dtype={_MODULE_NAME}.{dtype}"
        add(text, len(text) + _LAYOUT_LENGTH_DELTA)

    if str(device).split(":", 1)[0] != "cpu":
        add(f"device='{device}'")

    if arr.size == 0:
        # NumPy-like: the shape is shown unless it is (0,), and the dtype cannot be
        # guessed from elements, so anything but the default float dtype is named.
        if arr.ndim != 1:
            add("size=" + _shape_text(arr.shape))
        if dtype != default_dtype:
            add_dtype()
        body = "[]" if contents is None else contents
    else:
        if not opts.edgeitems:
            add("size=" + _shape_text(arr.shape))
        if dtype not in _IMPLIED_DTYPES and dtype != default_dtype:
            add_dtype()
        body = (_render_body(arr, _is_floating(dtype), indent, opts) if contents is None
                else contents)

    if grad_fn_name is not None:
        add(f"grad_fn=<{grad_fn_name}>")
    elif requires_grad:
        add("requires_grad=True")
    if tangent is not None:
        add(f"tangent={tangent}")

    return _attach_suffixes(prefix + body, suffixes, indent, opts.linewidth)
