"""`iter(tensor)` as PyTorch's: rows from unbind(0) (grad_fn UnbindBackward0, gradients through
them), a 0-d tensor refused, tensors seen as Iterable; compared with torch when importable."""

import collections.abc

import pytest
from conftest import G


def _rows(M):
    t = M.arange(6.0).reshape(2, 3).requires_grad_()
    a, b = t
    (a * 2 + b * 3).sum().backward()
    return ([type(r.grad_fn).__name__ for r in (a, b)], [r.tolist() for r in t],
            t.grad.tolist(), isinstance(t, collections.abc.Iterable),
            [r.tolist() for r in M.zeros(0, 3)], [int(r) for r in M.tensor([4, 5])])


def test_iteration_unbinds_rows():
    names, rows, grad, iterable, empty, ints = _rows(G)
    assert names == ["UnbindBackward0", "UnbindBackward0"]
    assert rows == [[0.0, 1.0, 2.0], [3.0, 4.0, 5.0]]
    assert grad == [[2.0, 2.0, 2.0], [3.0, 3.0, 3.0]]
    assert iterable and empty == [] and ints == [4, 5]


def test_iteration_of_a_0d_tensor_raises():
    with pytest.raises(TypeError, match="^iteration over a 0-d tensor$"):
        iter(G.tensor(1.0))


def test_iteration_as_torch(torch):
    assert _rows(G) == _rows(torch)
    with pytest.raises(TypeError) as theirs:
        list(torch.tensor(1.0))
    with pytest.raises(TypeError) as ours:
        list(G.tensor(1.0))
    assert str(ours.value) == str(theirs.value)
