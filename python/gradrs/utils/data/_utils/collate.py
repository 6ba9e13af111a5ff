"""`default_collate` and `default_convert`: how a DataLoader turns a list of samples into a
batch (tensors stacked, numbers and numpy arrays made tensors, containers collated
element-wise), as `torch.utils.data._utils.collate`."""

import collections
import copy
import re

import numpy as np

import gradrs

np_str_obj_array_pattern = re.compile(r"[SaUO]")

default_collate_err_msg_format = (
    "default_collate: batch must contain tensors, numpy arrays, numbers, "
    "dicts or lists; found {}"
)


def default_convert(data):
    r"""Convert each NumPy array element into a :class:`gradrs.Tensor`; sequences, namedtuples
    and mappings are converted element-wise, anything else is returned unchanged.

    This is the DataLoader's collate function when automatic batching is disabled
    (``batch_size=None``).

    Examples:
        >>> gradrs.utils.data.default_convert([1, 2])
        [1, 2]
    """
    elem_type = type(data)
    if isinstance(data, gradrs.Tensor):
        return data
    if elem_type.__module__ == "numpy" and elem_type.__name__ not in ("str_", "string_"):
        if elem_type.__name__ == "ndarray" and \
                np_str_obj_array_pattern.search(data.dtype.str) is not None:
            return data
        return gradrs.as_tensor(data)
    if isinstance(data, collections.abc.Mapping):
        try:
            if isinstance(data, collections.abc.MutableMapping):
                clone = copy.copy(data)
                clone.update({key: default_convert(data[key]) for key in data})
                return clone
            return elem_type({key: default_convert(data[key]) for key in data})
        except TypeError:
            return {key: default_convert(data[key]) for key in data}
    if isinstance(data, tuple) and hasattr(data, "_fields"):  # namedtuple
        return elem_type(*(default_convert(d) for d in data))
    if isinstance(data, tuple):
        return [default_convert(d) for d in data]  # a list, as PyTorch returns
    if isinstance(data, collections.abc.Sequence) and not isinstance(data, (str, bytes)):
        try:
            if isinstance(data, collections.abc.MutableSequence):
                clone = copy.copy(data)
                for i, d in enumerate(data):
                    clone[i] = default_convert(d)
                return clone
            return elem_type([default_convert(d) for d in data])
        except TypeError:
            return [default_convert(d) for d in data]
    return data


def collate(batch, *, collate_fn_map=None):
    r"""Collate a batch whose elements may be containers: mappings, namedtuples and sequences
    are collated element-wise; leaves go to the function `collate_fn_map` gives for their
    type (an exact match first, then the first key the element is an instance of).
    """
    elem = batch[0]
    elem_type = type(elem)
    if collate_fn_map is not None:
        if elem_type in collate_fn_map:
            return collate_fn_map[elem_type](batch, collate_fn_map=collate_fn_map)
        for collate_type in collate_fn_map:
            if isinstance(elem, collate_type):
                return collate_fn_map[collate_type](batch, collate_fn_map=collate_fn_map)

    def each(key):
        return collate([d[key] for d in batch], collate_fn_map=collate_fn_map)

    if isinstance(elem, collections.abc.Mapping):
        try:
            if isinstance(elem, collections.abc.MutableMapping):
                clone = copy.copy(elem)
                clone.update({key: each(key) for key in elem})
                return clone
            return elem_type({key: each(key) for key in elem})
        except TypeError:
            return {key: each(key) for key in elem}
    if isinstance(elem, tuple) and hasattr(elem, "_fields"):  # namedtuple
        return elem_type(*(collate(samples, collate_fn_map=collate_fn_map)
                           for samples in zip(*batch)))
    if isinstance(elem, collections.abc.Sequence):
        it = iter(batch)
        elem_size = len(next(it))
        if not all(len(e) == elem_size for e in it):
            raise RuntimeError("each element in list of batch should be of equal size")
        transposed = list(zip(*batch))
        if isinstance(elem, tuple):
            return [collate(samples, collate_fn_map=collate_fn_map) for samples in transposed]
        try:
            if isinstance(elem, collections.abc.MutableSequence):
                clone = copy.copy(elem)
                for i, samples in enumerate(transposed):
                    clone[i] = collate(samples, collate_fn_map=collate_fn_map)
                return clone
            return elem_type([collate(samples, collate_fn_map=collate_fn_map)
                              for samples in transposed])
        except TypeError:
            return [collate(samples, collate_fn_map=collate_fn_map) for samples in transposed]
    raise TypeError(default_collate_err_msg_format.format(elem_type))


def collate_tensor_fn(batch, *, collate_fn_map=None):
    return gradrs.stack(batch, 0)


def collate_numpy_array_fn(batch, *, collate_fn_map=None):
    elem = batch[0]
    # arrays of strings and objects cannot become tensors
    if np_str_obj_array_pattern.search(elem.dtype.str) is not None:
        raise TypeError(default_collate_err_msg_format.format(elem.dtype))
    return collate([gradrs.as_tensor(b) for b in batch], collate_fn_map=collate_fn_map)


def collate_numpy_scalar_fn(batch, *, collate_fn_map=None):
    return gradrs.as_tensor(batch)


def collate_float_fn(batch, *, collate_fn_map=None):
    return gradrs.tensor(batch, dtype=gradrs.float64)


def collate_int_fn(batch, *, collate_fn_map=None):
    return gradrs.tensor(batch)


def collate_str_fn(batch, *, collate_fn_map=None):
    return batch


default_collate_fn_map = {gradrs.Tensor: collate_tensor_fn}
default_collate_fn_map[np.ndarray] = collate_numpy_array_fn
# numpy scalars (np.float32(1.0), np.int64(3), np.bool_) and object scalars
default_collate_fn_map[(np.bool_, np.number, np.object_)] = collate_numpy_scalar_fn
default_collate_fn_map[float] = collate_float_fn
default_collate_fn_map[int] = collate_int_fn
default_collate_fn_map[str] = collate_str_fn
default_collate_fn_map[bytes] = collate_str_fn


def default_collate(batch):
    r"""Put the samples of a batch into tensors with an outer batch dimension.

    Tensors are stacked; numpy arrays and numpy scalars become tensors; Python floats become a
    float64 tensor and ints an int64 one; ``str`` and ``bytes`` are left as lists; mappings,
    namedtuples and sequences are collated element-wise (a tuple gives a list).

    This is the DataLoader's collate function when ``batch_size`` or ``batch_sampler`` is set.

    Examples:
        >>> gradrs.utils.data.default_collate([(1, 2.0), (3, 4.0)])
        [tensor([1, 3]), tensor([2., 4.], dtype=gradrs.float64)]
    """
    return collate(batch, collate_fn_map=default_collate_fn_map)
