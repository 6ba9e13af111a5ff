"""Checkpoints and pickling: `gradrs.save` / `gradrs.load` against PyTorch's format both ways
(torch-saved corpora loaded by gradrs, gradrs-saved ones loaded by `torch.load(weights_only=True)`),
the weights-only unpickler's refusals, and tensor pickle / deepcopy round trips."""

import collections
import copy
import io
import os
import pickle
import struct
import zipfile

import numpy as np
import pytest
from conftest import G, HAVE_TORCH, check_error, dtype_name, norm, to_np

DTYPES = ["float16", "float32", "float64", "int64", "int32", "bool"]


# --------------------------------------------------------------------------------------------
# helpers
# --------------------------------------------------------------------------------------------


def same_tensor(g, t, *, layout=True):
    """A gradrs tensor equals a torch (or gradrs) one: dtype, shape, values, requires_grad,
    and (with `layout`) strides and storage offset."""
    assert isinstance(g, G.Tensor), type(g)
    assert dtype_name(g.dtype) == dtype_name(t.dtype)
    assert tuple(g.shape) == tuple(t.shape)
    assert g.requires_grad == t.requires_grad
    np.testing.assert_array_equal(to_np(g), to_np(t))
    if layout and g.numel() > 0:
        assert tuple(g.stride()) == tuple(t.stride())


def same_tree(g, t):
    """Recursive equality of loaded structures (containers, tensors, numbers, strings)."""
    if HAVE_TORCH:
        import torch

        if isinstance(t, torch.Tensor):
            same_tensor(g, t)
            assert (type(g).__name__ == "Parameter") == isinstance(t, torch.nn.Parameter)
            return
    if isinstance(t, G.Tensor):
        same_tensor(g, t)
        assert type(g) is type(t)
        return
    if isinstance(t, dict):
        assert type(g).__name__ == type(t).__name__
        assert list(g.keys()) == list(t.keys())
        for k in t:
            same_tree(g[k], t[k])
        return
    if isinstance(t, (list, tuple)):
        assert type(g) is type(t) and len(g) == len(t)
        for a, b in zip(g, t):
            same_tree(a, b)
        return
    assert type(g) is type(t) and g == t, (g, t)


def storage_ptr(t):
    """The address of a torch tensor's storage."""
    return t.untyped_storage().data_ptr()


def torch_corpus(torch):
    """A checkpoint as training scripts write it: a model's state_dict, an AdamW state_dict
    after two steps, every dtype gradrs has, views sharing storage, 0-d, empty and
    non-contiguous tensors."""
    torch.manual_seed(0)
    model = torch.nn.Sequential(
        torch.nn.Conv2d(2, 3, 3), torch.nn.BatchNorm2d(3), torch.nn.Flatten(),
        torch.nn.Linear(12, 4))
    opt = torch.optim.AdamW(model.parameters(), lr=1e-3)
    for _ in range(2):
        opt.zero_grad()
        model(torch.randn(2, 2, 4, 4)).pow(2).sum().backward()
        opt.step()
    base = torch.arange(24, dtype=torch.float32).reshape(4, 6)
    tensors = {f"t_{d}": (torch.arange(6) % 3).to(getattr(torch, d)).reshape(2, 3)
               for d in DTYPES}
    tensors["scalar"] = torch.tensor(3.5, dtype=torch.float64)
    tensors["empty"] = torch.zeros(0, 3, dtype=torch.float16)
    return {
        "model": model.state_dict(),
        "optimizer": opt.state_dict(),
        "epoch": 7,
        "loss": 0.25,
        "name": "run-1",
        "none": None,
        "tuple": (1, 2.0, "three", True),
        "tensors": tensors,
        "views": {
            "base": base,
            "t": base.t(),
            "row": base[1],
            "slice": base[1:3, ::2],
            "flat": base.view(-1)[5:11],
            "expand": base[0, :1].expand(3, 2),
        },
        "param": torch.nn.Parameter(torch.ones(2, 2)),
        "frozen": torch.nn.Parameter(torch.ones(3), requires_grad=False),
        "grad_leaf": torch.ones(2, requires_grad=True),
        "ordered": collections.OrderedDict([("b", 1), ("a", torch.tensor([1, 2]))]),
        "set": {1, 2},
    }


# --------------------------------------------------------------------------------------------
# torch -> gradrs
# --------------------------------------------------------------------------------------------


def test_load_torch_corpus(torch, tmp_path):
    obj = torch_corpus(torch)
    path = tmp_path / "ckpt.pt"
    torch.save(obj, path)
    for weights_only in (True, False):
        loaded = G.load(path, weights_only=weights_only)
        same_tree(loaded, obj)
        assert type(loaded["model"]) is collections.OrderedDict
        assert type(loaded["ordered"]) is collections.OrderedDict


def test_load_torch_views_stay_shared(torch, tmp_path):
    obj = torch_corpus(torch)["views"]
    torch.save(obj, tmp_path / "v.pt")
    g = G.load(tmp_path / "v.pt")
    for k, t in obj.items():
        assert g[k].storage_offset() == t.storage_offset(), k
    g["base"].mul_(-1)  # every view sees the write, as in PyTorch
    for k, t in obj.items():
        np.testing.assert_array_equal(to_np(g[k]), -to_np(t))


def test_load_optimizer_state(torch, tmp_path):
    obj = torch_corpus(torch)["optimizer"]
    buf = io.BytesIO()
    torch.save(obj, buf)
    buf.seek(0)
    g = G.load(buf)
    assert list(g["state"].keys()) == list(obj["state"].keys())
    assert g["param_groups"] == [dict(p) for p in obj["param_groups"]]
    for k, st in obj["state"].items():
        for name, v in st.items():
            same_tensor(g["state"][k][name], v)


def test_load_map_location(torch, tmp_path):
    torch.save({"x": torch.arange(4.0)}, tmp_path / "m.pt")
    calls = []

    def fn(storage, location):
        calls.append(location)
        return storage

    for loc in ("cpu", G.device("cpu"), {"cpu": "cpu"}, fn, b"cpu"):
        x = G.load(tmp_path / "m.pt", map_location=loc)["x"]
        assert x.device.type == "cpu"
        same_tensor(x, torch.arange(4.0))
    assert calls == ["cpu"]
    if G.gpu.is_available():
        for loc in ("cuda", "gpu", "cuda:0", {"cpu": "cuda:0"}, lambda s, loc: s.cuda()):
            x = G.load(tmp_path / "m.pt", map_location=loc)["x"]
            assert x.device.type == "gpu"
            np.testing.assert_array_equal(x.cpu().numpy(), [0, 1, 2, 3])
        views = torch_corpus(torch)["views"]
        torch.save(views, tmp_path / "gv.pt")
        g = G.load(tmp_path / "gv.pt", map_location="cuda")
        g["base"].mul_(-1)  # the views share one GPU storage
        for k in ("t", "row", "slice", "flat"):
            assert g[k].device.type == "gpu" and g[k].stride() == views[k].stride(), k
            np.testing.assert_array_equal(g[k].cpu().numpy(), -to_np(views[k]))


def test_load_torch_names(torch, tmp_path):
    t = torch.arange(3.0)
    t.note = "kept"
    torch.save({"dtype": torch.float16, "device": torch.device("cpu"), "size": torch.Size([2]),
                "tagged": t, "odd_dtype": torch.complex64, "u8": torch.uint8},
               tmp_path / "names.pt")
    out = G.load(tmp_path / "names.pt")
    assert out["dtype"] is G.float16 and out["device"] == G.device("cpu")
    assert type(out["size"]) is G.Size and tuple(out["size"]) == (2,)
    assert out["tagged"].note == "kept" and out["tagged"].tolist() == [0.0, 1.0, 2.0]
    assert repr(out["odd_dtype"]) == "torch.complex64"  # loads; no gradrs tensor can use it
    assert out["u8"] is G.uint8


def test_load_unsupported_dtype_is_a_clear_error(torch, tmp_path):
    torch.save({"z": torch.zeros(2, dtype=torch.complex64)}, tmp_path / "c64.pt")
    with pytest.raises(RuntimeError, match="complex64"):
        G.load(tmp_path / "c64.pt")
    # uint8 / int8 / int16 checkpoints load (the RNG state is a uint8 tensor)
    torch.save({"img": torch.arange(250, 256, dtype=torch.uint8), "rng": torch.get_rng_state(),
                "c": torch.tensor([-3], dtype=torch.int8)}, tmp_path / "u8.pt")
    out = G.load(tmp_path / "u8.pt")
    assert out["img"].dtype is G.uint8 and out["img"].tolist() == list(range(250, 256))
    assert out["rng"].tolist() == torch.get_rng_state().tolist()
    assert out["c"].dtype is G.int8 and out["c"].tolist() == [-3]


def test_load_mmap(torch, tmp_path):
    obj = {"a": torch.arange(10.0), "b": torch.ones(3, 3, dtype=torch.float64)}
    torch.save(obj, tmp_path / "mm.pt")
    g = G.load(tmp_path / "mm.pt", mmap=True)
    same_tree(g, obj)
    g["a"].add_(1)  # a private mapping: the file is unchanged
    same_tree(G.load(tmp_path / "mm.pt"), obj)
    with pytest.raises(ValueError, match="f must be a file path"):
        G.load(io.BytesIO((tmp_path / "mm.pt").read_bytes()), mmap=True)


# --------------------------------------------------------------------------------------------
# gradrs -> torch
# --------------------------------------------------------------------------------------------


def gradrs_corpus():
    base = G.arange(24, dtype=G.float32).reshape(4, 6)
    from gradrs.nn.parameter import Parameter

    return {
        "state_dict": collections.OrderedDict([
            ("weight", G.arange(12.0).reshape(3, 4)),
            ("bias", G.zeros(3)),
            ("num_batches_tracked", G.tensor(5)),
        ]),
        "optimizer": {
            "state": {0: {"step": G.tensor(2.0), "exp_avg": G.ones(3, 4) * 0.5,
                          "exp_avg_sq": G.ones(3, 4) * 0.25}},
            "param_groups": [{"lr": 0.001, "betas": (0.9, 0.999), "eps": 1e-08,
                              "weight_decay": 0.01, "amsgrad": False, "foreach": None,
                              "params": [0]}],
        },
        "tensors": {d: (G.arange(6) % 3).to(getattr(G, d)).reshape(2, 3) for d in DTYPES},
        "scalar": G.tensor(3.5, dtype=G.float64),
        "empty": G.zeros(0, 3, dtype=G.float16),
        "views": {"base": base, "t": base.t(), "row": base[1], "slice": base[1:3, ::2],
                  "flat": base.view(-1)[5:11], "expand": base[0, :1].expand(3, 2)},
        "param": Parameter(G.ones(2, 2)),
        "frozen": Parameter(G.ones(3), requires_grad=False),
        "grad_leaf": G.ones(2, requires_grad=True),
        "meta": [1, 2.5, "x", None, (True,)],
        "dtype": G.float16,
        "device": G.device("cpu"),
        "size": G.Size([2, 3]),
    }


def check_torch_loaded(t, g, torch):
    """What torch.load returned for a gradrs-saved object equals the object."""
    if isinstance(g, G.Tensor):
        assert isinstance(t, torch.Tensor)
        assert dtype_name(t.dtype) == dtype_name(g.dtype)
        assert tuple(t.shape) == tuple(g.shape) and t.requires_grad == g.requires_grad
        np.testing.assert_array_equal(t.detach().numpy(), to_np(g))
        if g.numel():
            assert tuple(t.stride()) == tuple(g.stride())
        assert isinstance(t, torch.nn.Parameter) == (type(g).__name__ == "Parameter")
    elif isinstance(g, dict):
        assert type(t).__name__ == type(g).__name__ and list(t) == list(g)
        for k in g:
            check_torch_loaded(t[k], g[k], torch)
    elif isinstance(g, G.Size):
        assert isinstance(t, torch.Size) and tuple(t) == tuple(g)
    elif isinstance(g, (list, tuple)):
        assert type(t) is type(g) and len(t) == len(g)
        for a, b in zip(t, g):
            check_torch_loaded(a, b, torch)
    elif isinstance(g, G.dtype):
        assert t is getattr(torch, dtype_name(g))
    elif isinstance(g, G.device):
        assert t == torch.device(str(g))
    else:
        assert type(t) is type(g) and t == g


def test_torch_loads_gradrs_checkpoint(torch, tmp_path):
    obj = gradrs_corpus()
    for target in (tmp_path / "g.pt", str(tmp_path / "g2.pt")):
        G.save(obj, target)
        loaded = torch.load(target, weights_only=True)
        check_torch_loaded(loaded, obj, torch)
    views = loaded["views"]
    ptrs = {storage_ptr(v) for v in views.values()}
    assert len(ptrs) == 1, "views of one tensor must be saved as one storage"
    for k, v in views.items():
        assert v.storage_offset() == obj["views"][k].storage_offset(), k


def test_torch_loads_gradrs_checkpoint_from_buffer(torch):
    buf = io.BytesIO()
    G.save({"w": G.ones(2, 3)}, buf)
    buf.seek(0)
    out = torch.load(buf, weights_only=True)
    assert torch.equal(out["w"], torch.ones(2, 3))


def test_archive_layout_matches_torch(torch, tmp_path):
    G.save({"a": G.ones(3), "b": G.zeros(2, dtype=G.int64)}, tmp_path / "g.pt")
    torch.save({"a": torch.ones(3), "b": torch.zeros(2, dtype=torch.int64)}, tmp_path / "t.pt")
    zg, zt = zipfile.ZipFile(tmp_path / "g.pt"), zipfile.ZipFile(tmp_path / "t.pt")
    names_g = [n.split("/", 1)[1] for n in zg.namelist()]
    names_t = [n.split("/", 1)[1] for n in zt.namelist()]
    assert names_g == names_t
    assert zg.namelist()[0] == "g/data.pkl"  # the archive is named after the file, as torch's
    for name in names_t:
        if not name.endswith("serialization_id"):
            assert zg.read("g/" + name) == zt.read("t/" + name), name
    raw = (tmp_path / "g.pt").read_bytes()
    for info in zg.infolist():  # every record's data is 64-byte aligned, as PyTorch's
        h = info.header_offset
        name_len, extra_len = struct.unpack("<HH", raw[h + 26:h + 30])
        assert (h + 30 + name_len + extra_len) % 64 == 0, info.filename


def test_gradrs_round_trip(tmp_path):
    obj = gradrs_corpus()
    G.save(obj, tmp_path / "r.pt")
    out = G.load(tmp_path / "r.pt")
    same_tree(out["state_dict"], obj["state_dict"])
    same_tree(out["tensors"], obj["tensors"])
    same_tree(out["views"], obj["views"])
    same_tree(out["meta"], obj["meta"])
    assert out["dtype"] is G.float16 and out["device"] == G.device("cpu")
    assert type(out["size"]) is G.Size and tuple(out["size"]) == (2, 3)
    assert type(out["param"]).__name__ == "Parameter" and out["param"].requires_grad
    assert not out["frozen"].requires_grad
    out["views"]["base"].zero_()
    assert not out["views"]["t"].any().item() and not out["views"]["expand"].any().item()
    # Saved again, the loaded views are still one storage.
    G.save(out["views"], tmp_path / "r2.pt")
    with zipfile.ZipFile(tmp_path / "r2.pt") as z:
        assert sum(n.split("/")[1] == "data" for n in z.namelist()) == 1


def test_whole_modules_with_weights_only_false(torch, tmp_path):
    # A pickled module names its classes: torch.nn.* resolves to gradrs.nn.*.
    torch.manual_seed(0)
    tm = torch.nn.Sequential(torch.nn.Linear(2, 3), torch.nn.ReLU())
    torch.save(tm, tmp_path / "tm.pt")
    gm = G.load(tmp_path / "tm.pt", weights_only=False)
    assert repr(gm) == repr(tm)
    x = [[0.5, -1.0], [2.0, 1.0]]
    np.testing.assert_allclose(gm(G.tensor(x)).detach().numpy(),
                               tm(torch.tensor(x)).detach().numpy(), rtol=1e-6)
    with pytest.raises(pickle.UnpicklingError, match="torch.nn.modules.container.Sequential"):
        G.load(tmp_path / "tm.pt")
    G.save(gm, tmp_path / "gm.pt")
    again = G.load(tmp_path / "gm.pt", weights_only=False)
    assert type(again[0].weight).__name__ == "Parameter"
    np.testing.assert_array_equal(again[0].weight.detach().numpy(),
                                  gm[0].weight.detach().numpy())


def test_pickle_protocol_4(torch, tmp_path):
    G.save({"a": G.ones(2), "d": G.float64}, tmp_path / "p4.pt", pickle_protocol=4)
    for M in (G, torch):
        out = M.load(tmp_path / "p4.pt", weights_only=False)
        assert out["a"].tolist() == [1.0, 1.0] and out["d"] is M.float64


def test_save_gpu_tensor(torch, tmp_path):
    if not G.gpu.is_available():
        pytest.skip("no GPU adapter")
    G.save({"x": G.arange(4.0).to("gpu")}, tmp_path / "gpu.pt")
    out = torch.load(tmp_path / "gpu.pt", map_location="cpu", weights_only=True)
    assert torch.equal(out["x"], torch.arange(4.0))
    x = G.load(tmp_path / "gpu.pt")["x"]
    assert x.device.type == "gpu"
    x = G.load(tmp_path / "gpu.pt", map_location="cpu")["x"]
    assert x.device.type == "cpu"
    base = G.arange(24, dtype=G.float32).reshape(4, 6).to("gpu")
    views = {"base": base, "t": base.t(), "row": base[1], "slice": base[1:3, ::2],
             "flat": base.view(-1)[5:11]}
    G.save(views, tmp_path / "gpu_views.pt")
    out = torch.load(tmp_path / "gpu_views.pt", map_location="cpu", weights_only=True)
    assert len({storage_ptr(v) for v in out.values()}) == 1  # one storage, as PyTorch saves it
    for k, v in views.items():
        np.testing.assert_array_equal(out[k].numpy(), v.cpu().numpy(), err_msg=k)
        assert out[k].stride() == v.stride() and out[k].storage_offset() == v.storage_offset()


def test_save_errors(torch, tmp_path):
    check_error(lambda M: M.save({}, 3))
    check_error(lambda M: M.save({}, str(tmp_path / "missing" / "x.pt")))


def test_load_argument_errors(torch, tmp_path):
    torch.save({}, tmp_path / "e.pt")
    check_error(lambda M: M.load(tmp_path / "e.pt", pickle_module=pickle, weights_only=True))
    assert G.load(tmp_path / "e.pt", pickle_module=pickle) == {}  # weights_only defaults off


# --------------------------------------------------------------------------------------------
# weights_only refuses what is not a tensor or a container
# --------------------------------------------------------------------------------------------


class Payload:
    """Pickles as a call to os.system: what a malicious checkpoint does."""

    def __init__(self, path):
        self.path = path

    def __reduce__(self):
        return (os.system, (f"touch {self.path}",))


class Point:
    def __init__(self, x):
        self.x = x


def write_checkpoint(path, pkl):
    """A zip archive as torch.save writes it, holding the given pickle."""
    with zipfile.ZipFile(path, "w") as z:
        z.writestr("archive/data.pkl", pkl)
        z.writestr("archive/byteorder", "little")
        z.writestr("archive/version", "3\n")


def test_weights_only_refuses_code(tmp_path):
    marker = tmp_path / "pwned"
    write_checkpoint(tmp_path / "evil.pt", pickle.dumps({"x": Payload(marker)}, protocol=2))
    with pytest.raises(pickle.UnpicklingError, match="whose module posix is blocked") as e:
        G.load(tmp_path / "evil.pt")
    assert "Weights only load failed" in str(e.value)
    assert not marker.exists()
    with G.serialization.safe_globals([os.system]):  # blocked modules stay blocked
        with pytest.raises(pickle.UnpicklingError):
            G.load(tmp_path / "evil.pt")
    assert not marker.exists()
    write_checkpoint(tmp_path / "eval.pt", pickle.dumps(
        {"x": Point(1)}, protocol=2).replace(b"ctest_serialization\nPoint", b"c__builtin__\neval"))
    with pytest.raises(pickle.UnpicklingError, match="GLOBAL eval was not an allowed global"):
        G.load(tmp_path / "eval.pt")


def test_weights_only_messages_match_torch(torch, tmp_path):
    marker = tmp_path / "pwned"
    write_checkpoint(tmp_path / "evil.pt", pickle.dumps(Payload(marker), protocol=2))
    torch.save({"p": Point(2)}, tmp_path / "point.pt")
    docs = "https://pytorch.org/docs/stable/generated/torch.load.html"
    for name in ("evil.pt", "point.pt"):
        eg, et = check_error_raw(lambda M, n=name: M.load(tmp_path / n), torch)
        mt = norm(str(et).replace(docs, "DOCS"))
        assert str(eg).replace(docs, "DOCS") == mt
    assert not marker.exists()


def check_error_raw(fn, torch):
    errors = []
    for M in (G, torch):
        with pytest.raises(pickle.UnpicklingError) as e:
            fn(M)
        errors.append(e.value)
    return errors


def test_safe_globals_allow_a_class(torch, tmp_path):
    torch.save({"p": Point(2)}, tmp_path / "point.pt")
    with pytest.raises(pickle.UnpicklingError):
        G.load(tmp_path / "point.pt")
    assert G.serialization.get_unsafe_globals_in_checkpoint(tmp_path / "point.pt") == [
        "test_serialization.Point"]
    with G.serialization.safe_globals([Point]):
        assert G.serialization.get_safe_globals() == [Point]
        assert G.load(tmp_path / "point.pt")["p"].x == 2
    assert G.serialization.get_safe_globals() == []
    assert G.load(tmp_path / "point.pt", weights_only=False)["p"].x == 2


# --------------------------------------------------------------------------------------------
# pickle and deepcopy
# --------------------------------------------------------------------------------------------


@pytest.mark.parametrize("dtype", DTYPES)
def test_pickle_round_trip(dtype):
    x = (G.arange(12) % 5).to(getattr(G, dtype)).reshape(3, 4)
    for t in (x, x.t(), x[1:, ::2], x[0, 0], x[:0]):
        y = pickle.loads(pickle.dumps(t))
        same_tensor(y, t)
        assert y.storage_offset() == t.storage_offset()


def test_pickle_keeps_requires_grad_subclass_and_attributes():
    x = G.arange(3.0).requires_grad_()
    y = pickle.loads(pickle.dumps(x))
    assert y.requires_grad and y.is_leaf
    x.note = "hi"
    y = pickle.loads(pickle.dumps(x))
    assert y.note == "hi" and type(y) is G.Tensor
    from gradrs.nn.parameter import Parameter

    p = pickle.loads(pickle.dumps(Parameter(G.ones(2))))
    assert type(p) is Parameter and p.requires_grad
    for obj in (G.float16, G.int64, G.device("cpu"), G.Size([1, 2])):
        assert pickle.loads(pickle.dumps(obj)) == obj


def test_pickled_views_are_not_shared(torch):
    # Plain pickling writes each view's whole storage (offsets kept) and loads them apart.
    def run(M):
        x = M.arange(10.0)
        a, b, c = pickle.loads(pickle.dumps([x, x[2:], x.view(2, 5).t()]))
        a.add_(1)
        return b.tolist(), b.storage_offset(), c.tolist(), c.stride()

    assert run(G) == run(torch)


def test_queue_pickling_sends_only_the_tensor(torch):
    from multiprocessing.reduction import ForkingPickler

    big = G.arange(100_000.0)
    sample = big.view(1000, 100)[7]
    assert len(ForkingPickler.dumps(sample)) < 2_000 < len(pickle.dumps(sample))
    out = pickle.loads(ForkingPickler.dumps([sample, big.view(100, 1000).t()[:3, :2]]))
    same_tensor(out[0], sample)
    same_tensor(out[1], big.view(100, 1000).t()[:3, :2])
    check_error(lambda M: ForkingPickler.dumps(M.ones(2, requires_grad=True) * 2))


def test_shallow_copy_shares_memory(torch):
    def run(M):
        x = M.arange(4.0).requires_grad_()
        x.tags = ["a"]
        y = copy.copy(x)
        with M.no_grad():
            y.add_(1)
        return x.tolist(), y.tolist(), y.requires_grad, y.is_leaf, y is x, y.tags is x.tags

    assert run(G) == run(torch)


def test_deepcopy(torch):
    x = G.arange(6.0).reshape(2, 3).requires_grad_()
    x.grad = G.ones(2, 3)
    y = copy.deepcopy(x)
    same_tensor(y, x)
    assert y.is_leaf and y.grad is not None and y.data_ptr() != x.data_ptr()
    np.testing.assert_array_equal(y.grad.numpy(), np.ones((2, 3)))
    check_error(lambda M: copy.deepcopy(M.ones(2, requires_grad=True) * 2))
    memo = {}
    assert copy.deepcopy(x, memo) is copy.deepcopy(x, memo)


def test_deepcopy_keeps_views_shared(torch):
    def run(M):
        base = M.arange(6.0)
        a, b, c = copy.deepcopy([base, base[2:], base.view(2, 3).t()])
        a.add_(10)  # one copied storage for the three, as PyTorch's deepcopy
        return b.tolist(), b.storage_offset(), c.tolist(), c.stride(), base.tolist()

    assert run(G) == run(torch)


def test_deepcopy_gpu_views_stay_shared():
    if not G.gpu.is_available():
        pytest.skip("no GPU adapter")
    base = G.arange(6.0).to("gpu")
    a, b, c = copy.deepcopy([base, base[2:], base.view(2, 3).t()])
    assert a.device.type == b.device.type == c.device.type == "gpu"
    assert c.stride() == (1, 3) and b.storage_offset() == 2
    a.add_(10)
    np.testing.assert_array_equal(b.cpu().numpy(), [12, 13, 14, 15])
    np.testing.assert_array_equal(c.cpu().numpy(), [[10, 13], [11, 14], [12, 15]])
    np.testing.assert_array_equal(base.cpu().numpy(), np.arange(6.0))


def test_deepcopy_subclass_and_parameter():
    class Tagged(G.Tensor):
        pass

    t = G.Tensor.__new__(Tagged, G.ones(2))
    t.tag = [1]
    u = copy.deepcopy(t)
    assert type(u) is Tagged and u.tag == [1] and u.tag is not t.tag
    from gradrs.nn.parameter import Parameter

    p = Parameter(G.ones(2))
    q = copy.deepcopy({"p": p})["p"]
    assert type(q) is Parameter and q.requires_grad and q.data_ptr() != p.data_ptr()


def test_deepcopy_and_pickle_a_model():
    model = G.nn.Sequential(G.nn.Linear(2, 3), G.nn.BatchNorm1d(3))
    twin = copy.deepcopy(model)
    assert repr(twin) == repr(model)
    for (name, p), (_, q) in zip(model.state_dict().items(), twin.state_dict().items()):
        np.testing.assert_array_equal(to_np(q), to_np(p), err_msg=name)
        assert q.data_ptr() != p.data_ptr(), name
    assert type(twin[0].weight).__name__ == "Parameter" and twin[0].weight.requires_grad
    twin(G.ones(4, 2)).sum().backward()
    assert twin[0].weight.grad is not None and model[0].weight.grad is None
    again = pickle.loads(pickle.dumps(model))
    assert repr(again) == repr(model)
    np.testing.assert_array_equal(to_np(again[0].bias), to_np(model[0].bias))
