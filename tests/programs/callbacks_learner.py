"""A fastai / miniai-style Learner (the 'from the foundations' course): a training loop whose
every stage fires callbacks found by name, control-flow exceptions (CancelFitException,
CancelBatchException, CancelEpochException), a metrics callback, a device callback, an LR finder
that stops when the loss explodes, a one-cycle schedule callback (OneCycleLR per batch),
activation statistics from forward hooks, and the model run through torch.compile."""
import math
from copy import copy
from functools import partial
from operator import attrgetter

import torch
import torch.nn.functional as F
from torch import nn, optim
from torch.utils.data import DataLoader, TensorDataset

torch.manual_seed(42)


class CancelFitException(Exception): pass
class CancelBatchException(Exception): pass
class CancelEpochException(Exception): pass


class Callback:
    order = 0


def run_cbs(cbs, method_nm, learn=None):
    for cb in sorted(cbs, key=attrgetter('order')):
        method = getattr(cb, method_nm, None)
        if method is not None:
            method(learn)


class with_cbs:
    def __init__(self, nm):
        self.nm = nm

    def __call__(self, f):
        def _f(o, *args, **kwargs):
            try:
                o.callback(f'before_{self.nm}')
                f(o, *args, **kwargs)
                o.callback(f'after_{self.nm}')
            except globals()[f'Cancel{self.nm.title()}Exception']:
                pass
            finally:
                o.callback(f'cleanup_{self.nm}')
        return _f


class DataLoaders:
    def __init__(self, *dls):
        self.train, self.valid = dls[:2]


class Learner:
    def __init__(self, model, dls, loss_func=F.mse_loss, lr=0.1, cbs=None, opt_func=optim.SGD):
        cbs = list(cbs or [])
        self.model, self.dls, self.loss_func, self.lr, self.cbs, self.opt_func = model, dls, loss_func, lr, cbs, opt_func

    @with_cbs('batch')
    def _one_batch(self):
        self.predict()
        self.callback('after_predict')
        self.get_loss()
        self.callback('after_loss')
        if self.training:
            self.backward()
            self.callback('after_backward')
            self.step()
            self.callback('after_step')
            self.zero_grad()

    @with_cbs('epoch')
    def _one_epoch(self):
        for self.iter, self.batch in enumerate(self.dl):
            self._one_batch()

    def one_epoch(self, training):
        self.model.train(training)
        self.dl = self.dls.train if training else self.dls.valid
        self._one_epoch()

    @with_cbs('fit')
    def _fit(self, train, valid):
        for self.epoch in self.epochs:
            if train:
                self.one_epoch(True)
            if valid:
                torch.no_grad()(self.one_epoch)(False)

    def fit(self, n_epochs=1, train=True, valid=True, cbs=None, lr=None):
        cbs = list(cbs or [])
        for cb in cbs:
            self.cbs.append(cb)
        try:
            self.n_epochs = n_epochs
            self.epochs = range(n_epochs)
            if lr is None:
                lr = self.lr
            if self.opt_func:
                self.opt = self.opt_func(self.model.parameters(), lr)
            self._fit(train, valid)
        finally:
            for cb in cbs:
                self.cbs.remove(cb)

    def __getattr__(self, name):
        if name in ('predict', 'get_loss', 'backward', 'step', 'zero_grad'):
            return partial(self.callback, name)
        raise AttributeError(name)

    def callback(self, method_nm):
        run_cbs(self.cbs, method_nm, self)

    @property
    def training(self):
        return self.model.training


class TrainCB(Callback):
    def predict(self, learn): learn.preds = learn.model(learn.batch[0])
    def get_loss(self, learn): learn.loss = learn.loss_func(learn.preds, learn.batch[1])
    def backward(self, learn): learn.loss.backward()
    def step(self, learn): learn.opt.step()
    def zero_grad(self, learn): learn.opt.zero_grad()


class DeviceCB(Callback):
    def __init__(self, device='cpu'):
        self.device = device

    def before_fit(self, learn):
        if hasattr(learn.model, 'to'):
            learn.model.to(self.device)

    def before_batch(self, learn):
        learn.batch = tuple(t.to(self.device) for t in learn.batch)


class MetricsCB(Callback):
    order = 1

    def __init__(self):
        self.all_losses = []

    def before_epoch(self, learn):
        self.losses, self.correct, self.count = [], 0, 0

    def after_batch(self, learn):
        x, y = learn.batch
        n = len(x)
        self.losses.append(learn.loss.item() * n)
        self.correct += (learn.preds.argmax(dim=1) == y).sum().item()
        self.count += n

    def after_epoch(self, learn):
        loss = sum(self.losses) / self.count
        self.all_losses.append(loss)
        print(f"epoch {learn.epoch} {'train' if learn.training else 'eval'} loss {loss:.4f} accuracy {self.correct / self.count:.3f}")


class SingleBatchCB(Callback):
    order = 1

    def after_batch(self, learn):
        raise CancelFitException()


class LRFinderCB(Callback):
    def __init__(self, gamma=1.3, max_mult=3):
        self.gamma, self.max_mult = gamma, max_mult

    def before_fit(self, learn):
        self.sched = optim.lr_scheduler.ExponentialLR(learn.opt, self.gamma)
        self.lrs, self.losses = [], []
        self.min = math.inf

    def after_batch(self, learn):
        if not learn.training:
            raise CancelEpochException()
        self.lrs.append(learn.opt.param_groups[0]['lr'])
        loss = learn.loss.detach().cpu()
        self.losses.append(loss)
        if loss < self.min:
            self.min = loss
        if math.isnan(loss) or (loss > self.min * self.max_mult):
            raise CancelFitException()
        self.sched.step()


class BaseSchedCB(Callback):
    def __init__(self, sched):
        self.sched = sched

    def before_fit(self, learn):
        self.schedo = self.sched(learn.opt)

    def _step(self, learn):
        if learn.training:
            self.schedo.step()


class BatchSchedCB(BaseSchedCB):
    def after_batch(self, learn):
        self._step(learn)


class RecorderCB(Callback):
    def __init__(self, **d):
        self.d = d

    def before_fit(self, learn):
        self.recs = {k: [] for k in self.d}
        self.pg = learn.opt.param_groups[0]

    def after_batch(self, learn):
        if not learn.training:
            return
        for k, v in self.d.items():
            self.recs[k].append(v(self))


class Hook:
    def __init__(self, m, f):
        self.hook = m.register_forward_hook(partial(f, self))

    def remove(self):
        self.hook.remove()

    def __del__(self):
        self.remove()


def append_stats(hook, mod, inp, outp):
    if not hasattr(hook, 'stats'):
        hook.stats = ([], [])
    acts = outp.to('cpu')
    hook.stats[0].append(acts.mean())
    hook.stats[1].append(acts.std())


class Hooks(list):
    def __init__(self, ms, f):
        super().__init__([Hook(m, f) for m in ms])

    def __enter__(self, *args):
        return self

    def __exit__(self, *args):
        self.remove()

    def remove(self):
        for h in self:
            h.remove()


# data: 4 classes from 10 features
X = torch.randn(512, 10)
W = torch.randn(10, 4)
y = (X @ W).argmax(1)
train_ds, valid_ds = TensorDataset(X[:384], y[:384]), TensorDataset(X[384:], y[384:])
dls = DataLoaders(DataLoader(train_ds, batch_size=64, shuffle=True),
                  DataLoader(valid_ds, batch_size=128))


def get_model():
    return nn.Sequential(nn.Linear(10, 32), nn.ReLU(), nn.Linear(32, 4))


metrics = MetricsCB()
learn = Learner(get_model(), dls, F.cross_entropy, lr=0.2, cbs=[TrainCB(), DeviceCB(), metrics])
learn.fit(3)
print(len(metrics.all_losses), metrics.all_losses[0] > metrics.all_losses[-2])

learn = Learner(get_model(), dls, F.cross_entropy, lr=0.2, cbs=[TrainCB(), SingleBatchCB()])
learn.fit(5)
print("single batch: iter", learn.iter, "epoch", learn.epoch, learn.preds.shape)

lrfind = LRFinderCB()
learn = Learner(get_model(), dls, F.cross_entropy, lr=1e-4, cbs=[TrainCB(), lrfind])
learn.fit(10)
print("lr finder steps:", len(lrfind.lrs), f"first lr {lrfind.lrs[0]:.2e}", "lrs increase:",
      all(a < b for a, b in zip(lrfind.lrs, lrfind.lrs[1:])))

epochs = 2
tmax = epochs * len(dls.train)
sched = partial(optim.lr_scheduler.OneCycleLR, max_lr=0.3, total_steps=tmax)
rec = RecorderCB(lr=lambda cb: cb.pg['lr'], mom=lambda cb: cb.pg['betas'][0])
model = get_model()
compiled = torch.compile(model, backend="eager")
print(type(compiled).__name__, list(dict(compiled.named_children()).keys()))
learn = Learner(compiled, dls, F.cross_entropy, lr=0.3, cbs=[TrainCB(), MetricsCB(), BatchSchedCB(sched), rec],
                opt_func=partial(optim.AdamW, weight_decay=0.01))
learn.fit(epochs)
print([f"{v:.5f}" for v in rec.recs['lr'][:4]], f"{max(rec.recs['lr']):.3f}", f"{rec.recs['lr'][-1]:.2e}")
print([f"{v:.4f}" for v in rec.recs['mom'][:3]], len(rec.recs['mom']))
print(list(compiled.state_dict().keys())[:2], list(model.state_dict().keys())[:2])

with Hooks([m for m in model if isinstance(m, nn.Linear)], append_stats) as hooks:
    learn = Learner(model, dls, F.cross_entropy, lr=0.1, cbs=[TrainCB()])
    learn.fit(1, valid=False)
    print(len(hooks), [len(h.stats[0]) for h in hooks], hooks[0].stats[1][0].shape)
print(len(model[0]._forward_hooks))
print(copy(metrics).all_losses is metrics.all_losses)
