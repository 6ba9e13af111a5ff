"""Model calibration as the 'On Calibration of Modern Neural Networks' reference code
(gpleiss/temperature_scaling) and uncertainty notebooks write it: a classifier trained on
noisy synthetic data, the expected calibration error with bin boundaries from torch.linspace
(the _ECELoss module), temperature scaling fitted with LBFGS on a held-out set's logits
collected under torch.no_grad, reliability-diagram bins with torch.bucketize, the Brier score,
MC dropout (dropout kept active with model.train() inside torch.inference_mode), predictive
entropy and mutual information, and evaluation loops printing metrics with f-strings."""
import torch
import torch.nn as nn
import torch.nn.functional as F
from torch import optim


class _ECELoss(nn.Module):
    def __init__(self, n_bins=15):
        super().__init__()
        bin_boundaries = torch.linspace(0, 1, n_bins + 1)
        self.bin_lowers = bin_boundaries[:-1]
        self.bin_uppers = bin_boundaries[1:]

    def forward(self, logits, labels):
        softmaxes = F.softmax(logits, dim=1)
        confidences, predictions = torch.max(softmaxes, 1)
        accuracies = predictions.eq(labels)
        ece = torch.zeros(1, device=logits.device)
        for bin_lower, bin_upper in zip(self.bin_lowers, self.bin_uppers):
            in_bin = confidences.gt(bin_lower.item()) * confidences.le(bin_upper.item())
            prop_in_bin = in_bin.float().mean()
            if prop_in_bin.item() > 0:
                accuracy_in_bin = accuracies[in_bin].float().mean()
                avg_confidence_in_bin = confidences[in_bin].mean()
                ece += torch.abs(avg_confidence_in_bin - accuracy_in_bin) * prop_in_bin
        return ece


class ModelWithTemperature(nn.Module):
    def __init__(self, model):
        super().__init__()
        self.model = model
        self.temperature = nn.Parameter(torch.ones(1) * 1.5)

    def forward(self, input):
        return self.temperature_scale(self.model(input))

    def temperature_scale(self, logits):
        temperature = self.temperature.unsqueeze(1).expand(logits.size(0), logits.size(1))
        return logits / temperature

    def set_temperature(self, valid_loader):
        nll_criterion = nn.CrossEntropyLoss()
        ece_criterion = _ECELoss()
        logits_list, labels_list = [], []
        with torch.no_grad():
            for input, label in valid_loader:
                logits_list.append(self.model(input))
                labels_list.append(label)
            logits = torch.cat(logits_list)
            labels = torch.cat(labels_list)
        before_temperature_nll = nll_criterion(logits, labels).item()
        before_temperature_ece = ece_criterion(logits, labels).item()
        print("Before temperature - NLL: %.3f, ECE: %.3f" % (before_temperature_nll, before_temperature_ece))
        optimizer = optim.LBFGS([self.temperature], lr=0.01, max_iter=50)

        def eval():
            optimizer.zero_grad()
            loss = nll_criterion(self.temperature_scale(logits), labels)
            loss.backward()
            return loss

        optimizer.step(eval)
        after_temperature_nll = nll_criterion(self.temperature_scale(logits), labels).item()
        after_temperature_ece = ece_criterion(self.temperature_scale(logits), labels).item()
        print("Optimal temperature: %.3f" % self.temperature.item())
        print("After temperature - NLL: %.3f, ECE: %.3f" % (after_temperature_nll, after_temperature_ece))
        return self, before_temperature_nll, after_temperature_nll


torch.manual_seed(0)
n_classes, dim = 4, 10
centers = torch.randn(n_classes, dim) * 1.2


def make_split(n):
    y = torch.randint(0, n_classes, (n,))
    x = centers[y] + torch.randn(n, dim) * 1.3
    flip = torch.rand(n) < 0.1
    y = torch.where(flip, torch.randint(0, n_classes, (n,)), y)
    return x, y


x_train, y_train = make_split(512)
x_val, y_val = make_split(256)
x_test, y_test = make_split(256)
print("label counts", torch.bincount(y_train, minlength=n_classes).tolist())

model = nn.Sequential(nn.Linear(dim, 64), nn.ReLU(), nn.Dropout(0.2), nn.Linear(64, 64), nn.ReLU(),
                      nn.Dropout(0.2), nn.Linear(64, n_classes))
opt = optim.Adam(model.parameters(), lr=3e-3)
train_loader = torch.utils.data.DataLoader(torch.utils.data.TensorDataset(x_train, y_train), batch_size=64, shuffle=True)
val_loader = torch.utils.data.DataLoader(torch.utils.data.TensorDataset(x_val, y_val), batch_size=64)
for epoch in range(25):
    model.train()
    total = 0.0
    for xb, yb in train_loader:
        opt.zero_grad()
        loss = F.cross_entropy(model(xb), yb)
        loss.backward()
        opt.step()
        total += loss.item() * len(xb)
    if epoch % 8 == 0:
        print(f"epoch {epoch} train loss {total / len(x_train):.4f}")

model.eval()
scaled = ModelWithTemperature(model)
scaled, nll_before, nll_after = scaled.set_temperature(val_loader)
print("NLL did not increase:", nll_after <= nll_before + 1e-6)
print(scaled.temperature)

ece = _ECELoss(n_bins=10)
with torch.no_grad():
    logits = model(x_test)
    probs = logits.softmax(-1)
    conf, pred = probs.max(1)
    acc = (pred == y_test).float().mean()
    print(f"test accuracy {acc:.4f} mean confidence {conf.mean():.4f}")
    print(f"test ECE raw {ece(logits, y_test).item():.4f} scaled {ece(scaled.temperature_scale(logits), y_test).item():.4f}")
    onehot = F.one_hot(y_test, n_classes).float()
    brier = ((probs - onehot) ** 2).sum(1).mean()
    print(f"Brier score {brier:.4f}")
    boundaries = torch.linspace(0, 1, 6)[1:-1]
    bins = torch.bucketize(conf, boundaries)
    for b in range(5):
        mask = bins == b
        if mask.any():
            print(f"bin {b}: n={int(mask.sum()):3d} conf={conf[mask].mean():.3f} acc={(pred[mask] == y_test[mask]).float().mean():.3f}")

# fixed logits: the metrics on known values
logits = torch.tensor([[2.0, 0.5, 0.1, -1.0], [0.1, 0.2, 3.0, 0.0], [1.0, 1.0, 1.0, 1.0], [0.0, 4.0, 0.0, 0.0]])
labels = torch.tensor([0, 1, 2, 1])
print("fixed ECE", _ECELoss(n_bins=5)(logits, labels))
t = ModelWithTemperature(nn.Identity())
print("temperature-scaled", t(logits))
print("bucketize", torch.bucketize(torch.tensor([0.0, 0.2, 0.25, 0.9, 1.0]), torch.tensor([0.25, 0.5, 0.75]), right=True))

# MC dropout: dropout stays active at test time
torch.manual_seed(3)
model.train()
with torch.inference_mode():
    samples = torch.stack([model(x_test[:8]).softmax(-1) for _ in range(20)])
mean_probs = samples.mean(0)
entropy = -(mean_probs * mean_probs.clamp_min(1e-12).log()).sum(-1)
expected_entropy = -(samples * samples.clamp_min(1e-12).log()).sum(-1).mean(0)
mutual_info = entropy - expected_entropy
print("mc samples", tuple(samples.shape), samples.is_inference(), samples.requires_grad)
print("mutual information nonnegative:", bool((mutual_info > -1e-6).all()))
print(f"mean predictive entropy {entropy.mean():.4f}")
model.eval()
with torch.inference_mode():
    a = model(x_test[:8])
    b = model(x_test[:8])
print("eval mode deterministic:", torch.equal(a, b))
