"""Model-building idioms from GitHub code bases: nn.ModuleDict heads chosen by task name,
nn.ParameterList / nn.ParameterDict, Sequential built from an OrderedDict and sliced, modules
registered by add_module / register_module in loops, get_submodule, apply() initialisation,
an extra_repr, and the less common activations (CELU, Softsign, Tanhshrink, Hardshrink,
LogSigmoid, Softmax2d, ChannelShuffle). Prints reprs, parameter tables and outputs."""
from collections import OrderedDict

import torch
import torch.nn as nn
import torch.nn.functional as F

torch.manual_seed(0)


class ScaledResidual(nn.Module):
    def __init__(self, dim, scale=0.5):
        super().__init__()
        self.dim, self.scale = dim, scale
        self.proj = nn.Linear(dim, dim)
        self.gain = nn.Parameter(torch.ones(dim))

    def extra_repr(self):
        return f"dim={self.dim}, scale={self.scale}"

    def forward(self, x):
        return x + self.scale * self.gain * self.proj(x)


class MultiTask(nn.Module):
    def __init__(self):
        super().__init__()
        self.trunk = nn.Sequential(OrderedDict([
            ("fc1", nn.Linear(6, 12)),
            ("act1", nn.CELU(alpha=0.5)),
            ("res", ScaledResidual(12)),
            ("act2", nn.Softsign()),
        ]))
        self.heads = nn.ModuleDict({
            "cls": nn.Sequential(nn.Linear(12, 3), nn.LogSoftmax(dim=-1)),
            "reg": nn.Linear(12, 1),
        })
        self.heads["aux"] = nn.Sequential(nn.Linear(12, 4), nn.Tanhshrink())
        self.task_bias = nn.ParameterDict({"cls": nn.Parameter(torch.zeros(3)),
                                           "reg": nn.Parameter(torch.zeros(1))})
        self.mix = nn.ParameterList([nn.Parameter(torch.full((1,), 0.1 * i)) for i in range(3)])
        for i in range(2):
            self.add_module(f"adapter{i}", nn.Linear(12, 12, bias=False))
        self.register_module("shrink", nn.Hardshrink(lambd=0.3))
        self.register_buffer("calls", torch.zeros((), dtype=torch.long))

    def forward(self, x, task):
        self.calls += 1
        h = self.trunk(x)
        for i in range(2):
            h = h + self.mix[i] * getattr(self, f"adapter{i}")(h)
        h = self.shrink(h)
        out = self.heads[task](h)
        if task in self.task_bias:
            out = out + self.task_bias[task]
        return out


model = MultiTask()
print(model)
print("heads:", list(model.heads.keys()), "task_bias:", list(model.task_bias.keys()))
print(model.get_submodule("trunk.res.proj"))
print(model.trunk[1:3])
print(model.trunk[-1], len(model.trunk), "res" in model.heads, "aux" in model.heads)
print(model.mix)
print(model.task_bias)


def init_weights(m):
    if isinstance(m, nn.Linear):
        nn.init.xavier_uniform_(m.weight, gain=nn.init.calculate_gain("tanh"))
        if m.bias is not None:
            nn.init.constant_(m.bias, 0.01)


model.apply(init_weights)
print(f"{'name':32s} {'shape':>14s} {'numel':>6s} grad")
for name, p in model.named_parameters():
    print(f"{name:32s} {str(tuple(p.shape)):>14s} {p.numel():6d} {p.requires_grad}")
total = sum(p.numel() for p in model.parameters())
trainable = sum(p.numel() for p in model.parameters() if p.requires_grad)
print(f"Total params: {total:,} | trainable: {trainable:,}")
print("buffers:", [(n, b.item()) for n, b in model.named_buffers()])
print("children:", [n for n, _ in model.named_children()])
print("modules:", len(list(model.modules())), "state_dict keys:", len(model.state_dict()))

x = torch.randn(5, 6)
for task in ["cls", "reg", "aux"]:
    y = model(x, task)
    print(task, tuple(y.shape), y[0])
print("calls", model.calls)

# freeze the trunk, train only the heads
for p in model.trunk.parameters():
    p.requires_grad_(False)
opt = torch.optim.Adam(filter(lambda p: p.requires_grad, model.parameters()), lr=1e-2)
print("optimizer params:", sum(p.numel() for g in opt.param_groups for p in g["params"]))
target = torch.randint(0, 3, (5,))
for step in range(3):
    loss = F.nll_loss(model(x, "cls"), target) + model(x, "reg").pow(2).mean()
    opt.zero_grad()
    loss.backward()
    opt.step()
    print(f"step {step} loss {loss.item():.6f}", "trunk grad is None:", model.trunk.fc1.weight.grad is None)
del model.heads["aux"]
print("after del:", list(model.heads.keys()))
model.heads.update({"new": nn.Identity()})
print(model.heads)

# activations side by side
a = torch.linspace(-2, 2, 9)
for act in [nn.CELU(), nn.CELU(0.5), nn.Softsign(), nn.Tanhshrink(), nn.Hardshrink(), nn.Softshrink(0.5),
            nn.LogSigmoid(), nn.SELU(), nn.Mish(), nn.Hardsigmoid(), nn.Threshold(0.1, 20.0)]:
    print(f"{str(act):32s}", act(a))
img = torch.randn(1, 4, 2, 2)
print(nn.Softmax2d()(img).sum(1))
cs = nn.ChannelShuffle(2)
print(cs, cs(torch.arange(8.).view(1, 8, 1, 1)).flatten())
print(F.softsign(torch.tensor([3.0])), F.tanhshrink(torch.tensor([1.0])), F.celu(torch.tensor([-1.0]), alpha=2.0))
