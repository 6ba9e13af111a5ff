"""Code that mixes numpy and torch as data-science scripts do: from_numpy sharing memory (and
its writes), as_tensor / tensor copies, numpy scalars with tensors (promotion), tensors handed
to numpy functions (np.asarray, np.mean, __array__), .numpy() on tensors that require grad (the
error and .detach().numpy()), dtype mapping both ways, non-contiguous and negative-stride
arrays, numpy bool masks, and a pandas-free z-score / one-hot / train-split pipeline."""
import numpy as np
import torch

np.random.seed(0)
torch.manual_seed(0)

a = np.arange(6, dtype=np.float32).reshape(2, 3)
t = torch.from_numpy(a)
a[0, 0] = 100
print(t, t.dtype, t.is_contiguous())
t[1, 2] = -1
print(a)
print(torch.as_tensor(a) is not None, torch.as_tensor(a).data_ptr() == t.data_ptr(),
      torch.tensor(a).data_ptr() == t.data_ptr())

for dt in [np.float64, np.float32, np.float16, np.int64, np.int32, np.int16, np.int8, np.uint8, np.bool_]:
    x = torch.from_numpy(np.ones(2, dtype=dt))
    print(np.dtype(dt).name, x.dtype, x.numpy().dtype)

print(torch.tensor(np.float64(1.5)), torch.tensor(np.int32(7)), torch.tensor([np.float32(1.0), 2]))
print(torch.ones(2) * np.float64(2.5), (torch.ones(2) * np.float64(2.5)).dtype)
print(torch.ones(2, dtype=torch.int64) + np.int64(3), torch.arange(3) * np.float32(0.5))
print(np.float64(2.0) * torch.ones(2))
print(torch.ones(3)[np.int64(1)], torch.zeros(4)[np.int32(2):])

x = torch.linspace(0, 1, 5)
print(np.asarray(x), np.mean(x.numpy()), np.array(x, dtype=np.float64).dtype)
print(np.sum(np.asarray(torch.ones(2, 2))), type(np.exp(x.numpy())).__name__)

w = torch.randn(3, requires_grad=True)
try:
    w.numpy()
except RuntimeError as e:
    print("RuntimeError:", e)
print(w.detach().numpy().shape, w.detach().cpu().numpy().dtype)

nc = np.arange(12.0).reshape(3, 4)[:, ::2]
print(nc.flags["C_CONTIGUOUS"], torch.from_numpy(nc).stride(), torch.from_numpy(nc))
rev = np.arange(5)[::-1]
try:
    torch.from_numpy(rev)
except ValueError as e:
    print("ValueError:", str(e)[:80])
print(torch.from_numpy(rev.copy()), torch.tensor(rev.copy()))
ro = np.arange(3.0)
ro.setflags(write=False)
print(torch.tensor(ro), torch.as_tensor(ro.copy()))

# typical preprocessing written in numpy, model in torch
X = np.random.randn(100, 4) * np.array([1, 10, 100, 1000]) + np.array([0, 5, -5, 50])
y = (X[:, 0] + X[:, 1] / 10 > 0).astype(np.int64)
mu, sd = X.mean(axis=0), X.std(axis=0)
Xz = (X - mu) / sd
print(np.round(Xz.mean(0), 6), np.round(Xz.std(0), 6))
idx = np.random.permutation(len(X))
tr, te = idx[:80], idx[80:]
Xt = torch.tensor(Xz[tr], dtype=torch.float32)
yt = torch.from_numpy(y[tr])
print(Xt.shape, Xt.dtype, yt.dtype, yt.sum().item())
onehot = np.eye(2)[y[:5]]
print(torch.from_numpy(onehot).float(), torch.nn.functional.one_hot(torch.from_numpy(y[:5]), 2))

model = torch.nn.Linear(4, 2)
opt = torch.optim.SGD(model.parameters(), lr=0.5)
for step in range(50):
    loss = torch.nn.functional.cross_entropy(model(Xt), yt)
    opt.zero_grad()
    loss.backward()
    opt.step()
with torch.no_grad():
    pred = model(torch.from_numpy(Xz[te]).float()).argmax(1).numpy()
acc = (pred == y[te]).mean()
print(type(pred).__name__, pred.dtype, f"test accuracy {acc:.2f}", acc > 0.8)
print(np.bincount(pred, minlength=2).sum(), torch.bincount(torch.from_numpy(pred)).sum())

mask = np.array([True, False, True])
vals = torch.tensor([1.0, 2.0, 3.0])
print(vals[torch.from_numpy(mask)], torch.where(torch.from_numpy(mask), vals, -vals))
print(torch.tensor(np.array([[1, 2], [3, 4]])).T.contiguous().numpy().flags["C_CONTIGUOUS"])
print(torch.stack([torch.from_numpy(np.full(2, i, dtype=np.float32)) for i in range(3)]))
print(torch.tensor(np.array([np.array([1.0, 2.0]), np.array([3.0, 4.0])])).dtype)
print(torch.from_numpy(np.array(3.5)).shape, torch.from_numpy(np.zeros((0, 3))).shape)
print(x.tolist(), type(x.tolist()[0]).__name__, torch.tensor(5).item(), type(torch.tensor([5])[0].item()).__name__)
