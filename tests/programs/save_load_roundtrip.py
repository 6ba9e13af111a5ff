"""torch.save / torch.load as scripts use them: tensors, views that share storage, dicts / lists /
tuples / namedtuples of tensors, a state_dict and an optimizer's state_dict through a file and
an io.BytesIO, map_location forms, weights_only loads (and what they refuse), dtypes and
requires_grad across the round trip, a Parameter, _use_new_zipfile_serialization=False, and
the printed state that training scripts log."""
import collections
import io
import os
import pickle
import tempfile

import torch
import torch.nn as nn

torch.manual_seed(0)
tmp = tempfile.mkdtemp()

# plain tensors of several dtypes
t = {
    "f32": torch.arange(6, dtype=torch.float32).reshape(2, 3),
    "f64": torch.linspace(0, 1, 5, dtype=torch.float64),
    "i64": torch.tensor([1, -2, 3]),
    "i32": torch.tensor([7, 8], dtype=torch.int32),
    "u8": torch.tensor([0, 255], dtype=torch.uint8),
    "bool": torch.tensor([True, False]),
    "f16": torch.tensor([0.5, 1.5], dtype=torch.float16),
    "scalar": torch.tensor(3.25),
    "empty": torch.empty(0, 4),
}
path = os.path.join(tmp, "tensors.pt")
torch.save(t, path)
back = torch.load(path)
for k, v in back.items():
    print(k, v.dtype, tuple(v.shape), torch.equal(v, t[k]), v.is_contiguous())

# views share one storage after loading, as before saving
base = torch.arange(10.)
views = {"base": base, "even": base[::2], "tail": base[5:], "t": base.view(2, 5).t()}
buf = io.BytesIO()
torch.save(views, buf)
print("bytes written > 0:", buf.tell() > 0)
buf.seek(0)
v2 = torch.load(buf)
v2["base"][6] = 100.
print(v2["tail"], v2["even"], v2["t"].stride(), v2["t"].is_contiguous())
print(v2["even"].data_ptr() == v2["base"].data_ptr(), v2["tail"].data_ptr() - v2["base"].data_ptr())
print(v2["tail"].storage_offset(), v2["even"].stride())

# containers and namedtuples
Point = collections.namedtuple("Point", ["x", "y"])  # noqa: PYI024
obj = {"list": [torch.ones(2), 3, "text"], "tuple": (torch.zeros(1), None),
       "nested": {"a": {"b": torch.tensor([1.5])}}, "pt": Point(torch.tensor(1.), 2.0)}
buf = io.BytesIO()
torch.save(obj, buf)
buf.seek(0)
o2 = torch.load(buf, weights_only=False)
print(o2["list"], o2["tuple"], o2["nested"]["a"]["b"], type(o2["pt"]).__name__, o2["pt"].y)

# requires_grad and Parameters
w = nn.Parameter(torch.randn(2, 2))
x = torch.ones(3, requires_grad=True)
buf = io.BytesIO()
torch.save({"w": w, "x": x, "xd": x.detach()}, buf)
buf.seek(0)
r = torch.load(buf)
print(type(r["w"]).__name__, r["w"].requires_grad, r["x"].requires_grad, r["xd"].requires_grad, r["x"].is_leaf)


# a model, its state_dict, an optimizer's state
class Net(nn.Module):
    def __init__(self):
        super().__init__()
        self.fc1 = nn.Linear(4, 8)
        self.bn = nn.BatchNorm1d(8)
        self.fc2 = nn.Linear(8, 2)

    def forward(self, x):
        return self.fc2(torch.relu(self.bn(self.fc1(x))))


model = Net()
opt = torch.optim.Adam(model.parameters(), lr=1e-3, weight_decay=1e-4)
sched = torch.optim.lr_scheduler.StepLR(opt, step_size=1, gamma=0.5)
for _ in range(3):
    loss = model(torch.randn(16, 4)).pow(2).mean()
    opt.zero_grad()
    loss.backward()
    opt.step()
    sched.step()
sd = model.state_dict()
print(type(sd).__name__, list(sd.keys()))
print({k: tuple(v.shape) for k, v in sd.items()})
print(sd["bn.num_batches_tracked"], sd["bn.running_mean"].dtype)
osd = opt.state_dict()
print(osd["param_groups"])
print(sorted(osd["state"].keys()), sorted(osd["state"][0].keys()), osd["state"][0]["step"])
print(sched.state_dict())

ckpt = os.path.join(tmp, "ckpt.pth")
torch.save({"epoch": 3, "model_state_dict": model.state_dict(), "optimizer_state_dict": opt.state_dict(),
            "scheduler": sched.state_dict(), "loss": loss.item()}, ckpt)
checkpoint = torch.load(ckpt, map_location="cpu", weights_only=True)
model2 = Net()
print(model2.load_state_dict(checkpoint["model_state_dict"]))
opt2 = torch.optim.Adam(model2.parameters(), lr=1e-3, weight_decay=1e-4)
opt2.load_state_dict(checkpoint["optimizer_state_dict"])
sched2 = torch.optim.lr_scheduler.StepLR(opt2, step_size=1, gamma=0.5)
sched2.load_state_dict(checkpoint["scheduler"])
print(checkpoint["epoch"], type(checkpoint["loss"]).__name__, opt2.param_groups[0]["lr"], sched2.last_epoch)
print(all(torch.equal(a, b) for a, b in zip(model.state_dict().values(), model2.state_dict().values())))
s1 = opt.state_dict()["state"][2]["exp_avg_sq"]
s2 = opt2.state_dict()["state"][2]["exp_avg_sq"]
print(torch.equal(s1, s2), s2.shape)
model.eval()
model2.eval()
xin = torch.randn(5, 4)
print(torch.equal(model(xin), model2(xin)))

# map_location variants
for ml in ["cpu", torch.device("cpu"), lambda storage, loc: storage, {"cpu": "cpu"}]:
    out = torch.load(ckpt, map_location=ml, weights_only=True)
    print(type(ml).__name__, out["model_state_dict"]["fc1.weight"].device)

# weights_only refuses arbitrary classes


class Custom:
    def __init__(self):
        self.v = torch.ones(1)


buf = io.BytesIO()
torch.save({"c": Custom()}, buf)
buf.seek(0)
try:
    torch.load(buf, weights_only=True)
except pickle.UnpicklingError as e:
    print("UnpicklingError:", str(e).splitlines()[0][:60])
buf.seek(0)
print(torch.load(buf, weights_only=False)["c"].v)

# whole module pickled, legacy format, and a file object
whole = os.path.join(tmp, "whole.pt")
torch.save(model, whole)
m3 = torch.load(whole, weights_only=False)
print(type(m3).__name__, m3.training, m3.fc1)
legacy = os.path.join(tmp, "legacy.pt")
torch.save(model.state_dict(), legacy, _use_new_zipfile_serialization=False)
print(list(torch.load(legacy).keys())[:3])
with open(os.path.join(tmp, "f.pt"), "wb") as f:
    torch.save([torch.tensor([1, 2])], f)
with open(os.path.join(tmp, "f.pt"), "rb") as f:
    print(torch.load(f))
print(sorted(os.listdir(tmp)))
