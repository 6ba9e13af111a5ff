"""Loss functions as repositories re-implement them (segmentation, detection, face
recognition, NLP): torchvision's sigmoid_focal_loss, a multi-class FocalLoss module with alpha
per class and ignore_index, timm's LabelSmoothingCrossEntropy / SoftTargetCrossEntropy vs
nn.CrossEntropyLoss(label_smoothing=..., ignore_index=...), a soft Dice loss, Tversky, ArcFace's
additive angular margin (acos / cos with easy_margin), center loss, a contrastive loss with
margin, KLDiv with log_target, class-weighted NLL with reduction='none' then masked mean,
BCEWithLogits with pos_weight, multilabel soft margin, gaussian NLL, and the same losses'
gradients; all in float64 as the reference implementations' tests compute them."""
import math

import torch
import torch.nn as nn
import torch.nn.functional as F

torch.set_printoptions(precision=6)
torch.manual_seed(0)


def sigmoid_focal_loss(inputs, targets, alpha: float = 0.25, gamma: float = 2, reduction: str = "none"):
    p = torch.sigmoid(inputs)
    ce_loss = F.binary_cross_entropy_with_logits(inputs, targets, reduction="none")
    p_t = p * targets + (1 - p) * (1 - targets)
    loss = ce_loss * ((1 - p_t) ** gamma)

    if alpha >= 0:
        alpha_t = alpha * targets + (1 - alpha) * (1 - targets)
        loss = alpha_t * loss

    # Check reduction option and return loss accordingly
    if reduction == "none":
        pass
    elif reduction == "mean":
        loss = loss.mean()
    elif reduction == "sum":
        loss = loss.sum()
    else:
        raise ValueError(
            f"Invalid Value for arg 'reduction': '{reduction} \n Supported reduction modes: 'none', 'mean', 'sum'"
        )
    return loss


class FocalLoss(nn.Module):
    def __init__(self, alpha=None, gamma=2.0, reduction="mean", ignore_index=-100):
        super().__init__()
        self.alpha = alpha
        self.gamma = gamma
        self.ignore_index = ignore_index
        self.reduction = reduction
        self.nll_loss = nn.NLLLoss(weight=alpha, reduction="none", ignore_index=ignore_index)

    def __repr__(self):
        arg_keys = ["alpha", "gamma", "ignore_index", "reduction"]
        arg_vals = [self.__dict__[k] for k in arg_keys]
        arg_strs = [f"{k}={v!r}" for k, v in zip(arg_keys, arg_vals)]
        arg_str = ", ".join(arg_strs)
        return f"{type(self).__name__}({arg_str})"

    def forward(self, x, y):
        if x.ndim > 2:
            c = x.shape[1]
            x = x.permute(0, *range(2, x.ndim), 1).reshape(-1, c)
            y = y.view(-1)
        unignored_mask = y != self.ignore_index
        y = y[unignored_mask]
        if len(y) == 0:
            return torch.tensor(0.0)
        x = x[unignored_mask]
        log_p = F.log_softmax(x, dim=-1)
        ce = self.nll_loss(log_p, y)
        all_rows = torch.arange(len(x))
        log_pt = log_p[all_rows, y]
        pt = log_pt.exp()
        focal_term = (1 - pt) ** self.gamma
        loss = focal_term * ce
        if self.reduction == "mean":
            loss = loss.mean()
        elif self.reduction == "sum":
            loss = loss.sum()
        return loss


class LabelSmoothingCrossEntropy(nn.Module):
    """NLL loss with label smoothing (timm)."""

    def __init__(self, smoothing=0.1):
        super(LabelSmoothingCrossEntropy, self).__init__()
        assert smoothing < 1.0
        self.smoothing = smoothing
        self.confidence = 1. - smoothing

    def forward(self, x: torch.Tensor, target: torch.Tensor) -> torch.Tensor:
        logprobs = F.log_softmax(x, dim=-1)
        nll_loss = -logprobs.gather(dim=-1, index=target.unsqueeze(1))
        nll_loss = nll_loss.squeeze(1)
        smooth_loss = -logprobs.mean(dim=-1)
        loss = self.confidence * nll_loss + self.smoothing * smooth_loss
        return loss.mean()


class SoftTargetCrossEntropy(nn.Module):
    def forward(self, x: torch.Tensor, target: torch.Tensor) -> torch.Tensor:
        loss = torch.sum(-target * F.log_softmax(x, dim=-1), dim=-1)
        return loss.mean()


def dice_loss(logits, true, eps=1e-7):
    num_classes = logits.shape[1]
    true_1_hot = torch.eye(num_classes, dtype=logits.dtype)[true.squeeze(1)]
    true_1_hot = true_1_hot.permute(0, 3, 1, 2)
    probas = F.softmax(logits, dim=1)
    true_1_hot = true_1_hot.type(logits.type())
    dims = (0,) + tuple(range(2, true.ndimension()))
    intersection = torch.sum(probas * true_1_hot, dims)
    cardinality = torch.sum(probas + true_1_hot, dims)
    dice_loss = (2. * intersection / (cardinality + eps)).mean()
    return (1 - dice_loss)


def tversky_loss(true, logits, alpha, beta, eps=1e-7):
    num_classes = logits.shape[1]
    true_1_hot = F.one_hot(true.squeeze(1), num_classes).permute(0, 3, 1, 2).to(logits.dtype)
    probas = F.softmax(logits, dim=1)
    dims = (0,) + tuple(range(2, true.ndimension()))
    intersection = torch.sum(probas * true_1_hot, dims)
    fps = torch.sum(probas * (1 - true_1_hot), dims)
    fns = torch.sum((1 - probas) * true_1_hot, dims)
    num = intersection
    denom = intersection + (alpha * fps) + (beta * fns)
    tversky_loss = (num / (denom + eps)).mean()
    return (1 - tversky_loss)


class ArcMarginProduct(nn.Module):
    def __init__(self, in_features, out_features, s=30.0, m=0.50, easy_margin=False):
        super(ArcMarginProduct, self).__init__()
        self.in_features = in_features
        self.out_features = out_features
        self.s = s
        self.m = m
        self.weight = nn.Parameter(torch.empty(out_features, in_features, dtype=torch.float64))
        nn.init.xavier_uniform_(self.weight)
        self.easy_margin = easy_margin
        self.cos_m = math.cos(m)
        self.sin_m = math.sin(m)
        self.th = math.cos(math.pi - m)
        self.mm = math.sin(math.pi - m) * m

    def forward(self, input, label):
        cosine = F.linear(F.normalize(input), F.normalize(self.weight))
        sine = torch.sqrt((1.0 - torch.pow(cosine, 2)).clamp(0, 1))
        phi = cosine * self.cos_m - sine * self.sin_m
        if self.easy_margin:
            phi = torch.where(cosine > 0, phi, cosine)
        else:
            phi = torch.where(cosine > self.th, phi, cosine - self.mm)
        one_hot = torch.zeros(cosine.size(), dtype=cosine.dtype)
        one_hot.scatter_(1, label.view(-1, 1).long(), 1)
        output = (one_hot * phi) + ((1.0 - one_hot) * cosine)
        output *= self.s
        return output


class CenterLoss(nn.Module):
    def __init__(self, num_classes=4, feat_dim=2):
        super(CenterLoss, self).__init__()
        self.num_classes = num_classes
        self.feat_dim = feat_dim
        self.centers = nn.Parameter(torch.randn(self.num_classes, self.feat_dim, dtype=torch.float64))

    def forward(self, x, labels):
        batch_size = x.size(0)
        distmat = torch.pow(x, 2).sum(dim=1, keepdim=True).expand(batch_size, self.num_classes) + \
            torch.pow(self.centers, 2).sum(dim=1, keepdim=True).expand(self.num_classes, batch_size).t()
        distmat.addmm_(x, self.centers.t(), beta=1, alpha=-2)
        classes = torch.arange(self.num_classes).long()
        labels = labels.unsqueeze(1).expand(batch_size, self.num_classes)
        mask = labels.eq(classes.expand(batch_size, self.num_classes))
        dist = distmat * mask.float()
        loss = dist.clamp(min=1e-12, max=1e+12).sum() / batch_size
        return loss


def contrastive_loss(x0, x1, y, margin=1.0):
    diff = x0 - x1
    dist_sq = torch.sum(torch.pow(diff, 2), 1)
    dist = torch.sqrt(dist_sq)
    mdist = margin - dist
    dist = torch.clamp(mdist, min=0.0)
    loss = y * dist_sq + (1 - y) * torch.pow(dist, 2)
    loss = torch.sum(loss) / 2.0 / x0.size()[0]
    return loss


dt = torch.float64
logits = torch.randn(6, 4, dtype=dt, requires_grad=True)
target = torch.tensor([0, 3, 1, -100, 2, 3])
binary = (torch.rand(6, 4, dtype=dt) > 0.6).to(dt)

print("sigmoid focal", sigmoid_focal_loss(logits, binary, reduction="mean"))
print("sigmoid focal sum", sigmoid_focal_loss(logits, binary, alpha=-1, gamma=0, reduction="sum"),
      F.binary_cross_entropy_with_logits(logits, binary, reduction="sum"))
try:
    sigmoid_focal_loss(logits, binary, reduction="avg")
except ValueError as e:
    print("ValueError:", e)

alpha = torch.tensor([1.0, 2.0, 0.5, 1.0], dtype=dt)
fl = FocalLoss(alpha=alpha, gamma=2.0, ignore_index=-100)
print(fl)
loss = fl(logits, target)
loss.backward()
print("focal", loss, logits.grad[3])
print("gamma 0 is weighted CE:", torch.allclose(
    FocalLoss(alpha=alpha, gamma=0.0, reduction="sum")(logits, target),
    F.cross_entropy(logits, target, weight=alpha, reduction="sum")))
seg_logits = torch.randn(2, 3, 4, 4, dtype=dt)
seg_target = torch.randint(0, 3, (2, 4, 4))
seg_target[0, 0] = -100
print("focal 2-D", FocalLoss(gamma=1.5)(seg_logits, seg_target))

clean = target.clone()
clean[3] = 1
ls = LabelSmoothingCrossEntropy(smoothing=0.1)
print("timm smoothing", ls(logits, clean), F.cross_entropy(logits, clean, label_smoothing=0.1))
print("torch smoothing + ignore", nn.CrossEntropyLoss(label_smoothing=0.2, ignore_index=-100)(logits, target))
print("smoothing + weight", F.cross_entropy(logits, clean, weight=alpha, label_smoothing=0.3))
print("per-element", F.cross_entropy(logits, target, label_smoothing=0.1, reduction="none"))
soft = F.one_hot(clean, 4).to(dt) * 0.9 + 0.025
print("soft target", SoftTargetCrossEntropy()(logits, soft), F.cross_entropy(logits, soft))
mixed = 0.7 * F.one_hot(clean, 4).to(dt) + 0.3 * F.one_hot(clean.flip(0), 4).to(dt)
print("mixup targets", F.cross_entropy(logits, mixed, label_smoothing=0.1))

seg_true = torch.randint(0, 3, (2, 1, 4, 4))
seg_logits.requires_grad_(True)
d = dice_loss(seg_logits, seg_true)
d.backward()
print("dice", d, seg_logits.grad.abs().sum())
print("tversky", tversky_loss(seg_true, seg_logits, 0.3, 0.7), tversky_loss(seg_true, seg_logits, 0.5, 0.5))

torch.manual_seed(1)
arc = ArcMarginProduct(8, 5, s=16.0, m=0.3)
feats = torch.randn(4, 8, dtype=dt)
labels = torch.tensor([0, 4, 2, 2])
out = arc(feats, labels)
print("arcface", out)
print("arcface CE", F.cross_entropy(out, labels))
print("easy margin", ArcMarginProduct(8, 5, easy_margin=True)(feats, labels).shape)

center = CenterLoss(num_classes=4, feat_dim=8)
closs = center(feats, torch.tensor([0, 3, 2, 2]))
closs.backward()
print("center", closs, center.centers.grad.abs().sum(dim=1))

x0, x1 = torch.randn(5, 3, dtype=dt), torch.randn(5, 3, dtype=dt)
same = torch.tensor([1., 0., 1., 0., 0.], dtype=dt)
print("contrastive", contrastive_loss(x0, x1, same, margin=2.0))
print("cosine embedding", F.cosine_embedding_loss(x0, x1, same * 2 - 1, margin=0.2))
print("triplet", F.triplet_margin_loss(x0, x1, x1.flip(0), margin=0.5, p=2, swap=True))

p_log = F.log_softmax(torch.randn(3, 5, dtype=dt), -1)
q_log = F.log_softmax(torch.randn(3, 5, dtype=dt), -1)
print("kl", F.kl_div(p_log, q_log, reduction="batchmean", log_target=True),
      F.kl_div(p_log, q_log.exp(), reduction="batchmean"), F.kl_div(p_log, q_log.exp(), reduction="sum"))

w_cls = torch.tensor([0.2, 1.0, 3.0, 1.0], dtype=dt)
per = F.nll_loss(F.log_softmax(logits, 1), target, weight=w_cls, reduction="none")
mask = target != -100
print("weighted nll", per, per.sum() / w_cls[target[mask]].sum(), F.nll_loss(F.log_softmax(logits, 1), target, weight=w_cls))

pos_weight = torch.tensor([1.0, 2.0, 0.5, 4.0], dtype=dt)
print("bce pos_weight", nn.BCEWithLogitsLoss(pos_weight=pos_weight)(logits, binary))
print("multilabel soft margin", F.multilabel_soft_margin_loss(logits, binary, weight=pos_weight))
print("multi margin", F.multi_margin_loss(logits, clean, p=1, margin=0.5), F.multi_margin_loss(logits, clean, p=2, weight=w_cls))
var = torch.rand(6, 4, dtype=dt) + 0.1
print("gaussian nll", F.gaussian_nll_loss(logits, binary, var), F.gaussian_nll_loss(logits, binary, var, full=True, reduction="sum"))
print("poisson nll", F.poisson_nll_loss(logits, binary), F.poisson_nll_loss(logits.exp(), binary, log_input=False, full=True))
print("huber / smooth l1", F.huber_loss(logits, binary, delta=0.5), F.smooth_l1_loss(logits, binary, beta=0.5))
print("margin ranking", F.margin_ranking_loss(x0[:, 0], x1[:, 0], same * 2 - 1, margin=0.1))
print("hinge embedding", F.hinge_embedding_loss(x0, torch.ones(5, 3, dtype=dt).neg(), margin=1.5))
