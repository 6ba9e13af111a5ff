"""Spatial transformer network (after the official tutorial): a localization net predicts an affine theta, F.affine_grid + F.grid_sample warp the input before a small CNN classifier."""
import torch
import torch.nn as nn
import torch.nn.functional as F
import torch.optim as optim

torch.manual_seed(12)


def make_digits(n):
    # "digits": class 0 a ring, class 1 a bar, class 2 a cross; randomly shifted
    x = torch.zeros(n, 1, 20, 20)
    y = torch.arange(n) % 3
    yy, xx = torch.meshgrid(torch.arange(20.0), torch.arange(20.0), indexing="ij")
    shifts = torch.randint(-3, 4, (n, 2))
    for i in range(n):
        cy, cx = 10 + shifts[i, 0].item(), 10 + shifts[i, 1].item()
        r = ((yy - cy) ** 2 + (xx - cx) ** 2).sqrt()
        if y[i] == 0:
            x[i, 0] = ((r > 3) & (r < 5)).float()
        elif y[i] == 1:
            x[i, 0, cy - 1:cy + 2, cx - 5:cx + 5] = 1.0
        else:
            x[i, 0, cy - 5:cy + 5, cx] = 1.0
            x[i, 0, cy, cx - 5:cx + 5] = 1.0
    return x, y


class Net(nn.Module):
    def __init__(self):
        super().__init__()
        self.conv1 = nn.Conv2d(1, 8, kernel_size=3)
        self.conv2 = nn.Conv2d(8, 12, kernel_size=3)
        self.conv2_drop = nn.Dropout2d()
        self.fc1 = nn.Linear(12 * 3 * 3, 32)
        self.fc2 = nn.Linear(32, 3)

        self.localization = nn.Sequential(
            nn.Conv2d(1, 6, kernel_size=5),
            nn.MaxPool2d(2, stride=2),
            nn.ReLU(True),
            nn.Conv2d(6, 8, kernel_size=3),
            nn.MaxPool2d(2, stride=2),
            nn.ReLU(True),
        )
        self.fc_loc = nn.Sequential(nn.Linear(8 * 3 * 3, 16), nn.ReLU(True), nn.Linear(16, 3 * 2))
        # start from the identity transformation
        self.fc_loc[2].weight.data.zero_()
        self.fc_loc[2].bias.data.copy_(torch.tensor([1, 0, 0, 0, 1, 0], dtype=torch.float))

    def stn(self, x):
        xs = self.localization(x)
        xs = xs.view(-1, 8 * 3 * 3)
        theta = self.fc_loc(xs).view(-1, 2, 3)
        grid = F.affine_grid(theta, x.size(), align_corners=False)
        return F.grid_sample(x, grid, align_corners=False), theta

    def forward(self, x):
        x, _ = self.stn(x)
        x = F.relu(F.max_pool2d(self.conv1(x), 2))
        x = F.relu(F.max_pool2d(self.conv2_drop(self.conv2(x)), 2))
        x = x.view(-1, 12 * 3 * 3)
        x = F.relu(self.fc1(x))
        x = F.dropout(x, training=self.training)
        x = self.fc2(x)
        return F.log_softmax(x, dim=1)


model = Net()
print(model)
x_train, y_train = make_digits(60)
print("data:", x_train.shape, "pixels on:", int(x_train.sum()))

# the identity theta leaves the image unchanged (up to interpolation)
with torch.no_grad():
    warped, theta = model.stn(x_train[:2])
print("theta at init:\n", theta[0])
print("identity warp max error:", round((warped - x_train[:2]).abs().max().item(), 5))
grid = F.affine_grid(torch.tensor([[[0.5, 0.0, 0.0], [0.0, 0.5, 0.0]]]), (1, 1, 4, 4), align_corners=True)
print("zoom grid:\n", grid[0, :, :, 0])
img = torch.arange(16.0).view(1, 1, 4, 4)
print("bilinear zoom:\n", F.grid_sample(img, grid, mode="bilinear", align_corners=True))
print("nearest, zeros padding:\n",
      F.grid_sample(img, grid * 2.5, mode="nearest", padding_mode="zeros", align_corners=True))

optimizer = optim.SGD(model.parameters(), lr=0.05, momentum=0.9)
for epoch in range(1, 4):
    model.train()
    for i in range(0, 60, 20):
        data, target = x_train[i:i + 20], y_train[i:i + 20]
        optimizer.zero_grad()
        output = model(data)
        loss = F.nll_loss(output, target)
        loss.backward()
        optimizer.step()
    print(f"Train Epoch: {epoch} Loss: {loss.item():.6f}")

model.eval()
with torch.no_grad():
    output = model(x_train)
    test_loss = F.nll_loss(output, y_train, reduction="sum").item() / 60
    pred = output.max(1, keepdim=True)[1]
    correct = pred.eq(y_train.view_as(pred)).sum().item()
print(f"Test set: Average loss: {test_loss:.4f}, Accuracy: {correct}/60 ({100.0 * correct / 60:.0f}%)")
