"""Behaviours that the third-party programs of tests/programs/ (session 2026-11-27, helper
"programs4") found different from PyTorch and that were fixed in Python, checked against torch."""

import pytest

from conftest import G, need_torch, norm


def _subclass_reprs(M):
    """str() / print / format of a Tensor subclass with its own __repr__, and the names a
    logging __torch_function__ subclass sees for them."""

    class Tagged(M.Tensor):
        def __repr__(self):
            return f"Tagged({self.as_subclass(M.Tensor)!r})"

    class Logging(M.Tensor):
        calls = []

        @classmethod
        def __torch_function__(cls, func, types, args=(), kwargs=None):
            cls.calls.append(getattr(func, "__name__", str(func)))
            return super().__torch_function__(func, types, args, kwargs or {})

    t = M.tensor([1.0, 2.0]).as_subclass(Tagged)
    x = M.arange(3.0).as_subclass(Logging)
    out = [str(t), repr(t), f"{t}", "{}".format(t), str(t + t), str(M.tensor([1.5])),  # noqa: UP032
           f"{M.tensor(2.5):.2f}"]
    Logging.calls.clear()
    out.append(str(x))
    out.append(list(Logging.calls))
    Logging.calls.clear()
    out.append(f"{x}")
    out.append(list(Logging.calls))
    return out


def test_str_of_a_tensor_subclass_is_its_repr():
    # PyTorch's Tensor has no __str__: print(sub) calls the subclass's __repr__ (gradrs's
    # native __str__ printed the plain tensor), and a __torch_function__ subclass is
    # dispatched `__repr__` (gradrs: `__str__`)
    torch = need_torch()
    ours = _subclass_reprs(G)
    theirs = _subclass_reprs(torch)
    assert [norm(o) if isinstance(o, str) else o for o in theirs] == ours


def test_tensor_has_no_str_of_its_own():
    need_torch()
    assert "__str__" not in vars(G.Tensor)
    assert str(G.ones(2)) == repr(G.ones(2))


@pytest.mark.parametrize("make", [lambda M: M.nn.Parameter(M.ones(2)),
                                  lambda M: M.ones(2, requires_grad=True) * 2,
                                  lambda M: M.tensor([], dtype=M.int64)])
def test_str_equals_torch(make):
    torch = need_torch()
    assert str(make(G)) == norm(str(make(torch)))
