"""Regularisation recipes from image-classification repos: mixup (facebookresearch/mixup-cifar10's
mixup_data / mixup_criterion with np.random.beta), CutMix's rand_bbox, label smoothing through
CrossEntropyLoss(label_smoothing=...) and a hand-written LabelSmoothingLoss, soft-target cross
entropy, and the SGD + nesterov + MultiStepLR schedule, on a small CNN over synthetic images."""
import numpy as np
import torch
import torch.nn as nn
import torch.nn.functional as F

np.random.seed(0)
torch.manual_seed(0)


def mixup_data(x, y, alpha=1.0, use_cuda=False):
    '''Returns mixed inputs, pairs of targets, and lambda'''
    if alpha > 0:
        lam = np.random.beta(alpha, alpha)
    else:
        lam = 1
    batch_size = x.size()[0]
    if use_cuda:
        index = torch.randperm(batch_size).cuda()
    else:
        index = torch.randperm(batch_size)
    mixed_x = lam * x + (1 - lam) * x[index, :]
    y_a, y_b = y, y[index]
    return mixed_x, y_a, y_b, lam


def mixup_criterion(criterion, pred, y_a, y_b, lam):
    return lam * criterion(pred, y_a) + (1 - lam) * criterion(pred, y_b)


def rand_bbox(size, lam):
    W = size[2]
    H = size[3]
    cut_rat = np.sqrt(1. - lam)
    cut_w = int(W * cut_rat)
    cut_h = int(H * cut_rat)
    cx = np.random.randint(W)
    cy = np.random.randint(H)
    bbx1 = np.clip(cx - cut_w // 2, 0, W)
    bby1 = np.clip(cy - cut_h // 2, 0, H)
    bbx2 = np.clip(cx + cut_w // 2, 0, W)
    bby2 = np.clip(cy + cut_h // 2, 0, H)
    return bbx1, bby1, bbx2, bby2


class LabelSmoothingLoss(nn.Module):
    def __init__(self, classes, smoothing=0.0, dim=-1):
        super(LabelSmoothingLoss, self).__init__()
        self.confidence = 1.0 - smoothing
        self.smoothing = smoothing
        self.cls = classes
        self.dim = dim

    def forward(self, pred, target):
        pred = pred.log_softmax(dim=self.dim)
        with torch.no_grad():
            true_dist = torch.zeros_like(pred)
            true_dist.fill_(self.smoothing / (self.cls - 1))
            true_dist.scatter_(1, target.data.unsqueeze(1), self.confidence)
        return torch.mean(torch.sum(-true_dist * pred, dim=self.dim))


def soft_target_cross_entropy(x, target):
    loss = torch.sum(-target * F.log_softmax(x, dim=-1), dim=-1)
    return loss.mean()


logits = torch.randn(6, 5)
target = torch.tensor([0, 1, 4, 2, 2, 3])
print(f"CE                    {F.cross_entropy(logits, target).item():.6f}")
print(f"CE(label_smoothing=.1) {nn.CrossEntropyLoss(label_smoothing=0.1)(logits, target).item():.6f}")
print(f"LabelSmoothingLoss(.1) {LabelSmoothingLoss(5, 0.1)(logits, target).item():.6f}")
onehot = F.one_hot(target, 5).float()
smooth = onehot * 0.9 + 0.1 / 5
print(f"soft-target CE         {soft_target_cross_entropy(logits, smooth).item():.6f}")
print(f"CE with prob targets   {F.cross_entropy(logits, smooth).item():.6f}")
w = torch.tensor([1.0, 2.0, 1.0, 0.5, 1.0])
print(f"weighted+smoothing     {F.cross_entropy(logits, target, weight=w, label_smoothing=0.2).item():.6f}")
print(f"ignore_index+smoothing {F.cross_entropy(logits, torch.tensor([0, -100, 4, 2, -100, 3]), label_smoothing=0.1).item():.6f}")
print("per-sample", F.cross_entropy(logits, target, label_smoothing=0.1, reduction="none"))


class Net(nn.Module):
    def __init__(self):
        super().__init__()
        self.features = nn.Sequential(
            nn.Conv2d(3, 8, 3, padding=1), nn.BatchNorm2d(8), nn.ReLU(),
            nn.MaxPool2d(2),
            nn.Conv2d(8, 16, 3, padding=1), nn.BatchNorm2d(16), nn.ReLU(),
            nn.AdaptiveAvgPool2d(1), nn.Flatten())
        self.fc = nn.Linear(16, 4)

    def forward(self, x):
        return self.fc(self.features(x))


def make_data(n):
    y = torch.randint(0, 4, (n,))
    x = torch.randn(n, 3, 16, 16) * 0.5
    for c in range(4):
        x[y == c, c % 3, c * 4:(c + 1) * 4, :] += 2.0
    return x, y


xtr, ytr = make_data(256)
xte, yte = make_data(128)
net = Net()
optimizer = torch.optim.SGD(net.parameters(), lr=0.05, momentum=0.9, weight_decay=5e-4, nesterov=True)
scheduler = torch.optim.lr_scheduler.MultiStepLR(optimizer, milestones=[3, 5], gamma=0.1)
criterion = nn.CrossEntropyLoss()
for epoch in range(6):
    net.train()
    train_loss, correct, total = 0.0, 0.0, 0
    perm = torch.randperm(256)
    for i in range(0, 256, 32):
        idx = perm[i:i + 32]
        inputs, targets = xtr[idx], ytr[idx]
        if epoch % 2 == 0:
            inputs, targets_a, targets_b, lam = mixup_data(inputs, targets, 1.0)
        else:
            lam = np.random.beta(1.0, 1.0)
            rand_index = torch.randperm(inputs.size()[0])
            targets_a, targets_b = targets, targets[rand_index]
            bbx1, bby1, bbx2, bby2 = rand_bbox(inputs.size(), lam)
            inputs[:, :, bbx1:bbx2, bby1:bby2] = inputs[rand_index, :, bbx1:bbx2, bby1:bby2]
            lam = 1 - ((bbx2 - bbx1) * (bby2 - bby1) / (inputs.size()[-1] * inputs.size()[-2]))
        outputs = net(inputs)
        loss = mixup_criterion(criterion, outputs, targets_a, targets_b, lam)
        train_loss += loss.item()
        _, predicted = torch.max(outputs.data, 1)
        total += targets.size(0)
        correct += (lam * predicted.eq(targets_a.data).cpu().sum().float()
                    + (1 - lam) * predicted.eq(targets_b.data).cpu().sum().float())
        optimizer.zero_grad()
        loss.backward()
        optimizer.step()
    scheduler.step()
    print(f"epoch {epoch} lr {scheduler.get_last_lr()[0]:.4f} loss {train_loss / 8:.4f} acc {100. * correct / total:.2f}%")
    print("  lam type", type(lam).__name__, "correct type", type(correct).__name__)
net.eval()
with torch.no_grad():
    acc = (net(xte).argmax(1) == yte).float().mean()
print(f"test accuracy {acc.item():.4f}")
