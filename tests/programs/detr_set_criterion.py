"""DETR's set-prediction training pieces (facebookresearch/detr models/matcher.py,
models/detr.py SetCriterion, util/box_ops.py), on synthetic boxes: the Hungarian matcher
running scipy's linear_sum_assignment on a cost matrix split per image, the label loss with
an `empty_weight` buffer, L1 + generalized-IoU box losses over matched pairs gathered with
_get_src_permutation_idx, the cardinality error, auxiliary decoder losses, a tiny
query-based detector trained a few steps, and scikit-learn metrics fed tensors."""
import numpy as np
import torch
import torch.nn.functional as F
from scipy.optimize import linear_sum_assignment
from sklearn.metrics import average_precision_score, confusion_matrix, f1_score
from torch import nn

torch.manual_seed(0)


# ---- util/box_ops.py
def box_cxcywh_to_xyxy(x):
    x_c, y_c, w, h = x.unbind(-1)
    b = [(x_c - 0.5 * w), (y_c - 0.5 * h),
         (x_c + 0.5 * w), (y_c + 0.5 * h)]
    return torch.stack(b, dim=-1)


def box_xyxy_to_cxcywh(x):
    x0, y0, x1, y1 = x.unbind(-1)
    b = [(x0 + x1) / 2, (y0 + y1) / 2,
         (x1 - x0), (y1 - y0)]
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
    assert (boxes2[:, 2:] >= boxes2[:, :2]).all()
    iou, union = box_iou(boxes1, boxes2)
    lt = torch.min(boxes1[:, None, :2], boxes2[:, :2])
    rb = torch.max(boxes1[:, None, 2:], boxes2[:, 2:])
    wh = (rb - lt).clamp(min=0)
    area = wh[:, :, 0] * wh[:, :, 1]
    return iou - (area - union) / area


# ---- models/matcher.py
class HungarianMatcher(nn.Module):
    def __init__(self, cost_class: float = 1, cost_bbox: float = 1, cost_giou: float = 1):
        super().__init__()
        self.cost_class = cost_class
        self.cost_bbox = cost_bbox
        self.cost_giou = cost_giou
        assert cost_class != 0 or cost_bbox != 0 or cost_giou != 0, "all costs cant be 0"

    @torch.no_grad()
    def forward(self, outputs, targets):
        bs, num_queries = outputs["pred_logits"].shape[:2]
        out_prob = outputs["pred_logits"].flatten(0, 1).softmax(-1)
        out_bbox = outputs["pred_boxes"].flatten(0, 1)
        tgt_ids = torch.cat([v["labels"] for v in targets])
        tgt_bbox = torch.cat([v["boxes"] for v in targets])
        cost_class = -out_prob[:, tgt_ids]
        cost_bbox = torch.cdist(out_bbox, tgt_bbox, p=1)
        cost_giou = -generalized_box_iou(box_cxcywh_to_xyxy(out_bbox),
                                         box_cxcywh_to_xyxy(tgt_bbox))
        C = self.cost_bbox * cost_bbox + self.cost_class * cost_class + self.cost_giou * cost_giou
        C = C.view(bs, num_queries, -1).cpu()
        sizes = [len(v["boxes"]) for v in targets]
        indices = [linear_sum_assignment(c[i]) for i, c in enumerate(C.split(sizes, -1))]
        return [(torch.as_tensor(i, dtype=torch.int64), torch.as_tensor(j, dtype=torch.int64))
                for i, j in indices]


# ---- models/detr.py SetCriterion
class SetCriterion(nn.Module):
    def __init__(self, num_classes, matcher, weight_dict, eos_coef, losses):
        super().__init__()
        self.num_classes = num_classes
        self.matcher = matcher
        self.weight_dict = weight_dict
        self.eos_coef = eos_coef
        self.losses = losses
        empty_weight = torch.ones(self.num_classes + 1)
        empty_weight[-1] = self.eos_coef
        self.register_buffer("empty_weight", empty_weight)

    def loss_labels(self, outputs, targets, indices, num_boxes):
        src_logits = outputs["pred_logits"]
        idx = self._get_src_permutation_idx(indices)
        target_classes_o = torch.cat([t["labels"][J] for t, (_, J) in zip(targets, indices)])
        target_classes = torch.full(src_logits.shape[:2], self.num_classes,
                                    dtype=torch.int64, device=src_logits.device)
        target_classes[idx] = target_classes_o
        loss_ce = F.cross_entropy(src_logits.transpose(1, 2), target_classes, self.empty_weight)
        losses = {"loss_ce": loss_ce}
        losses["class_error"] = 100 - accuracy(src_logits[idx], target_classes_o)[0]
        return losses

    @torch.no_grad()
    def loss_cardinality(self, outputs, targets, indices, num_boxes):
        pred_logits = outputs["pred_logits"]
        device = pred_logits.device
        tgt_lengths = torch.as_tensor([len(v["labels"]) for v in targets], device=device)
        card_pred = (pred_logits.argmax(-1) != pred_logits.shape[-1] - 1).sum(1)
        card_err = F.l1_loss(card_pred.float(), tgt_lengths.float())
        return {"cardinality_error": card_err}

    def loss_boxes(self, outputs, targets, indices, num_boxes):
        assert "pred_boxes" in outputs
        idx = self._get_src_permutation_idx(indices)
        src_boxes = outputs["pred_boxes"][idx]
        target_boxes = torch.cat([t["boxes"][i] for t, (_, i) in zip(targets, indices)], dim=0)
        loss_bbox = F.l1_loss(src_boxes, target_boxes, reduction="none")
        losses = {}
        losses["loss_bbox"] = loss_bbox.sum() / num_boxes
        loss_giou = 1 - torch.diag(generalized_box_iou(
            box_cxcywh_to_xyxy(src_boxes),
            box_cxcywh_to_xyxy(target_boxes)))
        losses["loss_giou"] = loss_giou.sum() / num_boxes
        return losses

    def _get_src_permutation_idx(self, indices):
        batch_idx = torch.cat([torch.full_like(src, i) for i, (src, _) in enumerate(indices)])
        src_idx = torch.cat([src for (src, _) in indices])
        return batch_idx, src_idx

    def get_loss(self, loss, outputs, targets, indices, num_boxes, **kwargs):
        loss_map = {
            "labels": self.loss_labels,
            "cardinality": self.loss_cardinality,
            "boxes": self.loss_boxes,
        }
        assert loss in loss_map, f"do you really want to compute {loss} loss?"
        return loss_map[loss](outputs, targets, indices, num_boxes, **kwargs)

    def forward(self, outputs, targets):
        outputs_without_aux = {k: v for k, v in outputs.items() if k != "aux_outputs"}
        indices = self.matcher(outputs_without_aux, targets)
        num_boxes = sum(len(t["labels"]) for t in targets)
        num_boxes = torch.as_tensor([num_boxes], dtype=torch.float,
                                    device=next(iter(outputs.values())).device)
        num_boxes = torch.clamp(num_boxes, min=1).item()
        losses = {}
        for loss in self.losses:
            losses.update(self.get_loss(loss, outputs, targets, indices, num_boxes))
        if "aux_outputs" in outputs:
            for i, aux_outputs in enumerate(outputs["aux_outputs"]):
                indices = self.matcher(aux_outputs, targets)
                for loss in self.losses:
                    kwargs = {}
                    if loss == "labels":
                        kwargs = {"log": False}
                    l_dict = self.get_loss(loss, aux_outputs, targets, indices, num_boxes,
                                           **kwargs) if loss != "labels" else \
                        self.loss_labels(aux_outputs, targets, indices, num_boxes)
                    l_dict = {k + f"_{i}": v for k, v in l_dict.items()}
                    losses.update(l_dict)
        return losses, indices


@torch.no_grad()
def accuracy(output, target, topk=(1,)):
    if target.numel() == 0:
        return [torch.zeros([], device=output.device)]
    maxk = max(topk)
    batch_size = target.size(0)
    _, pred = output.topk(maxk, 1, True, True)
    pred = pred.t()
    correct = pred.eq(target.view(1, -1).expand_as(pred))
    res = []
    for k in topk:
        correct_k = correct[:k].view(-1).float().sum(0)
        res.append(correct_k.mul_(100.0 / batch_size))
    return res


class MLP(nn.Module):
    def __init__(self, input_dim, hidden_dim, output_dim, num_layers):
        super().__init__()
        self.num_layers = num_layers
        h = [hidden_dim] * (num_layers - 1)
        self.layers = nn.ModuleList(nn.Linear(n, k) for n, k in zip([input_dim] + h,
                                                                     h + [output_dim]))

    def forward(self, x):
        for i, layer in enumerate(self.layers):
            x = F.relu(layer(x)) if i < self.num_layers - 1 else layer(x)
        return x


class TinyDETR(nn.Module):
    def __init__(self, num_classes, num_queries=6, hidden_dim=16):
        super().__init__()
        self.num_queries = num_queries
        self.backbone = nn.Sequential(nn.Linear(8, hidden_dim), nn.ReLU())
        layer = nn.TransformerDecoderLayer(hidden_dim, 2, 32, dropout=0.0)
        self.decoder = nn.TransformerDecoder(layer, 2)
        self.query_embed = nn.Embedding(num_queries, hidden_dim)
        self.class_embed = nn.Linear(hidden_dim, num_classes + 1)
        self.bbox_embed = MLP(hidden_dim, hidden_dim, 4, 3)

    def forward(self, feats):
        memory = self.backbone(feats).transpose(0, 1)
        bs = feats.shape[0]
        tgt = self.query_embed.weight.unsqueeze(1).repeat(1, bs, 1)
        hs = []
        out = tgt
        for layer in self.decoder.layers:
            out = layer(out, memory)
            hs.append(out.transpose(0, 1))
        hs = torch.stack(hs)
        outputs_class = self.class_embed(hs)
        outputs_coord = self.bbox_embed(hs).sigmoid()
        out = {"pred_logits": outputs_class[-1], "pred_boxes": outputs_coord[-1]}
        out["aux_outputs"] = [{"pred_logits": a, "pred_boxes": b}
                              for a, b in zip(outputs_class[:-1], outputs_coord[:-1])]
        return out


# synthetic images as 5 feature tokens each; targets of 1-3 boxes
num_classes = 3
targets = []
for n in (2, 1, 3):
    centers = torch.rand(n, 2) * 0.6 + 0.2
    sizes = torch.rand(n, 2) * 0.2 + 0.1
    targets.append({"labels": torch.randint(0, num_classes, (n,)),
                    "boxes": torch.cat([centers, sizes], dim=1)})
feats = torch.randn(3, 5, 8)
print([t["labels"].tolist() for t in targets])
xyxy = box_cxcywh_to_xyxy(targets[2]["boxes"])
print(torch.allclose(box_xyxy_to_cxcywh(xyxy), targets[2]["boxes"], atol=1e-6))
print(box_iou(xyxy, xyxy)[0].diagonal(), generalized_box_iou(xyxy, xyxy).shape)

model = TinyDETR(num_classes)
matcher = HungarianMatcher(cost_class=1, cost_bbox=5, cost_giou=2)
weight_dict = {"loss_ce": 1, "loss_bbox": 5, "loss_giou": 2}
criterion = SetCriterion(num_classes, matcher, weight_dict, eos_coef=0.1,
                         losses=["labels", "boxes", "cardinality"])
print(criterion.empty_weight, [n for n, _ in criterion.named_buffers()])

outputs = model(feats)
print({k: tuple(v.shape) for k, v in outputs.items() if k != "aux_outputs"},
      len(outputs["aux_outputs"]))
indices = matcher(outputs, targets)
print([(i.tolist(), j.tolist()) for i, j in indices])
print(criterion._get_src_permutation_idx(indices))

optimizer = torch.optim.AdamW(model.parameters(), lr=1e-3, weight_decay=1e-4)
for step in range(8):
    outputs = model(feats)
    loss_dict, _ = criterion(outputs, targets)
    losses = sum(loss_dict[k] * weight_dict[k.rsplit("_", 1)[0] if k[-1].isdigit() else k]
                 for k in loss_dict if (k.rsplit("_", 1)[0] if k[-1].isdigit() else k)
                 in weight_dict)
    optimizer.zero_grad()
    losses.backward()
    grad_norm = torch.nn.utils.clip_grad_norm_(model.parameters(), 0.1)
    optimizer.step()
    if step % 2 == 0:
        print(f"step {step} loss {losses.item():.4f} ce {loss_dict['loss_ce'].item():.4f} "
              f"giou {loss_dict['loss_giou'].item():.4f} card "
              f"{loss_dict['cardinality_error'].item():.1f} grad {grad_norm.item():.3f}")
print(sorted(loss_dict.keys()))

# ---- scikit-learn metrics fed tensors
scores = torch.tensor([0.9, 0.2, 0.65, 0.4, 0.8, 0.1, 0.55, 0.3])
labels = torch.tensor([1, 0, 1, 0, 1, 0, 0, 1])
print(round(average_precision_score(labels, scores), 4))
print(confusion_matrix(labels, (scores > 0.5).long()))
print(round(f1_score(labels.numpy(), (scores > 0.5).int().numpy()), 4))
cost = torch.tensor([[4.0, 1.0, 3.0], [2.0, 0.0, 5.0], [3.0, 2.0, 2.0]])
rows, cols = linear_sum_assignment(cost)
print(rows, cols, cost[rows, cols].sum(), cost[torch.as_tensor(rows), torch.as_tensor(cols)])
print(np.asarray(cost).dtype, cost.numpy().sum())
