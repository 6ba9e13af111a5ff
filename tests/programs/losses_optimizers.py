"""Losses and optimizers seen in training scripts, on fixed values: reductions, class weights,
KLDiv batchmean, cosine/triplet losses, Adagrad/RMSprop/NAdam/RAdam, add_param_group, and the
schedulers CosineAnnealingWarmRestarts, CyclicLR, PolynomialLR, ConstantLR, ChainedScheduler."""
import torch
import torch.nn as nn
import torch.nn.functional as F

logits = torch.linspace(-2, 2, 12).view(4, 3)
target = torch.tensor([0, 2, 1, 2])
print(nn.CrossEntropyLoss(weight=torch.tensor([1.0, 2.0, 0.5]))(logits, target))
print(F.cross_entropy(logits, target, reduction="none"))
print(F.nll_loss(F.log_softmax(logits, 1), target, ignore_index=2))
print(nn.KLDivLoss(reduction="batchmean")(F.log_softmax(logits, 1), F.softmax(logits * 0.5, 1)))
print(nn.SmoothL1Loss(beta=0.5)(logits, logits * 0.3), nn.HuberLoss(delta=0.5)(logits, -logits))
a, b = logits[:2], logits[2:]
print(F.cosine_similarity(a, b), nn.CosineEmbeddingLoss()(a, b, torch.tensor([1, -1])))
print(nn.TripletMarginLoss(margin=1.0)(a, b, a.flip(1)), nn.MarginRankingLoss(0.1)(a[0], b[0], torch.ones(3)))
print(nn.BCELoss(weight=torch.tensor([1.0, 2.0, 3.0]))(torch.sigmoid(a), torch.ones(2, 3)))
print(nn.BCEWithLogitsLoss(pos_weight=torch.tensor([2.0, 1.0, 1.0]))(a, torch.zeros(2, 3)))
print(nn.GaussianNLLLoss()(a, b, torch.ones(2, 3)), nn.PoissonNLLLoss()(a, b.abs()))
print(nn.L1Loss(reduction="sum")(a, b), nn.MSELoss(reduction="none")(a[0], b[0]))

for name, make in [("Adagrad", lambda p: torch.optim.Adagrad(p, lr=0.1)),
                   ("RMSprop", lambda p: torch.optim.RMSprop(p, lr=0.01, momentum=0.5, centered=True)),
                   ("NAdam", lambda p: torch.optim.NAdam(p, lr=0.01)),
                   ("RAdam", lambda p: torch.optim.RAdam(p, lr=0.01, decoupled_weight_decay=True, weight_decay=0.1)),
                   ("Adamax", lambda p: torch.optim.Adamax(p, lr=0.01)),
                   ("Adadelta", lambda p: torch.optim.Adadelta(p))]:
    w = torch.tensor([1.0, -2.0, 3.0], requires_grad=True)
    opt = make([w])
    for _ in range(10):
        opt.zero_grad()
        ((w - torch.tensor([0.5, 0.5, 0.5])) ** 2).sum().backward()
        opt.step()
    print(name, [f"{v:.6f}" for v in w.tolist()])

lin = nn.Linear(2, 1)
opt = torch.optim.SGD(lin.parameters(), lr=0.1)
opt.add_param_group({"params": [nn.Parameter(torch.zeros(2))], "lr": 0.01, "momentum": 0.9})
print(opt)
print([sorted(g.keys()) for g in opt.param_groups][1])


def lrs(make_sched, n=12, **kw):
    p = nn.Parameter(torch.zeros(1))
    opt = torch.optim.SGD([p], lr=0.1, momentum=0.9, **kw)
    sched = make_sched(opt)
    out = []
    for _ in range(n):
        opt.step()
        sched.step()
        out.append(round(sched.get_last_lr()[0], 6))
    return out


print(lrs(lambda o: torch.optim.lr_scheduler.CosineAnnealingWarmRestarts(o, T_0=4, T_mult=2, eta_min=0.001)))
print(lrs(lambda o: torch.optim.lr_scheduler.CyclicLR(o, base_lr=0.01, max_lr=0.1, step_size_up=3, mode="triangular2")))
print(lrs(lambda o: torch.optim.lr_scheduler.PolynomialLR(o, total_iters=8, power=2.0)))
print(lrs(lambda o: torch.optim.lr_scheduler.ChainedScheduler(
    [torch.optim.lr_scheduler.ConstantLR(o, factor=0.5, total_iters=3), torch.optim.lr_scheduler.ExponentialLR(o, 0.9)])))
print(lrs(lambda o: torch.optim.lr_scheduler.OneCycleLR(o, max_lr=0.5, epochs=2, steps_per_epoch=6, anneal_strategy="linear")))
