"""Multi-label classification (the tagging-model recipe): BCEWithLogitsLoss with pos_weight for
imbalanced labels, a focal loss written by hand (torchvision's sigmoid_focal_loss),
MultiLabelSoftMarginLoss and MultiLabelMarginLoss, per-label thresholds, micro / macro F1,
precision@k with topk, and mean average precision from sorted scores."""
import torch
import torch.nn as nn
import torch.nn.functional as F

torch.manual_seed(0)
N, D, L = 400, 16, 6
X = torch.randn(N, D)
W = torch.randn(D, L)
bias = torch.tensor([-1.2, -1.0, -0.8, 0.0, 0.5, -1.5])
Y = ((X @ W) / 4 + bias + 0.3 * torch.randn(N, L) > 0).float()
print("label frequency", Y.mean(0))
train_x, train_y, test_x, test_y = X[:300], Y[:300], X[300:], Y[300:]
pos = train_y.sum(0)
pos_weight = (len(train_y) - pos) / pos.clamp(min=1)
print("pos_weight", pos_weight)


def sigmoid_focal_loss(inputs, targets, alpha=0.25, gamma=2.0, reduction="mean"):
    p = torch.sigmoid(inputs)
    ce_loss = F.binary_cross_entropy_with_logits(inputs, targets, reduction="none")
    p_t = p * targets + (1 - p) * (1 - targets)
    loss = ce_loss * ((1 - p_t) ** gamma)
    if alpha >= 0:
        alpha_t = alpha * targets + (1 - alpha) * (1 - targets)
        loss = alpha_t * loss
    if reduction == "mean":
        loss = loss.mean()
    elif reduction == "sum":
        loss = loss.sum()
    return loss


model = nn.Sequential(nn.Linear(D, 32), nn.ReLU(), nn.Dropout(0.1), nn.Linear(32, L))
criterion = nn.BCEWithLogitsLoss(pos_weight=pos_weight)
print(criterion, criterion.pos_weight.shape)
opt = torch.optim.Adam(model.parameters(), lr=1e-2, weight_decay=1e-4)
for epoch in range(30):
    model.train()
    perm = torch.randperm(300)
    for i in range(0, 300, 50):
        idx = perm[i:i + 50]
        logits = model(train_x[idx])
        loss = criterion(logits, train_y[idx]) + sigmoid_focal_loss(logits, train_y[idx])
        opt.zero_grad()
        loss.backward()
        opt.step()
    if epoch % 10 == 9:
        print(f"epoch {epoch + 1} loss {loss.item():.4f}")

model.eval()
with torch.no_grad():
    logits = model(test_x)
    probs = logits.sigmoid()
pred = (probs > 0.5).float()
tp = (pred * test_y).sum(0)
fp = (pred * (1 - test_y)).sum(0)
fn = ((1 - pred) * test_y).sum(0)
precision = tp / (tp + fp).clamp(min=1)
recall = tp / (tp + fn).clamp(min=1)
f1 = 2 * precision * recall / (precision + recall).clamp(min=1e-8)
micro = 2 * tp.sum() / (2 * tp.sum() + fp.sum() + fn.sum())
print(f"macro F1 {f1.mean().item():.4f} micro F1 {micro.item():.4f}")
print("per-label F1", f1)
topk = probs.topk(2, dim=1).indices
p_at_2 = test_y.gather(1, topk).mean()
print(f"precision@2 {p_at_2.item():.4f}")


def average_precision(scores, targets):
    order = scores.argsort(descending=True)
    t = targets[order]
    hits = t.cumsum(0)
    prec = hits / torch.arange(1, len(t) + 1)
    return (prec * t).sum() / t.sum().clamp(min=1)


aps = torch.stack([average_precision(probs[:, j], test_y[:, j]) for j in range(L)])
print(f"mAP {aps.mean().item():.4f}")

# the other multi-label losses on a fixed example
logits = torch.tensor([[0.1, 0.2, 0.4, 0.8], [-1.0, 2.0, 0.5, 0.0]], requires_grad=True)
targets = torch.tensor([[1.0, 0.0, 0.0, 1.0], [0.0, 1.0, 1.0, 0.0]])
soft = nn.MultiLabelSoftMarginLoss(weight=torch.tensor([1.0, 2.0, 1.0, 0.5]))
print("soft margin", soft(logits, targets))
idx_targets = torch.tensor([[3, 0, -1, 1], [1, 2, -1, 0]])
margin = nn.MultiLabelMarginLoss(reduction="none")
out = margin(logits, idx_targets)
print("margin", out)
out.sum().backward()
print(logits.grad)
print("bce with weight", F.binary_cross_entropy_with_logits(logits, targets, weight=torch.tensor([1.0, 0.5, 0.5, 1.0]), pos_weight=torch.tensor([2.0, 1.0, 1.0, 2.0])))
print("bce probs", F.binary_cross_entropy(logits.sigmoid(), targets, reduction="sum"))
