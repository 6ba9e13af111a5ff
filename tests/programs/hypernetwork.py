"""Hypernetworks as the continual-learning and meta-learning repositories write them
(hypnettorch / 'Continual learning with hypernetworks', von Oswald et al.): a task-embedding
hypernetwork emitting every weight of a target MLP as one flat vector, split with
torch.split and viewed into the target's parameter shapes, the target run functionally with
F.linear and with torch.func.functional_call over a dict of generated tensors, a chunked
hypernetwork with learned chunk embeddings, the output-regularizer that keeps old tasks'
generated weights fixed (targets computed under torch.no_grad and detached), per-task
evaluation and the parameter-count compression ratio."""
import torch
import torch.nn as nn
import torch.nn.functional as F
from torch.func import functional_call

torch.manual_seed(0)


class TargetMLP(nn.Module):
    def __init__(self, n_in=2, n_hidden=16, n_out=1):
        super().__init__()
        self.fc1 = nn.Linear(n_in, n_hidden)
        self.fc2 = nn.Linear(n_hidden, n_hidden)
        self.out = nn.Linear(n_hidden, n_out)

    def forward(self, x):
        return self.out(torch.tanh(self.fc2(torch.tanh(self.fc1(x)))))


target = TargetMLP()
param_shapes = {name: p.shape for name, p in target.named_parameters()}
n_target = sum(p.numel() for p in target.parameters())
print("target parameter shapes", {k: tuple(v) for k, v in param_shapes.items()})
print("target parameter count", n_target)


class HyperNetwork(nn.Module):
    def __init__(self, n_tasks, emb_dim, shapes, hidden=32):
        super().__init__()
        self.shapes = shapes
        self.sizes = [int(torch.tensor(s).prod()) for s in shapes.values()]
        self.task_embs = nn.ParameterList([nn.Parameter(torch.randn(emb_dim) * 0.1) for _ in range(n_tasks)])
        self.net = nn.Sequential(nn.Linear(emb_dim, hidden), nn.ReLU(), nn.Linear(hidden, sum(self.sizes)))
        with torch.no_grad():
            self.net[-1].weight.mul_(0.1)

    def forward(self, task_id):
        flat = self.net(self.task_embs[task_id])
        chunks = torch.split(flat, self.sizes)
        return {name: c.view(shape) for (name, shape), c in zip(self.shapes.items(), chunks)}


class ChunkedHyperNetwork(nn.Module):
    def __init__(self, n_tasks, emb_dim, shapes, chunk_size=64, chunk_emb_dim=4, hidden=32):
        super().__init__()
        self.shapes = shapes
        self.total = sum(int(torch.tensor(s).prod()) for s in shapes.values())
        self.n_chunks = -(-self.total // chunk_size)
        self.chunk_size = chunk_size
        self.task_embs = nn.Parameter(torch.randn(n_tasks, emb_dim) * 0.1)
        self.chunk_embs = nn.Parameter(torch.randn(self.n_chunks, chunk_emb_dim) * 0.1)
        self.net = nn.Sequential(nn.Linear(emb_dim + chunk_emb_dim, hidden), nn.ReLU(), nn.Linear(hidden, chunk_size))

    def forward(self, task_id):
        t = self.task_embs[task_id].expand(self.n_chunks, -1)
        flat = self.net(torch.cat([t, self.chunk_embs], dim=1)).flatten()[: self.total]
        out, start = {}, 0
        for name, shape in self.shapes.items():
            n = int(torch.tensor(shape).prod())
            out[name] = flat[start:start + n].view(shape)
            start += n
        return out


def run_target(weights, x):
    h = torch.tanh(F.linear(x, weights["fc1.weight"], weights["fc1.bias"]))
    h = torch.tanh(F.linear(h, weights["fc2.weight"], weights["fc2.bias"]))
    return F.linear(h, weights["out.weight"], weights["out.bias"])


def make_task(k, n=128):
    x = torch.rand(n, 2) * 4 - 2
    freq = 1.0 + 0.5 * k
    y = torch.sin(freq * x[:, :1]) * torch.cos(x[:, 1:]) + 0.1 * k
    return x, y


tasks = [make_task(k) for k in range(3)]
for Hyper in (HyperNetwork, ChunkedHyperNetwork):
    torch.manual_seed(1)
    hnet = Hyper(len(tasks), 8, param_shapes)
    n_h = sum(p.numel() for p in hnet.parameters())
    print(Hyper.__name__, "parameters", n_h, f"compression ratio {n_h / (n_target * len(tasks)):.3f}")
    if Hyper is ChunkedHyperNetwork:
        print("  chunks", hnet.n_chunks, "chunk embeddings", tuple(hnet.chunk_embs.shape))
    w = hnet(0)
    x0, y0 = tasks[0]
    same = torch.allclose(run_target(w, x0), functional_call(target, w, (x0,)))
    print("  F.linear target equals functional_call:", same)
    print("  generated shapes", [tuple(v.shape) for v in w.values()], w["fc1.weight"].grad_fn.name())
    opt = torch.optim.Adam(hnet.parameters(), lr=3e-3)
    beta = 0.05
    old_targets = {}
    for task_id, (x, y) in enumerate(tasks):
        for step in range(80):
            opt.zero_grad()
            loss = F.mse_loss(functional_call(target, hnet(task_id), (x,)), y)
            reg = torch.zeros(())
            for old_id, old_w in old_targets.items():
                new_w = hnet(old_id)
                reg = reg + sum(((new_w[k] - old_w[k]) ** 2).sum() for k in old_w)
            total = loss + beta * reg
            total.backward()
            opt.step()
        print(f"  task {task_id} loss {loss.item():.5f} regularizer {reg.item():.6f}")
        with torch.no_grad():
            old_targets[task_id] = {k: v.detach().clone() for k, v in hnet(task_id).items()}
    with torch.no_grad():
        for task_id, (x, y) in enumerate(tasks):
            mse = F.mse_loss(run_target(hnet(task_id), x), y)
            print(f"  after all tasks: task {task_id} mse {mse.item():.5f}")
    print("  old tasks remembered:", all(F.mse_loss(run_target(hnet(t), x), y).item() < 0.5 for t, (x, y) in enumerate(tasks)))

# the hypernetwork's output is differentiable in the task embedding: gradient of the target's
# output with respect to the embedding
hnet = HyperNetwork(1, 3, param_shapes)
emb = hnet.task_embs[0]
out = run_target(hnet(0), torch.zeros(1, 2)).sum()
g, = torch.autograd.grad(out, emb)
print("d output / d embedding", g.shape, g.dtype)
