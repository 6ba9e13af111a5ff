"""Gradient accumulation with torch.autocast (bfloat16 on CPU) and a GradScaler, plus a cosine warm-restart schedule."""
import torch
import torch.nn as nn

torch.manual_seed(0)
device = "cuda" if torch.cuda.is_available() else "cpu"
amp_dtype = torch.float16 if device == "cuda" else torch.bfloat16

model = nn.Sequential(nn.Linear(16, 64), nn.GELU(), nn.LayerNorm(64), nn.Linear(64, 4)).to(device)
optimizer = torch.optim.AdamW(model.parameters(), lr=3e-3)
scheduler = torch.optim.lr_scheduler.CosineAnnealingWarmRestarts(optimizer, T_0=4, T_mult=2, eta_min=1e-5)
scaler = torch.amp.GradScaler(device, enabled=(device == "cuda"))
print("scaler enabled:", scaler.is_enabled())
print("autocast dtype:", amp_dtype)

X = torch.randn(256, 16)
W = torch.randn(16, 4)
Y = (X @ W).argmax(1)
accum_steps = 4
micro = 16
loss_fn = nn.CrossEntropyLoss()

with torch.autocast(device_type=device, dtype=amp_dtype):
    out = model(X[:2])
    print("inside autocast:", out.dtype, torch.is_autocast_enabled(device) if device == "cpu" else True)
    print("matmul in autocast:", (X[:2] @ W).dtype, "sum stays:", out.float().sum().dtype)
print("outside autocast:", model(X[:2]).dtype)

step = 0
for epoch in range(3):
    epoch_loss = 0.0
    optimizer.zero_grad(set_to_none=True)
    for i in range(0, len(X), micro):
        xb, yb = X[i:i + micro].to(device), Y[i:i + micro].to(device)
        with torch.autocast(device_type=device, dtype=amp_dtype):
            logits = model(xb)
            loss = loss_fn(logits.float(), yb) / accum_steps
        scaler.scale(loss).backward()
        epoch_loss += loss.item()
        if (i // micro + 1) % accum_steps == 0:
            scaler.unscale_(optimizer)
            grad_norm = torch.nn.utils.clip_grad_norm_(model.parameters(), 1.0)
            scaler.step(optimizer)
            scaler.update()
            optimizer.zero_grad(set_to_none=True)
            scheduler.step()
            step += 1
    print(f"epoch {epoch} loss {epoch_loss / (len(X) // micro // accum_steps):.4f} "
          f"grad_norm {grad_norm.item():.4f} lr {scheduler.get_last_lr()[0]:.6f}")
print("optimizer steps:", step)
print("grads cleared:", all(p.grad is None for p in model.parameters()))
print("scale:", scaler.get_scale() if scaler.is_enabled() else 1.0)
print(sorted(scaler.state_dict().keys()) if scaler.is_enabled() else {})
with torch.no_grad():
    acc = (model(X).argmax(1) == Y).float().mean()
print("weights stayed float32:", all(p.dtype == torch.float32 for p in model.parameters()))
print("trained:", acc.item() > 0.5)
x16 = torch.randn(3, 3).to(torch.bfloat16)
print(x16.dtype, x16.element_size(), x16.float().dtype, torch.finfo(torch.bfloat16).eps)
