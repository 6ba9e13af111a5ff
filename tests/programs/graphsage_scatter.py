"""GraphSAGE / GIN layers written with plain scatter ops, as torch_geometric-free repositories do:
edge lists made undirected with cat + unique(dim=1), self-loops, degrees with bincount /
scatter_add, neighbour aggregation with index_add_ and scatter_reduce ('mean', 'amax', 'sum',
include_self=False), a batch vector for graph-level pooling, edge dropout, and a graph
classification loop over mini-batches of small graphs."""
import torch
import torch.nn as nn
import torch.nn.functional as F

torch.manual_seed(2)


def to_undirected(edge_index, num_nodes):
    row, col = edge_index
    ei = torch.cat([torch.stack([row, col]), torch.stack([col, row])], dim=1)
    idx = ei[0] * num_nodes + ei[1]
    idx = torch.unique(idx, sorted=True, return_inverse=False)
    return torch.stack([idx // num_nodes, idx % num_nodes])


def add_self_loops(edge_index, num_nodes):
    loop = torch.arange(num_nodes).unsqueeze(0).repeat(2, 1)
    return torch.cat([edge_index, loop], dim=1)


def degree(index, num_nodes, dtype=torch.float):
    out = torch.zeros(num_nodes, dtype=dtype)
    return out.scatter_add_(0, index, torch.ones(index.size(0), dtype=dtype))


def scatter(src, index, dim_size, reduce="sum"):
    out = torch.zeros(dim_size, src.size(1), dtype=src.dtype)
    idx = index.unsqueeze(1).expand_as(src)
    if reduce == "sum":
        return out.index_add_(0, index, src)
    return out.scatter_reduce(0, idx, src, reduce=reduce, include_self=False)


class SAGEConv(nn.Module):
    def __init__(self, in_ch, out_ch, aggr="mean"):
        super().__init__()
        self.aggr = aggr
        self.lin_l = nn.Linear(in_ch, out_ch)
        self.lin_r = nn.Linear(in_ch, out_ch, bias=False)

    def forward(self, x, edge_index):
        src, dst = edge_index
        agg = scatter(x[src], dst, x.size(0), reduce=self.aggr)
        return self.lin_l(agg) + self.lin_r(x)

    def __repr__(self):
        return f"{self.__class__.__name__}({self.lin_l.in_features}, {self.lin_l.out_features}, aggr={self.aggr})"


class GINConv(nn.Module):
    def __init__(self, nn_module, eps=0.0, train_eps=True):
        super().__init__()
        self.nn = nn_module
        self.eps = nn.Parameter(torch.tensor([eps])) if train_eps else eps

    def forward(self, x, edge_index):
        src, dst = edge_index
        out = torch.zeros_like(x).index_add_(0, dst, x[src])
        return self.nn((1 + self.eps) * x + out)


class GraphNet(nn.Module):
    def __init__(self, in_ch, hidden, n_classes):
        super().__init__()
        self.conv1 = SAGEConv(in_ch, hidden, aggr="mean")
        self.conv2 = SAGEConv(hidden, hidden, aggr="amax")
        self.gin = GINConv(nn.Sequential(nn.Linear(hidden, hidden), nn.ReLU(), nn.Linear(hidden, hidden)))
        self.lin = nn.Linear(2 * hidden, n_classes)

    def forward(self, x, edge_index, batch, num_graphs):
        x = F.relu(self.conv1(x, edge_index))
        x = F.dropout(x, p=0.1, training=self.training)
        x = F.relu(self.conv2(x, edge_index))
        x = self.gin(x, edge_index)
        counts = torch.bincount(batch, minlength=num_graphs).clamp(min=1).unsqueeze(1).float()
        mean_pool = torch.zeros(num_graphs, x.size(1)).index_add_(0, batch, x) / counts
        max_pool = scatter(x, batch, num_graphs, reduce="amax")
        return self.lin(torch.cat([mean_pool, max_pool], dim=1))


def make_graph(kind, n):
    if kind == 0:  # ring
        src = torch.arange(n)
        dst = (src + 1) % n
    else:  # star
        src = torch.zeros(n - 1, dtype=torch.long)
        dst = torch.arange(1, n)
    ei = to_undirected(torch.stack([src, dst]), n)
    x = torch.randn(n, 4) * 0.1 + degree(ei[0], n).unsqueeze(1) / n
    return x, ei


def collate(graphs):
    xs, eis, batch, offset = [], [], [], 0
    for i, (x, ei) in enumerate(graphs):
        xs.append(x)
        eis.append(ei + offset)
        batch.append(torch.full((x.size(0),), i, dtype=torch.long))
        offset += x.size(0)
    return torch.cat(xs), torch.cat(eis, dim=1), torch.cat(batch)


dataset = []
for i in range(48):
    label = i % 2
    dataset.append((make_graph(label, 5 + (i * 7) % 6), label))
x0, ei0 = dataset[1][0]
print("star edges (undirected):", ei0.shape[1], ei0[:, :6].tolist())
print("degrees:", degree(ei0[0], x0.size(0)).tolist())
print("with self-loops:", add_self_loops(ei0, x0.size(0)).shape)
print("scatter mean of a ring:", scatter(torch.arange(10.).view(5, 2), torch.tensor([0, 0, 1, 1, 1]), 3, "mean"))
print("scatter amax, empty row 2:", scatter(torch.arange(10.).view(5, 2), torch.tensor([0, 0, 1, 1, 1]), 3, "amax"))

model = GraphNet(4, 16, 2)
print(model)
opt = torch.optim.Adam(model.parameters(), lr=0.01, weight_decay=5e-4)
for epoch in range(1, 16):
    model.train()
    perm = torch.randperm(len(dataset))
    total = 0.0
    for start in range(0, len(dataset), 8):
        items = [dataset[j] for j in perm[start:start + 8].tolist()]
        x, ei, batch = collate([g for g, _ in items])
        # DropEdge
        keep = torch.rand(ei.size(1)) > 0.1
        y = torch.tensor([lab for _, lab in items])
        opt.zero_grad()
        out = model(x, ei[:, keep], batch, len(items))
        loss = F.cross_entropy(out, y)
        loss.backward()
        opt.step()
        total += loss.item() * len(items)
    if epoch % 5 == 0:
        print(f"Epoch: {epoch:03d}, Loss: {total / len(dataset):.4f}, eps: {model.gin.eps.item():.4f}")

model.eval()
with torch.no_grad():
    x, ei, batch = collate([g for g, _ in dataset])
    pred = model(x, ei, batch, len(dataset)).argmax(1)
    y = torch.tensor([lab for _, lab in dataset])
print("train accuracy:", (pred == y).float().mean().item())
src = torch.tensor([[1.0, 2.0], [3.0, 4.0], [5.0, 6.0]], requires_grad=True)
out = scatter(src, torch.tensor([0, 0, 1]), 2, "amax")
out.sum().backward()
print("amax grad:", src.grad.tolist())
src.grad = None
scatter(src, torch.tensor([0, 0, 1]), 2, "mean").sum().backward()
print("mean grad:", src.grad.tolist())
print("scatter_reduce prod include_self:", torch.ones(2, 2).scatter_reduce(0, torch.tensor([[0, 1], [0, 1]]),
                                                                          torch.tensor([[2.0, 3.0], [4.0, 5.0]]), "prod"))
print("index_reduce amin:", torch.full((2,), 9.0).index_reduce(0, torch.tensor([0, 0, 1]), torch.tensor([3.0, 1.0, 7.0]), "amin"))
