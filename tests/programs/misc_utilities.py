"""Everyday utilities seen in training scripts: printing, dtypes info, one_hot, normalize, unique,
bincount, printing options, default dtype, samplers, and a distribution."""
# Written as the tutorial or repository it imitates writes it:
# ruff: noqa: UP031
import torch
import torch.nn.functional as F
from torch.utils.data import WeightedRandomSampler

x = torch.arange(6, dtype=torch.float32).reshape(2, 3)
print(x.type(), x.long().type(), isinstance(x, torch.Tensor), torch.is_tensor(x))
print(torch.finfo(torch.float32).eps, torch.finfo(torch.float16).max, torch.iinfo(torch.int64).max)
print(f"{x.sum().item():.2f}", format(x.mean(), ".3f"), f"{x[0, 1]}", "%.1f" % x.max())
print(F.one_hot(torch.tensor([0, 2, 1]), num_classes=4))
print(F.normalize(x, p=2, dim=1))
vals, counts = torch.unique(torch.tensor([3, 1, 3, 2, 1, 3]), return_counts=True)
print(vals, counts, torch.bincount(torch.tensor([0, 1, 1, 4])))
print(torch.get_default_dtype(), torch.tensor([1.0]).dtype)
torch.set_default_dtype(torch.float64)
print(torch.tensor([1.0]).dtype, torch.zeros(2).dtype)
torch.set_default_dtype(torch.float32)
torch.set_printoptions(precision=2)
print(torch.tensor([1.23456, 2.5]))
torch.set_printoptions(profile="default")
print(torch.arange(2000))
print(torch.linspace(-1, 1, 5).clamp(min=0), torch.tensor([[1, 2], [3, 4]]).tolist())
print(x.shape[0], len(x), x.size(-1), x.ndim, x.T.shape, list(x.shape), torch.Size([2, 3]) == x.shape)
print(torch.tensor([]).numel(), torch.empty(0, 3).shape, torch.zeros(2, 0).sum())
print(torch.cat([torch.zeros(1, 2), torch.ones(1, 2)]).mean(0), torch.tensor(True).item())
print(torch.tensor([0.1, 0.7, 0.2]).topk(2), torch.sort(torch.tensor([3, 1, 2]), descending=True))
print(torch.cumsum(torch.ones(4), 0), torch.prod(torch.tensor([1., 2., 3.])), torch.tensor([1, 2]).float().norm())
print(torch.einsum("ij,kj->ik", x, x))
print(torch.nn.utils.parameters_to_vector(torch.nn.Linear(2, 1).parameters()).shape)
print(torch.tensor([[0.1, 0.9], [0.8, 0.2]]).argmax(dim=1), torch.max(torch.tensor([1, 5, 3])))
torch.manual_seed(0)
sampler = WeightedRandomSampler([0.0, 0.0, 1.0, 0.0], num_samples=5, replacement=True)
print(list(sampler))
dist = torch.distributions.Categorical(probs=torch.tensor([0.0, 1.0, 0.0]))
print(dist.sample(), dist.log_prob(torch.tensor(1)), dist.entropy())
normal = torch.distributions.Normal(torch.tensor([0.0]), torch.tensor([1.0]))
print(normal.log_prob(torch.tensor([0.0])), normal.rsample((3,)).shape)
print(torch.cuda.is_available(), torch.device("cpu"), torch.device("cuda:0" if torch.cuda.is_available() else "cpu").type)
print(torch.__version__ is not None, hasattr(torch, "compile"))
