"""`DistributedDataParallel`: data-parallel training over `gradrs.distributed` (MPI), as
`torch.nn.parallel.DistributedDataParallel`: parameters and buffers broadcast from rank 0 at
construction, gradients averaged by bucketed all-reduces that start from gradient hooks while
backward still runs, `no_sync()`, `find_unused_parameters`, `gradient_as_bucket_view`;
communication hooks (`register_comm_hook`: a hook given each bucket as a `GradBucket` returns a
`gradrs.futures.Future` of its reduced value) and uneven inputs (`join()`: DDP is a `Joinable`,
whose join hook shadows the forward's and backward's collectives on the processes that ran out
of inputs)."""

from __future__ import annotations

import inspect
import warnings
import weakref
from contextlib import contextmanager

import numpy as np

from ... import _native, distributed as dist
from ..._grad_mode import is_grad_enabled, no_grad
from ...distributed._grad_bucket import BuiltinCommHookType, GradBucket
from ...distributed.algorithms.join import Join, Joinable, JoinHook
from ...futures import Future
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


class _DDPJoinHook(JoinHook):
    """DDP's join hook: on a process that has run out of inputs, each iteration of the others
    is shadowed by the collectives its forward and backward would issue (the buffer broadcast,
    the backward-sync flag, one all-reduce of zeros per bucket through the communication hook,
    the map of used parameters); once every process has joined, the model of the last to join
    is broadcast to all."""

    def __init__(self, ddp, divide_by_initial_world_size):
        if not isinstance(ddp, DistributedDataParallel):
            raise AssertionError("DDP join hook requires passing in a DistributedDataParallel "
                                 f"instance as the state, got {type(ddp).__name__}")
        self.ddp = ddp
        self.ddp._divide_by_initial_world_size = divide_by_initial_world_size
        super().__init__()

    def main_hook(self):
        """Shadow the collectives of one forward and backward of the non-joined processes."""
        ddp = self.ddp
        ddp._check_and_sync_module_buffers()
        should_sync_backwards = ddp._check_global_requires_backward_grad_sync(
            is_joined_rank=True)
        # no parameter sync in the next forward if this iteration skipped the gradient sync
        ddp.require_forward_param_sync = should_sync_backwards
        if not should_sync_backwards:
            return
        ddp._match_all_reduce_for_bwd_pass()
        if ddp.find_unused_parameters:
            ddp._match_unused_params_allreduce()

    def post_hook(self, is_last_joiner: bool):
        """Broadcast the model of the last process to join to every process."""
        self.ddp._sync_final_model(is_last_joiner)


class DistributedDataParallel(Module, Joinable):
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
        Joinable.__init__(self)
        self._comm_hook = None  # (hook, state) of register_comm_hook
        self._divide_by_initial_world_size = True
        self._forward_work = None  # Join's notification of this forward, for the divisor
        self._div = None
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
        # tell a join context that this process has not joined (the divisor of the gradients
        # under divide_by_initial_world_size=False is the count of processes that did)
        work = Join.notify_join_context(self)
        self._forward_work = None if work is None else (work, self._divide_by_initial_world_size)
        if self.require_forward_param_sync and self.forward_sync_buffers and \
                self.modules_buffers:
            # under join, from a process that has not joined (rank 0 may have)
            src = (self._find_common_rank(self._distributed_rank, True)
                   if self._join_config.enable else 0)
            with no_grad():
                for b in self.modules_buffers:
                    dist.broadcast(b, src, group=self.process_group)
        if self._join_config.enable:
            # tell the joined processes whether this backward synchronizes
            self._check_global_requires_backward_grad_sync(is_joined_rank=False)
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
        self._div = None
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
        # PyTorch divides while copying into the bucket, then sums; a communication hook gets
        # the gradients undivided (it divides, as allreduce_hook does)
        scale = 1.0 if self._comm_hook is not None else 1.0 / self._div_factor()
        if grad is None:
            dst[...] = 0
        elif bucket.holds(i, grad):
            # gradient_as_bucket_view: backward accumulated into the bucket itself
            if self._comm_hook is None:
                np.multiply(dst, dst.dtype.type(scale), out=dst)
        else:
            g = grad.detach()
            src = (g if g.device.type == "cpu" else g.cpu()).contiguous().numpy().reshape(-1)
            np.multiply(src, dst.dtype.type(scale), out=dst)
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
            if self._comm_hook is None:
                b.work = dist.all_reduce(b.flat, group=self.process_group, async_op=True)
            else:
                b.work = self._run_comm_hook(self._next_bucket, b.flat)
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
            if self._comm_hook is None:
                b.work.wait()
            else:
                self._take_hook_result(b)
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

    # --- communication hooks ---------------------------------------------------------------

    def register_comm_hook(self, state: object, hook) -> None:
        r"""Register a communication hook that decides how the gradients are aggregated.

        ``hook(state, bucket)`` is called once per bucket of each synchronized backward, when
        every gradient in ``bucket`` (a ``gradrs.distributed.GradBucket``) is ready, and returns
        a ``gradrs.futures.Future`` holding the bucket's new flat value (a tensor of
        ``bucket.buffer()``'s size): e.g. ``dist.all_reduce(buf, async_op=True).get_future()
        .then(lambda fut: fut.value()[0])``; a hook that communicates nothing still returns a
        completed Future. The gradients reach the hook *not* divided by the world size. DDP
        writes each parameter's slice of the value into its ``.grad`` after the last bucket.
        Registered once, before backward; ``state`` is handed to every call
        (``default_hooks.allreduce_hook`` takes the process group as its state).
        """
        self._check_comm_hook(hook)
        if self._comm_hook is not None:
            raise RuntimeError(
                "register_comm_hook or register_builtin_comm_hook can only be called once.")
        self._comm_hook = (hook, state)

    def _register_builtin_comm_hook(self, comm_hook_type):
        r"""Register one of the built-in hooks, ``dist.BuiltinCommHookType.ALLREDUCE`` or
        ``FP16_COMPRESS`` (their state is the process group)."""
        from ...distributed.algorithms.ddp_comm_hooks import default_hooks

        if not isinstance(comm_hook_type, BuiltinCommHookType):
            raise TypeError(
                "_register_builtin_comm_hook(): incompatible function arguments. The following "
                "argument types are supported:\n    1. (reducer: gradrs.distributed.Reducer, "
                "comm_hook_type: gradrs.distributed.BuiltinCommHookType) -> None\n\nInvoked "
                f"with: {comm_hook_type!r}")
        if self._comm_hook is not None:
            raise RuntimeError(
                "register_builtin_comm_hook or register_comm_hook can only be called once.")
        hook = (default_hooks.allreduce_hook if comm_hook_type == BuiltinCommHookType.ALLREDUCE
                else default_hooks.fp16_compress_hook)
        self._comm_hook = (hook, self.process_group)

    def _check_comm_hook(self, hook):
        if not callable(hook):
            raise TypeError("Communication hook must be callable.")
        sig = inspect.signature(hook)
        if sig.parameters["bucket"].annotation not in (inspect.Parameter.empty, GradBucket):
            raise ValueError(
                "Communication hook: bucket annotation should be dist.GradBucket.")
        if sig.return_annotation is not inspect.Signature.empty \
                and sig.return_annotation != Future[_native.Tensor]:
            raise ValueError("Communication hook: return annotation should be "
                             "gradrs.futures.Future[gradrs.Tensor].")
        if getattr(hook, "__name__", None) in ("bf16_compress_hook", "bf16_compress_wrapper_hook"):
            # PyTorch's condition: CUDA with NCCL 2.10+, or XPU with XCCL; gradrs has neither
            raise TypeError("BF16 all reduce communication hook required CUDA 11+ and NCCL 2.10+ "
                            "or XPU and XCCL")

    def _grad_bucket(self, index, buffer):
        b = self._buckets[index]
        views = [buffer[off:off + p.numel()].view(p.shape) for off, p in zip(b.offsets, b.params)]
        return GradBucket._make(index, index == len(self._buckets) - 1, buffer, views,
                                list(b.params))

    def _run_comm_hook(self, index, buffer):
        hook, state = self._comm_hook
        fut = hook(state, self._grad_bucket(index, buffer))
        if not isinstance(fut, Future):
            raise RuntimeError(
                "DDP communication hook's callback must return a gradrs.futures.Future object, "
                f"but got {type(fut).__module__}.{type(fut).__qualname__}")
        return fut

    def _take_hook_result(self, bucket):
        """Write the value of a bucket's hook future into the bucket (PyTorch's reducer reads the
        value itself: a future completed by ``set_exception`` holds the exception)."""
        fut = bucket.work
        with fut._cond:
            while not fut._done:
                fut._cond.wait()
        if fut._error is not None:
            raise fut._error
        value = fut._result
        if not isinstance(value, _native.Tensor):
            raise RuntimeError(f"Unable to cast {value} to Tensor")
        if value.numel() != bucket.flat.numel():
            raise RuntimeError(
                f"DDP communication hook's result has {value.numel()} elements, but its bucket "
                f"holds {bucket.flat.numel()}")
        flat = value.detach().reshape(-1)
        if flat.device.type != "cpu" or flat.data_ptr() != bucket.flat.data_ptr() \
                or flat.dtype != bucket.flat.dtype:
            with no_grad():
                bucket.flat.copy_(flat)

    def _div_factor(self):
        """What each gradient is divided by: the world size, or under ``join()`` with
        ``divide_by_initial_world_size=False`` the number of processes that have not joined."""
        if self._div is None:
            self._div = self.process_group.size()
            if self._forward_work is not None:
                work, static = self._forward_work
                if not static:
                    work.wait()
                    self._div = int(work.result()[0].item())
        return self._div

    # --- uneven inputs: Join ----------------------------------------------------------------

    def join(self, divide_by_initial_world_size: bool = True, enable: bool = True,
             throw_on_early_termination: bool = False):
        r"""A context manager for training on uneven inputs: the processes that run out of
        inputs shadow the collectives of the others' forward and backward until every process
        is done, and then the model of the last process to finish is broadcast to all.

        Arguments:
            divide_by_initial_world_size (bool): divide the gradients by the world size DDP was
                built with (default); if ``False``, by the number of processes that have not
                joined, so uneven inputs weigh more.
            enable (bool): whether to detect uneven inputs (default ``True``).
            throw_on_early_termination (bool): raise on every process as soon as one runs out
                of inputs (default ``False``).

        Example (under ``mpirun``)::

            with model.join():
                for batch in batches:  # a different count on each process
                    model(batch).sum().backward()
        """
        return Join([self], enable, throw_on_early_termination,
                    divide_by_initial_world_size=divide_by_initial_world_size)

    def join_hook(self, **kwargs):
        r"""DDP's `JoinHook`, shadowing the forward's and backward's collectives on a joined
        process. Takes ``divide_by_initial_world_size`` (default ``True``), as `join`."""
        divide_by_initial_world_size = kwargs.get("divide_by_initial_world_size", True)
        return _DDPJoinHook(self, divide_by_initial_world_size=divide_by_initial_world_size)

    @property
    def join_device(self):
        """The device of the join context's collectives: the module's."""
        return self.device

    @property
    def join_process_group(self):
        """The process group of the join context's collectives: DDP's."""
        return self.process_group

    @property
    def _distributed_rank(self):
        return dist.get_rank(self.process_group)

    def _find_common_rank(self, input_rank, rank_cond):
        # the largest rank for which rank_cond holds (-1: this rank is no candidate)
        rank_to_use = _native.tensor([input_rank if rank_cond else -1], device=self.device)
        dist.all_reduce(rank_to_use, op=dist.ReduceOp.MAX, group=self.process_group)
        if rank_to_use.item() == -1:
            raise ValueError("BUG! Expected rank_cond to be true for at least one process. "
                             "This indicates a bug in PyTorch, please report an issue.")
        return rank_to_use.item()

    def _check_global_requires_backward_grad_sync(self, is_joined_rank):
        # an all-reduce telling the joined processes whether this backward synchronizes
        requires = not is_joined_rank and self.require_backward_grad_sync
        flag = (_native.ones if requires else _native.zeros)(1, device=self.device)
        work = dist.all_reduce(flag, group=self.process_group, async_op=True)
        if is_joined_rank:
            work.wait()
            return flag.item() != 0
        return None

    def _check_and_sync_module_buffers(self):
        if self.require_forward_param_sync and self.forward_sync_buffers and \
                self.modules_buffers:
            src = self._find_common_rank(self._distributed_rank, False)
            with no_grad():
                for b in self.modules_buffers:
                    dist.broadcast(b, src, group=self.process_group)

    def _sync_final_model(self, is_last_joiner):
        # the last process to join holds the authoritative model (ties: the largest rank)
        self._authoritative_rank = self._find_common_rank(self._distributed_rank,
                                                          is_last_joiner)
        with no_grad():
            for p in self._module_parameters:
                dist.broadcast(p, self._authoritative_rank, group=self.process_group)
            if self.forward_sync_buffers:
                for b in self.modules_buffers:
                    dist.broadcast(b, self._authoritative_rank, group=self.process_group)

    def _match_all_reduce_for_bwd_pass(self):
        # one reduction of zeros per bucket, in the buckets' order, through the hook if any
        works = []
        for i, b in enumerate(self._buckets):
            zeros = _native.zeros_like(b.flat)
            if self._comm_hook is None:
                works.append(dist.all_reduce(zeros, group=self.process_group, async_op=True))
            else:
                works.append(self._run_comm_hook(i, zeros))
        for work in works:
            work.wait()

    def _match_unused_params_allreduce(self):
        used = _native.zeros(len(self._params), dtype=_native.int32)
        dist.all_reduce(used, group=self.process_group)

