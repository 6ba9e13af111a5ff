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


@pytest.mark.parametrize("name", TYPES)
def test_cuda_legacy_types(name):
    # torch.cuda.FloatTensor & co. exist on PyTorch's CPU build too (constructing refuses)
    torch = pytest.importorskip("torch")
    g, t = getattr(G.cuda, name), getattr(torch.cuda, name)
    assert repr(g) == repr(t).replace("torch", "gradrs")
    assert (g.is_cuda, g.dtype.is_floating_point, g.__name__, g.__module__) == (
        t.is_cuda, t.dtype.is_floating_point, t.__name__, t.__module__.replace("torch", "gradrs"))
    assert not isinstance(G.ones(2).to(g.dtype), g) and isinstance(G.ones(2).to(g.dtype),
                                                                   getattr(G, name))
    assert pickle.loads(pickle.dumps(g)) is g
    if G.gpu.is_available():
        try:
            getattr(G, name)([1, 0]).to("cuda")
        except TypeError:  # a dtype the GPU backend has no kernels for: refused the same way
            with pytest.raises(TypeError, match="Cannot convert a GPU tensor"):
                g([1, 0])
            return
        made = g([1, 0])
        assert made.device.type != "cpu" and made.dtype == g.dtype and isinstance(made, g)
        assert made.type(getattr(G, name)).device.type == "cpu"
        assert G.ones(2).type(g).device.type != "cpu"
    else:
        check_error(lambda M: getattr(M.cuda, name)([1, 0]))


def test_set_default_tensor_type():
    torch = pytest.importorskip("torch")
    try:
        for M in (G, torch):
            M.set_default_tensor_type(M.DoubleTensor)
            assert M.get_default_dtype() == M.float64 and M.tensor([1.5]).dtype == M.float64
            M.set_default_tensor_type(f"{M.__name__}.HalfTensor")
            assert M.Tensor().dtype == M.float16
            M.set_default_tensor_type(M.FloatTensor)
            assert M.zeros(1).dtype == M.float32
    finally:
        G.set_default_dtype(G.float32)
        torch.set_default_dtype(torch.float32)
    check_error(lambda M: M.set_default_tensor_type(M.LongTensor))
    check_error(lambda M: M.set_default_tensor_type(M.float64))
    check_error(lambda M: M.set_default_tensor_type(f"{M.__name__}.IntTensor"))
    check_error(lambda M: M.set_default_tensor_type("no_such_module_here.FloatTensor"))
    if not G.gpu.is_available():
        check_error(lambda M: M.set_default_tensor_type(M.cuda.FloatTensor))
