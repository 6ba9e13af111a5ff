"""LoRA fine-tuning as peft / minLoRA-style repositories write it: a pretrained MLP whose Linear
layers are wrapped (and later registered as parametrizations) with low-rank A / B factors, the base
frozen with requires_grad_(False), trainable-parameter accounting, a state_dict holding only the
LoRA weights, load_state_dict(strict=False) and its missing / unexpected keys, and merging the
update back into the weights for inference."""
import math

import torch
import torch.nn as nn
import torch.nn.functional as F
import torch.nn.utils.parametrize as parametrize

torch.manual_seed(7)


class LoRALinear(nn.Module):
    def __init__(self, base: nn.Linear, r=4, alpha=8, dropout=0.0):
        super().__init__()
        self.base = base
        self.r = r
        self.scaling = alpha / r
        self.lora_A = nn.Parameter(torch.empty(r, base.in_features))
        self.lora_B = nn.Parameter(torch.zeros(base.out_features, r))
        self.lora_dropout = nn.Dropout(dropout) if dropout > 0 else nn.Identity()
        nn.init.kaiming_uniform_(self.lora_A, a=math.sqrt(5))
        self.merged = False

    def forward(self, x):
        out = self.base(x)
        if not self.merged:
            out = out + (self.lora_dropout(x) @ self.lora_A.T @ self.lora_B.T) * self.scaling
        return out

    @torch.no_grad()
    def merge(self):
        if not self.merged:
            self.base.weight += (self.lora_B @ self.lora_A) * self.scaling
            self.merged = True

    def extra_repr(self):
        return f"r={self.r}, scaling={self.scaling}"


def inject_lora(model, target=("fc1", "fc2"), **kw):
    for name, module in model.named_children():
        if isinstance(module, nn.Linear) and name in target:
            setattr(model, name, LoRALinear(module, **kw))
        else:
            inject_lora(module, target, **kw)
    return model


def mark_only_lora_as_trainable(model):
    for n, p in model.named_parameters():
        p.requires_grad_("lora_" in n)


def lora_state_dict(model):
    return {k: v for k, v in model.state_dict().items() if "lora_" in k}


def count(model):
    trainable = sum(p.numel() for p in model.parameters() if p.requires_grad)
    total = sum(p.numel() for p in model.parameters())
    return trainable, total


class MLP(nn.Module):
    def __init__(self):
        super().__init__()
        self.fc1 = nn.Linear(10, 64)
        self.fc2 = nn.Linear(64, 64)
        self.head = nn.Linear(64, 3)

    def forward(self, x):
        return self.head(F.gelu(self.fc2(F.gelu(self.fc1(x)))))


# "pretraining" on task A
X = torch.randn(256, 10)
ya = (X[:, 0] > 0).long() + (X[:, 1] > 0).long()
model = MLP()
opt = torch.optim.AdamW(model.parameters(), lr=1e-2)
for _ in range(60):
    opt.zero_grad()
    F.cross_entropy(model(X), ya).backward()
    opt.step()
with torch.no_grad():
    print("task A accuracy: %.3f" % (model(X).argmax(1) == ya).float().mean())

# fine-tune on task B with LoRA
yb = (X[:, 2] + X[:, 3] > 0).long() * 2
base_snapshot = {k: v.clone() for k, v in model.state_dict().items()}
inject_lora(model, r=4, alpha=8)
mark_only_lora_as_trainable(model)
model.head.weight.requires_grad_(True)
model.head.bias.requires_grad_(True)
print(model)
trainable, total = count(model)
print(f"trainable params: {trainable} || all params: {total} || trainable%: {100 * trainable / total:.4f}")
print("trainable names:", [n for n, p in model.named_parameters() if p.requires_grad])
opt = torch.optim.AdamW(filter(lambda p: p.requires_grad, model.parameters()), lr=5e-3, weight_decay=0.0)
for step in range(80):
    opt.zero_grad()
    loss = F.cross_entropy(model(X), yb)
    loss.backward()
    opt.step()
    if step % 20 == 0:
        print(f"step {step} loss {loss.item():.4f}")
with torch.no_grad():
    acc_b = (model(X).argmax(1) == yb).float().mean().item()
print("task B accuracy: %.3f" % acc_b)
unchanged = all(torch.equal(model.state_dict()[k.replace("fc1.", "fc1.base.").replace("fc2.", "fc2.base.")], v)
                for k, v in base_snapshot.items() if not k.startswith("head"))
print("frozen base unchanged:", unchanged)
print("base grads are None:", model.fc1.base.weight.grad is None)

sd = lora_state_dict(model)
print("lora state_dict:", {k: tuple(v.shape) for k, v in sd.items()})
fresh = inject_lora(MLP(), r=4, alpha=8)
result = fresh.load_state_dict(sd, strict=False)
print("missing keys:", len(result.missing_keys), result.missing_keys[:2])
print("unexpected keys:", result.unexpected_keys)
print(repr(fresh.load_state_dict({**fresh.state_dict(), "bogus": torch.zeros(1)}, strict=False)))

with torch.no_grad():
    before = model(X)
    for m in model.modules():
        if isinstance(m, LoRALinear):
            m.merge()
    after = model(X)
print("merged matches:", torch.allclose(before, after, atol=1e-5), "max diff < 1e-5:", (before - after).abs().max().item() < 1e-5)


# the parametrization form (minLoRA): the weight itself becomes W + B A
class LoRAParametrization(nn.Module):
    def __init__(self, fan_in, fan_out, rank=2, alpha=2):
        super().__init__()
        self.lora_A = nn.Parameter(torch.zeros(rank, fan_in))
        self.lora_B = nn.Parameter(torch.zeros(fan_out, rank))
        nn.init.kaiming_uniform_(self.lora_A, a=math.sqrt(5))
        self.scale = alpha / rank

    def forward(self, W):
        return W + torch.matmul(self.lora_B, self.lora_A).view(W.shape) * self.scale


lin = nn.Linear(5, 3)
w0 = lin.weight.detach().clone()
parametrize.register_parametrization(lin, "weight", LoRAParametrization(5, 3))
print(lin)
print("parametrized:", parametrize.is_parametrized(lin), parametrize.is_parametrized(lin, "weight"))
print("names:", [n for n, _ in lin.named_parameters()])
with torch.no_grad():
    lin.parametrizations.weight[0].lora_B.fill_(0.1)
print("weight delta:", (lin.weight - w0).abs().sum().item() > 0)
with parametrize.cached():
    a = lin.weight
    b = lin.weight
print("cached same object:", a is b)
parametrize.remove_parametrizations(lin, "weight", leave_parametrized=True)
print("after removal:", [n for n, _ in lin.named_parameters()], type(lin.weight).__name__)
