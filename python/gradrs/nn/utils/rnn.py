"""`gradrs.nn.utils.rnn`: PackedSequence and the pad/pack helpers for variable-length batches."""

from collections.abc import Iterable
from typing import NamedTuple, Optional

from ... import _native
from ..functional import _one_node

__all__ = [
    "PackedSequence",
    "invert_permutation",
    "pack_padded_sequence",
    "pad_packed_sequence",
    "pad_sequence",
    "unpad_sequence",
    "pack_sequence",
    "unpack_sequence",
]

Tensor = _native.Tensor


class PackedSequence_(NamedTuple):
    data: Tensor
    batch_sizes: Tensor
    sorted_indices: Optional[Tensor]
    unsorted_indices: Optional[Tensor]


def bind(optional, fn):
    if optional is None:
        return None
    return fn(optional)


class PackedSequence(PackedSequence_):
    """The data of a batch of sequences, time step by time step, and how many sequences are
    still running at each step (``batch_sizes``). Built by :func:`pack_padded_sequence` and
    :func:`pack_sequence`; every RNN module takes one.

    Examples:
        >>> p = gradrs.nn.utils.rnn.pack_sequence([gradrs.tensor([1.0, 2.0]), gradrs.tensor([3.0])])
        >>> p
        PackedSequence(data=tensor([1., 3., 2.]), batch_sizes=tensor([2, 1]), sorted_indices=None, unsorted_indices=None)
    """

    def __new__(cls, data, batch_sizes=None, sorted_indices=None, unsorted_indices=None):
        return super().__new__(
            cls, *_packed_sequence_init_args(data, batch_sizes, sorted_indices, unsorted_indices))

    def pin_memory(self):
        """This packed sequence with its data and indices in pinned memory."""
        return type(self)(self.data.pin_memory(), self.batch_sizes,
                          bind(self.sorted_indices, lambda t: t.pin_memory()),
                          bind(self.unsorted_indices, lambda t: t.pin_memory()))

    def to(self, *args, **kwargs):
        """``self.data.to(...)``; the indices follow data to its device. Returns ``self`` when
        the data is unchanged."""
        data = self.data.to(*args, **kwargs)
        if data is self.data:
            return self
        non_blocking = kwargs.get("non_blocking", False)

        def call_to(t):
            return t.to(data.device, non_blocking=non_blocking)

        return type(self)(data, self.batch_sizes, bind(self.sorted_indices, call_to),
                          bind(self.unsorted_indices, call_to))

    def cuda(self, *args, **kwargs):
        """This packed sequence with its data on the GPU (`to` arguments may follow).
        """
        ex = _native.tensor((), dtype=self.data.dtype, device=self.data.device).to(*args, **kwargs)
        if ex.is_cuda:
            return self.to(*args, **kwargs)
        kwargs["device"] = "cuda"
        return self.to(*args, **kwargs)

    def cpu(self, *args, **kwargs):
        """This packed sequence with its data on the CPU (`to` arguments may follow).

        Examples:
            >>> gradrs.nn.utils.rnn.pack_sequence([gradrs.ones(2)]).cpu().data.device
            device(type='cpu')
        """
        ex = _native.tensor((), dtype=self.data.dtype, device=self.data.device).to(*args, **kwargs)
        if ex.device.type == "cpu":
            return self.to(*args, **kwargs)
        kwargs["device"] = "cpu"
        return self.to(*args, **kwargs)

    def double(self):
        """This packed sequence with its data cast to float64 (the batch sizes and indices unchanged).

        Examples:
            >>> seq = gradrs.nn.utils.rnn.pack_sequence([gradrs.ones(2), gradrs.ones(1)])
            >>> seq.double().data.dtype
            gradrs.float64
        """
        return self.to(dtype=_native.float64)

    def float(self):
        """This packed sequence with its data cast to float32 (the batch sizes and indices unchanged).

        Examples:
            >>> seq = gradrs.nn.utils.rnn.pack_sequence([gradrs.ones(2), gradrs.ones(1)])
            >>> seq.float().data.dtype
            gradrs.float32
        """
        return self.to(dtype=_native.float32)

    def half(self):
        """This packed sequence with its data cast to float16 (the batch sizes and indices unchanged).

        Examples:
            >>> seq = gradrs.nn.utils.rnn.pack_sequence([gradrs.ones(2), gradrs.ones(1)])
            >>> seq.half().data.dtype
            gradrs.float16
        """
        return self.to(dtype=_native.float16)

    def long(self):
        """This packed sequence with its data cast to int64 (the batch sizes and indices unchanged).

        Examples:
            >>> seq = gradrs.nn.utils.rnn.pack_sequence([gradrs.ones(2), gradrs.ones(1)])
            >>> seq.long().data.dtype
            gradrs.int64
        """
        return self.to(dtype=_native.int64)

    def int(self):
        """This packed sequence with its data cast to int32 (the batch sizes and indices unchanged).

        Examples:
            >>> seq = gradrs.nn.utils.rnn.pack_sequence([gradrs.ones(2), gradrs.ones(1)])
            >>> seq.int().data.dtype
            gradrs.int32
        """
        return self.to(dtype=_native.int32)

    @property
    def is_cuda(self):
        """Whether the data lives on the GPU.

        Examples:
            >>> gradrs.nn.utils.rnn.pack_sequence([gradrs.ones(2)]).is_cuda
            False
        """
        return self.data.is_cuda

    def is_pinned(self):
        """Whether the data is in pinned memory.
        """
        return self.data.is_pinned()


def _packed_sequence_init_args(data, batch_sizes=None, sorted_indices=None,
                               unsorted_indices=None):
    if unsorted_indices is None:
        unsorted_indices = invert_permutation(sorted_indices)
    if batch_sizes is not None:
        if batch_sizes.device.type != "cpu":
            raise ValueError(
                "batch_sizes should always be on CPU. Instances of PackedSequence should never "
                "be created manually. They should be instantiated by functions like "
                "pack_sequence and pack_padded_sequences in nn.utils.rnn. "
                "https://pytorch.org/docs/stable/nn.html#torch.nn.utils.rnn.pack_sequence")
        return data, batch_sizes, sorted_indices, unsorted_indices
    if not (isinstance(data, (list, tuple)) and len(data) == 2):
        raise AssertionError("Expected data to be a list or tuple of length 2")
    return data[0], data[1], sorted_indices, unsorted_indices


def _packed_sequence_init(data, batch_sizes=None, sorted_indices=None, unsorted_indices=None):
    data, batch_sizes, sorted_indices, unsorted_indices = _packed_sequence_init_args(
        data, batch_sizes, sorted_indices, unsorted_indices)
    return PackedSequence(data, batch_sizes, sorted_indices, unsorted_indices)


def invert_permutation(permutation):
    """The inverse of ``permutation`` (None for None).

    Examples:
        >>> gradrs.nn.utils.rnn.invert_permutation(gradrs.tensor([2, 0, 1]))
        tensor([1, 2, 0])
    """
    if permutation is None:
        return None
    output = _native.empty_like(permutation)
    output.scatter_(0, permutation,
                    _native.arange(0, permutation.numel(), device=permutation.device))
    return output


def _pack_padded(input, lengths, batch_first):
    # aten::_pack_padded_sequence: rows of time step t for the sequences longer than t, the
    # steps one after the other, gathered by one index_select so the gradient is one node.
    if batch_first:
        input = input.transpose(0, 1)
    if input.numel() == 0:
        raise RuntimeError("Cannot pack empty tensors.")
    if lengths.dim() != 1:
        raise RuntimeError("'lengths' argument should be a 1D CPU int64 tensor, but got "
                           f"{lengths.dim()}D cpu Long tensor")
    batch = input.size(1)
    if lengths.size(0) != batch:
        raise RuntimeError("Expected `len(lengths)` to be equal to batch_size, but got "
                           f"{lengths.size(0)} (batch_size={batch})")
    lens = lengths.tolist()
    if lens[-1] <= 0:
        raise RuntimeError("Length of all samples has to be greater than 0, but found an "
                           "element in 'lengths' that is <= 0")
    if any(a < b for a, b in zip(lens, lens[1:])):
        raise RuntimeError(
            "`lengths` array must be sorted in decreasing order when `enforce_sorted` is True. "
            "You can pass `enforce_sorted=False` to pack_padded_sequence and/or pack_sequence "
            "to sidestep this requirement if you do not need ONNX exportability.")
    # Lengths past the input's length give batch sizes for steps that have no rows, as
    # PyTorch's kernel does (the result cannot be unpacked, there as here).
    batch_sizes = [sum(1 for n in lens if n > t) for t in range(lens[0])]
    rows = [t * batch + b for t, bs in enumerate(batch_sizes[:input.size(0)]) for b in range(bs)]
    index = _native.tensor(rows, dtype=_native.int64, device=input.device)

    def pack(x):
        return x.reshape(x.size(0) * batch, *x.shape[2:]).index_select(0, index)

    data = _one_node("PackPaddedSequenceBackward0", pack, input, saves=())
    return data, _native.tensor(batch_sizes, dtype=_native.int64)


def pack_padded_sequence(input, lengths, batch_first=False, enforce_sorted=True):
    """Packs a ``T x B x *`` (``B x T x *`` with ``batch_first``) padded batch whose
    sequences have the given lengths.

    Examples:
        >>> x = gradrs.tensor([[1.0, 2.0, 3.0], [4.0, 0.0, 0.0]])
        >>> p = gradrs.nn.utils.rnn.pack_padded_sequence(x, [3, 1], batch_first=True)
        >>> p.data
        tensor([1., 4., 2., 3.])
    """
    if not isinstance(lengths, Tensor):
        lengths = _native.as_tensor(lengths, dtype=_native.int64, device="cpu")
    else:
        lengths = lengths.to(dtype=_native.int64)
    if enforce_sorted:
        sorted_indices = None
    else:
        lengths, sorted_indices = lengths.sort(descending=True)
        sorted_indices = sorted_indices.to(input.device)
        batch_dim = 0 if batch_first else 1
        input = input.index_select(batch_dim, sorted_indices)
    data, batch_sizes = _pack_padded(input, lengths, batch_first)
    return _packed_sequence_init(data, batch_sizes, sorted_indices, None)


def _pad_packed(data, batch_sizes, batch_first, padding_value, total_length):
    # aten::_pad_packed_sequence: a padded output whose steps are filled by copies of the
    # packed rows (so its node is CopySlices, as PyTorch's).
    sizes = batch_sizes.tolist()
    max_batch = sizes[0]
    output = _native.full((total_length, max_batch, *data.shape[1:]), padding_value,
                          dtype=data.dtype, device=data.device)
    offset = 0
    for t, bs in enumerate(sizes):
        output.select(0, t).narrow(0, 0, bs).copy_(data.narrow(0, offset, bs))
        offset += bs
    lengths = _native.tensor([sum(1 for bs in sizes if bs > b) for b in range(max_batch)],
                             dtype=_native.int64)
    if batch_first:
        output = output.transpose(0, 1)
    return output, lengths


def pad_packed_sequence(sequence, batch_first=False, padding_value=0.0, total_length=None):
    """The inverse of :func:`pack_padded_sequence`: ``(padded, lengths)`` in the original
    batch order.

    Examples:
        >>> p = gradrs.nn.utils.rnn.pack_sequence([gradrs.tensor([1.0, 2.0]), gradrs.tensor([3.0])])
        >>> gradrs.nn.utils.rnn.pad_packed_sequence(p, batch_first=True)
        (tensor([[1., 2.],
                [3., 0.]]), tensor([2, 1]))
    """
    max_seq_length = sequence.batch_sizes.size(0)
    if total_length is not None:
        if total_length < max_seq_length:
            raise ValueError(
                "Expected total_length to be at least the length of the longest sequence in "
                f"input, but got total_length={total_length} and max sequence length being "
                f"{max_seq_length}")
        max_seq_length = total_length
    padded_output, lengths = _pad_packed(sequence.data, sequence.batch_sizes, batch_first,
                                         padding_value, max_seq_length)
    unsorted_indices = sequence.unsorted_indices
    if unsorted_indices is not None:
        batch_dim = 0 if batch_first else 1
        return (padded_output.index_select(batch_dim, unsorted_indices),
                lengths[unsorted_indices.cpu()])
    return padded_output, lengths


def _check_copy_shape(dst, src):
    # copy_'s broadcast check, with PyTorch's message (a: the destination, b: the source).
    for i in range(1, min(len(dst), len(src)) + 1):
        a, b = dst[-i], src[-i]
        if a != b and b != 1:
            raise RuntimeError(f"The size of tensor a ({a}) must match the size of tensor b ({b}) "
                               f"at non-singleton dimension {len(dst) - i}")


def pad_sequence(sequences, batch_first=False, padding_value=0.0, padding_side="right"):
    """Stacks sequences of shape ``L x *`` into ``T x B x *`` (``B x T x *``), padding each
    on ``padding_side`` to the longest length ``T``.

    Examples:
        >>> gradrs.nn.utils.rnn.pad_sequence([gradrs.tensor([1.0, 2.0, 3.0]), gradrs.tensor([4.0])], batch_first=True)
        tensor([[1., 2., 3.],
                [4., 0., 0.]])
    """
    if not isinstance(sequences, Iterable):
        raise RuntimeError("pad_sequence: Expected iterable for input sequences, but got arg of "
                           f"type: {type(sequences)}")
    sequences = tuple(sequences)
    if not sequences:
        raise RuntimeError("received an empty list of sequences")
    if padding_side not in ("left", "right"):
        raise RuntimeError(
            f"Expected padding_side to be one of left or right, but got {padding_side}.")
    first = sequences[0]
    if first.dim() == 0:
        raise RuntimeError("ArrayRef: invalid slice, N = 1; size = 0")
    trailing = tuple(first.shape[1:])
    max_len = max(s.size(0) for s in sequences)
    dims = (len(sequences), max_len) if batch_first else (max_len, len(sequences))
    out = _native.full(dims + trailing, padding_value, dtype=first.dtype, device=first.device)
    for i, seq in enumerate(sequences):
        length = seq.size(0)
        start = max_len - length if padding_side == "left" else 0
        if batch_first:
            dst = out.select(0, i).narrow(0, start, length)
        else:
            dst = out.narrow(0, start, length).select(1, i)
        _check_copy_shape(tuple(dst.shape), tuple(seq.shape))
        dst.copy_(seq)
    return out


def unpad_sequence(padded_sequences, lengths, batch_first=False):
    """The sequences of a padded batch, each cut to its length.

    Examples:
        >>> x = gradrs.tensor([[1.0, 2.0], [3.0, 0.0]])
        >>> gradrs.nn.utils.rnn.unpad_sequence(x, gradrs.tensor([2, 1]), batch_first=True)
        [tensor([1., 2.]), tensor([3.])]
    """
    if not batch_first:
        # PyTorch transposes the caller's tensor in place here (transpose_); gradrs has no
        # in-place transpose, so the caller's tensor is left as it was.
        padded_sequences = padded_sequences.transpose(0, 1)
    max_length = padded_sequences.shape[1]
    idx = _native.arange(max_length, device=lengths.device)
    if len(padded_sequences) != len(lengths):
        raise ValueError("zip() argument 2 is shorter than argument 1"
                         if len(lengths) < len(padded_sequences)
                         else "zip() argument 2 is longer than argument 1")
    return [seq[idx < length] for seq, length in zip(padded_sequences, lengths)]


def pack_sequence(sequences, enforce_sorted=True):
    """``pack_padded_sequence(pad_sequence(sequences), lengths)``.

    Examples:
        >>> p = gradrs.nn.utils.rnn.pack_sequence([gradrs.tensor([1.0, 2.0, 3.0]), gradrs.tensor([4.0])])
        >>> p.data, p.batch_sizes
        (tensor([1., 4., 2., 3.]), tensor([2, 1, 1]))
    """
    lengths = _native.as_tensor([v.size(0) for v in sequences])
    return pack_padded_sequence(pad_sequence(sequences), lengths, enforce_sorted=enforce_sorted)


def unpack_sequence(packed_sequences):
    """The list of sequences a PackedSequence holds, in their original order.

    Examples:
        >>> p = gradrs.nn.utils.rnn.pack_sequence([gradrs.tensor([1.0, 2.0]), gradrs.tensor([3.0])])
        >>> gradrs.nn.utils.rnn.unpack_sequence(p)
        [tensor([1., 2.]), tensor([3.])]
    """
    padded_sequences, lengths = pad_packed_sequence(packed_sequences, batch_first=True)
    return unpad_sequence(padded_sequences, lengths, batch_first=True)
