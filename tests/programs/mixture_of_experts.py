"""A sparse mixture-of-experts layer (top-2 gating, load-balancing auxiliary loss, expert capacity via one_hot/cumsum, scatter back with index_add_) inside a small classifier."""
import torch
import torch.nn as nn
import torch.nn.functional as F

torch.manual_seed(21)


class Expert(nn.Module):
    def __init__(self, d_model, d_hidden):
        super().__init__()
        self.w1 = nn.Linear(d_model, d_hidden)
        self.w2 = nn.Linear(d_hidden, d_model)

    def forward(self, x):
        return self.w2(F.silu(self.w1(x)))


class MoE(nn.Module):
    def __init__(self, d_model=16, d_hidden=32, num_experts=4, k=2, capacity_factor=1.5):
        super().__init__()
        self.k = k
        self.num_experts = num_experts
        self.capacity_factor = capacity_factor
        self.gate = nn.Linear(d_model, num_experts, bias=False)
        self.experts = nn.ModuleList([Expert(d_model, d_hidden) for _ in range(num_experts)])

    def forward(self, x):
        tokens = x.reshape(-1, x.size(-1))
        n = tokens.size(0)
        logits = self.gate(tokens)
        probs = F.softmax(logits, dim=-1)
        topk_probs, topk_idx = torch.topk(probs, self.k, dim=-1)
        topk_probs = topk_probs / topk_probs.sum(dim=-1, keepdim=True)

        # load-balancing loss (Switch Transformer): fraction routed x mean gate probability
        mask = F.one_hot(topk_idx[:, 0], self.num_experts).float()
        density = mask.mean(dim=0)
        density_proxy = probs.mean(dim=0)
        aux_loss = (density * density_proxy).sum() * self.num_experts

        capacity = int(self.capacity_factor * n * self.k / self.num_experts)
        out = torch.zeros_like(tokens)
        dropped = 0
        for e, expert in enumerate(self.experts):
            token_idx, slot = torch.where(topk_idx == e)
            if token_idx.numel() == 0:
                continue
            # position of each token in the expert's queue; drop those beyond capacity
            position = torch.cumsum(torch.ones_like(token_idx), dim=0) - 1
            keep = position < capacity
            dropped += int((~keep).sum())
            token_idx, slot = token_idx[keep], slot[keep]
            weight = topk_probs[token_idx, slot].unsqueeze(-1)
            out.index_add_(0, token_idx, expert(tokens[token_idx]) * weight)
        self.last_stats = {"capacity": capacity, "dropped": dropped,
                           "load": torch.bincount(topk_idx.flatten(), minlength=self.num_experts)}
        return out.view_as(x), aux_loss


class Classifier(nn.Module):
    def __init__(self):
        super().__init__()
        self.embed = nn.Linear(8, 16)
        self.norm = nn.LayerNorm(16)
        self.moe = MoE()
        self.head = nn.Linear(16, 3)

    def forward(self, x):
        h = self.embed(x)
        m, aux = self.moe(self.norm(h))
        h = h + m
        return self.head(h.mean(dim=1)), aux


# sequences of 6 tokens with 8 features; the class is which feature block carries the signal
X = torch.randn(96, 6, 8)
y = torch.arange(96) % 3
for c in range(3):
    X[y == c, :, c * 2:(c + 1) * 2] += 1.5

model = Classifier()
print(model.moe)
print("gate weight:", model.moe.gate.weight.shape)
optimizer = torch.optim.Adam(model.parameters(), lr=5e-3)
for epoch in range(1, 11):
    perm = torch.randperm(96)
    for i in range(0, 96, 32):
        idx = perm[i:i + 32]
        logits, aux = model(X[idx])
        loss = F.cross_entropy(logits, y[idx]) + 0.01 * aux
        optimizer.zero_grad()
        loss.backward()
        optimizer.step()
    if epoch % 5 == 0:
        print(f"epoch {epoch} loss {loss.item():.4f} aux {aux.item():.4f} "
              f"load {model.moe.last_stats['load'].tolist()} dropped {model.moe.last_stats['dropped']}")

model.eval()
with torch.no_grad():
    logits, aux = model(X)
acc = (logits.argmax(-1) == y).float().mean().item()
print(f"accuracy {acc:.3f}")
print("capacity per expert:", model.moe.last_stats["capacity"])
print("every expert received tokens:", bool((model.moe.last_stats["load"] > 0).all()))
grads = [p.grad is not None for p in model.moe.experts.parameters()]
print("experts with gradients:", sum(grads), "/", len(grads))
