"""Run under `mpirun -np N` by tests/test_distributed.py: DistributedDataParallel's communication
hooks (allreduce_hook and the built-in ALLREDUCE give the gradients DDP gives without a hook; a
custom hook sees every bucket; fp16_compress_wrapper within float16's precision; noop_hook leaves
the local gradients; PyTorch's errors), Work.get_future, and Join on uneven inputs (each rank runs
a different number of batches; the run ends, the replicas agree, and equal a reference that sums
the active ranks' gradients)."""

import sys

import gradrs as G
import gradrs.distributed as dist
from gradrs import nn
from gradrs.distributed.algorithms import Join
from gradrs.distributed.algorithms.ddp_comm_hooks import (
    DDPCommHookType,
    debugging_hooks,
    default_hooks,
    register_ddp_comm_hook,
)
from gradrs.futures import Future
from gradrs.nn.parallel import DistributedDataParallel as DDP


def say(line):
    # one write per line: mpirun's output forwarding may interleave the pieces of a print()
    sys.stdout.write(line + "\n")
    sys.stdout.flush()


def raises(exc, start, fn):
    try:
        fn()
    except exc as e:
        assert str(e).startswith(start), (str(e), start)
    else:
        raise AssertionError(f"no {exc.__name__}: {start}")


dist.init_process_group("mpi")
rank, size = dist.get_rank(), dist.get_world_size()
N = 8 * size


def mlp(seed=0):
    G.manual_seed(seed)
    return nn.Sequential(nn.Linear(6, 16), nn.Tanh(), nn.Linear(16, 8), nn.ReLU(),
                         nn.Linear(8, 3))


g = G.Generator().manual_seed(1)
X, Y = G.randn(N, 6, generator=g), G.randn(N, 3, generator=g)
shard = slice(rank * N // size, (rank + 1) * N // size)

# Work.get_future: the collective's outputs, callbacks chained on it
t = G.full((3,), float(rank + 1))
fut = dist.all_reduce(t, async_op=True).get_future()
assert isinstance(fut, Future)
doubled = fut.then(lambda f: f.value()[0] * 2)
assert fut.wait()[0] is t and G.equal(doubled.wait(), G.full((3,), float(size * (size + 1))))
raises(RuntimeError, "Work::getFuture not implemented.",
       lambda: dist.isend(G.zeros(1), (rank + 1) % size).get_future())
dist.recv(G.zeros(1), (rank - 1) % size)
dist.barrier()


def grads_with(register, steps=2, **ddp_kwargs):
    """The parameters' gradients after `steps` SGD steps of a DDP model with 4 buckets."""
    model = mlp()
    ddp = DDP(model, bucket_cap_mb=0.0004, **ddp_kwargs)
    register(ddp)
    opt = G.optim.SGD(ddp.parameters(), lr=0.1)
    for _ in range(steps):
        opt.zero_grad()
        nn.functional.mse_loss(ddp(X[shard]), Y[shard]).backward()
        opt.step()
    return ddp, [p.grad.clone() for p in model.parameters()]


_, plain = grads_with(lambda d: None)
for register in (lambda d: d.register_comm_hook(None, default_hooks.allreduce_hook),
                 lambda d: d.register_comm_hook(dist.group.WORLD, default_hooks.allreduce_hook),
                 lambda d: d._register_builtin_comm_hook(dist.BuiltinCommHookType.ALLREDUCE),
                 lambda d: register_ddp_comm_hook(DDPCommHookType.ALLREDUCE, d),
                 lambda d: DDPCommHookType.ALLREDUCE.value(model=d, state=dist.group.WORLD)):
    for as_view in (False, True):
        _, hooked = grads_with(register, gradient_as_bucket_view=as_view)
        for a, b in zip(hooked, plain):
            assert G.allclose(a, b, rtol=1e-6, atol=1e-7), (rank, (a - b).abs().max())

# a custom hook: sees each bucket (undivided gradients, views shaped as the parameters)
seen = []


def recording_hook(state, bucket):
    state.append(bucket.index())
    params, grads, buf = bucket.parameters(), bucket.gradients(), bucket.buffer()
    assert [p.shape for p in params] == [g.shape for g in grads]
    assert buf.dim() == 1 and buf.numel() == sum(p.numel() for p in params)
    assert G.equal(G.cat([g.reshape(-1) for g in grads]), buf)
    assert bucket.is_last() == (bucket.index() == len(ddp_rec._buckets) - 1)
    return (dist.all_reduce(buf.div_(size), async_op=True).get_future()
            .then(lambda f: f.value()[0]))


model = mlp()
ddp_rec = DDP(model, bucket_cap_mb=0.0004)
ddp_rec.register_comm_hook(seen, recording_hook)
nn.functional.mse_loss(ddp_rec(X[shard]), Y[shard]).backward()
assert sorted(seen) == list(range(len(ddp_rec._buckets))) and len(seen) >= 3, seen
assert seen[0] == 0  # the bucket of the last layers is ready first
owner = {id(p): i for i, b in enumerate(ddp_rec._buckets) for p in b.params}
assert len(owner) == len(list(model.parameters()))
_, once = grads_with(lambda d: None, steps=1)
for p, want in zip(model.parameters(), once):
    assert G.allclose(p.grad, want, rtol=1e-6, atol=1e-7)

# noop_hook (also as DDPCommHookType.NOOP): no communication, each process keeps its own
# (undivided) gradient
for register in (lambda d: d.register_comm_hook(None, debugging_hooks.noop_hook),
                 lambda d: register_ddp_comm_hook(DDPCommHookType.NOOP, d)):
    model = mlp()
    ddp_noop = DDP(model, bucket_cap_mb=0.0004)
    register(ddp_noop)
    nn.functional.mse_loss(ddp_noop(X[shard]), Y[shard]).backward()
    local = mlp()
    nn.functional.mse_loss(local(X[shard]), Y[shard]).backward()
    for p, q in zip(model.parameters(), local.parameters()):
        assert G.allclose(p.grad, q.grad, rtol=1e-6, atol=1e-7)


# fp16_compress_wrapper: the hook runs on a float16 copy of the bucket, its result is cast back
def fp32_allreduce(state, bucket):
    buf = bucket.buffer()
    assert buf.dtype == G.float16
    wide = buf.float().div_(size)
    return (dist.all_reduce(wide, async_op=True).get_future()
            .then(lambda f: f.value()[0]))


_, half = grads_with(lambda d: d.register_comm_hook(None,
                                                     default_hooks.fp16_compress_wrapper(
                                                         fp32_allreduce)))
for a, b in zip(half, plain):
    assert a.dtype == G.float32 and G.allclose(a, b, rtol=2e-3, atol=1e-4), (a - b).abs().max()
    assert G.equal(a, a.half().float())  # rounded to float16 on the way

# fp16_compress_hook: float16 has no MPI datatype (PyTorch's MPI backend: map::at), so the
# backward fails with the decompress callback's error
for register in (lambda d: d.register_comm_hook(None, default_hooks.fp16_compress_hook),
                 lambda d: register_ddp_comm_hook(DDPCommHookType.FP16_COMPRESS, d)):
    ddp_fp16 = DDP(mlp(), bucket_cap_mb=0.0004)
    register(ddp_fp16)
    raises(RuntimeError, "Got the following error when running the callback: IndexError: map::at",
           lambda d=ddp_fp16: nn.functional.mse_loss(d(X[shard]), Y[shard]).backward())

# PyTorch's errors
d = DDP(mlp())
raises(TypeError, "Communication hook must be callable.", lambda: d.register_comm_hook(None, 5))
raises(TypeError, "BF16 all reduce communication hook required CUDA 11+ and NCCL 2.10+ or XPU "
       "and XCCL", lambda: d.register_comm_hook(None, default_hooks.bf16_compress_hook))


def annotated(state, bucket: int):
    pass


raises(ValueError, "Communication hook: bucket annotation should be dist.GradBucket.",
       lambda: d.register_comm_hook(None, annotated))
d.register_comm_hook(None, default_hooks.allreduce_hook)
raises(RuntimeError, "register_comm_hook or register_builtin_comm_hook can only be called once.",
       lambda: d.register_comm_hook(None, default_hooks.allreduce_hook))
raises(RuntimeError, "register_builtin_comm_hook or register_comm_hook can only be called once.",
       lambda: d._register_builtin_comm_hook(dist.BuiltinCommHookType.FP16_COMPRESS))
raises(TypeError, "gradrs.distributed.GradBucket: No constructor defined!", dist.GradBucket)
d = DDP(mlp())
d.register_comm_hook(None, lambda state, bucket: 5)
raises(RuntimeError, "DDP communication hook's callback must return a gradrs.futures.Future "
       "object, but got builtins.int", lambda: d(X[shard]).sum().backward())


def failed(state, bucket):
    f = Future()
    f.set_exception(ValueError("boom"))
    return f


d = DDP(mlp())
d.register_comm_hook(None, failed)
raises(RuntimeError, "Unable to cast boom to Tensor", lambda: d(X[shard]).sum().backward())


# Join: rank r has 2 + 2 r batches; the run ends and the replicas agree
def batches(r):
    gen = G.Generator().manual_seed(10 + r)
    return [(G.randn(4, 6, generator=gen), G.randn(4, 3, generator=gen))
            for _ in range(2 + 2 * r)]


def reference(divide_by_initial_world_size):
    """One process: at step i, the gradients of the ranks that still have a batch, summed,
    divided by the world size (or by how many ranks are active)."""
    model = mlp()
    every = [batches(r) for r in range(size)]
    for i in range(max(len(b) for b in every)):
        active = [b[i] for b in every if i < len(b)]
        total = None
        for x, y in active:
            model.zero_grad()
            nn.functional.mse_loss(model(x), y).backward()
            g_ = [p.grad.clone() for p in model.parameters()]
            total = g_ if total is None else [a + b for a, b in zip(total, g_)]
        div = size if divide_by_initial_world_size else len(active)
        with G.no_grad():
            for p, gsum in zip(model.parameters(), total):
                p.sub_(0.1 * gsum / div)
    return model


def agree(model):
    flat = G.cat([p.detach().reshape(-1) for p in model.parameters()])
    every = [G.zeros_like(flat) for _ in range(size)]
    dist.all_gather(every, flat)
    assert all(G.equal(e, flat) for e in every), "replicas differ"


for divide_by_initial_world_size in (True, False):
    for register in (None, lambda d: d.register_comm_hook(None, default_hooks.allreduce_hook)):
        model = mlp()
        ddp = DDP(model, bucket_cap_mb=0.0004)
        if register is not None:
            register(ddp)
        if register is not None and not divide_by_initial_world_size:
            continue  # a hook divides by the group's size itself
        with ddp.join(divide_by_initial_world_size=divide_by_initial_world_size):
            for x, y in batches(rank):
                model.zero_grad()
                nn.functional.mse_loss(ddp(x), y).backward()
                with G.no_grad():
                    for p in model.parameters():
                        p.sub_(0.1 * p.grad)
        agree(model)
        ref = reference(divide_by_initial_world_size)
        for p, q in zip(model.parameters(), ref.parameters()):
            assert G.allclose(p, q, rtol=1e-5, atol=1e-6), (rank, (p - q).abs().max())

# Join with an optimizer, buffers (BatchNorm, broadcast each forward from a rank that has not
# joined), no_sync on some steps, and the Join class itself
G.manual_seed(4)
bn_model = nn.Sequential(nn.Linear(6, 8), nn.BatchNorm1d(8), nn.Tanh(), nn.Linear(8, 3))
ddp = DDP(bn_model)
opt = G.optim.SGD(ddp.parameters(), lr=0.05, momentum=0.9)
with Join([ddp]):
    for i, (x, y) in enumerate(batches(rank)):
        if i % 3 == 1:
            with ddp.no_sync():
                nn.functional.mse_loss(ddp(x), y).backward()
            continue
        nn.functional.mse_loss(ddp(x), y).backward()
        opt.step()
        opt.zero_grad()
agree(bn_model)
for name, b in bn_model.named_buffers():
    every = [G.zeros_like(b) for _ in range(size)]
    dist.all_gather(every, b)
    assert all(G.equal(e, b) for e in every), name

# Join with find_unused_parameters: the joined ranks shadow the map of used parameters too
G.manual_seed(6)
branchy = nn.ModuleDict({"a": nn.Linear(6, 3), "b": nn.Linear(6, 3)})


class Pick(nn.Module):
    def __init__(self, inner):
        super().__init__()
        self.inner = inner

    def forward(self, x, use_b):
        return self.inner["b"](x) if use_b else self.inner["a"](x)


ddp = DDP(Pick(branchy), find_unused_parameters=True)
with ddp.join():
    for i, (x, y) in enumerate(batches(rank)):
        branchy.zero_grad()
        nn.functional.mse_loss(ddp(x, use_b=(i + rank) % 2 == 1), y).backward()
        with G.no_grad():
            for p in branchy.parameters():
                if p.grad is not None:
                    p.sub_(0.1 * p.grad)
agree(branchy)

# throw_on_early_termination: every rank raises once one has run out of inputs
ddp = DDP(mlp())
try:
    with ddp.join(throw_on_early_termination=True):
        for x, _y in batches(rank):
            ddp(x).sum().backward()
except RuntimeError as e:
    assert str(e) in (f"Rank {rank} exhausted all inputs.",
                      "Detected at least one rank that exhausted inputs. Throwing across all "
                      "ranks."), e
    assert (str(e) == f"Rank {rank} exhausted all inputs.") == (rank == 0), (rank, e)
else:
    raise AssertionError("no early termination")
raises(ValueError, "The join context manager requires at least one joinable", lambda: Join([]))

dist.destroy_process_group()
say(f"OK rank {rank} of {size}")
