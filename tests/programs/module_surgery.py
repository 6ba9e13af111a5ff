"""Model surgery as fine-tuning scripts do it: a backbone from children(), replaced heads, frozen
layers, non-persistent buffers, strict=False loading, dtype moves, get_submodule, containers' reprs."""
import torch
import torch.nn as nn


class Backbone(nn.Module):
    def __init__(self):
        super().__init__()
        self.features = nn.Sequential(nn.Conv2d(3, 4, 3), nn.BatchNorm2d(4), nn.ReLU(), nn.AdaptiveAvgPool2d(1))
        self.fc = nn.Linear(4, 10)
        self.register_buffer("mean", torch.tensor([0.485, 0.456, 0.406]).view(1, 3, 1, 1), persistent=False)
        self.scale = nn.Parameter(torch.ones(1))

    def forward(self, x):
        return self.fc(torch.flatten(self.features(x - self.mean), 1)) * self.scale


def fill(model):
    with torch.no_grad():
        for i, p in enumerate(model.parameters()):
            p.copy_(torch.linspace(-0.5, 0.5, p.numel()).view_as(p) * (i + 1) / 4)


model = Backbone()
fill(model)
print(list(model.state_dict().keys()))
print([n for n, _ in model.named_buffers()], model.mean.shape)
feature_extractor = nn.Sequential(*list(model.children())[:-1])
print(feature_extractor)
x = torch.linspace(0, 1, 2 * 3 * 5 * 5).view(2, 3, 5, 5)
print(feature_extractor(x).shape)
model.fc = nn.Linear(model.fc.in_features, 3)
print(model.fc, model.get_submodule("features.1"))
for param in model.features.parameters():
    param.requires_grad = False
print([n for n, p in model.named_parameters() if p.requires_grad])
result = model.load_state_dict({"fc.weight": torch.zeros(3, 4), "extra": torch.ones(1)}, strict=False)
print(result.missing_keys, result.unexpected_keys)
print(result)
try:
    model.load_state_dict({"fc.weight": torch.zeros(2, 4)}, strict=False)
except RuntimeError as e:
    print("RuntimeError:", e)
model.requires_grad_(False)
print(any(p.requires_grad for p in model.parameters()))
model.double()
print(model.fc.weight.dtype, model.mean.dtype, model.features[1].num_batches_tracked.dtype)
model.to(torch.float32)
half = Backbone().half()
print(half.fc.bias.dtype, half.features[1].running_mean.dtype)
plist = nn.ParameterList([nn.Parameter(torch.zeros(2)), nn.Parameter(torch.ones(3, 1))])
pdict = nn.ParameterDict({"a": nn.Parameter(torch.zeros(1))})
mdict = nn.ModuleDict({"act": nn.ReLU(), "drop": nn.Dropout(0.3)})
print(plist)
print(pdict)
print(mdict)
print(nn.Parameter(torch.tensor([1.0, 2.0])))
print(model.features[1:3], len(model.features), model.features[-1])
del model.fc
print(hasattr(model, "fc"), [n for n, _ in model.named_children()])
seq = nn.Sequential(nn.Linear(2, 2))
seq.append(nn.Tanh())
seq.insert(0, nn.Identity())
seq.add_module("out", nn.Linear(2, 1))
print(seq, seq[1:])
print(sum(1 for _ in model.modules()), [n for n, _ in model.named_modules()][:4])
state = Backbone().state_dict()
print({k: v.dtype for k, v in state.items() if v.dtype != torch.float32})
print(model.training, model.features.training)
