"""Deferred initialization on the 'meta' device (the large-model loading pattern of HF
accelerate's init_empty_weights and torch's own docs): modules built under
`with torch.device("meta")` hold shape-only tensors, shapes propagate through a forward on
meta tensors, to_empty() materializes storage, reset_parameters() / a state_dict load with
assign=True fill it, and the torch.func ensembling tutorial's stateless base model on meta."""
import copy

import torch
import torch.nn as nn
from torch.func import functional_call, stack_module_state, vmap

with torch.device("meta"):
    model = nn.Sequential(nn.Linear(16, 32), nn.ReLU(), nn.Linear(32, 4))
w = model[0].weight
print(w.device, w.is_meta, w.shape, w.dtype, w.requires_grad)
print(model[0].weight)
out = model(torch.empty(8, 16, device="meta"))
print("meta forward:", out.shape, out.device)
t = torch.empty(3, 4, device="meta")
print((t @ t.T).shape, t.sum(0).shape, t.to(torch.float64).dtype)
try:
    t.tolist()
except Exception as e:  # noqa: BLE001 - printed as PyTorch raises it
    print(type(e).__name__, str(e).split("\n")[0])

torch.manual_seed(0)
model.to_empty(device="cpu")
print("after to_empty:", model[0].weight.device, model[0].weight.is_meta)
for m in model.modules():
    if hasattr(m, "reset_parameters"):
        m.reset_parameters()
print(model[0].bias[:4])
reference = nn.Sequential(nn.Linear(16, 32), nn.ReLU(), nn.Linear(32, 4))
with torch.device("meta"):
    fresh = nn.Sequential(nn.Linear(16, 32), nn.ReLU(), nn.Linear(32, 4))
fresh.load_state_dict(reference.state_dict(), assign=True)
print("assigned:", fresh[2].weight.device, torch.equal(fresh[2].weight, reference[2].weight))
x = torch.randn(2, 16)
print(fresh(x))

# the ensembling tutorial's base model
models = [nn.Linear(5, 3) for _ in range(4)]
params, buffers = stack_module_state(models)
base = copy.deepcopy(models[0]).to("meta")
preds = vmap(lambda p, b, x: functional_call(base, (p, b), (x,)), in_dims=(0, 0, None))(params, buffers, torch.ones(2, 5))
print(preds.shape, torch.allclose(preds[1], models[1](torch.ones(2, 5))))
