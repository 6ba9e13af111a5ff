"""A PyTorch Lightning-shaped training script without Lightning: a LightningModule-like class
(training_step / validation_step / configure_optimizers returning an optimizer and a
step-interval scheduler config), a small Trainer with accumulate_grad_batches,
gradient_clip_val with 'norm' and 'value' algorithms, validation under torch.inference_mode,
a torchmetrics-like stateful Accuracy / MeanMetric with register_buffer'ed states, a
ModelCheckpoint keeping the best state_dict in a BytesIO, seed_everything, precision=64 via
.double(), and the manual-optimization path (automatic_optimization = False, two optimizers,
toggle of requires_grad)."""
import io
import os
import random
from collections import defaultdict

import numpy as np
import torch
import torch.nn.functional as F
from torch import nn
from torch.utils.data import DataLoader, TensorDataset, random_split


def seed_everything(seed: int) -> int:
    os.environ["PL_GLOBAL_SEED"] = str(seed)
    random.seed(seed)
    np.random.seed(seed)
    torch.manual_seed(seed)
    print(f"Seed set to {seed}")
    return seed


class Metric(nn.Module):
    full_state_update = False

    def __init__(self):
        super().__init__()
        self._defaults = {}

    def add_state(self, name, default):
        self._defaults[name] = default.clone()
        self.register_buffer(name, default.clone(), persistent=False)

    def reset(self):
        for name, default in self._defaults.items():
            setattr(self, name, default.clone().to(getattr(self, name).device))

    def forward(self, *args):
        self.update(*args)
        return self.compute()


class MulticlassAccuracy(Metric):
    def __init__(self, num_classes):
        super().__init__()
        self.num_classes = num_classes
        self.add_state("correct", torch.tensor(0))
        self.add_state("total", torch.tensor(0))

    def update(self, preds, target):
        if preds.ndim == target.ndim + 1:
            preds = preds.argmax(dim=-1)
        self.correct += (preds == target).sum()
        self.total += target.numel()

    def compute(self):
        return self.correct.float() / self.total


class MeanMetric(Metric):
    def __init__(self):
        super().__init__()
        self.add_state("mean_value", torch.tensor(0.0, dtype=torch.get_default_dtype()))
        self.add_state("weight", torch.tensor(0.0, dtype=torch.get_default_dtype()))

    def update(self, value, weight=1.0):
        value = torch.as_tensor(value, dtype=self.mean_value.dtype)
        self.mean_value += (value * weight).sum()
        self.weight += weight

    def compute(self):
        return self.mean_value / self.weight


class LitClassifier(nn.Module):
    def __init__(self, in_dim=12, hidden=32, num_classes=3, lr=3e-2):
        super().__init__()
        self.hparams = dict(in_dim=in_dim, hidden=hidden, num_classes=num_classes, lr=lr)
        self.backbone = nn.Sequential(nn.Linear(in_dim, hidden), nn.SiLU(), nn.Dropout(0.1),
                                      nn.Linear(hidden, hidden), nn.SiLU())
        self.head = nn.Linear(hidden, num_classes)
        self.train_acc = MulticlassAccuracy(num_classes)
        self.val_acc = MulticlassAccuracy(num_classes)
        self.val_loss = MeanMetric()
        self.logged = defaultdict(list)

    def log(self, name, value, prog_bar=False):
        if isinstance(value, torch.Tensor):
            value = value.detach().item()
        self.logged[name].append(value)

    def forward(self, x):
        return self.head(self.backbone(x))

    def training_step(self, batch, batch_idx):
        x, y = batch
        logits = self(x)
        loss = F.cross_entropy(logits, y)
        self.train_acc(logits, y)
        self.log("train_loss", loss, prog_bar=True)
        return loss

    def validation_step(self, batch, batch_idx):
        x, y = batch
        logits = self(x)
        loss = F.cross_entropy(logits, y)
        self.val_acc.update(logits, y)
        self.val_loss.update(loss, weight=x.shape[0])

    def on_validation_epoch_end(self):
        self.log("val_loss", self.val_loss.compute())
        self.log("val_acc", self.val_acc.compute())
        self.val_loss.reset()
        self.val_acc.reset()

    def configure_optimizers(self):
        optimizer = torch.optim.AdamW(self.parameters(), lr=self.hparams["lr"], weight_decay=1e-2)
        scheduler = torch.optim.lr_scheduler.OneCycleLR(optimizer, max_lr=self.hparams["lr"],
                                                        total_steps=self.trainer.estimated_stepping_batches)
        return {"optimizer": optimizer, "lr_scheduler": {"scheduler": scheduler, "interval": "step"}}


class ModelCheckpoint:
    def __init__(self, monitor="val_loss", mode="min"):
        self.monitor, self.mode = monitor, mode
        self.best_model_score = None
        self.buffer = None
        self.best_epoch = None

    def on_validation_end(self, trainer, module):
        current = torch.tensor(module.logged[self.monitor][-1])
        better = self.best_model_score is None or (current < self.best_model_score if self.mode == "min"
                                                   else current > self.best_model_score)
        if better:
            self.best_model_score = current
            self.best_epoch = trainer.current_epoch
            self.buffer = io.BytesIO()
            torch.save({"state_dict": module.state_dict(), "epoch": trainer.current_epoch,
                        "hyper_parameters": module.hparams}, self.buffer)


class Trainer:
    def __init__(self, max_epochs, accumulate_grad_batches=1, gradient_clip_val=None,
                 gradient_clip_algorithm="norm", precision=32, callbacks=()):
        self.max_epochs = max_epochs
        self.accumulate_grad_batches = accumulate_grad_batches
        self.gradient_clip_val = gradient_clip_val
        self.gradient_clip_algorithm = gradient_clip_algorithm
        self.precision = precision
        self.callbacks = list(callbacks)
        self.global_step = 0
        self.current_epoch = 0

    def fit(self, module, train_dataloaders, val_dataloaders):
        module.trainer = self
        if self.precision == 64:
            module.double()
        self.estimated_stepping_batches = self.max_epochs * (
            (len(train_dataloaders) + self.accumulate_grad_batches - 1) // self.accumulate_grad_batches)
        config = module.configure_optimizers()
        optimizer = config["optimizer"]
        scheduler = config["lr_scheduler"]["scheduler"]
        for epoch in range(self.max_epochs):
            self.current_epoch = epoch
            module.train()
            n = len(train_dataloaders)
            for batch_idx, batch in enumerate(train_dataloaders):
                if self.precision == 64:
                    batch = [b.double() if b.is_floating_point() else b for b in batch]
                loss = module.training_step(batch, batch_idx)
                (loss / self.accumulate_grad_batches).backward()
                if (batch_idx + 1) % self.accumulate_grad_batches == 0 or batch_idx + 1 == n:
                    if self.gradient_clip_val is not None:
                        if self.gradient_clip_algorithm == "norm":
                            torch.nn.utils.clip_grad_norm_(module.parameters(), self.gradient_clip_val)
                        else:
                            torch.nn.utils.clip_grad_value_(module.parameters(), self.gradient_clip_val)
                    optimizer.step()
                    optimizer.zero_grad(set_to_none=True)
                    scheduler.step()
                    self.global_step += 1
            train_acc = module.train_acc.compute().item()
            module.train_acc.reset()
            module.eval()
            with torch.inference_mode():
                for batch_idx, batch in enumerate(val_dataloaders):
                    if self.precision == 64:
                        batch = [b.double() if b.is_floating_point() else b for b in batch]
                    module.validation_step(batch, batch_idx)
            module.on_validation_epoch_end()
            for cb in self.callbacks:
                cb.on_validation_end(self, module)
            print(f"Epoch {epoch}: global_step={self.global_step} lr={scheduler.get_last_lr()[0]:.5f} "
                  f"train_acc={train_acc:.3f} val_loss={module.logged['val_loss'][-1]:.4f} "
                  f"val_acc={module.logged['val_acc'][-1]:.3f}")


seed_everything(7)
X = torch.randn(240, 12)
W = torch.randn(12, 3)
y = (X @ W + 0.3 * torch.randn(240, 3)).argmax(1)
print(torch.bincount(y, minlength=3).tolist())
dataset = TensorDataset(X, y)
train_set, val_set = random_split(dataset, [180, 60], generator=torch.Generator().manual_seed(42))
print(len(train_set), len(val_set), train_set.indices[:5])
train_loader = DataLoader(train_set, batch_size=16, shuffle=True, generator=torch.Generator().manual_seed(0))
val_loader = DataLoader(val_set, batch_size=32)

model = LitClassifier()
print(model)
print(list(model.state_dict().keys()))
checkpoint = ModelCheckpoint(monitor="val_acc", mode="max")
trainer = Trainer(max_epochs=4, accumulate_grad_batches=2, gradient_clip_val=0.5, callbacks=[checkpoint])
trainer.fit(model, train_loader, val_loader)
print(trainer.estimated_stepping_batches, len(model.logged["train_loss"]))
print("best epoch", checkpoint.best_epoch, "score", f"{checkpoint.best_model_score:.3f}")
checkpoint.buffer.seek(0)
ckpt = torch.load(checkpoint.buffer, map_location="cpu", weights_only=True)
print(sorted(ckpt.keys()), ckpt["hyper_parameters"])
restored = LitClassifier(**ckpt["hyper_parameters"])
print(restored.load_state_dict(ckpt["state_dict"]))
restored.eval()
with torch.no_grad():
    acc = MulticlassAccuracy(3)
    for xb, yb in val_loader:
        acc.update(restored(xb), yb)
    print("restored val_acc", f"{acc.compute().item():.3f}", acc.correct.dtype, acc.total)

# precision=64 and value clipping
seed_everything(7)
model64 = LitClassifier(lr=1e-2)
trainer64 = Trainer(max_epochs=2, gradient_clip_val=0.05, gradient_clip_algorithm="value", precision=64)
trainer64.fit(model64, train_loader, val_loader)
print(model64.head.weight.dtype, model64.val_loss.mean_value.dtype, model64.train_acc.correct.dtype)


# manual optimization: a GAN-like pair of optimizers with toggling
class ManualModule(nn.Module):
    automatic_optimization = False

    def __init__(self):
        super().__init__()
        self.g = nn.Linear(4, 4)
        self.d = nn.Linear(4, 1)

    def configure_optimizers(self):
        return torch.optim.SGD(self.g.parameters(), lr=0.1), torch.optim.SGD(self.d.parameters(), lr=0.1)

    def toggle_optimizer(self, optimizer, all_params):
        param_requires_grad_state = {}
        for param in all_params:
            param_requires_grad_state[param] = param.requires_grad
            param.requires_grad = False
        for group in optimizer.param_groups:
            for param in group["params"]:
                param.requires_grad = True
        return param_requires_grad_state


torch.manual_seed(0)
mm = ManualModule()
opt_g, opt_d = mm.configure_optimizers()
z = torch.randn(8, 4)
real = torch.randn(8, 4) + 2
for step in range(3):
    state = mm.toggle_optimizer(opt_g, list(mm.parameters()))
    g_loss = -mm.d(mm.g(z)).mean()
    opt_g.zero_grad()
    g_loss.backward()
    opt_g.step()
    print("g step", step, [p.grad is None for p in mm.d.parameters()], f"{g_loss.item():.4f}")
    for p, flag in state.items():
        p.requires_grad = flag
    state = mm.toggle_optimizer(opt_d, list(mm.parameters()))
    d_loss = F.softplus(-mm.d(real)).mean() + F.softplus(mm.d(mm.g(z).detach())).mean()
    opt_d.zero_grad()
    d_loss.backward()
    opt_d.step()
    print("d step", step, [p.grad is None for p in mm.g.parameters()], f"{d_loss.item():.4f}")
    for p, flag in state.items():
        p.requires_grad = flag
print(all(p.requires_grad for p in mm.parameters()), torch.is_grad_enabled(), torch.is_inference_mode_enabled())
