"""The 'optimizer step in backward' recipe (register_post_accumulate_grad_hook, one optimizer per
parameter, gradients freed as soon as they are used), checked against an ordinary step; plus the
Optimizer hook API (register_step_pre_hook / post_hook, state_dict hooks), zero_grad(set_to_none),
maximize=True, per-parameter-group options and add_param_group."""
import torch
import torch.nn as nn
import torch.nn.functional as F

torch.manual_seed(0)
X = torch.rand(32, 6) * 2 - 1
Y = (X @ torch.arange(1.0, 7.0).unsqueeze(1)).tanh()


def make():
    torch.manual_seed(1)
    return nn.Sequential(nn.Linear(6, 12), nn.SiLU(), nn.Linear(12, 1))


reference = make()
ref_opt = torch.optim.SGD(reference.parameters(), lr=0.1, momentum=0.9, nesterov=True)
model = make()
optimizer_dict = {p: torch.optim.SGD([p], lr=0.1, momentum=0.9, nesterov=True) for p in model.parameters()}
calls = []


def optimizer_hook(parameter):
    calls.append(tuple(parameter.shape))
    optimizer_dict[parameter].step()
    optimizer_dict[parameter].zero_grad()


handles = [p.register_post_accumulate_grad_hook(optimizer_hook) for p in model.parameters()]
for step in range(5):
    ref_loss = F.mse_loss(reference(X), Y)
    ref_opt.zero_grad()
    ref_loss.backward()
    ref_opt.step()
    calls.clear()
    loss = F.mse_loss(model(X), Y)
    loss.backward()
    print(f"step {step} loss {loss.item():.6f} ref {ref_loss.item():.6f} hook order {calls}")
print("grads freed:", [p.grad for p in model.parameters()])
print("same weights:", all(torch.equal(a, b) for a, b in zip(model.parameters(), reference.parameters())))
for h in handles:
    h.remove()
loss = F.mse_loss(model(X), Y)
loss.backward()
print("after remove, grads kept:", all(p.grad is not None for p in model.parameters()))

# Optimizer hooks
opt = torch.optim.Adam(model.parameters(), lr=1e-2)
log = []
pre = opt.register_step_pre_hook(lambda o, args, kwargs: log.append(("pre", len(o.param_groups))))
post = opt.register_step_post_hook(lambda o, args, kwargs: log.append(("post", o.state[o.param_groups[0]["params"][0]]["step"].item())))
opt.step()
opt.step()
pre.remove()
opt.step()
print(log)
post.remove()


def sd_post(optimizer, state_dict):
    state_dict["note"] = "added by hook"
    return state_dict


opt.register_state_dict_post_hook(sd_post)
sd = opt.state_dict()
print(sd["note"], sorted(sd["state"][0]), sd["state"][0]["step"])
opt.register_load_state_dict_pre_hook(lambda o, s: print("loading state with", len(s["state"]), "entries"))
opt.load_state_dict(sd)

# zero_grad variants
opt.zero_grad(set_to_none=False)
print("zeroed", [float(p.grad.abs().sum()) for p in model.parameters()])
opt.zero_grad()
print("set to None", [p.grad for p in model.parameters()])

# maximize: gradient ascent on -loss equals descent on loss
a, b = make(), make()
oa = torch.optim.SGD(a.parameters(), lr=0.05, maximize=True)
ob = torch.optim.SGD(b.parameters(), lr=0.05)
for _ in range(3):
    oa.zero_grad()
    (-F.mse_loss(a(X), Y)).backward()
    oa.step()
    ob.zero_grad()
    F.mse_loss(b(X), Y).backward()
    ob.step()
print("maximize matches:", all(torch.allclose(p, q) for p, q in zip(a.parameters(), b.parameters())))

# parameter groups: no weight decay on biases, a second group added later
net = make()
decay = [p for n, p in net.named_parameters() if n.endswith("weight")]
no_decay = [p for n, p in net.named_parameters() if n.endswith("bias")]
opt = torch.optim.AdamW([{"params": decay, "weight_decay": 0.1}, {"params": no_decay, "weight_decay": 0.0}], lr=3e-3)
head = nn.Linear(1, 1)
opt.add_param_group({"params": head.parameters(), "lr": 1e-4})
print([(len(g["params"]), g["lr"], g["weight_decay"]) for g in opt.param_groups])
for step in range(3):
    opt.zero_grad()
    loss = F.mse_loss(head(net(X)), Y)
    loss.backward()
    opt.step()
    print(f"groups step {step} loss {loss.item():.6f}")
try:
    opt.add_param_group({"params": decay})
except ValueError as e:
    print("ValueError:", e)
print(opt)
