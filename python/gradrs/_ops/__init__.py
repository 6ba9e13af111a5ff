"""Issue 24's compositions of PyTorch's API from gradrs ops, one module per family; each
public name is re-exported here statically and star-imported into `gradrs`, and each module sets
its Tensor methods when imported (in the order below: later ones read methods earlier ones set).

An op PyTorch gives a node of its own (``AddmvBackward0``, ``TakeBackward0``...) is computed
without recording and gets one node of that name (`_common._node`) whose backward is
derivatives.yaml's formula in gradrs ops, so second derivatives and every device come from
those ops. An in-place form writes the result into `self` and gives `self` that node.

- `aliases.py`: aliases of existing ops, `rsub`, `fill`, functional forms of in-place methods
- `shapes.py`: splits and stacks, the `*_copy` view forms and unsafe splits, `unravel_index`,
  `diff`, `rot90`, `triu_indices` / `tril_indices`, `iter(tensor)`
- `factories.py`: `new_*`, the window functions, `scalar_tensor`, `vander`
- `introspection.py`: `is_*` predicates, `get_device`, `typename`, the `sym_*` helpers, the
  type promotion queries (`result_type`, `promote_types`, `can_cast`), `layout` / `strided`
- `products.py`: `inner`, `vdot`, `addmv` / `addr` / `baddbmm` / `addbmm`, `outer`, `kron`
- `indexing.py`: diagonals, `take` / `put`, `index_copy`, `masked_scatter`, `*_scatter`,
  `index_fill`, `repeat_interleave`
- `pointwise.py`: `float_power`, `sgn`, `gcd` / `lcm`, shifts and bitwise ops, `frexp`, `ldexp`
- `statistics.py`: `logcumsumexp`, `cov`, `histc` / `histogram`, `nanmedian`, `renorm`, norms,
  `count_nonzero`
- `control.py`: `cond`, run eagerly with PyTorch's checks and node
- `predicates.py`: the NaN / inf tests (`isnan`, `isfinite`...) and `isclose` / `allclose`
- `sorting.py`: `cummax` / `cummin` / `mode` and `searchsorted` / `bucketize`, positions found
  on the host
- `legacy.py`: Tensor methods PyTorch keeps only to refuse (removed since 1.9) or alias
- `_common.py`: `_node`, `_forward_tangent`, `_reduce_to`, the in-place writers
"""

from .aliases import (
    greater, greater_equal, less, less_equal, not_equal, positive, ravel, swapaxes, swapdims,
    tile, broadcast_to, rsub, fill, negative_, square_, zero_, fill_, detach_,
)
from .shapes import (
    column_stack, dsplit, dstack, hsplit, hstack, row_stack, split_with_sizes, tensor_split,
    vsplit, vstack, unravel_index, alias_copy, diagonal_copy, expand_copy, permute_copy,
    select_copy, slice_copy, split_copy, split_with_sizes_copy, squeeze_copy, t_copy,
    transpose_copy, unbind_copy, unsqueeze_copy, view_copy, narrow_copy, unsafe_split,
    unsafe_chunk, unsafe_split_with_sizes, unfold_copy, detach_copy, as_strided_copy, diff, rot90,
    triu_indices, tril_indices, slice_inverse,
)
from .factories import (
    vander, scalar_tensor, hamming_window, hann_window, bartlett_window, blackman_window,
    kaiser_window, empty_permuted,
)
from .introspection import (
    is_complex, is_floating_point, is_nonzero, is_same_size, is_signed, get_device, typename,
    is_distributed, sym_not, sym_float, sym_int, sym_max, sym_min, sym_sum, sym_sqrt, sym_ite,
    result_type, promote_types, can_cast, layout, strided,
)
from .products import (
    addbmm, addmv, addr, baddbmm, inner, vdot, kron, addmv_,
)
from .indexing import (
    diag, diag_embed, diagflat, index_copy, masked_scatter, take, put, argwhere,
    diagonal_scatter, select_scatter, slice_scatter, nonzero_static, index_fill, repeat_interleave,
)
from .pointwise import (
    float_power, sgn, signbit, fmin, gcd, lcm, bitwise_left_shift, bitwise_right_shift,
    bitwise_and, bitwise_or, bitwise_xor, bitwise_not, isin, frexp, ldexp, ldexp_, gcd_, lcm_,
    round_, nan_to_num_, angle,
)
from .statistics import (
    corrcoef, cov, logcumsumexp, histc, nanmedian, renorm, histogram, histogramdd, frobenius_norm,
    nuclear_norm, norm_except_dim, gradient, count_nonzero,
)
from .control import cond
from .predicates import isnan, isinf, isposinf, isneginf, isfinite, isreal, isclose, allclose
from .sorting import cummax, cummin, mode, searchsorted, bucketize
from . import legacy  # noqa: F401 - its Tensor methods

__all__ = [
    "addbmm", "addmv", "addr", "baddbmm", "column_stack", "corrcoef", "cov", "diag",
    "diag_embed", "diagflat", "dsplit", "dstack", "float_power", "greater", "greater_equal",
    "hsplit", "hstack", "index_copy", "inner", "is_complex", "is_floating_point", "is_nonzero",
    "is_same_size", "is_signed", "less", "less_equal", "logcumsumexp", "masked_scatter",
    "not_equal", "positive", "ravel", "row_stack", "sgn", "signbit", "split_with_sizes",
    "swapaxes", "swapdims", "take", "tensor_split", "tile", "broadcast_to", "vdot", "vsplit",
    "vstack", "rsub", "fill", "fmin", "gcd", "lcm", "bitwise_left_shift",
    "bitwise_right_shift", "bitwise_and", "bitwise_or", "bitwise_xor", "bitwise_not", "isin",
    "histc", "get_device", "nanmedian", "negative_", "square_", "zero_", "fill_", "detach_",
    "put", "argwhere", "kron", "frexp", "renorm", "histogram", "ldexp", "addmv_", "ldexp_",
    "gcd_", "lcm_", "round_", "nan_to_num_", "unravel_index", "vander", "angle",
    "diagonal_scatter", "select_scatter", "slice_scatter", "scalar_tensor", "typename",
    "hamming_window", "hann_window", "bartlett_window", "blackman_window", "kaiser_window",
    "alias_copy", "diagonal_copy", "expand_copy", "permute_copy", "select_copy", "slice_copy",
    "split_copy", "split_with_sizes_copy", "squeeze_copy", "t_copy", "transpose_copy",
    "unbind_copy", "unsqueeze_copy", "view_copy", "narrow_copy", "unsafe_split",
    "unsafe_chunk", "unsafe_split_with_sizes", "nonzero_static", "is_distributed",
    "frobenius_norm", "nuclear_norm", "norm_except_dim", "unfold_copy", "sym_not", "sym_float",
    "sym_int", "sym_max", "sym_min", "sym_sum", "sym_sqrt", "sym_ite", "gradient",
    "detach_copy", "empty_permuted", "cond", "histogramdd", "as_strided_copy", "diff", "rot90",
    "triu_indices", "tril_indices", "result_type", "promote_types", "can_cast", "layout",
    "strided", "index_fill", "repeat_interleave", "count_nonzero", "isnan", "isinf", "isposinf",
    "isneginf", "isfinite", "isreal", "isclose", "allclose", "cummax", "cummin", "mode",
    "searchsorted", "bucketize",
    "slice_inverse",
]
