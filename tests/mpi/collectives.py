"""Run under `mpirun -np N` by tests/test_distributed.py: every collective of
gradrs.distributed over MPI, checked on each rank against values computed locally, for
float32 / float64 / int64; prints one OK line per rank."""

import sys
import warnings

import gradrs as G
import gradrs.distributed as dist


def say(line):
    # one write per line: mpirun's output forwarding may interleave the pieces of a print()
    sys.stdout.write(line + "\n")
    sys.stdout.flush()


dist.init_process_group(backend="mpi")
rank, size = dist.get_rank(), dist.get_world_size()
assert dist.is_initialized() and dist.get_backend() == "mpi"
assert dist.group.WORLD is dist.GroupMember.WORLD is not None


def val(r, dtype, n=5):
    # rank r's data: distinct per rank and element, exact in every dtype
    return G.tensor([float((r + 1) * (i + 2)) for i in range(n)], dtype=dtype)


def expect(got, want):
    assert got.dtype == want.dtype, (got.dtype, want.dtype)
    assert G.equal(got, want), (rank, got, want)


def raises(exc, msg, fn):
    try:
        fn()
    except exc as e:
        assert str(e) == msg, (str(e), msg)
    else:
        raise AssertionError(f"no {exc.__name__}: {msg}")


for dtype in (G.float32, G.float64, G.int64):
    every = [val(r, dtype) for r in range(size)]
    stacked = G.stack(every)
    for op, want in ((dist.ReduceOp.SUM, stacked.sum(0)), (dist.ReduceOp.PRODUCT, stacked.prod(0)),
                     (dist.ReduceOp.MIN, stacked.amin(0)), (dist.ReduceOp.MAX, stacked.amax(0))):
        t = val(rank, dtype)
        assert dist.all_reduce(t, op=op) is None
        expect(t, want.to(dtype))
        t = val(rank, dtype)
        work = dist.all_reduce(t, op=op, async_op=True)
        assert work.wait() is True and work.is_completed() and work.is_success()
        expect(t, want.to(dtype))
        t = val(rank, dtype)
        dist.reduce(t, dst=size - 1, op=op)
        expect(t, want.to(dtype) if rank == size - 1 else val(rank, dtype))
    # PyTorch's MPI backend has no AVG (nor bitwise ops): its std::map lookup fails.
    avg = val(rank, dtype)
    raises(IndexError, "map::at", lambda: dist.all_reduce(avg, op=dist.ReduceOp.AVG))  # noqa: B023
    work = dist.all_reduce(val(rank, dtype), op=dist.ReduceOp.BAND, async_op=True)
    raises(IndexError, "map::at", work.wait)

    t = val(rank, dtype) if rank == 1 else G.zeros(5, dtype=dtype)
    dist.broadcast(t, src=1)
    expect(t, val(1, dtype))

    out = [G.zeros(5, dtype=dtype) for _ in range(size)]
    dist.all_gather(out, val(rank, dtype))
    for r in range(size):
        expect(out[r], every[r])
    flat = G.zeros(size * 5, dtype=dtype)
    dist.all_gather_single(flat, val(rank, dtype))
    expect(flat, G.cat(every))
    flat2 = G.zeros(size, 5, dtype=dtype)
    with warnings.catch_warnings(record=True) as w:
        warnings.simplefilter("always")
        dist.all_gather_into_tensor(flat2, val(rank, dtype), async_op=True).wait()
    assert w and w[0].category is FutureWarning
    expect(flat2, stacked)

    # rank r's i-th input is val(r + i); rank i receives the sum over r
    out = G.zeros(5, dtype=dtype)
    dist.reduce_scatter(out, [val(rank + i, dtype) for i in range(size)])
    expect(out, sum(val(r + rank, dtype) for r in range(size)))
    out = G.zeros(5, dtype=dtype)
    dist.reduce_scatter_single(out, G.cat([val(rank + i, dtype) for i in range(size)]),
                               op=dist.ReduceOp.MAX)
    expect(out, val(size - 1 + rank, dtype))

    t = G.zeros(5, dtype=dtype)
    dist.scatter(t, [val(10 + i, dtype) for i in range(size)] if rank == 0 else None, src=0)
    expect(t, val(10 + rank, dtype))
    got = [G.zeros(5, dtype=dtype) for _ in range(size)] if rank == size - 1 else None
    dist.gather(val(rank, dtype), got, dst=size - 1)
    if rank == size - 1:
        for r in range(size):
            expect(got[r], every[r])

    # point to point around a ring
    nxt, prv = (rank + 1) % size, (rank - 1) % size
    t = G.zeros(5, dtype=dtype)
    if rank % 2 == 0:
        dist.send(val(rank, dtype), dst=nxt)
        assert dist.recv(t, src=prv) == prv
    else:
        assert dist.recv(t) == prv  # any source
        dist.send(val(rank, dtype), dst=nxt)
    expect(t, val(prv, dtype))
    t = G.zeros(5, dtype=dtype)
    works = [dist.isend(val(rank, dtype), dst=nxt, tag=7), dist.irecv(t, src=prv, tag=7)]
    for wk in works:
        wk.wait()
        assert wk.is_completed()
    expect(t, val(prv, dtype))
    t = G.zeros(5, dtype=dtype)
    ops = [dist.P2POp(dist.isend, val(rank, dtype), nxt), dist.P2POp(dist.irecv, t, prv)]
    for wk in dist.batch_isend_irecv(ops):
        wk.wait()
    expect(t, val(prv, dtype))

    # all to all: rank r sends row i (value 100 r + i) to rank i
    out = G.zeros(size, 2, dtype=dtype)
    dist.all_to_all_single(out, G.stack([G.full((2,), 100.0 * rank + i) for i in range(size)])
                           .to(dtype))
    expect(out, G.stack([G.full((2,), 100.0 * r + rank) for r in range(size)]).to(dtype))
    # uneven: rank r sends i + 1 rows to rank i, so it receives rank + 1 rows from each
    inp = G.cat([G.full((i + 1, 3), 100.0 * rank + i) for i in range(size)]).to(dtype)
    out = G.zeros(size * (rank + 1), 3, dtype=dtype)
    dist.all_to_all_single(out, inp, [rank + 1] * size, [i + 1 for i in range(size)])
    expect(out, G.cat([G.full((rank + 1, 3), 100.0 * r + rank) for r in range(size)]).to(dtype))
    outs = [G.zeros(r + 1, dtype=dtype) for r in range(size)]
    dist.all_to_all(outs, [G.full((rank + 1,), 10.0 * rank + i).to(dtype) for i in range(size)])
    for r in range(size):
        expect(outs[r], G.full((r + 1,), 10.0 * r + rank).to(dtype))

dist.barrier()
assert dist.barrier(async_op=True).wait()

# object collectives: any picklable value
objs = [None] * size
dist.all_gather_object(objs, {"rank": rank, "sq": [rank] * rank})
assert objs == [{"rank": r, "sq": [r] * r} for r in range(size)]
got = [None] * size if rank == 0 else None
dist.gather_object(("from", rank), got, dst=0)
assert rank != 0 or got == [("from", r) for r in range(size)]
lst = ["a", 1, {2: 3}] if rank == 1 else [None, None, None]
dist.broadcast_object_list(lst, src=1)
assert lst == ["a", 1, {2: 3}]
one = [None]
dist.scatter_object_list(one, [f"for {r}" for r in range(size)] if rank == 0 else None)
assert one == [f"for {rank}"]

# tensors MPI cannot take, with PyTorch's MPI backend's errors
raises(RuntimeError, "input tensor has to be contiguous",
       lambda: dist.all_reduce(G.zeros(3, 2).t()))
raises(IndexError, "map::at", lambda: dist.all_reduce(G.ones(3, dtype=G.bool)))
raises(IndexError, "map::at", lambda: dist.broadcast(G.ones(3, dtype=G.float16), src=0))
raises(RuntimeError, "All gather: number of output tensors should equal to the world size",
       lambda: dist.all_gather([G.zeros(2)], G.zeros(2)))
raises(RuntimeError, "Tensors are not equal in size or data type",
       lambda: dist.all_gather([G.zeros(3) for _ in range(size)], G.zeros(2)))
raises(ValueError, "Invalid destination rank: destination rank should not be the same as the "
       "rank of the current process.", lambda: dist.send(G.zeros(1), dst=rank))
raises(ValueError, "trying to initialize the default process group twice!",
       lambda: dist.init_process_group("mpi"))

# zero-copy: a tensor's own memory is what MPI writes (a view's base sees the result)
base = G.zeros(4, 5)
view = base[1]
dist.all_reduce(view.fill_(1.0))
assert base[1].tolist() == [float(size)] * 5 and base[0].tolist() == [0.0] * 5
# a parameter that requires grad is reduced in place too (PyTorch does so under no_grad)
p = G.nn.Parameter(G.ones(3))
dist.all_reduce(p)
assert p.tolist() == [float(size)] * 3 and p.requires_grad

# a group of the even ranks; the odd ranks are not members
evens = list(range(0, size, 2))
sub = dist.new_group(evens)
if rank % 2 == 0:
    assert dist.get_rank(sub) == rank // 2 and dist.get_world_size(sub) == len(evens)
    assert dist.get_process_group_ranks(sub) == evens
    t = G.tensor([float(rank)])
    dist.all_reduce(t, group=sub)
    assert t.item() == float(sum(evens))
    t = G.zeros(1) if rank else G.tensor([5.0])
    dist.broadcast(t, group_src=0, group=sub)
    assert t.item() == 5.0
else:
    assert sub == dist.GroupMember.NON_GROUP_MEMBER
    assert dist.get_rank(sub) == -1 and dist.get_world_size(sub) == -1
    with warnings.catch_warnings(record=True) as w:
        warnings.simplefilter("always")
        assert dist.all_reduce(G.zeros(1), group=sub) is None
    assert "does not belong to the given group" in str(w[0].message)
    dist.destroy_process_group(sub)
if rank % 2 == 0:
    dist.destroy_process_group(sub)

if "--gpu" in sys.argv and G.cuda.is_available():
    # GPU tensors go through the host and back
    t = G.full((3,), float(rank + 1), device="cuda")
    dist.all_reduce(t)
    assert t.device.type == "gpu" and t.cpu().tolist() == [size * (size + 1) / 2] * 3
    say(f"GPU rank {rank}")

# DistributedSampler takes its replicas and rank from the default group
sampler = G.utils.data.DistributedSampler(range(11), seed=4)
assert (sampler.num_replicas, sampler.rank) == (size, rank)
assert list(sampler) == list(G.utils.data.DistributedSampler(range(11), size, rank, seed=4))

dist.destroy_process_group()
assert not dist.is_initialized()
# MPI assigns ranks: world_size and rank are ignored, with PyTorch's warning
with warnings.catch_warnings(record=True) as w:
    warnings.simplefilter("always")
    dist.init_process_group("mpi", init_method="env://", world_size=size, rank=rank)
assert str(w[0].message) == (f"For MPI backend, world_size ({size}) and rank ({rank}) are "
                             "ignored since they are assigned by the MPI runtime.")
assert dist.get_rank() == rank and dist.get_world_size() == size
dist.destroy_process_group()
say(f"OK rank {rank} of {size}")
