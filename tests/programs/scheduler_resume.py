"""A small ResNet-style trainer that stops half-way and resumes, as training scripts with
`--resume` do: nn.Sequential / ModuleDict heads / BatchNorm2d, a warmup-then-cosine
SequentialLR, a MultiplicativeLR inside a ChainedScheduler, ReduceLROnPlateau on a validation
metric (mode="max", threshold_mode="abs", cooldown, per-group min_lr), clip_grad_norm_ with
error_if_nonfinite and the newer get_total_norm / clip_grads_with_norm_ pair, and a checkpoint
of model + optimizer + schedulers through torch.save / torch.load into fresh objects. The
resumed run must retrace the uninterrupted one."""
import io
import math

import torch
import torch.nn as nn
import torch.nn.functional as F
from torch.optim.lr_scheduler import (ChainedScheduler, CosineAnnealingLR, ExponentialLR,
                                      LinearLR, MultiplicativeLR, ReduceLROnPlateau,
                                      SequentialLR)


class Block(nn.Module):
    def __init__(self, cin, cout, stride=1):
        super().__init__()
        self.body = nn.Sequential(
            nn.Conv2d(cin, cout, 3, stride, 1, bias=False), nn.BatchNorm2d(cout), nn.ReLU(),
            nn.Conv2d(cout, cout, 3, 1, 1, bias=False), nn.BatchNorm2d(cout))
        self.skip = (nn.Identity() if stride == 1 and cin == cout else
                     nn.Sequential(nn.Conv2d(cin, cout, 1, stride, bias=False),
                                   nn.BatchNorm2d(cout)))

    def forward(self, x):
        return F.relu(self.body(x) + self.skip(x))


class Net(nn.Module):
    def __init__(self):
        super().__init__()
        self.stem = nn.Sequential(nn.Conv2d(1, 4, 3, padding=1, bias=False), nn.BatchNorm2d(4),
                                  nn.ReLU())
        self.stages = nn.Sequential(Block(4, 4), Block(4, 8, stride=2))
        self.heads = nn.ModuleDict({"cls": nn.Linear(8, 3), "aux": nn.Linear(8, 1)})

    def forward(self, x):
        h = F.adaptive_avg_pool2d(self.stages(self.stem(x)), 1).flatten(1)
        return {k: head(h) for k, head in self.heads.items()}


def make_data(n, seed):
    g = torch.Generator().manual_seed(seed)
    x = torch.randn(n, 1, 8, 8, generator=g, dtype=torch.float64)
    y = (x[:, 0, :4].sum((1, 2)) > 0).long() + (x[:, 0, 4:].mean((1, 2)) > 0.2).long()
    return x, y


def build():
    torch.manual_seed(0)
    model = Net().double()
    decay, no_decay = [], []
    for name, p in model.named_parameters():
        (no_decay if p.ndim == 1 else decay).append(p)
    opt = torch.optim.SGD([{"params": decay, "weight_decay": 5e-4},
                           {"params": no_decay, "weight_decay": 0.0}],
                          lr=0.2, momentum=0.9, nesterov=True)
    warm = LinearLR(opt, start_factor=0.25, total_iters=3)
    cos = CosineAnnealingLR(opt, T_max=8, eta_min=1e-3)
    main = SequentialLR(opt, schedulers=[warm, cos], milestones=[3])
    shrink = MultiplicativeLR(opt, lr_lambda=[lambda e: 0.99, lambda e: 0.98])
    chain = ChainedScheduler([shrink, ExponentialLR(opt, gamma=0.995)])
    plateau = ReduceLROnPlateau(opt, mode="max", factor=0.5, patience=1, threshold=0.01,
                                threshold_mode="abs", cooldown=1, min_lr=[1e-4, 5e-5])
    return model, opt, main, chain, plateau


x_train, y_train = make_data(64, 1)
x_val, y_val = make_data(32, 2)


def run_epoch(model, opt, main, chain, plateau, epoch, log):
    model.train()
    for i in range(0, 64, 16):
        xb, yb = x_train[i:i + 16], y_train[i:i + 16]
        out = model(xb)
        loss = F.cross_entropy(out["cls"], yb, label_smoothing=0.1) + 0.1 * F.mse_loss(
            out["aux"].squeeze(1), yb.double())
        opt.zero_grad(set_to_none=True)
        loss.backward()
        if i == 0:
            grads = [p.grad for p in model.parameters() if p.grad is not None]
            total = torch.nn.utils.get_total_norm(grads, norm_type=2.0)
            torch.nn.utils.clip_grads_with_norm_(model.parameters(), max_norm=1.0,
                                                 total_norm=total)
        else:
            total = torch.nn.utils.clip_grad_norm_(model.parameters(), 1.0,
                                                   error_if_nonfinite=True)
        opt.step()
        if i == 0:
            log.append(f"epoch {epoch} first loss {loss.item():.6f} grad norm {total.item():.6f}")
    main.step()
    chain.step()
    model.eval()
    with torch.no_grad():
        acc = (model(x_val)["cls"].argmax(1) == y_val).double().mean().item()
    plateau.step(acc)
    lrs = ", ".join(f"{g['lr']:.6f}" for g in opt.param_groups)
    log.append(f"epoch {epoch} val acc {acc:.4f} lrs [{lrs}] last {plateau.get_last_lr()}"
               f" bad {plateau.num_bad_epochs} cooldown {plateau.cooldown_counter}")


# uninterrupted
straight = []
objs = build()
for epoch in range(8):
    run_epoch(*objs, epoch, straight)
final_straight = objs[0].state_dict()

# stopped after 4 epochs, checkpointed, resumed into fresh objects
resumed = []
model, opt, main, chain, plateau = build()
for epoch in range(4):
    run_epoch(model, opt, main, chain, plateau, epoch, resumed)
buf = io.BytesIO()
torch.save({"epoch": 4, "model": model.state_dict(), "optimizer": opt.state_dict(),
            "main": main.state_dict(), "chain": chain.state_dict(),
            "plateau": plateau.state_dict()}, buf)
print("checkpoint bytes > 0:", buf.tell() > 0)
buf.seek(0)
ckpt = torch.load(buf, weights_only=False)
print("checkpoint keys:", sorted(ckpt))
print("optimizer state keys:", sorted(ckpt["optimizer"]))
print("param_groups[0] keys:", sorted(ckpt["optimizer"]["param_groups"][0]))
print("plateau state:", {k: v for k, v in sorted(ckpt["plateau"].items())
                         if k in ("best", "num_bad_epochs", "cooldown_counter", "mode",
                                  "last_epoch", "min_lrs", "eps")})
print("main state:", sorted(ckpt["main"]), ckpt["main"]["_milestones"],
      ckpt["main"]["last_epoch"])

model2, opt2, main2, chain2, plateau2 = build()
model2.load_state_dict(ckpt["model"])
opt2.load_state_dict(ckpt["optimizer"])
main2.load_state_dict(ckpt["main"])
chain2.load_state_dict(ckpt["chain"])
plateau2.load_state_dict(ckpt["plateau"])
print("momentum buffers restored:",
      all(torch.equal(opt2.state[p2]["momentum_buffer"], opt.state[p]["momentum_buffer"])
          for p, p2 in zip(model.parameters(), model2.parameters())))
for epoch in range(ckpt["epoch"], 8):
    run_epoch(model2, opt2, main2, chain2, plateau2, epoch, resumed)

for line in straight:
    print(line)
print("resumed run retraces the straight one:", resumed == straight)
same = all(torch.allclose(a, b, rtol=0, atol=1e-12) for a, b in
           zip(final_straight.values(), model2.state_dict().values()))
print("final weights equal:", same)
print("num_batches_tracked:", model2.stem[1].num_batches_tracked.item())

# error_if_nonfinite
p = nn.Parameter(torch.ones(2))
p.grad = torch.tensor([math.inf, 1.0])
try:
    torch.nn.utils.clip_grad_norm_([p], 1.0, error_if_nonfinite=True)
except RuntimeError as e:
    print("RuntimeError:", str(e).split(".")[0])
print(torch.nn.utils.get_total_norm([torch.tensor([3.0, 4.0]), torch.tensor([12.0])]))
print(torch.nn.utils.get_total_norm([torch.tensor([3.0, -4.0])], norm_type=math.inf))
