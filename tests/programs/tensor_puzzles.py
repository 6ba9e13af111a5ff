"""Tensor puzzles (in the style of srush/Tensor-Puzzles): re-implement library functions with
only arange, broadcasting, where and indexing, then check each against the real torch function
on random inputs, printing small examples."""
import torch

torch.manual_seed(3)


def arange(i: int):
    return torch.tensor(range(i))


def where(q, a, b):
    return (q * a) + (~q) * b


def ones(i):
    return (arange(i) >= 0) * 1


def sum_(a):
    return ones(a.shape[0]) @ a[:, None]


def outer(a, b):
    return a[:, None] * b[None, :]


def diag(a):
    return a[arange(a.shape[0]), arange(a.shape[0])]


def eye(j):
    return (arange(j)[:, None] == arange(j)) * 1


def triu(j):
    return (arange(j)[:, None] <= arange(j)) * 1


def cumsum(a):
    return a @ triu(a.shape[0])


def diff(a, i):
    return a[1:i] - a[: i - 1]


def vstack(a, b):
    return where(arange(2)[:, None] == ones(a.shape[0]), b, a)


def roll(a, i):
    return a[(arange(i) + 1) % i]


def flip(a, i):
    return a[i - arange(i) - 1]


def compress(g, v, i):
    return v @ where(g[:, None], arange(i) == (cumsum(1 * g) - 1)[:, None], 0)


def pad_to(a, i, j):
    return a @ ((arange(i)[:, None] == arange(j)) * 1)


def sequence_mask(values, length):
    return where(length[:, None] > arange(values.shape[1]), values, 0)


def bincount(a, j):
    return ones(a.shape[0]) @ eye(j)[a]


def scatter_add(values, link, j):
    return values @ eye(j)[link]


def flatten(a, i, j):
    return a[arange(i * j) // j, arange(i * j) % j]


def linspace(i, j, n):
    return i + (j - i) * arange(n) / max(1, n - 1)


def heaviside(a, b):
    return where(a == 0, b, a > 0)


def repeat(a, d):
    return ones(d)[:, None] @ a[None]


def bucketize(v, boundaries):
    return (1 * (v[:, None] >= boundaries)).sum(1)


checks = []


def check(name, ours, theirs):
    ok = torch.equal(ours, theirs) if ours.dtype == theirs.dtype else torch.allclose(ours.double(), theirs.double())
    checks.append(ok)
    print(f"{name:14s} ok={ok}  {ours.tolist()}")


a = torch.randint(-5, 6, (6,))
b = torch.randint(0, 4, (4,))
m = torch.randint(-3, 4, (4, 5))
print("a", a, "b", b)
print("m", m, sep="\n")
check("ones", ones(5), torch.ones(5, dtype=torch.long))
check("sum", sum_(a), a.sum(0, keepdim=True))
check("outer", outer(a[:3], b), torch.outer(a[:3], b))
check("diag", diag(m[:, :4]), torch.diag(m[:, :4]))
check("eye", eye(3), torch.eye(3, dtype=torch.long))
check("triu", triu(4), torch.triu(torch.ones(4, 4, dtype=torch.long)))
check("cumsum", cumsum(a), torch.cumsum(a, 0))
check("diff", diff(a, 6), torch.diff(a))
check("vstack", vstack(a[:3], b[:3]), torch.vstack([a[:3], b[:3]]))
check("roll", roll(a, 6), torch.roll(a, -1))
check("flip", flip(a, 6), torch.flip(a, (0,)))
g = a > 0
check("compress", compress(g, a, 6), torch.nn.functional.pad(a[g], (0, 6 - int(g.sum()))))
check("pad_to", pad_to(a, 6, 8), torch.nn.functional.pad(a, (0, 2)))
lengths = torch.tensor([0, 2, 5, 3])
check("sequence_mask", sequence_mask(m, lengths),
      m * (torch.arange(5)[None, :] < lengths[:, None]))
check("bincount", bincount(b, 5), torch.bincount(b, minlength=5))
vals = torch.tensor([1, 2, 3, 4])
check("scatter_add", scatter_add(vals, b, 5), torch.zeros(5, dtype=torch.long).scatter_add_(0, b, vals))
check("flatten", flatten(m, 4, 5), m.flatten())
check("linspace", linspace(0.0, 1.0, 5), torch.linspace(0.0, 1.0, 5))
x = torch.tensor([-1.5, 0.0, 2.0, 0.0])
check("heaviside", heaviside(x, torch.tensor(0.5)), torch.heaviside(x, torch.tensor(0.5)))
check("repeat", repeat(b, 3), b.repeat(3, 1))
bounds = torch.tensor([-2, 0, 3])
check("bucketize", bucketize(a, bounds), torch.bucketize(a, bounds, right=True))
print(f"{sum(checks)}/{len(checks)} puzzles solved")

# a few identities people check while solving them
print(torch.where(a > 0, a, torch.zeros_like(a)))
print(torch.where(a > 0))
print(a[None, :].expand(3, -1).stride(), a.unsqueeze(1).shape, a[..., None].shape)
print(torch.arange(12).view(3, 4)[:, [0, 2]], torch.arange(12).view(3, 4)[[0, 2], 1:])
print(torch.arange(10)[torch.arange(10) % 3 == 0])
print((torch.arange(3)[:, None] + torch.arange(4)).tolist())
print(torch.tensor(range(3)).dtype, torch.tensor([True, False]) * 1, (~torch.tensor([True, False])).int())
