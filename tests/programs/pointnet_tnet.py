"""PointNet (Qi et al.) as its popular PyTorch ports write it: shared MLPs as Conv1d(k=1) + BatchNorm1d,
input / feature T-Nets regressing a k x k transform (bmm, identity added via torch.eye repeat), max
pooling over points, the orthogonality regularizer ||I - A A^T||, trained to tell spheres from cubes."""
import torch
import torch.nn as nn
import torch.nn.functional as F
from torch.utils.data import DataLoader, Dataset

torch.manual_seed(3)


class ShapesDataset(Dataset):
    def __init__(self, n, n_points=64, seed=0):
        g = torch.Generator().manual_seed(seed)
        self.items = []
        for i in range(n):
            label = i % 2
            if label == 0:  # sphere surface
                p = torch.randn(n_points, 3, generator=g)
                p = p / p.norm(dim=1, keepdim=True)
            else:  # cube surface
                p = torch.rand(n_points, 3, generator=g) * 2 - 1
                face = torch.randint(0, 3, (n_points,), generator=g)
                sign = torch.randint(0, 2, (n_points,), generator=g).float() * 2 - 1
                p[torch.arange(n_points), face] = sign
            # random rotation about z
            theta = torch.rand(1, generator=g) * 2 * torch.pi
            c, s = torch.cos(theta), torch.sin(theta)
            rot = torch.stack([torch.cat([c, -s, torch.zeros(1)]), torch.cat([s, c, torch.zeros(1)]),
                               torch.tensor([0.0, 0.0, 1.0])])
            self.items.append(((p @ rot.T).T.contiguous(), label))

    def __len__(self):
        return len(self.items)

    def __getitem__(self, i):
        return self.items[i]


class TNet(nn.Module):
    def __init__(self, k=3):
        super().__init__()
        self.k = k
        self.conv1 = nn.Conv1d(k, 32, 1)
        self.conv2 = nn.Conv1d(32, 64, 1)
        self.fc1 = nn.Linear(64, 32)
        self.fc2 = nn.Linear(32, k * k)
        self.bn1 = nn.BatchNorm1d(32)
        self.bn2 = nn.BatchNorm1d(64)
        self.bn3 = nn.BatchNorm1d(32)
        nn.init.zeros_(self.fc2.weight)
        nn.init.zeros_(self.fc2.bias)

    def forward(self, x):
        bs = x.size(0)
        x = F.relu(self.bn1(self.conv1(x)))
        x = F.relu(self.bn2(self.conv2(x)))
        x = torch.max(x, 2, keepdim=True)[0]
        x = x.view(-1, 64)
        x = F.relu(self.bn3(self.fc1(x)))
        x = self.fc2(x)
        iden = torch.eye(self.k, dtype=x.dtype).view(1, self.k * self.k).repeat(bs, 1)
        x = x + iden
        return x.view(-1, self.k, self.k)


class PointNetCls(nn.Module):
    def __init__(self, k=2, feature_transform=True):
        super().__init__()
        self.stn = TNet(3)
        self.conv1 = nn.Conv1d(3, 32, 1)
        self.conv2 = nn.Conv1d(32, 64, 1)
        self.bn1 = nn.BatchNorm1d(32)
        self.bn2 = nn.BatchNorm1d(64)
        self.feature_transform = feature_transform
        if feature_transform:
            self.fstn = TNet(32)
        self.fc = nn.Sequential(nn.Linear(64, 32), nn.BatchNorm1d(32), nn.ReLU(), nn.Dropout(p=0.3), nn.Linear(32, k))

    def forward(self, x):
        trans = self.stn(x)
        x = x.transpose(2, 1)
        x = torch.bmm(x, trans)
        x = x.transpose(2, 1)
        x = F.relu(self.bn1(self.conv1(x)))
        trans_feat = None
        if self.feature_transform:
            trans_feat = self.fstn(x)
            x = torch.bmm(x.transpose(2, 1), trans_feat).transpose(2, 1)
        x = self.bn2(self.conv2(x))
        x, crit_idx = torch.max(x, 2)
        return F.log_softmax(self.fc(x), dim=1), trans, trans_feat, crit_idx


def feature_transform_regularizer(trans):
    d = trans.size()[1]
    I = torch.eye(d)[None, :, :]
    return torch.mean(torch.norm(torch.bmm(trans, trans.transpose(2, 1)) - I, dim=(1, 2)))


train = DataLoader(ShapesDataset(64, seed=0), batch_size=16, shuffle=True, drop_last=True,
                   generator=torch.Generator().manual_seed(0))
test = DataLoader(ShapesDataset(32, seed=1), batch_size=16)
model = PointNetCls()
optimizer = torch.optim.Adam(model.parameters(), lr=0.003, betas=(0.9, 0.999))
scheduler = torch.optim.lr_scheduler.StepLR(optimizer, step_size=2, gamma=0.5)
n_params = sum(p.numel() for p in model.parameters())
print("params:", n_params)
for epoch in range(4):
    model.train()
    for i, (points, target) in enumerate(train):
        optimizer.zero_grad()
        pred, trans, trans_feat, _ = model(points)
        loss = F.nll_loss(pred, target) + 0.001 * feature_transform_regularizer(trans_feat)
        loss.backward()
        optimizer.step()
        correct = pred.data.max(1)[1].eq(target.data).cpu().sum()
    scheduler.step()
    print("[%d] train loss: %f accuracy: %f lr %g" % (epoch, loss.item(), correct.item() / 16.0,
                                                     scheduler.get_last_lr()[0]))

model.eval()
total_correct = 0
with torch.no_grad():
    for points, target in test:
        pred, trans, _, crit = model(points)
        total_correct += pred.argmax(1).eq(target).sum().item()
print("test accuracy:", total_correct / 32)
print("critical points shape:", crit.shape, crit.dtype, "unique per cloud <= 64:",
      all(len(torch.unique(c)) <= 64 for c in crit))
print("input transform det ~", torch.det(trans).mean().item() > 0)
print("regularizer at identity:", feature_transform_regularizer(torch.eye(4).expand(2, 4, 4)).item())
