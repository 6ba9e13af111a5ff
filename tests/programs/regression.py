"""Linear regression with nn.MSELoss, SGD with momentum and a StepLR schedule."""
import torch
import torch.nn as nn
from torch.optim.lr_scheduler import StepLR

torch.manual_seed(42)
true_w = torch.tensor([[2.0], [-3.4]])
true_b = 4.2
X = torch.randn(200, 2)
y = X @ true_w + true_b + 0.01 * torch.randn(200, 1)

model = nn.Linear(2, 1)
criterion = nn.MSELoss()
optimizer = torch.optim.SGD(model.parameters(), lr=0.05, momentum=0.9)
scheduler = StepLR(optimizer, step_size=10, gamma=0.5)

losses = []
for epoch in range(30):
    for i in range(0, 200, 20):
        xb, yb = X[i:i + 20], y[i:i + 20]
        optimizer.zero_grad()
        loss = criterion(model(xb), yb)
        loss.backward()
        optimizer.step()
    scheduler.step()
    losses.append(loss.item())
    if epoch % 5 == 0:
        print(f"epoch {epoch:3d} loss {loss.item():.6f} lr {scheduler.get_last_lr()[0]:.4f}")

print("loss decreased:", losses[-1] < losses[0])
w, b = model.weight.data, model.bias.data
print("weight", w.shape, "bias", b.shape)
print(f"w close: {torch.allclose(w, true_w.T, atol=0.05)}, b close: {abs(b.item() - true_b) < 0.05}")
print(optimizer)
print(scheduler.state_dict())
print([g["lr"] for g in optimizer.param_groups])
with torch.no_grad():
    pred = model(torch.tensor([[1.0, 1.0]]))
print(f"prediction for [1, 1]: {pred.item():.1f}")
print(list(model.state_dict().keys()))
