"""Less common layers as small programs use them: a self-normalizing SELU net with
AlphaDropout and lecun init, PReLU / RReLU / GLU / Hardtanh / Softmin, InstanceNorm2d with
running stats, LocalResponseNorm (AlexNet), MaxPool2d(return_indices) + MaxUnpool2d (SegNet),
convolution written with F.unfold / F.fold (im2col), LPPool2d, nn.Bilinear, EmbeddingBag with
per_sample_weights, and AdaptiveLogSoftmaxWithLoss on a Zipfian vocabulary."""
import torch
import torch.nn as nn
import torch.nn.functional as F

torch.manual_seed(0)

# self-normalizing network
snn = nn.Sequential(nn.Linear(20, 64), nn.SELU(), nn.AlphaDropout(0.1), nn.Linear(64, 64), nn.SELU(),
                    nn.AlphaDropout(0.1), nn.Linear(64, 3))
for m in snn:
    if isinstance(m, nn.Linear):
        nn.init.kaiming_normal_(m.weight, nonlinearity="linear")
        nn.init.zeros_(m.bias)
x = torch.randn(256, 20)
with torch.no_grad():
    h = snn[:5](x)
print(f"SELU activations mean {h.mean().item():.3f} std {h.std().item():.3f}")
snn.train()
print("alpha dropout keeps mean near 0:", abs(snn[2](torch.randn(10000)).mean().item()) < 0.05)

acts = [nn.PReLU(num_parameters=3, init=0.1), nn.RReLU(0.1, 0.3), nn.Hardtanh(-0.5, 0.5), nn.Softmin(dim=1), nn.GLU(dim=1)]
z = torch.linspace(-2, 2, 12).view(2, 6)
for act in acts:
    inp = z.view(2, 3, 2) if isinstance(act, nn.PReLU) else z
    act.eval()
    print(act, act(inp).flatten()[:4])
rrelu = nn.RReLU(0.1, 0.3).train()
neg = rrelu(-torch.ones(1000))
print("rrelu slopes in range:", bool(((-neg >= 0.1) & (-neg <= 0.3)).all()), neg.unique().numel() > 100)

# normalization layers
img = torch.randn(4, 3, 8, 8) * 2 + 1
inorm = nn.InstanceNorm2d(3, affine=True, track_running_stats=True)
out = inorm(img)
print(inorm, "per-instance mean ~0:", bool(out.mean((2, 3)).abs().max() < 1e-5), out.std((2, 3))[0], inorm.running_mean)
lrn = nn.LocalResponseNorm(size=3, alpha=1e-2, beta=0.75, k=2.0)
print(lrn, lrn(img)[0, :, 0, 0])

# pooling with indices and unpooling
pool = nn.MaxPool2d(2, stride=2, return_indices=True)
unpool = nn.MaxUnpool2d(2, stride=2)
pooled, indices = pool(img)
restored = unpool(pooled, indices)
print(pooled.shape, indices.dtype, indices[0, 0, 0], restored.shape, int((restored != 0).sum()))
print(nn.LPPool2d(2, 2)(img.abs())[0, 0, 0], F.lp_pool1d(img[:, 0].abs(), 3, 2)[0, 0])

# convolution as im2col
conv = nn.Conv2d(3, 5, 3, padding=1)
cols = F.unfold(img, kernel_size=3, padding=1)
manual = (conv.weight.view(5, -1) @ cols + conv.bias.view(1, 5, 1)).view(4, 5, 8, 8)
print("unfold", cols.shape, "im2col conv matches:", torch.allclose(manual, conv(img), atol=1e-5))
folded = F.fold(cols, output_size=(8, 8), kernel_size=3, padding=1)
print("fold counts", (folded / img)[0, 0, :2, :3])
print(nn.Unfold(kernel_size=(2, 3), stride=2), nn.Fold(output_size=(4, 5), kernel_size=2))

# bilinear and embedding bags
bil = nn.Bilinear(4, 5, 2)
print(bil, bil(torch.ones(3, 4), torch.ones(3, 5)).shape)
bag = nn.EmbeddingBag(10, 3, mode="sum")
ids = torch.tensor([1, 2, 4, 5, 4, 3, 2, 9])
offsets = torch.tensor([0, 4])
w = torch.linspace(0.5, 1.5, 8)
print(bag(ids, offsets, per_sample_weights=w))
print(nn.EmbeddingBag(10, 3, mode="max", padding_idx=2)(ids.view(2, 4)).shape)

# adaptive softmax for a large Zipfian vocabulary
vocab = 200
asm = nn.AdaptiveLogSoftmaxWithLoss(32, vocab, cutoffs=[10, 50], div_value=2.0)
print(asm)
ranks = torch.arange(1, vocab + 1, dtype=torch.float)
probs = 1 / ranks
targets = torch.multinomial(probs / probs.sum(), 512, replacement=True)
hidden = nn.Embedding(vocab, 32)
opt = torch.optim.Adam(list(asm.parameters()) + list(hidden.parameters()), lr=0.01)
for step in range(40):
    out = asm(hidden(targets), targets)
    opt.zero_grad()
    out.loss.backward()
    opt.step()
    if step % 20 == 19:
        print(f"step {step + 1} adaptive loss {out.loss.item():.4f} output {tuple(out.output.shape)}")
with torch.no_grad():
    lp = asm.log_prob(hidden(targets[:4]))
print("log_prob rows sum to 1:", torch.allclose(lp.exp().sum(1), torch.ones(4), atol=1e-4))
print("predict:", asm.predict(hidden(targets[:8])).tolist(), targets[:8].tolist())
