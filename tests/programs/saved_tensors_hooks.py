"""PyTorch's "Hooks for autograd saved tensors" tutorial (intermediate_source/
autograd_saved_tensors_hooks_tutorial.py) and the autograd graph API around it: the _saved_*
attributes of grad_fn nodes (what is the input, what is the result, what is a copy), pack /
unpack hooks printing what they see, per-tensor hooks on _raw_saved_*, save_on_cpu, saving
tensors to disk with self-deleting temp files, hooks that leak or fail, Node.register_hook /
register_prehook, register_multi_grad_hook, walking next_functions, and
disable_saved_tensors_hooks."""
import os
import tempfile
import uuid

import torch
import torch.nn as nn

torch.manual_seed(0)

# ---- what gets saved
a = torch.randn(5, requires_grad=True)
b = torch.ones(5, requires_grad=True)
c = torch.ones(5, requires_grad=True)
d = a * b
e = d * c
e.sum().backward()
print(a.grad, b.grad)

x = torch.randn(5, requires_grad=True)
y = x.pow(2)
print(y.grad_fn._saved_self)
print(x.equal(y.grad_fn._saved_self))
print(x is y.grad_fn._saved_self)
print(y.grad_fn._saved_exponent)

y = x.exp()
print(y.grad_fn._saved_result.equal(y))
print(y.grad_fn._saved_result is y)

y = x.sin()
print(type(y.grad_fn._raw_saved_self).__name__)
z = x * torch.randn(5)
print(z.grad_fn._saved_self, z.grad_fn._saved_other.shape)
m = torch.randn(3, 5).mm(x.view(5, 1))
print(m.grad_fn.name(), m.grad_fn._saved_self_sym_sizes, m.grad_fn._saved_mat2_sym_strides)
s = x.sum(0, keepdim=True)
print(s.grad_fn._saved_dim, s.grad_fn._saved_keepdim, s.grad_fn._saved_self_sym_sizes)
v = x.view(1, 5).expand(3, 5)
print(v.grad_fn.name(), v.grad_fn._saved_self_sym_sizes)
cat = torch.cat([x, x], 0)
print(cat.grad_fn._saved_dim)
clamp = x.clamp(min=-0.5, max=0.5)
print(clamp.grad_fn._saved_min, clamp.grad_fn._saved_max)
sig = torch.sigmoid(x)
print(sig.grad_fn.name(), sig.grad_fn._saved_result.equal(sig), sig.grad_fn._saved_result is sig)
leaky = torch.nn.functional.leaky_relu(x, 0.2)
print(leaky.grad_fn.name(), leaky.grad_fn._saved_negative_slope)


# ---- registering hooks for saved tensors
def pack_hook(x):
    print("Packing", x)
    return x


def unpack_hook(x):
    print("Unpacking", x)
    return x


a = torch.ones(5, requires_grad=True)
b = torch.ones(5, requires_grad=True) * 2
y = a * b
y.grad_fn._raw_saved_self.register_hooks(pack_hook, unpack_hook)
y.grad_fn._raw_saved_other.register_hooks(pack_hook, unpack_hook)
print("-- before backward")
y.sum().backward()
print(a.grad)

x = torch.randn(5, requires_grad=True)
y = x.pow(2)
y.grad_fn._raw_saved_self.register_hooks(lambda x: 42, lambda x: torch.full((5,), x / 42.0))
print(y.grad_fn._saved_self)
try:
    y.grad_fn._raw_saved_self.register_hooks(pack_hook, unpack_hook)
except RuntimeError as err:
    print("RuntimeError:", err)

# ---- the same through the context manager
a = torch.ones(5, requires_grad=True)
b = torch.ones(5, requires_grad=True) * 2
with torch.autograd.graph.saved_tensors_hooks(pack_hook, unpack_hook):
    y = a * b
print("-- backward")
y.sum().backward()


def pack_shape(x):
    return x.shape, x.dtype, x.sum()


def unpack_shape(packed):
    shape, dtype, total = packed
    print("unpack", tuple(shape), dtype)
    return torch.full(shape, float(total) / shape.numel(), dtype=dtype)


x = torch.arange(4.0, requires_grad=True)
with torch.autograd.graph.saved_tensors_hooks(pack_shape, unpack_shape):
    y = (x * x).sum()
y.backward()
print("gradient from averaged saved tensors:", x.grad)

# ---- saving tensors to CPU (a no-op on a CPU tensor, still through the hooks)
model = nn.Sequential(nn.Linear(6, 6), nn.ReLU(), nn.Linear(6, 1))
inp = torch.randn(4, 6)
with torch.autograd.graph.save_on_cpu(pin_memory=False):
    loss = model(inp).pow(2).mean()
loss.backward()
grads_cpu = [p.grad.clone() for p in model.parameters()]
model.zero_grad()
model(inp).pow(2).mean().backward()
print("save_on_cpu gradients equal:",
      all(torch.equal(g, p.grad) for g, p in zip(grads_cpu, model.parameters())))

# ---- saving tensors to disk
tmp_dir_obj = tempfile.TemporaryDirectory()
tmp_dir = tmp_dir_obj.name


class SelfDeletingTempFile:
    def __init__(self):
        self.name = os.path.join(tmp_dir, str(uuid.uuid4()))

    def __del__(self):
        os.remove(self.name)


def pack_hook_disk(tensor):
    temp_file = SelfDeletingTempFile()
    torch.save(tensor, temp_file.name)
    return temp_file


def unpack_hook_disk(temp_file):
    return torch.load(temp_file.name, weights_only=True)


x = torch.randn(5, requires_grad=True)
with torch.autograd.graph.saved_tensors_hooks(pack_hook_disk, unpack_hook_disk):
    y = x.pow(2)
print(y.grad_fn._saved_self.equal(x))
print(len(os.listdir(tmp_dir)))
y.sum().backward()
print(torch.allclose(x.grad, 2 * x))
del y
print(len(os.listdir(tmp_dir)))


class SaveToDisk(torch.autograd.graph.saved_tensors_hooks):
    def __init__(self, min_numel=0):
        self.saved = 0

        def pack(tensor):
            if tensor.numel() < min_numel:
                return tensor
            self.saved += 1
            return pack_hook_disk(tensor)

        def unpack(packed):
            if isinstance(packed, torch.Tensor):
                return packed
            return unpack_hook_disk(packed)

        super().__init__(pack, unpack)


net = nn.Sequential(nn.Linear(10, 20), nn.Tanh(), nn.Linear(20, 1))
inp = torch.randn(3, 10)
hooks = SaveToDisk(min_numel=40)
with hooks:
    out = net(inp).sum()
print("tensors sent to disk:", hooks.saved, len(os.listdir(tmp_dir)))
out.backward()
print([tuple(p.grad.shape) for p in net.parameters()])
del out
print(len(os.listdir(tmp_dir)))

# ---- graph hooks
x = torch.randn(3, requires_grad=True)
w = torch.randn(3, requires_grad=True)
y = (x * w).exp().sum()
calls = []
y.grad_fn.register_prehook(lambda grad_outputs: calls.append(("pre", grad_outputs[0].shape)))
y.grad_fn.register_hook(lambda grad_inputs, grad_outputs: calls.append(
    ("post", len(grad_inputs), len(grad_outputs))))
mul_node = y.grad_fn.next_functions[0][0].next_functions[0][0]
print(mul_node.name(), [(type(fn).__name__, i) for fn, i in mul_node.next_functions])
mul_node.register_prehook(lambda g: (g[0] * 0.5,))
y.backward()
print(calls)
print(torch.allclose(x.grad, 0.5 * w * (x * w).exp()))


def show_graph(fn, depth=0):
    if fn is None:
        return
    print("  " * depth + fn.name() if hasattr(fn, "name") else type(fn).__name__)
    for nxt, _ in fn.next_functions:
        show_graph(nxt, depth + 1)


lin = nn.Linear(2, 2)
show_graph(torch.tanh(lin(torch.randn(1, 2))).mean().grad_fn)
acc = lin.weight.view_as(lin.weight).grad_fn.next_functions[0][0]
print(type(acc).__name__, acc.variable is lin.weight)

seen = []
t1 = torch.randn(2, requires_grad=True)
t2 = torch.randn(2, requires_grad=True)
handle = torch.autograd.graph.register_multi_grad_hook(
    (t1, t2), lambda grads: seen.append([g is not None for g in grads]))
(t1 * 2).sum().backward()
(t1 * t2).sum().backward()
handle.remove()
(t2 * 3).sum().backward()
print(seen)

# ---- disabling saved tensor hooks
try:
    with torch.autograd.graph.disable_saved_tensors_hooks("saved tensor hooks are off here"):
        with torch.autograd.graph.saved_tensors_hooks(pack_hook, unpack_hook):
            pass
except RuntimeError as err:
    print("RuntimeError:", err)
tmp_dir_obj.cleanup()
