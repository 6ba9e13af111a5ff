"""The mistakes a first training script makes, caught and printed as forum answers show them, each
followed by its fix: one-hot Long targets given to CrossEntropyLoss, int32 labels from numpy,
uint8 segmentation masks, float labels for a classifier, a Linear sized for the wrong flattened
shape, view() of a transposed tensor, mixed float64 / float32 inputs, a batch of ragged samples,
an Embedding index past the vocabulary, a BatchNorm batch of one, and a state_dict of another
architecture."""
import numpy as np
import torch
import torch.nn as nn
import torch.nn.functional as F
from torch.utils.data import DataLoader

torch.manual_seed(0)


def attempt(title, fn, fix=None):
    try:
        out = fn()
        print(f"{title}: ok {tuple(out.shape) if isinstance(out, torch.Tensor) else out}")
    except (RuntimeError, ValueError, IndexError, TypeError) as e:
        print(f"{title}: {type(e).__name__}: {str(e).splitlines()[0]}")
        if fix is not None:
            out = fix()
            print(f"  fixed -> {out}")


logits = torch.randn(4, 3, requires_grad=True)
labels = torch.tensor([0, 2, 1, 2])
criterion = nn.CrossEntropyLoss()

one_hot = F.one_hot(labels, 3)
attempt("one-hot long targets", lambda: criterion(logits, one_hot),
        lambda: (criterion(logits, one_hot.float()).item() == criterion(logits, labels).item(),
                 round(criterion(logits, one_hot.argmax(1)).item(), 4)))

np_labels = np.array([0, 2, 1, 2], dtype=np.int32)
attempt("int32 labels from numpy", lambda: criterion(logits, torch.from_numpy(np_labels)),
        lambda: round(criterion(logits, torch.from_numpy(np_labels).long()).item(), 4))
attempt("float labels", lambda: criterion(logits, labels.float()),
        lambda: round(criterion(logits, labels.float().long()).item(), 4))
attempt("byte labels", lambda: round(criterion(logits, labels.to(torch.uint8)).item(), 4))
attempt("labels of the wrong length", lambda: criterion(logits, labels[:3]))

# segmentation: masks read from PNGs come as uint8
seg_logits = torch.randn(2, 3, 4, 4)
mask = torch.randint(0, 3, (2, 4, 4), dtype=torch.uint8)
attempt("uint8 segmentation mask", lambda: F.cross_entropy(seg_logits, mask),
        lambda: round(F.cross_entropy(seg_logits, mask.long()).item(), 4))
attempt("mask with a channel dim", lambda: F.cross_entropy(seg_logits, mask.long().unsqueeze(1)),
        lambda: round(F.cross_entropy(seg_logits, mask.long().unsqueeze(1).squeeze(1)).item(), 4))
weights = torch.tensor([0.2, 1.0, 3.0])
print("weighted seg loss:", round(F.cross_entropy(seg_logits, mask.long(), weight=weights).item(), 4),
      "ignore 0:", round(F.cross_entropy(seg_logits, mask.long(), ignore_index=0).item(), 4))

# soft labels (mixup / distillation) are fine when they match the logits' shape
soft = torch.softmax(torch.randn(4, 3), dim=1)
print("soft targets:", round(criterion(logits, soft).item(), 4),
      "smoothed:", round(nn.CrossEntropyLoss(label_smoothing=0.1)(logits, labels).item(), 4))
attempt("soft targets with ignore_index", lambda: nn.CrossEntropyLoss(ignore_index=1)(logits, soft))
attempt("label_smoothing > 1", lambda: nn.CrossEntropyLoss(label_smoothing=1.2)(logits, labels))

# binary classification
scores = torch.randn(4, 1)
attempt("BCE target shape", lambda: F.binary_cross_entropy_with_logits(scores, labels.float()),
        lambda: round(F.binary_cross_entropy_with_logits(scores.squeeze(1), (labels > 0).float()).item(), 4))
attempt("BCE long target", lambda: F.binary_cross_entropy_with_logits(scores.squeeze(1), (labels > 0).long()))
attempt("BCE on logits", lambda: F.binary_cross_entropy(scores.squeeze(1), (labels > 0).float()))


class Net(nn.Module):
    def __init__(self, flat):
        super().__init__()
        self.conv = nn.Conv2d(1, 4, 3)
        self.fc = nn.Linear(flat, 10)

    def forward(self, x):
        x = F.max_pool2d(F.relu(self.conv(x)), 2)
        return self.fc(torch.flatten(x, 1))


images = torch.randn(2, 1, 12, 12)
attempt("Linear sized for 28x28", lambda: Net(4 * 13 * 13)(images),
        lambda: tuple(Net(4 * 5 * 5)(images).shape))
attempt("view of a transposed tensor", lambda: images.transpose(2, 3).view(2, -1),
        lambda: tuple(images.transpose(2, 3).reshape(2, -1).shape))
attempt("float64 input", lambda: nn.Linear(3, 2)(torch.from_numpy(np.ones((1, 3)))),
        lambda: nn.Linear(3, 2)(torch.from_numpy(np.ones((1, 3))).float()).dtype)
attempt("forgot the batch dim for BatchNorm", lambda: nn.BatchNorm1d(3)(torch.randn(1, 3)),
        lambda: nn.BatchNorm1d(3).eval()(torch.randn(1, 3)).shape)
attempt("embedding index past the vocab", lambda: nn.Embedding(5, 2)(torch.tensor([[1, 5]])),
        lambda: nn.Embedding(6, 2)(torch.tensor([[1, 5]])).shape)
attempt("ragged samples in a batch",
        lambda: next(iter(DataLoader([torch.ones(3), torch.ones(4)], batch_size=2))),
        lambda: nn.utils.rnn.pad_sequence([torch.ones(3), torch.ones(4)], batch_first=True).shape)
attempt("state_dict of another model", lambda: nn.Linear(3, 2).load_state_dict(nn.Linear(4, 2).state_dict()))
attempt("missing keys", lambda: nn.Sequential(nn.Linear(3, 2)).load_state_dict(nn.Linear(3, 2).state_dict()),
        lambda: nn.Sequential(nn.Linear(3, 2)).load_state_dict(
            {"0." + k: v for k, v in nn.Linear(3, 2).state_dict().items()}))
attempt("numpy() of a tensor that requires grad", lambda: logits.numpy(),
        lambda: logits.detach().numpy().shape)
attempt("item() of a batch loss", lambda: F.mse_loss(scores, torch.zeros(4, 1), reduction="none").item(),
        lambda: round(F.mse_loss(scores, torch.zeros(4, 1)).item(), 4))
loss = criterion(logits, labels)
loss.backward()
attempt("backward twice", lambda: loss.backward())
print("grad norm:", round(logits.grad.norm().item(), 4))
