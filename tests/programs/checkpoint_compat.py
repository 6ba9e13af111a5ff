"""Loading checkpoints that do not quite fit, as fine-tuning and porting scripts do: the
'module.' prefix of DataParallel checkpoints (stripped by hand and with
consume_prefix_in_state_dict_if_present), strict=False and its _IncompatibleKeys, the size
mismatch error, filtering a state_dict by shape, renaming keys in _load_from_state_dict with the
version in state_dict._metadata, keep_vars, non-persistent buffers, state_dict hooks,
parameters_to_vector / vector_to_parameters, fuse_conv_bn_eval, and copying weights between
differently named modules."""
import copy
from collections import OrderedDict

import torch
import torch.nn as nn
from torch.nn.modules.utils import consume_prefix_in_state_dict_if_present
from torch.nn.utils import parameters_to_vector, vector_to_parameters
from torch.nn.utils.fusion import fuse_conv_bn_eval

torch.manual_seed(0)


class Net(nn.Module):
    def __init__(self, classes=10):
        super().__init__()
        self.features = nn.Sequential(nn.Conv2d(3, 8, 3), nn.BatchNorm2d(8), nn.ReLU())
        self.pool = nn.AdaptiveAvgPool2d(1)
        self.fc = nn.Linear(8, classes)
        self.register_buffer("mean", torch.tensor([0.5, 0.5, 0.5]))
        self.register_buffer("cache", torch.zeros(1), persistent=False)

    def forward(self, x):
        x = (x - self.mean.view(1, 3, 1, 1))
        return self.fc(self.pool(self.features(x)).flatten(1))


net = Net()
sd = net.state_dict()
print(list(sd.keys()))
print(sd._metadata[""], sd._metadata["features.1"], "cache" in sd)

parallel_sd = OrderedDict(("module." + k, v) for k, v in sd.items())
fresh = Net()
try:
    fresh.load_state_dict(parallel_sd)
except RuntimeError as e:
    print(str(e).splitlines()[0])
    print(len(str(e).splitlines()))
stripped = OrderedDict((k.replace("module.", "", 1), v) for k, v in parallel_sd.items())
print(fresh.load_state_dict(stripped))
consume_prefix_in_state_dict_if_present(parallel_sd, "module.")
print(list(parallel_sd.keys())[:3])

head5 = Net(classes=5)
try:
    head5.load_state_dict(sd)
except RuntimeError as e:
    msg = str(e)
    print(msg.splitlines()[0])
    for line in msg.splitlines()[1:]:
        print(line.strip())
model_sd = head5.state_dict()
filtered = {k: v for k, v in sd.items() if k in model_sd and v.shape == model_sd[k].shape}
print(sorted(set(sd) - set(filtered)))
result = head5.load_state_dict(filtered, strict=False)
print(result)
print(result.missing_keys, result.unexpected_keys, type(result).__name__)
extra = dict(sd, **{"aux.weight": torch.ones(1)})
del extra["fc.bias"]
print(Net().load_state_dict(extra, strict=False))


class Renamed(nn.Module):
    _version = 2

    def __init__(self):
        super().__init__()
        self.proj = nn.Linear(4, 4)

    def _load_from_state_dict(self, state_dict, prefix, local_metadata, strict,
                              missing_keys, unexpected_keys, error_msgs):
        version = local_metadata.get("version", None)
        if version is None or version < 2:
            for name in ("weight", "bias"):
                old = prefix + "linear." + name
                if old in state_dict:
                    state_dict[prefix + "proj." + name] = state_dict.pop(old)
        super()._load_from_state_dict(state_dict, prefix, local_metadata, strict,
                                      missing_keys, unexpected_keys, error_msgs)


old_ckpt = OrderedDict([("linear.weight", torch.eye(4)), ("linear.bias", torch.zeros(4))])
r = Renamed()
print(r.load_state_dict(old_ckpt), torch.equal(r.proj.weight, torch.eye(4)))
print(r.state_dict()._metadata)
wrapper = nn.Sequential(OrderedDict([("block", Renamed())]))
print(wrapper.load_state_dict(OrderedDict([("block.linear.weight", torch.eye(4)), ("block.linear.bias", torch.ones(4))])))
print(wrapper.block.proj.bias)

kv = net.state_dict(keep_vars=True)
print(type(kv["fc.weight"]).__name__, kv["fc.weight"].requires_grad, type(sd["fc.weight"]).__name__, sd["fc.weight"].requires_grad)
prefixed = net.state_dict(prefix="backbone.")
print(list(prefixed)[:2])

calls = []
h = net.register_state_dict_pre_hook(lambda module, prefix, keep_vars: calls.append(prefix))
net.state_dict()
h.remove()
print(calls[:3])
post = net.register_load_state_dict_post_hook(lambda module, keys: calls.append(("post", len(keys.missing_keys))))
net.load_state_dict(sd)
post.remove()
print(calls[-1])

vec = parameters_to_vector(net.parameters())
print(vec.shape, vec.dtype)
vector_to_parameters(torch.zeros_like(vec), net.parameters())
print(net.fc.weight.abs().sum().item(), net.fc.weight.requires_grad)
net.load_state_dict(sd)

net.eval()
conv, bn = net.features[0], net.features[1]
with torch.no_grad():
    bn.running_mean.uniform_(-0.5, 0.5)
    bn.running_var.uniform_(0.5, 2.0)
fused = fuse_conv_bn_eval(copy.deepcopy(conv), copy.deepcopy(bn))
print(fused)
x = torch.randn(2, 3, 10, 10)
with torch.no_grad():
    print(torch.allclose(fused(x), bn(conv(x)), atol=1e-5))

other = nn.Sequential(nn.Conv2d(3, 8, 3), nn.BatchNorm2d(8), nn.ReLU(), nn.AdaptiveAvgPool2d(1), nn.Flatten(), nn.Linear(8, 10))
src = [v for k, v in sd.items() if k not in ("mean",)]
dst_keys = [k for k in other.state_dict()]
print(len(src), len(dst_keys))
other.load_state_dict(OrderedDict(zip(dst_keys, src)))
with torch.no_grad():
    print(torch.allclose(other(x - 0.5), net(x), atol=1e-6))
