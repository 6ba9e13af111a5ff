"""PyTorch 1.x idioms programs still carry: the legacy tensor types as classes
(`isinstance(x, torch.FloatTensor)`, `x.type(torch.DoubleTensor)`, `torch.FloatTensor(x.size())`
giving the sizes), and the deprecated `torch.range` (end included, default float dtype)."""

import pickle

import numpy as np
import pytest

from conftest import G, check_error, run_both, to_np

TYPES = ["FloatTensor", "DoubleTensor", "HalfTensor", "BFloat16Tensor", "ByteTensor",
         "CharTensor", "ShortTensor", "IntTensor", "LongTensor", "BoolTensor"]


@pytest.mark.parametrize("name", TYPES)
def test_legacy_types(name):
    def run(M):
        cls = getattr(M, name)
        x = M.ones(2, 3)
        made = [cls(2, 3), cls([1, 0]), cls(x.size()), cls(M.Size([4])), cls()]
        return ([tuple(t.shape) for t in made], [str(t.dtype) for t in made],
                isinstance(x.to(cls.dtype), cls), isinstance(x.long() if name != "LongTensor"
                                                           else x, cls),
                str(x.type(cls).dtype), repr(cls), str(cls.dtype), cls.__name__,
                to_np(cls([1, 0])).tolist())

    g, t = run_both(run)
    assert g == tuple(v.replace("torch", "gradrs") if isinstance(v, str) else
                      [s.replace("torch", "gradrs") for s in v] if isinstance(v, list)
                      and v and isinstance(v[0], str) else v for v in t)


def test_legacy_type_objects():
    assert isinstance(G.nn.Parameter(G.ones(2)), G.FloatTensor)
    assert not isinstance(G.ones(2), G.DoubleTensor) and not isinstance([1.0], G.FloatTensor)
    assert pickle.loads(pickle.dumps(G.LongTensor)) is G.LongTensor
    assert type(G.FloatTensor([1.0])) is G.Tensor
    assert G.FloatTensor(G.Size([])).shape == ()


@pytest.mark.parametrize("args, kw", [((0, 4), {}), ((1, 2, 0.3), {}), ((0, 1, 0.1), {}),
                                      ((5, 1, -2), {}), ((0, 4), {"dtype": "int64"}),
                                      ((0.5, 2.5), {}), ((1, 10, 3), {"dtype": "float64"}),
                                      ((0, 3), {"requires_grad": True})])
def test_range(args, kw):
    def run(M):
        kwargs = {k: getattr(M, v) if k == "dtype" else v for k, v in kw.items()}
        r = M.range(*args, **kwargs)
        return to_np(r.detach()), str(r.dtype), r.requires_grad

    (gv, gd, gr), (tv, td, tr) = run_both(run)
    np.testing.assert_array_equal(gv, tv)
    assert gd == td.replace("torch", "gradrs") and gr == tr


@pytest.mark.parametrize("args", [(0, 4, 0), (4, 0), (0, float("inf"))])
def test_range_errors(args):
    check_error(lambda M: M.range(*args))
