"""Every op of ``tests/op_table.py`` (one ``OpInfo`` entry each) checked sample by sample.

For each (entry, sample) and each device of ``DEVICES``:

* ``test_forward``      values, dtype and shape against PyTorch (each element of a tuple or list);
* ``test_autograd_meta`` ``requires_grad`` / ``is_leaf`` / ``grad_fn`` class of the outputs;
* ``test_grad``         ``out.backward(grad)`` with a fixed random ``grad``: every input's
                        ``.grad`` (``None`` included) against PyTorch;
* ``test_gradgrad``     first derivatives with ``create_graph=True``, then the backward of
                        ``sum(g * v)`` for fixed random ``v``: against PyTorch;
* ``test_fd_grad`` / ``test_fd_gradgrad``  float64 finite differences of the first and second
                        derivatives (no PyTorch), with ``numerical_jacobian`` and
                        ``first_derivative`` from ``test_gradcheck.py``;
* ``test_variant``      the other spellings (method, operator, ...): forward and gradients;
* ``test_error``        the entry's error cases: same exception type and message as PyTorch.

The reference always runs on PyTorch's CPU; the module under test runs on each device of
``DEVICES`` (inputs get ``device=...`` only off the CPU, so today's path is the plain one).

Known differences between gradrs and PyTorch are listed in ``KNOWN`` below and run as strict
xfails (only against gradrs; under GRADRS_TEST_SELFTEST=1 everything must pass).  When one is
fixed its test XPASSes, which fails: delete its ``KNOWN`` line.
"""

from __future__ import annotations

import numpy as np
import pytest
from conftest import SELFTEST, G, assert_same_error, assert_same_values, dtype_name, node_name
from op_table import OPS, T, as_outputs, device_kwargs, make_args, seed_of, tensor_data
from test_gradcheck import first_derivative, numerical_jacobian

pytestmark = pytest.mark.usefixtures("restore_grad_mode")

# Devices the module under test is run on; a GPU backend appends "gpu" here.
DEVICES = ["cpu"]

# (test kind, "op/sample id") -> reason: strict xfails against gradrs (see the module doc).
# Kinds: forward, meta, grad, gradgrad, variant ("op/variant/sample"), error ("op/case"),
# fd_grad, fd_gradgrad.
KNOWN: dict = {}


def _known(reason, *keys):
    for key in keys:
        kind, _, pid = key.partition(" ")
        assert (kind, pid) not in KNOWN, key
        KNOWN[(kind, pid)] = reason


_RELU_SAMPLES = ["f32_2x3", "f64_2x3", "f32_0d", "f64_0d", "f32_0", "f32_2x0", "f32_2x3_T",
                 "f32_2x3_from3", "f64_2x1x3", "f32_3_data"]
_known(
    "relu double backward: with create_graph=True PyTorch's first derivative requires grad "
    "(grad_fn ThresholdBackwardBackward0, derivative zero), so x.grad becomes zeros after the "
    "second backward; gradrs's first derivative has requires_grad=False and x.grad stays None",
    *[f"gradgrad relu/{s}" for s in _RELU_SAMPLES],
)
_known(
    "pow(float32 base, float64 exponent): the exponent's gradient result*log(base) is computed "
    "by PyTorch after promoting base to float64; gradrs takes log(base) in float32 "
    "(relative error ~2e-8 in a float64 gradient)",
    "grad pow/f32_2x3__f64_3", "gradgrad pow/f32_2x3__f64_3",
    "variant pow/operator/f32_2x3__f64_3", "variant pow/method/f32_2x3__f64_3",
)
_known(
    "div(float64, float32 0-dim): second derivative wrt the float64 input; PyTorch computes "
    "the divisor's square in float64, gradrs in float32 (relative error ~4e-8)",
    "gradgrad div/f64_2x3__f32_0d",
)
_known(
    "div by zero, second derivative wrt the divisor at x=-1, y=0: PyTorch -inf, gradrs nan "
    "(x=1 and x=0 give nan in both)",
    "gradgrad div/f32_3_data__f32_3_data",
)
_known(
    "pow(0.0, y) (Python scalar base 0): PyTorch's exponent gradient is 0 where base == 0 "
    "(masked like the tensor-tensor case); gradrs gives [inf, nan, nan] for y=[0, 2, 1.5]",
    "grad pow/0.0__f32_3_data", "gradgrad pow/0.0__f32_3_data",
    "variant pow/operator/0.0__f32_3_data",
)
_known(
    "pow(tensor 0**y) second derivative wrt the exponent at base 0, y=2: PyTorch nan "
    "(0 * log(0) through its masked where), gradrs 0",
    "gradgrad pow/f32_3_data__f32_3_data",
)
_known(
    "int64 tensor ** int64 tensor with a negative exponent element: PyTorch computes it "
    "(1**-2 = 1, 2**-2 = 0); gradrs raises 'Integers to negative integer powers are not "
    "allowed.' (PyTorch raises that only for a Python-scalar exponent)",
    "forward pow/i64_2x3__i64_3_data", "variant pow/operator/i64_2x3__i64_3_data",
    "variant pow/method/i64_2x3__i64_3_data",
)
_known(
    "squeeze with a tuple of dims (PyTorch >= 2.0): gradrs raises TypeError "
    "\"'tuple' object cannot be interpreted as an integer\"",
    *[f"{k} squeeze/f32_1x3x1__(0,2)"
      for k in ("forward", "meta", "grad", "gradgrad", "fd_grad", "fd_gradgrad")],
    "variant squeeze/method/f32_1x3x1__(0,2)",
)
_known("relu of a bool tensor: PyTorch raises RuntimeError 'Boolean inputs not supported for "
       "relu'; gradrs returns the bool tensor", "error relu/bool")
_known("abs of a bool tensor: PyTorch raises NotImplementedError '\"abs_cpu\" not implemented "
       "for 'Bool''; gradrs returns the bool tensor", "error abs/bool")
_known("bool tensor - float tensor (either order): PyTorch raises RuntimeError 'Subtraction, "
       "the `-` operator, with a bool tensor is not supported. ...'; gradrs computes it",
       "error sub/bool_float", "error sub/float_bool")
_known("bool ** bool: PyTorch raises NotImplementedError '\"pow\" not implemented for "
       "'Bool''; gradrs returns a bool tensor", "error pow/bool_bool")
_known("matmul / dot of 1-D bool tensors: PyTorch raises NotImplementedError '\"dot\" not "
       "implemented for 'Bool''; gradrs returns a bool", "error matmul/bool_1d", "error dot/bool")
_known("matmul of 2-D bool tensors: PyTorch raises NotImplementedError '\"addmm_impl_cpu_\" "
       "not implemented for 'Bool''; gradrs returns a bool tensor", "error matmul/bool_2d")
_known("matmul/mm dtype mismatch: gradrs prefixes the message with 'mm: ' (PyTorch: "
       "'expected m1 and m2 to have the same dtype, but got: float != double')",
       "error matmul/dtype_mismatch_2d", "error mm/dtype_mismatch", "error mm/int_float")
_known("bmm dtype mismatch: PyTorch 'expected scalar type Float but found Double'; gradrs "
       "'bmm: expected m1 and m2 to have the same dtype, but got: float != double'",
       "error bmm/dtype_mismatch")
_known("mv dtype mismatch: PyTorch 'addmv input tensors must have the same dtype, but got "
       "Double, Float, and Double'; gradrs 'mv: expected m1 and m2 to have the same dtype, "
       "but got: float != double'", "error mv/dtype_mismatch")
_known("reshape of a 0-element tensor to (-1, 0): PyTorch 'cannot reshape tensor of 0 elements "
       "into shape [-1, 0] because the unspecified dimension size -1 can be any value and is "
       "ambiguous'; gradrs \"shape '[-1, 0]' is invalid for input of size 0\"",
       "error reshape/inferred_from_empty")

# ---- element-wise math, activations, reductions, shape and indexing ops ------------------
_known(
    'clamp / clamp_max of a bool tensor with int bounds: PyTorch promotes to int64 '
    '(clamp(tensor([True, False]), 0, 1) -> tensor([1, 0])); gradrs raises RuntimeError: '
    '"clamp_scalar_cpu" not implemented for \'Bool\'',
    'forward clamp/b_2x3__0__1', 'forward clamp_max/b_2x3__0', 'variant clamp/method/b_2x3__0__1',
    'variant clamp/clip/b_2x3__0__1', 'variant clamp/clip_method/b_2x3__0__1',
    'variant clamp_max/method/b_2x3__0',
)
_known(
    'addcmul of int64 tensors with value=0.5: PyTorch returns int64 (the value truncated to '
    '0: the input unchanged), gradrs returns float32 input + 0.5 * t1 * t2',
    'forward addcmul/i64_2x3__i64_2x3__i64_3__value=0.5',
    'variant addcmul/method/i64_2x3__i64_2x3__i64_3__value=0.5',
)
_known(
    'empty views whose storage offset is past the end of an empty storage panic in gradrs '
    "(PanicException 'range start index 1 out of range for slice of length 0', "
    'backend/cpu/copy.rs, ops::binary::write_into): stack of two (0,) tensors (forward, via '
    'cat) and the backward of select(x, 0, 1) / unbind(x, 0) of a (2, 0) tensor '
    '(slicing::view_scatter); PyTorch returns a (2, 0) result / (2, 0) zero gradients',
    'forward stack/f32_0__f32_0', 'meta stack/f32_0__f32_0', 'grad select/f32_2x0__0__1',
    'grad unbind/f32_2x0__0', 'grad stack/f32_0__f32_0', 'gradgrad select/f32_2x0__0__1',
    'gradgrad unbind/f32_2x0__0', 'gradgrad stack/f32_0__f32_0',
    'variant select/method/f32_2x0__0__1', 'variant unbind/method/f32_2x0__0',
    'variant stack/tuple/f32_0__f32_0',
)
_known(
    'scatter(x, dim, index, value=-1.0) with the value as a keyword: gradrs raises '
    'TypeError "Tensor.scatter() got an unexpected keyword argument \'value\'" (a positional '
    'value works)',
    'forward scatter/f32_2x3__1__i64_2x2_data__value=-1.0',
    'meta scatter/f32_2x3__1__i64_2x2_data__value=-1.0',
    'grad scatter/f32_2x3__1__i64_2x2_data__value=-1.0',
    'gradgrad scatter/f32_2x3__1__i64_2x2_data__value=-1.0',
    'variant scatter/method/f32_2x3__1__i64_2x2_data__value=-1.0',
    'fd_grad scatter/f32_2x3__1__i64_2x2_data__value=-1.0',
    'fd_gradgrad scatter/f32_2x3__1__i64_2x2_data__value=-1.0',
)
_known(
    'index_select(0-dim x, 0, tensor([0])): PyTorch returns a 0-dim tensor, gradrs shape '
    '(1,) (the gradient tests then differ too: the fixed random output gradient depends on '
    'the shape)',
    'forward index_select/f32_0d__0__i64_1_data', 'grad index_select/f32_0d__0__i64_1_data',
    'gradgrad index_select/f32_0d__0__i64_1_data',
    'variant index_select/method/f32_0d__0__i64_1_data',
)
_known(
    'masked_fill(x (3,), mask (2, 3), 0.0): PyTorch broadcasts the input to the mask and '
    "returns shape (2, 3); gradrs raises RuntimeError 'The size of tensor a (3) must match "
    "the size of tensor b (2) at non-singleton dimension 0'",
    'forward masked_fill/f32_3__b_2x3__0.0', 'meta masked_fill/f32_3__b_2x3__0.0',
    'grad masked_fill/f32_3__b_2x3__0.0', 'gradgrad masked_fill/f32_3__b_2x3__0.0',
    'variant masked_fill/method/f32_3__b_2x3__0.0', 'fd_grad masked_fill/f32_3__b_2x3__0.0',
    'fd_gradgrad masked_fill/f32_3__b_2x3__0.0',
)
_known(
    'nonzero(as_tuple=True) of a non-zero 0-dim tensor: PyTorch returns (tensor([0]),) (the '
    'input treated as 1-D), gradrs (tensor([], dtype=int64),)',
    'forward nonzero/f32_0d_data__as_tuple=True',
    'variant nonzero/method/f32_0d_data__as_tuple=True',
)
_known(
    'Tensor.add_ takes no alpha= in gradrs: TypeError "Tensor.add_() got an unexpected '
    'keyword argument \'alpha\'" (PyTorch: in-place a + alpha * b; for int tensors with a '
    "float alpha RuntimeError 'For integral input tensors, argument alpha must not be a "
    "floating point number.')",
    'forward add_/f64_2x3__f64_3__alpha=-0.5', 'forward add_/f32_2x3__f32_0d__alpha=2',
    'forward add_/f32_2x3__1.5__alpha=2', 'forward add_/i64_2x3__i64_3__alpha=3',
    'meta add_/f64_2x3__f64_3__alpha=-0.5', 'meta add_/f32_2x3__f32_0d__alpha=2',
    'meta add_/f32_2x3__1.5__alpha=2', 'grad add_/f64_2x3__f64_3__alpha=-0.5',
    'grad add_/f32_2x3__f32_0d__alpha=2', 'grad add_/f32_2x3__1.5__alpha=2',
    'gradgrad add_/f64_2x3__f64_3__alpha=-0.5', 'gradgrad add_/f32_2x3__f32_0d__alpha=2',
    'gradgrad add_/f32_2x3__1.5__alpha=2', 'error add_/int_float_alpha',
    'fd_grad add_/f64_2x3__f64_3__alpha=-0.5', 'fd_grad add_/f32_2x3__f32_0d__alpha=2',
    'fd_grad add_/f32_2x3__1.5__alpha=2', 'fd_gradgrad add_/f64_2x3__f64_3__alpha=-0.5',
    'fd_gradgrad add_/f32_2x3__f32_0d__alpha=2', 'fd_gradgrad add_/f32_2x3__1.5__alpha=2',
)
_known(
    "round(x, decimals=0): PyTorch's grad_fn is RoundBackward1 (the decimals overload), "
    "gradrs's RoundBackward0",
    'meta round/f32_2x3__decimals=0',
)
_known(
    'clamp_min / clamp_max grad_fn names: PyTorch ClampMinBackward0 / ClampMaxBackward0 '
    '(scalar bound) and ClampMinBackward1 / ClampMaxBackward1 (tensor bound); gradrs '
    'ClampBackward1 (scalar) and ClampBackward0 (tensor)',
    'meta clamp_min/f32_2x3__-0.5', 'meta clamp_min/f64_2x3__0.25', 'meta clamp_min/f32_0d__0.0',
    'meta clamp_min/f32_0__0.0', 'meta clamp_min/f32_2x3_T__0.5', 'meta clamp_min/f32_2x3__f32_3',
    'meta clamp_min/f32_2x3__f64_2x1', 'meta clamp_min/f32_3_data__0.0',
    'meta clamp_max/f32_2x3__0.5', 'meta clamp_max/f64_2x3__-0.25', 'meta clamp_max/f32_0d__0.0',
    'meta clamp_max/f32_0__0.0', 'meta clamp_max/f32_2x3_from3__0.5',
    'meta clamp_max/f32_2x3__f32_3', 'meta clamp_max/f32_2x3__f64_0d',
    'meta clamp_max/f32_3_data__0.0',
)
_known(
    "div(a, b, rounding_mode=None): PyTorch's grad_fn is DivBackward2 (the rounding_mode "
    "overload), gradrs's DivBackward0",
    'meta div_rounding/f32_2x3__f32_2x3__rounding_mode=None',
)
_known(
    'floor_divide / `tensor // x` / `scalar // tensor` and `scalar % tensor` are not '
    "differentiable in PyTorch (grad_fn NotImplemented; backward raises 'derivative for "
    "aten::floor_divide is not implemented' / '... aten::remainder ...'); gradrs records "
    'DivBackward2 (floor divide, zero gradient) / RemainderBackward1 (rmod, gradient '
    '-floor(s / x) * g) and backpropagates',
    'meta floor_divide/f32_2x3__f32_2x3', 'meta floor_divide/f64_2x3__f64_2x3',
    'meta floor_divide/f32_2x3__f32_3', 'meta floor_divide/f32_2x1__f32_1x3',
    'meta floor_divide/f32_2x1x3__f32_2x1', 'meta floor_divide/f32_2x3__f32_0d',
    'meta floor_divide/f32_0d__f32_2x3', 'meta floor_divide/f32_0d__f32_0d',
    'meta floor_divide/f32_2x3_T__f32_2x3', 'meta floor_divide/f32_2x3__f32_2x3_from3',
    'meta floor_divide/f32_2x3__f32_3_const', 'meta floor_divide/f32_2x3_const__f32_3',
    'meta floor_divide/f32_0__f32_0', 'meta floor_divide/f32_2x0__f32_2x1',
    'meta floor_divide/f32_2x3__f64_3', 'meta floor_divide/f64_2x3__f32_0d',
    'meta floor_divide/f32_2x3__2.5', 'meta floor_divide/f32_2x3__2',
    'meta floor_divide/i64_2x3__f32_3', 'meta floor_divide/f32_2x3__i64_0d',
    'meta __rmod__/f32_2x3__2.5', 'meta __rmod__/f32_2x3__2', 'meta __rmod__/f64_2x3__-1.5',
    'meta __rmod__/f32_0d__3', 'meta __rmod__/f32_0__2.0', 'meta __rmod__/f32_2x3_T__0.5',
    'meta __rfloordiv__/f32_2x3__2.5', 'meta __rfloordiv__/f32_2x3__2',
    'meta __rfloordiv__/f64_2x3__-1.5', 'meta __rfloordiv__/f32_0d__3',
    'meta __rfloordiv__/f32_0__2.0', 'meta __rfloordiv__/f32_2x3_T__0.5',
    'error floor_divide/backward',
)
_known(
    "max/min with dim: gradrs's indices output requires grad (requires_grad=True, grad_fn "
    "MaxBackward0 / MinBackward0); PyTorch's int64 indices have requires_grad=False and no "
    "grad_fn (values and indices agree; the grad tests stop at 'requires_grad of the "
    "outputs')",
    'meta max/f32_2x3__1', 'meta max/f32_2x3__dim=0,keepdim=True', 'meta max/f64_2x3x2__-1',
    'meta max/f32_0d__0', 'meta max/f32_0d__dim=-1,keepdim=True', 'meta max/f32_2x0__0',
    'meta max/f32_2x3_T__1', 'meta max/f32_2x3_from3__0', 'meta max/f32_2x4_ties__1',
    'meta max/f32_2x2_data__1', 'meta min/f32_2x3__1', 'meta min/f32_2x3__dim=0,keepdim=True',
    'meta min/f64_2x3x2__-1', 'meta min/f32_0d__0', 'meta min/f32_0d__dim=-1,keepdim=True',
    'meta min/f32_2x0__0', 'meta min/f32_2x3_T__1', 'meta min/f32_2x3_from3__0',
    'meta min/f32_2x4_ties__1', 'meta min/f32_2x2_data__1', 'grad max/f32_2x3__1',
    'grad max/f32_2x3__dim=0,keepdim=True', 'grad max/f64_2x3x2__-1', 'grad max/f32_0d__0',
    'grad max/f32_0d__dim=-1,keepdim=True', 'grad max/f32_2x0__0', 'grad max/f32_2x3_T__1',
    'grad max/f32_2x3_from3__0', 'grad max/f32_2x4_ties__1', 'grad max/f32_2x2_data__1',
    'grad min/f32_2x3__1', 'grad min/f32_2x3__dim=0,keepdim=True', 'grad min/f64_2x3x2__-1',
    'grad min/f32_0d__0', 'grad min/f32_0d__dim=-1,keepdim=True', 'grad min/f32_2x0__0',
    'grad min/f32_2x3_T__1', 'grad min/f32_2x3_from3__0', 'grad min/f32_2x4_ties__1',
    'grad min/f32_2x2_data__1', 'variant max/method/f32_2x3__1',
    'variant max/method/f32_2x3__dim=0,keepdim=True', 'variant max/method/f64_2x3x2__-1',
    'variant max/method/f32_0d__0', 'variant max/method/f32_0d__dim=-1,keepdim=True',
    'variant max/method/f32_2x0__0', 'variant max/method/f32_2x3_T__1',
    'variant max/method/f32_2x3_from3__0', 'variant max/method/f32_2x4_ties__1',
    'variant max/method/f32_2x2_data__1', 'variant min/method/f32_2x3__1',
    'variant min/method/f32_2x3__dim=0,keepdim=True', 'variant min/method/f64_2x3x2__-1',
    'variant min/method/f32_0d__0', 'variant min/method/f32_0d__dim=-1,keepdim=True',
    'variant min/method/f32_2x0__0', 'variant min/method/f32_2x3_T__1',
    'variant min/method/f32_2x3_from3__0', 'variant min/method/f32_2x4_ties__1',
    'variant min/method/f32_2x2_data__1',
)
_known(
    "x[...]: PyTorch's grad_fn is AliasBackward0, gradrs's SliceBackward0",
    'meta getitem/ellipsis',
)
_known(
    "y[...] = v (full assignment): PyTorch's grad_fn is CopyBackwards (a plain copy_ into "
    "y), gradrs's CopySlices",
    'meta setitem/ellipsis__broadcast',
)
_known(
    "y[1:, [0, 2]] = v: PyTorch index_put_s into the basic-slice view y[1:], so y's grad_fn "
    "is CopySlices; gradrs's IndexPutBackward0",
    'meta setitem/slice_list__tensor',
)
_known(
    "float32 input with a float64 0-dim tensor operand (clamp_max's max, masked_fill's "
    "value): the float64 operand's gradient (a sum of float32 gradients) is accumulated by "
    'PyTorch in float64, by gradrs in float32 (relative error ~6e-8 in a float64 gradient)',
    'grad clamp_max/f32_2x3__f64_0d', 'gradgrad clamp_max/f32_2x3__f64_0d',
    'variant masked_fill/method/f32_2x3__b_2x3__f64_0d',
)
_known(
    'max()/min() of [1, nan, 3, nan]: both return nan; PyTorch spreads the gradient evenly '
    "over the NaN elements (g/2 at indices 1 and 3), gradrs's gradient is 0 everywhere",
    'grad max/f32_4_data', 'grad min/f32_4_data', 'gradgrad max/f32_4_data',
    'gradgrad min/f32_4_data', 'variant max/method/f32_4_data', 'variant min/method/f32_4_data',
)
_known(
    "amax/amin(dim=1) of [[1, nan], [2, 0]]: PyTorch's gradient for the row holding the NaN "
    "is [nan, nan] (the even split finds no element equal to the nan result), gradrs's is "
    '[0, 0]; the other row agrees',
    'grad amax/f32_2x2_data__1', 'grad amin/f32_2x2_data__1', 'gradgrad amax/f32_2x2_data__1',
    'gradgrad amin/f32_2x2_data__1', 'variant amax/method/f32_2x2_data__1',
    'variant amin/method/f32_2x2_data__1',
)
_known(
    "norm(x, p=0): PyTorch's backward leaves x.grad None (undefined gradient for p=0), "
    "gradrs gives zeros of x's shape",
    'grad norm/f32_2x3__p=0', 'gradgrad norm/f32_2x3__p=0', 'variant norm/method/f32_2x3__p=0',
)
_known(
    "backward of cumsum/cumprod of a 0-dim tensor panics in gradrs (PanicException 'index "
    "out of bounds: the len is 0 but the index is 0' in ops::shape::flip called by "
    "reduce::reverse_cumsum); PyTorch's gradient is the output gradient (forward agrees)",
    'grad cumsum/f32_0d__0', 'grad cumprod/f32_0d__0', 'gradgrad cumsum/f32_0d__0',
    'gradgrad cumprod/f32_0d__0', 'variant cumsum/method/f32_0d__0',
    'variant cumprod/method/f32_0d__0', 'fd_grad cumsum/f32_0d__0', 'fd_grad cumprod/f32_0d__0',
    'fd_gradgrad cumsum/f32_0d__0', 'fd_gradgrad cumprod/f32_0d__0',
)
_known(
    'cat([x (2, 3), y (0,)]) (the legacy 1-D empty tensor cat skips): PyTorch gives y.grad '
    '= zeros of shape (0,), gradrs leaves y.grad None (first derivative None)',
    'grad cat/f32_2x3__f32_0', 'gradgrad cat/f32_2x3__f32_0', 'variant cat/tuple/f32_2x3__f32_0',
    'variant cat/concat/f32_2x3__f32_0',
)
_known(
    'F.relu / F.relu6 / F.leaky_relu / F.hardtanh and Tensor.relu_ double backward: with '
    "create_graph=True PyTorch's first derivative requires grad (grad_fn "
    'ThresholdBackwardBackward0 / HardtanhBackwardBackward0 / LeakyReluBackwardBackward0), '
    "so x.grad becomes the (piecewise zero) second derivative; gradrs's first derivative "
    'has requires_grad=False and x.grad stays None (the cause of the relu entries above)',
    'gradgrad F.relu/f32_2x3', 'gradgrad F.relu/f64_2x3', 'gradgrad F.relu/f32_0d',
    'gradgrad F.relu/f64_0d', 'gradgrad F.relu/f32_0', 'gradgrad F.relu/f32_2x0',
    'gradgrad F.relu/f32_2x3_T', 'gradgrad F.relu/f32_2x3_from3', 'gradgrad F.relu/f64_2x1x3',
    'gradgrad F.relu/f32_3_data', 'gradgrad F.relu6/f32_2x3', 'gradgrad F.relu6/f64_2x3',
    'gradgrad F.relu6/f32_0d', 'gradgrad F.relu6/f64_0d', 'gradgrad F.relu6/f32_0',
    'gradgrad F.relu6/f32_2x0', 'gradgrad F.relu6/f32_2x3_T', 'gradgrad F.relu6/f32_2x3_from3',
    'gradgrad F.relu6/f64_2x1x3', 'gradgrad F.relu6/f32_7_data', 'gradgrad F.relu6/f64_2x3_data',
    'gradgrad F.leaky_relu/f32_2x3', 'gradgrad F.leaky_relu/f64_2x3',
    'gradgrad F.leaky_relu/f32_0d', 'gradgrad F.leaky_relu/f64_0d', 'gradgrad F.leaky_relu/f32_0',
    'gradgrad F.leaky_relu/f32_2x0', 'gradgrad F.leaky_relu/f32_2x3_T',
    'gradgrad F.leaky_relu/f32_2x3_from3', 'gradgrad F.leaky_relu/f64_2x1x3',
    'gradgrad F.leaky_relu/f32_2x3__negative_slope=0.2',
    'gradgrad F.leaky_relu/f64_2x3__negative_slope=-0.5', 'gradgrad F.leaky_relu/f32_3_data',
    'gradgrad F.hardtanh/f32_2x3', 'gradgrad F.hardtanh/f64_2x3', 'gradgrad F.hardtanh/f32_0d',
    'gradgrad F.hardtanh/f64_0d', 'gradgrad F.hardtanh/f32_0', 'gradgrad F.hardtanh/f32_2x0',
    'gradgrad F.hardtanh/f32_2x3_T', 'gradgrad F.hardtanh/f32_2x3_from3',
    'gradgrad F.hardtanh/f64_2x1x3', 'gradgrad F.hardtanh/f32_2x3__min_val=-0.5,max_val=0.5',
    'gradgrad F.hardtanh/f64_2x3__min_val=-2.0,max_val=0.0', 'gradgrad F.hardtanh/f32_5_data',
    'gradgrad relu_/f32_2x3', 'gradgrad relu_/f64_2x3', 'gradgrad relu_/f32_0d',
    'gradgrad relu_/f32_0', 'gradgrad relu_/f32_2x3_T', 'gradgrad relu_/f32_3_data',
)
_known(
    'F.elu second derivative at x == 0 (data [0, -1, 1], alpha 1): first derivatives agree; '
    "PyTorch's second derivative at 0 is 0 (the linear branch), gradrs's is "
    'alpha*exp(0)*g*v = 0.146 (the exponential branch)',
    'gradgrad F.elu/f32_3_data',
)
_known(
    'first derivative with create_graph=True: for prod of a 0-dim tensor (derivative the '
    'constant 1), var/std of one element or of an empty tensor (nan / empty) and cumprod '
    "over an empty dim, PyTorch's first derivative has requires_grad=False; gradrs's has "
    'requires_grad=True (grad_fn MulBackward0 / DivBackward0); the values agree',
    'gradgrad prod/f32_0d', 'gradgrad prod/f32_0d__0', 'gradgrad var/f32_0d', 'gradgrad var/f32_0',
    'gradgrad cumprod/f32_0__0', 'gradgrad cumprod/f32_2x0__1',
)
_known(
    "prod / cumprod of an input containing zeros, double backward: PyTorch's first "
    "derivative is differentiable (requires_grad=True), gradrs's has requires_grad=False "
    '(values agree), so the second derivative is missing (x.grad None) and the float64 '
    'finite-difference check of the second derivative fails (analytical Jacobian all zeros)',
    'gradgrad prod/f32_2x3_data', 'gradgrad prod/f32_2x3_data__1',
    'gradgrad prod/f64_2x3_data__0__keepdim=True', 'gradgrad cumprod/f32_2x4_data__1',
    'gradgrad cumprod/f64_2x4_data__0', 'fd_gradgrad prod/f32_2x3_data__1',
    'fd_gradgrad prod/f64_2x3_data__0__keepdim=True', 'fd_gradgrad cumprod/f32_2x4_data__1',
    'fd_gradgrad cumprod/f64_2x4_data__0',
)
_known(
    'norm(p=2, dim=1) with an all-zero row: first derivatives agree (0 for that row); '
    "PyTorch's second derivative for the zero row is nan, gradrs's is 0",
    'gradgrad norm/f32_2x3_data__p=2,dim=1',
)

# error cases: op/case -> (what PyTorch raises, what gradrs does)
_ERROR_DIFFS = {
    # ---- gradrs computes what PyTorch refuses (no exception)
    'floor/bool': (
        'NotImplementedError: "floor_vml_cpu" not implemented for \'Bool\'',
        'no exception: returns the bool input unchanged'),
    'ceil/bool': (
        'NotImplementedError: "ceil_vml_cpu" not implemented for \'Bool\'',
        'no exception: returns the bool input unchanged'),
    'trunc/bool': (
        'NotImplementedError: "trunc_vml_cpu" not implemented for \'Bool\'',
        'no exception: returns the bool input unchanged'),
    'round/bool': (
        'NotImplementedError: "round_vml_cpu" not implemented for \'Bool\'',
        'no exception: returns the bool input unchanged'),
    'F.relu/bool': (
        'RuntimeError: Boolean inputs not supported for relu',
        'no exception: returns the bool input unchanged'),
    'F.silu/int': (
        'NotImplementedError: "silu_cpu" not implemented for \'Long\'',
        'no exception: returns silu of the values as float32'),
    'argmax/bool': (
        'RuntimeError: argmax(): does not support bool input',
        'no exception: returns the index of the first True'),
    'argmin/bool': (
        'RuntimeError: argmin(): does not support bool input',
        'no exception: returns the index of the first False'),
    'F.hardtanh/min_above_max': (
        'ValueError: min_val cannot be greater than max_val',
        'no exception: every element becomes max_val (-1.0)'),
    'lerp/weight_dtype_mismatch': (
        'RuntimeError: expected dtype float for `weight` but got dtype double',
        'no exception: float32 result (the float64 weight is cast)'),
    'index_add/source_shape_mismatch': (
        'RuntimeError: source tensor shape must match self tensor shape, excluding the specified dimension. Got self.shape = [3, 4] source.shape = [2, 3]',
        'no exception: adds the [2, 3] source into the first 3 columns of the rows'),
    'index_add_/source_shape_mismatch': (
        'RuntimeError: source tensor shape must match self tensor shape, excluding the specified dimension. Got self.shape = [3, 4] source.shape = [2, 3]',
        'no exception: adds the [2, 3] source into the first 3 columns of the rows'),
    'index_add/source_dtype_mismatch': (
        'RuntimeError: index_add_(): self (Float) and source (Double) must have the same scalar type',
        'no exception: adds the float64 source into float32'),
    'getitem/mask_shape': (
        'IndexError: The shape of the mask [2] at index 0 does not match the shape of the indexed tensor [3, 4] at index 0',
        'no exception: the [2] mask [True, False] selects row 0 of the [3, 4] tensor'),
    'clamp/tensor_min_scalar_max': (
        'TypeError: clamp() received an invalid combination of arguments - got (Tensor, Tensor, float), but expected one of:',
        'no exception: clamps with the tensor min and the float max'),
    'var/unbiased_and_correction': (
        'TypeError: var() received an invalid combination of arguments - got (Tensor, int, correction=int, unbiased=bool), but expected one of:',
        'no exception: accepts both keywords, correction wins'),
    'std/unbiased_and_correction': (
        'TypeError: std() received an invalid combination of arguments - got (Tensor, int, correction=int, unbiased=bool), but expected one of:',
        'no exception: accepts both keywords, correction wins'),
    'F.leaky_relu/inplace_negative_slope_backward': (
        'RuntimeError: In-place leakyReLu backward calculation is triggered with a negative slope which is not supported. This is caused by calling in-place forward function with a...',
        'no exception: the backward runs and gives the correct gradient'),
    # ---- PyTorch's NotImplementedError ("... not implemented for 'Long'/'Bool'") is a plain RuntimeError in gradrs
    'frac/int': (
        'NotImplementedError: "frac_cpu" not implemented for \'Long\'',
        'RuntimeError: "frac_cpu" not implemented for \'Long\''),
    'frac/bool': (
        'NotImplementedError: "frac_cpu" not implemented for \'Bool\'',
        'RuntimeError: "frac_cpu" not implemented for \'Bool\''),
    'F.gelu/int': (
        'NotImplementedError: "GeluKernelImpl" not implemented for \'Long\'',
        'RuntimeError: "GeluKernelImpl" not implemented for \'Long\''),
    'fmod/bool': (
        'NotImplementedError: "fmod_cpu" not implemented for \'Bool\'',
        'RuntimeError: "fmod_cpu" not implemented for \'Bool\''),
    'remainder/bool': (
        'NotImplementedError: "remainder_cpu" not implemented for \'Bool\'',
        'RuntimeError: "remainder_cpu" not implemented for \'Bool\''),
    'lerp/int': (
        'NotImplementedError: "lerp_kernel_scalar" not implemented for \'Long\'',
        'RuntimeError: "lerp_kernel_scalar" not implemented for \'Long\''),
    'F.softplus/int': (
        'NotImplementedError: "softplus_cpu" not implemented for \'Long\'',
        'RuntimeError: "softplus" not implemented for \'Long\''),
    'F.elu/int': (
        'NotImplementedError: "elu_cpu" not implemented for \'Long\'',
        'RuntimeError: "elu" not implemented for \'Long\''),
    'F.leaky_relu/int': (
        'NotImplementedError: "leaky_relu_cpu" not implemented for \'Long\'',
        'RuntimeError: "leaky_relu" not implemented for \'Long\''),
    'round/int_decimals': (
        'NotImplementedError: "round_cpu" not implemented for \'Long\'',
        'RuntimeError: "round_decimals" not implemented for \'Long\''),
    'floor_divide/bool': (
        'NotImplementedError: "div_floor_cpu" not implemented for \'Bool\'',
        'RuntimeError: ZeroDivisionError (the random bool divisor holds False; with an all-True '
        'divisor gradrs computes an int64 floor division instead of refusing bool)'),
    # ---- other exception type
    'div_rounding/bad_mode': (
        "RuntimeError: div expected rounding_mode to be one of None, 'trunc', or 'floor' but found 'round'",
        "ValueError: div expected rounding_mode to be one of None, 'trunc', or 'floor' but found 'round'"),
    'amax/empty': (
        "RuntimeError: amax(): Expected reduction dim to be specified for input.numel() == 0. Specify the reduction dim with the 'dim' argument.",
        'IndexError: amax(): Expected reduction dim 0 to have non-zero size.'),
    'amin/empty': (
        "RuntimeError: amin(): Expected reduction dim to be specified for input.numel() == 0. Specify the reduction dim with the 'dim' argument.",
        'IndexError: amin(): Expected reduction dim 0 to have non-zero size.'),
    'argmax/empty': (
        'IndexError: argmax(): Expected reduction dim to be specified for input.numel() == 0.',
        'RuntimeError: argmax(): Expected reduction dim to be specified for input.numel() == 0.'),
    'argmin/empty': (
        'IndexError: argmin(): Expected reduction dim to be specified for input.numel() == 0.',
        'RuntimeError: argmin(): Expected reduction dim to be specified for input.numel() == 0.'),
    'cat/empty_list': (
        'ValueError: torch.cat(): expected a non-empty list of Tensors',
        'RuntimeError: gradrs.cat(): expected a non-empty list of Tensors'),
    'exp2/list_input': (
        "TypeError: exp2(): argument 'input' (position 1) must be Tensor, not list",
        "AttributeError: 'list' object has no attribute 'exp2'"),
    # ---- argument checking of the Python binding (PyTorch's argument parser messages)
    'maximum/scalar_other': (
        "TypeError: maximum(): argument 'other' (position 2) must be Tensor, not float",
        "TypeError: 'float' object is not an instance of 'Tensor'"),
    'minimum/scalar_other': (
        "TypeError: minimum(): argument 'other' (position 2) must be Tensor, not float",
        "TypeError: 'float' object is not an instance of 'Tensor'"),
    'atan2/scalar_other': (
        "TypeError: atan2(): argument 'other' (position 2) must be Tensor, not float",
        "TypeError: 'float' object is not an instance of 'Tensor'"),
    'logical_and/scalar_other': (
        "TypeError: logical_and(): argument 'other' (position 2) must be Tensor, not float",
        "TypeError: 'float' object is not an instance of 'Tensor'"),
    'prod/tuple_dim': (
        'TypeError: prod() received an invalid combination of arguments - got (Tensor, tuple), but expected one of:',
        "TypeError: 'tuple' object cannot be interpreted as an integer"),
    'logsumexp/no_dim': (
        'TypeError: logsumexp() missing 1 required positional arguments: "dim"',
        "TypeError: Tensor.logsumexp() missing 1 required positional argument: 'dim'"),
    'cumsum/no_dim': (
        'TypeError: cumsum() missing 1 required positional arguments: "dim"',
        "TypeError: Tensor.cumsum() missing 1 required positional argument: 'dim'"),
    'cumprod/no_dim': (
        'TypeError: cumprod() missing 1 required positional arguments: "dim"',
        "TypeError: Tensor.cumprod() missing 1 required positional argument: 'dim'"),
    # ---- broadcast error: the sizes are named in the other order (a <-> b)
    'lerp/broadcast_mismatch': (
        'RuntimeError: The size of tensor a (3) must match the size of tensor b (4) at non-singleton dimension 1',
        'RuntimeError: The size of tensor a (4) must match the size of tensor b (3) at non-singleton dimension 1'),
    'addcmul/broadcast_mismatch': (
        'RuntimeError: The size of tensor a (3) must match the size of tensor b (4) at non-singleton dimension 1',
        'RuntimeError: The size of tensor a (4) must match the size of tensor b (3) at non-singleton dimension 1'),
    'addcdiv/broadcast_mismatch': (
        'RuntimeError: The size of tensor a (3) must match the size of tensor b (4) at non-singleton dimension 1',
        'RuntimeError: The size of tensor a (4) must match the size of tensor b (3) at non-singleton dimension 1'),
    'masked_fill/broadcast_mismatch': (
        'RuntimeError: The size of tensor a (4) must match the size of tensor b (3) at non-singleton dimension 1',
        'RuntimeError: The size of tensor a (3) must match the size of tensor b (4) at non-singleton dimension 1'),
    'masked_select/broadcast_mismatch': (
        'RuntimeError: The size of tensor a (4) must match the size of tensor b (3) at non-singleton dimension 1',
        'RuntimeError: The size of tensor a (3) must match the size of tensor b (4) at non-singleton dimension 1'),
    # ---- other message text
    'F.relu6/bool': (
        'RuntimeError: Bool inputs not supported for hardtanh',
        'RuntimeError: "hardtanh" not implemented for \'Bool\''),
    'F.hardtanh/bool': (
        'RuntimeError: Bool inputs not supported for hardtanh',
        'RuntimeError: "hardtanh" not implemented for \'Bool\''),
    'F.gelu/bad_approximate': (
        'RuntimeError: approximate argument must be either none or tanh.',
        'RuntimeError: approximate argument must be either none or tanh. Got: bad'),
    'lerp/dtype_mismatch': (
        'RuntimeError: expected dtype float for `end` but got dtype double',
        'RuntimeError: expected dtype float32 for `end` but got dtype float64'),
    'addcdiv/int': (
        'RuntimeError: Integer division with addcdiv is no longer supported, and in a future  release addcdiv will perform a true division of tensor1 and tensor2. The historic addc...',
        'RuntimeError: Integer division with addcdiv is no longer supported, and in a future release addcdiv will perform a true division of tensor1 and tensor2. The historic addcd...'),
    'var/int': (
        'RuntimeError: std and var only support floating point and complex dtypes',
        'RuntimeError: var(): input dtype should be either floating point or complex. Got Long instead.'),
    'std/int': (
        'RuntimeError: std and var only support floating point and complex dtypes',
        'RuntimeError: std(): input dtype should be either floating point or complex. Got Long instead.'),
    'select/index_out_of_range': (
        'IndexError: select(): index 3 out of range for tensor of size [2, 3] at dimension 1',
        'IndexError: index 3 is out of bounds for dimension 1 with size 3'),
    'repeat/negative': (
        'RuntimeError: Trying to create tensor with negative dimension -3: [4, -3]',
        'RuntimeError: Trying to create tensor with negative dimension -1: [2, -1]'),
    'setitem/shape_mismatch': (
        'RuntimeError: The expanded size of the tensor (4) must match the existing size (3) at non-singleton dimension 0.  Target sizes: [4].  Tensor sizes: [3]',
        'RuntimeError: The size of tensor a (3) must match the size of tensor b (4) at non-singleton dimension 0'),
    'setitem/advanced_shape_mismatch': (
        'RuntimeError: shape mismatch: value tensor of shape [3, 4] cannot be broadcast to indexing result of shape [2, 4]',
        'RuntimeError: The size of tensor a (3) must match the size of tensor b (2) at non-singleton dimension 0'),
    'gather/float_index': (
        'RuntimeError: gather(): Expected dtype int32/int64 for index',
        'RuntimeError: gather(): Expected dtype int64 for index'),
    'scatter/float_index': (
        'RuntimeError: scatter(): Expected dtype int32/int64 for index',
        'RuntimeError: scatter(): Expected dtype int64 for index'),
    'scatter_add/float_index': (
        'RuntimeError: scatter(): Expected dtype int32/int64 for index',
        'RuntimeError: scatter_add(): Expected dtype int64 for index'),
    'index_select/float_index': (
        'RuntimeError: index_select(): Expected dtype int32 or int64 for index',
        'RuntimeError: index_select(): Expected dtype int32/int64 for index'),
    'index_add/float_index': (
        'RuntimeError: index_add_(): Expected dtype int32/int64 for index but got: Float',
        'RuntimeError: index_add_(): Expected dtype int32/int64 for index'),
    'masked_select/float_mask': (
        'RuntimeError: masked_select: expected BoolTensor for mask',
        'RuntimeError: masked_select: only supports boolean masks, but got mask with dtype float'),
    'take_along_dim/float_index': (
        'RuntimeError: torch.take_along_dim(): dtype of indices should be Long but got Float',
        'RuntimeError: gather(): Expected dtype int64 for index'),
    'clamp_/int_float_bounds': (
        "RuntimeError: result type Float can't be cast to the desired output type long int",
        "RuntimeError: result type Float can't be cast to the desired output type Long"),
    'masked_fill_/broadcast_to_larger': (
        "RuntimeError: output with shape [3] doesn't match the broadcast shape [2, 3]",
        'RuntimeError: The size of tensor a (3) must match the size of tensor b (2) at non-singleton dimension 0'),
}
for _case, (_torch, _gradrs) in _ERROR_DIFFS.items():
    _known(f"PyTorch: {_torch} / gradrs: {_gradrs}", f"error {_case}")


# --------------------------------------------------------------------------------------------
# parametrization
# --------------------------------------------------------------------------------------------


_GENERATED: set = set()


def _params(kind, items):
    """``pytest.param(op, item, id=...)`` for each (op, item), marked when listed in KNOWN."""
    out = []
    for op, item, pid in items:
        _GENERATED.add((kind, pid))
        reason = None if SELFTEST else KNOWN.get((kind, pid))
        marks = [pytest.mark.xfail(strict=True, reason=reason)] if reason else []
        out.append(pytest.param(op, item, id=pid, marks=marks))
    return out


def _samples(kind, pred=lambda op, s: True):
    return _params(kind, [(op, s, f"{op.name}/{s.id}") for op in OPS for s in op.samples
                          if pred(op, s)])


def _grad_ok(op, s):
    return op.differentiable and s.needs_grad


def _gradgrad_ok(op, s):
    return _grad_ok(op, s) and op.gradgrad and s.gradgrad


def _fd_ok(op, s):
    return (_grad_ok(op, s) and op.fd and s.fd and s.min_numel > 0
            and s.numel <= op.fd_max_numel)


def _fd_samples(kind, pred):
    """One finite-difference check per distinct sample once floats are cast to float64."""
    seen, items = set(), []
    for op in OPS:
        for s in op.samples:
            if not pred(op, s):
                continue
            key = (op.name, _fd_key(s))
            if key not in seen:
                seen.add(key)
                items.append((op, s, f"{op.name}/{s.id}"))
    return _params(kind, items)


def _fd_key(s):
    def norm_arg(a):
        if isinstance(a, T) and a.floating:
            return (a.shape, a.layout, a.expand, a.requires_grad, a.data is None)
        return repr(a)

    return tuple(map(norm_arg, s.args)), repr(sorted(s.kwargs.items()))


def _variants(kind):
    items = [(op, (vname, v, s), f"{op.name}/{vname}/{s.id}")
             for op in OPS for vname, v in op.variants.items() for s in op.samples
             if v.applies(s)]
    return _params(kind, items)


def _errors(kind):
    return _params(kind, [(op, e, f"{op.name}/{e.id}") for op in OPS for e in op.errors])


device_param = pytest.mark.parametrize("device", DEVICES)

# --------------------------------------------------------------------------------------------
# helpers
# --------------------------------------------------------------------------------------------


def _host(t, device):
    """A tensor of the module under test, on the CPU (for numpy)."""
    return t if device == "cpu" or t is None else t.cpu()


def _run(m, op, item, device="cpu", fn=None, grad=True):
    leaves, args = make_args(m, item, device, grad=grad)
    result = (fn or op.fn)(m, *args, **item.kwargs)
    return leaves, result


def _rand_like(m, t, tag, device="cpu"):
    """Fixed random values of ``t``'s shape and dtype (the same for gradrs and torch)."""
    rng = np.random.default_rng(seed_of(tag, tuple(t.shape)))
    v = rng.uniform(-1.5, 1.5, size=tuple(t.shape))
    return m.tensor(tensor_data(v), dtype=getattr(m, dtype_name(t.dtype)), **device_kwargs(device))


def _dense(t):
    """PyTorch's ZeroTensor (e.g. abs's second derivative) as an ordinary tensor of zeros."""
    if getattr(t, "_is_zerotensor", None) is not None and t._is_zerotensor():
        return t.new_zeros(t.shape)
    return t


def _compare_tensor(g, t, op, device, what):
    if t is None:
        assert g is None, f"{what}: expected None, got a tensor"
        return
    assert g is not None, f"{what}: expected a tensor, got None"
    g, t = _dense(g), _dense(t)
    try:
        assert_same_values(_host(g, device), t, **op.tolerance(dtype_name(t.dtype)))
    except AssertionError as e:
        raise AssertionError(f"{what}: {e}") from None


def _compare_result(gres, tres, op, device):
    if isinstance(tres, (tuple, list)):
        kind = list if isinstance(tres, list) else tuple
        assert isinstance(gres, kind), f"expected a {kind.__name__}, got {type(gres)!r}"
        assert len(gres) == len(tres), f"length {len(gres)} != {len(tres)}"
        if hasattr(tres, "_fields"):
            assert getattr(gres, "_fields", None) == tres._fields, "named tuple fields differ"
    gouts, touts = as_outputs(gres), as_outputs(tres)
    for k, (g, t) in enumerate(zip(gouts, touts)):
        assert isinstance(g, G.Tensor), f"output {k}: expected a tensor, got {type(g)!r}"
        _compare_tensor(g, t, op, device, f"output {k}")


def _backward(m, outs, tag, device):
    """Backward of the outputs that require grad, each with a fixed random gradient."""
    outs = [o for o in outs if o.requires_grad]
    grads = [_rand_like(m, o, f"{tag}/go{k}", device) for k, o in enumerate(outs)]
    if len(outs) == 1:
        outs[0].backward(grads[0])
    elif outs:
        m.autograd.backward(outs, grads)
    return len(outs)


def _check_grads(gleaves, tleaves, op, device, what="grad"):
    assert len(gleaves) == len(tleaves)
    for i, (g, t) in enumerate(zip(gleaves, tleaves)):
        _compare_tensor(g.grad, t.grad, op, device, f"{what} of input {i}")


def _forward_backward(torch, op, item, device, fn=None, tag=""):
    gleaves, gres = _run(G, op, item, device, fn)
    tleaves, tres = _run(torch, op, item, "cpu", fn)
    _compare_result(gres, tres, op, device)
    if op.differentiable and item.needs_grad:
        gouts, touts = as_outputs(gres), as_outputs(tres)
        assert [o.requires_grad for o in gouts] == [o.requires_grad for o in touts], (
            "requires_grad of the outputs differs")
        n = _backward(torch, touts, tag, "cpu")
        assert n > 0, "table error: no output of the reference requires grad"
        _backward(G, gouts, tag, device)
        _check_grads(gleaves, tleaves, op, device)


# --------------------------------------------------------------------------------------------
# tests against PyTorch
# --------------------------------------------------------------------------------------------


@device_param
@pytest.mark.parametrize("op, sample", _samples("forward"))
def test_forward(torch, op, sample, device):
    _, gres = _run(G, op, sample, device)
    _, tres = _run(torch, op, sample)
    _compare_result(gres, tres, op, device)


@device_param
@pytest.mark.parametrize("op, sample", _samples("meta", lambda op, s: s.needs_grad))
def test_autograd_meta(torch, op, sample, device):
    _, gres = _run(G, op, sample, device)
    _, tres = _run(torch, op, sample)
    gouts, touts = as_outputs(gres), as_outputs(tres)
    assert len(gouts) == len(touts), f"{len(gouts)} outputs != {len(touts)}"
    for k, (g, t) in enumerate(zip(gouts, touts)):
        got = (g.requires_grad, g.is_leaf, node_name(g.grad_fn))
        want = (t.requires_grad, t.is_leaf, node_name(t.grad_fn))
        assert got == want, f"output {k}: (requires_grad, is_leaf, grad_fn) {got} != {want}"


@device_param
@pytest.mark.parametrize("op, sample", _samples("grad", _grad_ok))
def test_grad(torch, op, sample, device):
    tag = f"{op.name}/{sample.id}"
    gleaves, gres = _run(G, op, sample, device)
    tleaves, tres = _run(torch, op, sample)
    gouts, touts = as_outputs(gres), as_outputs(tres)
    assert [o.requires_grad for o in gouts] == [o.requires_grad for o in touts], (
        "requires_grad of the outputs differs")
    assert _backward(torch, touts, tag, "cpu") > 0, "table error: reference needs no grad"
    _backward(G, gouts, tag, device)
    _check_grads(gleaves, tleaves, op, device)


def _double_backward(m, op, sample, device, tag):
    leaves, res = _run(m, op, sample, device)
    rg = [x for x in leaves if x.requires_grad]
    outs = [o for o in as_outputs(res) if o.requires_grad]
    grads = [_rand_like(m, o, f"{tag}/go{k}", device) for k, o in enumerate(outs)]
    first = m.autograd.grad(outs, rg, grad_outputs=grads, create_graph=True, allow_unused=True)
    terms = [(g * _rand_like(m, g, f"{tag}/v{i}", device)).sum()
             for i, g in enumerate(first) if g is not None and g.requires_grad]
    if terms:
        total = terms[0]
        for t in terms[1:]:
            total = total + t
        total.backward()
    return leaves, first


@device_param
@pytest.mark.parametrize("op, sample", _samples("gradgrad", _gradgrad_ok))
def test_gradgrad(torch, op, sample, device):
    tag = f"{op.name}/{sample.id}"
    tleaves, tfirst = _double_backward(torch, op, sample, "cpu", tag)
    gleaves, gfirst = _double_backward(G, op, sample, device, tag)
    assert len(gfirst) == len(tfirst)
    for i, (g, t) in enumerate(zip(gfirst, tfirst)):
        _compare_tensor(g, t, op, device, f"first derivative {i}")
        if t is not None:
            assert g.requires_grad == t.requires_grad, (
                f"first derivative {i}: requires_grad {g.requires_grad} != {t.requires_grad}")
    _check_grads(gleaves, tleaves, op, device, "second derivative")


@device_param
@pytest.mark.parametrize("op, item", _variants("variant"))
def test_variant(torch, op, item, device):
    vname, variant, sample = item
    _forward_backward(torch, op, sample, device, variant.fn, f"{op.name}/{vname}/{sample.id}")


@device_param
@pytest.mark.parametrize("op, case", _errors("error"))
def test_error(torch, op, case, device):
    fn = case.fn or op.fn

    def call(m, dev):
        _, args = make_args(m, case, dev)
        return fn(m, *args, **case.kwargs)

    assert_same_error(lambda: call(G, device), lambda: call(torch, "cpu"))


# --------------------------------------------------------------------------------------------
# finite differences (float64, no PyTorch)
# --------------------------------------------------------------------------------------------
# ``numerical_jacobian`` and ``first_derivative`` are test_gradcheck.py's; the analytical
# Jacobian is computed the same way as there, but reads gradients with ``numpy(force=True)``
# (PyTorch returns ZeroTensors for some second derivatives, which plain ``numpy()`` refuses)
# and builds the one-hot ``grad_outputs`` on the output's device.


def _np64(t):
    return np.array(t.detach().numpy(force=True), dtype=np.float64, copy=True)


def _analytical_jacobian(f, arrays):
    inputs = [G.tensor(tensor_data(a), dtype=G.float64, requires_grad=True) for a in arrays]
    out = f(*inputs)
    assert isinstance(out, G.Tensor) and dtype_name(out.dtype) == "float64", repr(out)
    shape = tuple(out.shape)
    n_out = int(np.prod(shape, dtype=np.int64))
    jacs = [np.zeros((n_out, a.size)) for a in arrays]
    if not out.requires_grad:  # independent of every input
        return jacs
    for k in range(n_out):
        onehot = np.zeros(n_out)
        onehot[k] = 1.0
        go = G.tensor(tensor_data(onehot.reshape(shape)), dtype=G.float64)
        grads = G.autograd.grad(out, inputs, grad_outputs=go, retain_graph=True,
                                allow_unused=True)
        for i, (g, x) in enumerate(zip(grads, inputs)):
            if g is None:
                continue
            assert tuple(g.shape) == tuple(x.shape), f"grad {i}: shape {tuple(g.shape)}"
            assert dtype_name(g.dtype) == "float64", f"grad {i}: dtype {g.dtype}"
            jacs[i][k, :] = _np64(g).reshape(-1)
    return jacs


def _gradcheck(f, arrays, eps=1e-6, atol=1e-5, rtol=1e-3):
    _, num = numerical_jacobian(f, [a.copy() for a in arrays], eps)
    ana = _analytical_jacobian(f, arrays)
    for i, (n, a) in enumerate(zip(num, ana)):
        if not np.allclose(a, n, atol=atol, rtol=rtol):
            raise AssertionError(
                f"Jacobian mismatch for input {i}:\nnumerical:\n{n}\nanalytical:\n{a}")


def _gradgradcheck(f, arrays, **kw):
    for i in range(len(arrays)):
        _gradcheck(first_derivative(f, i), arrays, **kw)



def _fd_function(op, sample, device, k):
    """``f(*float64 leaves) -> output k`` for the checker; other inputs are constants."""
    positions = [i for i, a in sample.tensor_args if a.requires_grad]

    def f(*xs):
        _, args = make_args(G, sample, device, grad=False, cast="float64")
        for i, x in zip(positions, xs):
            leaf = x if device == "cpu" else x.to(device)
            args[i] = sample.args[i].transform(leaf)
        out = as_outputs(op.fn(G, *args, **sample.kwargs))[k]
        return _host(out, device)

    arrays = [np.asarray(sample.arrays[i], dtype=np.float64) for i in positions]
    return f, arrays


def _fd_outputs(op, sample, device):
    """Indices of the floating outputs (the ones the checker can differentiate)."""
    _, args = make_args(G, sample, device, grad=False, cast="float64")
    outs = as_outputs(op.fn(G, *args, **sample.kwargs))
    return [k for k, o in enumerate(outs) if o.is_floating_point()]


@device_param
@pytest.mark.parametrize("op, sample", _fd_samples("fd_grad", _fd_ok))
def test_fd_grad(op, sample, device):
    for k in _fd_outputs(op, sample, device):
        f, arrays = _fd_function(op, sample, device, k)
        _gradcheck(f, arrays, **op.fd_tol)


@device_param
@pytest.mark.parametrize("op, sample",
                         _fd_samples("fd_gradgrad", lambda op, s: _fd_ok(op, s)
                                     and _gradgrad_ok(op, s)))
def test_fd_gradgrad(op, sample, device):
    for k in _fd_outputs(op, sample, device):
        f, arrays = _fd_function(op, sample, device, k)
        _gradgradcheck(f, arrays, **op.fd_tol)


# every KNOWN entry names a test that exists (catches typos and stale entries)
assert not set(KNOWN) - _GENERATED, f"KNOWN entries without a test: {set(KNOWN) - _GENERATED}"
