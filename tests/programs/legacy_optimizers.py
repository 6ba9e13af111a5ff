"""Optimizers as GitHub repositories wrote them for PyTorch 1.x and still ship them: RAdam
(LiyuanLucasLiu/RAdam), AdaBelief, a Lookahead wrapper and an SGD with gradient centralization,
with `p.grad.data`, `if grad.is_sparse: raise`, state allocated with
`torch.zeros_like(p.data, memory_format=torch.preserve_format)`, the deprecated scalar-first
`add_` / `addcmul_` / `addcdiv_` overloads, __setstate__, closures; checked against
torch.optim.RAdam and trained on a small regression."""
import math
from collections import defaultdict

import torch
import torch.nn as nn
import torch.nn.functional as F
from torch.optim.optimizer import Optimizer


class RAdam(Optimizer):
    def __init__(self, params, lr=1e-3, betas=(0.9, 0.999), eps=1e-8, weight_decay=0, degenerated_to_sgd=True):
        if not 0.0 <= lr:
            raise ValueError("Invalid learning rate: {}".format(lr))
        if not 0.0 <= betas[0] < 1.0:
            raise ValueError("Invalid beta parameter at index 0: {}".format(betas[0]))
        self.degenerated_to_sgd = degenerated_to_sgd
        defaults = dict(lr=lr, betas=betas, eps=eps, weight_decay=weight_decay, buffer=[[None, None, None] for _ in range(10)])
        super(RAdam, self).__init__(params, defaults)

    def __setstate__(self, state):
        super(RAdam, self).__setstate__(state)

    def step(self, closure=None):
        loss = None
        if closure is not None:
            loss = closure()
        for group in self.param_groups:
            for p in group['params']:
                if p.grad is None:
                    continue
                grad = p.grad.data.float()
                if grad.is_sparse:
                    raise RuntimeError('RAdam does not support sparse gradients')
                p_data_fp32 = p.data.float()
                state = self.state[p]
                if len(state) == 0:
                    state['step'] = 0
                    state['exp_avg'] = torch.zeros_like(p_data_fp32, memory_format=torch.preserve_format)
                    state['exp_avg_sq'] = torch.zeros_like(p_data_fp32, memory_format=torch.preserve_format)
                else:
                    state['exp_avg'] = state['exp_avg'].type_as(p_data_fp32)
                    state['exp_avg_sq'] = state['exp_avg_sq'].type_as(p_data_fp32)
                exp_avg, exp_avg_sq = state['exp_avg'], state['exp_avg_sq']
                beta1, beta2 = group['betas']
                exp_avg_sq.mul_(beta2).addcmul_(1 - beta2, grad, grad)
                exp_avg.mul_(beta1).add_(1 - beta1, grad)
                state['step'] += 1
                buffered = group['buffer'][int(state['step'] % 10)]
                if state['step'] == buffered[0]:
                    N_sma, step_size = buffered[1], buffered[2]
                else:
                    buffered[0] = state['step']
                    beta2_t = beta2 ** state['step']
                    N_sma_max = 2 / (1 - beta2) - 1
                    N_sma = N_sma_max - 2 * state['step'] * beta2_t / (1 - beta2_t)
                    buffered[1] = N_sma
                    if N_sma >= 5:
                        step_size = math.sqrt((1 - beta2_t) * (N_sma - 4) / (N_sma_max - 4) * (N_sma - 2) / N_sma * N_sma_max / (N_sma_max - 2)) / (1 - beta1 ** state['step'])
                    elif self.degenerated_to_sgd:
                        step_size = 1.0 / (1 - beta1 ** state['step'])
                    else:
                        step_size = -1
                    buffered[2] = step_size
                if N_sma >= 5:
                    if group['weight_decay'] != 0:
                        p_data_fp32.add_(-group['weight_decay'] * group['lr'], p_data_fp32)
                    denom = exp_avg_sq.sqrt().add_(group['eps'])
                    p_data_fp32.addcdiv_(-step_size * group['lr'], exp_avg, denom)
                    p.data.copy_(p_data_fp32)
                elif step_size > 0:
                    if group['weight_decay'] != 0:
                        p_data_fp32.add_(-group['weight_decay'] * group['lr'], p_data_fp32)
                    p_data_fp32.add_(-step_size * group['lr'], exp_avg)
                    p.data.copy_(p_data_fp32)
        return loss


class AdaBelief(Optimizer):
    def __init__(self, params, lr=1e-3, betas=(0.9, 0.999), eps=1e-16, weight_decay=0):
        super().__init__(params, dict(lr=lr, betas=betas, eps=eps, weight_decay=weight_decay))

    @torch.no_grad()
    def step(self, closure=None):
        loss = None
        if closure is not None:
            with torch.enable_grad():
                loss = closure()
        for group in self.param_groups:
            beta1, beta2 = group['betas']
            for p in group['params']:
                if p.grad is None:
                    continue
                grad = p.grad
                state = self.state[p]
                if len(state) == 0:
                    state['step'] = 0
                    state['exp_avg'] = torch.zeros_like(p, memory_format=torch.preserve_format)
                    state['exp_avg_var'] = torch.zeros_like(p, memory_format=torch.preserve_format)
                state['step'] += 1
                if group['weight_decay'] != 0:
                    p.mul_(1.0 - group['lr'] * group['weight_decay'])
                exp_avg, exp_avg_var = state['exp_avg'], state['exp_avg_var']
                exp_avg.mul_(beta1).add_(grad, alpha=1 - beta1)
                grad_residual = grad - exp_avg
                exp_avg_var.mul_(beta2).addcmul_(grad_residual, grad_residual, value=1 - beta2)
                bias_correction1 = 1 - beta1 ** state['step']
                bias_correction2 = 1 - beta2 ** state['step']
                denom = (exp_avg_var.add_(group['eps']).sqrt() / math.sqrt(bias_correction2)).add_(group['eps'])
                p.addcdiv_(exp_avg, denom, value=-group['lr'] / bias_correction1)
        return loss


class Lookahead:
    """A wrapper, not an Optimizer subclass (whose step() wrapper would look for hooks)."""

    def __init__(self, base_optimizer, k=5, alpha=0.5):
        self.optimizer = base_optimizer
        self.k = k
        self.alpha = alpha
        self.param_groups = self.optimizer.param_groups
        self.state = defaultdict(dict)
        self.fast_state = self.optimizer.state
        self.defaults = base_optimizer.defaults
        for group in self.param_groups:
            group["counter"] = 0

    def update(self, group):
        for fast in group["params"]:
            param_state = self.state[fast]
            if "slow_param" not in param_state:
                param_state["slow_param"] = torch.zeros_like(fast.data)
                param_state["slow_param"].copy_(fast.data)
            slow = param_state["slow_param"]
            slow += (fast.data - slow) * self.alpha
            fast.data.copy_(slow)

    def zero_grad(self, set_to_none=True):
        self.optimizer.zero_grad(set_to_none)

    def state_dict(self):
        return {"fast_state": self.optimizer.state_dict(), "slow_state": {id(k): v for k, v in self.state.items()},
                "param_groups": self.param_groups}

    def step(self, closure=None):
        loss = self.optimizer.step(closure)
        for group in self.param_groups:
            if group["counter"] == 0:
                self.update(group)
            group["counter"] += 1
            if group["counter"] >= self.k:
                group["counter"] = 0
        return loss


class SGDGC(Optimizer):
    """SGD with momentum and gradient centralization for weight matrices."""

    def __init__(self, params, lr=0.01, momentum=0.9):
        super().__init__(params, dict(lr=lr, momentum=momentum))

    def step(self, closure=None):
        for group in self.param_groups:
            for p in group['params']:
                if p.grad is None:
                    continue
                d_p = p.grad.data
                if len(list(d_p.size())) > 1:
                    d_p.add_(-d_p.mean(dim=tuple(range(1, len(list(d_p.size())))), keepdim=True))
                param_state = self.state[p]
                if 'momentum_buffer' not in param_state:
                    buf = param_state['momentum_buffer'] = torch.clone(d_p).detach()
                else:
                    buf = param_state['momentum_buffer']
                    buf.mul_(group['momentum']).add_(1, d_p)
                p.data.add_(-group['lr'], buf)


torch.manual_seed(0)
X = torch.rand(64, 5) * 2 - 1
w_true = torch.tensor([[1.5], [-2.0], [0.5], [0.0], [3.0]])
Y = X @ w_true + 0.3 * torch.sin(3 * X[:, :1])


def make():
    torch.manual_seed(1)
    return nn.Sequential(nn.Linear(5, 16), nn.ReLU(), nn.Linear(16, 1))


# the repository's RAdam against torch.optim.RAdam
a, b = make(), make()
mine, ref = RAdam(a.parameters(), lr=1e-2), torch.optim.RAdam(b.parameters(), lr=1e-2)
for step in range(12):
    for model, opt in ((a, mine), (b, ref)):
        opt.zero_grad()
        F.mse_loss(model(X), Y).backward()
        opt.step()
diff = max((p - q).abs().max().item() for p, q in zip(a.parameters(), b.parameters()))
print("RAdam matches torch.optim.RAdam:", diff < 1e-5)
print("state keys", sorted(mine.state[a[0].weight]), "step", mine.state[a[0].weight]["step"])

for name, factory in (("RAdam", lambda ps: RAdam(ps, lr=1e-2, weight_decay=1e-4)),
                      ("AdaBelief", lambda ps: AdaBelief(ps, lr=1e-2, weight_decay=1e-4)),
                      ("Lookahead(RAdam)", lambda ps: Lookahead(RAdam(ps, lr=1e-2), k=3)),
                      ("SGD-GC", lambda ps: SGDGC(ps, lr=0.05))):
    model = make()
    opt = factory(model.parameters())
    losses = []
    for epoch in range(60):
        def closure():
            opt.zero_grad()  # noqa: B023 - called within the iteration
            loss = F.mse_loss(model(X), Y)  # noqa: B023
            loss.backward()
            return loss
        loss = opt.step(closure) if not isinstance(opt, SGDGC) else (closure(), opt.step())[0]
        losses.append(loss.item())
    print(f"{name:16s} loss {losses[0]:.4f} -> {losses[29]:.4f} -> {losses[-1]:.4f}")
print(type(opt).__name__, len(opt.param_groups), sorted(opt.param_groups[0]))
state = opt.state_dict()
print(sorted(state), len(state["state"]), state["param_groups"][0]["momentum"])
opt.__setstate__({"state": opt.state, "param_groups": opt.param_groups})
print("centralized grads:", [p.grad.mean(dim=1).abs().max().item() < 1e-6 for p in model.parameters() if p.dim() > 1])
