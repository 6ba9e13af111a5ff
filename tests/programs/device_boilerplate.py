"""The device / precision boilerplate at the top of training scripts: device pickers (cuda / mps /
xpu / accelerator), cudnn and TF32 flags, float32 matmul precision, nanoGPT's autocast context and
GradScaler(enabled=...), seeding helpers (cuda.manual_seed_all, initial_seed), version checks,
pin_memory / non_blocking transfers, and a training step that runs the same way on any device."""
import os
import random
from contextlib import nullcontext

import numpy as np
import torch
import torch.nn as nn


def seed_everything(seed=42):
    random.seed(seed)
    os.environ["PYTHONHASHSEED"] = str(seed)
    np.random.seed(seed)
    torch.manual_seed(seed)
    torch.cuda.manual_seed(seed)
    torch.cuda.manual_seed_all(seed)
    torch.backends.cudnn.deterministic = True
    torch.backends.cudnn.benchmark = False


seed_everything(42)
print("initial_seed", torch.initial_seed())

device = (
    "cuda"
    if torch.cuda.is_available()
    else "mps"
    if torch.backends.mps.is_available()
    else "cpu"
)
print(f"Using {device} device")
device = torch.accelerator.current_accelerator().type if torch.accelerator.is_available() else "cpu"
print(f"Using {device} device (accelerator API)")
if torch.cuda.is_available():
    dev = "cuda"
elif hasattr(torch, "xpu") and torch.xpu.is_available():
    dev = "xpu"
elif getattr(torch.backends, "mps", None) is not None and torch.backends.mps.is_available():
    dev = "mps"
else:
    dev = "cpu"
print("picked", dev, "| mps built:", torch.backends.mps.is_built() in (True, False))
print("cuda devices:", torch.cuda.device_count(), "| torch.version.cuda:", torch.version.cuda)
print("cudnn available:", torch.backends.cudnn.is_available() in (True, False))

torch.set_float32_matmul_precision("high")
print("matmul precision", torch.get_float32_matmul_precision())
torch.backends.cuda.matmul.allow_tf32 = True
torch.backends.cudnn.allow_tf32 = True
print("tf32 flags", torch.backends.cuda.matmul.allow_tf32, torch.backends.cudnn.allow_tf32)
torch.set_float32_matmul_precision("highest")

device_type = "cuda" if "cuda" in device else "cpu"
dtype = "bfloat16" if torch.cuda.is_available() and torch.cuda.is_bf16_supported() else "float16"
ptdtype = {"float32": torch.float32, "bfloat16": torch.bfloat16, "float16": torch.float16}[dtype]
ctx = nullcontext() if device_type == "cpu" else torch.amp.autocast(device_type=device_type, dtype=ptdtype)
scaler = torch.amp.GradScaler("cuda", enabled=(dtype == "float16" and device_type == "cuda"))
print("dtype", dtype, "ctx", type(ctx).__name__, "scaler enabled", scaler.is_enabled())

ver = torch.__version__.split("+")[0]
major, minor = (int(v) for v in ver.split(".")[:2])
print("torch >= 2.0:", (major, minor) >= (2, 0))

model = nn.Sequential(nn.Linear(8, 32), nn.GELU(), nn.LayerNorm(32), nn.Linear(32, 2)).to(device)
print("param device", next(model.parameters()).device, "is_cuda", next(model.parameters()).is_cuda)
opt = torch.optim.AdamW(model.parameters(), lr=1e-3, fused=False)
X = torch.randn(64, 8)
y = (X[:, 0] > 0).long()
loader = torch.utils.data.DataLoader(torch.utils.data.TensorDataset(X, y), batch_size=16,
                                     pin_memory=torch.cuda.is_available(), shuffle=False)
for epoch in range(3):
    total = 0.0
    for xb, yb in loader:
        xb, yb = xb.to(device, non_blocking=True), yb.to(device, non_blocking=True)
        with ctx:
            logits = model(xb)
            loss = nn.functional.cross_entropy(logits, yb)
        scaler.scale(loss).backward()
        scaler.unscale_(opt)
        gn = torch.nn.utils.clip_grad_norm_(model.parameters(), 1.0)
        scaler.step(opt)
        scaler.update()
        opt.zero_grad(set_to_none=True)
        total += loss.item()
    print(f"epoch {epoch} loss {total / len(loader):.6f} grad norm {gn.item():.6f}")
if torch.cuda.is_available():
    torch.cuda.synchronize()
    print(torch.cuda.memory_allocated())
print("scale", scaler.get_scale(), "state", sorted(scaler.state_dict().keys()) if scaler.is_enabled() else scaler.state_dict())
with torch.autocast(device_type="cpu", dtype=torch.bfloat16, enabled=False):
    print("autocast disabled:", model(X[:2]).dtype, torch.is_autocast_enabled())
print("num threads > 0:", torch.get_num_threads() > 0)
state = {"model": model.state_dict(), "rng": torch.get_rng_state(), "np_rng": np.random.get_state()[1][:3],
         "cuda_rng": torch.cuda.get_rng_state_all() if torch.cuda.is_available() else None}
torch.save(state, "ckpt.pt")
loaded = torch.load("ckpt.pt", map_location="cpu", weights_only=False)
print("rng state", loaded["rng"].dtype, loaded["rng"].shape, "cuda_rng", loaded["cuda_rng"])
torch.set_rng_state(loaded["rng"])
print("after restore", torch.rand(2))
