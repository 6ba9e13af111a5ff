"""Run under `mpirun -np N` by tests/test_distributed.py: DistributedDataParallel trains an MLP
on N shards of a batch and ends equal (float32 tolerance) to one process trained on the whole
batch, the processes agreeing bit for bit; also no_sync, find_unused_parameters,
gradient_as_bucket_view, the buffer broadcast, bucketing started during backward and the
"module." state_dict prefix."""

import sys

import gradrs as G
import gradrs.distributed as dist
from gradrs import nn
from gradrs.nn.parallel import DistributedDataParallel as DDP


def say(line):
    # one write per line: mpirun's output forwarding may interleave the pieces of a print()
    sys.stdout.write(line + "\n")
    sys.stdout.flush()


dist.init_process_group("mpi")
rank, size = dist.get_rank(), dist.get_world_size()
N, STEPS = 16, 6


def mlp():
    G.manual_seed(0)
    return nn.Sequential(nn.Linear(8, 32), nn.Tanh(), nn.Linear(32, 32), nn.ReLU(),
                         nn.Linear(32, 4))


g = G.Generator().manual_seed(1)
X, Y = G.randn(N, 8, generator=g), G.randn(N, 4, generator=g)
shard = slice(rank * N // size, (rank + 1) * N // size)

# the reference: one process, the whole batch
ref = mlp()
opt = G.optim.SGD(ref.parameters(), lr=0.1, momentum=0.9)
for _ in range(STEPS):
    opt.zero_grad()
    nn.functional.mse_loss(ref(X), Y).backward()
    opt.step()

model = mlp()
if rank:  # every replica starts from rank 0's parameters: DDP broadcasts them
    with G.no_grad():
        for p in model.parameters():
            p.add_(float(rank))
first = next(model.parameters())
started = []
# runs before DDP's own hook on the first weight, whose gradient is the last one ready
first.register_post_accumulate_grad_hook(
    lambda p: started.append(sum(b.work is not None for b in ddp._buckets)))
ddp = DDP(model, bucket_cap_mb=0.0005)  # 524-byte buckets: several all-reduces per backward
assert ddp.module is model and len(ddp._buckets) >= 3
assert all(k.startswith("module.") for k in ddp.state_dict())
assert list(ddp.state_dict()) == ["module." + k for k in model.state_dict()]
opt = G.optim.SGD(ddp.parameters(), lr=0.1, momentum=0.9)
for _ in range(STEPS):
    opt.zero_grad()
    nn.functional.mse_loss(ddp(X[shard]), Y[shard]).backward()
    opt.step()
# the buckets of the later layers were all-reducing while backward went on
assert started and started[0] >= len(ddp._buckets) - 1, (started, len(ddp._buckets))

for p, q in zip(model.parameters(), ref.parameters()):
    assert G.allclose(p, q, rtol=1e-5, atol=1e-6), (rank, (p - q).abs().max())
flat = G.cat([p.detach().reshape(-1) for p in model.parameters()])
every = [G.zeros_like(flat) for _ in range(size)]
dist.all_gather(every, flat)
assert all(G.equal(e, flat) for e in every), "replicas differ"

# no_sync: gradients accumulate locally, the next synchronized backward averages them all
opt.zero_grad()
half = slice(shard.start, shard.start + (shard.stop - shard.start) // 2)
rest = slice(half.stop, shard.stop)
with ddp.no_sync():
    nn.functional.mse_loss(ddp(X[half]), Y[half]).backward()
local = [p.grad.clone() for p in model.parameters()]
nn.functional.mse_loss(ddp(X[rest]), Y[rest]).backward()
plain = mlp()
plain.load_state_dict(model.state_dict())
nn.functional.mse_loss(plain(X[half]), Y[half]).backward()
for loc, q in zip(local, plain.parameters()):  # inside no_sync: this process's own gradient
    assert G.allclose(loc, q.grad, rtol=1e-6, atol=1e-7)
nn.functional.mse_loss(plain(X[rest]), Y[rest]).backward()
for p, q in zip(model.parameters(), plain.parameters()):
    want = q.grad.clone()
    dist.all_reduce(want)
    assert G.allclose(p.grad, want / size, rtol=1e-5, atol=1e-6)


# find_unused_parameters: a layer no rank uses keeps grad None, one only rank 0 uses is
# averaged over every process
class Branchy(nn.Module):
    def __init__(self):
        super().__init__()
        G.manual_seed(3)
        self.a, self.b, self.never = nn.Linear(4, 4), nn.Linear(4, 4), nn.Linear(4, 4)
        self.register_buffer("count", G.tensor([float(rank)]))

    def forward(self, x):
        return self.b(self.a(x)) if rank == 0 else self.a(x)


net = Branchy()
ddp2 = DDP(net, find_unused_parameters=True)
assert net.count.item() == 0.0  # buffers come from rank 0 too
x = G.full((2, 4), float(rank + 1))
ddp2(x).sum().backward()
assert net.never.weight.grad is None and net.never.bias.grad is None
solo = Branchy()
solo.load_state_dict(net.state_dict())
solo(x).sum().backward()
for name in ("a.weight", "a.bias"):
    want = solo.get_parameter(name).grad.clone()
    dist.all_reduce(want)
    assert G.allclose(net.get_parameter(name).grad, want / size), (rank, name, net.get_parameter(name).grad, want / size)
b_grad = solo.b.weight.grad.clone() if rank == 0 else G.zeros(4, 4)
dist.all_reduce(b_grad)
assert G.allclose(net.b.weight.grad, b_grad / size)

# without find_unused_parameters, a parameter without a gradient leaves the reduction open
ddp3 = DDP(Branchy())
ddp3(x).sum().backward()
try:
    ddp3(x)
except RuntimeError as e:
    assert str(e).startswith("Expected to have finished reduction in the prior iteration"), e
    assert str(e).endswith(f"did not receive grad for rank {rank}: " + ("2 3 4 5" if rank else "4 5"))
else:
    raise AssertionError("no error for an unfinished reduction")

# processes whose gradients arrive in different orders (one bucket per parameter): the
# buckets are still all-reduced in one order everywhere, so the right ones are summed
class Swapped(nn.Module):
    def __init__(self):
        super().__init__()
        G.manual_seed(5)
        self.l1, self.l2 = nn.Linear(4, 4), nn.Linear(4, 4)

    def forward(self, x):
        return self.l2(self.l1(x)) if rank % 2 == 0 else self.l1(self.l2(x))


sw = Swapped()
ddp5 = DDP(sw, bucket_cap_mb=0.00001)
assert len(ddp5._buckets) == 4
x = G.full((2, 4), float(rank + 1))
ddp5(x).sum().backward()
solo = Swapped()
solo(x).sum().backward()
for p, q in zip(sw.parameters(), solo.parameters()):
    want = q.grad.clone()
    dist.all_reduce(want)
    assert G.allclose(p.grad, want / size), (rank, p.grad, want / size)

# gradient_as_bucket_view: the gradients are views of the buckets, and the same training
for set_to_none in (True, False):
    m1, m2 = mlp(), mlp()
    d1, d2 = DDP(m1, bucket_cap_mb=0.0005), DDP(m2, bucket_cap_mb=0.0005,
                                                 gradient_as_bucket_view=True)
    o1, o2 = (G.optim.SGD(d.parameters(), lr=0.1, momentum=0.9) for d in (d1, d2))
    for _ in range(3):
        for d, o in ((d1, o1), (d2, o2)):
            o.zero_grad(set_to_none=set_to_none)
            nn.functional.mse_loss(d(X[shard]), Y[shard]).backward()
            o.step()
    for p, q in zip(m1.parameters(), m2.parameters()):
        assert G.equal(p, q) and G.equal(p.grad, q.grad)
    for b in d2._buckets:
        for i, p in enumerate(b.params):
            assert b.holds(i, p.grad), "grad is not a view of its bucket"

if "--gpu" in sys.argv and G.cuda.is_available():
    # a GPU module: its gradients are averaged through the host and stay on the GPU
    G.manual_seed(rank)
    lin = nn.Linear(3, 2).to("cuda")
    ddp4 = DDP(lin, device_ids=[0])
    ddp4(G.full((4, 3), float(rank + 1))).sum().backward()  # inputs moved to the GPU
    assert lin.weight.grad.device.type == "gpu"
    assert lin.weight.grad.cpu().tolist() == [[2.0 * (size + 1)] * 3] * 2
    G.manual_seed(0)
    assert G.equal(lin.bias.cpu(), nn.Linear(3, 2).bias)  # rank 0's parameters
    say(f"GPU rank {rank}")

dist.destroy_process_group()
say(f"OK rank {rank} of {size}")
