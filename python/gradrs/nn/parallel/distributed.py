"""`DistributedDataParallel`: data-parallel training over `gradrs.distributed` (MPI), as
`torch.nn.parallel.DistributedDataParallel`: parameters and buffers broadcast from rank 0 at
construction, gradients averaged by bucketed all-reduces that start from gradient hooks while
backward still runs, `no_sync()`, `find_unused_parameters`, `gradient_as_bucket_view`."""

from __future__ import annotations

import warnings
import weakref
from contextlib import contextmanager

import numpy as np

from ... import _native, distributed as dist
from ..._grad_mode import is_grad_enabled, no_grad
from ..modules.module import Module
from .data_parallel import _device_index, _to_device

__all__ = ["DistributedDataParallel"]

_DEFAULT_BUCKET_CAP_MB = 25
_DEFAULT_FIRST_BUCKET_BYTES = 1024 * 1024
_MB_TO_BYTES = 1024 * 1024

_UNFINISHED_REDUCTION = (
    "Expected to have finished reduction in the prior iteration before starting a new one. "
    "This error indicates that your module has parameters that were not used in producing "
    "loss. You can enable unused parameter detection by passing the keyword argument "
    "`find_unused_parameters=True` to `gradrs.nn.parallel.DistributedDataParallel`, and by \n"
    "making sure all `forward` function outputs participate in calculating loss. \n"
    "If you already have done the above, then the distributed data parallel module wasn't "
    "able to locate the output tensors in the return value of your module's `forward` "
    "function. Please include the loss function and the structure of the return value of "
    "`forward` of your module when reporting this issue (e.g. list, dict, iterable).\n"
    "Parameter indices which did not receive grad for rank {rank}: {indices}")


def _find_tensors(obj):
    """The tensors in a forward's output (nested in lists, tuples and dicts)."""
    if isinstance(obj, _native.Tensor):
        return [obj]
    if isinstance(obj, (list, tuple)):
        return [t for o in obj for t in _find_tensors(o)]
    if isinstance(obj, dict):
        return [t for o in obj.values() for t in _find_tensors(o)]
    return []


def _graph_leaves(outputs):
    """ids of the leaf tensors (parameters) the outputs' backward graph reaches."""
    # A node's Python object is made afresh on each access, so nodes are told apart by
    # equality (the node they stand for), not by id.
    seen, found = set(), set()
    stack = [t.grad_fn for t in outputs if t.grad_fn is not None]
    while stack:
        fn = stack.pop()
        if fn is None or fn in seen:
            continue
        seen.add(fn)
        var = getattr(fn, "variable", None)
        if var is not None:
            found.add(id(var))
        stack.extend(f for f, _ in fn.next_functions)
    return found


class _Bucket:
    """Parameters whose gradients are averaged by one all-reduce: a flat host buffer, each
    parameter's gradient at its offset."""

    def __init__(self, params, indices):
        self.params = params
        self.indices = indices
        self.offsets = []
        n = 0
        for p in params:
            self.offsets.append(n)
            n += p.numel()
        self.flat = _native.zeros(n, dtype=params[0].dtype)
        self.array = self.flat.numpy()
        self.pending = len(params)
        self.work = None

    def view(self, i):
        off = self.offsets[i]
        return self.array[off:off + self.params[i].numel()]

    def grad_view(self, i):
        """The bucket's slice for parameter i as a tensor of its shape (its `.grad` under
        ``gradient_as_bucket_view``)."""
        off = self.offsets[i]
        p = self.params[i]
        return self.flat[off:off + p.numel()].view(p.shape)

    def holds(self, i, grad):
        """Whether ``grad`` already is parameter i's slice of the bucket."""
        off = self.offsets[i]
        return (grad.device.type == "cpu" and grad.is_contiguous()
                and grad.data_ptr() == self.flat.data_ptr() + off * self.flat.element_size())


class DistributedDataParallel(Module):
    r"""Data parallelism at the module level over ``gradrs.distributed`` (MPI). Each process
    runs its own copy of ``module`` on its share of the batch; at construction rank 0's
    parameters and buffers are broadcast to every process, and during backward the gradients
    are averaged over the processes by all-reduces of ``bucket_cap_mb``-sized buckets, each
    started (on the process group's worker thread) as soon as its last gradient is
    accumulated, so communication overlaps the rest of backward. After ``backward()`` every
    process holds the same averaged gradients, so the same optimizer step keeps the replicas
    equal.

    Launch one process per replica with ``mpirun -np N python train.py`` after
    ``gradrs.distributed.init_process_group(backend="mpi")``."""

    def __init__(self, module, device_ids=None, output_device=None, dim=0,
                 broadcast_buffers=None, init_sync=True, process_group=None,
                 bucket_cap_mb=None, find_unused_parameters=False, check_reduction=False,
                 gradient_as_bucket_view=False, *, forward_sync_buffers=None):
        super().__init__()
        self.process_group = (dist.distributed_c10d._get_default_group()
                              if process_group is None else process_group)
        self.parameters_to_ignore = set(getattr(module, "_ddp_params_and_buffers_to_ignore",
                                                ()))
        self._module_parameters = [p for n, p in module.named_parameters()
                                   if n not in self.parameters_to_ignore]
        if not any(p.requires_grad for p in self._module_parameters):
            raise RuntimeError("DistributedDataParallel is not needed when a module doesn't "
                               "have any parameter that requires a gradient.")
        if device_ids is not None and len(device_ids) > 1:
            raise ValueError("device_ids can only be None or contain a single element.")
        types = {p.device.type for p in self._module_parameters}
        if len(types) != 1:
            raise ValueError("DistributedDataParallel's input module must be on the same type "
                             f"of devices, but input module parameters locate in {types}.")
        self.device_type = next(iter(types))
        if device_ids is None or len(device_ids) == 0 or self.device_type == "cpu":
            if device_ids or output_device:
                devices = {p.device for p in self._module_parameters}
                raise ValueError(
                    "DistributedDataParallel device_ids and output_device arguments only work "
                    "with single-device/multiple-device GPU modules or CPU modules, but got "
                    f"device_ids {device_ids}, output_device {output_device}, and module "
                    f"parameters {devices}.")
            self.device_ids = None
            self.output_device = None
        else:
            self.device_ids = [_device_index(x) for x in device_ids]
            self.output_device = _device_index(
                output_device if output_device is not None else device_ids[0])
        self.dim = dim
        self.module = module
        self.device = self._module_parameters[0].device
        if broadcast_buffers is not None:
            if forward_sync_buffers is not None:
                warnings.warn(
                    "Both `broadcast_buffers` and `forward_sync_buffers` were specified. "
                    "`broadcast_buffers` is deprecated and its value is ignored when "
                    "`forward_sync_buffers` is provided.", FutureWarning, stacklevel=2)
            else:
                warnings.warn(
                    "`broadcast_buffers` is deprecated. Use `forward_sync_buffers` instead. "
                    "IMPORTANT: unlike `broadcast_buffers=False`, `forward_sync_buffers=False` "
                    "still syncs buffers at init. If you rely on buffers NOT being synced at "
                    "init (e.g. rank-local buffers), keep using `broadcast_buffers=False` "
                    "until `init_sync_buffers` is available.", FutureWarning, stacklevel=2)
        if forward_sync_buffers is not None:
            self.forward_sync_buffers = forward_sync_buffers
            init_sync_buffers = True
        else:
            effective = broadcast_buffers if broadcast_buffers is not None else True
            self.forward_sync_buffers = effective
            init_sync_buffers = effective
        self.find_unused_parameters = find_unused_parameters
        self.gradient_as_bucket_view = gradient_as_bucket_view
        self.require_backward_grad_sync = True
        self.require_forward_param_sync = True
        if check_reduction:
            warnings.warn("The `check_reduction` argument in `DistributedDataParallel` module "
                          "is deprecated. Please avoid using it.", FutureWarning, stacklevel=2)
        self.broadcast_bucket_size = 250 * 1024 * 1024
        cap_mb = _DEFAULT_BUCKET_CAP_MB if bucket_cap_mb is None else bucket_cap_mb
        self.bucket_bytes_cap = int(cap_mb * _MB_TO_BYTES)
        first_cap = _DEFAULT_FIRST_BUCKET_BYTES if bucket_cap_mb is None else self.bucket_bytes_cap
        self.modules_buffers = [b for n, b in module.named_buffers()
                                if n not in self.parameters_to_ignore]
        params = [p for p in self._module_parameters if p.requires_grad]
        if init_sync:
            self._verify_param_shapes(params)
            with no_grad():
                for p in self._module_parameters:
                    dist.broadcast(p, 0, group=self.process_group)
                if init_sync_buffers:
                    for b in self.modules_buffers:
                        dist.broadcast(b, 0, group=self.process_group)
        self._params = params
        self._buckets = self._make_buckets(params, [first_cap, self.bucket_bytes_cap])
        self._where = {}  # id(param) -> (bucket, position in it)
        for b in self._buckets:
            for i, p in enumerate(b.params):
                self._where[id(p)] = (b, i)
        self._expect_hooks = False
        self._ready = set()  # ids of the parameters marked ready in this backward
        self._unused = []
        self._used_work = None
        # The hooks hold the wrapper weakly: a dropped DDP leaves no work on its module.
        ref = weakref.ref(self)

        def hook(param):
            ddp = ref()
            if ddp is not None:
                ddp._grad_ready(param)

        self._handles = [p.register_post_accumulate_grad_hook(hook) for p in params]

    # --- construction helpers --------------------------------------------------------------

    def _verify_param_shapes(self, params):
        # Every process must hold the same parameters: compare rank 0's shapes with ours.
        mine = [d for p in params for d in (p.dim(), *p.shape)]
        count = _native.tensor([len(mine)], dtype=_native.int64)
        dist.all_reduce(count, op=dist.ReduceOp.MAX, group=self.process_group)
        padded = _native.tensor(mine + [-1] * (int(count.item()) - len(mine)),
                                dtype=_native.int64)
        ref = padded.clone()
        dist.broadcast(ref, 0, group=self.process_group)
        if not _native.equal(ref, padded):
            raise RuntimeError(
                f"DDP expects same model across all ranks, but Rank {dist.get_rank()} has "
                f"{len(params)} params, while rank 0 has inconsistent params (shapes differ).")

    @staticmethod
    def _bucket_indices(params, limits):
        """PyTorch's bucket assignment (`_compute_bucket_assignment_by_size`, then reversed
        for the reducer): parameters taken in order, one dtype and device per bucket, a bucket
        closed once its bytes reach its limit (``limits[0]`` for the first of its kind, 1 MiB
        by default, then ``limits[1]``, ``bucket_cap_mb``); buckets ordered by their first
        parameter, then reversed, so the first bucket holds the last layers, whose gradients
        are ready first in backward."""
        open_, done = {}, []
        for idx, p in enumerate(params):
            key = (p.dtype, str(p.device))
            members, size, nth = open_.get(key, ([], 0, 0))
            members.append(idx)
            size += p.numel() * p.element_size()
            if size >= limits[min(nth, len(limits) - 1)]:
                done.append(members)
                open_[key] = ([], 0, nth + 1)
            else:
                open_[key] = (members, size, nth)
        done.extend(m for m, _, _ in open_.values() if m)
        done.sort(key=min)
        return done[::-1]

    @classmethod
    def _make_buckets(cls, params, limits):
        return [_Bucket([params[i] for i in m], m) for m in cls._bucket_indices(params, limits)]

    # --- forward ---------------------------------------------------------------------------

    def forward(self, *inputs, **kwargs):
        if self._expect_hooks and self._ready:
            missing = [i for i, p in enumerate(self._params) if id(p) not in self._ready]
            raise RuntimeError(_UNFINISHED_REDUCTION.format(
                rank=dist.get_rank(), indices=" ".join(map(str, missing))))
        grad_sync = is_grad_enabled() and self.require_backward_grad_sync
        if self.require_forward_param_sync and self.forward_sync_buffers and \
                self.modules_buffers:
            with no_grad():
                for b in self.modules_buffers:
                    dist.broadcast(b, 0, group=self.process_group)
        if self.device_ids:
            dev = _native.device("gpu", self.device_ids[0])
            inputs, kwargs = _to_device(inputs, dev), _to_device(kwargs, dev)
        output = self.module(*inputs, **kwargs)
        if grad_sync:
            self.require_forward_param_sync = True
            self._prepare_for_backward(output)
        else:
            self.require_forward_param_sync = False
            self._expect_hooks = False
        return output

    def _prepare_for_backward(self, output):
        self._expect_hooks = True
        self._ready = set()
        self._used_work = None
        self._next_bucket = 0
        for b in self._buckets:
            b.pending = len(b.params)
            b.work = None
        self._unused = []
        if self.find_unused_parameters:
            reached = _graph_leaves(_find_tensors(output))
            self._unused = [p for p in self._params if id(p) not in reached]

    # --- backward: the reducer -------------------------------------------------------------

    def _grad_ready(self, param):
        """Post-accumulate-grad hook of every parameter: copy its gradient, divided by the
        world size, into its bucket; start the bucket's all-reduce once it is full; after
        the last one, wait for all of them and write the averages back."""
        if not self._expect_hooks or id(param) in self._ready:
            return
        if not self._ready:
            # The parameters the forward did not reach get no hook: ready now, as zeros.
            for p in self._unused:
                self._mark_ready(p, None)
        self._mark_ready(param, param.grad)

    def _mark_ready(self, param, grad):
        self._ready.add(id(param))
        bucket, i = self._where[id(param)]
        dst = bucket.view(i)
        if grad is None:
            dst[...] = 0
        elif bucket.holds(i, grad):
            # gradient_as_bucket_view: backward accumulated into the bucket itself
            np.multiply(dst, dst.dtype.type(1.0 / self.process_group.size()), out=dst)
        else:
            g = grad.detach()
            src = (g if g.device.type == "cpu" else g.cpu()).contiguous().numpy().reshape(-1)
            # PyTorch divides while copying into the bucket, then sums.
            np.multiply(src, dst.dtype.type(1.0 / self.process_group.size()), out=dst)
        bucket.pending -= 1
        if bucket.pending == 0:
            self._launch_ready_buckets()
        if len(self._ready) == len(self._params):
            self._finalize()

    def _launch_ready_buckets(self):
        # Buckets are all-reduced in their order on every process, whatever order they fill
        # in (a process whose graph differs fills them in another order), so the collectives
        # pair up; a full bucket waits for the ones before it.
        while (self._next_bucket < len(self._buckets)
               and self._buckets[self._next_bucket].pending == 0):
            b = self._buckets[self._next_bucket]
            b.work = dist.all_reduce(b.flat, group=self.process_group, async_op=True)
            self._next_bucket += 1
        if self._next_bucket == len(self._buckets) and self.find_unused_parameters:
            # which parameters each process used, for the ones some process did not use
            unused = {id(p) for p in self._unused}
            used = np.array([0 if id(p) in unused else 1 for p in self._params], np.int32)
            self._used = _native.from_numpy(used)
            self._used_work = dist.all_reduce(self._used, group=self.process_group,
                                              async_op=True)

    def _finalize(self):
        self._expect_hooks = False
        for b in self._buckets:
            b.work.wait()
        if self._used_work is not None:
            self._used_work.wait()
        globally_used = None if self._used_work is None else self._used.numpy()
        locally_unused = {id(p) for p in self._unused}
        index = {id(p): k for k, p in enumerate(self._params)}
        with no_grad():
            for b in self._buckets:
                for i, p in enumerate(b.params):
                    avg = b.grad_view(i)
                    if id(p) in locally_unused and p.grad is None:
                        if globally_used[index[id(p)]] == 0:
                            continue  # no process used it: its grad stays None
                    if self.gradient_as_bucket_view and p.device.type == "cpu":
                        if p.grad is None or not b.holds(i, p.grad):
                            p.grad = avg
                    elif p.grad is None:
                        p.grad = avg.to(p.device, copy=True)
                    else:
                        p.grad.copy_(avg)

    @contextmanager
    def no_sync(self):
        r"""Context manager that disables gradient synchronization: gradients accumulate
        locally, and the first forward-backward after the context averages them. The forward
        must run inside the context."""
        old = self.require_backward_grad_sync
        self.require_backward_grad_sync = False
        try:
            yield
        finally:
            self.require_backward_grad_sync = old
