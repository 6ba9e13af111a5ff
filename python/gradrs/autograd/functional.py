"""`gradrs.autograd.functional`: jacobian, hessian, vjp, jvp, hvp, vhp, as PyTorch's.

Everything is built on `autograd.grad`. jvp and hvp use the double-backward trick as PyTorch's
module does (the backward is linear in its grad_output, so differentiating it with respect to a
dummy grad_output gives the forward-mode product). With `vectorize=True` the rows of a
reverse-mode Jacobian are one batched backward (`grad(is_grads_batched=True)`), as PyTorch's;
`strategy="forward-mode"` computes the columns one forward-mode pass at a time.
"""

from .. import _native
from .. import autograd as _autograd  # the package (partially initialized while it imports us)
from .._grad_mode import enable_grad, set_grad_enabled

__all__ = ["vjp", "jvp", "jacobian", "hessian", "hvp", "vhp"]


def _as_tuple_nocheck(x):
    if isinstance(x, tuple):
        return x
    if isinstance(x, list):
        return tuple(x)
    return (x,)


def _as_tuple(inp, arg_name=None, fn_name=None):
    """(whether `inp` was a tuple, `inp` as a tuple of Tensors), with PyTorch's TypeError."""
    if arg_name is None and fn_name is None:
        return _as_tuple_nocheck(inp)
    is_inp_tuple = True
    if not isinstance(inp, tuple):
        inp = (inp,)
        is_inp_tuple = False
    for i, el in enumerate(inp):
        if not isinstance(el, _native.Tensor):
            if is_inp_tuple:
                raise TypeError(
                    f"The {arg_name} given to {fn_name} must be either a Tensor or a tuple of Tensors but the"
                    f" value at index {i} has type {type(el)}."
                )
            raise TypeError(
                f"The {arg_name} given to {fn_name} must be either a Tensor or a tuple of Tensors but the"
                f" given {arg_name} has type {type(el)}."
            )
    return is_inp_tuple, inp


def _tuple_postprocess(res, to_unpack):
    """Undo `_as_tuple` on a (possibly doubly nested) result: `to_unpack` is one flag or an
    (outputs, inputs) pair of flags."""
    if isinstance(to_unpack, tuple):
        if not to_unpack[1]:
            res = tuple(el[0] for el in res)
        if not to_unpack[0]:
            res = res[0]
    elif not to_unpack:
        res = res[0]
    return res


def _grad_preprocess(inputs, create_graph, need_graph):
    # Always a new Tensor object, so the inputs given here can be told apart from the same
    # tensors captured by the user's function (PyTorch issue 32576).
    res = []
    for inp in inputs:
        if create_graph and inp.requires_grad:
            res.append(inp.view_as(inp))
        else:
            res.append(inp.detach().requires_grad_(need_graph))
    return tuple(res)


def _grad_postprocess(inputs, create_graph):
    """Results without history unless the user asked for a graph."""
    if isinstance(inputs[0], _native.Tensor):
        if not create_graph:
            return tuple(inp.detach() for inp in inputs)
        return inputs
    return tuple(_grad_postprocess(inp, create_graph) for inp in inputs)


def _validate_v(v, other, is_other_tuple):
    if len(other) != len(v):
        if is_other_tuple:
            raise RuntimeError(f"v is a tuple of invalid length: should be {len(other)} but got {len(v)}.")
        raise RuntimeError("The given v should contain a single Tensor.")
    for idx, (el_v, el_other) in enumerate(zip(v, other)):
        if el_v.size() != el_other.size():
            prepend = f"Entry {idx} in " if is_other_tuple else ""
            raise RuntimeError(
                f"{prepend}v has invalid size: should be {el_other.size()} but got {el_v.size()}."
            )


def _check_requires_grad(inputs, input_type, strict):
    """strict mode's errors for outputs, gradients, Jacobians or Hessians that do not depend
    on the inputs."""
    if not strict:
        return
    for i, inp in enumerate(inputs):
        if inp is None:
            raise RuntimeError(
                f"The output of the user-provided function is independent of input {i}."
                " This is not allowed in strict mode."
            )
        if inp.requires_grad:
            continue
        if input_type == "hessian":
            raise RuntimeError(
                f"The hessian of the user-provided function with respect to input {i}"
                " is independent of the input. This is not allowed in strict mode."
                " You should ensure that your function is thrice differentiable and that"
                " the hessian depends on the inputs."
            )
        if input_type == "jacobian":
            raise RuntimeError(
                "While computing the hessian, found that the jacobian of the user-provided"
                f" function with respect to input {i} is independent of the input. This is not"
                " allowed in strict mode. You should ensure that your function is twice"
                " differentiable and that the jacobian depends on the inputs (this would be"
                " violated by a linear function for example)."
            )
        if input_type == "grad_inputs":
            raise RuntimeError(
                f"The gradient with respect to input {i} is independent of the inputs of the"
                " user-provided function. This is not allowed in strict mode."
            )
        raise RuntimeError(
            f"Output {i} of the user-provided function does not require gradients."
            " The outputs must be computed in a differentiable manner from the input"
            " when running in strict mode."
        )


def _autograd_grad(outputs, inputs, grad_outputs=None, create_graph=False, retain_graph=None,
                   is_grads_batched=False):
    """`autograd.grad` that skips outputs which are None or need no gradient (all skipped:
    a None per input, without calling the engine)."""
    if grad_outputs is None:
        grad_outputs = (None,) * len(outputs)
    new_outputs = []
    new_grad_outputs = []
    for out, grad_out in zip(outputs, grad_outputs):
        if out is not None and out.requires_grad:
            new_outputs.append(out)
            new_grad_outputs.append(grad_out)
    if not new_outputs:
        return (None,) * len(inputs)
    return _autograd.grad(new_outputs, inputs, new_grad_outputs, allow_unused=True,
                          create_graph=create_graph, retain_graph=retain_graph,
                          is_grads_batched=is_grads_batched)


def _fill_in_zeros(grads, refs, strict, create_graph, stage):
    """Zeros for the inputs a result does not depend on, or strict mode's error for `stage`."""
    res = ()
    for i, grads_i in enumerate(grads):
        if grads_i is None:
            if strict:
                if stage == "back":
                    raise RuntimeError(
                        "The output of the user-provided function is independent of "
                        f"input {i}. This is not allowed in strict mode."
                    )
                if stage == "back_trick":
                    raise RuntimeError(
                        f"The gradient with respect to the input is independent of entry {i}"
                        " in the grad_outputs when using the double backward trick to compute"
                        " forward mode gradients. This is not allowed in strict mode."
                    )
                if stage == "double_back":
                    raise RuntimeError(
                        "The jacobian of the user-provided function is independent of "
                        f"input {i}. This is not allowed in strict mode."
                    )
                raise RuntimeError(
                    "The hessian of the user-provided function is independent of "
                    f"entry {i} in the grad_jacobian. This is not allowed in strict "
                    "mode as it prevents from using the double backward trick to "
                    "replace forward mode AD."
                )
            grads_i = _native.zeros_like(refs[i])
        elif strict and create_graph and not grads_i.requires_grad:
            if "double" not in stage:
                raise RuntimeError(
                    "The jacobian of the user-provided function is independent of "
                    f"input {i}. This is not allowed in strict mode when create_graph=True."
                )
            raise RuntimeError(
                "The hessian of the user-provided function is independent of "
                f"input {i}. This is not allowed in strict mode when create_graph=True."
            )
        res += (grads_i,)
    return res


def vjp(func, inputs, v=None, create_graph=False, strict=False):
    """(func(inputs), v^T J): the vector-Jacobian product at `inputs`.

    Examples:
        >>> gradrs.autograd.functional.vjp(lambda x: x ** 2, gradrs.tensor([1.0, 2.0]), gradrs.tensor([1.0, 1.0]))
        (tensor([1., 4.]), tensor([2., 4.]))
    """
    with enable_grad():
        is_inputs_tuple, inputs = _as_tuple(inputs, "inputs", "vjp")
        inputs = _grad_preprocess(inputs, create_graph=create_graph, need_graph=True)
        outputs = func(*inputs)
        is_outputs_tuple, outputs = _as_tuple(outputs, "outputs of the user-provided function", "vjp")
        _check_requires_grad(outputs, "outputs", strict=strict)
        if v is not None:
            _, v = _as_tuple(v, "v", "vjp")
            v = _grad_preprocess(v, create_graph=create_graph, need_graph=False)
            _validate_v(v, outputs, is_outputs_tuple)
        elif len(outputs) != 1 or outputs[0].nelement() != 1:
            raise RuntimeError(
                "The vector v can only be None if the user-provided function returns "
                "a single Tensor with a single element."
            )
    with set_grad_enabled(True if create_graph else _native.is_grad_enabled()):
        grad_res = _autograd_grad(outputs, inputs, v, create_graph=create_graph)
        result = _fill_in_zeros(grad_res, inputs, strict, create_graph, "back")
    outputs = _grad_postprocess(outputs, create_graph)
    result = _grad_postprocess(result, create_graph)
    return _tuple_postprocess(outputs, is_outputs_tuple), _tuple_postprocess(result, is_inputs_tuple)


def jvp(func, inputs, v=None, create_graph=False, strict=False):
    """(func(inputs), J v): the Jacobian-vector product, by the double-backward trick.

    Examples:
        >>> gradrs.autograd.functional.jvp(lambda x: x ** 2, gradrs.tensor([1.0, 2.0]), gradrs.tensor([1.0, 0.0]))
        (tensor([1., 4.]), tensor([2., 0.]))
    """
    with enable_grad():
        is_inputs_tuple, inputs = _as_tuple(inputs, "inputs", "jvp")
        inputs = _grad_preprocess(inputs, create_graph=create_graph, need_graph=True)
        if v is not None:
            _, v = _as_tuple(v, "v", "jvp")
            v = _grad_preprocess(v, create_graph=create_graph, need_graph=False)
            _validate_v(v, inputs, is_inputs_tuple)
        elif len(inputs) != 1 or inputs[0].nelement() != 1:
            raise RuntimeError(
                "The vector v can only be None if the input to the user-provided function "
                "is a single Tensor with a single element."
            )
        outputs = func(*inputs)
        is_outputs_tuple, outputs = _as_tuple(outputs, "outputs of the user-provided function", "jvp")
        _check_requires_grad(outputs, "outputs", strict=strict)
        # The backward is linear in grad_outputs, so their value never reaches the result;
        # zeros (not NaN or inf) keep it finite.
        grad_outputs = tuple(_native.zeros_like(out, requires_grad=True) for out in outputs)
        grad_inputs = _autograd_grad(outputs, inputs, grad_outputs, create_graph=True)
        _check_requires_grad(grad_inputs, "grad_inputs", strict=strict)
    with set_grad_enabled(True if create_graph else _native.is_grad_enabled()):
        grad_res = _autograd_grad(grad_inputs, grad_outputs, v, create_graph=create_graph)
        result = _fill_in_zeros(grad_res, outputs, strict, create_graph, "back_trick")
    outputs = _grad_postprocess(outputs, create_graph)
    result = _grad_postprocess(result, create_graph)
    return _tuple_postprocess(outputs, is_outputs_tuple), _tuple_postprocess(result, is_outputs_tuple)


def _standard_basis(tensors, numels):
    """The N x N identity (N = sum of `numels`) cut into one column block per tensor, each in
    that tensor's dtype and device: row k is the k-th basis vector over all tensors."""
    total = sum(numels)
    chunks = tuple(t.new_zeros(total, n) for t, n in zip(tensors, numels))
    start = 0
    for chunk, n in zip(chunks, numels):
        chunk.diagonal(start).fill_(1)
        start -= n
    return chunks


def _jacfwd(func, inputs, strict=False, vectorize=False):
    """The Jacobian column by column, by forward-mode AD as PyTorch's: for every basis vector
    e_k of the inputs, one forward pass at a dual level with tangents e_k gives J e_k (PyTorch
    batches these passes with vmap; the columns, and their graph to primals that require
    grad, are the same)."""
    from . import forward_ad as fwAD

    if strict:
        raise RuntimeError(
            "gradrs.autograd.functional.jacobian: `strict=True` "
            'and `strategy="forward-mode"` are not supported together (yet). '
            "Please either set `strict=False` or "
            '`strategy="reverse-mode"`.'
        )
    is_inputs_tuple, inputs = _as_tuple(inputs, "inputs", "jacobian")
    if not vectorize:
        raise NotImplementedError(
            "Computing Jacobian using forward-AD or forward-over-reverse Hessian is"
            "only implemented for `vectorize=True`."
        )
    input_numels = tuple(inp.numel() for inp in inputs)
    tangents = _standard_basis(inputs, input_numels)
    # columns[i][k]: J_i e_k, the k-th column of output i's Jacobian, flattened.
    columns, primals, is_outputs_tuple = None, (), False
    for k in range(sum(input_numels)):
        with fwAD.dual_level():
            duals = tuple(fwAD.make_dual(inp, t[k].view_as(inp))
                          for inp, t in zip(inputs, tangents))
            is_outputs_tuple, outputs = _as_tuple(func(*duals), "outputs")
            unpacked = [fwAD.unpack_dual(out) for out in outputs]
        primals = [u.primal for u in unpacked]
        if columns is None:
            columns = [[] for _ in unpacked]
        for i, u in enumerate(unpacked):
            tangent = u.tangent if u.tangent is not None else _native.zeros_like(u.primal)
            columns[i].append(tangent.reshape(-1))
    jacobian = []
    for cols, out in zip(columns, primals):
        full = _native.stack(cols, dim=1)  # (out.numel(), N), in the output's dtype
        jacobian.append([jac.reshape((*out.shape, *inp.shape))
                         for jac, inp in zip(full.split(input_numels, dim=1), inputs)])
    return _tuple_postprocess(jacobian, (is_outputs_tuple, is_inputs_tuple))


def jacobian(func, inputs, create_graph=False, strict=False, vectorize=False, strategy="reverse-mode"):
    """The Jacobian of `func` at `inputs`: `J[i][j]` of shape output_i.shape + input_j.shape,
    nested as the outputs and inputs are (a Tensor, a tuple, or a tuple of tuples).

    Examples:
        >>> gradrs.autograd.functional.jacobian(lambda x: x ** 2, gradrs.tensor([1.0, 2.0]))
        tensor([[2., 0.],
                [0., 4.]])
    """
    if strategy not in ("forward-mode", "reverse-mode"):
        raise AssertionError(
            'Expected strategy to be either "forward-mode" or "reverse-mode". Hint: If your '
            'function has more outputs than inputs, "forward-mode" tends to be more performant. '
            'Otherwise, prefer to use "reverse-mode".'
        )
    if strategy == "forward-mode":
        if create_graph:
            raise NotImplementedError(
                "gradrs.autograd.functional.jacobian: `create_graph=True` "
                'and `strategy="forward-mode"` are not supported together (yet). '
                "Please either set `create_graph=False` or "
                '`strategy="reverse-mode"`.'
            )
        return _jacfwd(func, inputs, strict, vectorize)

    with enable_grad():
        is_inputs_tuple, inputs = _as_tuple(inputs, "inputs", "jacobian")
        inputs = _grad_preprocess(inputs, create_graph=create_graph, need_graph=True)
        outputs = func(*inputs)
        is_outputs_tuple, outputs = _as_tuple(outputs, "outputs of the user-provided function", "jacobian")
        _check_requires_grad(outputs, "outputs", strict=strict)

        if vectorize:
            if strict:
                raise RuntimeError(
                    "gradrs.autograd.functional.jacobian: `strict=True` "
                    "and `vectorized=True` are not supported together. "
                    "Please either set `strict=False` or "
                    "`vectorize=False`."
                )
            # As PyTorch's: the whole standard basis of the outputs through one batched
            # autograd.grad, a (sum of output numels, *input.shape) block per input, split by
            # output.
            output_numels = tuple(out.numel() for out in outputs)
            grad_outputs = _standard_basis(outputs, output_numels)
            flat_outputs = tuple(out.reshape(-1) for out in outputs)
            total = sum(output_numels)
            vj = _autograd_grad(flat_outputs, inputs, grad_outputs, create_graph=create_graph,
                                is_grads_batched=True) if total else (None,) * len(inputs)
            jacobian_input_output = []
            for vj_el, inp in zip(vj, inputs):
                block = vj_el if vj_el is not None else _native.zeros_like(inp).expand(
                    (total, *inp.shape))
                jacobian_input_output.append([jac.view(out.shape + inp.shape)
                                              for jac, out in zip(block.split(output_numels, dim=0), outputs)])
            jacobian_output_input = _grad_postprocess(tuple(zip(*jacobian_input_output)), create_graph)
            return _tuple_postprocess(jacobian_output_input, (is_outputs_tuple, is_inputs_tuple))

        jacobian = ()
        for i, out in enumerate(outputs):
            jac_i = tuple([] for _ in range(len(inputs)))
            for j in range(out.nelement()):
                vj = _autograd_grad((out.reshape(-1)[j],), inputs, retain_graph=True, create_graph=create_graph)
                for el_idx, (jac_i_el, vj_el, inp_el) in enumerate(zip(jac_i, vj, inputs)):
                    if vj_el is not None:
                        if strict and create_graph and not vj_el.requires_grad:
                            raise RuntimeError(
                                "The jacobian of the user-provided function is "
                                f"independent of input {i}. This is not allowed in "
                                "strict mode when create_graph=True."
                            )
                        jac_i_el.append(vj_el)
                    else:
                        if strict:
                            raise RuntimeError(
                                f"Output {i} of the user-provided function is "
                                f"independent of input {el_idx}. This is not allowed in "
                                "strict mode."
                            )
                        jac_i_el.append(_native.zeros_like(inp_el))
            jacobian += (tuple(_native.stack(jac_i_el, dim=0).view(out.size() + inputs[el_idx].size())
                               for el_idx, jac_i_el in enumerate(jac_i)),)
        jacobian = _grad_postprocess(jacobian, create_graph)
        return _tuple_postprocess(jacobian, (is_outputs_tuple, is_inputs_tuple))


def hessian(func, inputs, create_graph=False, strict=False, vectorize=False, outer_jacobian_strategy="reverse-mode"):
    """The Hessian of a scalar `func`: the Jacobian of its Jacobian; `H[i][j]` of shape
    input_i.shape + input_j.shape.

    Examples:
        >>> gradrs.autograd.functional.hessian(lambda x: (x ** 3).sum(), gradrs.tensor([1.0, 2.0]))
        tensor([[ 6.,  0.],
                [ 0., 12.]])
    """
    is_inputs_tuple, inputs = _as_tuple(inputs, "inputs", "hessian")
    if outer_jacobian_strategy not in ("forward-mode", "reverse-mode"):
        raise AssertionError('Expected strategy to be either "forward-mode" or "reverse-mode".')

    def ensure_single_output_function(*inp):
        out = func(*inp)
        is_out_tuple, t_out = _as_tuple(out, "outputs of the user-provided function", "hessian")
        _check_requires_grad(t_out, "outputs", strict=strict)
        if is_out_tuple or not isinstance(out, _native.Tensor):
            raise RuntimeError("The function given to hessian should return a single Tensor")
        if out.nelement() != 1:
            raise RuntimeError(
                "The Tensor returned by the function given to hessian should contain a single element"
            )
        return out.squeeze()

    def jac_func(*inp):
        if outer_jacobian_strategy == "forward-mode":
            inp = tuple(t.requires_grad_(True) for t in inp)
        jac = jacobian(ensure_single_output_function, inp, create_graph=True)
        _check_requires_grad(jac, "jacobian", strict=strict)
        return jac

    res = jacobian(jac_func, inputs, create_graph=create_graph, strict=strict, vectorize=vectorize,
                   strategy=outer_jacobian_strategy)
    return _tuple_postprocess(res, (is_inputs_tuple, is_inputs_tuple))


def _scalar_function_setup(func, inputs, v, create_graph, strict, name):
    """The common first half of vhp and hvp: inputs, v, the single-element output, and the
    Jacobian with its graph."""
    is_inputs_tuple, inputs = _as_tuple(inputs, "inputs", name)
    inputs = _grad_preprocess(inputs, create_graph=create_graph, need_graph=True)
    if v is not None:
        _, v = _as_tuple(v, "v", name)
        v = _grad_preprocess(v, create_graph=create_graph, need_graph=False)
        _validate_v(v, inputs, is_inputs_tuple)
    elif len(inputs) != 1 or inputs[0].nelement() != 1:
        raise RuntimeError(
            "The vector v can only be None if the input to the user-provided function "
            "is a single Tensor with a single element."
        )
    outputs = func(*inputs)
    is_outputs_tuple, outputs = _as_tuple(outputs, "outputs of the user-provided function", name)
    _check_requires_grad(outputs, "outputs", strict=strict)
    if is_outputs_tuple or not isinstance(outputs[0], _native.Tensor):
        raise RuntimeError(f"The function given to {name} should return a single Tensor")
    if outputs[0].nelement() != 1:
        raise RuntimeError(f"The Tensor returned by the function given to {name} should contain a single element")
    jac = _autograd_grad(outputs, inputs, create_graph=True)
    _check_requires_grad(jac, "jacobian", strict=strict)
    return is_inputs_tuple, inputs, v, is_outputs_tuple, outputs, jac


def vhp(func, inputs, v=None, create_graph=False, strict=False):
    """(func(inputs), v^T H) for a scalar `func`."""
    with enable_grad():
        is_inputs_tuple, inputs, v, is_outputs_tuple, outputs, jac = _scalar_function_setup(
            func, inputs, v, create_graph, strict, "vhp")
    with set_grad_enabled(True if create_graph else _native.is_grad_enabled()):
        grad_res = _autograd_grad(jac, inputs, v, create_graph=create_graph)
        result = _fill_in_zeros(grad_res, inputs, strict, create_graph, "double_back")
    outputs = _grad_postprocess(outputs, create_graph)
    result = _grad_postprocess(result, create_graph)
    return _tuple_postprocess(outputs, is_outputs_tuple), _tuple_postprocess(result, is_inputs_tuple)


def hvp(func, inputs, v=None, create_graph=False, strict=False):
    """(func(inputs), H v) for a scalar `func`, by the double-backward trick.

    Examples:
        >>> gradrs.autograd.functional.hvp(lambda x: (x ** 3).sum(), gradrs.tensor([1.0, 2.0]), gradrs.tensor([1.0, 0.0]))
        (tensor(9.), tensor([6., 0.]))
    """
    with enable_grad():
        is_inputs_tuple, inputs, v, is_outputs_tuple, outputs, jac = _scalar_function_setup(
            func, inputs, v, create_graph, strict, "hvp")
        grad_jac = tuple(_native.zeros_like(inp, requires_grad=True) for inp in inputs)
        double_back = _autograd_grad(jac, inputs, grad_jac, create_graph=True)
        # PyTorch checks `jac` again here (not `double_back`); kept so errors match.
        _check_requires_grad(jac, "hessian", strict=strict)
    with set_grad_enabled(True if create_graph else _native.is_grad_enabled()):
        grad_res = _autograd_grad(double_back, grad_jac, v, create_graph=create_graph)
        result = _fill_in_zeros(grad_res, inputs, strict, create_graph, "double_back_trick")
    outputs = _grad_postprocess(outputs, create_graph)
    result = _grad_postprocess(result, create_graph)
    return _tuple_postprocess(outputs, is_outputs_tuple), _tuple_postprocess(result, is_inputs_tuple)
