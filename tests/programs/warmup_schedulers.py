"""Learning-rate warmup the way GitHub repositories wrote it before LinearLR existed:
ildoonet's GradualWarmupScheduler (an _LRScheduler wrapping an after_scheduler, ReduceLROnPlateau
included), a WarmupCosine _LRScheduler subclass with get_lr / _get_closed_form_lr, the
transformers-style LambdaLR warmup, and a plain-function schedule that writes param_groups;
each printed over a few epochs, with state_dict round trips."""
import math

import torch
from torch.optim.lr_scheduler import CosineAnnealingLR, LambdaLR, ReduceLROnPlateau, StepLR, _LRScheduler


class GradualWarmupScheduler(_LRScheduler):
    """ Gradually warm-up(increasing) learning rate in optimizer.
    Proposed in 'Accurate, Large Minibatch SGD: Training ImageNet in 1 Hour'.
    """

    def __init__(self, optimizer, multiplier, total_epoch, after_scheduler=None):
        self.multiplier = multiplier
        if self.multiplier < 1.:
            raise ValueError('multiplier should be greater thant or equal to 1.')
        self.total_epoch = total_epoch
        self.after_scheduler = after_scheduler
        self.finished = False
        super(GradualWarmupScheduler, self).__init__(optimizer)

    def get_lr(self):
        if self.last_epoch > self.total_epoch:
            if self.after_scheduler:
                if not self.finished:
                    self.after_scheduler.base_lrs = [base_lr * self.multiplier for base_lr in self.base_lrs]
                    self.finished = True
                return self.after_scheduler.get_last_lr()
            return [base_lr * self.multiplier for base_lr in self.base_lrs]

        if self.multiplier == 1.0:
            return [base_lr * (float(self.last_epoch) / self.total_epoch) for base_lr in self.base_lrs]
        else:
            return [base_lr * ((self.multiplier - 1.) * self.last_epoch / self.total_epoch + 1.) for base_lr in self.base_lrs]

    def step_ReduceLROnPlateau(self, metrics, epoch=None):
        if epoch is None:
            epoch = self.last_epoch + 1
        self.last_epoch = epoch if epoch != 0 else 1
        if self.last_epoch <= self.total_epoch:
            warmup_lr = [base_lr * ((self.multiplier - 1.) * self.last_epoch / self.total_epoch + 1.) for base_lr in self.base_lrs]
            for param_group, lr in zip(self.optimizer.param_groups, warmup_lr):
                param_group['lr'] = lr
        else:
            if epoch is None:
                self.after_scheduler.step(metrics, None)
            else:
                self.after_scheduler.step(metrics)

    def step(self, epoch=None, metrics=None):
        if type(self.after_scheduler) != ReduceLROnPlateau:
            if self.finished and self.after_scheduler:
                if epoch is None:
                    self.after_scheduler.step(None)
                else:
                    self.after_scheduler.step(epoch - self.total_epoch)
                self._last_lr = self.after_scheduler.get_last_lr()
            else:
                return super(GradualWarmupScheduler, self).step(epoch)
        else:
            self.step_ReduceLROnPlateau(metrics, epoch)


class WarmupCosine(_LRScheduler):
    def __init__(self, optimizer, warmup, total, eta_min=0.0, last_epoch=-1):
        self.warmup, self.total, self.eta_min = warmup, total, eta_min
        super().__init__(optimizer, last_epoch)

    def get_lr(self):
        if self.last_epoch < self.warmup:
            return [base * (self.last_epoch + 1) / self.warmup for base in self.base_lrs]
        progress = (self.last_epoch - self.warmup) / max(1, self.total - self.warmup)
        return [self.eta_min + (base - self.eta_min) * 0.5 * (1 + math.cos(math.pi * progress))
                for base in self.base_lrs]


def make_opt(lr=0.1):
    model = torch.nn.Linear(3, 1)
    return torch.optim.SGD([{"params": [model.weight]}, {"params": [model.bias], "lr": lr / 10}],
                           lr=lr, momentum=0.9)


opt = make_opt()
after = StepLR(opt, step_size=3, gamma=0.5)
sched = GradualWarmupScheduler(opt, multiplier=8, total_epoch=4, after_scheduler=after)
print("initial", [g["lr"] for g in opt.param_groups], "base_lrs", sched.base_lrs, "last_epoch", sched.last_epoch)
for epoch in range(1, 12):
    opt.step()
    sched.step()
    print(f"epoch {epoch:2d} lr {[round(g['lr'], 6) for g in opt.param_groups]} last_lr "
          f"{[round(v, 6) for v in sched.get_last_lr()]} finished={sched.finished}")

opt = make_opt(0.05)
plateau = ReduceLROnPlateau(opt, mode="min", factor=0.5, patience=1)
sched = GradualWarmupScheduler(opt, multiplier=2, total_epoch=3, after_scheduler=plateau)
val_losses = [1.0, 0.9, 0.8, 0.85, 0.86, 0.87, 0.7, 0.71, 0.72, 0.73]
for epoch, vl in enumerate(val_losses, 1):
    sched.step(epoch, metrics=vl)
    print(f"plateau epoch {epoch:2d} val {vl:.2f} lr {opt.param_groups[0]['lr']:.6f} bad_epochs {plateau.num_bad_epochs}")
print("plateau best", plateau.best, "cooldown", plateau.cooldown_counter)

opt = make_opt()
sched = WarmupCosine(opt, warmup=3, total=10, eta_min=1e-4)
lrs = []
for epoch in range(10):
    lrs.append(opt.param_groups[0]["lr"])
    opt.step()
    sched.step()
print("WarmupCosine", [f"{v:.5f}" for v in lrs])
sd = sched.state_dict()
print("state_dict keys", sorted(sd.keys()))
print("warmup/total saved:", sd["warmup"], sd["total"], "last_epoch", sd["last_epoch"])
opt2 = make_opt()
sched2 = WarmupCosine(opt2, warmup=3, total=10, eta_min=1e-4)
sched2.load_state_dict(sd)
print("restored last_epoch", sched2.last_epoch, "last_lr", [round(v, 6) for v in sched2.get_last_lr()])
print("isinstance LRScheduler:", isinstance(sched, torch.optim.lr_scheduler.LRScheduler))


def get_linear_schedule_with_warmup(optimizer, num_warmup_steps, num_training_steps, last_epoch=-1):
    def lr_lambda(current_step: int):
        if current_step < num_warmup_steps:
            return float(current_step) / float(max(1, num_warmup_steps))
        return max(0.0, float(num_training_steps - current_step) / float(max(1, num_training_steps - num_warmup_steps)))
    return LambdaLR(optimizer, lr_lambda, last_epoch)


opt = make_opt(3e-4)
sched = get_linear_schedule_with_warmup(opt, 4, 12)
seen = []
for step in range(12):
    opt.step()
    sched.step()
    seen.append(sched.get_last_lr()[0])
print("linear warmup", ["%.2e" % v for v in seen])
print(sched.state_dict()["lr_lambdas"], sched.state_dict()["base_lrs"])

# adjust_learning_rate the pytorch/examples imagenet way
opt = make_opt(0.1)
for epoch in [0, 29, 30, 59, 60, 90]:
    lr = 0.1 * (0.1 ** (epoch // 30))
    for param_group in opt.param_groups:
        param_group["lr"] = lr
    print(f"imagenet epoch {epoch} lr {opt.param_groups[0]['lr']:.0e}")
cos = CosineAnnealingLR(make_opt(1.0), T_max=4)
print("cosine closed form", [round(cos._get_closed_form_lr()[0], 6)] if hasattr(cos, "_get_closed_form_lr") else None)
