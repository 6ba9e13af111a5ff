"""MADE: Masked Autoencoder for Distribution Estimation (Germain et al.; karpathy/pytorch-made),
on binarized synthetic 4x4 'images': MaskedLinear with its mask as a registered buffer
(set_mask copying a numpy mask with torch.from_numpy), connectivity from the ordering's
m_l degrees drawn with a seeded numpy RandomState, connectivity-agnostic training with
several orderings cycled per step (update_masks) and natural ordering, the autoregressive
property checked with gradients of each output w.r.t. the inputs (the test in karpathy's
run_checks), BCE-with-logits negative log-likelihood in nats, order-ensemble evaluation, and
sampling pixel by pixel in the model's ordering with torch.bernoulli."""
import numpy as np
import torch
import torch.nn as nn
import torch.nn.functional as F

torch.manual_seed(0)


class MaskedLinear(nn.Linear):
    def __init__(self, in_features, out_features, bias=True):
        super().__init__(in_features, out_features, bias)
        self.register_buffer("mask", torch.ones(out_features, in_features))

    def set_mask(self, mask):
        self.mask.data.copy_(torch.from_numpy(mask.astype(np.uint8).T))

    def forward(self, input):
        return F.linear(input, self.mask * self.weight, self.bias)


class MADE(nn.Module):
    def __init__(self, nin, hidden_sizes, nout, num_masks=1, natural_ordering=False):
        super().__init__()
        self.nin = nin
        self.nout = nout
        self.hidden_sizes = hidden_sizes
        assert self.nout % self.nin == 0, "nout must be integer multiple of nin"
        self.net = []
        hs = [nin] + hidden_sizes + [nout]
        for h0, h1 in zip(hs, hs[1:]):
            self.net.extend([MaskedLinear(h0, h1), nn.ReLU()])
        self.net.pop()
        self.net = nn.Sequential(*self.net)
        self.natural_ordering = natural_ordering
        self.num_masks = num_masks
        self.seed = 0
        self.m = {}
        self.update_masks()

    def update_masks(self):
        if self.m and self.num_masks == 1:
            return
        L = len(self.hidden_sizes)
        rng = np.random.RandomState(self.seed)
        self.seed = (self.seed + 1) % self.num_masks
        self.m[-1] = np.arange(self.nin) if self.natural_ordering else rng.permutation(self.nin)
        for l in range(L):
            self.m[l] = rng.randint(self.m[l - 1].min(), self.nin - 1, size=self.hidden_sizes[l])
        masks = [self.m[l - 1][:, None] <= self.m[l][None, :] for l in range(L)]
        masks.append(self.m[L - 1][:, None] < self.m[-1][None, :])
        if self.nout > self.nin:
            k = int(self.nout / self.nin)
            masks[-1] = np.concatenate([masks[-1]] * k, axis=1)
        layers = [l for l in self.net.modules() if isinstance(l, MaskedLinear)]
        for l, m in zip(layers, masks):
            l.set_mask(m)

    def forward(self, x):
        return self.net(x)


def run_checks(model, nin, rng):
    x = (rng.rand(1, nin) > 0.5).astype(np.float32)
    res = []
    for k in range(nin):
        xtr = torch.from_numpy(x).requires_grad_()
        xtrhat = model(xtr)
        loss = xtrhat[0, k]
        loss.backward()
        depends = (xtr.grad[0] != 0).numpy().astype(np.uint8)
        depends_ix = list(np.where(depends)[0])
        isok = k % nin not in depends_ix
        res.append((len(depends_ix), k, depends_ix, isok))
    res.sort()
    return res


D = 16
gen = torch.Generator().manual_seed(0)
protos = (torch.rand(3, D, generator=gen) > 0.5).float()
def sample_data(n):
    idx = torch.randint(0, 3, (n,), generator=gen)
    flip = torch.rand(n, D, generator=gen) < 0.1
    return torch.where(flip, 1 - protos[idx], protos[idx])

xtr, xte = sample_data(512), sample_data(128)
print("data", tuple(xtr.shape), xtr.dtype, "mean", f"{xtr.mean().item():.4f}")

small = MADE(4, [6, 6], 4, natural_ordering=True)
print(small)
print("mask 0\n", small.net[0].mask)
print("output mask\n", small.net[-1].mask)
for n_deps, k, deps, ok in run_checks(small, 4, np.random.RandomState(14)):
    print(f"output {k} depends on inputs {[int(d) for d in deps]}: {'OK' if ok else 'NOTOK'}")

for num_masks in (1, 4):
    torch.manual_seed(1)
    model = MADE(D, [64, 64], D, num_masks=num_masks)
    opt = torch.optim.Adam(model.parameters(), lr=1e-3, weight_decay=1e-4)
    scheduler = torch.optim.lr_scheduler.StepLR(opt, step_size=20, gamma=0.5)
    for epoch in range(30):
        model.train()
        perm = torch.randperm(len(xtr))
        lossfs = []
        for b in range(0, len(xtr), 128):
            xb = xtr[perm[b:b + 128]]
            model.update_masks()
            xbhat = model(xb)
            loss = F.binary_cross_entropy_with_logits(xbhat, xb, reduction="sum") / xb.size(0)
            opt.zero_grad()
            loss.backward()
            opt.step()
            lossfs.append(loss.item())
        scheduler.step()
        if epoch % 10 == 0:
            print(f"masks={num_masks} epoch {epoch} train loss {np.mean(lossfs):.6f}")
    model.eval()
    with torch.no_grad():
        xbhat = torch.zeros_like(xte)
        for s in range(num_masks):
            model.update_masks()
            xbhat += model(xte)
        xbhat /= num_masks
        test_nll = F.binary_cross_entropy_with_logits(xbhat, xte, reduction="sum").item() / xte.size(0)
    print(f"masks={num_masks} test nll {test_nll:.6f} nats, below uniform {D * np.log(2):.4f}: {test_nll < D * np.log(2)}")
    checks = run_checks(model, D, np.random.RandomState(0))
    print(f"masks={num_masks} autoregressive property holds for all outputs: {all(c[3] for c in checks)}")

# sampling in the model's ordering
model.eval()
order = model.m[-1]
with torch.no_grad():
    x = torch.zeros(5, D)
    for i in np.argsort(order):
        probs = torch.sigmoid(model(x))[:, i]
        x[:, i] = torch.bernoulli(probs)
print("samples", tuple(x.shape), "binary:", bool(((x == 0) | (x == 1)).all()), "ordering", order.tolist())
