"""MobileNetV2-style inverted residuals (depthwise Conv2d with groups, ReLU6, BatchNorm2d, a linear
bottleneck), _make_divisible width rounding, then deployment steps: Conv-BN fusion for inference with
torch.nn.utils.fusion.fuse_conv_bn_eval (and a hand-written fold), channels_last, inference_mode,
and a parameter / FLOP count by forward hooks."""
import copy

import torch
import torch.nn as nn
import torch.nn.functional as F
from torch.nn.utils.fusion import fuse_conv_bn_eval, fuse_conv_bn_weights

torch.manual_seed(11)


def _make_divisible(v, divisor, min_value=None):
    if min_value is None:
        min_value = divisor
    new_v = max(min_value, int(v + divisor / 2) // divisor * divisor)
    if new_v < 0.9 * v:
        new_v += divisor
    return new_v


class ConvBNReLU(nn.Sequential):
    def __init__(self, in_planes, out_planes, kernel_size=3, stride=1, groups=1):
        padding = (kernel_size - 1) // 2
        super().__init__(
            nn.Conv2d(in_planes, out_planes, kernel_size, stride, padding, groups=groups, bias=False),
            nn.BatchNorm2d(out_planes),
            nn.ReLU6(inplace=True),
        )


class InvertedResidual(nn.Module):
    def __init__(self, inp, oup, stride, expand_ratio):
        super().__init__()
        hidden_dim = int(round(inp * expand_ratio))
        self.use_res_connect = stride == 1 and inp == oup
        layers = []
        if expand_ratio != 1:
            layers.append(ConvBNReLU(inp, hidden_dim, kernel_size=1))
        layers.extend([
            ConvBNReLU(hidden_dim, hidden_dim, stride=stride, groups=hidden_dim),
            nn.Conv2d(hidden_dim, oup, 1, 1, 0, bias=False),
            nn.BatchNorm2d(oup),
        ])
        self.conv = nn.Sequential(*layers)

    def forward(self, x):
        if self.use_res_connect:
            return x + self.conv(x)
        return self.conv(x)


class MobileNetV2(nn.Module):
    def __init__(self, num_classes=4, width_mult=0.5):
        super().__init__()
        setting = [[1, 16, 1, 1], [6, 24, 2, 2], [6, 32, 2, 2]]
        input_channel = _make_divisible(32 * width_mult, 8)
        self.last_channel = _make_divisible(128 * max(1.0, width_mult), 8)
        features = [ConvBNReLU(3, input_channel, stride=2)]
        for t, c, n, s in setting:
            output_channel = _make_divisible(c * width_mult, 8)
            for i in range(n):
                features.append(InvertedResidual(input_channel, output_channel, s if i == 0 else 1, t))
                input_channel = output_channel
        features.append(ConvBNReLU(input_channel, self.last_channel, kernel_size=1))
        self.features = nn.Sequential(*features)
        self.classifier = nn.Sequential(nn.Dropout(0.2), nn.Linear(self.last_channel, num_classes))
        for m in self.modules():
            if isinstance(m, nn.Conv2d):
                nn.init.kaiming_normal_(m.weight, mode="fan_out")
            elif isinstance(m, nn.BatchNorm2d):
                nn.init.ones_(m.weight)
                nn.init.zeros_(m.bias)
            elif isinstance(m, nn.Linear):
                nn.init.normal_(m.weight, 0, 0.01)
                nn.init.zeros_(m.bias)

    def forward(self, x):
        x = self.features(x)
        x = nn.functional.adaptive_avg_pool2d(x, 1).reshape(x.shape[0], -1)
        return self.classifier(x)


print("divisible:", [_make_divisible(v, 8) for v in (3, 12.5, 16, 31.9, 100)])
model = MobileNetV2()
print(model.features[2])
x = torch.randn(8, 3, 32, 32)
y = torch.randint(0, 4, (8,))
opt = torch.optim.SGD(model.parameters(), lr=0.05, momentum=0.9, weight_decay=4e-5)
for step in range(3):
    opt.zero_grad()
    loss = F.cross_entropy(model(x), y, label_smoothing=0.1)
    loss.backward()
    opt.step()
    print(f"step {step} loss {loss.item():.5f}")

# count multiply-adds of the convs with forward hooks
macs = {}


def conv_hook(mod, inp, out):
    k = mod.kernel_size[0] * mod.kernel_size[1] * (mod.in_channels // mod.groups)
    macs[mod] = out.numel() // out.shape[0] * k


handles = [m.register_forward_hook(conv_hook) for m in model.modules() if isinstance(m, nn.Conv2d)]
model.eval()
with torch.inference_mode():
    ref = model(x)
for h in handles:
    h.remove()
print("conv MACs per image:", sum(macs.values()), "convs:", len(macs))
print("inference tensor:", ref.is_inference(), ref.requires_grad)


def fuse_model(m):
    m = copy.deepcopy(m)
    for module in m.modules():
        if isinstance(module, nn.Sequential):
            children = list(module.named_children())
            for (n1, c1), (n2, c2) in zip(children, children[1:]):
                if isinstance(c1, nn.Conv2d) and isinstance(c2, nn.BatchNorm2d):
                    setattr(module, n1, fuse_conv_bn_eval(c1, c2))
                    setattr(module, n2, nn.Identity())
    return m


fused = fuse_model(model)
n_bn = sum(isinstance(m, nn.BatchNorm2d) for m in fused.modules())
print("batchnorms left:", n_bn, "fused conv has bias:", fused.features[0][0].bias is not None)
with torch.no_grad():
    out = fused(x)
print("fused matches:", torch.allclose(out, ref, atol=1e-4), "max err < 1e-4:", (out - ref).abs().max().item() < 1e-4)
conv, bn = model.features[1].conv[0][0], model.features[1].conv[0][1]
w, b = fuse_conv_bn_weights(conv.weight, conv.bias, bn.running_mean, bn.running_var, bn.eps, bn.weight, bn.bias)
print("fused weight:", type(w).__name__, tuple(w.shape), w.requires_grad, tuple(b.shape))
# the same fold by hand
std = (bn.running_var + bn.eps).sqrt()
w_manual = conv.weight * (bn.weight / std).reshape(-1, 1, 1, 1)
b_manual = bn.bias - bn.running_mean * bn.weight / std
print("manual fold matches:", torch.allclose(w, w_manual), torch.allclose(b, b_manual))

cl = fused.to(memory_format=torch.channels_last)
xc = x.to(memory_format=torch.channels_last)
print("channels_last input:", xc.is_contiguous(memory_format=torch.channels_last), xc.stride())
with torch.no_grad():
    out_cl = cl(xc)
print("channels_last matches:", torch.allclose(out_cl, out, atol=1e-5))
print("top-1:", out.argmax(1).tolist())
