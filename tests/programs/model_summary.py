"""A torchsummary-style model summary built from forward hooks (the pattern of pytorch-summary
and torchinfo): per-layer output shapes and parameter counts through module.apply and
register_forward_hook, pre-hooks with kwargs, a global module hook, buffers and state_dict keys,
get_submodule / get_parameter, and a whole-model torch.save / torch.load round trip."""
# ruff: noqa: UP030, UP031, UP032 - pytorch-summary's own formatting, kept as it is written
import io
from collections import OrderedDict

import torch
import torch.nn as nn


class ConvBlock(nn.Module):
    def __init__(self, cin, cout):
        super().__init__()
        self.conv = nn.Conv2d(cin, cout, 3, padding=1, bias=False)
        self.bn = nn.BatchNorm2d(cout)
        self.act = nn.ReLU(inplace=True)

    def forward(self, x):
        return self.act(self.bn(self.conv(x)))


class SmallNet(nn.Module):
    def __init__(self, num_classes=10):
        super().__init__()
        self.features = nn.Sequential(OrderedDict([
            ("block1", ConvBlock(3, 8)),
            ("pool1", nn.MaxPool2d(2)),
            ("block2", ConvBlock(8, 16)),
            ("pool2", nn.AdaptiveAvgPool2d((2, 2))),
        ]))
        self.classifier = nn.Sequential(nn.Flatten(), nn.Dropout(0.2), nn.Linear(64, num_classes))
        self.register_buffer("scale", torch.tensor(1.0))
        self.temperature = nn.Parameter(torch.ones(1))

    def forward(self, x):
        return self.classifier(self.features(x) * self.scale) / self.temperature


def summary(model, input_size, batch_size=-1):
    result = OrderedDict()
    hooks = []

    def register_hook(module):
        def hook(module, input, output):
            class_name = str(module.__class__).split(".")[-1].split("'")[0]
            module_idx = len(result)
            m_key = "%s-%i" % (class_name, module_idx + 1)
            result[m_key] = OrderedDict()
            result[m_key]["input_shape"] = [batch_size] + list(input[0].size())[1:]
            result[m_key]["output_shape"] = [batch_size] + list(output.size())[1:]
            params = 0
            if hasattr(module, "weight") and hasattr(module.weight, "size"):
                params += torch.prod(torch.LongTensor(list(module.weight.size())))
                result[m_key]["trainable"] = module.weight.requires_grad
            if hasattr(module, "bias") and hasattr(module.bias, "size"):
                params += torch.prod(torch.LongTensor(list(module.bias.size())))
            result[m_key]["nb_params"] = params

        if not isinstance(module, nn.Sequential) and not isinstance(module, nn.ModuleList) and module is not model:
            hooks.append(module.register_forward_hook(hook))

    model.apply(register_hook)
    x = torch.rand(2, *input_size)
    model(x)
    for h in hooks:
        h.remove()
    print("----------------------------------------------------------------")
    print("{:>20}  {:>25} {:>15}".format("Layer (type)", "Output Shape", "Param #"))
    print("================================================================")
    total_params = 0
    total_output = 0
    trainable_params = 0
    for layer in result:
        line_new = "{:>20}  {:>25} {:>15}".format(
            layer, str(result[layer]["output_shape"]), "{0:,}".format(int(result[layer]["nb_params"])))
        total_params += result[layer]["nb_params"]
        total_output += torch.prod(torch.tensor(result[layer]["output_shape"][1:])).item()
        if result[layer].get("trainable", False):
            trainable_params += result[layer]["nb_params"]
        print(line_new)
    print("================================================================")
    print("Total params: {0:,}".format(int(total_params)))
    print("Trainable params: {0:,}".format(int(trainable_params)))
    print("Non-trainable params: {0:,}".format(int(total_params - trainable_params)))
    print("Forward/backward pass size (MB): %0.2f" % abs(2.0 * total_output * 4.0 / (1024 ** 2.0)))
    print("----------------------------------------------------------------")
    return total_params


torch.manual_seed(0)
model = SmallNet()
print(model)
total = summary(model, (3, 16, 16))
print(type(total).__name__, total.dtype, total)
print("parameters():", sum(p.numel() for p in model.parameters()))
print("buffers:", [(n, tuple(b.shape), b.dtype) for n, b in model.named_buffers()])
print("state_dict keys:", len(model.state_dict()), list(model.state_dict())[:6])
print("modules:", [n for n, _ in model.named_modules()])
print("children:", [n for n, _ in model.named_children()])
print(model.get_submodule("features.block2.bn"))
print(model.get_parameter("classifier.2.bias").shape, model.get_buffer("features.block1.bn.running_var")[:3])
try:
    model.get_submodule("features.block3")
except AttributeError as e:
    print("AttributeError:", e)

# pre-hooks that rewrite the input, hooks with kwargs, and a global hook
def double_input(module, args):
    return (args[0] * 2,)


def log_kwargs(module, args, kwargs, output):
    print("  kwargs hook:", type(module).__name__, sorted(kwargs), tuple(output.shape))


calls = []
handle = nn.modules.module.register_module_forward_hook(lambda m, i, o: calls.append(type(m).__name__))
pre = model.classifier[2].register_forward_pre_hook(double_input)
kw = model.classifier.register_forward_hook(log_kwargs, with_kwargs=True)
model.eval()
with torch.no_grad():
    x = torch.randn(1, 3, 16, 16)
    a = model(x)
    pre.remove()
    b = model(x)
handle.remove()
kw.remove()
print("global hook saw:", calls[:6], len(calls))
print("pre-hook changed output:", not torch.allclose(a, b))

# extra_repr, parameter freezing and counting by module type
class Scale(nn.Module):
    def __init__(self, init):
        super().__init__()
        self.s = nn.Parameter(torch.full((1,), init))

    def extra_repr(self):
        return f"init={self.s.item():.2f}"

    def forward(self, x):
        return x * self.s


model.head = Scale(0.5)
for p in model.features.parameters():
    p.requires_grad_(False)
print(model.head)
counts = {}
for m in model.modules():
    n = sum(p.numel() for p in m.parameters(recurse=False))
    if n:
        counts[type(m).__name__] = counts.get(type(m).__name__, 0) + n
print(counts)
print("trainable:", sum(p.numel() for p in model.parameters() if p.requires_grad))

# whole-model pickling (weights_only=False) and a state_dict round trip through a buffer
buffer = io.BytesIO()
torch.save(model, buffer)
buffer.seek(0)
clone = torch.load(buffer, weights_only=False)
print(type(clone).__name__, clone.head, clone.features.block1.conv.weight.requires_grad)
with torch.no_grad():
    print("same output:", torch.equal(model(x), clone(x)))
sd_buf = io.BytesIO()
torch.save(model.state_dict(), sd_buf)
sd_buf.seek(0)
state = torch.load(sd_buf)
fresh = SmallNet()
missing, unexpected = fresh.load_state_dict(state, strict=False)
print("missing:", missing, "unexpected:", unexpected)
