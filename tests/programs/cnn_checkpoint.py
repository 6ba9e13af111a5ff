"""A small CNN with BatchNorm and Dropout, Adam + CosineAnnealingLR, checkpoint dicts saved and resumed."""
# Written as the tutorial or repository it imitates writes it:
# ruff: noqa: UP008
import os
import tempfile

import torch
import torch.nn as nn
import torch.nn.functional as F
import torch.optim as optim

torch.manual_seed(1)


class Net(nn.Module):
    def __init__(self, num_classes=4):
        super(Net, self).__init__()
        self.conv1 = nn.Conv2d(3, 8, kernel_size=3, padding=1)
        self.bn1 = nn.BatchNorm2d(8)
        self.conv2 = nn.Conv2d(8, 16, 3, padding=1)
        self.bn2 = nn.BatchNorm2d(16)
        self.pool = nn.MaxPool2d(2, 2)
        self.dropout = nn.Dropout(0.25)
        self.fc1 = nn.Linear(16 * 4 * 4, 32)
        self.fc2 = nn.Linear(32, num_classes)

    def forward(self, x):
        x = self.pool(F.relu(self.bn1(self.conv1(x))))
        x = self.pool(F.relu(self.bn2(self.conv2(x))))
        x = torch.flatten(x, 1)
        x = self.dropout(F.relu(self.fc1(x)))
        return self.fc2(x)


images = torch.randn(64, 3, 16, 16)
labels = torch.randint(0, 4, (64,))
net = Net()
print(net)
criterion = nn.CrossEntropyLoss()
optimizer = optim.Adam(net.parameters(), lr=1e-3, weight_decay=1e-4)
scheduler = optim.lr_scheduler.CosineAnnealingLR(optimizer, T_max=5)

first = None
for epoch in range(5):
    net.train()
    running_loss = 0.0
    for i in range(0, 64, 16):
        inputs, targets = images[i:i + 16], labels[i:i + 16]
        optimizer.zero_grad()
        outputs = net(inputs)
        loss = criterion(outputs, targets)
        loss.backward()
        optimizer.step()
        running_loss += loss.item()
    scheduler.step()
    first = running_loss if first is None else first
    print(f"[{epoch + 1}] loss: {running_loss / 4:.3f} lr: {scheduler.get_last_lr()[0]:.6f}")
print("loss decreased:", running_loss < first)

path = os.path.join(tempfile.mkdtemp(), "checkpoint.pt")
torch.save({
    "epoch": epoch,
    "model_state_dict": net.state_dict(),
    "optimizer_state_dict": optimizer.state_dict(),
    "scheduler_state_dict": scheduler.state_dict(),
    "loss": loss,
}, path)

model = Net()
opt2 = optim.Adam(model.parameters(), lr=1e-3, weight_decay=1e-4)
checkpoint = torch.load(path, weights_only=True)
model.load_state_dict(checkpoint["model_state_dict"])
opt2.load_state_dict(checkpoint["optimizer_state_dict"])
print("epoch", checkpoint["epoch"], "loss type", type(checkpoint["loss"]).__name__)
print(sorted(checkpoint["optimizer_state_dict"]["state"][0].keys()))
print(checkpoint["optimizer_state_dict"]["param_groups"][0]["lr"], opt2.param_groups[0]["betas"])
print(net.bn1.num_batches_tracked, model.bn1.running_mean.shape)
net.eval()
model.eval()
with torch.no_grad():
    a, b = net(images[:8]), model(images[:8])
print("same outputs after reload:", torch.equal(a, b))
correct = (torch.argmax(a, dim=1) == labels[:8]).sum().item()
print("correct type", type(correct).__name__, "probs sum", torch.softmax(a, dim=1).sum(1).round().tolist())
