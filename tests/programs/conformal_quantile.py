"""Conformal prediction over torch models (the 'Gentle Introduction to Conformal Prediction'
code of Angelopoulos & Bates): split conformal regression with absolute residual scores and
torch.quantile(interpolation='higher') at the finite-sample level ceil((n+1)(1-alpha))/n,
conformalized quantile regression (a pinball-loss network predicting three quantiles, the CQR
score max(lo - y, y - hi)), adaptive prediction sets for classification (APS: sorted softmax
cumsum with gather / scatter back, randomized with torch.rand), coverage and set sizes, and
RAPS' regularization with torch.clamp."""
import math

import torch
import torch.nn as nn
import torch.nn.functional as F

torch.manual_seed(0)
alpha = 0.1


def pinball_loss(preds, target, quantiles):
    losses = []
    for i, q in enumerate(quantiles):
        errors = target - preds[:, i]
        losses.append(torch.max((q - 1) * errors, q * errors).unsqueeze(1))
    return torch.sum(torch.cat(losses, dim=1), dim=1).mean()


def conformal_quantile(scores, alpha):
    n = scores.shape[0]
    q_level = math.ceil((n + 1) * (1 - alpha)) / n
    return torch.quantile(scores, q_level, interpolation="higher")


# heteroscedastic regression data
n = 1200
x = torch.rand(n, 1) * 6 - 3
y = torch.sin(x).squeeze(1) + (0.1 + 0.3 * x.abs().squeeze(1)) * torch.randn(n)
perm = torch.randperm(n)
tr, cal, te = perm[:600], perm[600:900], perm[900:]
print("splits", len(tr), len(cal), len(te))

# the quantile function's interpolation modes on fixed values
v = torch.tensor([0.5, 3.0, 1.0, 2.0, 10.0])
for mode in ("linear", "lower", "higher", "nearest", "midpoint"):
    print(f"quantile 0.7 {mode:8s}", torch.quantile(v, 0.7, interpolation=mode))
print("pinball", pinball_loss(torch.tensor([[0.0, 1.0], [2.0, 2.0]]), torch.tensor([1.0, 0.0]), [0.1, 0.9]))

# 1. split conformal around a mean regressor
reg = nn.Sequential(nn.Linear(1, 32), nn.ReLU(), nn.Linear(32, 32), nn.ReLU(), nn.Linear(32, 1))
opt = torch.optim.Adam(reg.parameters(), lr=1e-2)
for epoch in range(150):
    loss = F.mse_loss(reg(x[tr]).squeeze(1), y[tr])
    opt.zero_grad()
    loss.backward()
    opt.step()
    if epoch % 50 == 0:
        print(f"regressor epoch {epoch} mse {loss.item():.5f}")
with torch.no_grad():
    scores = (reg(x[cal]).squeeze(1) - y[cal]).abs()
    qhat = conformal_quantile(scores, alpha)
    pred = reg(x[te]).squeeze(1)
    covered = ((y[te] >= pred - qhat) & (y[te] <= pred + qhat)).float().mean()
print(f"split conformal qhat {qhat.item():.4f} coverage {covered.item():.3f} width {2 * qhat.item():.4f}")
print("coverage at least 0.85:", covered.item() >= 0.85)

# 2. conformalized quantile regression
quantiles = [alpha / 2, 0.5, 1 - alpha / 2]
qnet = nn.Sequential(nn.Linear(1, 64), nn.ReLU(), nn.Linear(64, 64), nn.ReLU(), nn.Linear(64, len(quantiles)))
opt = torch.optim.Adam(qnet.parameters(), lr=5e-3)
sched = torch.optim.lr_scheduler.CosineAnnealingLR(opt, T_max=200)
for epoch in range(200):
    loss = pinball_loss(qnet(x[tr]), y[tr], quantiles)
    opt.zero_grad()
    loss.backward()
    opt.step()
    sched.step()
    if epoch % 50 == 0:
        print(f"quantile net epoch {epoch} pinball {loss.item():.5f} lr {sched.get_last_lr()[0]:.6f}")
with torch.no_grad():
    q_cal = qnet(x[cal])
    cqr_scores = torch.maximum(q_cal[:, 0] - y[cal], y[cal] - q_cal[:, 2])
    qhat_cqr = conformal_quantile(cqr_scores, alpha)
    q_te = qnet(x[te])
    lo, hi = q_te[:, 0] - qhat_cqr, q_te[:, 2] + qhat_cqr
    cov = ((y[te] >= lo) & (y[te] <= hi)).float().mean()
    widths = hi - lo
    near0 = x[te].squeeze(1).abs() < 1
print(f"CQR qhat {qhat_cqr.item():.4f} coverage {cov.item():.3f}")
print("adaptive widths (wider away from 0):", widths[~near0].mean().item() > widths[near0].mean().item())

# 3. adaptive prediction sets for a classifier
K = 5
centers = torch.randn(K, 2) * 2
labels = torch.randint(0, K, (1500,))
feats = centers[labels] + torch.randn(1500, 2) * 1.2
clf = nn.Linear(2, K)
opt = torch.optim.SGD(clf.parameters(), lr=0.5)
for _ in range(100):
    loss = F.cross_entropy(clf(feats[:500]), labels[:500])
    opt.zero_grad()
    loss.backward()
    opt.step()
print(f"classifier loss {loss.item():.5f}")
with torch.no_grad():
    cal_smx = clf(feats[500:1000]).softmax(1)
    val_smx = clf(feats[1000:]).softmax(1)
cal_labels, val_labels = labels[500:1000], labels[1000:]
n_cal = cal_smx.shape[0]
cal_pi = cal_smx.argsort(1, descending=True)
cal_srt = cal_smx.gather(1, cal_pi).cumsum(dim=1)
cal_scores = cal_srt.gather(1, cal_pi.argsort(1))[torch.arange(n_cal), cal_labels]
qhat_aps = conformal_quantile(cal_scores, alpha)
val_pi = val_smx.argsort(1, descending=True)
val_srt = val_smx.gather(1, val_pi).cumsum(dim=1)
prediction_sets = (val_srt <= qhat_aps).gather(1, val_pi.argsort(1))
prediction_sets[torch.arange(len(val_labels)), val_smx.argmax(1)] = True
empirical_coverage = prediction_sets[torch.arange(len(val_labels)), val_labels].float().mean()
print(f"APS qhat {qhat_aps.item():.4f} coverage {empirical_coverage.item():.3f} mean set size {prediction_sets.sum(1).float().mean().item():.3f}")
print("set size histogram", torch.bincount(prediction_sets.sum(1), minlength=K + 1).tolist())

# RAPS: penalize large sets, randomized scores
lam_reg, k_reg = 0.01, 2
reg_vec = torch.tensor(k_reg * [0.0] + (K - k_reg) * [lam_reg])[None, :]
cal_srt_reg = cal_smx.gather(1, cal_pi) + reg_vec
cal_L = (cal_pi == cal_labels[:, None]).nonzero()[:, 1]
U = torch.rand(n_cal)
cal_scores_r = cal_srt_reg.cumsum(dim=1)[torch.arange(n_cal), cal_L] - U * cal_srt_reg[torch.arange(n_cal), cal_L]
qhat_raps = conformal_quantile(cal_scores_r, alpha)
val_srt_reg = val_smx.gather(1, val_pi) + reg_vec
indicators = (val_srt_reg.cumsum(dim=1) - torch.rand(val_smx.shape[0], 1) * val_srt_reg) <= qhat_raps
sets = indicators.gather(1, val_pi.argsort(1))
print(f"RAPS qhat {qhat_raps.item():.4f} coverage {sets[torch.arange(len(val_labels)), val_labels].float().mean().item():.3f} "
      f"size {sets.sum(1).float().mean().item():.3f}")
print("regularizer", reg_vec, torch.clamp(torch.arange(K) + 1 - k_reg, min=0) * lam_reg)
