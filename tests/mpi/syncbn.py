"""Run under `mpirun -np N` by tests/test_distributed.py: SyncBatchNorm on N unequal shards of a
batch (one of them empty with 4 processes) gives each shard the output, input gradient and
running statistics that BatchNorm2d computes on the whole batch, and weight/bias gradients that
sum to the whole batch's; CPU inputs raise PyTorch's ValueError."""

import sys

import gradrs as G
import gradrs.distributed as dist
from gradrs import nn


def say(line):
    sys.stdout.write(line + "\n")
    sys.stdout.flush()


dist.init_process_group("mpi")
rank, size = dist.get_rank(), dist.get_world_size()
bounds = [0, 3, 3, 7, 10] if size == 4 else [0, 4, 10]  # rank 1 of 4 gets no sample
lo, hi = bounds[rank], bounds[rank + 1]

g = G.Generator().manual_seed(3)
X = G.randn(10, 3, 4, 5, generator=g)  # float32: the GPU has no float64
W = G.randn(10, 3, 4, 5, generator=g)


def model(cls):
    m = cls(3, momentum=0.3)
    with G.no_grad():
        m.weight.copy_(G.tensor([1.5, -0.5, 2.0]))
        m.bias.copy_(G.tensor([0.1, 0.2, -0.3]))
    return m


ref = model(nn.BatchNorm2d)
x_ref = X.clone().requires_grad_()
y_ref = ref(x_ref)
(y_ref * W).sum().backward()

sync = model(nn.SyncBatchNorm)
try:
    sync(X[lo:hi].clone())
    raise AssertionError("a CPU input must raise")
except ValueError as e:
    assert str(e) == "SyncBatchNorm expected input tensor to be on GPU or XPU or privateuseone"

if "--gpu" in sys.argv and G.cuda.is_available():
    sync = model(nn.SyncBatchNorm).to("cuda")
    for _ in range(2):  # twice: the running statistics update twice, as the reference's once
        x = X[lo:hi].clone().to("cuda").requires_grad_()
        y = sync(x)
        sync.zero_grad()
        (y * W[lo:hi].to("cuda")).sum().backward()
    assert type(y.grad_fn).__name__ == "SyncBatchNormBackward"
    close = dict(rtol=1e-4, atol=1e-5)
    assert G.allclose(y.cpu(), y_ref[lo:hi].detach(), **close)
    if hi > lo:
        assert G.allclose(x.grad.cpu(), x_ref.grad[lo:hi], **close)
    else:  # the empty shard's Function returns no input gradient, as PyTorch's
        assert x.grad is None
    for name in ("weight", "bias"):
        grad = getattr(sync, name).grad  # None on the empty shard, as PyTorch's
        grad = G.zeros(3) if grad is None else grad.cpu()
        dist.all_reduce(grad)
        assert G.allclose(grad, getattr(ref, name).grad, **close), name
    ref(X)  # the reference's second update
    assert G.allclose(sync.running_mean.cpu(), ref.running_mean, **close)
    assert G.allclose(sync.running_var.cpu(), ref.running_var, **close)
    assert int(sync.num_batches_tracked) == 2
    sync.eval()  # eval: the running statistics, no collective
    assert G.allclose(sync(X[lo:hi].to("cuda")).cpu(), ref.eval()(X[lo:hi]), **close)
    say(f"GPU rank {rank}")

say(f"OK rank {rank} of {size}")
dist.destroy_process_group()
