"""Module and tensor hooks as interpretability / debugging code uses them: forward pre-hooks that
rewrite inputs (with_kwargs=True), forward hooks replacing outputs, always_call, full backward
hooks and backward pre-hooks (gradient clipping / inspection per layer), the global
register_module_forward_hook, tensor hooks on intermediate activations, post-accumulate-grad
hooks, state_dict pre / post hooks, and handle removal."""
from collections import OrderedDict

import torch
import torch.nn as nn
import torch.nn.modules.module as module_mod

torch.manual_seed(5)


class Block(nn.Module):
    def __init__(self, d):
        super().__init__()
        self.lin = nn.Linear(d, d)
        self.act = nn.Tanh()

    def forward(self, x, scale=1.0):
        return self.act(self.lin(x)) * scale


class Net(nn.Module):
    def __init__(self):
        super().__init__()
        self.b1 = Block(4)
        self.b2 = Block(4)
        self.out = nn.Linear(4, 1)

    def forward(self, x):
        return self.out(self.b2(self.b1(x), scale=2.0))


net = Net()
x = torch.randn(3, 4)
log = []


def pre_hook(mod, args, kwargs):
    log.append(("pre", type(mod).__name__, sorted(kwargs)))
    if "scale" in kwargs:
        kwargs = dict(kwargs, scale=kwargs["scale"] * 0.5)
    return args, kwargs


def fwd_hook(mod, args, kwargs, output):
    log.append(("fwd", type(mod).__name__, tuple(output.shape)))
    return output + 0.0


h1 = net.b2.register_forward_pre_hook(pre_hook, with_kwargs=True)
h2 = net.b2.register_forward_hook(fwd_hook, with_kwargs=True)
y_hooked = net(x)
h1.remove()
h2.remove()
y_plain = net(x)
print("log:", log)
print("pre-hook halved scale:", torch.allclose(y_hooked - net.out.bias, (y_plain - net.out.bias) * 0.5, atol=1e-6))

# a forward hook that returns a replacement output, and a prepended one
order = []
net.b1.register_forward_hook(lambda m, i, o: order.append("second"))
net.b1.register_forward_hook(lambda m, i, o: order.append("first"), prepend=True)
h_zero = net.b1.act.register_forward_hook(lambda m, i, o: torch.zeros_like(o))
print("zeroed b1 output feeds b2:", torch.allclose(net(x), net.out(net.b2(torch.zeros(3, 4), scale=2.0))))
h_zero.remove()
print("hook order:", order[:2])
net.b1._forward_hooks.clear()

# full backward hooks: grad_input / grad_output of a module, and a pre-hook that rescales
grads = OrderedDict()


def bwd_hook(mod, grad_input, grad_output):
    grads[type(mod).__name__ + str(len(grads))] = (
        [None if g is None else tuple(g.shape) for g in grad_input], [tuple(g.shape) for g in grad_output])


def bwd_pre_hook(mod, grad_output):
    return (grad_output[0] * 10.0,)


hb = net.b1.register_full_backward_hook(bwd_hook)
hp = net.out.register_full_backward_pre_hook(bwd_pre_hook)
xr = x.clone().requires_grad_()
net(xr).sum().backward()
g_scaled = xr.grad.clone()
print("backward hook saw:", dict(grads))
hb.remove()
hp.remove()
xr.grad = None
net.zero_grad()
net(xr).sum().backward()
print("pre-hook scaled input grad by 10:", torch.allclose(g_scaled, xr.grad * 10, rtol=1e-5))

# inputs without grad: grad_input entries are None
seen = []
h = net.b1.register_full_backward_hook(lambda m, gi, go: seen.append(gi[0] is None))
net(x).sum().backward()
h.remove()
print("grad_input None for a leaf without grad:", seen)

# global hooks (every module)
calls = []
g = module_mod.register_module_forward_hook(lambda m, i, o: calls.append(type(m).__name__))
net(x)
g.remove()
print("global forward hook calls:", calls)
gp = module_mod.register_module_forward_pre_hook(lambda m, i: calls.append("pre:" + type(m).__name__))
calls.clear()
net.out(x)
gp.remove()
print("global pre hook:", calls)

# tensor hooks on activations (feature attribution style)
acts, act_grads = {}, {}


def save_act(name):
    def hook(mod, inp, out):
        acts[name] = out
        out.register_hook(lambda g: act_grads.__setitem__(name, g))
    return hook


handles = [net.b1.register_forward_hook(save_act("b1")), net.b2.register_forward_hook(save_act("b2"))]
net.zero_grad()
out = net(x)
out[0].sum().backward()
for hd in handles:
    hd.remove()
print("activation grads:", {k: (tuple(v.shape), int((v != 0).any(dim=1).sum())) for k, v in act_grads.items()})
saliency = (acts["b1"] * act_grads["b1"]).sum(1)
print("grad*act nonzero rows:", (saliency != 0).tolist())

# post-accumulate-grad hooks: an optimizer step per parameter
lr = 0.1
n_calls = [0]


def step_hook(p):
    n_calls[0] += 1
    with torch.no_grad():
        p.add_(p.grad, alpha=-lr)
    p.grad = None


w_before = net.out.weight.detach().clone()
hs = [p.register_post_accumulate_grad_hook(step_hook) for p in net.parameters()]
net(x).pow(2).mean().backward()
print("post-accumulate hooks ran:", n_calls[0], "grads cleared:", all(p.grad is None for p in net.parameters()))
print("weight moved:", not torch.equal(w_before, net.out.weight))
for hd in hs:
    hd.remove()

# state_dict hooks
def sd_post_hook(module, state_dict, prefix, local_metadata):
    state_dict[prefix + "extra_step"] = torch.tensor(3)


def load_pre_hook(state_dict, prefix, local_metadata, strict, missing_keys, unexpected_keys, error_msgs):
    state_dict.pop(prefix + "extra_step", None)


net._register_state_dict_hook(sd_post_hook)
net._register_load_state_dict_pre_hook(load_pre_hook)
sd = net.state_dict()
print("state_dict keys:", list(sd.keys()))
print("load:", net.load_state_dict(sd))
post = net.register_load_state_dict_post_hook(lambda m, keys: print("post hook keys:", keys))
net.load_state_dict(sd)
post.remove()
print("hooks left on b2:", len(net.b2._forward_pre_hooks), len(net.b2._forward_hooks))
print(h1, type(h1).__name__, h1.id >= 0)
