"""Time-series forecasting: a noisy seasonal series, min-max scaling, sliding windows, an LSTM forecaster, MAE/RMSE and a recursive forecast."""
import math

import numpy as np
import torch
import torch.nn as nn
from torch.utils.data import DataLoader, Dataset

torch.manual_seed(0)
np.random.seed(0)

t = np.arange(400, dtype=np.float32)
series = 10 + 0.02 * t + 2 * np.sin(2 * np.pi * t / 25) + np.random.normal(0, 0.3, size=t.shape).astype(np.float32)
series = torch.from_numpy(series)
print(series.dtype, series.shape, f"{series.mean():.3f}", f"{series.std():.3f}")
print("first differences:", torch.diff(series[:6]).round(decimals=2))

split = 320
train_raw, test_raw = series[:split], series[split:]
lo, hi = train_raw.min(), train_raw.max()


def scale(x):
    return (x - lo) / (hi - lo)


def unscale(x):
    return x * (hi - lo) + lo


class WindowDataset(Dataset):
    def __init__(self, data, window, horizon=1):
        self.data, self.window, self.horizon = data, window, horizon

    def __len__(self):
        return len(self.data) - self.window - self.horizon + 1

    def __getitem__(self, i):
        x = self.data[i:i + self.window].unsqueeze(-1)
        y = self.data[i + self.window:i + self.window + self.horizon]
        return x, y


window = 30
train_ds = WindowDataset(scale(train_raw), window)
test_ds = WindowDataset(scale(series[split - window:]), window)
print(len(train_ds), len(test_ds))
x0, y0 = train_ds[0]
print(x0.shape, y0.shape, torch.equal(y0, scale(train_raw)[window:window + 1]))
windows = torch.stack([scale(train_raw)[i:i + window] for i in range(len(train_ds))])
print(windows.shape, torch.allclose(windows[5], train_ds[5][0].squeeze(-1)))


class Forecaster(nn.Module):
    def __init__(self, hidden=32, layers=1):
        super().__init__()
        self.lstm = nn.LSTM(1, hidden, num_layers=layers, batch_first=True)
        self.fc = nn.Linear(hidden, 1)

    def forward(self, x):
        out, (h, c) = self.lstm(x)
        return self.fc(out[:, -1, :])


model = Forecaster()
print(model)
loader = DataLoader(train_ds, batch_size=32, shuffle=True)
optimizer = torch.optim.Adam(model.parameters(), lr=1e-2)
scheduler = torch.optim.lr_scheduler.MultiStepLR(optimizer, milestones=[10, 15], gamma=0.3)
loss_fn = nn.MSELoss()
for epoch in range(1, 21):
    model.train()
    running = 0.0
    for xb, yb in loader:
        optimizer.zero_grad()
        loss = loss_fn(model(xb), yb)
        loss.backward()
        optimizer.step()
        running += loss.item() * len(xb)
    scheduler.step()
    if epoch % 5 == 0:
        print(f"epoch {epoch:2d} | train mse {running / len(train_ds):.6f} | lr {scheduler.get_last_lr()[0]:.4f}")

model.eval()
with torch.no_grad():
    xs = torch.stack([test_ds[i][0] for i in range(len(test_ds))])
    ys = torch.stack([test_ds[i][1] for i in range(len(test_ds))])
    pred = unscale(model(xs)).squeeze(-1)
    true = unscale(ys).squeeze(-1)
mae = (pred - true).abs().mean().item()
rmse = math.sqrt(((pred - true) ** 2).mean().item())
naive = (true[1:] - true[:-1]).abs().mean().item()
print(f"MAE below 1.0: {mae < 1.0}, RMSE below 1.2: {rmse < 1.2}")
print("beats the naive forecast:", mae < naive * 1.5)

# recursive multi-step forecast from the last training window
with torch.no_grad():
    context = scale(train_raw[-window:]).clone()
    steps = []
    for _ in range(10):
        nxt = model(context.view(1, window, 1)).view(1)
        steps.append(nxt)
        context = torch.cat([context[1:], nxt])
    forecast = unscale(torch.cat(steps))
print(forecast.shape, forecast.dtype, bool(torch.isfinite(forecast).all()))
print("forecast near the truth:", (forecast - test_raw[:10]).abs().max().item() < 3.0)
np_pred = pred.numpy()
print(type(np_pred).__name__, np_pred.dtype, np_pred.shape)
print(torch.from_numpy(np.array([1.5, 2.5])).dtype, torch.as_tensor(np.arange(3)).dtype)
print(torch.tensor(np.float32(2.5)), torch.tensor(np.array(3, dtype=np.int64)))
