"""Knowledge distillation: a teacher trained first, then a student trained on KLDivLoss at temperature T plus cross entropy."""
import torch
import torch.nn as nn
import torch.nn.functional as F
from torch.utils.data import DataLoader, TensorDataset

torch.manual_seed(42)
n_classes = 5
centers = torch.randn(n_classes, 20) * 2
labels = torch.randint(0, n_classes, (600,))
data = centers[labels] + torch.randn(600, 20)
train_ds = TensorDataset(data[:500], labels[:500])
test_x, test_y = data[500:], labels[500:]
loader = DataLoader(train_ds, batch_size=50, shuffle=True)


def make(hidden):
    return nn.Sequential(nn.Linear(20, hidden), nn.ReLU(), nn.Dropout(0.1), nn.Linear(hidden, n_classes))


@torch.no_grad()
def accuracy(model):
    model.eval()
    return (model(test_x).argmax(dim=1) == test_y).float().mean().item()


teacher, student = make(128), make(8)
print("teacher params:", sum(p.numel() for p in teacher.parameters()))
print("student params:", sum(p.numel() for p in student.parameters()))

opt = torch.optim.AdamW(teacher.parameters(), lr=1e-3, weight_decay=1e-2)
for epoch in range(5):
    teacher.train()
    running = 0.0
    for x, y in loader:
        opt.zero_grad()
        loss = F.cross_entropy(teacher(x), y)
        loss.backward()
        opt.step()
        running += loss.item() * x.size(0)
    print(f"teacher epoch {epoch}: loss={running / len(train_ds):.4f}")
teacher_acc = accuracy(teacher)
print(f"teacher accuracy: {teacher_acc * 100:.2f}%")


def distillation_loss(student_logits, teacher_logits, targets, T=4.0, alpha=0.7):
    soft_targets = F.softmax(teacher_logits / T, dim=-1)
    soft_prob = F.log_softmax(student_logits / T, dim=-1)
    kd = nn.KLDivLoss(reduction="batchmean")(soft_prob, soft_targets) * (T ** 2)
    ce = F.cross_entropy(student_logits, targets)
    return alpha * kd + (1 - alpha) * ce, kd, ce


opt = torch.optim.Adam(student.parameters(), lr=5e-3)
teacher.eval()
for epoch in range(6):
    student.train()
    totals = torch.zeros(3)
    for x, y in loader:
        with torch.no_grad():
            t_logits = teacher(x)
        loss, kd, ce = distillation_loss(student(x), t_logits, y)
        opt.zero_grad(set_to_none=True)
        loss.backward()
        opt.step()
        totals += torch.stack([loss.detach(), kd.detach(), ce.detach()])
    avg = totals / len(loader)
    print("student epoch {}: loss {:.4f} (kd {:.4f}, ce {:.4f})".format(epoch, *avg.tolist()))
student_acc = accuracy(student)
print(f"student accuracy: {student_acc:.1%}")
print("student close to teacher:", student_acc > teacher_acc - 0.1)

# the KL term is zero for identical distributions, and log_target works the same
p = F.log_softmax(torch.randn(4, n_classes), dim=1)
print(F.kl_div(p, p, reduction="batchmean", log_target=True).item())
print(F.kl_div(p, p.exp(), reduction="sum").abs().item() < 1e-6)
print(F.kl_div(p, p.exp(), reduction="none").shape)
