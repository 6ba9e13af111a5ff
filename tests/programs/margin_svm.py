"""Margin-based objectives as classic ML code writes them with torch: a multi-class linear SVM
trained with nn.MultiMarginLoss (p=1 and p=2, margin, class weights), a siamese pair
classifier with nn.HingeEmbeddingLoss and nn.CosineEmbeddingLoss, multi-label ranking with
nn.MultiLabelMarginLoss, a triplet loss with a custom distance, each loss's reductions and
gradients printed, and the modules' reprs; plus the circular padding layers that periodic
signals use (nn.CircularPad1d / 2d / 3d) and their errors."""
import torch
import torch.nn as nn
import torch.nn.functional as F

torch.set_printoptions(precision=5)
torch.manual_seed(0)

# ---- losses on a fixed batch, every reduction, with gradients
scores = torch.tensor([[0.2, 1.5, -0.3], [1.1, 0.4, 0.9], [-0.5, 0.1, 0.3],
                       [0.8, 0.8, 0.7]], requires_grad=True)
target = torch.tensor([1, 0, 2, 1])
w = torch.tensor([1.0, 2.0, 0.5])
for kw in [{}, {"p": 2}, {"margin": 0.5}, {"weight": w}, {"p": 2, "weight": w, "margin": 2.0}]:
    for reduction in ["mean", "sum", "none"]:
        crit = nn.MultiMarginLoss(reduction=reduction, **kw)
        loss = crit(scores, target)
        g, = torch.autograd.grad(loss.sum(), scores)
        print(crit, reduction, loss.detach(), g[0])
print(F.multi_margin_loss(scores[0], target[0:1].squeeze(0)))

dist = torch.tensor([0.3, 1.7, 0.9, 2.5], requires_grad=True)
same = torch.tensor([1.0, -1.0, 1.0, -1.0])
for margin in [1.0, 2.0]:
    for reduction in ["mean", "sum", "none"]:
        crit = nn.HingeEmbeddingLoss(margin=margin, reduction=reduction)
        loss = crit(dist, same)
        g, = torch.autograd.grad(loss.sum(), dist)
        print(crit, reduction, loss.detach(), g)

a = torch.tensor([[1.0, 0.0, 1.0], [0.5, 0.5, -1.0], [2.0, 1.0, 0.0]], requires_grad=True)
b = torch.tensor([[0.9, 0.1, 1.2], [-0.5, 0.4, 1.0], [1.0, 1.0, 1.0]])
y = torch.tensor([1, -1, -1])
for margin in [0.0, 0.3]:
    crit = nn.CosineEmbeddingLoss(margin=margin)
    loss = crit(a, b, y)
    loss.backward()
    print(crit, loss.detach(), a.grad)
    a.grad = None

ml_scores = torch.tensor([[0.1, 0.9, 0.4, 0.6], [0.7, 0.2, 0.5, 0.1]], requires_grad=True)
ml_target = torch.tensor([[1, 3, -1, 0], [0, -1, 2, 3]])
for reduction in ["mean", "sum", "none"]:
    loss = nn.MultiLabelMarginLoss(reduction=reduction)(ml_scores, ml_target)
    g, = torch.autograd.grad(loss.sum(), ml_scores)
    print("multilabel margin", reduction, loss.detach(), g)


def l1_distance(x1, x2):
    return (x1 - x2).abs().sum(-1)


anchor = torch.tensor([[0.0, 1.0], [1.0, 1.0]], requires_grad=True)
pos = torch.tensor([[0.1, 0.9], [1.2, 0.7]])
neg = torch.tensor([[0.2, 1.1], [3.0, 1.0]])
for crit in [nn.TripletMarginWithDistanceLoss(distance_function=l1_distance, margin=0.5),
             nn.TripletMarginWithDistanceLoss(distance_function=nn.PairwiseDistance(),
                                              swap=True),
             nn.TripletMarginLoss(margin=1.0, p=1)]:
    loss = crit(anchor, pos, neg)
    g, = torch.autograd.grad(loss, anchor)
    print(type(crit).__name__, loss.detach(), g)

# ---- a linear SVM on three separable blobs (squared hinge vs hinge)
centers = torch.tensor([[2.0, 0.0], [-1.0, 1.7], [-1.0, -1.7]])
x = torch.cat([c + 0.6 * torch.randn(30, 2) for c in centers])
labels = torch.arange(3).repeat_interleave(30)
for p in (1, 2):
    torch.manual_seed(1)
    svm = nn.Linear(2, 3)
    opt = torch.optim.SGD(svm.parameters(), lr=0.1, weight_decay=1e-3)
    crit = nn.MultiMarginLoss(p=p, margin=1.0)
    for epoch in range(60):
        opt.zero_grad()
        loss = crit(svm(x), labels)
        loss.backward()
        opt.step()
    acc = (svm(x).argmax(1) == labels).float().mean().item()
    print(f"p={p} final loss {loss.item():.4f} train acc {acc:.3f}")

# ---- siamese pairs with HingeEmbeddingLoss on distances
torch.manual_seed(2)
emb = nn.Sequential(nn.Linear(2, 8), nn.Tanh(), nn.Linear(8, 2))
opt = torch.optim.Adam(emb.parameters(), lr=0.02)
i = torch.randint(0, 90, (64,))
j = torch.randint(0, 90, (64,))
pair_y = torch.where(labels[i] == labels[j], 1.0, -1.0)
crit = nn.HingeEmbeddingLoss(margin=2.0)
for step in range(50):
    d = F.pairwise_distance(emb(x[i]), emb(x[j]))
    loss = crit(d, pair_y)
    opt.zero_grad()
    loss.backward()
    opt.step()
with torch.no_grad():
    d = F.pairwise_distance(emb(x[i]), emb(x[j]))
print("same-class pairs closer:", d[pair_y > 0].mean().item() < d[pair_y < 0].mean().item())

# ---- circular padding
sig = torch.arange(6.0).reshape(1, 1, 6)
print(nn.CircularPad1d(2)(sig))
print(nn.CircularPad1d((1, 3))(sig))
img = torch.arange(12.0).reshape(1, 1, 3, 4)
pad2 = nn.CircularPad2d((1, 0, 2, 1))
print(pad2, pad2(img))
vol = torch.arange(8.0).reshape(1, 1, 2, 2, 2)
print(nn.CircularPad3d(1)(vol).shape, nn.CircularPad3d(1)(vol)[0, 0, 0])
print(torch.equal(F.pad(img, (1, 0, 2, 1), mode="circular"), pad2(img)))
conv = nn.Conv1d(1, 1, 3, padding=1, padding_mode="circular", bias=False)
with torch.no_grad():
    conv.weight.copy_(torch.tensor([[[1.0, 0.0, -1.0]]]))
print(conv, conv(sig))
try:
    nn.CircularPad1d(7)(sig)
except Exception as e:
    print(type(e).__name__, e)
try:
    nn.CircularPad2d(1)(torch.ones(3))
except Exception as e:
    print(type(e).__name__, e)
