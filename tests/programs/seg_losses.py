"""Segmentation losses as people copy them from GitHub: sigmoid focal loss (torchvision's
formula), soft Dice / Tversky, the Lovasz hinge and Lovasz-softmax (bermanmaxim/LovaszSoftmax),
a tiny fully-convolutional net trained with a combined loss, and IoU / pixel-accuracy metrics."""
import torch
import torch.nn as nn
import torch.nn.functional as F


def sigmoid_focal_loss(inputs, targets, alpha: float = 0.25, gamma: float = 2, reduction: str = "none"):
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


def dice_loss(logits, true, eps=1e-7):
    num_classes = logits.shape[1]
    true_1_hot = torch.eye(num_classes)[true.squeeze(1)]
    true_1_hot = true_1_hot.permute(0, 3, 1, 2).float()
    probas = F.softmax(logits, dim=1)
    true_1_hot = true_1_hot.type(logits.type())
    dims = (0,) + tuple(range(2, true.ndimension()))
    intersection = torch.sum(probas * true_1_hot, dims)
    cardinality = torch.sum(probas + true_1_hot, dims)
    dice = (2. * intersection / (cardinality + eps)).mean()
    return (1 - dice)


def tversky_loss(logits, true, alpha=0.3, beta=0.7, eps=1e-7):
    probas = torch.sigmoid(logits)
    tp = (probas * true).sum()
    fp = (probas * (1 - true)).sum()
    fn = ((1 - probas) * true).sum()
    return 1 - (tp + eps) / (tp + alpha * fp + beta * fn + eps)


def lovasz_grad(gt_sorted):
    p = len(gt_sorted)
    gts = gt_sorted.sum()
    intersection = gts - gt_sorted.float().cumsum(0)
    union = gts + (1 - gt_sorted).float().cumsum(0)
    jaccard = 1. - intersection / union
    if p > 1:  # cover 1-pixel case
        jaccard[1:p] = jaccard[1:p] - jaccard[0:-1]
    return jaccard


def lovasz_hinge_flat(logits, labels):
    if len(labels) == 0:
        return logits.sum() * 0.
    signs = 2. * labels.float() - 1.
    errors = (1. - logits * signs)
    errors_sorted, perm = torch.sort(errors, dim=0, descending=True)
    perm = perm.data
    gt_sorted = labels[perm]
    grad = lovasz_grad(gt_sorted)
    loss = torch.dot(F.relu(errors_sorted), grad)
    return loss


def lovasz_softmax_flat(probas, labels, classes='present'):
    if probas.numel() == 0:
        return probas * 0.
    C = probas.size(1)
    losses = []
    class_to_sum = list(range(C)) if classes in ['all', 'present'] else classes
    for c in class_to_sum:
        fg = (labels == c).float()
        if (classes == 'present' and fg.sum() == 0):
            continue
        class_pred = probas[:, c]
        errors = (fg - class_pred).abs()
        errors_sorted, perm = torch.sort(errors, 0, descending=True)
        perm = perm.data
        fg_sorted = fg[perm]
        losses.append(torch.dot(errors_sorted, lovasz_grad(fg_sorted)))
    return sum(losses) / len(losses)


def make_batch(n, size=16, gen=None):
    yy, xx = torch.meshgrid(torch.arange(size), torch.arange(size), indexing="ij")
    centers = torch.randint(4, size - 4, (n, 2), generator=gen)
    radii = torch.randint(2, 5, (n,), generator=gen)
    d2 = (yy[None] - centers[:, 0, None, None]) ** 2 + (xx[None] - centers[:, 1, None, None]) ** 2
    masks = (d2 <= radii[:, None, None] ** 2).long()
    rings = ((d2 > radii[:, None, None] ** 2) & (d2 <= (radii[:, None, None] + 2) ** 2)).long() * 2
    labels = masks + rings
    images = labels.float().unsqueeze(1) / 2 + 0.3 * torch.randn(n, 1, size, size, generator=gen)
    return images, labels


gen = torch.Generator().manual_seed(0)
images, labels = make_batch(8, gen=gen)
print("images", images.shape, images.dtype, "labels", labels.shape, torch.bincount(labels.flatten()).tolist())

logits = torch.randn(8, 3, 16, 16, generator=gen)
binary = (labels > 0).float()
print(f"focal (mean) {sigmoid_focal_loss(logits[:, 0], binary, reduction='mean').item():.6f}")
print(f"focal (sum)  {sigmoid_focal_loss(logits[:, 0], binary, reduction='sum').item():.4f}")
print(f"dice         {dice_loss(logits, labels.unsqueeze(1)).item():.6f}")
print(f"tversky      {tversky_loss(logits[:, 0], binary).item():.6f}")
print(f"lovasz hinge {lovasz_hinge_flat(logits[:, 0].reshape(-1), binary.reshape(-1)).item():.6f}")
probas = F.softmax(logits, 1).permute(0, 2, 3, 1).reshape(-1, 3)
print(f"lovasz softm {lovasz_softmax_flat(probas, labels.reshape(-1)).item():.6f}")
print("lovasz_grad example", lovasz_grad(torch.tensor([1, 1, 0, 1, 0, 0])))


class TinyFCN(nn.Module):
    def __init__(self, n_classes=3):
        super().__init__()
        self.enc = nn.Sequential(nn.Conv2d(1, 8, 3, padding=1), nn.BatchNorm2d(8), nn.ReLU(),
                                 nn.Conv2d(8, 16, 3, padding=2, dilation=2), nn.BatchNorm2d(16), nn.ReLU())
        self.head = nn.Conv2d(16, n_classes, 1)

    def forward(self, x):
        return self.head(self.enc(x))


torch.manual_seed(0)
net = TinyFCN()
opt = torch.optim.AdamW(net.parameters(), lr=3e-3, weight_decay=1e-4)
ce = nn.CrossEntropyLoss(weight=torch.tensor([0.2, 1.0, 1.0]))
for step in range(25):
    x, lab = make_batch(8, gen=gen)
    out = net(x)
    loss = ce(out, lab) + dice_loss(out, lab.unsqueeze(1)) + 0.5 * lovasz_softmax_flat(
        F.softmax(out, 1).permute(0, 2, 3, 1).reshape(-1, 3), lab.reshape(-1))
    opt.zero_grad()
    loss.backward()
    opt.step()
    if step % 6 == 0:
        print(f"step {step:2d} loss {loss.item():.5f}")

net.eval()
with torch.no_grad():
    x, lab = make_batch(16, gen=gen)
    pred = net(x).argmax(1)
    acc = (pred == lab).float().mean()
    ious = []
    for c in range(3):
        inter = ((pred == c) & (lab == c)).sum().item()
        union = ((pred == c) | (lab == c)).sum().item()
        ious.append(inter / union if union else float("nan"))
    print(f"pixel acc {acc:.4f} mIoU {sum(ious) / 3:.4f}", ["%.3f" % i for i in ious])
    conf = torch.bincount(lab.flatten() * 3 + pred.flatten(), minlength=9).reshape(3, 3)
    print(conf)
