"""Module plumbing that checkpoint converters and fine-tuning libraries lean on: a module with
extra state (get_extra_state / set_extra_state, saved in state_dict under `_extra_state`),
set_submodule / get_submodule / get_parameter / get_buffer, named_parameters(prefix=,
remove_duplicate=False) with tied weights, named_modules(remove_duplicate=False),
load_state_dict(strict=False) results and assign=True, skip_init, a parametrization with
unsafe=True that changes the shape, nn.init helpers (_calculate_fan_in_and_fan_out,
calculate_gain, orthogonal_ with a generator), and the errors of each. (torch.utils.swap_tensors
and torch.__future__'s swap flag: programs_gaps.md 74.)"""
import io

import torch
import torch.nn as nn
import torch.nn.utils.parametrize as P


class Vocab(nn.Module):
    """Keeps a Python-side vocabulary in the checkpoint through extra state."""

    def __init__(self, words):
        super().__init__()
        self.words = list(words)
        self.emb = nn.Embedding(len(words), 4)

    def get_extra_state(self):
        return {"words": self.words, "version": 2}

    def set_extra_state(self, state):
        self.words = list(state["words"])
        self.loaded_version = state["version"]


class Model(nn.Module):
    def __init__(self):
        super().__init__()
        self.vocab = Vocab(["<pad>", "a", "b", "c", "d"])
        self.body = nn.Sequential(nn.Linear(4, 8), nn.ReLU(), nn.Linear(8, 5))
        self.body[2].weight = nn.Parameter(torch.empty(5, 8))
        self.register_buffer("steps", torch.zeros((), dtype=torch.long))
        self.tied = self.body[0]  # the same module under two names

    def forward(self, idx):
        return self.body(self.vocab.emb(idx))


torch.manual_seed(0)
m = Model()
sd = m.state_dict()
print(list(sd))
print(sd["vocab._extra_state"])
print([n for n, _ in m.named_parameters()])
print([n for n, _ in m.named_parameters(prefix="model", remove_duplicate=False)])
print([n for n, _ in m.named_modules(remove_duplicate=False)])
print([n for n, _ in m.named_buffers(prefix="m")])
print(m.get_submodule("body.2"), m.get_parameter("body.0.bias").shape,
      m.get_buffer("steps"))
for bad in ["body.9", "body.0.nothing", "vocab.words"]:
    try:
        m.get_parameter(bad)
    except AttributeError as e:
        print("AttributeError:", e)
try:
    m.get_buffer("body.0.weight")
except AttributeError as e:
    print("AttributeError:", e)

# round trip through torch.save: extra state restored into a fresh model
buf = io.BytesIO()
torch.save(sd, buf)
buf.seek(0)
m2 = Model()
m2.vocab.words = []
res = m2.load_state_dict(torch.load(buf, weights_only=False))
print(res, m2.vocab.words, m2.vocab.loaded_version)
x = torch.tensor([[1, 2, 3], [4, 0, 1]])
print(torch.equal(m(x), m2(x)))

# strict=False reports; assign=True keeps the loaded tensors themselves
partial = {k: v for k, v in sd.items() if not k.startswith("body.2")}
partial["head.weight"] = torch.zeros(1)
res = m2.load_state_dict(partial, strict=False)
print(sorted(res.missing_keys), res.unexpected_keys)
try:
    m2.load_state_dict(partial)
except RuntimeError as e:
    print("RuntimeError:", str(e).splitlines()[0])
fresh = {k: v.clone() for k, v in sd.items() if k != "vocab._extra_state"}
m3 = Model()
m3.load_state_dict(fresh, strict=False, assign=True)
print(m3.body[0].weight is fresh["body.0.weight"], type(m3.body[0].weight).__name__,
      m3.body[0].weight.requires_grad)
m4 = Model()
m4.load_state_dict(fresh, strict=False)
print(m4.body[0].weight is fresh["body.0.weight"], torch.equal(m4.body[0].weight,
                                                                fresh["body.0.weight"]))
try:
    m4.load_state_dict({"body.0.weight": torch.zeros(3, 3)}, strict=False)
except RuntimeError as e:
    print("RuntimeError:", str(e).splitlines()[1].strip())

# set_submodule replaces a layer in place (what LoRA / quantization wrappers do)
m.set_submodule("body.1", nn.GELU())
print(m.body)
try:
    m.set_submodule("body.7.x", nn.Identity())
except AttributeError as e:
    print("AttributeError:", e)

# skip_init, init helpers
lin = torch.nn.utils.skip_init(nn.Linear, 6, 3)
print(type(lin).__name__, lin.weight.shape)
w = torch.empty(4, 3, 5, 5)
print(nn.init._calculate_fan_in_and_fan_out(w))
print([round(nn.init.calculate_gain(n, p), 6) for n, p in
       [("relu", None), ("leaky_relu", 0.2), ("tanh", None), ("selu", None), ("linear", None),
        ("conv2d", None), ("sigmoid", None)]])
g = torch.Generator().manual_seed(3)
q = nn.init.orthogonal_(torch.empty(3, 5), generator=g)
print(torch.allclose(q @ q.T, torch.eye(3), atol=1e-6))
try:
    nn.init.calculate_gain("swish")
except ValueError as e:
    print("ValueError:", e)
try:
    nn.init._calculate_fan_in_and_fan_out(torch.empty(3))
except ValueError as e:
    print("ValueError:", e)


# a parametrization that changes the shape needs unsafe=True
class LowRank(nn.Module):
    def __init__(self, rank):
        super().__init__()
        self.rank = rank

    def forward(self, w):
        return w[:, :self.rank] @ w[:, :self.rank].T


layer = nn.Linear(4, 4)
try:
    P.register_parametrization(layer, "weight", LowRank(2))
except ValueError as e:
    print("ValueError:", str(e).splitlines()[0])
layer2 = nn.Linear(6, 3)
P.register_parametrization(layer2, "weight", LowRank(2), unsafe=True)
print(layer2.weight.shape, P.is_parametrized(layer2, "weight"),
      layer2.parametrizations.weight.original.shape)
print(layer2)

# .double() keeps the Parameter objects (param.data replaced in place)
lin3 = nn.Linear(2, 2)
w_before = lin3.weight
lin3.double()
print(lin3.weight is w_before, lin3.weight.dtype)
