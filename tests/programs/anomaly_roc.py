"""Anomaly detection with an autoencoder, evaluated the way papers' scripts do it: a threshold
from torch.quantile of the training errors, precision / recall / F1, the ROC curve and its AUC
from sort / cumsum / trapezoid, average precision, a confusion matrix with bincount, kthvalue
and nanmean-style statistics, and per-feature attributions by gradient * input."""
import torch
import torch.nn as nn
import torch.nn.functional as F

torch.manual_seed(2)
t = torch.linspace(0, 1, 24)
normal = torch.stack([torch.sin(2 * torch.pi * (t + phase)) for phase in torch.rand(160)])
normal = normal + 0.05 * (torch.rand_like(normal) - 0.5)
anomalies = torch.stack([torch.sign(torch.sin(2 * torch.pi * (t + phase))) * 0.8 for phase in torch.rand(20)])
train, test_normal = normal[:120], normal[120:]
test = torch.cat([test_normal, anomalies])
labels = torch.cat([torch.zeros(len(test_normal)), torch.ones(len(anomalies))]).long()
print("train", train.shape, "test", test.shape, "anomaly rate", labels.float().mean().item())

model = nn.Sequential(nn.Linear(24, 12), nn.ELU(), nn.Linear(12, 4), nn.ELU(), nn.Linear(4, 12), nn.ELU(), nn.Linear(12, 24))
opt = torch.optim.Adam(model.parameters(), lr=5e-3)
for epoch in range(150):
    perm = torch.randperm(len(train))
    for i in range(0, len(train), 32):
        batch = train[perm[i:i + 32]]
        loss = F.mse_loss(model(batch), batch)
        opt.zero_grad()
        loss.backward()
        opt.step()
    if epoch % 50 == 0:
        print(f"epoch {epoch} loss {loss.item():.5f}")

with torch.no_grad():
    train_err = (model(train) - train).pow(2).mean(1)
    scores = (model(test) - test).pow(2).mean(1)
threshold = torch.quantile(train_err, 0.95)
print(f"threshold (95th pct) {threshold:.6f}", f"median {train_err.median():.6f}", f"3rd smallest {train_err.kthvalue(3).values:.6f}")
print("quantiles", torch.quantile(train_err, torch.tensor([0.25, 0.5, 0.75]), interpolation="midpoint"))
pred = (scores > threshold).long()
cm = torch.bincount(labels * 2 + pred, minlength=4).view(2, 2)
print("confusion matrix\n", cm)
tp, fp, fn = cm[1, 1].item(), cm[0, 1].item(), cm[1, 0].item()
precision = tp / max(tp + fp, 1)
recall = tp / max(tp + fn, 1)
print(f"precision {precision:.3f} recall {recall:.3f} f1 {2 * precision * recall / max(precision + recall, 1e-12):.3f}")


def roc_curve(scores, labels):
    order = torch.argsort(scores, descending=True, stable=True)
    y = labels[order].float()
    tps = torch.cumsum(y, 0)
    fps = torch.cumsum(1 - y, 0)
    tpr = torch.cat([torch.zeros(1), tps / tps[-1]])
    fpr = torch.cat([torch.zeros(1), fps / fps[-1]])
    return fpr, tpr, scores[order]


fpr, tpr, sorted_scores = roc_curve(scores, labels)
auc = torch.trapezoid(tpr, fpr)
print(f"ROC AUC {auc.item():.4f}", "points", len(fpr))
pos = scores[labels == 1]
neg = scores[labels == 0]
pairwise = (pos[:, None] > neg[None, :]).float().mean() + 0.5 * (pos[:, None] == neg[None, :]).float().mean()
print(f"AUC by pairs {pairwise.item():.4f}")
order = torch.argsort(scores, descending=True)
hits = labels[order].float()
prec_at_k = hits.cumsum(0) / torch.arange(1, len(hits) + 1)
ap = (prec_at_k * hits).sum() / hits.sum()
print(f"average precision {ap.item():.4f}", "precision@10", prec_at_k[9].item())
youden = (tpr - fpr).argmax()
print("best Youden index at", youden.item(), f"tpr {tpr[youden]:.3f} fpr {fpr[youden]:.3f}")
print("score stats", scores.mean(), scores.std(), scores.min(), scores.max())
print("score histogram", torch.histc(scores, bins=5, min=0, max=float(scores.max())).long().tolist())
masked = torch.where(labels == 1, scores, torch.full_like(scores, float("nan")))
print("nanmean of anomaly scores", torch.nanmean(masked), "nan count", masked.isnan().sum().item())

x = anomalies[:2].clone().requires_grad_(True)
err = (model(x) - x).pow(2).mean(1).sum()
err.backward()
attr = (x.grad * x).abs()
print("top attributed time steps", attr.topk(3, dim=1).indices.tolist())
print("attribution share", (attr / attr.sum(1, keepdim=True)).max(1).values)
