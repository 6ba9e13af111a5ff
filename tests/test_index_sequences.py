"""Indexing with sequences that are not lists against PyTorch: ranges, numpy arrays (int,
float, bool, uint8, 0-dim), bytearrays, user sequences, float lists (made long), and
PyTorch's deprecated short-list-as-tuple rule (`x[[idx0, idx1]]`), for reads, writes and
gradients."""

import numpy as np
import pytest
from conftest import G, check_error, check_warning


class Seq:
    """A sequence by `__getitem__` only (not registered as collections.abc.Sequence)."""

    def __init__(self, *items):
        self.items = items

    def __len__(self):
        return len(self.items)

    def __getitem__(self, i):
        return self.items[i]


KEYS = {
    "range": lambda m: range(2),
    "range_step": lambda m: range(2, -1, -2),
    "np_int": lambda m: np.array([1, 2]),
    "np_int32": lambda m: np.array([2, 0], dtype=np.int32),
    "np_2d": lambda m: np.array([[0, 1]]),
    "np_bool": lambda m: np.array([True, False, True]),
    "np_float": lambda m: np.array([1.7, 0.2]),
    "np_empty": lambda m: np.array([], dtype=np.int64),
    "np_0d_int": lambda m: np.array(1),
    "np_0d_bool": lambda m: np.array(True),
    "np_int64_scalar": lambda m: np.int64(2),
    "bytearray": lambda m: bytearray(b"\x01\x00"),
    "user_seq": lambda m: Seq(2, 1),
    "float_list": lambda m: [1.7, 0.2],
    "tuple_range_list": lambda m: (range(3), [0, 1, 2]),
    "tuple_np": lambda m: (np.array([0, 2]), slice(1, 3)),
    "tuple_in_tuple": lambda m: ((0, 1), 1),
    # The deprecated rule: a short list holding a sequence, tensor, slice, None or ... is a tuple.
    "list_of_lists": lambda m: [[0, 1], [1, 2]],
    "list_tensor_int": lambda m: [m.tensor(1), 2],
    "list_slice": lambda m: [slice(None), 1],
    "list_none": lambda m: [None],
    "list_ellipsis": lambda m: [Ellipsis, 1],
    "list_range_int": lambda m: [range(2), 1],
    "list_np_int": lambda m: [np.array([0, 1]), 1],
    "list_bool_mask": lambda m: [[True, False, True]],
    "long_list_of_lists": lambda m: [[0]] * 33,
}


def _shape(m):
    return m.arange(12.0).reshape(3, 4)


@pytest.mark.parametrize("key", sorted(KEYS))
def test_getitem_sequence(key, torch):
    def run(m):
        x = _shape(m).requires_grad_()
        y = x[KEYS[key](m)]
        y.sum().backward()
        return tuple(y.shape), y.tolist(), x.grad.tolist()

    assert check_warning(run)[0] == run(torch)


@pytest.mark.parametrize("key", sorted(set(KEYS) - {"long_list_of_lists"}))
def test_setitem_sequence(key, torch):
    def run(m):
        x = _shape(m)
        x[KEYS[key](m)] = -1.0
        y = _shape(m)
        y[KEYS[key](m)] -= 1
        return x.tolist(), y.tolist()

    assert check_warning(run)[0] == run(torch)


def test_makemore_style_rows(torch):
    # Karpathy's `logprobs[range(n), Yb]` and `dlogits[range(n), Yb] -= 1`.
    def run(m):
        m.manual_seed(0)
        logits = m.randn(5, 7)
        yb = m.tensor([1, 0, 6, 3, 3])
        picked = logits.log_softmax(1)[range(5), yb]
        d = logits.softmax(1)
        d[range(5), yb] -= 1
        return picked.tolist(), d.tolist()

    g, t = run(G), run(torch)
    np.testing.assert_allclose(g[0], t[0], rtol=1e-6)
    np.testing.assert_allclose(g[1], t[1], rtol=1e-6)


@pytest.mark.parametrize(
    "key",
    [
        lambda m: np.True_,
        lambda m: 1.5,
        lambda m: np.float64(1.0),
        lambda m: {0: 1},
        lambda m: range(5),
        lambda m: np.array([3]),
        lambda m: [range(2), "a"],
    ],
)
def test_sequence_index_errors(key, torch):
    check_error(lambda m: _shape(m)[key(m)])
