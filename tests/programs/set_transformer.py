"""Permutation-invariant set models (Deep Sets, Zaheer et al.; the Set Transformer of Lee et
al., juho-lee/set_transformer's modules.py): MAB / SAB / ISAB / PMA blocks written with
torch.split over heads and bmm as the reference code does, inducing points as parameters,
variable-size sets padded with a key mask (masked_fill with -inf before softmax), the
amortized-clustering-style toy task (predict the max and the mean of a set), invariance and
equivariance checked by permuting the set with torch.randperm and index_select, and a Deep
Sets baseline with sum / max pooling."""
import math

import torch
import torch.nn as nn
import torch.nn.functional as F

torch.manual_seed(0)


class MAB(nn.Module):
    def __init__(self, dim_Q, dim_K, dim_V, num_heads, ln=False):
        super().__init__()
        self.dim_V = dim_V
        self.num_heads = num_heads
        self.fc_q = nn.Linear(dim_Q, dim_V)
        self.fc_k = nn.Linear(dim_K, dim_V)
        self.fc_v = nn.Linear(dim_K, dim_V)
        if ln:
            self.ln0 = nn.LayerNorm(dim_V)
            self.ln1 = nn.LayerNorm(dim_V)
        self.fc_o = nn.Linear(dim_V, dim_V)

    def forward(self, Q, K, mask=None):
        Q = self.fc_q(Q)
        K, V = self.fc_k(K), self.fc_v(K)
        dim_split = self.dim_V // self.num_heads
        Q_ = torch.cat(Q.split(dim_split, 2), 0)
        K_ = torch.cat(K.split(dim_split, 2), 0)
        V_ = torch.cat(V.split(dim_split, 2), 0)
        scores = Q_.bmm(K_.transpose(1, 2)) / math.sqrt(self.dim_V)
        if mask is not None:
            scores = scores.masked_fill(mask.repeat(self.num_heads, 1).unsqueeze(1), float("-inf"))
        A = torch.softmax(scores, 2)
        O = torch.cat((Q_ + A.bmm(V_)).split(Q.size(0), 0), 2)
        O = O if getattr(self, "ln0", None) is None else self.ln0(O)
        O = O + F.relu(self.fc_o(O))
        O = O if getattr(self, "ln1", None) is None else self.ln1(O)
        return O


class SAB(nn.Module):
    def __init__(self, dim_in, dim_out, num_heads, ln=False):
        super().__init__()
        self.mab = MAB(dim_in, dim_in, dim_out, num_heads, ln=ln)

    def forward(self, X, mask=None):
        return self.mab(X, X, mask)


class ISAB(nn.Module):
    def __init__(self, dim_in, dim_out, num_heads, num_inds, ln=False):
        super().__init__()
        self.I = nn.Parameter(torch.Tensor(1, num_inds, dim_out))
        nn.init.xavier_uniform_(self.I)
        self.mab0 = MAB(dim_out, dim_in, dim_out, num_heads, ln=ln)
        self.mab1 = MAB(dim_in, dim_out, dim_out, num_heads, ln=ln)

    def forward(self, X, mask=None):
        H = self.mab0(self.I.repeat(X.size(0), 1, 1), X, mask)
        return self.mab1(X, H)


class PMA(nn.Module):
    def __init__(self, dim, num_heads, num_seeds, ln=False):
        super().__init__()
        self.S = nn.Parameter(torch.Tensor(1, num_seeds, dim))
        nn.init.xavier_uniform_(self.S)
        self.mab = MAB(dim, dim, dim, num_heads, ln=ln)

    def forward(self, X, mask=None):
        return self.mab(self.S.repeat(X.size(0), 1, 1), X, mask)


class SetTransformer(nn.Module):
    def __init__(self, dim_input, num_outputs, dim_output, num_inds=8, dim_hidden=32, num_heads=4, ln=True):
        super().__init__()
        self.enc = nn.ModuleList([ISAB(dim_input, dim_hidden, num_heads, num_inds, ln=ln),
                                  ISAB(dim_hidden, dim_hidden, num_heads, num_inds, ln=ln)])
        self.pma = PMA(dim_hidden, num_heads, num_outputs, ln=ln)
        self.dec = nn.Sequential(SAB(dim_hidden, dim_hidden, num_heads, ln=ln), nn.Linear(dim_hidden, dim_output))

    def forward(self, X, mask=None):
        H = self.enc[0](X, mask)
        H = self.enc[1](H, mask)
        return self.dec(self.pma(H, mask)).squeeze(1)


class DeepSets(nn.Module):
    def __init__(self, dim_input, dim_output, dim_hidden=32, pool="sum"):
        super().__init__()
        self.pool = pool
        self.enc = nn.Sequential(nn.Linear(dim_input, dim_hidden), nn.ReLU(), nn.Linear(dim_hidden, dim_hidden))
        self.dec = nn.Sequential(nn.ReLU(), nn.Linear(dim_hidden, dim_output))

    def forward(self, X, mask=None):
        H = self.enc(X)
        if mask is not None:
            fill = float("-inf") if self.pool == "max" else 0.0
            H = H.masked_fill(mask.unsqueeze(-1), fill)
        H = H.max(1).values if self.pool == "max" else H.sum(1)
        return self.dec(H)


def make_batch(batch, max_n, gen):
    sizes = torch.randint(3, max_n + 1, (batch,), generator=gen)
    X = torch.randn(batch, max_n, 1, generator=gen)
    mask = torch.arange(max_n)[None, :] >= sizes[:, None]
    Xm = X.masked_fill(mask.unsqueeze(-1), float("-inf"))
    target_max = Xm.amax(1)
    target_mean = X.masked_fill(mask.unsqueeze(-1), 0.0).sum(1) / sizes[:, None]
    return X.masked_fill(mask.unsqueeze(-1), 0.0), mask, torch.cat([target_max, target_mean], 1), sizes


gen = torch.Generator().manual_seed(0)
X, mask, y, sizes = make_batch(4, 6, gen)
print("set sizes", sizes.tolist())
print("mask", mask.int())
print("targets", y)

models = {"set_transformer": SetTransformer(1, 1, 2), "deepsets_sum": DeepSets(1, 2), "deepsets_max": DeepSets(1, 2, pool="max")}
print(models["set_transformer"].pma)
for name, model in models.items():
    model.eval()
    with torch.no_grad():
        X1 = torch.randn(3, 7, 1)
        perm = torch.randperm(7)
        out = model(X1)
        out_perm = model(X1.index_select(1, perm))
        print(f"{name:16s} permutation invariant: {torch.allclose(out, out_perm, atol=1e-5)} params {sum(p.numel() for p in model.parameters())}")
sab = SAB(1, 8, 2)
with torch.no_grad():
    X1 = torch.randn(2, 5, 1)
    perm = torch.randperm(5)
    print("SAB permutation equivariant:", torch.allclose(sab(X1)[:, perm], sab(X1[:, perm]), atol=1e-5))
    Xm, m, _, _ = make_batch(2, 6, gen)
    padded = torch.cat([Xm, torch.full((2, 3, 1), 7.0)], 1)
    m2 = torch.cat([m, torch.ones(2, 3, dtype=torch.bool)], 1)
    st = models["set_transformer"]
    print("padding ignored by the masked first attention:", torch.allclose(st.enc[0].mab0(st.enc[0].I.repeat(2, 1, 1), Xm, m), st.enc[0].mab0(st.enc[0].I.repeat(2, 1, 1), padded, m2), atol=1e-5))

for name, model in models.items():
    torch.manual_seed(3)
    gen = torch.Generator().manual_seed(1)
    model.train()
    opt = torch.optim.Adam(model.parameters(), lr=1e-3)
    losses = []
    for step in range(60):
        X, mask, y, _ = make_batch(32, 10, gen)
        loss = F.l1_loss(model(X, mask), y)
        opt.zero_grad()
        loss.backward()
        opt.step()
        losses.append(loss.item())
        if step % 20 == 0:
            print(f"{name:16s} step {step:2d} l1 {loss.item():.5f}")
    print(f"{name:16s} improved: {sum(losses[-5:]) < sum(losses[:5])}")
