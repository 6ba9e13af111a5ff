"""Weight EMA and mixed float64 / float32 code as training repositories write them: timm's
ModelEmaV2 (deepcopy, eval, requires_grad_(False), `ema_v.copy_(update_fn(ema_v, model_v))` over
state_dict().values() under torch.no_grad) and ModelEmaV3-style decay warmup with lerp_ /
_foreach ops, the EMA of a BatchNorm model's buffers (num_batches_tracked is int64), a float64
'reference' head on a float32 backbone, type promotion with Python scalars, 0-dim tensors
and numpy float64 values, torch.set_default_dtype switched and restored, .type_as / .to(other),
float64 accumulators for float32 losses, and integer / float division results."""
from copy import deepcopy

import numpy as np
import torch
import torch.nn as nn
import torch.nn.functional as F


class ModelEmaV2(nn.Module):
    def __init__(self, model, decay=0.9999, device=None):
        super(ModelEmaV2, self).__init__()
        # make a copy of the model for accumulating moving average of weights
        self.module = deepcopy(model)
        self.module.eval()
        self.decay = decay
        self.device = device  # perform ema on different device from model if set
        if self.device is not None:
            self.module.to(device=device)

    def _update(self, model, update_fn):
        with torch.no_grad():
            for ema_v, model_v in zip(self.module.state_dict().values(), model.state_dict().values()):
                if self.device is not None:
                    model_v = model_v.to(device=self.device)
                ema_v.copy_(update_fn(ema_v, model_v))

    def update(self, model):
        self._update(model, update_fn=lambda e, m: self.decay * e + (1. - self.decay) * m)

    def set(self, model):
        self._update(model, update_fn=lambda e, m: m)

    def forward(self, *args, **kwargs):
        return self.module(*args, **kwargs)


class ModelEmaV3(nn.Module):
    def __init__(self, model, decay=0.9999, min_decay=0.0, use_warmup=False, warmup_gamma=1.0,
                 warmup_power=2 / 3, foreach=True, exclude_buffers=False):
        super().__init__()
        self.module = deepcopy(model)
        self.module.eval()
        for p in self.module.parameters():
            p.requires_grad_(False)
        self.decay = decay
        self.min_decay = min_decay
        self.use_warmup = use_warmup
        self.warmup_gamma = warmup_gamma
        self.warmup_power = warmup_power
        self.foreach = foreach
        self.exclude_buffers = exclude_buffers

    def get_decay(self, step=None):
        if step is None:
            return self.decay
        step = max(0, step - 1)
        if step <= 0:
            return 0.0
        if self.use_warmup:
            decay = 1 - (1 + step / self.warmup_gamma) ** -self.warmup_power
            decay = max(min(decay, self.decay), self.min_decay)
        else:
            decay = self.decay
        return decay

    @torch.no_grad()
    def update(self, model, step=None):
        decay = self.get_decay(step)
        if self.exclude_buffers:
            self.apply_update_no_buffers_(model, decay)
        else:
            self.apply_update_(model, decay)

    def apply_update_(self, model, decay):
        if self.foreach:
            ema_lerp_values = []
            model_lerp_values = []
            for ema_v, model_v in zip(self.module.state_dict().values(), model.state_dict().values()):
                if ema_v.is_floating_point():
                    ema_lerp_values.append(ema_v)
                    model_lerp_values.append(model_v)
                else:
                    ema_v.copy_(model_v)
            if hasattr(torch, '_foreach_lerp_'):
                torch._foreach_lerp_(ema_lerp_values, model_lerp_values, weight=1. - decay)
            else:
                torch._foreach_mul_(ema_lerp_values, scalar=decay)
                torch._foreach_add_(ema_lerp_values, model_lerp_values, alpha=1. - decay)
        else:
            for ema_v, model_v in zip(self.module.state_dict().values(), model.state_dict().values()):
                if ema_v.is_floating_point():
                    ema_v.lerp_(model_v.to(device=ema_v.device), weight=1. - decay)
                else:
                    ema_v.copy_(model_v.to(device=ema_v.device))

    def apply_update_no_buffers_(self, model, decay):
        ema_params = tuple(self.module.parameters())
        model_params = tuple(model.parameters())
        torch._foreach_lerp_(ema_params, model_params, weight=1. - decay)
        for ema_b, model_b in zip(self.module.buffers(), model.buffers()):
            ema_b.copy_(model_b.to(device=ema_b.device))

    def forward(self, *args, **kwargs):
        return self.module(*args, **kwargs)


torch.manual_seed(0)
net = nn.Sequential(nn.Linear(6, 16), nn.BatchNorm1d(16), nn.ReLU(), nn.Linear(16, 2))
ema = ModelEmaV2(net, decay=0.9)
ema3 = ModelEmaV3(net, decay=0.99, use_warmup=True, warmup_power=3 / 4)
ema3_loop = ModelEmaV3(net, decay=0.99, use_warmup=True, warmup_power=3 / 4, foreach=False)
print(ema.module.training, next(ema3.module.parameters()).requires_grad, next(ema.module.parameters()).requires_grad)
print([round(ema3.get_decay(s), 6) for s in (0, 1, 2, 10, 100, 10000)])

opt = torch.optim.SGD(net.parameters(), lr=0.1, momentum=0.9)
X = torch.randn(64, 6)
Y = torch.stack([X[:, 0] * X[:, 1], X[:, 2].sin()], 1)
for step in range(1, 31):
    idx = torch.arange(step * 8, step * 8 + 16) % 64
    loss = F.mse_loss(net(X[idx]), Y[idx])
    opt.zero_grad()
    loss.backward()
    opt.step()
    ema.update(net)
    ema3.update(net, step=step)
    ema3_loop.update(net, step=step)

sd, sd_ema = net.state_dict(), ema.module.state_dict()
print([(k, v.dtype) for k, v in sd_ema.items() if not v.is_floating_point()])
print(sd["1.num_batches_tracked"], sd_ema["1.num_batches_tracked"], ema3.module.state_dict()["1.num_batches_tracked"])
print("foreach == loop:", all(torch.allclose(a, b, atol=1e-7) for a, b in zip(
    ema3.module.state_dict().values(), ema3_loop.module.state_dict().values())))
print("ema differs from model:", not torch.allclose(sd["0.weight"], sd_ema["0.weight"]))
net.eval()
with torch.no_grad():
    print(f"model mse {F.mse_loss(net(X), Y).item():.4f}, ema mse {F.mse_loss(ema(X), Y).item():.4f}, "
          f"ema3 mse {F.mse_loss(ema3(X), Y).item():.4f}")
ema.set(net)
print("after set:", all(torch.equal(a, b) for a, b in zip(net.state_dict().values(), ema.module.state_dict().values())))

# --- mixed float64 / float32
x32 = torch.tensor([1.5, 2.25, -3.0])
x64 = torch.tensor([0.1, 0.2, 0.3], dtype=torch.float64)
print((x32 + x64).dtype, (x32 * 2).dtype, (x32 * np.float64(2.0)).dtype, (x32 + torch.tensor(1.0, dtype=torch.float64)).dtype)
print((torch.arange(3) / 2).dtype, (torch.arange(3) // 2).dtype, (torch.arange(3) * 1.5).dtype, torch.arange(3).float().mean().dtype)
print(torch.result_type(x32, 1.0), torch.result_type(torch.arange(2), 2.5), torch.promote_types(torch.int32, torch.float32))
print(torch.can_cast(torch.float64, torch.float32), torch.can_cast(torch.float32, torch.int32), torch.can_cast(torch.int64, torch.float16))
print(x32.type_as(x64), x64.to(x32).dtype, x32.new_tensor([1, 2]).dtype, x64.new_zeros(2).dtype)
print(torch.tensor(np.array([1.0, 2.0])).dtype, torch.from_numpy(np.arange(3, dtype=np.float32)).double())
print(torch.tensor([np.float32(1.5), 2.0]).dtype if False else torch.tensor(np.float64(2.5)).dtype)

backbone = nn.Linear(4, 3)
head64 = nn.Linear(3, 1).double()
inp = torch.randn(5, 4)
feat = backbone(inp)
try:
    head64(feat)
except RuntimeError as e:
    print("RuntimeError:", e)
out = head64(feat.double())
print(out.dtype, out.grad_fn.name())
out.sum().backward()
print(backbone.weight.grad.dtype, head64.weight.grad.dtype, backbone.weight.grad.shape)

total = torch.zeros((), dtype=torch.float64)
for chunk in torch.randn(4, 1000).unbind(0):
    total += chunk.pow(2).sum()
print(total.dtype, f"{(total / 4000).item():.6f}")

old = torch.get_default_dtype()
torch.set_default_dtype(torch.float64)
print(torch.tensor([1.0]).dtype, torch.randn(2).dtype, torch.zeros(2, dtype=torch.float32).dtype, nn.Linear(2, 2).weight.dtype)
print((torch.arange(3) / 2).dtype, torch.tensor(1).dtype, torch.tensor(True).dtype, torch.ones(2).sum().dtype)
torch.set_default_dtype(old)
print(torch.get_default_dtype(), torch.tensor([1.0]).dtype)
print(torch.finfo(torch.float32).eps, torch.finfo(torch.float64).eps, torch.finfo(torch.float16).max, torch.finfo().tiny)
print(torch.iinfo(torch.int64).max, torch.iinfo(torch.uint8), torch.finfo(torch.bfloat16))
print(torch.tensor(0.1, dtype=torch.float64).item(), torch.tensor(0.1).item(), float(torch.tensor(1 / 3)))
print(torch.tensor([1e-8, 1.0]).double(), torch.tensor([1.0, 2.0], dtype=torch.float64) / 3)
