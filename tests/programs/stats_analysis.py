"""Statistics scripts written over tensors: descriptive statistics (mean / std with correction,
var_mean, median, mode, quantiles with each interpolation, nan-aware reductions), histograms
(histc, histogram with bin edges, bincount), an empirical CDF with searchsorted, covariance and
correlation matrices, standardization, a bootstrap confidence interval with a seeded
Generator, a permutation test, a two-sample t statistic with torch.special, moving averages
with cumsum and conv1d, and outlier masks."""
import math

import torch

g = torch.Generator().manual_seed(123)
a = torch.randn(200, generator=g, dtype=torch.float64) * 2 + 1
b = torch.randn(150, generator=g, dtype=torch.float64) * 1.5 + 1.6
print(a.dtype, a.shape, round(a.mean().item(), 6), round(a.std().item(), 6), round(a.std(correction=0).item(), 6))
v, m = torch.var_mean(a, correction=1)
s, m2 = torch.std_mean(b)
print(round(v.item(), 6), round(m.item(), 6), round(s.item(), 6), round(m2.item(), 6))
print(round(a.median().item(), 6), a.min().item() < a.max().item(), a.aminmax())
ints = torch.randint(0, 5, (30,), generator=g)
print(ints, torch.mode(ints), ints.bincount(), torch.unique(ints, return_counts=True))
q = torch.tensor([0.1, 0.25, 0.5, 0.75, 0.9], dtype=torch.float64)
for method in ["linear", "lower", "higher", "midpoint", "nearest"]:
    print(method, torch.round(torch.quantile(a, q, interpolation=method), decimals=5))
iqr = torch.quantile(a, 0.75) - torch.quantile(a, 0.25)
print("iqr", round(iqr.item(), 6))

with_nan = a.clone()
with_nan[::10] = float("nan")
print(torch.isnan(with_nan).sum().item(), round(with_nan.nanmean().item(), 6), round(with_nan.nansum().item(), 4),
      round(torch.nanmedian(with_nan).item(), 6), round(torch.nanquantile(with_nan, 0.9).item(), 6))

print(torch.histc(a, bins=8, min=-5, max=7))
hist, edges = torch.histogram(a, bins=6)
print(hist, torch.round(edges, decimals=4))
hist, edges = torch.histogram(a, bins=torch.tensor([-10.0, 0.0, 1.0, 2.0, 10.0], dtype=torch.float64), density=True)
print(torch.round(hist, decimals=5))

sorted_a, _ = torch.sort(a)
grid = torch.linspace(-4, 6, 6, dtype=torch.float64)
ecdf = torch.searchsorted(sorted_a, grid, right=True).double() / len(a)
print(ecdf)
print(torch.bucketize(torch.tensor([0.5, 1.5, 9.0]), torch.tensor([0.0, 1.0, 2.0])))

X = torch.stack([a[:150], b, a[:150] * 0.5 + b * 0.1])
print(torch.round(torch.cov(X), decimals=5))
print(torch.round(torch.corrcoef(X), decimals=5))
print(torch.round(torch.cov(X, correction=0, fweights=torch.ones(150, dtype=torch.long) * 2), decimals=5))
Z = (X - X.mean(dim=1, keepdim=True)) / X.std(dim=1, keepdim=True)
print(torch.round(Z.mean(1), decimals=10).abs(), torch.round(Z.std(1), decimals=10))

B = 1000
idx = torch.randint(0, len(a), (B, len(a)), generator=g)
boot_means = a[idx].mean(dim=1)
lo, hi = torch.quantile(boot_means, torch.tensor([0.025, 0.975], dtype=torch.float64))
print(f"bootstrap 95% CI: [{lo.item():.4f}, {hi.item():.4f}]", boot_means.shape)

observed = b.mean() - a.mean()
pooled = torch.cat([a, b])
count = 0
for _ in range(200):
    perm = torch.randperm(len(pooled), generator=g)
    diff = pooled[perm[:150]].mean() - pooled[perm[150:]].mean()
    count += int(diff.abs() >= observed.abs())
print(f"observed diff {observed.item():.5f} permutation p ~ {count / 200:.3f}")

n1, n2 = len(a), len(b)
va, vb = a.var(), b.var()
t_stat = (a.mean() - b.mean()) / torch.sqrt(va / n1 + vb / n2)
df = (va / n1 + vb / n2) ** 2 / ((va / n1) ** 2 / (n1 - 1) + (vb / n2) ** 2 / (n2 - 1))
print(f"Welch t = {t_stat.item():.5f}, df = {df.item():.3f}")
z = t_stat.abs()
p_normal = 2 * (1 - torch.special.ndtr(z))
print(f"normal-approx p = {p_normal.item():.6f}", round(torch.special.erfc(z / math.sqrt(2)).item(), 8))
print(round(torch.special.log_ndtr(torch.tensor(-3.0, dtype=torch.float64)).item(), 8),
      round(torch.special.ndtri(torch.tensor(0.975, dtype=torch.float64)).item(), 8))

series = torch.cumsum(torch.randn(30, generator=g), 0)
window = 5
cs = torch.cumsum(torch.cat([torch.zeros(1), series]), 0)
ma = (cs[window:] - cs[:-window]) / window
ma2 = torch.nn.functional.conv1d(series.view(1, 1, -1), torch.full((1, 1, window), 1.0 / window)).flatten()
print(ma.shape, torch.allclose(ma, ma2, atol=1e-5))
ema = torch.zeros_like(series)
ema[0] = series[0]
for t in range(1, len(series)):
    ema[t] = 0.3 * series[t] + 0.7 * ema[t - 1]
print(torch.round(ema[-3:], decimals=4))
zscores = (a - a.mean()) / a.std()
outliers = zscores.abs() > 2.5
print(outliers.sum().item(), torch.nonzero(outliers).flatten(), a[outliers].shape)
print(torch.round(torch.diff(sorted_a[:5]), decimals=5), torch.argsort(a, descending=True)[:5])
print(torch.kthvalue(a, 3), torch.topk(a, 2, largest=False))
