"""A graph attention network (GAT, the PyG GATConv recipe without PyG) on a synthetic
two-community graph: edge_index with self loops, attention logits from concatenated
projections, a segment softmax over incoming edges with scatter_reduce('amax') / index_add_,
multi-head concat then mean, dropout on attention, and node classification accuracy."""
import torch
import torch.nn as nn
import torch.nn.functional as F

torch.manual_seed(0)
N, F_IN, C = 40, 8, 2
labels = torch.arange(N) % C
x = torch.randn(N, F_IN) + labels[:, None].float() * 0.8
# dense inside a community, sparse across
src, dst = [], []
for i in range(N):
    for j in range(N):
        if i != j:
            same = labels[i] == labels[j]
            if torch.rand(1).item() < (0.15 if same else 0.02):
                src.append(i)
                dst.append(j)
edge_index = torch.tensor([src, dst])
print("edges", edge_index.shape[1], "homophily", (labels[edge_index[0]] == labels[edge_index[1]]).float().mean().item())


def add_self_loops(edge_index, num_nodes):
    loops = torch.arange(num_nodes).unsqueeze(0).repeat(2, 1)
    return torch.cat([edge_index, loops], dim=1)


def segment_softmax(scores, index, num_nodes):
    # softmax over the edges sharing a target node (torch_geometric.utils.softmax)
    heads = scores.size(1)
    out_max = torch.zeros(num_nodes, heads).scatter_reduce(0, index.unsqueeze(1).expand(-1, heads), scores,
                                                            reduce="amax", include_self=False)
    exp = (scores - out_max[index]).exp()
    denom = torch.zeros(num_nodes, heads).index_add_(0, index, exp)
    return exp / (denom[index] + 1e-16)


class GATLayer(nn.Module):
    def __init__(self, in_dim, out_dim, heads, concat=True, dropout=0.2):
        super().__init__()
        self.heads, self.out_dim, self.concat = heads, out_dim, concat
        self.lin = nn.Linear(in_dim, heads * out_dim, bias=False)
        self.att_src = nn.Parameter(torch.empty(1, heads, out_dim))
        self.att_dst = nn.Parameter(torch.empty(1, heads, out_dim))
        self.bias = nn.Parameter(torch.zeros(heads * out_dim if concat else out_dim))
        self.dropout = dropout
        nn.init.xavier_uniform_(self.lin.weight)
        nn.init.xavier_uniform_(self.att_src)
        nn.init.xavier_uniform_(self.att_dst)

    def forward(self, x, edge_index):
        n = x.size(0)
        h = self.lin(x).view(n, self.heads, self.out_dim)
        alpha_src = (h * self.att_src).sum(-1)
        alpha_dst = (h * self.att_dst).sum(-1)
        s, d = edge_index
        alpha = F.leaky_relu(alpha_src[s] + alpha_dst[d], 0.2)
        alpha = segment_softmax(alpha, d, n)
        self.last_alpha = alpha
        alpha = F.dropout(alpha, p=self.dropout, training=self.training)
        msg = h[s] * alpha.unsqueeze(-1)
        out = torch.zeros(n, self.heads, self.out_dim).index_add_(0, d, msg)
        out = out.reshape(n, -1) if self.concat else out.mean(1)
        return out + self.bias


class GAT(nn.Module):
    def __init__(self):
        super().__init__()
        self.conv1 = GATLayer(F_IN, 8, heads=4)
        self.conv2 = GATLayer(32, C, heads=1, concat=False)

    def forward(self, x, edge_index):
        x = F.dropout(x, p=0.3, training=self.training)
        x = F.elu(self.conv1(x, edge_index))
        x = F.dropout(x, p=0.3, training=self.training)
        return self.conv2(x, edge_index)


ei = add_self_loops(edge_index, N)
model = GAT()
print(model)
train_mask = torch.zeros(N, dtype=torch.bool)
train_mask[:12] = True
optimizer = torch.optim.Adam(model.parameters(), lr=0.01, weight_decay=5e-4)
for epoch in range(1, 61):
    model.train()
    optimizer.zero_grad()
    out = model(x, ei)
    loss = F.cross_entropy(out[train_mask], labels[train_mask])
    loss.backward()
    optimizer.step()
    if epoch % 20 == 0:
        model.eval()
        with torch.no_grad():
            pred = model(x, ei).argmax(1)
        acc = (pred[~train_mask] == labels[~train_mask]).float().mean().item()
        print(f"Epoch: {epoch:03d}, Loss: {loss.item():.4f}, Test Acc: {acc:.4f}")

alpha = model.conv1.last_alpha
sums = torch.zeros(N, 4).index_add_(0, ei[1], alpha)
print("attention sums to 1 per node:", torch.allclose(sums, torch.ones(N, 4), atol=1e-5))
print("scatter_reduce grad:", torch.zeros(3).scatter_reduce(0, torch.tensor([0, 0, 2]), torch.tensor([1.0, 3.0, 2.0], requires_grad=True), reduce="amax").grad_fn)
