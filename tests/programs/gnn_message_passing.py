"""A graph convolutional network written by hand: edge lists, degree normalization, index_add_ / scatter_add_ aggregation."""
import torch
import torch.nn as nn
import torch.nn.functional as F

torch.manual_seed(7)

# two communities of 10 nodes each, dense inside, a few bridges between them
num_nodes = 20
edges = []
for a in range(num_nodes):
    for b in range(a + 1, num_nodes):
        same = (a < 10) == (b < 10)
        if same and (a + b) % 3 == 0:
            edges.append((a, b))
edges += [(0, 10), (5, 15)]
edge_index = torch.tensor(edges, dtype=torch.long).t()
edge_index = torch.cat([edge_index, edge_index.flip(0)], dim=1)  # undirected
print("edge_index:", edge_index.shape, edge_index.dtype)
labels = (torch.arange(num_nodes) >= 10).long()
features = torch.randn(num_nodes, 8) + labels.unsqueeze(1).float()


def add_self_loops(edge_index, n):
    loops = torch.arange(n).unsqueeze(0).repeat(2, 1)
    return torch.cat([edge_index, loops], dim=1)


def degree(index, n):
    out = torch.zeros(n)
    return out.scatter_add_(0, index, torch.ones(index.size(0)))


class GCNLayer(nn.Module):
    def __init__(self, in_features, out_features):
        super().__init__()
        self.linear = nn.Linear(in_features, out_features, bias=False)
        self.bias = nn.Parameter(torch.zeros(out_features))

    def forward(self, x, edge_index):
        edge_index = add_self_loops(edge_index, x.size(0))
        row, col = edge_index
        deg = degree(col, x.size(0))
        deg_inv_sqrt = deg.pow(-0.5)
        deg_inv_sqrt[deg_inv_sqrt == float("inf")] = 0
        norm = deg_inv_sqrt[row] * deg_inv_sqrt[col]
        x = self.linear(x)
        messages = norm.view(-1, 1) * x[row]
        out = torch.zeros_like(x).index_add_(0, col, messages)
        return out + self.bias


class MeanAggLayer(nn.Module):
    """GraphSAGE-style mean aggregation with scatter_add."""

    def __init__(self, in_features, out_features):
        super().__init__()
        self.lin_self = nn.Linear(in_features, out_features)
        self.lin_neigh = nn.Linear(in_features, out_features)

    def forward(self, x, edge_index):
        src, dst = edge_index
        summed = torch.zeros(x.size(0), x.size(1)).scatter_add(
            0, dst.unsqueeze(1).expand(-1, x.size(1)), x[src])
        count = torch.bincount(dst, minlength=x.size(0)).clamp(min=1).unsqueeze(1)
        return self.lin_self(x) + self.lin_neigh(summed / count)


class GNN(nn.Module):
    def __init__(self):
        super().__init__()
        self.conv1 = GCNLayer(8, 16)
        self.conv2 = MeanAggLayer(16, 2)

    def forward(self, x, edge_index):
        x = F.relu(self.conv1(x, edge_index))
        x = F.dropout(x, p=0.2, training=self.training)
        return self.conv2(x, edge_index)


deg = degree(edge_index[1], num_nodes)
print("degrees:", deg.long().tolist())
print("isolated nodes:", int((deg == 0).sum()))

model = GNN()
print(model)
train_mask = torch.zeros(num_nodes, dtype=torch.bool)
train_mask[[0, 1, 2, 10, 11, 12]] = True
optimizer = torch.optim.Adam(model.parameters(), lr=0.01, weight_decay=5e-4)

for epoch in range(1, 41):
    model.train()
    optimizer.zero_grad()
    out = model(features, edge_index)
    loss = F.cross_entropy(out[train_mask], labels[train_mask])
    loss.backward()
    optimizer.step()
    if epoch % 20 == 0:
        model.eval()
        with torch.no_grad():
            pred = model(features, edge_index).argmax(dim=1)
            acc = (pred[~train_mask] == labels[~train_mask]).sum().item() / int((~train_mask).sum())
        print(f"Epoch: {epoch:03d}, Loss: {loss.item():.4f}, Test Acc: {acc:.4f}")

model.eval()
emb = F.relu(model.conv1(features, edge_index))
print("node embeddings:", emb.shape, "requires_grad:", emb.requires_grad)
print("grad_fn:", type(emb.grad_fn).__name__)
adj = torch.sparse_coo_tensor(edge_index, torch.ones(edge_index.size(1)), (num_nodes, num_nodes))
dense = adj.to_dense()
print("adjacency symmetric:", torch.equal(dense, dense.t()), "nnz:", adj._nnz())
