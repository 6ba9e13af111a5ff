"""`gradrs.autograd.gradcheck` / `gradgradcheck`: PyTorch's finite-difference checks of
gradients. Slow mode: the analytical Jacobian, one ``autograd.grad`` per output element, is
compared with central differences taken by perturbing each input element in place. Fast mode
(``fast_mode=True``, PyTorch's algorithm): random unit vectors u (per input) and v (per
output) from a fresh default-seeded generator reduce both sides to the scalars v^T J u, one
vector-Jacobian product and one directional difference per pair; on a mismatch the slow
Jacobians are computed for the message. Then backward must be linear in grad_output and must
accept undefined output gradients; ``check_batched_grad=True`` checks ``vmap`` of the
vector-Jacobian product against the products one by one (PyTorch's check). With
``check_forward_ad=True`` the same comparisons run on Jacobians (slow) or J u (fast) from
forward-mode AD, a missing tangent must act as a zero one, and ``check_batched_forward_grad``
checks ``vmap`` of the Jacobian-vector product. Failures raise `GradcheckError` with PyTorch's messages
(or return False with raise_exception=False).
"""

import functools
import warnings
from itertools import product

from .. import _native
from .._grad_mode import no_grad
from .._memory_format import contiguous_format as _contiguous

__all__ = ["GradcheckError", "gradcheck", "gradgradcheck"]


class GradcheckError(RuntimeError):
    """Error raised by :func:`gradcheck` and :func:`gradgradcheck`."""


def _is_tensor(x):
    return isinstance(x, _native.Tensor)


def _as_tuple(x):
    if isinstance(x, tuple):
        return x
    if isinstance(x, list):
        return tuple(x)
    return (x,)


def _differentiable_outputs(x):
    return tuple(o for o in _as_tuple(x) if o.requires_grad)


def _iter_tensors(x, only_requiring_grad=False):
    if _is_tensor(x):
        if x.requires_grad or not only_requiring_grad:
            yield x
    elif isinstance(x, (list, tuple)):
        for elem in x:
            yield from _iter_tensors(elem, only_requiring_grad)


def _check_inputs(tupled_inputs):
    any_input_requiring_grad = False
    for idx, inp in enumerate(tupled_inputs):
        if _is_tensor(inp) and inp.requires_grad:
            if inp.dtype != _native.float64:
                warnings.warn(
                    f"Input #{idx} requires gradient and "
                    "is not a double precision floating point or complex. "
                    "This check will likely fail if all the inputs are "
                    "not of double precision floating point or complex. ",
                    stacklevel=4)
            if not all(st > 0 or sz <= 1 for st, sz in zip(inp.stride(), inp.size())):
                raise RuntimeError(
                    f"The {idx}th input has a dimension with stride 0. gradcheck only "
                    "supports inputs that are non-overlapping to be able to "
                    "compute the numerical gradients correctly. You should call "
                    ".contiguous on the input before passing it to gradcheck.")
            any_input_requiring_grad = True
    if not any_input_requiring_grad:
        raise ValueError(
            "gradcheck expects at least one input tensor to require gradient, "
            "but none of them have requires_grad=True.")


def _allclose(a, b, rtol, atol):
    """`torch.allclose` after promoting both to a common dtype (NaNs are never close)."""
    if a.dtype != b.dtype:
        common = (a.reshape(-1)[:0] + b.reshape(-1)[:0]).dtype
        a, b = a.to(common), b.to(common)
    return bool(((a - b).abs() <= atol + rtol * b.abs()).all())


def _check_outputs_same_dtype_and_shape(output1, output2, eps, idx=None):
    on_index = f"on index {idx} " if idx is not None else ""
    if output1.shape != output2.shape:
        raise AssertionError(
            f"Expected `func` to return outputs with the same shape"
            f" when inputs are perturbed {on_index}by {eps}, but got:"
            f" shapes {output1.shape} and {output2.shape}.")
    if output1.dtype != output2.dtype:
        raise AssertionError(
            f"Expected `func` to return outputs with the same dtype"
            f" when inputs are perturbed {on_index}by {eps}, but got:"
            f" dtypes {output1.dtype} and {output2.dtype}.")


def _numerical_jacobian(fn, inputs, outputs, eps):
    """[per input requiring grad] of (per output) Jacobians of shape (input numel, output
    numel), by central differences on the input's memory (through `.data`)."""
    jacobians = []
    for inp in _iter_tensors(inputs, True):
        x = inp.data
        cols = {}
        for d_idx, idx in enumerate(product(*[range(m) for m in x.size()])):
            entry = x[idx]
            orig = entry.clone()
            entry.copy_(orig - eps)
            outa = tuple(a.clone() for a in _as_tuple(fn(*inputs)))
            entry.copy_(orig + eps)
            outb = tuple(b.clone() for b in _as_tuple(fn(*inputs)))
            entry.copy_(orig)
            col = []
            for a, b in zip(outa, outb):
                _check_outputs_same_dtype_and_shape(a, b, eps, idx=idx)
                col.append(((b - a) / (2 * eps)).detach().reshape(-1))
            cols[d_idx] = col
        jac = []
        for i, o in enumerate(outputs):
            j = o.new_zeros((inp.numel(), o.numel()))
            for k, v in cols.items():
                j[k] = v[i]
            jac.append(j)
        jacobians.append(tuple(jac))
    return jacobians


def _analytical_jacobian(inputs, output, nondet_tol, check_grad_dtypes, v=None):
    """Rows of the Jacobian from one `autograd.grad` per output element (fast mode, ``v``
    given: the one row v^T J), computed twice to check that backward is reentrant; PyTorch's
    attribute checks."""
    diff_inputs = list(_iter_tensors(inputs, True))

    def vjp(grad_output):
        return _grad(output, diff_inputs, grad_output, retain_graph=True, allow_unused=True)

    def rows():
        if v is not None:
            return [[d_x.clone() if _is_tensor(d_x) else None]
                    for d_x in vjp(v.reshape(output.shape))]
        # row-major whatever the output's strides, as PyTorch's legacy_contiguous_format here
        base = _native.zeros_like(output, memory_format=_contiguous)
        flat = base.view(-1)
        result = [[] for _ in diff_inputs]
        for j in range(flat.numel()):
            flat.zero_()
            flat[j] = 1.0
            for i, d_x in enumerate(vjp(base)):
                result[i].append(d_x.clone() if _is_tensor(d_x) else None)
        return result

    def stack(vjps):
        numel = 1 if v is not None else output.numel()
        jacs = [inp.new_zeros((inp.numel(), numel)) for inp in diff_inputs]
        sizes_ok = types_ok = True
        for inp, jac, column in zip(diff_inputs, jacs, vjps):
            for j, t in enumerate(column):
                if t is not None and t.size() != inp.size():
                    sizes_ok = False
                elif t is not None and t.dtype != inp.dtype:
                    types_ok = False
                if t is None:
                    jac[:, j].zero_()
                else:
                    jac[:, j] = t.reshape(-1)
        return jacs, sizes_ok, types_ok

    # PyTorch binds these two flags the other way round; its checks behave accordingly.
    jacobians1, types_ok, sizes_ok = stack(rows())
    jacobians2, _, _ = stack(rows())
    reentrant = all(a.numel() == 0 or bool((a - b).abs().max() <= nondet_tol)
                    for a, b in zip(jacobians1, jacobians2))
    if not types_ok and check_grad_dtypes:
        raise GradcheckError("Gradient has dtype mismatch")
    if not sizes_ok:
        raise GradcheckError("Analytical gradient has incorrect size")
    if not reentrant:
        raise GradcheckError(
            "Backward is not reentrant, i.e., running backward with "
            "same input and grad_output multiple times gives different values, "
            "although analytical gradient matches numerical gradient."
            f"The tolerance for nondeterminism was {nondet_tol}." + _FAILED_NONDET_MSG)
    return jacobians1


_FAILED_NONDET_MSG = """\n
NOTE: If your op relies on non-deterministic operations i.e., it is listed here:
https://pytorch.org/docs/stable/generated/torch.use_deterministic_algorithms.html
this failure might be expected.

If you are adding a new operator, please file an issue and then use one of the
workarounds. The workaround depends on how your test invokes gradcheck/gradgradcheck.
If the test
- manually invokes gradcheck/gradgradcheck, then call gradcheck/gradgradcheck
  with `nondet_tol=<tol>` as a keyword argument.
- is OpInfo-based (e.g., in test_ops_gradients.py), then modify the OpInfo for the test
  to have `gradcheck_nondet_tol=<tol>`.
- is a Module test (e.g., in common_nn.py), then modify the corresponding
  module_test entry to have `gradcheck_nondet_tol=<tol>`
"""


def _grad(*args, **kwargs):
    from . import grad
    return grad(*args, **kwargs)


def _notallclose_msg(analytical, numerical, output_idx, input_idx, is_forward_ad=False):
    mode = "computed with forward mode " if is_forward_ad else ""
    return (f"Jacobian {mode}mismatch for output {output_idx:d} with respect to input "
            f"{input_idx:d},\nnumerical:{numerical}\nanalytical:{analytical}\n")


def _is_float_tensor(x):
    return _is_tensor(x) and x.dtype.is_floating_point


def _analytical_jacobian_fwd(fn, inputs, outputs, check_grad_dtypes=False, all_u=None):
    """[per input requiring grad] of (per floating output) Jacobians by forward-mode AD: one
    dual pass per input element, its tangent a unit vector (or, with ``all_u``, one pass per
    input with tangent u, giving J u). PyTorch's `_get_analytical_jacobian_forward_ad`."""
    from . import forward_ad as fwAD

    float_outs = [o for o in outputs if _is_float_tensor(o)]
    tensor_inputs = [i for i in inputs if _is_tensor(i) and i.requires_grad]
    jacobians = [[o.new_zeros((1 if all_u else i.numel(), o.numel())) for o in float_outs]
                 for i in tensor_inputs]
    with fwAD.dual_level():
        fw_grads, dual_inputs = [], []
        for inp in inputs:
            if _is_tensor(inp) and inp.requires_grad:
                inp = fwAD.make_dual(inp.detach(), _native.zeros_like(inp))
                # the dual's own tangent (a view's may not be the one given): written in place
                fw_grads.append(fwAD.unpack_dual(inp)[1])
            dual_inputs.append(inp)

        def read(i, row):
            outs = [o for o in _as_tuple(fn(*dual_inputs)) if _is_float_tensor(o)]
            for k, d_o in enumerate(outs):
                _, res = fwAD.unpack_dual(d_o)
                if res is None:
                    jacobians[i][k][row].zero_()
                else:
                    jacobians[i][k][row] = res.reshape(-1)

        for i, fw_grad in enumerate(fw_grads):
            if all_u:
                fw_grad.copy_(all_u[i].view_as(fw_grad))
                read(i, 0)
                fw_grad.zero_()
                continue
            flat = fw_grad.view(-1)
            for lin in range(flat.numel()):
                flat[lin] = 1.0
                read(i, lin)
                flat[lin] = 0.0
    if all_u:
        return [[j.squeeze(0) for j in per_input] for per_input in jacobians]
    return jacobians


def _slow_gradcheck(func, func_out, tupled_inputs, outputs, eps, rtol, atol,
                    check_grad_dtypes, nondet_tol, use_forward_ad=False):
    func_out = _as_tuple(func_out)
    if not outputs:
        for per_input in _numerical_jacobian(func, tupled_inputs, func_out, eps):
            for jacobian in per_input:
                if int(jacobian.ne(0).sum()) > 0:
                    raise GradcheckError("Numerical gradient for function expected to be zero")
        return True
    numerical = list(zip(*_numerical_jacobian(func, tupled_inputs, func_out, eps)))
    numerical = [nj for o, nj in zip(func_out, numerical) if o.requires_grad]
    if use_forward_ad:
        analytical = _analytical_jacobian_fwd(func, tupled_inputs, func_out, check_grad_dtypes)
        for i, n_per_out in enumerate(numerical):
            for j, n in enumerate(n_per_out):
                a = analytical[j][i]
                if not _allclose(a, n.to(a.device), rtol, atol):
                    raise GradcheckError(_notallclose_msg(a, n, i, j, is_forward_ad=True))
        return True
    for i, o in enumerate(outputs):
        analytical = _analytical_jacobian(tupled_inputs, o, nondet_tol, check_grad_dtypes)
        for j, (a, n) in enumerate(zip(analytical, numerical[i])):
            if not _allclose(a, n.to(a.device), rtol, atol):
                raise GradcheckError(_notallclose_msg(a, n, i, j))
    return True


def _vec_from_tensor(x, generator):
    """A random unit vector with x's number of elements, dtype and device."""
    vec = _native.rand(x.numel(), generator=generator).to(dtype=x.dtype, device=x.device)
    vec /= vec.norm()
    return vec


def _make_vectors(inp_tensors, outputs, use_forward_ad=False):
    # A generator of its own, so the user's random stream is left alone.
    g_cpu = _native.Generator()
    all_u = [_vec_from_tensor(inp, g_cpu) for inp in inp_tensors]
    # Forward mode compares J u itself: no v.
    all_v = None if use_forward_ad else [_vec_from_tensor(out, g_cpu) for out in outputs]
    return all_v, all_u


def _numerical_jvps(fn, inputs, input_idx, u, eps):
    """J u for each output of ``fn``, by central differences along ``eps * u`` on the input's
    memory."""
    entry = inputs[input_idx].data
    delta = u.reshape(entry.shape) * eps
    orig = entry.clone()
    entry.copy_(orig - delta)
    outa = tuple(a.clone() for a in _as_tuple(fn(*inputs)))
    entry.copy_(orig + delta)
    outb = tuple(b.clone() for b in _as_tuple(fn(*inputs)))
    entry.copy_(orig)
    jvps = []
    for a, b in zip(outa, outb):
        _check_outputs_same_dtype_and_shape(a, b, eps)
        jvps.append(((b - a) / (2 * eps)).detach().reshape(-1))
    return jvps


def _adjusted_atol(atol, u, v):
    # Comparing v^T A u with v^T B u instead of A with B element-wise: atol scales by
    # v^T 1 u = sum(u) * sum(v), as PyTorch's fast mode does.
    sum_v = 1.0 if v is None else v.sum()
    return atol * float(u.sum()) * float(sum_v)


_FAST_FAIL_SLOW_OK_MSG = """
Fast gradcheck failed but element-wise differences are small. This means that the
test might've passed in slow_mode!

If you are adding a new operator, please file an issue and then use one of the
workarounds. The workaround depends on how your test invokes gradcheck/gradgradcheck:

If the test
- manually invokes gradcheck/gradgradcheck, then call gradcheck/gradgradcheck
  with `fast_mode=False` as a keyword argument.
- is OpInfo-based (e.g., in test_ops_gradients.py), then modify the OpInfo for the test
  to have `gradcheck_fast_mode=False`
- is a Module test (e.g., in common_nn.py), then modify the corresponding
  module_test entry to have `gradcheck_fast_mode=False`
""".strip()


def _run_slow_mode_and_get_error(func, tupled_inputs, outputs, input_idx, output_idx, rtol,
                                 atol, eps, is_forward_ad=False):
    """The slow Jacobians of one (input, output) pair, for a fast-mode failure's message."""
    slow_numerical = _numerical_jacobian(func, tupled_inputs, outputs, eps)[input_idx][output_idx]
    if is_forward_ad:
        def new_fn(inp):
            new_inputs = list(tupled_inputs)
            new_inputs[input_idx] = inp
            return _as_tuple(func(*new_inputs))[output_idx]

        slow_analytical = _analytical_jacobian_fwd(
            new_fn, (tupled_inputs[input_idx],), (outputs[output_idx],))[0][0]
    else:
        slow_analytical = _analytical_jacobian(tupled_inputs, outputs[output_idx],
                                               float("inf"), False)[input_idx]
    slow_max_diff = (slow_numerical - slow_analytical).abs().max()
    slow_allclose = _allclose(slow_analytical, slow_numerical, rtol, atol)
    msg = (
        "\nThe above quantities relating the numerical and analytical jacobians are computed \n"
        "in fast mode. See: https://github.com/pytorch/pytorch/issues/53876 for more background \n"
        "about fast mode. Below, we recompute numerical and analytical jacobians in slow mode:\n\n"
        f"Numerical:\n {slow_numerical}\n"
        f"Analytical:\n{slow_analytical}\n\n"
        f"The max per-element difference (slow mode) is: {slow_max_diff}.\n"
    )
    if slow_allclose:
        msg += _FAST_FAIL_SLOW_OK_MSG
    return msg


def _fast_gradcheck(func, func_out, tupled_inputs, outputs, eps, rtol, atol,
                    check_grad_dtypes, nondet_tol, use_forward_ad=False):
    """PyTorch's fast gradcheck (pytorch/pytorch#53876): v^T J u from a vector-Jacobian
    product against v . (J u) from a directional central difference; in forward mode, J u
    from one dual pass per input against the difference itself."""
    inp_idx = [i for i, t in enumerate(tupled_inputs) if _is_tensor(t) and t.requires_grad]
    inp_tensors = [tupled_inputs[i] for i in inp_idx]
    all_v, all_u = _make_vectors(inp_tensors, outputs, use_forward_ad)
    func_out = _as_tuple(func_out)
    if use_forward_ad:
        analytical = _analytical_jacobian_fwd(func, tupled_inputs, func_out, check_grad_dtypes,
                                              all_u=all_u)
        for i, (k, u) in enumerate(zip(inp_idx, all_u)):
            jvps = _numerical_jvps(func, tupled_inputs, k, u, eps)
            jvps = [ju for ju, o in zip(jvps, func_out) if _is_float_tensor(o)]
            for j, n in enumerate(jvps):
                a = analytical[i][j]
                if not _allclose(a, n.to(a.device), rtol, _adjusted_atol(atol, u, None)):
                    jacobians_str = _run_slow_mode_and_get_error(
                        func, tupled_inputs, outputs, i, j, rtol, atol, eps, True)
                    raise GradcheckError(_notallclose_msg(a, n, j, i, True) + jacobians_str)
        return True
    numerical = []
    for i, u in zip(inp_idx, all_u):
        jvps = _numerical_jvps(func, tupled_inputs, i, u, eps)
        if len(jvps) != len(func_out):
            raise AssertionError(
                f"Expected all_Ju and func_out to have the same length, "
                f"but got {len(jvps)} and {len(func_out)}")
        if not outputs:
            for jvp in jvps:
                if jvp.numel() == 0:
                    continue
                if float((jvp - _native.zeros_like(jvp)).abs().max()) > nondet_tol:
                    raise GradcheckError("Numerical gradient for function expected to be zero")
        # Only floating outputs have a Jacobian to compare.
        jvps = [ju for ju, o in zip(jvps, func_out) if o.dtype.is_floating_point]
        numerical.append([(v * ju).sum() for v, ju in zip(all_v, jvps)])
    analytical = []
    for output, v in zip(outputs, all_v):
        all_vj = _analytical_jacobian(tupled_inputs, output, nondet_tol, check_grad_dtypes,
                                      v=v)
        analytical.append([vj.T.squeeze(0).dot(u) for vj, u in zip(all_vj, all_u)])
    for i, numerical_for_input in enumerate(numerical):
        for j, n in enumerate(numerical_for_input):
            a = analytical[j][i]
            updated_atol = _adjusted_atol(atol, all_u[i], all_v[j])
            if not _allclose(a, n.to(a.device), rtol, updated_atol):
                jacobians_str = _run_slow_mode_and_get_error(
                    func, tupled_inputs, outputs, i, j, rtol, atol, eps)
                raise GradcheckError(_notallclose_msg(a, n, j, i) + jacobians_str)
    return True


def _test_backward_mul_by_grad_output(outputs, inputs):
    diff_inputs = list(_iter_tensors(inputs, True))
    if not diff_inputs:
        raise GradcheckError("no Tensors requiring grad found in input")
    grads_input = _grad(outputs, diff_inputs, [_native.zeros_like(o) for o in outputs],
                        allow_unused=True)
    for gi, di in zip(grads_input, diff_inputs):
        if gi is None:
            continue
        if not bool(gi.eq(0).all()):
            raise GradcheckError("backward not multiplied by grad_output")
        if gi.dtype != di.dtype:
            raise GradcheckError("grad is incorrect type")
        if gi.device != di.device:
            raise GradcheckError("grad is incorrect device")
        if gi.size() != di.size():
            raise GradcheckError("grad is incorrect size")
    return True


def _undefined_grad(o):
    """PyTorch's UndefinedGrad: an alias of `o` whose backward passes an undefined gradient."""
    out = o.detach()
    _native._attach_node(out, [o], "UndefinedGradBackward", lambda g: [None])
    return out


def _test_undefined_backward_mode(func, outputs, inputs):
    diff_inputs = list(_iter_tensors(inputs, True))
    if not diff_inputs:
        raise GradcheckError("no Tensors requiring grad found in input")

    def warn_bc_breaking():
        warnings.warn(
            "Backwards compatibility: New undefined gradient support checking "
            "feature is enabled by default, but it may break existing callers "
            "of this function. If this is true for you, you can call this "
            'function with "check_undefined_grad=False" to disable the feature',
            stacklevel=2)

    def check(output_to_check):
        grads_output = [_native.zeros_like(o) for o in output_to_check]
        try:
            grads_input = _grad(output_to_check, diff_inputs, grads_output, allow_unused=True)
        except RuntimeError as e:
            warn_bc_breaking()
            raise GradcheckError(
                "Expected backward function to handle undefined output grads. "
                'Please look at "Notes about undefined output gradients" in '
                '"tools/autograd/derivatives.yaml"') from e
        for gi in grads_input:
            if gi is not None and not bool(gi.eq(0).all()):
                warn_bc_breaking()
                raise GradcheckError(
                    "Expected all input grads to be undefined or zero when all output grads "
                    'are undefined or zero. Please look at "Notes about undefined output '
                    'gradients" in "tools/autograd/derivatives.yaml"')
        return True

    outputs_to_check = [[_undefined_grad(o) for o in _differentiable_outputs(func(*inputs))]]
    if len(outputs_to_check[0]) > 1:
        for undef_idx in range(len(outputs)):
            outs = _differentiable_outputs(func(*inputs))
            outputs_to_check.append([_undefined_grad(o) if idx == undef_idx else o
                                     for idx, o in enumerate(outs)])
    return all(check(o) for o in outputs_to_check)


_FAILED_BATCHED_GRAD_MSG = """
gradcheck or gradgradcheck failed while testing batched gradient computation.
This could have been invoked in a number of ways (via a test that calls
gradcheck/gradgradcheck directly or via an autogenerated test).

If you are adding a new operator, please file an issue and then use one of the
workarounds. The workaround depends on how your test invokes gradcheck/gradgradcheck.
If the test
- manually invokes gradcheck/gradgradcheck, then call gradcheck/gradgradcheck
  with `check_batched_grad=False` as a keyword argument.
- is OpInfo-based (e.g., in test_ops_gradients.py), then modify the OpInfo for the test
  to have `check_batched_grad=False` and/or `check_batched_gradgrad=False`.

If you're modifying an existing operator that supports batched grad computation,
or wish to make a new operator work with batched grad computation, please read
the following.

To compute batched grads (e.g., jacobians, hessians), we vmap over the backward
computation. The most common failure case is if there is a 'vmap-incompatible
operation' in the backward pass. Please see
NOTE: [How to write vmap-compatible backward formulas]
in the codebase for an explanation of how to fix this.
""".strip()


def _failed_batched_grad_msg(output_idx, input_idx, res, exp):
    return f"""
For output {output_idx} and input {input_idx}:

{_FAILED_BATCHED_GRAD_MSG}

Got:
{res}

Expected:
{exp}
""".strip()


def _test_batched_grad(inputs, output, output_idx):
    """PyTorch's check_batched_grad: ``vmap`` of the vector-Jacobian product over two random
    grad_outputs against the two products taken one by one (gradrs's vmap runs them as
    `autograd.grad`'s batching rule: Note [vmap])."""
    from .._vmap import legacy_functions, vmap

    diff_inputs = list(_iter_tensors(inputs, True))

    def vjp(v):
        grads = _grad(output, diff_inputs, v, retain_graph=True, allow_unused=True)
        return tuple(g if g is not None else
                     _native.zeros([], dtype=inp.dtype, device=inp.device).expand(inp.shape)
                     for g, inp in zip(grads, diff_inputs))

    grad_outputs = [_native.randn_like(output, memory_format=_contiguous) for _ in range(2)]
    expected = [_native.stack(shards) for shards in zip(*[vjp(g) for g in grad_outputs])]
    try:
        with legacy_functions():
            result = vmap(vjp)(_native.stack(grad_outputs))
    except RuntimeError as ex:
        raise GradcheckError(f"While computing batched gradients, got: {_legacy_msg(ex)}\n\n"
                             f"{_FAILED_BATCHED_GRAD_MSG}") from ex
    for input_idx, (res, exp) in enumerate(zip(result, expected)):
        if _torch_allclose(res, exp):
            continue
        raise GradcheckError(_failed_batched_grad_msg(output_idx, input_idx, res, exp))
    return True


def _legacy_msg(ex):
    """An error's text as PyTorch's checks, which run its legacy vmap
    (torch._vmap_internals), print it: a random op's message differs from functorch's."""
    from .._vmap import _RANDOM

    if str(ex) == _RANDOM:
        return ("vmap: We do not yet support calling random operations inside of vmap. "
                "Please perform random operations outside of vmap as a workaround")
    return str(ex)


def _torch_allclose(a, b):
    """`allclose` with PyTorch's defaults (rtol 1e-5, atol 1e-8; NaNs never close)."""
    from .._ops.predicates import allclose
    return allclose(a, b)


def _test_undefined_forward_mode(func, outputs, inputs):
    """A tangent left undefined (a plain tensor) must give the tangents a zero tangent gives."""
    from . import forward_ad as fwAD

    inp_tensors = [t for t in inputs if _is_tensor(t) and t.requires_grad]
    _, all_u = _make_vectors(inp_tensors, outputs, use_forward_ad=True)
    with fwAD.dual_level():
        fw_grads, dual_inputs, tensor_indices = [], [], set()
        for i, inp in enumerate(inputs):
            if _is_tensor(inp) and inp.requires_grad:
                inp = fwAD.make_dual(inp.detach(), _native.zeros_like(inp))
                fw_grads.append(fwAD.unpack_dual(inp)[1])
                tensor_indices.add(i)
            dual_inputs.append(inp)
        for fw_grad, u in zip(fw_grads, all_u):
            fw_grad.copy_(u.view_as(fw_grad))
        for idx, inp in enumerate(inputs):
            if idx not in tensor_indices:
                continue
            dual_inp_obj = dual_inputs[idx]
            # a materialized zero tangent, then none at all
            dual_inputs[idx] = fwAD.make_dual(inp.detach(), _native.zeros_like(inp))
            outs1 = [o for o in _as_tuple(func(*dual_inputs)) if _is_float_tensor(o)]
            dual_inputs[idx] = inp.detach()
            outs2 = [o for o in _as_tuple(func(*dual_inputs)) if _is_float_tensor(o)]
            dual_inputs[idx] = dual_inp_obj
            for index_o, (d_o1, d_o2) in enumerate(zip(outs1, outs2)):
                res1, res2 = fwAD.unpack_dual(d_o1)[1], fwAD.unpack_dual(d_o2)[1]
                if not (res1 is None or res2 is None) and not _torch_allclose(res1, res2):
                    # PyTorch raises it with several arguments: str() shows their tuple.
                    raise GradcheckError(
                        "Mismatch in tangent values for output with index: ", index_o,
                        " when input: ", inp, " has an undefined tangent value. ",
                        " Got: ", res1, " but expected: ", res2)
    return True


_FAILED_BATCHED_GRAD_MSG_FWD_AD = """
gradcheck failed while testing batched gradient computation with forward-mode AD.
This test is enabled automatically when both `check_batched_grad=True`
and `check_forward_ad=True`, but can be disabled in the following ways
dependong on how the test was invoked (via a test that calls gradcheck
directly or via an autogenerated test).

If you are adding a new operator, please file an issue and then use one of the
workarounds. The workaround depends on how your test invokes gradcheck/gradgradcheck.
If the test
- manually invokes gradcheck/gradgradcheck, then call gradcheck/gradgradcheck
  with `check_batched_forward_grad=False` as a keyword argument.
- is OpInfo-based (e.g., in test_ops_gradients.py), then modify the OpInfo for the test
  to have `check_batched_forward_grad=False`
"""


def _test_batched_grad_forward_ad(func, inputs):
    """PyTorch's check_batched_forward_grad: ``vmap`` of the Jacobian-vector product over two
    random tangents per input against the two products one by one (gradrs's vmap runs the
    function on batched duals: Note [vmap])."""
    from .._vmap import legacy_functions, vmap
    from . import forward_ad as fwAD

    for input_idx, current_input in enumerate(inputs):
        if not (_is_tensor(current_input) and current_input.requires_grad):
            continue

        def jvp(tangent, input_idx=input_idx, current_input=current_input):
            with fwAD.dual_level():
                dual = fwAD.make_dual(current_input.detach(), tangent)
                inputs_with_dual = tuple(
                    dual if idx == input_idx else (inp.detach() if _is_tensor(inp) else inp)
                    for idx, inp in enumerate(inputs))
                ret = []
                for dual_output in _as_tuple(func(*inputs_with_dual)):
                    if dual_output is None:
                        continue
                    primal_out, tangent_out = fwAD.unpack_dual(dual_output)
                    ret.append(tangent_out if tangent_out is not None else _native.zeros(
                        [], dtype=primal_out.dtype,
                        device=primal_out.device).expand(primal_out.shape))
                return tuple(ret)

        if not current_input.dtype.is_floating_point:
            continue
        tangents = [_native.randn_like(current_input, memory_format=_contiguous)
                    for _ in range(2)]
        expected = [_native.stack(shards) for shards in zip(*[jvp(t) for t in tangents])]
        try:
            with legacy_functions():
                result = vmap(jvp)(_native.stack(tangents))
        except RuntimeError as ex:
            raise GradcheckError(f"While computing batched gradients, got: {_legacy_msg(ex)}"
                                 f"\n\n{_FAILED_BATCHED_GRAD_MSG_FWD_AD}") from ex
        # PyTorch's loop reuses the name input_idx: the message names the output twice.
        for input_idx, (res, exp) in enumerate(zip(result, expected)):  # noqa: B020, PLW2901
            if _torch_allclose(res, exp):
                continue
            raise GradcheckError(f"""
For output {input_idx} and input {input_idx}:

{_FAILED_BATCHED_GRAD_MSG_FWD_AD}

Got:
{res}

Expected:
{exp}
""".strip())
    return True


def _gradcheck_helper(func, inputs, eps, atol, rtol, nondet_tol, check_undefined_grad,
                      check_grad_dtypes, check_backward_ad, fast_mode, check_batched_grad,
                      check_forward_ad, check_batched_forward_grad):
    tupled_inputs = _as_tuple(inputs)
    _check_inputs(tupled_inputs)
    func_out = func(*tupled_inputs)
    outputs = _differentiable_outputs(func_out)
    check = _fast_gradcheck if fast_mode else _slow_gradcheck
    if check_backward_ad:
        check(func, func_out, tupled_inputs, outputs, eps, rtol, atol, check_grad_dtypes,
              nondet_tol)
    if check_forward_ad:
        check(func, func_out, tupled_inputs, outputs, eps, rtol, atol, check_grad_dtypes,
              nondet_tol, use_forward_ad=True)
        if check_undefined_grad:
            _test_undefined_forward_mode(func, outputs, tupled_inputs)
    if check_batched_forward_grad:
        _test_batched_grad_forward_ad(func, tupled_inputs)
    if not check_backward_ad:
        return True
    if check_batched_grad:
        for i, o in enumerate(outputs):
            _test_batched_grad(tupled_inputs, o, i)
    _test_backward_mul_by_grad_output(outputs, tupled_inputs)
    if check_undefined_grad:
        _test_undefined_backward_mode(func, outputs, tupled_inputs)
    return True


def _unsupported(**flags):
    for name, value in flags.items():
        if value:
            raise NotImplementedError(f"gradrs.autograd.gradcheck does not support {name}=True")


def gradcheck(func, inputs, *, eps=1e-6, atol=1e-5, rtol=1e-3, raise_exception=True,
              nondet_tol=0.0, check_undefined_grad=True, check_grad_dtypes=False,
              check_batched_grad=False, check_batched_forward_grad=False,
              check_forward_ad=False, check_backward_ad=True, fast_mode=False, masked=None):
    """Check the gradients of `func` at `inputs` (float64 tensors) against finite differences:
    True, or a GradcheckError (False when ``raise_exception=False``).

    Examples:
        >>> x = gradrs.randn(3, dtype=gradrs.float64, requires_grad=True)
        >>> gradrs.autograd.gradcheck(lambda t: (t.sin() * t).sum(), (x,))
        True
    """
    if not (check_forward_ad or check_backward_ad):
        raise AssertionError(
            "Expected at least one of check_forward_ad or check_backward_ad to be True")
    if check_batched_grad and not check_backward_ad:
        raise AssertionError(
            "Setting check_batched_grad=True requires check_backward_ad to be True")
    if check_batched_forward_grad and not check_forward_ad:
        raise AssertionError(
            "Setting check_batched_forward_grad=True requires check_forward_ad to be True")
    _unsupported(masked=masked)
    run = functools.partial(_gradcheck_helper, func, inputs, eps, atol, rtol, nondet_tol,
                            check_undefined_grad, check_grad_dtypes, check_backward_ad,
                            fast_mode, check_batched_grad, check_forward_ad,
                            check_batched_forward_grad)
    if not raise_exception:
        try:
            return run()
        except GradcheckError:
            return False
    return run()


def _random_grad_output(x, noncontiguous):
    """`make_tensor(low=-1, high=1, requires_grad=True)` for an output like `x`."""
    dtype = x.dtype if x.dtype.is_floating_point else _native.float64
    with no_grad():
        if noncontiguous and x.numel() > 1:
            shape = list(x.shape)
            shape[-1] *= 2
            t = (_native.rand(shape, dtype=dtype, device=x.device) * 2 - 1)[..., ::2]
        else:
            t = _native.rand(tuple(x.shape), dtype=dtype, device=x.device) * 2 - 1
    return t.requires_grad_()


def gradgradcheck(func, inputs, grad_outputs=None, *, eps=1e-6, atol=1e-5, rtol=1e-3,
                  gen_non_contig_grad_outputs=False, raise_exception=True, nondet_tol=0.0,
                  check_undefined_grad=True, check_grad_dtypes=False,
                  check_batched_grad=False, check_fwd_over_rev=False,
                  check_rev_over_rev=True, fast_mode=False, masked=False):
    """:func:`gradcheck` of the gradients of `func` (computed with create_graph=True) with
    respect to its inputs and to ``grad_outputs`` (random in [-1, 1) when not given).

    Examples:
        >>> x = gradrs.randn(3, dtype=gradrs.float64, requires_grad=True)
        >>> gradrs.autograd.gradgradcheck(lambda t: (t ** 3).sum(), (x,))
        True
    """
    if not (check_fwd_over_rev or check_rev_over_rev):
        raise AssertionError(
            "Expected at least one of check_fwd_over_rev or check_rev_over_rev to be True")
    if check_undefined_grad and not check_rev_over_rev:
        raise AssertionError(
            "Setting check_undefined_grad=True requires check_rev_over_rev to be True")
    if check_batched_grad and not check_rev_over_rev:
        raise AssertionError(
            "Setting check_batched_grad=True requires check_rev_over_rev to be True")
    tupled_inputs = _as_tuple(inputs)
    if grad_outputs is None:
        outputs = _differentiable_outputs(func(*tupled_inputs))
        tupled_grad_outputs = tuple(_random_grad_output(x, gen_non_contig_grad_outputs)
                                    for x in outputs)
    else:
        tupled_grad_outputs = _as_tuple(grad_outputs)
    num_outputs = len(tupled_grad_outputs)
    diff_input_args_indices = {i for i, x in enumerate(tupled_inputs)
                               if _is_tensor(x) and x.requires_grad}
    diff_grad_output_indices = {i for i, x in enumerate(tupled_grad_outputs) if x.requires_grad}

    def new_func(*args):
        input_args = tuple(x.requires_grad_() if i in diff_input_args_indices else x
                           for i, x in enumerate(args[:-num_outputs]))
        outputs = _differentiable_outputs(func(*input_args))
        grad_outputs = tuple(x.requires_grad_() if i in diff_grad_output_indices else x
                             for i, x in enumerate(args[-num_outputs:]))
        diff_input_args = tuple(x for i, x in enumerate(input_args)
                                if i in diff_input_args_indices)
        grad_inputs = _grad(outputs, diff_input_args, grad_outputs, create_graph=True,
                            allow_unused=True)
        return tuple(g for g in grad_inputs if g is not None)

    return gradcheck(new_func, tupled_inputs + tupled_grad_outputs, eps=eps, atol=atol,
                     rtol=rtol, raise_exception=raise_exception, nondet_tol=nondet_tol,
                     check_undefined_grad=check_undefined_grad,
                     check_grad_dtypes=check_grad_dtypes,
                     check_batched_grad=check_batched_grad, fast_mode=fast_mode,
                     check_forward_ad=check_fwd_over_rev,
                     check_backward_ad=check_rev_over_rev, masked=masked or None)
