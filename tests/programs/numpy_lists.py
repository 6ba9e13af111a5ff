"""Lists of numpy values turned into tensors, as RL and data scripts build them: discounted
returns computed with numpy floats (torch.tensor keeps float64), observations collected as a list
of numpy arrays (torch.tensor / torch.as_tensor of the list, with PyTorch's slowness warning),
int32 labels from numpy, and indexing a tensor with numpy index arrays and masks."""
import warnings

import numpy as np
import torch

np.random.seed(0)
rewards = [1.0, 0.0, 0.5, 1.0]
gamma = np.float64(0.99)
R, returns = 0, []
for r in rewards[::-1]:
    R = r + gamma * R
    returns.insert(0, R)
print(type(returns[0]).__name__)
returns = torch.tensor(returns)
print(returns.dtype, returns)
returns = (returns - returns.mean()) / (returns.std() + np.finfo(np.float32).eps.item())
print(returns)

obs = [np.random.rand(3) for _ in range(4)]
with warnings.catch_warnings(record=True) as w:
    warnings.simplefilter("always")
    batch = torch.tensor(obs, dtype=torch.float32)
print(batch.shape, batch.dtype, [str(x.message)[:50] for x in w])
print(torch.as_tensor(obs).dtype, torch.tensor([np.arange(2, dtype=np.int32)]).dtype)
print(torch.tensor([np.int32(1), np.int32(2)]).dtype, torch.tensor([np.float32(1), np.float64(2)]).dtype,
      torch.tensor([np.float16(1), 2.0]).dtype, torch.tensor([np.int64(1), 2.5]).dtype)
labels = torch.tensor([np.argmax(o) for o in obs])
print(labels.dtype, labels)

x = torch.arange(10) * 10
idx = np.array([3, 1, 4])
print(x[idx], x[np.arange(3)], x[np.array([True, False] * 5)])
perm = np.random.permutation(10)
x[perm[:2]] = -1
print(x)
