"""Optimizers and schedulers written by users as GitHub repositories ship them: Lion and a
hand-written Adam as torch.optim.Optimizer subclasses (defaults, param_groups, self.state,
@torch.no_grad() step with a closure), SAM (sharpness-aware minimization: first_step /
second_step around a closure, grad norms over groups), a Lookahead wrapper, a warmup-cosine
LRScheduler subclass with get_lr / _get_closed_form_lr, optimizer hooks, state_dict round
trips of a custom optimizer, and their reprs."""
import math

import torch
import torch.nn as nn
import torch.nn.functional as F
from torch.optim import Optimizer
from torch.optim.lr_scheduler import LRScheduler


class Lion(Optimizer):
    def __init__(self, params, lr=1e-4, betas=(0.9, 0.99), weight_decay=0.0):
        if not 0.0 <= lr:
            raise ValueError('Invalid learning rate: {}'.format(lr))
        if not 0.0 <= betas[0] < 1.0:
            raise ValueError('Invalid beta parameter at index 0: {}'.format(betas[0]))
        defaults = dict(lr=lr, betas=betas, weight_decay=weight_decay)
        super().__init__(params, defaults)

    @torch.no_grad()
    def step(self, closure=None):
        loss = None
        if closure is not None:
            with torch.enable_grad():
                loss = closure()
        for group in self.param_groups:
            for p in group['params']:
                if p.grad is None:
                    continue
                p.data.mul_(1 - group['lr'] * group['weight_decay'])
                grad = p.grad
                state = self.state[p]
                if len(state) == 0:
                    state['exp_avg'] = torch.zeros_like(p)
                exp_avg = state['exp_avg']
                beta1, beta2 = group['betas']
                update = exp_avg * beta1 + grad * (1 - beta1)
                p.add_(update.sign_(), alpha=-group['lr'])
                exp_avg.mul_(beta2).add_(grad, alpha=1 - beta2)
        return loss


class MyAdam(Optimizer):
    def __init__(self, params, lr=1e-3, betas=(0.9, 0.999), eps=1e-8):
        super(MyAdam, self).__init__(params, dict(lr=lr, betas=betas, eps=eps))

    def __setstate__(self, state):
        super(MyAdam, self).__setstate__(state)

    def step(self, closure=None):
        loss = None
        if closure is not None:
            loss = closure()
        for group in self.param_groups:
            for p in group['params']:
                if p.grad is None:
                    continue
                grad = p.grad.data
                state = self.state[p]
                if len(state) == 0:
                    state['step'] = 0
                    state['exp_avg'] = torch.zeros_like(p.data)
                    state['exp_avg_sq'] = torch.zeros_like(p.data)
                exp_avg, exp_avg_sq = state['exp_avg'], state['exp_avg_sq']
                beta1, beta2 = group['betas']
                state['step'] += 1
                exp_avg.mul_(beta1).add_(grad, alpha=1 - beta1)
                exp_avg_sq.mul_(beta2).addcmul_(grad, grad, value=1 - beta2)
                denom = exp_avg_sq.sqrt().add_(group['eps'])
                bias_correction1 = 1 - beta1 ** state['step']
                bias_correction2 = 1 - beta2 ** state['step']
                step_size = group['lr'] * math.sqrt(bias_correction2) / bias_correction1
                p.data.addcdiv_(exp_avg, denom, value=-step_size)
        return loss


class SAM(torch.optim.Optimizer):
    def __init__(self, params, base_optimizer, rho=0.05, adaptive=False, **kwargs):
        assert rho >= 0.0, f"Invalid rho, should be non-negative: {rho}"
        defaults = dict(rho=rho, adaptive=adaptive, **kwargs)
        super(SAM, self).__init__(params, defaults)
        self.base_optimizer = base_optimizer(self.param_groups, **kwargs)
        self.param_groups = self.base_optimizer.param_groups
        self.defaults.update(self.base_optimizer.defaults)

    @torch.no_grad()
    def first_step(self, zero_grad=False):
        grad_norm = self._grad_norm()
        for group in self.param_groups:
            scale = group["rho"] / (grad_norm + 1e-12)
            for p in group["params"]:
                if p.grad is None:
                    continue
                self.state[p]["old_p"] = p.data.clone()
                e_w = (torch.pow(p, 2) if group["adaptive"] else 1.0) * p.grad * scale.to(p)
                p.add_(e_w)
        if zero_grad:
            self.zero_grad()

    @torch.no_grad()
    def second_step(self, zero_grad=False):
        for group in self.param_groups:
            for p in group["params"]:
                if p.grad is None:
                    continue
                p.data = self.state[p]["old_p"]
        self.base_optimizer.step()
        if zero_grad:
            self.zero_grad()

    @torch.no_grad()
    def step(self, closure=None):
        assert closure is not None, "Sharpness Aware Minimization requires closure, but it was not provided"
        closure = torch.enable_grad()(closure)
        self.first_step(zero_grad=True)
        closure()
        self.second_step()

    def _grad_norm(self):
        shared_device = self.param_groups[0]["params"][0].device
        norm = torch.norm(
                    torch.stack([
                        ((torch.abs(p) if group["adaptive"] else 1.0) * p.grad).norm(p=2).to(shared_device)
                        for group in self.param_groups for p in group["params"]
                        if p.grad is not None
                    ]),
                    p=2
               )
        return norm

    def load_state_dict(self, state_dict):
        super().load_state_dict(state_dict)
        self.base_optimizer.param_groups = self.param_groups


class Lookahead(Optimizer):
    def __init__(self, optimizer, k=5, alpha=0.5):
        self.optimizer = optimizer
        self.k = k
        self.alpha = alpha
        self.param_groups = self.optimizer.param_groups
        self.state = {}
        self.fast_state = self.optimizer.state
        self.step_counter = 0
        self.slow = [[p.clone().detach() for p in group['params']] for group in self.param_groups]
        self.defaults = self.optimizer.defaults

    def zero_grad(self, set_to_none=True):
        self.optimizer.zero_grad(set_to_none)

    def step(self, closure=None):
        loss = self.optimizer.step(closure)
        self.step_counter += 1
        if self.step_counter % self.k == 0:
            for group, slows in zip(self.param_groups, self.slow):
                for p, q in zip(group['params'], slows):
                    q.data.add_(p.data - q.data, alpha=self.alpha)
                    p.data.copy_(q.data)
        return loss


class WarmupCosine(LRScheduler):
    def __init__(self, optimizer, warmup, total, min_lr=0.0, last_epoch=-1):
        self.warmup, self.total, self.min_lr = warmup, total, min_lr
        super().__init__(optimizer, last_epoch)

    def get_lr(self):
        step = self.last_epoch
        if step < self.warmup:
            return [base_lr * (step + 1) / self.warmup for base_lr in self.base_lrs]
        progress = (step - self.warmup) / max(1, self.total - self.warmup)
        return [self.min_lr + (base_lr - self.min_lr) * 0.5 * (1 + math.cos(math.pi * progress))
                for base_lr in self.base_lrs]


torch.manual_seed(0)
X = torch.randn(128, 8)
w_true = torch.randn(8, 1)
y = X @ w_true + 0.1 * torch.randn(128, 1)


def make():
    torch.manual_seed(1)
    return nn.Sequential(nn.Linear(8, 16), nn.Tanh(), nn.Linear(16, 1))


def fit(name, model, opt, steps=60, sched=None):
    for _ in range(steps):
        def closure():
            opt.zero_grad()
            loss = F.mse_loss(model(X), y)
            loss.backward()
            return loss
        loss = closure()
        opt.step(closure) if isinstance(opt, SAM) else opt.step()
        if sched is not None:
            sched.step()
    final = F.mse_loss(model(X), y).item()
    print(f"{name:10s} loss {loss.item():.5f} -> {final:.5f}")
    return final


m = make()
lion = Lion(m.parameters(), lr=3e-3, weight_decay=0.01)
print(lion)
fit("lion", m, lion)
print(sorted(lion.state_dict()["state"][0].keys()), lion.state_dict()["param_groups"][0]["betas"])
try:
    Lion(m.parameters(), lr=-1)
except ValueError as e:
    print("ValueError:", e)

m = make()
mine = MyAdam(m.parameters(), lr=1e-2)
fit("my adam", m, mine)
m2 = make()
ref = torch.optim.Adam(m2.parameters(), lr=1e-2)
fit("torch adam", m2, ref)
print("same as torch.optim.Adam:", all(torch.allclose(a, b, atol=1e-6) for a, b in zip(m.parameters(), m2.parameters())))
sd = mine.state_dict()
print(sd["state"][0]["step"], type(sd["state"][0]["step"]).__name__)
m3 = make()
mine2 = MyAdam(m3.parameters(), lr=1e-2)
mine2.load_state_dict(sd)
print(mine2.state[m3[0].weight]["step"], torch.equal(mine2.state[m3[0].weight]["exp_avg"], mine.state[m[0].weight]["exp_avg"]))

m = make()
sam = SAM(m.parameters(), torch.optim.SGD, rho=0.05, lr=0.1, momentum=0.9)
print(type(sam.base_optimizer).__name__, sorted(sam.defaults), sam.param_groups is sam.base_optimizer.param_groups)
fit("sam", m, sam)
print(sorted(sam.state[m[0].weight].keys()), sorted(sam.base_optimizer.state[m[0].weight].keys()))

m = make()
la = Lookahead(torch.optim.Adam(m.parameters(), lr=1e-2), k=5, alpha=0.5)
fit("lookahead", m, la)
print(la.step_counter, torch.equal(la.slow[0][0], m[0].weight.detach()))

m = make()
opt = torch.optim.SGD(m.parameters(), lr=0.1, momentum=0.9)
sched = WarmupCosine(opt, warmup=5, total=60, min_lr=1e-3)
lrs = []
for _ in range(12):
    lrs.append(sched.get_last_lr()[0])
    opt.step()
    sched.step()
print([round(v, 5) for v in lrs])
print(sched.state_dict())
calls = []
h1 = opt.register_step_pre_hook(lambda o, a, k: calls.append("pre"))
h2 = opt.register_step_post_hook(lambda o, a, k: calls.append("post"))
fit("sgd+hooks", m, opt, steps=3, sched=sched)
print(calls)
h1.remove()
h2.remove()
opt.step()
print(len(calls), opt.param_groups[0]["lr"] == sched.get_last_lr()[0])
