"""Neural collaborative filtering on implicit feedback: user/item nn.Embedding, nn.EmbeddingBag of each user's history, sampled negatives, BCEWithLogitsLoss with pos_weight, hit-rate@k evaluation."""
import torch
import torch.nn as nn

torch.manual_seed(9)
N_USERS, N_ITEMS = 30, 40

# each user likes the items of its "genre" (item % 4 == user % 4) with probability 0.6
genre_match = (torch.arange(N_USERS).unsqueeze(1) % 4) == (torch.arange(N_ITEMS).unsqueeze(0) % 4)
interactions = (torch.rand(N_USERS, N_ITEMS) < 0.6) & genre_match
users, items = interactions.nonzero(as_tuple=True)
print("interactions:", users.numel(), "density:", round(interactions.float().mean().item(), 4))
print("items per user (first 5):", interactions.sum(1)[:5].tolist())

# history bags: offsets into a flat item list, as EmbeddingBag expects
counts = interactions.sum(1)
offsets = torch.cat([torch.zeros(1, dtype=torch.long), counts.cumsum(0)[:-1]])
flat_items = items.clone()
print("offsets:", offsets[:5].tolist(), "flat:", flat_items.shape)


class NCF(nn.Module):
    def __init__(self, n_users, n_items, dim=16):
        super().__init__()
        self.user = nn.Embedding(n_users, dim)
        self.item = nn.Embedding(n_items, dim)
        self.history = nn.EmbeddingBag(n_items, dim, mode="mean")
        self.mlp = nn.Sequential(nn.Linear(3 * dim, 32), nn.ReLU(), nn.Linear(32, 1))
        nn.init.normal_(self.user.weight, std=0.1)
        nn.init.normal_(self.item.weight, std=0.1)

    def forward(self, u, i, hist):
        pu, qi = self.user(u), self.item(i)
        gmf = pu * qi
        x = torch.cat([gmf, pu + hist[u], qi], dim=-1)
        return self.mlp(x).squeeze(-1)


model = NCF(N_USERS, N_ITEMS)
print(model)
pos_weight = torch.tensor([(~interactions).sum().item() / interactions.sum().item()])
print("pos_weight:", pos_weight)
criterion = nn.BCEWithLogitsLoss(pos_weight=pos_weight / 4)
optimizer = torch.optim.Adam(model.parameters(), lr=1e-2)

for epoch in range(1, 16):
    neg_items = torch.randint(0, N_ITEMS, (users.numel() * 2,))
    neg_users = users.repeat(2)
    is_pos = interactions[neg_users, neg_items]
    neg_users, neg_items = neg_users[~is_pos], neg_items[~is_pos]
    u = torch.cat([users, neg_users])
    i = torch.cat([items, neg_items])
    target = torch.cat([torch.ones(users.numel()), torch.zeros(neg_users.numel())])
    hist = model.history(flat_items, offsets)
    loss = criterion(model(u, i, hist), target)
    optimizer.zero_grad()
    loss.backward()
    optimizer.step()
    if epoch % 5 == 0:
        print(f"epoch {epoch} loss {loss.item():.4f} negatives {neg_users.numel()}")

model.eval()
with torch.no_grad():
    hist = model.history(flat_items, offsets)
    all_u = torch.arange(N_USERS).repeat_interleave(N_ITEMS)
    all_i = torch.arange(N_ITEMS).repeat(N_USERS)
    scores = torch.sigmoid(model(all_u, all_i, hist)).view(N_USERS, N_ITEMS)
top = scores.topk(5, dim=1).indices
hits = torch.gather(genre_match, 1, top).float().mean().item()
print(f"genre hit-rate@5: {hits:.3f}")
print("scores in (0, 1):", bool(((scores > 0) & (scores < 1)).all()))
seen = torch.isin(top[0], items[users == 0])
print("top-5 of user 0 already seen:", int(seen.sum()), top.shape)
print("unique recommended items:", torch.unique(top).numel() <= N_ITEMS)
