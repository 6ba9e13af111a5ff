"""PyTorch's state_dict recipes (recipes_source/recipes: "What is a state_dict", "Saving and
loading a general checkpoint", "Saving and loading multiple models in one file", "Warmstarting
model using parameters from a different model", "Zeroing out gradients"), printing what they
print: whole optimizer and scheduler state_dicts (every default of each optimizer's param
groups, the per-parameter state after a step), _IncompatibleKeys of a non-strict load, the
state_dict's version metadata, checkpoints written and read back."""
import io
import os
import tempfile

import torch
import torch.nn as nn
import torch.nn.functional as F
import torch.optim as optim

torch.manual_seed(0)


class Net(nn.Module):
    def __init__(self):
        super(Net, self).__init__()
        self.conv1 = nn.Conv2d(3, 6, 5)
        self.pool = nn.MaxPool2d(2, 2)
        self.conv2 = nn.Conv2d(6, 16, 5)
        self.fc1 = nn.Linear(16 * 5 * 5, 120)
        self.fc2 = nn.Linear(120, 84)
        self.fc3 = nn.Linear(84, 10)

    def forward(self, x):
        x = self.pool(F.relu(self.conv1(x)))
        x = self.pool(F.relu(self.conv2(x)))
        x = x.view(-1, 16 * 5 * 5)
        x = F.relu(self.fc1(x))
        x = F.relu(self.fc2(x))
        x = self.fc3(x)
        return x


net = Net()
optimizer = optim.SGD(net.parameters(), lr=0.001, momentum=0.9)

print("Model's state_dict:")
for param_tensor in net.state_dict():
    print(param_tensor, "\t", net.state_dict()[param_tensor].size())

print()
print("Optimizer's state_dict:")
for var_name in optimizer.state_dict():
    print(var_name, "\t", optimizer.state_dict()[var_name])

sd = net.state_dict()
print(type(sd).__name__, sd._metadata)
print([type(v).__name__ for v in net.state_dict(keep_vars=True).values()][:2],
      net.state_dict(keep_vars=True)["fc3.bias"].requires_grad, sd["fc3.bias"].requires_grad)
bn = nn.Sequential(nn.Linear(3, 4), nn.BatchNorm1d(4), nn.LayerNorm(4))
print(bn.state_dict()._metadata)
print(list(bn.state_dict().keys()))
print(bn.state_dict()["1.num_batches_tracked"])

# every optimizer's param_groups defaults, as a checkpoint stores them
small = nn.Linear(2, 1)
makers = [
    lambda ps: optim.SGD(ps, lr=0.1),
    lambda ps: optim.SGD(ps, lr=0.1, momentum=0.9, nesterov=True, weight_decay=1e-4),
    lambda ps: optim.Adam(ps),
    lambda ps: optim.Adam(ps, lr=1e-3, amsgrad=True),
    lambda ps: optim.AdamW(ps, lr=1e-3),
    lambda ps: optim.Adamax(ps),
    lambda ps: optim.NAdam(ps),
    lambda ps: optim.RAdam(ps),
    lambda ps: optim.RMSprop(ps, lr=0.01),
    lambda ps: optim.RMSprop(ps, lr=0.01, momentum=0.9, centered=True),
    lambda ps: optim.Adagrad(ps),
    lambda ps: optim.Adadelta(ps),
    lambda ps: optim.ASGD(ps),
    lambda ps: optim.Rprop(ps),
]
for make in makers:
    opt = make(small.parameters())
    group = opt.state_dict()["param_groups"][0]
    print(type(opt).__name__, group)
    print("  defaults:", opt.defaults)

# the per-parameter state after one step of each
x = torch.randn(8, 2)
y = torch.randn(8, 1)
for make in makers:
    model = nn.Linear(2, 1)
    with torch.no_grad():
        model.weight.fill_(0.5)
        model.bias.fill_(-0.25)
    opt = make(model.parameters())
    opt.zero_grad()
    F.mse_loss(model(x), y).backward()
    opt.step()
    state = opt.state_dict()["state"]
    print(type(opt).__name__, sorted(state.keys()),
          {k: (v if not torch.is_tensor(v) or v.dim() == 0 else tuple(v.shape))
           for k, v in state.get(0, {}).items()})
    print("  weight after one step:", model.weight.data)

# Zeroing out gradients: set_to_none is the default
opt = optim.SGD(small.parameters(), lr=0.1)
small(torch.ones(1, 2)).sum().backward()
print(small.bias.grad)
opt.zero_grad()
print(small.bias.grad)
small(torch.ones(1, 2)).sum().backward()
opt.zero_grad(set_to_none=False)
print(small.bias.grad)

# schedulers' state_dicts
sched_opt = optim.SGD(small.parameters(), lr=0.1, momentum=0.9)
schedulers = [
    optim.lr_scheduler.StepLR(sched_opt, step_size=2, gamma=0.5),
    optim.lr_scheduler.MultiStepLR(sched_opt, milestones=[2, 4], gamma=0.1),
    optim.lr_scheduler.ExponentialLR(sched_opt, gamma=0.9),
    optim.lr_scheduler.CosineAnnealingLR(sched_opt, T_max=10),
    optim.lr_scheduler.LinearLR(sched_opt, start_factor=0.5, total_iters=4),
    optim.lr_scheduler.ConstantLR(sched_opt, factor=0.5, total_iters=2),
    optim.lr_scheduler.PolynomialLR(sched_opt, total_iters=5, power=2.0),
    optim.lr_scheduler.CosineAnnealingWarmRestarts(sched_opt, T_0=3, T_mult=2),
]
for sched in schedulers:
    for _ in range(3):
        sched_opt.step()
        sched.step()
    print(type(sched).__name__, sched.state_dict())
    print("  last lr:", sched.get_last_lr(), "group lr:", sched_opt.param_groups[0]["lr"])
print(sched_opt.param_groups[0].keys())

plateau = optim.lr_scheduler.ReduceLROnPlateau(sched_opt, mode="min", factor=0.5, patience=1)
for metric in [1.0, 0.9, 0.95, 0.97, 0.99]:
    plateau.step(metric)
print({k: v for k, v in plateau.state_dict().items() if k != "best"},
      round(plateau.state_dict()["best"], 4))

onecycle_opt = optim.SGD(small.parameters(), lr=0.1, momentum=0.9)
onecycle = optim.lr_scheduler.OneCycleLR(onecycle_opt, max_lr=1.0, total_steps=10)
for _ in range(4):
    onecycle_opt.step()
    onecycle.step()
print([(g["lr"], g["momentum"]) for g in onecycle_opt.param_groups])
print(sorted(onecycle.state_dict().keys()))
print(sorted(onecycle_opt.param_groups[0].keys()))

# Saving and loading a general checkpoint
tmp = tempfile.mkdtemp()
PATH = os.path.join(tmp, "model.pt")
EPOCH = 5
LOSS = 0.4
torch.save({
    "epoch": EPOCH,
    "model_state_dict": net.state_dict(),
    "optimizer_state_dict": optimizer.state_dict(),
    "loss": LOSS,
}, PATH)

model = Net()
optimizer = optim.SGD(model.parameters(), lr=0.001, momentum=0.9)
checkpoint = torch.load(PATH, weights_only=True)
print(model.load_state_dict(checkpoint["model_state_dict"]))
optimizer.load_state_dict(checkpoint["optimizer_state_dict"])
epoch = checkpoint["epoch"]
loss = checkpoint["loss"]
print(epoch, loss, sorted(checkpoint.keys()))
model.eval()
print(all(torch.equal(a, b) for a, b in zip(model.state_dict().values(),
                                           net.state_dict().values())))

# Saving and loading multiple models in one file
netA = Net()
netB = nn.Sequential(nn.Linear(10, 4), nn.ReLU(), nn.Linear(4, 2))
optimizerA = optim.SGD(netA.parameters(), lr=0.001, momentum=0.9)
optimizerB = optim.Adam(netB.parameters(), lr=0.001)
buffer = io.BytesIO()
torch.save({
    "modelA_state_dict": netA.state_dict(),
    "modelB_state_dict": netB.state_dict(),
    "optimizerA_state_dict": optimizerA.state_dict(),
    "optimizerB_state_dict": optimizerB.state_dict(),
}, buffer)
buffer.seek(0)
checkpoint = torch.load(buffer, map_location="cpu")
modelA = Net()
modelB = nn.Sequential(nn.Linear(10, 4), nn.ReLU(), nn.Linear(4, 2))
print(modelA.load_state_dict(checkpoint["modelA_state_dict"]),
      modelB.load_state_dict(checkpoint["modelB_state_dict"]))
print(checkpoint["optimizerB_state_dict"]["param_groups"][0]["params"],
      checkpoint["optimizerA_state_dict"]["param_groups"][0]["params"])

# Warmstarting model using parameters from a different model
netB2 = Net()
netB2.fc3 = nn.Linear(84, 4)
try:
    netB2.load_state_dict(netA.state_dict(), strict=False)  # strict=False does not skip shapes
except RuntimeError as e:
    print(e)
partial = {k: v for k, v in netA.state_dict().items() if not k.startswith("fc3")}
result = netB2.load_state_dict(partial, strict=False)
print(result)
print(result.missing_keys, result.unexpected_keys, type(result).__name__, len(result))
try:
    netB2.load_state_dict(partial)
except RuntimeError as e:
    print(e)
extra = dict(netA.state_dict(), **{"head.weight": torch.zeros(1)})
print(Net().load_state_dict(extra, strict=False))
