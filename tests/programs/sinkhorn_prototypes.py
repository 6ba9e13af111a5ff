"""Two metric / transport recipes on toy data: prototypical networks (episodic few-shot training:
randperm-sampled N-way K-shot episodes, class prototypes as support means, squared euclidean
distances via cdist, log_softmax over -distances, arange().repeat_interleave labels) and a
log-domain Sinkhorn (entropic optimal transport between point clouds with logsumexp iterations,
the transport plan's marginals, and a Wasserstein gradient flow moving the source points)."""
import math

import torch
import torch.nn as nn
import torch.nn.functional as F

torch.manual_seed(4)

# -- prototypical networks --
N_CLASSES, PER_CLASS, DIM = 12, 20, 8
centers = torch.randn(N_CLASSES, DIM) * 2
data = centers.repeat_interleave(PER_CLASS, 0) + torch.randn(N_CLASSES * PER_CLASS, DIM)
labels = torch.arange(N_CLASSES).repeat_interleave(PER_CLASS)
train_classes, test_classes = torch.arange(8), torch.arange(8, 12)


def sample_episode(classes, n_way, k_shot, n_query):
    chosen = classes[torch.randperm(len(classes))[:n_way]]
    support, query = [], []
    for c in chosen:
        idx = (labels == c).nonzero(as_tuple=True)[0]
        idx = idx[torch.randperm(len(idx))[:k_shot + n_query]]
        support.append(data[idx[:k_shot]])
        query.append(data[idx[k_shot:]])
    return torch.stack(support), torch.stack(query)


encoder = nn.Sequential(nn.Linear(DIM, 32), nn.ReLU(), nn.Linear(32, 16))
opt = torch.optim.Adam(encoder.parameters(), lr=1e-3)
sched = torch.optim.lr_scheduler.StepLR(opt, step_size=50, gamma=0.5)


def proto_loss(support, query):
    n_way, k_shot, _ = support.shape
    n_query = query.shape[1]
    z_proto = encoder(support.reshape(n_way * k_shot, -1)).view(n_way, k_shot, -1).mean(1)
    z_query = encoder(query.reshape(n_way * n_query, -1))
    dists = torch.cdist(z_query, z_proto).pow(2)
    log_p_y = F.log_softmax(-dists, dim=1).view(n_way, n_query, -1)
    target = torch.arange(n_way).view(n_way, 1, 1).expand(n_way, n_query, 1)
    loss = -log_p_y.gather(2, target).squeeze(-1).mean()
    acc = (log_p_y.argmax(2) == target.squeeze(-1)).float().mean()
    return loss, acc


for episode in range(1, 151):
    support, query = sample_episode(train_classes, 5, 3, 4)
    loss, acc = proto_loss(support, query)
    opt.zero_grad()
    loss.backward()
    opt.step()
    sched.step()
    if episode % 50 == 0:
        print(f"episode {episode} loss {loss.item():.4f} acc {acc.item():.3f} lr {sched.get_last_lr()[0]:.5f}")

encoder.eval()
with torch.no_grad():
    accs = [proto_loss(*sample_episode(test_classes, 4, 5, 5))[1].item() for _ in range(20)]
print(f"test 4-way 5-shot accuracy: {sum(accs) / len(accs):.3f}")


# -- Sinkhorn --
def sinkhorn(x, y, eps=0.05, n_iters=100):
    C = torch.cdist(x, y, p=2) ** 2
    n, m = C.shape
    log_a = torch.full((n,), -math.log(n))
    log_b = torch.full((m,), -math.log(m))
    f = torch.zeros(n)
    g = torch.zeros(m)
    for _ in range(n_iters):
        f = -eps * torch.logsumexp((g[None, :] - C) / eps + log_b[None, :], dim=1)
        g = -eps * torch.logsumexp((f[:, None] - C) / eps + log_a[:, None], dim=0)
    log_P = (f[:, None] + g[None, :] - C) / eps + log_a[:, None] + log_b[None, :]
    P = log_P.exp()
    return (P * C).sum(), P


x = torch.randn(30, 2) * 0.5
y = torch.randn(40, 2) * 0.5 + torch.tensor([2.0, 1.0])
cost, P = sinkhorn(x, y)
print(f"OT cost {cost.item():.4f} plan sum {P.sum().item():.4f}")
print("marginal errors:", f"{(P.sum(1) - 1 / 30).abs().max().item():.2e}" if (P.sum(1) - 1 / 30).abs().max() > 1e-6 else "< 1e-6",
      f"{(P.sum(0) - 1 / 40).abs().max().item():.1e}" if (P.sum(0) - 1 / 40).abs().max() > 1e-6 else "< 1e-6")
print("plan argmax rows:", P.argmax(1)[:10].tolist())

xs = x.clone().requires_grad_(True)
flow_opt = torch.optim.SGD([xs], lr=1.0)
for it in range(30):
    cost, _ = sinkhorn(xs, y, n_iters=50)
    flow_opt.zero_grad()
    (cost * xs.shape[0] / 2).backward()
    flow_opt.step()
    if it % 10 == 0:
        print(f"flow iter {it} cost {cost.item():.4f} grad norm {xs.grad.norm().item():.4f}")
print("source mean moved to:", xs.detach().mean(0).round(decimals=2).tolist(), "target mean:",
      y.mean(0).round(decimals=2).tolist())
