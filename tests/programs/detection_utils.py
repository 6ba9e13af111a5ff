"""Object-detection utilities written over tensors (what torchvision.ops and YOLO / SSD repos
implement): box format conversions, box areas and pairwise IoU / GIoU with broadcasting, greedy
NMS with a while loop and batched NMS by coordinate offsets, anchors from meshgrid, matching
anchors to ground truth with max / argmax and forced best matches, box encoding / decoding
with log-space sizes, a smooth-L1 + focal loss over matched anchors, and top-k decoding."""
import math

import torch
import torch.nn.functional as F

torch.manual_seed(0)


def box_cxcywh_to_xyxy(x):
    x_c, y_c, w, h = x.unbind(-1)
    b = [(x_c - 0.5 * w), (y_c - 0.5 * h), (x_c + 0.5 * w), (y_c + 0.5 * h)]
    return torch.stack(b, dim=-1)


def box_xyxy_to_cxcywh(x):
    x0, y0, x1, y1 = x.unbind(-1)
    b = [(x0 + x1) / 2, (y0 + y1) / 2, (x1 - x0), (y1 - y0)]
    return torch.stack(b, dim=-1)


def box_area(boxes):
    return (boxes[:, 2] - boxes[:, 0]) * (boxes[:, 3] - boxes[:, 1])


def box_iou(boxes1, boxes2):
    area1 = box_area(boxes1)
    area2 = box_area(boxes2)
    lt = torch.max(boxes1[:, None, :2], boxes2[:, :2])
    rb = torch.min(boxes1[:, None, 2:], boxes2[:, 2:])
    wh = (rb - lt).clamp(min=0)
    inter = wh[:, :, 0] * wh[:, :, 1]
    union = area1[:, None] + area2 - inter
    iou = inter / union
    return iou, union


def generalized_box_iou(boxes1, boxes2):
    assert (boxes1[:, 2:] >= boxes1[:, :2]).all()
    iou, union = box_iou(boxes1, boxes2)
    lt = torch.min(boxes1[:, None, :2], boxes2[:, :2])
    rb = torch.max(boxes1[:, None, 2:], boxes2[:, 2:])
    wh = (rb - lt).clamp(min=0)
    area = wh[:, :, 0] * wh[:, :, 1]
    return iou - (area - union) / area


def nms(boxes, scores, iou_threshold):
    order = scores.argsort(descending=True)
    keep = []
    while order.numel() > 0:
        i = order[0]
        keep.append(i.item())
        if order.numel() == 1:
            break
        ious, _ = box_iou(boxes[i].unsqueeze(0), boxes[order[1:]])
        order = order[1:][ious.squeeze(0) <= iou_threshold]
    return torch.tensor(keep, dtype=torch.long)


def batched_nms(boxes, scores, idxs, iou_threshold):
    max_coordinate = boxes.max()
    offsets = idxs.to(boxes) * (max_coordinate + torch.tensor(1).to(boxes))
    boxes_for_nms = boxes + offsets[:, None]
    return nms(boxes_for_nms, scores, iou_threshold)


cxcywh = torch.tensor([[0.5, 0.5, 0.2, 0.4], [0.3, 0.6, 0.1, 0.1]])
xyxy = box_cxcywh_to_xyxy(cxcywh)
print(xyxy, torch.allclose(box_xyxy_to_cxcywh(xyxy), cxcywh))
print(box_area(xyxy))

boxes = torch.tensor([[0, 0, 10, 10], [1, 1, 11, 11], [20, 20, 30, 30], [0, 0, 5, 5], [21, 19, 31, 29]], dtype=torch.float32)
scores = torch.tensor([0.9, 0.8, 0.7, 0.6, 0.95])
iou, union = box_iou(boxes, boxes)
print(torch.round(iou, decimals=3))
print(torch.round(generalized_box_iou(boxes[:3], boxes[2:]), decimals=4))
print(nms(boxes, scores, 0.5))
labels = torch.tensor([0, 1, 0, 0, 0])
print(batched_nms(boxes, scores, labels, 0.5))


def make_anchors(feat_h, feat_w, stride, sizes=(16, 32), ratios=(0.5, 1.0, 2.0)):
    shifts_x = (torch.arange(feat_w, dtype=torch.float32) + 0.5) * stride
    shifts_y = (torch.arange(feat_h, dtype=torch.float32) + 0.5) * stride
    shift_y, shift_x = torch.meshgrid(shifts_y, shifts_x, indexing="ij")
    centers = torch.stack([shift_x.reshape(-1), shift_y.reshape(-1)], dim=1)
    wh = []
    for s in sizes:
        for r in ratios:
            wh.append([s * math.sqrt(r), s / math.sqrt(r)])
    wh = torch.tensor(wh)
    anchors = torch.cat([centers[:, None, :].expand(-1, len(wh), -1), wh[None].expand(len(centers), -1, -1)], dim=-1)
    return box_cxcywh_to_xyxy(anchors.reshape(-1, 4))


anchors = make_anchors(4, 4, 16)
print(anchors.shape, anchors[:3])

gt = torch.tensor([[10.0, 12.0, 40.0, 30.0], [30.0, 30.0, 60.0, 62.0]])
gt_labels = torch.tensor([1, 2])
match_iou, _ = box_iou(gt, anchors)
best_gt_iou, best_gt_idx = match_iou.max(dim=0)
best_anchor_for_gt = match_iou.argmax(dim=1)
best_gt_idx[best_anchor_for_gt] = torch.arange(len(gt))
best_gt_iou[best_anchor_for_gt] = 1.0
positive = best_gt_iou >= 0.5
print(positive.sum().item(), best_anchor_for_gt, torch.nonzero(positive, as_tuple=True)[0][:6])
cls_target = torch.where(positive, gt_labels[best_gt_idx], torch.zeros_like(best_gt_idx))
print(cls_target.bincount(minlength=3))


def encode(matched, anchors, weights=(10.0, 10.0, 5.0, 5.0)):
    a = box_xyxy_to_cxcywh(anchors)
    m = box_xyxy_to_cxcywh(matched)
    wx, wy, ww, wh = weights
    return torch.stack([wx * (m[:, 0] - a[:, 0]) / a[:, 2], wy * (m[:, 1] - a[:, 1]) / a[:, 3],
                        ww * torch.log(m[:, 2] / a[:, 2]), wh * torch.log(m[:, 3] / a[:, 3])], dim=1)


def decode(deltas, anchors, weights=(10.0, 10.0, 5.0, 5.0)):
    a = box_xyxy_to_cxcywh(anchors)
    wx, wy, ww, wh = weights
    dw = (deltas[:, 2] / ww).clamp(max=math.log(1000.0 / 16))
    dh = (deltas[:, 3] / wh).clamp(max=math.log(1000.0 / 16))
    cx = deltas[:, 0] / wx * a[:, 2] + a[:, 0]
    cy = deltas[:, 1] / wy * a[:, 3] + a[:, 1]
    return box_cxcywh_to_xyxy(torch.stack([cx, cy, a[:, 2] * dw.exp(), a[:, 3] * dh.exp()], dim=1))


targets = encode(gt[best_gt_idx[positive]], anchors[positive])
print(targets.shape, torch.allclose(decode(targets, anchors[positive]), gt[best_gt_idx[positive]], atol=1e-4))


def sigmoid_focal_loss(inputs, targets, alpha=0.25, gamma=2.0, reduction="none"):
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


head = torch.nn.Conv2d(8, 6 * (3 + 4), 3, padding=1)
feat = torch.randn(1, 8, 4, 4)
out = head(feat).permute(0, 2, 3, 1).reshape(-1, 7)
cls_logits, box_deltas = out[:, :3], out[:, 3:]
onehot = F.one_hot(cls_target, 3).float()[:, 1:]
cls_loss = sigmoid_focal_loss(cls_logits[:, 1:], onehot, reduction="sum") / max(1, positive.sum().item())
box_loss = F.smooth_l1_loss(box_deltas[positive], targets, beta=1 / 9, reduction="sum") / max(1, positive.sum().item())
(cls_loss + box_loss).backward()
print(cls_loss.grad_fn.name(), box_loss.grad_fn.name(), head.weight.grad.shape)
with torch.no_grad():
    probs = cls_logits.sigmoid()
    top_scores, top_idx = probs.flatten().topk(5)
    anchor_idx, class_idx = top_idx // 3, top_idx % 3
    dets = decode(box_deltas[anchor_idx], anchors[anchor_idx]).clamp(0, 64)
print(dets.shape, class_idx.dtype, (dets[:, 2:] >= dets[:, :2]).all())
