"""Attention functions of `gradrs.nn.functional`: scaled_dot_product_attention,
multi_head_attention_forward (compositions of matmul, softmax and dropout, PyTorch's math path
step for step: the fused kernels PyTorch may pick (flash, memory-efficient) compute the same
values).
"""

from __future__ import annotations

from ... import _native
from ._helpers import _check_tensor_args
from ._activation import softmax
from ._linear import linear
from ._dropout import dropout
from ._padding import pad


# Compositions of matmul, softmax and dropout, PyTorch's math path step for step: the fused
# kernels PyTorch may pick (flash, memory-efficient) compute the same values.

_CPP_DTYPE = {"float16": "c10::Half", "float32": "float", "float64": "double",
              "int32": "int", "int64": "long int", "bool": "bool", "bfloat16": "c10::BFloat16",
              "uint8": "unsigned char", "int8": "signed char", "int16": "short int"}


def _cpp_dtype(dtype):
    name = str(dtype).split(".")[-1]
    return _CPP_DTYPE.get(name, name)


def _safe_softmax(x, dim):
    # aten::_safe_softmax: a row whose scores are all -inf gives zeros instead of NaN. The
    # masked rows are replaced before softmax too, so their gradient is zero, not NaN.
    masked_rows = (x == float("-inf")).all(dim, keepdim=True)
    out = x.masked_fill(masked_rows, 0.0).softmax(dim)
    return out.masked_fill(masked_rows, 0.0)


def _repeat_heads(t, repeats):
    # t.repeat_interleave(repeats, -3)
    if repeats == 1:
        return t
    shape = list(t.shape)
    out = t.unsqueeze(-3).expand(*shape[:-2], repeats, *shape[-2:])
    return out.reshape(*shape[:-3], shape[-3] * repeats, *shape[-2:])


def _flash_runs(query, key, value, attn_mask, dropout_p, enable_gqa):
    """Whether PyTorch would run these inputs through its CPU flash kernel (tried first)."""
    if query.device.type != "cpu":
        return False
    from ...backends import cuda
    from ..attention import _flash_cpu_refusals

    return cuda._sdp["flash"] and _flash_cpu_refusals(query, key, value, attn_mask, dropout_p,
                                                      enable_gqa) == ()


def scaled_dot_product_attention(query, key, value, attn_mask=None, dropout_p=0.0,
                                 is_causal=False, *, scale=None, enable_gqa=False):
    """Attention softmax(Q K^T * scale + mask) V over the last two
    dimensions, with PyTorch's math definition (a query with no key to attend gets zeros).

    Args:
        query: shape (..., L, E).
        key: shape (..., S, E).
        value: shape (..., S, Ev).
        attn_mask: a boolean mask (True = attend) or an additive float mask, broadcastable to
            (..., L, S).
        dropout_p: dropout probability on the attention weights (default 0).
        is_causal: mask out keys after each query (a lower-triangular mask).
        scale: the factor of the scores (default 1 / sqrt(E)).
        enable_gqa: let query heads share key/value heads (grouped-query attention).

    Examples:
        >>> import gradrs.nn.functional as F
        >>> q = k = v = gradrs.ones(1, 2, 3, 4)
        >>> F.scaled_dot_product_attention(q, k, v, is_causal=True).shape
        gradrs.Size([1, 2, 3, 4])
    """
    import math

    from ... import bool as bool_, float32, ones, zeros_like

    if not (query.dtype == key.dtype == value.dtype):
        raise RuntimeError(
            "Expected query, key, and value to have the same dtype, but got query.dtype: "
            f"{_cpp_dtype(query.dtype)} key.dtype: {_cpp_dtype(key.dtype)} and value.dtype: "
            f"{_cpp_dtype(value.dtype)} instead.")
    if not (query.device == key.device == value.device):
        raise RuntimeError(
            "Expected query, key, and value to have the same device type, but got "
            f"query.device: {query.device} key.device: {key.device} and value.device: "
            f"{value.device} instead.")
    if query.dim() < 2 or key.dim() < 2 or value.dim() < 2:
        raise RuntimeError(
            "Expected query, key, and value to all be  at least 2 dimensional, but got "
            f"query.dim: {query.dim()} key.dim: {key.dim()} and value.dim: {value.dim()} "
            "instead.")
    if attn_mask is not None and attn_mask.dtype not in (bool_, float32, query.dtype):
        raise RuntimeError(
            "Expected attn_mask dtype to be bool or float or to match query dtype, but got "
            f"attn_mask.dtype: {_cpp_dtype(attn_mask.dtype)} and  query.dtype: "
            f"{_cpp_dtype(query.dtype)} instead.")
    if query.device.type == "cpu":
        from ..attention import _check_cpu_backend

        _check_cpu_backend(query, key, value, attn_mask, dropout_p, enable_gqa)
    out_dtype = query.dtype
    if out_dtype == _native.float16:
        # PyTorch's math path keeps half inputs' intermediates in float32
        query, key, value = query.float(), key.float(), value.float()
    if is_causal:
        # Lower-triangular (upper-left aligned) causal mask, as a boolean mask.
        causal = ones(query.shape[-2], key.shape[-2], dtype=bool_, device=query.device).tril()
        if attn_mask is None:
            attn_mask = causal
        elif _flash_runs(query, key, value, attn_mask, dropout_p, enable_gqa):
            # PyTorch's CPU flash kernel takes both: the mask, then causality on top of it
            attn_mask = (attn_mask & causal if attn_mask.dtype == bool_
                         else attn_mask.masked_fill(causal.logical_not(), float("-inf")))
        else:
            raise RuntimeError("_scaled_dot_product_attention: Explicit attn_mask should not "
                               "be set when is_causal=True")
    if attn_mask is not None and attn_mask.dtype == bool_:
        attn_mask = zeros_like(attn_mask, dtype=query.dtype).masked_fill_(
            attn_mask.logical_not(), float("-inf"))
    if enable_gqa and query.dim() >= 3:
        hq, hk, hv = query.shape[-3], key.shape[-3], value.shape[-3]
        if hq % hk != 0 or hq % hv != 0:
            # PyTorch's message, cut short as PyTorch prints it.
            raise RuntimeError("Number of heads in key and value must divide the number of "
                               "heads in ")
        key, value = _repeat_heads(key, hq // hk), _repeat_heads(value, hq // hv)
    if scale is None:
        scale = 1.0 / math.sqrt(query.shape[-1])
    # q and k are each scaled by sqrt(scale) before the product (PyTorch's math path, for
    # stability); a negative scale goes on q alone.
    factor = math.sqrt(abs(scale))
    q = query * (-factor if scale < 0 else factor)
    attn = q.matmul(key.transpose(-2, -1) * factor)
    if attn_mask is not None:
        attn.add_(attn_mask)
    attn = _safe_softmax(attn, -1)
    if dropout_p > 0.0:
        if dropout_p > 1.0:
            raise RuntimeError(
                f"dropout probability has to be between 0 and 1, but got {dropout_p}")
        attn = dropout(attn, dropout_p, True)
    out = attn.matmul(value)
    return out if out.dtype == out_dtype else out.to(out_dtype)


def _in_projection_packed(q, k, v, w, b=None):
    e = q.shape[-1]
    if k is v:
        if q is k:
            # self-attention: one projection, split into (q, k, v)
            proj = linear(q, w, b).unflatten(-1, (3, e)).unsqueeze(0).transpose(0, -2)
            proj = proj.squeeze(-2).contiguous()
            return proj[0], proj[1], proj[2]
        # encoder-decoder attention: q alone, k and v from one projection
        w_q, w_kv = w.split([e, e * 2])
        b_q, b_kv = (None, None) if b is None else b.split([e, e * 2])
        kv = linear(k, w_kv, b_kv).unflatten(-1, (2, e)).unsqueeze(0).transpose(0, -2)
        kv = kv.squeeze(-2).contiguous()
        return linear(q, w_q, b_q), kv[0], kv[1]
    w_q, w_k, w_v = w.chunk(3)
    b_q, b_k, b_v = (None, None, None) if b is None else b.chunk(3)
    return linear(q, w_q, b_q), linear(k, w_k, b_k), linear(v, w_v, b_v)


def _in_projection(q, k, v, w_q, w_k, w_v, b_q=None, b_k=None, b_v=None):
    eq, ek, ev = q.shape[-1], k.shape[-1], v.shape[-1]
    for name, w, want in (("query", w_q, (eq, eq)), ("key", w_k, (eq, ek)),
                          ("value", w_v, (eq, ev))):
        if tuple(w.shape) != want:
            raise AssertionError(
                f"expecting {name} weights shape of {want}, but got {w.shape}")
    for name, b in (("query", b_q), ("key", b_k), ("value", b_v)):
        if b is not None and tuple(b.shape) != (eq,):
            raise AssertionError(f"expecting {name} bias shape of {(eq,)}, but got {b.shape}")
    return linear(q, w_q, b_q), linear(k, w_k, b_k), linear(v, w_v, b_v)


def _mha_shape_check(query, key, value, key_padding_mask, attn_mask, num_heads):
    if query.dim() == 3:
        if key.dim() != 3 or value.dim() != 3:
            raise AssertionError(
                "For batched (3-D) `query`, expected `key` and `value` to be 3-D but found "
                f"{key.dim()}-D and {value.dim()}-D tensors respectively")
        if key_padding_mask is not None and key_padding_mask.dim() != 2:
            raise AssertionError(
                "For batched (3-D) `query`, expected `key_padding_mask` to be `None` or 2-D "
                f"but found {key_padding_mask.dim()}-D tensor instead")
        if attn_mask is not None and attn_mask.dim() not in (2, 3):
            raise AssertionError(
                "For batched (3-D) `query`, expected `attn_mask` to be `None`, 2-D or 3-D "
                f"but found {attn_mask.dim()}-D tensor instead")
        return True
    if query.dim() == 2:
        if key.dim() != 2 or value.dim() != 2:
            raise AssertionError(
                "For unbatched (2-D) `query`, expected `key` and `value` to be 2-D but found "
                f"{key.dim()}-D and {value.dim()}-D tensors respectively")
        if key_padding_mask is not None and key_padding_mask.dim() != 1:
            raise AssertionError(
                "For unbatched (2-D) `query`, expected `key_padding_mask` to be `None` or 1-D "
                f"but found {key_padding_mask.dim()}-D tensor instead")
        if attn_mask is not None:
            if attn_mask.dim() not in (2, 3):
                raise AssertionError(
                    "For unbatched (2-D) `query`, expected `attn_mask` to be `None`, 2-D or "
                    f"3-D but found {attn_mask.dim()}-D tensor instead")
            if attn_mask.dim() == 3:
                expected = (num_heads, query.shape[0], key.shape[0])
                if tuple(attn_mask.shape) != expected:
                    raise AssertionError(
                        f"Expected `attn_mask` shape to be {expected} but got {attn_mask.shape}")
        return False
    raise AssertionError("query should be unbatched 2D or batched 3D tensor but received "
                         f"{query.dim()}-D query tensor")


def _canonical_mask(mask, mask_name, other_type, other_name, target_type, check_other=True):
    """A bool mask becomes a float mask of ``target_type`` (-inf where True); a float mask
    is returned as is."""
    if mask is None:
        return None
    from ... import bool as bool_, zeros_like

    is_float = mask.is_floating_point()
    if mask.dtype != bool_ and not is_float:
        raise AssertionError(f"only bool and floating types of {mask_name} are supported")
    if check_other and other_type is not None and mask.dtype != other_type:
        import warnings

        warnings.warn(f"Support for mismatched {mask_name} and {other_name} is deprecated. "
                      "Use same type for both instead.", stacklevel=2)
    if not is_float:
        mask = zeros_like(mask, dtype=target_type).masked_fill_(mask, float("-inf"))
    return mask


def _none_or_dtype(input):
    if input is None:
        return None
    if isinstance(input, _native.Tensor):
        return input.dtype
    raise RuntimeError("input to _none_or_dtype() must be None or gradrs.Tensor")


def multi_head_attention_forward(query, key, value, embed_dim_to_check, num_heads,
                                 in_proj_weight, in_proj_bias, bias_k, bias_v, add_zero_attn,
                                 dropout_p, out_proj_weight, out_proj_bias, training=True,
                                 key_padding_mask=None, need_weights=True, attn_mask=None,
                                 use_separate_proj_weight=False, q_proj_weight=None,
                                 k_proj_weight=None, v_proj_weight=None, static_k=None,
                                 static_v=None, average_attn_weights=True, is_causal=False):
    """The computation of `nn.MultiheadAttention`: input
    projections, scaled dot-product attention per head, output projection. Arguments are the
    module's tensors and flags; see `nn.MultiheadAttention` for their meaning.

    Args:
        query: shape (L, N, E) (or (L, E) unbatched).
        key: shape (S, N, E).
        value: shape (S, N, E).
        embed_dim_to_check: E, checked against the inputs.
        num_heads: the number of heads; divides E.
        in_proj_weight: the packed q, k, v projection (3E, E), or None with separate weights.
        in_proj_bias: its bias (3E).
        bias_k: a bias row appended to the keys, or None.
        bias_v: a bias row appended to the values, or None.
        add_zero_attn: append a zero row to keys and values.
        dropout_p: dropout on the attention weights.
        out_proj_weight: the output projection (E, E).
        out_proj_bias: its bias (E).
        training: apply dropout.
        key_padding_mask: keys to ignore, shape (N, S).
        need_weights: also return the attention weights.
        attn_mask: a mask of shape (L, S) or (N * num_heads, L, S).

    Examples:
        >>> import gradrs.nn.functional as F
        >>> mha = gradrs.nn.MultiheadAttention(4, 2)
        >>> x = gradrs.ones(3, 1, 4)
        >>> out, w = F.multi_head_attention_forward(x, x, x, 4, 2, mha.in_proj_weight, mha.in_proj_bias, None, None, False, 0.0, mha.out_proj.weight, mha.out_proj.bias)
        >>> out.shape, w.shape
        (gradrs.Size([3, 1, 4]), gradrs.Size([1, 3, 3]))
    """
    import math

    from ... import cat, zeros

    is_batched = _mha_shape_check(query, key, value, key_padding_mask, attn_mask, num_heads)
    if not is_batched:
        # Computed as a batch of one, squeezed at the end.
        query, key, value = query.unsqueeze(1), key.unsqueeze(1), value.unsqueeze(1)
        if key_padding_mask is not None:
            key_padding_mask = key_padding_mask.unsqueeze(0)

    tgt_len, bsz, embed_dim = query.shape
    src_len = key.shape[0]
    key_padding_mask = _canonical_mask(key_padding_mask, "key_padding_mask",
                                       _none_or_dtype(attn_mask), "attn_mask", query.dtype)
    if is_causal and attn_mask is None:
        raise RuntimeError(
            "Need attn_mask if specifying the is_causal hint. You may use the Transformer "
            "module method `generate_square_subsequent_mask` to create this mask.")
    if is_causal and key_padding_mask is None and not need_weights:
        # The hint alone drives scaled_dot_product_attention.
        attn_mask = None
    else:
        attn_mask = _canonical_mask(attn_mask, "attn_mask", None, "", query.dtype,
                                    check_other=False)
        if key_padding_mask is not None:
            # merged with the padding mask below, it is no longer causal
            is_causal = False

    if embed_dim != embed_dim_to_check:
        raise AssertionError(
            f"was expecting embedding dimension of {embed_dim_to_check}, but got {embed_dim}")
    head_dim = embed_dim // num_heads
    if head_dim * num_heads != embed_dim:
        raise AssertionError(f"embed_dim {embed_dim} not divisible by num_heads {num_heads}")
    if use_separate_proj_weight:
        if key.shape[:2] != value.shape[:2]:
            raise AssertionError(f"key's sequence and batch dims {key.shape[:2]} do not match "
                                 f"value's {value.shape[:2]}")
    elif key.shape != value.shape:
        raise AssertionError(f"key shape {key.shape} does not match value shape {value.shape}")

    if not use_separate_proj_weight:
        if in_proj_weight is None:
            raise AssertionError("use_separate_proj_weight is False but in_proj_weight is None")
        q, k, v = _in_projection_packed(query, key, value, in_proj_weight, in_proj_bias)
    else:
        for name, w in (("q", q_proj_weight), ("k", k_proj_weight), ("v", v_proj_weight)):
            if w is None:
                raise AssertionError(
                    f"use_separate_proj_weight is True but {name}_proj_weight is None")
        b_q, b_k, b_v = (None, None, None) if in_proj_bias is None else in_proj_bias.chunk(3)
        q, k, v = _in_projection(query, key, value, q_proj_weight, k_proj_weight,
                                 v_proj_weight, b_q, b_k, b_v)

    if attn_mask is not None:
        if attn_mask.dim() == 2:
            if tuple(attn_mask.shape) != (tgt_len, src_len):
                raise RuntimeError(f"The shape of the 2D attn_mask is {attn_mask.shape}, but "
                                   f"should be {(tgt_len, src_len)}.")
            attn_mask = attn_mask.unsqueeze(0)
        elif attn_mask.dim() == 3:
            want = (bsz * num_heads, tgt_len, src_len)
            if tuple(attn_mask.shape) != want:
                raise RuntimeError(f"The shape of the 3D attn_mask is {attn_mask.shape}, but "
                                   f"should be {want}.")
        else:
            raise RuntimeError(f"attn_mask's dimension {attn_mask.dim()} is not supported")

    if bias_k is not None and bias_v is not None:
        if static_k is not None:
            raise AssertionError("bias cannot be added to static key.")
        if static_v is not None:
            raise AssertionError("bias cannot be added to static value.")
        k = cat([k, bias_k.repeat(1, bsz, 1)])
        v = cat([v, bias_v.repeat(1, bsz, 1)])
        if attn_mask is not None:
            attn_mask = pad(attn_mask, (0, 1))
        if key_padding_mask is not None:
            key_padding_mask = pad(key_padding_mask, (0, 1))
    elif bias_k is not None:
        raise AssertionError("bias_k is set but bias_v is None")
    elif bias_v is not None:
        raise AssertionError("bias_v is set but bias_k is None")

    # heads folded into the batch, batch first: (bsz * num_heads, len, head_dim)
    q = q.view(tgt_len, bsz * num_heads, head_dim).transpose(0, 1)
    if static_k is None:
        k = k.view(k.shape[0], bsz * num_heads, head_dim).transpose(0, 1)
    else:
        if static_k.size(0) != bsz * num_heads:
            raise AssertionError(f"expecting static_k.size(0) of {bsz * num_heads}, but got "
                                 f"{static_k.size(0)}")
        if static_k.size(2) != head_dim:
            raise AssertionError(
                f"expecting static_k.size(2) of {head_dim}, but got {static_k.size(2)}")
        k = static_k
    if static_v is None:
        v = v.view(v.shape[0], bsz * num_heads, head_dim).transpose(0, 1)
    else:
        if static_v.size(0) != bsz * num_heads:
            raise AssertionError(f"expecting static_v.size(0) of {bsz * num_heads}, but got "
                                 f"{static_v.size(0)}")
        if static_v.size(2) != head_dim:
            raise AssertionError(
                f"expecting static_v.size(2) of {head_dim}, but got {static_v.size(2)}")
        v = static_v

    if add_zero_attn:
        zero_shape = (bsz * num_heads, 1, head_dim)
        k = cat([k, zeros(zero_shape, dtype=k.dtype, device=k.device)], dim=1)
        v = cat([v, zeros(zero_shape, dtype=v.dtype, device=v.device)], dim=1)
        if attn_mask is not None:
            attn_mask = pad(attn_mask, (0, 1))
        if key_padding_mask is not None:
            key_padding_mask = pad(key_padding_mask, (0, 1))

    src_len = k.size(1)
    if key_padding_mask is not None:
        if key_padding_mask.shape[0] != bsz:
            raise AssertionError(f"Expected key_padded_mask.shape[0] to be {bsz}, but got "
                                 f"{key_padding_mask.shape[0]}")
        if key_padding_mask.shape[1] != src_len:
            raise AssertionError(f"Expected key_padded_mask.shape[1] to be {src_len}, but got "
                                 f"{key_padding_mask.shape[1]}")
        key_padding_mask = (key_padding_mask.view(bsz, 1, 1, src_len)
                            .expand(-1, num_heads, -1, -1)
                            .reshape(bsz * num_heads, 1, src_len))
        attn_mask = key_padding_mask if attn_mask is None else attn_mask + key_padding_mask

    if not training:
        dropout_p = 0.0

    if need_weights:
        e = q.shape[-1]
        q_scaled = q * math.sqrt(1.0 / float(e))
        if is_causal and attn_mask is None:
            raise AssertionError("FIXME: is_causal not implemented for need_weights")
        weights = q_scaled.bmm(k.transpose(-2, -1))
        if attn_mask is not None:
            weights = attn_mask + weights  # torch.baddbmm(attn_mask, q_scaled, k^T)
        weights = softmax(weights, dim=-1)
        if dropout_p > 0.0:
            weights = dropout(weights, p=dropout_p)
        out = weights.bmm(v)
        out = out.transpose(0, 1).reshape(tgt_len * bsz, embed_dim)
        out = linear(out, out_proj_weight, out_proj_bias)
        out = out.view(tgt_len, bsz, out.size(1))
        weights = weights.view(bsz, num_heads, tgt_len, src_len)
        if average_attn_weights:
            weights = weights.mean(dim=1)
        if not is_batched:
            out, weights = out.squeeze(1), weights.squeeze(0)
        return out, weights

    if attn_mask is not None:
        if attn_mask.size(0) == 1 and attn_mask.dim() == 3:
            attn_mask = attn_mask.unsqueeze(0)
        else:
            attn_mask = attn_mask.view(bsz, num_heads, -1, src_len)
    q = q.view(bsz, num_heads, tgt_len, head_dim)
    k = k.view(bsz, num_heads, src_len, head_dim)
    v = v.view(bsz, num_heads, src_len, head_dim)
    out = scaled_dot_product_attention(q, k, v, attn_mask, dropout_p, is_causal)
    out = out.permute(2, 0, 1, 3).reshape(bsz * tgt_len, embed_dim)
    out = linear(out, out_proj_weight, out_proj_bias)
    out = out.view(tgt_len, bsz, out.size(1))
    if not is_batched:
        out = out.squeeze(1)
    return out, None


# Each function wrapped as PyTorch's fails (`_check_tensor_args` with its spec,
# `_check_conv_args`) and batched by its vmap rule (`_vmap_rule`): one static name each.
scaled_dot_product_attention = _check_tensor_args(
    scaled_dot_product_attention, "scaled_dot_product_attention(query, key, value)")
