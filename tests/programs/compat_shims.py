"""The compatibility preamble of research repositories (utils/torch_utils.py in YOLO-style repos,
misc.py in DETR-style ones): version gates on torch.__version__ (string comparisons, tuples of
ints parsed from it, packaging.version), feature probes with hasattr / getattr (inference_mode,
scaled_dot_product_attention, torch.compile, torch.backends.mps), smart_inference_mode as a
decorator factory, a select_device that prints the environment, an autocast shim chosen by
version, a torch.load wrapper passing weights_only only where supported, a
_NewEmptyTensorOp-style empty-batch guard gated on the version, de_parallel / is_parallel,
initialize_weights setting BatchNorm eps / momentum, model_info with a params / gradients count,
and time_sync."""
import inspect
import io
import os
import platform
import time
from contextlib import contextmanager

import torch
import torch.nn as nn
import torch.nn.functional as F
from packaging import version

TORCH_1_9 = version.parse(torch.__version__) >= version.parse("1.9.0")
TORCH_1_13 = version.parse(torch.__version__) >= version.parse("1.13.0")
TORCH_2_0 = version.parse(torch.__version__) >= version.parse("2.0.0")
TORCH_VERSION = tuple(int(x) for x in torch.__version__.split("+")[0].split(".")[:2])
print(TORCH_1_9, TORCH_1_13, TORCH_2_0, TORCH_VERSION >= (1, 12), TORCH_VERSION < (3, 0))
print(torch.__version__ >= "1.7", torch.__version__ < "10", torch.__version__ > (1, 6), torch.__version__ == torch.__version__)
print(str(torch.__version__).startswith(("1.", "2.")), float(".".join(torch.__version__.split(".")[:2])) >= 1.6)
print(type(torch.__version__).__mro__[-2] is str, isinstance(torch.__version__, str))

# detectron2-style gate: the empty-tensor workaround only for old versions
if TORCH_VERSION <= (1, 4):
    def cat(tensors, dim=0):
        return torch.cat([t for t in tensors if t.numel()], dim)
else:
    cat = torch.cat
print(cat([torch.zeros(0, 3), torch.ones(2, 3)]).shape, cat is torch.cat)


def smart_inference_mode(torch_1_9=TORCH_1_9):
    # Applies torch.inference_mode() decorator if torch>=1.9.0 else torch.no_grad() decorator
    def decorate(fn):
        return (torch.inference_mode if torch_1_9 else torch.no_grad)()(fn)

    return decorate


@smart_inference_mode()
def predict(model, x):
    y = model(x)
    return y, torch.is_inference_mode_enabled(), torch.is_grad_enabled(), y.requires_grad


@smart_inference_mode(torch_1_9=False)
def predict_no_grad(model, x):
    y = model(x)
    return y, torch.is_inference_mode_enabled(), torch.is_grad_enabled(), y.requires_grad


def select_device(device="", batch_size=0, newline=True):
    s = f"gradrs-style 🚀 torch-{torch.__version__} "
    device = str(device).strip().lower().replace("cuda:", "").replace("none", "")
    cpu = device == "cpu"
    mps = device == "mps"
    if cpu or mps:
        os.environ["CUDA_VISIBLE_DEVICES"] = "-1"
    elif device:
        os.environ["CUDA_VISIBLE_DEVICES"] = device
    if not cpu and not mps and torch.cuda.is_available():
        arg = "cuda:0"
    elif mps and getattr(torch, "has_mps", False) and torch.backends.mps.is_available():
        s += "MPS\n"
        arg = "mps"
    else:
        s += "CPU\n"
        arg = "cpu"
    if not newline:
        s = s.rstrip()
    print(s.replace(str(torch.__version__), "<version>"))
    return torch.device(arg)


device = select_device("cpu", newline=False)
print(device, device.type, device.index, str(device) == "cpu")
os.environ.pop("CUDA_VISIBLE_DEVICES", None)
print("mps probe", hasattr(torch.backends, "mps") and torch.backends.mps.is_available(),
      torch.backends.mps.is_built() in (True, False))
print("cudnn", torch.backends.cudnn.is_available() in (True, False), torch.backends.cudnn.enabled in (True, False))
print("sdpa", hasattr(F, "scaled_dot_product_attention"), "compile", hasattr(torch, "compile"),
      "inference_mode", hasattr(torch, "inference_mode"), "func", hasattr(torch, "func"))
print("platform ok", platform.system() != "", "threads", torch.get_num_threads() >= 1)


@contextmanager
def autocast_ctx(enabled=True):
    if TORCH_2_0:
        with torch.autocast(device_type="cpu", dtype=torch.bfloat16, enabled=enabled):
            yield
    else:
        with torch.cuda.amp.autocast(enabled=enabled):
            yield


def torch_load(f, **kwargs):
    if TORCH_1_13 and "weights_only" not in kwargs:
        kwargs["weights_only"] = False
    return torch.load(f, **kwargs)


def is_parallel(model):
    # Returns True if model is of type DP or DDP
    return type(model) in (nn.parallel.DataParallel, nn.parallel.DistributedDataParallel)


def de_parallel(model):
    # De-parallelize a model: returns single-GPU model if model is of type DP or DDP
    return model.module if is_parallel(model) else model


def initialize_weights(model):
    for m in model.modules():
        t = type(m)
        if t is nn.Conv2d:
            pass  # nn.init.kaiming_normal_(m.weight, mode='fan_out', nonlinearity='relu')
        elif t is nn.BatchNorm2d:
            m.eps = 1e-3
            m.momentum = 0.03
        elif t in [nn.Hardswish, nn.LeakyReLU, nn.ReLU, nn.ReLU6, nn.SiLU]:
            m.inplace = True


def model_info(model, verbose=False, imgsz=16):
    n_p = sum(x.numel() for x in model.parameters())  # number parameters
    n_g = sum(x.numel() for x in model.parameters() if x.requires_grad)  # number gradients
    if verbose:
        print(f"{'layer':>5} {'name':>20} {'gradient':>9} {'parameters':>12} {'shape':>14} {'mu':>10} {'sigma':>10}")
        for i, (name, p) in enumerate(model.named_parameters()):
            name = name.replace("module_list.", "")
            print("%5g %20s %9s %12g %14s %10.3g %10.3g" %
                  (i, name, p.requires_grad, p.numel(), list(p.shape), p.mean(), p.std()))
    name = type(model).__name__
    print(f"{name} summary: {len(list(model.modules()))} layers, {n_p} parameters, {n_g} gradients")


def time_sync():
    # PyTorch-accurate time
    if torch.cuda.is_available():
        torch.cuda.synchronize()
    return time.time()


class Conv(nn.Module):
    default_act = nn.SiLU()

    def __init__(self, c1, c2, k=1, s=1, p=None, g=1, d=1, act=True):
        super().__init__()
        p = k // 2 if p is None else p
        self.conv = nn.Conv2d(c1, c2, k, s, p, groups=g, dilation=d, bias=False)
        self.bn = nn.BatchNorm2d(c2)
        self.act = self.default_act if act is True else act if isinstance(act, nn.Module) else nn.Identity()

    def forward(self, x):
        return self.act(self.bn(self.conv(x)))

    def forward_fuse(self, x):
        return self.act(self.conv(x))


def fuse_conv_and_bn(conv, bn):
    # Fuse Conv2d() and BatchNorm2d() layers https://tehnokv.com/posts/fusing-batchnorm-and-conv/
    fusedconv = nn.Conv2d(conv.in_channels, conv.out_channels, kernel_size=conv.kernel_size, stride=conv.stride,
                          padding=conv.padding, dilation=conv.dilation, groups=conv.groups,
                          bias=True).requires_grad_(False).to(conv.weight.device)

    # Prepare filters
    w_conv = conv.weight.clone().view(conv.out_channels, -1)
    w_bn = torch.diag(bn.weight.div(torch.sqrt(bn.eps + bn.running_var)))
    fusedconv.weight.copy_(torch.mm(w_bn, w_conv).view(fusedconv.weight.shape))

    # Prepare spatial bias
    b_conv = torch.zeros(conv.weight.shape[0], device=conv.weight.device) if conv.bias is None else conv.bias
    b_bn = bn.bias - bn.weight.mul(bn.running_mean).div(torch.sqrt(bn.running_var + bn.eps))
    fusedconv.bias.copy_(torch.mm(w_bn, b_conv.reshape(-1, 1)).reshape(-1) + b_bn)

    return fusedconv


torch.manual_seed(0)
model = nn.Sequential(Conv(3, 8, 3), Conv(8, 8, 3, 2), nn.AdaptiveAvgPool2d(1), nn.Flatten(), nn.Linear(8, 4))
initialize_weights(model)
print(model[0].bn, model[0].act.inplace, model[0].act is model[1].act)
model_info(model, verbose=True)
x = torch.randn(2, 3, 16, 16)
model.train()
for _ in range(3):
    model(x)  # populate BatchNorm running stats
model.eval()
y, inf, grad, rg = predict(model, x)
print(y.shape, inf, grad, rg, y.is_inference())
y2, inf2, grad2, rg2 = predict_no_grad(model, x)
print(inf2, grad2, rg2, y2.is_inference(), torch.equal(y, y2))
try:
    y.add_(1)
except RuntimeError as e:
    print("RuntimeError:", e)

# fuse Conv + BN for inference, as model.fuse() does
t0 = time_sync()
for m in model.modules():
    if isinstance(m, Conv) and hasattr(m, "bn"):
        m.conv = fuse_conv_and_bn(m.conv, m.bn)
        delattr(m, "bn")
        m.forward = m.forward_fuse
print("fused", sum(isinstance(m, nn.BatchNorm2d) for m in model.modules()), time_sync() >= t0)
with torch.no_grad():
    yf = model(x)
print("fused output close:", torch.allclose(y2, yf, atol=1e-5), model[0].conv.bias is not None)
model_info(model)

with autocast_ctx():
    z = nn.Linear(4, 4)(torch.randn(2, 4))
print("autocast dtype", z.dtype, torch.is_autocast_enabled("cpu") if TORCH_2_0 else None)

buf = io.BytesIO()
torch.save({"model": de_parallel(model).state_dict(), "torch_version": str(torch.__version__)}, buf)
buf.seek(0)
ckpt = torch_load(buf, map_location="cpu")
print(sorted(ckpt), ckpt["torch_version"] == str(torch.__version__), len(ckpt["model"]))
print("weights_only" in inspect.signature(torch.load).parameters, is_parallel(model))
