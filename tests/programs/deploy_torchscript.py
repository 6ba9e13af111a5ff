"""The deployment recipes: a small CNN put in inference mode, exported with torch.jit.trace and
torch.jit.script (a scripted function with control flow, a scripted module with an if on the
input), saved with torch.jit.save and loaded back with torch.jit.load, outputs compared with
eager; channels_last memory format for the model and input; torch.inference_mode and
backends flags that performance guides set."""
import io

import torch
import torch.nn as nn
import torch.nn.functional as F

torch.manual_seed(0)
torch.backends.cudnn.benchmark = True
torch.backends.cudnn.deterministic = False
torch.set_float32_matmul_precision("high")
print(torch.get_float32_matmul_precision(), torch.backends.cudnn.benchmark)


class Net(nn.Module):
    def __init__(self):
        super().__init__()
        self.conv = nn.Conv2d(3, 8, 3, padding=1)
        self.bn = nn.BatchNorm2d(8)
        self.fc = nn.Linear(8, 4)

    def forward(self, x):
        x = F.relu(self.bn(self.conv(x)))
        x = F.adaptive_avg_pool2d(x, 1).flatten(1)
        return self.fc(x)


model = Net().eval()
example = torch.randn(2, 3, 16, 16)
with torch.inference_mode():
    eager = model(example)
print(eager.shape, eager.requires_grad, eager.is_inference())

model_cl = model.to(memory_format=torch.channels_last)
x_cl = example.to(memory_format=torch.channels_last)
print(x_cl.is_contiguous(), x_cl.is_contiguous(memory_format=torch.channels_last), x_cl.stride())
print(model_cl.conv.weight.is_contiguous(memory_format=torch.channels_last))
with torch.no_grad():
    print(torch.allclose(model_cl(x_cl), eager, atol=1e-5))

traced = torch.jit.trace(model, example)
with torch.no_grad():
    print(torch.allclose(traced(example), eager, atol=1e-6))
print(type(traced).__name__, traced.training)


@torch.jit.script
def clipped_relu(x: torch.Tensor, limit: float = 6.0) -> torch.Tensor:
    if bool(x.max() > limit):
        return x.clamp(0.0, limit)
    return F.relu(x)


print(clipped_relu(torch.tensor([-1.0, 3.0, 9.0])), clipped_relu(torch.tensor([-1.0, 3.0])))


class Gate(nn.Module):
    def __init__(self):
        super().__init__()
        self.lin = nn.Linear(4, 4)

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        if x.sum() > 0:
            return self.lin(x)
        return -x


scripted = torch.jit.script(Gate())
print(scripted(torch.ones(1, 4)).shape, scripted(-torch.ones(1, 4)))

buf = io.BytesIO()
torch.jit.save(traced, buf)
buf.seek(0)
loaded = torch.jit.load(buf)
with torch.no_grad():
    print(torch.allclose(loaded(example), eager, atol=1e-6))
print(sorted(k for k, _ in loaded.named_parameters())[:3])
