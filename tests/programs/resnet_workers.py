"""A small ResNet on a hand-written Dataset with hand-written transforms, DataLoader(num_workers=2), SGD+OneCycleLR."""
# ruff: noqa: B007, UP031 - written the way the tutorial it imitates is written
import math

import torch
import torch.nn as nn
import torch.nn.functional as F
from torch.utils.data import DataLoader, Dataset


class Compose:
    def __init__(self, transforms):
        self.transforms = transforms

    def __call__(self, x):
        for t in self.transforms:
            x = t(x)
        return x

    def __repr__(self):
        return self.__class__.__name__ + "(" + ", ".join(repr(t) for t in self.transforms) + ")"


class Normalize:
    def __init__(self, mean, std):
        self.mean = torch.tensor(mean).view(-1, 1, 1)
        self.std = torch.tensor(std).view(-1, 1, 1)

    def __call__(self, x):
        return (x - self.mean) / self.std

    def __repr__(self):
        return f"Normalize(mean={self.mean.flatten().tolist()}, std={self.std.flatten().tolist()})"


class RandomHorizontalFlip:
    def __init__(self, p=0.5):
        self.p = p

    def __call__(self, x):
        if torch.rand(1).item() < self.p:
            return x.flip(-1)
        return x

    def __repr__(self):
        return f"RandomHorizontalFlip(p={self.p})"


class ShapesDataset(Dataset):
    """Images of a horizontal bar (class 0), a vertical bar (1) or a cross (2)."""

    def __init__(self, n, transform=None, seed=0):
        g = torch.Generator().manual_seed(seed)
        self.labels = torch.randint(0, 3, (n,), generator=g)
        self.noise = 0.2 * torch.randn(n, 3, 12, 12, generator=g)
        self.transform = transform

    def __len__(self):
        return len(self.labels)

    def __getitem__(self, idx):
        label = int(self.labels[idx])
        img = self.noise[idx].clone()
        if label in (0, 2):
            img[:, 5:7, :] += 1.0
        if label in (1, 2):
            img[:, :, 5:7] += 1.0
        if self.transform:
            img = self.transform(img)
        return img, label


class BasicBlock(nn.Module):
    expansion = 1

    def __init__(self, in_planes, planes, stride=1):
        super().__init__()
        self.conv1 = nn.Conv2d(in_planes, planes, kernel_size=3, stride=stride, padding=1, bias=False)
        self.bn1 = nn.BatchNorm2d(planes)
        self.conv2 = nn.Conv2d(planes, planes, kernel_size=3, stride=1, padding=1, bias=False)
        self.bn2 = nn.BatchNorm2d(planes)
        self.shortcut = nn.Sequential()
        if stride != 1 or in_planes != self.expansion * planes:
            self.shortcut = nn.Sequential(
                nn.Conv2d(in_planes, self.expansion * planes, kernel_size=1, stride=stride, bias=False),
                nn.BatchNorm2d(self.expansion * planes))

    def forward(self, x):
        out = F.relu(self.bn1(self.conv1(x)))
        out = self.bn2(self.conv2(out))
        out += self.shortcut(x)
        out = F.relu(out)
        return out


class ResNet(nn.Module):
    def __init__(self, block, num_blocks, num_classes=3):
        super().__init__()
        self.in_planes = 8
        self.conv1 = nn.Conv2d(3, 8, kernel_size=3, stride=1, padding=1, bias=False)
        self.bn1 = nn.BatchNorm2d(8)
        self.layer1 = self._make_layer(block, 8, num_blocks[0], stride=1)
        self.layer2 = self._make_layer(block, 16, num_blocks[1], stride=2)
        self.linear = nn.Linear(16 * block.expansion, num_classes)

    def _make_layer(self, block, planes, num_blocks, stride):
        strides = [stride] + [1] * (num_blocks - 1)
        layers = []
        for stride in strides:
            layers.append(block(self.in_planes, planes, stride))
            self.in_planes = planes * block.expansion
        return nn.Sequential(*layers)

    def forward(self, x):
        out = F.relu(self.bn1(self.conv1(x)))
        out = self.layer1(out)
        out = self.layer2(out)
        out = F.adaptive_avg_pool2d(out, (1, 1))
        out = out.view(out.size(0), -1)
        out = self.linear(out)
        return out


def main():
    torch.manual_seed(0)
    transform_train = Compose([RandomHorizontalFlip(), Normalize((0.2, 0.2, 0.2), (0.5, 0.5, 0.5))])
    transform_test = Compose([Normalize((0.2, 0.2, 0.2), (0.5, 0.5, 0.5))])
    print(transform_train)
    trainset = ShapesDataset(192, transform_train, seed=1)
    testset = ShapesDataset(96, transform_test, seed=2)
    img, label = trainset[0]
    print(img.shape, img.dtype, type(label).__name__)
    trainloader = DataLoader(trainset, batch_size=32, shuffle=True, num_workers=2,
                             persistent_workers=False, drop_last=True)
    testloader = DataLoader(testset, batch_size=48, shuffle=False, num_workers=2)
    print(len(trainloader), len(testloader), trainloader.num_workers)

    net = ResNet(BasicBlock, [1, 1])
    n_params = sum(p.numel() for p in net.parameters())
    print(f"ResNet params: {n_params:,}")
    print(net.layer2[0].shortcut)
    criterion = nn.CrossEntropyLoss(label_smoothing=0.1)
    optimizer = torch.optim.SGD(net.parameters(), lr=0.05, momentum=0.9, weight_decay=5e-4, nesterov=True)
    epochs = 4
    scheduler = torch.optim.lr_scheduler.OneCycleLR(optimizer, max_lr=0.1, epochs=epochs,
                                                    steps_per_epoch=len(trainloader))
    for epoch in range(epochs):
        net.train()
        train_loss, correct, total = 0, 0, 0
        for batch_idx, (inputs, targets) in enumerate(trainloader):
            optimizer.zero_grad()
            outputs = net(inputs)
            loss = criterion(outputs, targets)
            loss.backward()
            optimizer.step()
            scheduler.step()
            train_loss += loss.item()
            _, predicted = outputs.max(1)
            total += targets.size(0)
            correct += predicted.eq(targets).sum().item()
        print('Epoch %d | Loss: %.3f | Acc: %.3f%% (%d/%d) | lr %.5f'
              % (epoch, train_loss / (batch_idx + 1), 100. * correct / total, correct, total,
                 scheduler.get_last_lr()[0]))

    net.eval()
    correct = 0
    with torch.no_grad():
        for inputs, targets in testloader:
            correct += (net(inputs).argmax(1) == targets).sum().item()
    print("test accuracy above 80%:", correct / len(testset) > 0.8)
    print("final lr tiny:", math.isclose(scheduler.get_last_lr()[0], 0.0, abs_tol=1e-5))


if __name__ == "__main__":
    main()
