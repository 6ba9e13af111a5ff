"""The checkpoint format of PyTorch before 1.6 (`_use_new_zipfile_serialization=False`) both
ways against torch 2.13: torch-saved corpora loaded by gradrs (weights_only on and off, views
sharing memory, map_location, whole modules, several saves in one stream), gradrs-saved ones
loaded by `torch.load(weights_only=True)`, and the errors (magic number, weights-only refusals,
mmap, the pre-0.4 tar format)."""

import io
import pickle
import tarfile

import numpy as np
import pytest
from conftest import G, check_error, norm, to_np
from test_serialization import same_tree, storage_ptr, torch_corpus


def _legacy(m, obj):
    buf = io.BytesIO()
    m.save(obj, buf, _use_new_zipfile_serialization=False)
    buf.seek(0)
    return buf


def _corpus(torch):
    obj = torch_corpus(torch)
    obj.pop("set")  # a set is no weights-only type (nor in PyTorch); tested without weights_only
    return obj


def test_load_torch_legacy_corpus(torch, tmp_path):
    obj = _corpus(torch)
    torch.save(obj, tmp_path / "old.pt", _use_new_zipfile_serialization=False)
    for weights_only in (True, False):
        loaded = G.load(tmp_path / "old.pt", weights_only=weights_only)
        same_tree(loaded, obj)
        assert type(loaded["model"]).__name__ == "OrderedDict"
    buf = _legacy(torch, {"set": {1, 2}, "x": torch.ones(2)})
    assert G.load(buf, weights_only=False)["set"] == {1, 2}


def test_load_torch_legacy_views_stay_shared(torch):
    obj = torch_corpus(torch)["views"]
    g = G.load(_legacy(torch, obj))
    for k, t in obj.items():
        assert g[k].storage_offset() == t.storage_offset(), k
        assert tuple(g[k].stride()) == tuple(t.stride()), k
    g["base"].mul_(-1)
    for k, t in obj.items():
        np.testing.assert_array_equal(to_np(g[k]), -to_np(t))


def test_several_saves_in_one_stream(torch):
    buf = io.BytesIO()
    for i in range(3):
        torch.save({"i": i, "t": torch.full((2,), float(i))}, buf,
                   _use_new_zipfile_serialization=False)
    buf.seek(0)
    for i in range(3):
        got = G.load(buf)
        assert got["i"] == i and to_np(got["t"]).tolist() == [float(i)] * 2
    assert buf.tell() == len(buf.getvalue())


def test_map_location(torch):
    buf = _legacy(torch, {"a": torch.arange(4.0)})
    calls = []

    def loc(storage, location):
        calls.append(location)
        return storage

    assert to_np(G.load(buf, map_location=loc)["a"]).tolist() == [0.0, 1.0, 2.0, 3.0]
    assert calls == ["cpu"]
    buf.seek(0)
    assert G.load(buf, map_location="cpu")["a"].device.type == "cpu"


def test_load_torch_whole_module(torch):
    torch.manual_seed(0)
    lin = torch.nn.Linear(3, 2)
    buf = _legacy(torch, lin)
    mod = G.load(buf, weights_only=False)
    assert type(mod).__name__ == "Linear" and isinstance(mod, G.nn.Module)
    np.testing.assert_array_equal(to_np(mod.weight), lin.weight.detach().numpy())


def test_gradrs_legacy_loads_in_torch(torch):
    G.manual_seed(0)
    x = G.arange(6.0)
    obj = {"a": x, "b": x[2:4], "t": x.reshape(2, 3).t(), "c": G.tensor(3),
           "d": G.zeros(0, dtype=G.float16), "e": G.tensor([True, False]),
           "i32": G.tensor([1, 2], dtype=G.int32), "f64": G.randn(2, 2, dtype=G.float64),
           "lin": G.nn.Linear(2, 3).state_dict(), "p": G.nn.Parameter(G.ones(2)),
           "n": [1, "s", 2.5, None, (True,)]}
    buf = _legacy(G, obj)
    for weights_only in (True, False):
        buf.seek(0)
        out = torch.load(buf, weights_only=weights_only)
        assert buf.tell() == len(buf.getvalue())
        same_tree(obj, out)
        assert storage_ptr(out["a"]) == storage_ptr(out["b"]) == storage_ptr(out["t"])
    buf.seek(0)
    same_tree(G.load(buf), out)  # and gradrs reads its own


def test_gradrs_legacy_whole_module_round_trip():
    lin = G.nn.Linear(2, 2)
    got = G.load(_legacy(G, lin), weights_only=False)
    assert type(got) is G.nn.Linear
    np.testing.assert_array_equal(to_np(got.weight), to_np(lin.weight))


def test_weights_only_refusal_matches_torch(torch):
    errors = []
    for m in (G, torch):
        with pytest.raises(pickle.UnpicklingError) as e:
            m.load(_legacy(m, m.nn.Linear(2, 2)))
        errors.append(str(e.value))
    # gradrs's message keeps the address of PyTorch's documentation page.
    assert errors[0] == norm(errors[1]).replace("generated/gradrs.load", "generated/torch.load")


def test_errors_match_torch(torch, tmp_path):
    bad = io.BytesIO()
    pickle.dump(12345, bad, protocol=2)

    def magic(m, weights_only):
        bad.seek(0)
        m.load(bad, weights_only=weights_only)

    check_error(lambda m: magic(m, True))
    check_error(lambda m: magic(m, False))
    torch.save({"a": torch.ones(1)}, tmp_path / "old.pt", _use_new_zipfile_serialization=False)
    check_error(lambda m: m.load(tmp_path / "old.pt", mmap=True))


def test_tar_format_is_a_clear_error(torch, tmp_path):
    path = tmp_path / "ancient.tar"
    with tarfile.open(path, "w") as tar:
        info = tarfile.TarInfo("storages")
        info.size = 0
        tar.addfile(info, io.BytesIO())
    with pytest.raises(RuntimeError) as g:
        G.load(path)
    with pytest.raises(RuntimeError) as t:
        torch.load(path)
    assert str(g.value) == norm(str(t.value))
    with pytest.raises(RuntimeError, match="tar"):
        G.load(path, weights_only=False)


def _local_things():
    class Local:
        pass

    def inner():
        pass

    return Local, inner


_LAMBDA = lambda: 1  # noqa: E731 - a module-level lambda: its name cannot be looked up


@pytest.mark.parametrize("legacy", [False, True])
@pytest.mark.parametrize("which", ["instance", "class", "function", "lambda"])
def test_unpicklable_objects_raise_as_torch(torch, which, legacy):
    """gradrs writes with the pure-Python pickler; its errors are the C pickler's (torch.save's)."""
    local, inner = _local_things()
    obj = {"instance": local(), "class": local, "function": inner, "lambda": [_LAMBDA]}[which]
    errors = []
    for m in (G, torch):
        with pytest.raises(Exception) as e:
            m.save({"x": obj}, io.BytesIO(), _use_new_zipfile_serialization=not legacy)
        errors.append((type(e.value).__name__, str(e.value)))
    assert errors[0] == errors[1]
