"""Activation checkpointing in a deep residual MLP (torch.utils.checkpoint): checkpoint with
use_reentrant=False and True, checkpoint_sequential over an nn.Sequential, dropout replayed with
the saved RNG state, and gradients compared with the plain forward."""
import torch
import torch.nn as nn
from torch.utils.checkpoint import checkpoint, checkpoint_sequential


class Block(nn.Module):
    def __init__(self, dim):
        super().__init__()
        self.norm = nn.LayerNorm(dim)
        self.fc1 = nn.Linear(dim, dim * 2)
        self.fc2 = nn.Linear(dim * 2, dim)
        self.drop = nn.Dropout(0.1)

    def forward(self, x):
        return x + self.drop(self.fc2(torch.tanh(self.fc1(self.norm(x)))))


class DeepMLP(nn.Module):
    def __init__(self, dim=16, depth=6, use_checkpoint=False, reentrant=False):
        super().__init__()
        self.blocks = nn.ModuleList(Block(dim) for _ in range(depth))
        self.head = nn.Linear(dim, 1)
        self.use_checkpoint = use_checkpoint
        self.reentrant = reentrant
        self.calls = 0

    def forward(self, x):
        for block in self.blocks:
            if self.use_checkpoint and self.training:
                x = checkpoint(block, x, use_reentrant=self.reentrant)
            else:
                x = block(x)
        return self.head(x)


def count_calls(module, args, output):
    module.calls += 1


torch.manual_seed(0)
x = torch.randn(8, 16)
target = torch.randn(8, 1)
reference = DeepMLP()
state = reference.state_dict()
grads = {}
for label, use_ckpt, reentrant in [("plain", False, False), ("non-reentrant", True, False),
                                   ("reentrant", True, True)]:
    model = DeepMLP(use_checkpoint=use_ckpt, reentrant=reentrant)
    model.load_state_dict(state)
    hook = model.blocks[0].fc1.register_forward_hook(lambda m, a, o: calls.append(1))  # noqa: B023
    calls = []
    torch.manual_seed(1)
    inp = x.clone().requires_grad_(True)
    loss = nn.functional.mse_loss(model(inp), target)
    loss.backward()
    hook.remove()
    grads[label] = [p.grad.clone() for p in model.parameters()] + [inp.grad.clone()]
    print(f"{label:14s} loss {loss.item():.6f} fc1 forward calls {len(calls)} "
          f"grad norm {inp.grad.norm():.6f}")

for label in ["non-reentrant", "reentrant"]:
    same = all(torch.allclose(a, b, atol=1e-6) for a, b in zip(grads["plain"], grads[label]))
    print(f"{label} gradients match plain: {same}")

# checkpoint_sequential over an nn.Sequential split into segments
torch.manual_seed(0)
seq = nn.Sequential(*[nn.Sequential(nn.Linear(16, 16), nn.ReLU()) for _ in range(8)], nn.Linear(16, 2))
inp = torch.randn(4, 16, requires_grad=True)
out = checkpoint_sequential(seq, 3, inp, use_reentrant=False)
out.sum().backward()
g_ckpt = inp.grad.clone()
inp.grad = None
seq(inp).sum().backward()
print("checkpoint_sequential out", tuple(out.shape), "grads match:", torch.allclose(g_ckpt, inp.grad))
print(out)

# a short training run with checkpointing
torch.manual_seed(0)
model = DeepMLP(use_checkpoint=True)
opt = torch.optim.AdamW(model.parameters(), lr=3e-3)
data = torch.randn(64, 16)
labels = data[:, :4].sum(1, keepdim=True)
for step in range(30):
    opt.zero_grad(set_to_none=True)
    loss = nn.functional.mse_loss(model(data), labels)
    loss.backward()
    opt.step()
    if step % 10 == 9:
        print(f"step {step + 1} loss {loss.item():.4f}")
model.eval()
with torch.no_grad():
    print("eval loss", round(nn.functional.mse_loss(model(data), labels).item(), 4))

# checkpoint with a function taking several tensors and a non-tensor argument
def attention(q, k, v, scale):
    return torch.softmax(q @ k.transpose(-2, -1) * scale, dim=-1) @ v


q, k, v = (torch.randn(2, 5, 4, requires_grad=True) for _ in range(3))
out = checkpoint(attention, q, k, v, 0.5, use_reentrant=False)
out.pow(2).sum().backward()
print("attention grads:", q.grad.shape, k.grad.abs().sum().item() > 0, v.grad[0, 0])
