"""The pruning tutorial (torch.nn.utils.prune) on a LeNet: random / L1 unstructured and Ln
structured pruning, the weight_orig / weight_mask reparametrization and its forward pre-hook,
iterative pruning (PruningContainer), global_unstructured, prune.remove, and a custom method."""
import torch
import torch.nn as nn
import torch.nn.functional as F
import torch.nn.utils.prune as prune


class LeNet(nn.Module):
    def __init__(self):
        super().__init__()
        self.conv1 = nn.Conv2d(1, 6, 3)
        self.conv2 = nn.Conv2d(6, 16, 3)
        self.fc1 = nn.Linear(16 * 5 * 5, 120)
        self.fc2 = nn.Linear(120, 84)
        self.fc3 = nn.Linear(84, 10)

    def forward(self, x):
        x = F.max_pool2d(F.relu(self.conv1(x)), (2, 2))
        x = F.max_pool2d(F.relu(self.conv2(x)), 2)
        x = x.view(-1, int(x.nelement() / x.shape[0]))
        x = F.relu(self.fc1(x))
        x = F.relu(self.fc2(x))
        return self.fc3(x)


torch.manual_seed(0)
model = LeNet()
module = model.conv1
print(list(module.named_parameters())[0][0], list(module.named_buffers()))

prune.random_unstructured(module, name="weight", amount=0.3)
print([n for n, _ in module.named_parameters()])
print([n for n, _ in module.named_buffers()])
print("mask zeros:", int((module.weight_mask == 0).sum()), "of", module.weight_mask.numel())
print("weight is weight_orig * mask:", torch.equal(module.weight, module.weight_orig * module.weight_mask))
print(list(module._forward_pre_hooks.values()))  # (the keys are process-wide hook ids)

prune.l1_unstructured(module, name="bias", amount=3)
print("bias mask:", module.bias_mask)

# iterative pruning: structured pruning on top of the unstructured mask
prune.ln_structured(module, name="weight", amount=0.5, n=2, dim=0)
print("channels kept:", (module.weight.flatten(1).abs().sum(1) != 0).tolist())
for hook in module._forward_pre_hooks.values():
    if hook._tensor_name == "weight":
        break
print(type(hook).__name__, list(hook))
print("is_pruned:", prune.is_pruned(model), prune.is_pruned(model.fc1))

# pruning in a loop over modules, then the state_dict
new_model = LeNet()
for _name, m in new_model.named_modules():
    if isinstance(m, torch.nn.Conv2d):
        prune.l1_unstructured(m, name="weight", amount=0.2)
    elif isinstance(m, torch.nn.Linear):
        prune.l1_unstructured(m, name="weight", amount=0.4)
print(dict(new_model.named_buffers()).keys())
print(list(new_model.state_dict().keys()))

# global pruning
model = LeNet()
parameters_to_prune = (
    (model.conv1, "weight"), (model.conv2, "weight"),
    (model.fc1, "weight"), (model.fc2, "weight"), (model.fc3, "weight"),
)
prune.global_unstructured(parameters_to_prune, pruning_method=prune.L1Unstructured, amount=0.2)
for mod, name in parameters_to_prune:
    w = getattr(mod, name)
    print(f"Sparsity in {type(mod).__name__}: {100.0 * float(torch.sum(w == 0)) / float(w.nelement()):.2f}%")
total_zero = sum(float(torch.sum(getattr(m, n) == 0)) for m, n in parameters_to_prune)
total = sum(float(getattr(m, n).nelement()) for m, n in parameters_to_prune)
print(f"Global sparsity: {100.0 * total_zero / total:.2f}%")

# training with a pruned model: the pruned weights get no gradient through the mask
x = torch.randn(4, 1, 28, 28)
opt = torch.optim.SGD(model.parameters(), lr=0.01)
loss = F.cross_entropy(model(x), torch.tensor([1, 2, 3, 4]))
loss.backward()
g = model.fc3.weight_orig.grad
print("grad zero where masked:", bool((g[model.fc3.weight_mask == 0] == 0).all()))
opt.step()
print("masked weights still zero:", bool((model.fc3.weight[model.fc3.weight_mask == 0] == 0).all()))

prune.remove(model.conv1, "weight")
print([n for n, _ in model.conv1.named_parameters()], list(model.conv1.named_buffers()))
print(model.conv1._forward_pre_hooks)


class FooBarPruningMethod(prune.BasePruningMethod):
    """Prune every other entry in a tensor."""
    PRUNING_TYPE = "unstructured"

    def compute_mask(self, t, default_mask):
        mask = default_mask.clone()
        mask.view(-1)[::2] = 0
        return mask


def foobar_unstructured(module, name):
    FooBarPruningMethod.apply(module, name)
    return module


model = LeNet()
foobar_unstructured(model.fc3, name="bias")
print(model.fc3.bias_mask)
print(model.fc3.bias)
