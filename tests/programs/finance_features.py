"""Quant-style feature engineering and a differentiable portfolio on synthetic prices: returns
and log returns, rolling means / volatility through unfold, running maxima and drawdowns with
cummax, z-scores with var_mean / std_mean, label upsampling with repeat_interleave, a majority
vote over models with mode, masking holidays with index_fill, rot90 of a correlation heatmap,
and long-only weights (softmax) trained by gradient ascent on a Sharpe ratio minus a drawdown
penalty, printing the grad_fns the pieces record."""
import torch

torch.manual_seed(0)
f64 = torch.float64
T, N = 60, 4
drift = torch.tensor([0.0005, 0.0002, 0.0008, -0.0001], dtype=f64)
vol = torch.tensor([0.01, 0.02, 0.015, 0.005], dtype=f64)
rets = drift + vol * torch.randn(T, N, dtype=f64)
prices = 100 * torch.cumprod(1 + rets, dim=0)
print(prices[:3])
log_rets = torch.diff(prices.log(), dim=0)
print(log_rets.shape, torch.allclose(log_rets.exp() - 1, rets[1:]))

# rolling windows
window = 5
rolled = prices.unfold(0, window, 1)
print(rolled.shape)
roll_mean = rolled.mean(-1)
roll_vol = rets.unfold(0, window, 1).std(-1)
print(roll_mean[:2], roll_vol[-1])

# running maxima and drawdowns
running_max, argmax_at = prices.cummax(dim=0)
drawdown = prices / running_max - 1
print(drawdown.min(0))
print(argmax_at[-5:])
running_min = torch.cummin(prices, 0)
print(running_min.values[-1], running_min.indices[-1])

# z-scores with var_mean / std_mean
var, mean = torch.var_mean(rets, dim=0, correction=0)
std, mean2 = torch.std_mean(rets, dim=0, keepdim=True)
z = (rets - mean2) / std
print(var, mean)
print(bool(z.mean(0).abs().max() < 1e-12), z.std(0))

# labels at daily frequency from weekly ones
weekly = torch.tensor([1, 0, 1, 1])
print(weekly.repeat_interleave(5), torch.repeat_interleave(torch.tensor([2, 1, 3])))
print(torch.repeat_interleave(weekly, torch.tensor([1, 2, 0, 3])))

# majority vote of three models' signals
signals = torch.tensor([[1, 0, 1, 1, 0], [1, 1, 0, 1, 0], [0, 1, 1, 1, 0]])
vote = signals.mode(dim=0)
print(vote.values, vote.indices)

# holidays masked out
holidays = torch.tensor([3, 17, 42])
masked = rets.index_fill(0, holidays, 0.0)
print(masked[holidays].abs().sum(), (masked != 0).sum())

# correlation heatmap turned for display
corr = torch.corrcoef(rets.T)
print(corr.rot90())
print(torch.rot90(corr, 2).diagonal())

# a long-only portfolio trained on Sharpe minus a drawdown penalty
logits = torch.zeros(N, dtype=f64, requires_grad=True)
opt = torch.optim.Adam([logits], lr=0.05)
for step in range(60):
    w = torch.softmax(logits, 0)
    port = rets @ w
    s, m = torch.std_mean(port)
    wealth = torch.cumprod(1 + port, 0)
    dd = (wealth / wealth.cummax(0).values - 1).min()
    objective = m / s * (252 ** 0.5) + 2.0 * dd
    if step == 0:
        print(s.grad_fn, m.grad_fn, dd.grad_fn)
        print(wealth.cummax(0).values.grad_fn, objective.grad_fn)
    opt.zero_grad()
    (-objective).backward()
    opt.step()
    if step % 20 == 0:
        print(f"step {step} sharpe {(m / s * 252 ** 0.5).item():.4f} max dd {dd.item():.4f} "
              f"weights {[round(v, 3) for v in w.tolist()]}")
w = torch.softmax(logits, 0).detach()
print("final weights:", [round(v, 3) for v in w.tolist()], round(w.sum().item(), 6))

# gradients of the building blocks
x = torch.tensor([[1.0, 3.0, 2.0], [0.5, 0.4, 0.9]], dtype=f64, requires_grad=True)
for name, fn in [("cummax", lambda t: t.cummax(1).values), ("var_mean", lambda t: torch.var_mean(t, 1)[0]),
                 ("rot90", lambda t: t.rot90()), ("repeat", lambda t: t.repeat_interleave(2, 1)),
                 ("index_fill", lambda t: t.index_fill(1, torch.tensor([0]), 0.0))]:
    x.grad = None
    out = fn(x)
    out.sum().backward()
    print(name, type(out.grad_fn).__name__, x.grad.tolist())
