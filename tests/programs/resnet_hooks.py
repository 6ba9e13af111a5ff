"""A small ResNet (BasicBlock, OrderedDict Sequential) with forward hooks, SGD nesterov + OneCycleLR,
one-hot mixup targets and a whole-model torch.save / torch.load(weights_only=False)."""
# Written as the tutorial or repository it imitates writes it:
# ruff: noqa: B007
import os
import tempfile
from collections import OrderedDict

import torch
import torch.nn as nn
import torch.nn.functional as F


class BasicBlock(nn.Module):
    expansion = 1

    def __init__(self, in_planes, planes, stride=1):
        super().__init__()
        self.conv1 = nn.Conv2d(in_planes, planes, kernel_size=3, stride=stride, padding=1, bias=False)
        self.bn1 = nn.BatchNorm2d(planes)
        self.conv2 = nn.Conv2d(planes, planes, kernel_size=3, stride=1, padding=1, bias=False)
        self.bn2 = nn.BatchNorm2d(planes)
        self.shortcut = nn.Sequential()
        if stride != 1 or in_planes != planes:
            self.shortcut = nn.Sequential(nn.Conv2d(in_planes, planes, 1, stride=stride, bias=False), nn.BatchNorm2d(planes))

    def forward(self, x):
        out = F.relu(self.bn1(self.conv1(x)))
        out = self.bn2(self.conv2(out))
        out += self.shortcut(x)
        return F.relu(out)


class ResNet(nn.Module):
    def __init__(self, num_classes=5):
        super().__init__()
        self.stem = nn.Sequential(OrderedDict([("conv", nn.Conv2d(3, 8, 3, padding=1, bias=False)),
                                               ("bn", nn.BatchNorm2d(8)), ("relu", nn.ReLU(inplace=True))]))
        self.layer1 = nn.Sequential(BasicBlock(8, 8), BasicBlock(8, 16, stride=2))
        self.avgpool = nn.AdaptiveAvgPool2d((1, 1))
        self.fc = nn.Linear(16, num_classes)
        for m in self.modules():
            if isinstance(m, nn.Conv2d):
                nn.init.kaiming_normal_(m.weight, mode="fan_out", nonlinearity="relu")
            elif isinstance(m, (nn.BatchNorm2d, nn.GroupNorm)):
                nn.init.constant_(m.weight, 1)
                nn.init.constant_(m.bias, 0)

    def forward(self, x):
        x = self.layer1(self.stem(x))
        return self.fc(torch.flatten(self.avgpool(x), 1))


torch.manual_seed(0)
model = ResNet()
print(model.stem)
activations = {}


def get_activation(name):
    def hook(model, input, output):
        activations[name] = output.detach()
    return hook


handles = [m.register_forward_hook(get_activation(n)) for n, m in model.named_modules() if isinstance(m, BasicBlock)]
x = torch.randn(32, 3, 16, 16)
y = torch.randint(0, 5, (32,))
print({k: tuple(v.shape) for k, v in activations.items()})
model(x[:2])
print({k: tuple(v.shape) for k, v in activations.items()})
for h in handles:
    h.remove()
optimizer = torch.optim.SGD(model.parameters(), lr=0.1, momentum=0.9, nesterov=True, weight_decay=5e-4)
scheduler = torch.optim.lr_scheduler.OneCycleLR(optimizer, max_lr=0.1, total_steps=20)
lrs, losses = [], []
for step in range(20):
    lam = 0.7
    index = torch.arange(31, -1, -1)
    mixed_x = lam * x + (1 - lam) * x[index, :]
    target = lam * F.one_hot(y, num_classes=5).float() + (1 - lam) * F.one_hot(y[index], 5).float()
    loss = torch.sum(-target * F.log_softmax(model(mixed_x), dim=-1), dim=-1).mean()
    optimizer.zero_grad()
    loss.backward()
    optimizer.step()
    scheduler.step()
    lrs.append(scheduler.get_last_lr()[0])
    losses.append(loss.item())
print("lr schedule:", [round(lr, 5) for lr in lrs[::5]])
print("loss decreased:", losses[-1] < losses[0])
print("momentum buffers:", len(optimizer.state), list(optimizer.state_dict()["state"][0].keys()))
path = os.path.join(tempfile.mkdtemp(), "model.pth")
torch.save(model, path)
loaded = torch.load(path, weights_only=False)
loaded.eval()
model.eval()
with torch.no_grad():
    print("same after whole-model reload:", torch.equal(model(x), loaded(x)), type(loaded).__name__)
print(loaded.stem.bn.running_var.shape, loaded.stem.bn.num_batches_tracked)
print(model.layer1[1].shortcut)
