"""Process groups and collectives over MPI (mpi4py and the system's MPI), with the API of
`torch.distributed` and the behaviour of PyTorch's MPI backend (`ProcessGroupMPI`)."""

from __future__ import annotations

import enum
import importlib.util
import io
import os
import queue
import sys
import threading
import warnings
from datetime import timedelta

import numpy as np

from .. import _native
from .._grad_mode import no_grad

__all__ = [
    "Backend", "GroupMember", "P2POp", "ProcessGroup", "ReduceOp", "Work", "all_gather",
    "all_gather_into_tensor", "all_gather_object", "all_gather_single", "all_reduce", "all_to_all",
    "all_to_all_single", "barrier", "batch_isend_irecv", "broadcast", "broadcast_object_list",
    "destroy_process_group", "gather", "gather_object", "get_backend", "get_global_rank",
    "get_group_rank", "get_node_local_rank", "get_process_group_ranks", "get_rank",
    "get_world_size", "group", "init_process_group", "irecv", "is_available",
    "is_backend_available", "is_gloo_available", "is_initialized", "is_mpi_available",
    "is_nccl_available", "is_torchelastic_launched", "isend", "new_group", "recv", "reduce",
    "reduce_op", "reduce_scatter", "reduce_scatter_single", "reduce_scatter_tensor", "scatter",
    "scatter_object_list", "send", "supports_complex",
]

default_pg_timeout = timedelta(minutes=30)


class ReduceOp:
    """The reduction of a collective: ``ReduceOp.SUM``, ``PRODUCT``, ``MIN``, ``MAX`` (the
    ones MPI has; ``AVG`` and the bitwise ops exist, as in PyTorch, and PyTorch's MPI backend
    fails on them). ``ReduceOp.SUM`` & co. are members of ``ReduceOp.RedOpType``."""

    class RedOpType(enum.Enum):
        """The enum of reduction operations (`SUM`, `AVG`, `PRODUCT`, `MIN`, `MAX`, `BAND`,
        `BOR`, `BXOR`, `PREMUL_SUM`); `ReduceOp.SUM` & co. are its members.

        Examples:
            >>> gradrs.distributed.ReduceOp.SUM
            <RedOpType.SUM: 0>
        """
        SUM = 0
        AVG = 1
        PRODUCT = 2
        MIN = 3
        MAX = 4
        BAND = 5
        BOR = 6
        BXOR = 7
        PREMUL_SUM = 8

        def __int__(self):
            return self.value

        def __index__(self):
            return self.value

        def __eq__(self, other):
            if isinstance(other, ReduceOp):
                return self is other.op
            return self is other

        def __hash__(self):
            return hash(self.value)

    SUM = RedOpType.SUM
    AVG = RedOpType.AVG
    PRODUCT = RedOpType.PRODUCT
    MIN = RedOpType.MIN
    MAX = RedOpType.MAX
    BAND = RedOpType.BAND
    BOR = RedOpType.BOR
    BXOR = RedOpType.BXOR
    PREMUL_SUM = RedOpType.PREMUL_SUM

    def __init__(self, op):
        if not isinstance(op, ReduceOp.RedOpType):
            raise TypeError(
                "__init__(): incompatible constructor arguments. The following argument types "
                "are supported:\n    1. gradrs.distributed.ReduceOp(arg0: ReduceOp.RedOpType)\n\n"
                f"Invoked with: {op!r}")
        self.op = op

    def __eq__(self, other):
        return self.op is (other.op if isinstance(other, ReduceOp) else other)

    def __hash__(self):
        return hash(self.op)


class _reduce_op:
    """Deprecated enum-like class (`gradrs.distributed.reduce_op`): use `ReduceOp`."""

    def __init__(self):
        for k, v in ReduceOp.RedOpType.__members__.items():
            setattr(self, k, v)
        self.__members__ = ReduceOp.RedOpType.__members__

    def __getattribute__(self, key):
        if not key.startswith("__"):
            warnings.warn("`gradrs.distributed.reduce_op` is deprecated, please use "
                          "`gradrs.distributed.ReduceOp` instead", FutureWarning, stacklevel=2)
        return object.__getattribute__(self, key)


reduce_op = _reduce_op()


def supports_complex(reduceOp) -> bool:
    """Whether ``reduceOp`` applies to complex tensors (not MAX, MIN, PRODUCT, bitwise)."""
    return reduceOp not in (ReduceOp.MAX, ReduceOp.MIN, ReduceOp.PRODUCT, ReduceOp.BAND,
                            ReduceOp.BOR, ReduceOp.BXOR)


class Backend(str):
    """A backend name as a lower-case string (``Backend.MPI == "mpi"``)."""

    UNDEFINED = "undefined"
    GLOO = "gloo"
    NCCL = "nccl"
    UCC = "ucc"
    MPI = "mpi"
    XCCL = "xccl"
    FAKE = "fake"
    backend_list = [UNDEFINED, GLOO, NCCL, XCCL, UCC, MPI, FAKE]

    def __new__(cls, name: str):
        if not isinstance(name, str):
            raise ValueError("Backend constructor parameter must be string-ish")
        value = getattr(Backend, name.upper(), Backend.UNDEFINED)
        if value == Backend.UNDEFINED:
            value = name.lower()
        return value


class _WorldMeta(type):
    """Gives ``group`` and ``GroupMember`` the class property ``WORLD``: the default group."""

    @property
    def WORLD(cls):
        return _world.default_pg


class group(metaclass=_WorldMeta):
    """Group class. Placeholder (``group.WORLD`` is the default process group)."""


class GroupMember(metaclass=_WorldMeta):
    """Group member class."""

    NON_GROUP_MEMBER = -100


class _World:
    """This process's process groups: the default one and those `new_group` made."""

    def __init__(self):
        self.default_pg = None
        self.pg_group_ranks = {}  # group -> {global rank: group rank}
        self.groups = []


_world = _World()
_MPI = None  # mpi4py.MPI, imported by init_process_group (importing it initializes MPI)


def is_available() -> bool:
    """Whether the distributed package is available (always: MPI is checked at init)."""
    return True


def is_mpi_available() -> bool:
    """Whether the MPI backend is available: mpi4py can be imported."""
    return importlib.util.find_spec("mpi4py") is not None


def is_gloo_available() -> bool:
    """gradrs has no Gloo backend."""
    return False


def is_nccl_available() -> bool:
    """gradrs has no NCCL backend."""
    return False


def is_backend_available(backend: str) -> bool:
    """Whether ``backend`` (or each backend of a ``"device:backend,..."`` string) is
    available: only ``"mpi"``, with mpi4py."""
    names = [part.split(":")[-1] for part in backend.lower().split(",")]
    return all(name == Backend.MPI and is_mpi_available() for name in names)


def is_torchelastic_launched() -> bool:
    """Whether this process was launched by torchelastic (``TORCHELASTIC_RUN_ID`` is set)."""
    return os.getenv("TORCHELASTIC_RUN_ID") is not None


def get_node_local_rank(fallback_rank=None) -> int:
    """This process's rank on its machine, from ``LOCAL_RANK`` (``fallback_rank`` without
    it). Under mpirun, Open MPI's ``OMPI_COMM_WORLD_LOCAL_RANK`` holds it instead."""
    if "LOCAL_RANK" in os.environ:
        return int(os.environ["LOCAL_RANK"])
    if fallback_rank is not None:
        return int(fallback_rank)
    raise RuntimeError(
        "LOCAL_RANK is not in the environment. Consider passing fallback_rank to allow "
        "`get_node_local_rank` to work, assuming you are not running in a multi-device "
        "context and want the code to run locally instead.")


def is_initialized() -> bool:
    """Check if the default process group has been initialized."""
    return _world.default_pg is not None


def _get_default_group():
    if not is_initialized():
        raise ValueError("Default process group has not been initialized, "
                         "please make sure to call init_process_group.")
    return _world.default_pg


# --- work items ------------------------------------------------------------------------------

class Work:
    """A collective or point-to-point operation in flight (``async_op=True``): `wait()` blocks
    until it has finished and raises its error, `is_completed()` asks without blocking."""

    def __init__(self, request=None, outputs=(), finish=None):
        self._done = threading.Event()
        self._exception = None
        self._outputs = list(outputs)
        self._request = request  # an MPI request (send/recv), completed by the caller
        self._finish = finish  # runs once a request completed (a GPU tensor's copy back)
        self._status = None
        self._futures = []  # get_future()'s, completed with the work
        self._lock = threading.Lock()

    def _complete(self, exc=None):
        self._exception = exc
        with self._lock:
            self._done.set()
            futures, self._futures = self._futures, []
        for fut in futures:
            self._settle(fut)

    def _settle(self, fut):
        if self._exception is None:
            fut._complete(result=self._outputs)
        else:
            fut._complete(error=self._exception)

    def get_future(self):
        """A `gradrs.futures.Future` completed when the operation finishes, holding its output
        tensors (a list) or failing with its error; its callbacks run on the process group's
        worker. Collectives only, as PyTorch's MPI backend (not `isend` / `irecv`).
        """
        from ..futures import Future

        if self._request is not None:
            raise RuntimeError("Work::getFuture not implemented.")
        fut = Future()
        with self._lock:
            if not self._done.is_set():
                self._futures.append(fut)
                return fut
        self._settle(fut)
        return fut

    def _poll_request(self, block):
        if self._request is None or self._done.is_set():
            return
        status = _MPI.Status()
        if block:
            self._request.Wait(status)
        elif not self._request.Test(status):
            return
        self._status = status
        if self._finish is not None:
            self._finish()
        self._done.set()

    def is_completed(self) -> bool:
        """Whether the operation has finished (successfully or not); never blocks.
        """
        self._poll_request(block=False)
        return self._done.is_set()

    def is_success(self) -> bool:
        """Whether the operation finished without an error (waits for it to finish).
        """
        if not self.is_completed():
            raise RuntimeError("Invalid call to AsyncWork::isSuccess before work has completed")
        return self._exception is None

    def exception(self):
        """The exception the operation raised, or None.
        """
        return self._exception

    def wait(self, timeout=None) -> bool:
        """Blocks until the operation has finished and re-raises its error, if any; returns
        True.

        Args:
            timeout: accepted for PyTorch's signature (MPI operations are waited for in full).
        """
        self._poll_request(block=True)
        self._done.wait()
        if self._exception is not None:
            raise self._exception
        return True

    def result(self):
        """The output tensors of the operation (a list), after waiting for it.
        """
        return self._outputs

    def source_rank(self) -> int:
        """For a `recv` from any source: the rank the message came from.
        """
        return self._status.Get_source()

    _source_rank = source_rank


# --- process groups --------------------------------------------------------------------------

class ProcessGroup:
    """A group of processes sharing an MPI communicator. Its collectives run one after the
    other, in the order they were issued, on a worker thread of their own (PyTorch's MPI
    backend runs them so): an ``async_op=True`` collective overlaps with the caller's work, and
    mpi4py releases the GIL while MPI moves the data."""

    def __init__(self, comm, ranks):
        self._comm = comm
        self._rank = comm.Get_rank()
        self._size = comm.Get_size()
        self._ranks = ranks
        self._queue = queue.Queue()
        self._outstanding = 0  # queued or running items
        self._count_lock = threading.Lock()
        self._exec_lock = threading.Lock()  # held while an item runs, here or inline
        self._worker = threading.Thread(target=self._run, daemon=True,
                                        name=f"gradrs-mpi-{id(self):x}")
        self._worker.start()

    def rank(self) -> int:
        """This process's rank within the group.
        """
        return self._rank

    def size(self) -> int:
        """The number of processes in the group.
        """
        return self._size

    def name(self) -> str:
        """The group's backend name, `'mpi'`.
        """
        return "mpi"

    def __repr__(self):
        return f"<gradrs.distributed.ProcessGroup rank={self._rank} size={self._size}>"

    def _run(self):
        while True:
            item = self._queue.get()
            if item is None:
                return
            fn, work = item
            with self._exec_lock:
                try:
                    fn()
                except BaseException as e:  # noqa: BLE001 - handed to whoever waits on the work
                    exc = e
                else:
                    exc = None
            with self._count_lock:
                self._outstanding -= 1
            work._complete(exc)

    def _enqueue(self, fn, outputs=()):
        work = Work(outputs=outputs)
        with self._count_lock:
            self._outstanding += 1
        self._queue.put((fn, work))
        return work

    def _run_now(self, fn):
        """Run a blocking collective on the calling thread when nothing is queued before it
        (the same order, without the hop to the worker and back: ~30 us a call); else queue
        it and wait."""
        with self._exec_lock:
            with self._count_lock:
                idle = self._outstanding == 0
            if idle:
                fn()
                return
        self._enqueue(fn).wait()

    def _shutdown(self):
        self._queue.put(None)
        self._worker.join()
        if self._comm != _MPI.COMM_WORLD:
            self._comm.Free()


_MPI_OPS = {}


def _mpi_op(op):
    if isinstance(op, ReduceOp):
        op = op.op
    mpi = _MPI_OPS.get(op)
    if mpi is None:
        # PyTorch's MPI backend looks the op up in a std::map of SUM, PRODUCT, MIN, MAX;
        # std::out_of_range reaches Python as this IndexError when the work is waited on.
        raise IndexError("map::at")
    return mpi


# The dtypes PyTorch's MPI backend maps to MPI datatypes (gradrs has no uint8/int8/int16).
_MPI_DTYPES = None


def _check_dtype(t):
    if t.dtype not in _MPI_DTYPES:
        raise IndexError("map::at")


class _Buffer:
    """A tensor's memory as a flat ndarray MPI reads and writes: the tensor's own memory on the
    CPU (zero-copy), a host copy for a GPU tensor, written back by `done()`."""

    def __init__(self, t):
        self.tensor = t
        if t.device.type == "cpu":
            self.host = None
            self.array = t.detach().numpy().reshape(-1)
        else:
            self.host = t.detach().cpu()
            self.array = self.host.numpy().reshape(-1)

    def done(self):
        if self.host is not None:
            with no_grad():
                self.tensor.copy_(self.host)


def _check_single_tensor(param, param_name):
    if not isinstance(param, _native.Tensor):
        raise TypeError(
            f"""Invalid function argument. Expected parameter `{param_name}` of type gradrs.Tensor
             but got {type(param)} instead.""")


def _check_tensor_list(param, param_name):
    if not isinstance(param, list):
        raise TypeError(
            f"""Invalid function argument. Expected parameter `{param_name}` of type List[gradrs.Tensor]
             but got {type(param)} instead.""")
    if not all(isinstance(p, _native.Tensor) for p in param):
        raise TypeError(
            f"""Invalid function argument. Expected parameter `{param_name}` of type List[gradrs.Tensor]
             but got {type(param)} with elements of type {[type(p) for p in param]}.""")


def _ensure_all_tensors_same_dtype(*tensors):
    last = None
    for item in tensors:
        for t in item if isinstance(item, list) else (item,):
            if last is None:
                last = t.dtype
            elif last != t.dtype:
                raise ValueError("Invalid usage of tensors with different dtypes"
                                 f"Found {last} and  {t.dtype}")


def _check_mpi_tensor(t):
    # ProcessGroupMPI's checkSingleTensorHelper
    if not t.is_contiguous():
        raise RuntimeError("input tensor has to be contiguous")


def _check_same_size_and_type(t_in, tensors):
    for t in tensors:
        if t.numel() != t_in.numel() or t.dtype != t_in.dtype:
            raise RuntimeError("Tensors are not equal in size or data type")
        _check_mpi_tensor(t)


def _rank_not_in_group(group):
    return group is not None and group == GroupMember.NON_GROUP_MEMBER


def _warn_not_in_group(op_name):
    global_rank = -1 if _world.default_pg is None else _world.default_pg.rank()
    warnings.warn(f"Running {op_name} on global rank {global_rank} which does not "
                  "belong to the given group.", stacklevel=3)


def _group_or_default_group(group):
    if group is None:
        return _get_default_group()
    return group


def _issue(group, fn, async_op, outputs=()):
    """Queue `fn` on the group's worker (``async_op``), or run it now."""
    if async_op:
        return group._enqueue(fn, outputs)
    group._run_now(fn)
    return None


# --- set-up ----------------------------------------------------------------------------------

def init_process_group(backend=None, init_method=None, timeout=None, world_size=-1, rank=-1,
                       store=None, group_name="", pg_options=None, device_id=None):
    """Initialize the default process group. gradrs has one backend, ``"mpi"``: launch the
    program with ``mpirun -np N python train.py``; the MPI runtime assigns ranks and the world
    size (``world_size`` and ``rank`` are ignored, with PyTorch's warning)."""
    global _MPI, _MPI_DTYPES
    if _world.default_pg is not None:
        raise ValueError("trying to initialize the default process group twice!")
    if not (store is None or init_method is None):
        raise AssertionError("Cannot specify both init_method and store.")
    if store is not None:
        if not world_size > 0:
            raise AssertionError("world_size must be positive if using store")
        if not rank >= 0:
            raise AssertionError("rank must be non-negative if using store")
    elif init_method is None:
        init_method = "env://"
    backend = Backend(backend if backend is not None else "undefined")
    if timeout is None:
        timeout = default_pg_timeout
    if not isinstance(timeout, timedelta):
        raise TypeError(
            f"Expected timeout argument to be of type datetime.timedelta, got {timeout}")
    if backend in (Backend.UNDEFINED, Backend.GLOO):
        raise RuntimeError("Distributed package doesn't have Gloo built in")
    if backend == Backend.NCCL:
        raise RuntimeError("Distributed package doesn't have NCCL built in")
    if backend == Backend.XCCL:
        raise RuntimeError("Distributed package doesn't have XCCL built in")
    if backend != Backend.MPI:
        raise AssertionError(f"Unknown backend type {backend}")
    if not is_mpi_available():
        # PyTorch names a build from source here; gradrs needs mpi4py on a host with MPI.
        raise RuntimeError("Distributed package doesn't have MPI built in. MPI is only "
                           "included if mpi4py is installed (pip install mpi4py) on a host "
                           "that has MPI installed.")
    if world_size != -1 or rank != -1:
        warnings.warn(f"For MPI backend, world_size ({world_size}) and rank ({rank}) are "
                      "ignored since they are assigned by the MPI runtime.", stacklevel=2)
    from mpi4py import MPI  # initializes MPI (thread level MULTIPLE) unless done already

    if MPI.Query_thread() < MPI.THREAD_SERIALIZED:
        raise RuntimeError("Used MPI implementation doesn't have the minimum level of "
                           "threading support: MPI_THREAD_SERIALIZED. This is required by "
                           "c10d package")
    _MPI = MPI
    _MPI_OPS.update({ReduceOp.SUM: MPI.SUM, ReduceOp.PRODUCT: MPI.PROD,
                     ReduceOp.MIN: MPI.MIN, ReduceOp.MAX: MPI.MAX})
    _MPI_DTYPES = {_native.float32, _native.float64, _native.int32, _native.int64}
    pg = ProcessGroup(MPI.COMM_WORLD, list(range(MPI.COMM_WORLD.Get_size())))
    _world.default_pg = pg
    _world.pg_group_ranks[pg] = {i: i for i in range(pg.size())}
    _world.groups.append(pg)
    _install_excepthook(pg.rank())


def _install_excepthook(rank):
    # PyTorch prefixes each line of an uncaught exception's traceback with the rank.
    old_hook = sys.excepthook
    prefix = f"[rank{rank}]"

    def _distributed_excepthook(*args):
        old_stderr = sys.stderr
        sys.stderr = buf = io.StringIO()
        try:
            old_hook(*args)
        finally:
            sys.stderr = old_stderr
        msg = "\n".join(f"{prefix}: {s}" if s != "" else "" for s in buf.getvalue().split("\n"))
        sys.stderr.write(msg)
        sys.stderr.flush()

    sys.excepthook = _distributed_excepthook


def new_group(ranks=None, timeout=None, backend=None, pg_options=None,
              use_local_synchronization=False, group_desc=None, device_id=None,
              sort_ranks=True):
    """Create a process group of the given global ranks. Every process of the default group
    must call it (as in PyTorch), also those not in ``ranks``; they get
    ``GroupMember.NON_GROUP_MEMBER``."""
    default_pg = _get_default_group()
    backend = Backend(backend) if backend else Backend.MPI
    if timeout is not None and not isinstance(timeout, timedelta):
        raise TypeError(
            f"Expected timeout argument to be of type datetime.timedelta, got {timeout}")
    if use_local_synchronization and backend == Backend.MPI:
        raise ValueError("MPI backend doesn't support use_local_synchronization=True")
    if backend != Backend.MPI:
        raise AssertionError(f"Unknown backend type {backend}")
    global_size = default_pg.size()
    if ranks is not None:
        ranks = sorted(ranks) if sort_ranks else list(ranks)
        if len(set(ranks)) != len(ranks):
            raise ValueError(f"ranks list must not contain duplicate entries, got {ranks}")
        if len(ranks) > global_size:
            raise ValueError("the new group's world size should be less or equal to the world "
                             "size set by init_process_group")
        for r in ranks:
            if r < 0 or r >= global_size:
                raise ValueError(f"Rank {r} is out of range. Valid ranks are 0 to "
                                 f"{global_size - 1} (world_size={global_size})")
    else:
        ranks = list(range(global_size))
    world = default_pg._comm
    # MPI_Comm_create is collective over the parent: finish the parent's queued work first.
    default_pg._enqueue(lambda: None).wait()
    comm = world.Create(world.Get_group().Incl(ranks))
    if comm == _MPI.COMM_NULL:
        return GroupMember.NON_GROUP_MEMBER
    pg = ProcessGroup(comm, ranks)
    _world.pg_group_ranks[pg] = {g: i for i, g in enumerate(ranks)}
    _world.groups.append(pg)
    return pg


def destroy_process_group(group=None):
    """Destroy ``group`` (the default group, and with it every group, when None)."""
    if group == GroupMember.NON_GROUP_MEMBER:
        return
    pg = _world.default_pg if group is None else group
    if pg is None:
        raise AssertionError("Process group cannot be None")
    if pg not in _world.pg_group_ranks:
        raise ValueError("Invalid process group specified")
    if group is None or group is _world.default_pg:
        for g in reversed(_world.groups):
            g._shutdown()
        _world.groups.clear()
        _world.pg_group_ranks.clear()
        _world.default_pg = None
    else:
        pg._shutdown()
        _world.groups.remove(pg)
        del _world.pg_group_ranks[pg]


def get_backend(group=None):
    """The backend of ``group`` (``"mpi"``)."""
    pg = group or _get_default_group()
    if _rank_not_in_group(pg):
        raise ValueError("Invalid process group specified")
    if pg not in _world.pg_group_ranks:
        raise ValueError(f"Process group {pg} is not initialized in the world group map. "
                         "Please initialize the group first.")
    return Backend(Backend.MPI)


def get_rank(group=None) -> int:
    """This process's rank in ``group`` (-1 when it is not a member)."""
    if _rank_not_in_group(group):
        return -1
    default_pg = _get_default_group()
    if group is None or group is default_pg:
        return default_pg.rank()
    return get_group_rank(group, default_pg.rank())


def get_world_size(group=None) -> int:
    """The number of processes in ``group`` (-1 when this process is not a member)."""
    if _rank_not_in_group(group):
        return -1
    if group is None or group is _world.default_pg:
        return _get_default_group().size()
    return group.size()


def get_group_rank(group, global_rank) -> int:
    """Translate a global rank into ``group``'s rank."""
    if group is _world.default_pg:
        return global_rank
    if group not in _world.pg_group_ranks:
        raise ValueError(f"Group {group} is not registered, please create group with "
                         "gradrs.distributed.new_group API")
    ranks = _world.pg_group_ranks[group]
    if global_rank not in ranks:
        raise ValueError(f"Global rank {global_rank} is not part of group {group}")
    return ranks[global_rank]


def get_global_rank(group, group_rank) -> int:
    """Translate ``group``'s rank into a global rank."""
    if group is _world.default_pg:
        return group_rank
    if group not in _world.pg_group_ranks:
        raise ValueError(f"Group {group} is not registered, please create group with "
                         "gradrs.distributed.new_group API")
    for rank, grp_rank in _world.pg_group_ranks[group].items():
        if grp_rank == group_rank:
            return rank
    raise ValueError(f"Group rank {group_rank} is not part of group {group}")


def get_process_group_ranks(group) -> list:
    """The global ranks of ``group``'s members."""
    return list(_world.pg_group_ranks[group or _get_default_group()].keys())


def _canonicalize_group_rank(group, global_rank=None, group_rank=None, return_global=False):
    if group_rank is not None:
        if global_rank is not None:
            raise ValueError("Can't specify both group_rank and global_rank")
        if return_global:
            return get_global_rank(group, group_rank)
    else:
        if global_rank is None:
            raise ValueError("Must specify global_rank or group_rank")
        if return_global:
            return global_rank
        group_rank = get_group_rank(group, global_rank)
    return group_rank


def _check_not_self_rank(group, rank, rank_type):
    if group.rank() == rank:
        raise ValueError(f"Invalid {rank_type} rank: {rank_type} rank should not be the same "
                         "as the rank of the current process.")


# --- collectives -----------------------------------------------------------------------------

def broadcast(tensor, src=None, group=None, async_op=False, group_src=None):
    """Send ``tensor`` from rank ``src`` to every process of the group, in place."""
    group = _group_or_default_group(group)
    group_src = _canonicalize_group_rank(group, src, group_src)
    _check_single_tensor(tensor, "tensor")
    if _rank_not_in_group(group):
        _warn_not_in_group("broadcast")
        return None
    _check_mpi_tensor(tensor)

    def fn():
        _check_dtype(tensor)
        b = _Buffer(tensor)
        group._comm.Bcast(b.array, root=group_src)
        b.done()
    return _issue(group, fn, async_op, [tensor])


def all_reduce(tensor, op=ReduceOp.SUM, group=None, async_op=False):
    """Reduce ``tensor`` over every process of the group with ``op``, in place on each."""
    _check_single_tensor(tensor, "tensor")
    if _rank_not_in_group(group):
        _warn_not_in_group("all_reduce")
        return None
    if group is None:
        group = _get_default_group()
    _check_mpi_tensor(tensor)

    def fn():
        b = _Buffer(tensor)
        mpi_op = _mpi_op(op)
        _check_dtype(tensor)
        group._comm.Allreduce(_MPI.IN_PLACE, b.array, op=mpi_op)
        b.done()
    return _issue(group, fn, async_op, [tensor])


def reduce(tensor, dst=None, op=ReduceOp.SUM, group=None, async_op=False, group_dst=None):
    """Reduce ``tensor`` over the group into rank ``dst``'s tensor."""
    group = _group_or_default_group(group)
    group_dst = _canonicalize_group_rank(group, dst, group_dst)
    _check_single_tensor(tensor, "tensor")
    if _rank_not_in_group(group):
        _warn_not_in_group("reduce")
        return None
    _check_mpi_tensor(tensor)

    def fn():
        _check_dtype(tensor)
        mpi_op = _mpi_op(op)
        b = _Buffer(tensor)
        if group.rank() == group_dst:
            group._comm.Reduce(_MPI.IN_PLACE, b.array, op=mpi_op, root=group_dst)
            b.done()
        else:
            group._comm.Reduce(b.array, None, op=mpi_op, root=group_dst)
    return _issue(group, fn, async_op, [tensor])


def _write_flat(outputs, flat):
    """Copy the rows of `flat` (one per output) into the output tensors."""
    n = flat.size // max(len(outputs), 1)
    for i, t in enumerate(outputs):
        b = _Buffer(t)
        b.array[...] = flat[i * n:(i + 1) * n]
        b.done()


def all_gather(tensor_list, tensor, group=None, async_op=False):
    """Gather ``tensor`` from every process into ``tensor_list`` (one tensor per rank)."""
    _check_tensor_list(tensor_list, "tensor_list")
    _check_single_tensor(tensor, "tensor")
    _ensure_all_tensors_same_dtype(tensor_list, tensor)
    if _rank_not_in_group(group):
        _warn_not_in_group("all_gather")
        return None
    group = group or _get_default_group()
    _check_mpi_tensor(tensor)
    if group.size() != len(tensor_list):
        raise RuntimeError("All gather: number of output tensors should equal to the world size")
    _check_same_size_and_type(tensor, tensor_list)

    def fn():
        _check_dtype(tensor)
        b = _Buffer(tensor)
        flat = np.empty(b.array.size * group.size(), b.array.dtype)
        group._comm.Allgather(b.array, flat)
        _write_flat(tensor_list, flat)
    return _issue(group, fn, async_op, tensor_list)


def all_gather_single(output_tensor, input_tensor, group=None, async_op=False):
    """Gather ``input_tensor`` from every process into ``output_tensor``, rank after rank
    along its first dimension (its size is the group's size times the input's)."""
    _check_single_tensor(input_tensor, "input_tensor")
    _check_single_tensor(output_tensor, "output_tensor")
    if _rank_not_in_group(group):
        _warn_not_in_group("all_gather_single")
        return None
    group = group or _get_default_group()
    _check_mpi_tensor(input_tensor)
    _check_mpi_tensor(output_tensor)
    if output_tensor.dtype != input_tensor.dtype:
        raise TypeError("output tensor must have the same type as input tensor")
    if output_tensor.numel() != input_tensor.numel() * group.size():
        raise ValueError("output tensor size must be equal to world_size times input tensor "
                         "size")

    def fn():
        _check_dtype(input_tensor)
        src, dst = _Buffer(input_tensor), _Buffer(output_tensor)
        group._comm.Allgather(src.array, dst.array)
        dst.done()
    return _issue(group, fn, async_op, [output_tensor])


def all_gather_into_tensor(output_tensor, input_tensor, group=None, async_op=False):
    """Deprecated alias of `all_gather_single` (PyTorch's FutureWarning)."""
    warnings.warn("`gradrs.distributed.all_gather_into_tensor` is deprecated. "
                  "Please use `gradrs.distributed.all_gather_single` instead.",
                  FutureWarning, stacklevel=2)
    return all_gather_single(output_tensor, input_tensor, group, async_op)


def gather(tensor, gather_list=None, dst=None, group=None, async_op=False, group_dst=None):
    """Gather ``tensor`` from every process into ``gather_list`` on rank ``dst`` (0)."""
    _check_single_tensor(tensor, "tensor")
    if gather_list:
        _check_tensor_list(gather_list, "gather_list")
    else:
        gather_list = []
    _ensure_all_tensors_same_dtype(tensor, gather_list)
    group = _group_or_default_group(group)
    if _rank_not_in_group(group):
        _warn_not_in_group("gather")
        return None
    if dst is None and group_dst is None:
        dst = 0
    group_dst = _canonicalize_group_rank(group, dst, group_dst)
    me = group.rank()
    if group_dst == me:
        if not gather_list:
            raise ValueError("Argument ``gather_list`` must be specified on destination rank.")
    elif gather_list:
        raise ValueError("Argument ``gather_list`` must NOT be specified on non-destination "
                         "ranks.")
    _check_mpi_tensor(tensor)
    if me == group_dst:
        if group.size() != len(gather_list):
            raise RuntimeError("Gather: number of output tensors should equal to the world size")
        _check_same_size_and_type(tensor, gather_list)

    def fn():
        _check_dtype(tensor)
        b = _Buffer(tensor)
        if me == group_dst:
            flat = np.empty(b.array.size * group.size(), b.array.dtype)
            group._comm.Gather(b.array, flat, root=group_dst)
            _write_flat(gather_list, flat)
        else:
            group._comm.Gather(b.array, None, root=group_dst)
    return _issue(group, fn, async_op, gather_list)


def scatter(tensor, scatter_list=None, src=None, group=None, async_op=False, group_src=None):
    """Scatter ``scatter_list`` from rank ``src`` (0): rank i receives its i-th tensor into
    ``tensor``."""
    _check_single_tensor(tensor, "tensor")
    if scatter_list:
        _check_tensor_list(scatter_list, "scatter_list")
    else:
        scatter_list = []
    _ensure_all_tensors_same_dtype(tensor, scatter_list)
    group = _group_or_default_group(group)
    if src is None and group_src is None:
        src = 0
    group_src = _canonicalize_group_rank(group, src, group_src)
    if _rank_not_in_group(group):
        _warn_not_in_group("scatter")
        return None
    me = group.rank()
    if group_src == me:
        if not scatter_list:
            raise ValueError("Argument ``scatter_list`` must be specified on source rank.")
    elif scatter_list:
        raise ValueError("Argument ``scatter_list`` must NOT be specified on non-source ranks.")
    _check_mpi_tensor(tensor)
    if me == group_src:
        if group.size() != len(scatter_list):
            raise RuntimeError("Scatter: number of input tensors should equal to the world size")
        _check_same_size_and_type(tensor, scatter_list)

    def fn():
        _check_dtype(tensor)
        b = _Buffer(tensor)
        if me == group_src:
            flat = np.concatenate([_Buffer(t).array for t in scatter_list])
            group._comm.Scatter(flat, b.array, root=group_src)
        else:
            group._comm.Scatter(None, b.array, root=group_src)
        b.done()
    return _issue(group, fn, async_op, [tensor])


def reduce_scatter(output, input_list, op=ReduceOp.SUM, group=None, async_op=False):
    """Reduce the i-th tensors of every process's ``input_list`` into rank i's ``output``."""
    _check_single_tensor(output, "output")
    _check_tensor_list(input_list, "input_list")
    _ensure_all_tensors_same_dtype(output, input_list)
    if _rank_not_in_group(group):
        _warn_not_in_group("reduce_scatter")
        return None
    group = group or _get_default_group()
    _check_mpi_tensor(output)
    if len(input_list) != group.size():
        raise ValueError("reduce_scatter: number of input tensors should equal to the world "
                         "size")
    _check_same_size_and_type(output, input_list)

    def fn():
        _check_dtype(output)
        mpi_op = _mpi_op(op)
        b = _Buffer(output)
        flat = np.concatenate([_Buffer(t).array for t in input_list])
        group._comm.Reduce_scatter_block(flat, b.array, op=mpi_op)
        b.done()
    return _issue(group, fn, async_op, [output])


def reduce_scatter_single(output, input, op=ReduceOp.SUM, group=None, async_op=False):
    """Reduce ``input`` over the group and scatter it: rank i gets the i-th of ``group size``
    equal parts of the reduced tensor in ``output``."""
    _check_single_tensor(output, "output")
    _check_single_tensor(input, "input")
    if _rank_not_in_group(group):
        _warn_not_in_group("reduce_scatter_single")
        return None
    group = group or _get_default_group()
    _check_mpi_tensor(output)
    _check_mpi_tensor(input)
    if output.dtype != input.dtype:
        raise TypeError("input tensor must be the same type as the output tensor.")
    if input.numel() != output.numel() * group.size():
        raise ValueError("input tensor must be the same size as output size times world size")

    def fn():
        _check_dtype(output)
        mpi_op = _mpi_op(op)
        src, dst = _Buffer(input), _Buffer(output)
        group._comm.Reduce_scatter_block(src.array, dst.array, op=mpi_op)
        dst.done()
    return _issue(group, fn, async_op, [output])


def reduce_scatter_tensor(output, input, op=ReduceOp.SUM, group=None, async_op=False):
    """Deprecated alias of `reduce_scatter_single` (PyTorch's FutureWarning)."""
    warnings.warn("`gradrs.distributed.reduce_scatter_tensor` is deprecated. "
                  "Please use `gradrs.distributed.reduce_scatter_single` instead.",
                  FutureWarning, stacklevel=2)
    return reduce_scatter_single(output, input, op, group, async_op)


def barrier(group=GroupMember.WORLD, async_op=False, device_ids=None, timeout=None):
    """Block until every process of the group has reached it."""
    group = group or _get_default_group()
    if _rank_not_in_group(group):
        _warn_not_in_group("barrier")
        return None
    return _issue(group, group._comm.Barrier, async_op)


# --- point to point --------------------------------------------------------------------------

def isend(tensor, dst=None, group=None, tag=0, group_dst=None):
    """Send ``tensor`` to rank ``dst`` without waiting: returns a `Work`."""
    group = _group_or_default_group(group)
    group_dst = _canonicalize_group_rank(group, dst, group_dst)
    _check_single_tensor(tensor, "tensor")
    if _rank_not_in_group(group):
        _warn_not_in_group("isend")
        return None
    _check_mpi_tensor(tensor)
    _check_dtype(tensor)
    b = _Buffer(tensor)
    # MPI reads the buffer until the send completes: the work keeps it alive.
    work = Work(request=group._comm.Isend(b.array, dest=group_dst, tag=tag))
    work._keep = b
    return work


def irecv(tensor, src=None, group=None, tag=0, group_src=None):
    """Receive into ``tensor`` from rank ``src`` (any rank when None) without waiting."""
    _check_single_tensor(tensor, "tensor")
    if _rank_not_in_group(group):
        _warn_not_in_group("irecv")
        return None
    group = _group_or_default_group(group)
    if src is None and group_src is None:
        peer = _MPI.ANY_SOURCE
    else:
        peer = _canonicalize_group_rank(group, src, group_src)
    _check_mpi_tensor(tensor)
    _check_dtype(tensor)
    b = _Buffer(tensor)
    return Work(request=group._comm.Irecv(b.array, source=peer, tag=tag), outputs=[tensor],
                finish=b.done)


def send(tensor, dst=None, group=None, tag=0, group_dst=None):
    """Send ``tensor`` to rank ``dst`` and wait until it is sent."""
    group = _group_or_default_group(group)
    group_dst = _canonicalize_group_rank(group, dst, group_dst)
    _check_not_self_rank(group, group_dst, "destination")
    work = isend(tensor, group=group, tag=tag, group_dst=group_dst)
    if work is not None:
        work.wait()


def recv(tensor, src=None, group=None, tag=0, group_src=None):
    """Receive into ``tensor`` from rank ``src`` (any rank when None); returns the sender's
    global rank."""
    work = irecv(tensor, src=src, group=group, tag=tag, group_src=group_src)
    if work is None:
        return -1
    work.wait()
    if src is None:
        if group_src is None:
            group_src = work._source_rank()
        group = _group_or_default_group(group)
        _check_not_self_rank(group, group_src, "source")
        src = get_global_rank(group, group_src)
    return src


# --- all to all ------------------------------------------------------------------------------

def _check_split_sizes(split_sizes, tensor, group_size):
    if not split_sizes:
        if tensor.shape[0] % group_size != 0:
            raise RuntimeError("Tensor's dim 0 does not divide equally across group size")
    else:
        if len(split_sizes) != group_size:
            raise RuntimeError("Number of tensor splits not equal to group size")
        if sum(split_sizes) != tensor.shape[0]:
            raise RuntimeError("Split sizes doesn't match total dim 0 size")


def _counts(split_sizes, tensor, group_size):
    """Element counts and offsets of each rank's part along dim 0 (MPI_Alltoallv's)."""
    n0 = tensor.shape[0] if tensor.dim() else 1
    row = tensor.numel() // n0 if n0 else 0
    sizes = list(split_sizes) if split_sizes else [n0 // group_size] * group_size
    counts = [s * row for s in sizes]
    offsets = [sum(counts[:i]) for i in range(group_size)]
    return counts, offsets


def all_to_all_single(output, input, output_split_sizes=None, input_split_sizes=None,
                      group=None, async_op=False):
    """Split ``input`` along dim 0 into one part per rank (equal parts, or
    ``input_split_sizes``), send part i to rank i, and concatenate what every rank sent here
    into ``output`` (``output_split_sizes`` rows from each)."""
    if _rank_not_in_group(group):
        _warn_not_in_group("all_to_all_single")
        return None
    _check_single_tensor(output, "output")
    _check_single_tensor(input, "input")
    _ensure_all_tensors_same_dtype(output, input)
    group = group or _get_default_group()
    size = group.size()
    _check_mpi_tensor(input)
    _check_mpi_tensor(output)
    if not output_split_sizes and not input_split_sizes:
        if output.numel() != input.numel() or output.dtype != input.dtype:
            raise RuntimeError("Tensors are not equal in size or data type")
        if output.shape[0] % size != 0:
            raise RuntimeError("Tensor's dim 0 does not divide equally across group size")
    else:
        _check_split_sizes(input_split_sizes, input, size)
        _check_split_sizes(output_split_sizes, output, size)

    def fn():
        _check_dtype(input)
        src, dst = _Buffer(input), _Buffer(output)
        if not output_split_sizes and not input_split_sizes:
            group._comm.Alltoall(src.array, dst.array)
        else:
            sc, so = _counts(input_split_sizes, input, size)
            rc, ro = _counts(output_split_sizes, output, size)
            group._comm.Alltoallv([src.array, (sc, so)], [dst.array, (rc, ro)])
        dst.done()
    return _issue(group, fn, async_op, [output])


def all_to_all(output_tensor_list, input_tensor_list, group=None, async_op=False):
    """Send ``input_tensor_list[i]`` to rank i and receive rank i's tensor for this rank into
    ``output_tensor_list[i]``."""
    if _rank_not_in_group(group):
        _warn_not_in_group("all_to_all")
        return None
    _check_tensor_list(output_tensor_list, "output_tensor_list")
    _check_tensor_list(input_tensor_list, "input_tensor_list")
    _ensure_all_tensors_same_dtype(output_tensor_list, input_tensor_list)
    group = group or _get_default_group()
    size = group.size()
    if len(input_tensor_list) != size:
        raise RuntimeError("Number of input tensors are not equal to group size")
    if len(output_tensor_list) != size:
        raise RuntimeError("Number of output tensors are not equal to group size")

    def fn():
        _check_dtype(input_tensor_list[0])
        srcs = [_Buffer(t.contiguous()).array for t in input_tensor_list]
        flat_in = np.concatenate(srcs) if srcs else np.empty(0)
        rc = [t.numel() for t in output_tensor_list]
        flat_out = np.empty(sum(rc), flat_in.dtype)
        sc = [a.size for a in srcs]
        group._comm.Alltoallv([flat_in, (sc, [sum(sc[:i]) for i in range(size)])],
                              [flat_out, (rc, [sum(rc[:i]) for i in range(size)])])
        off = 0
        for t, n in zip(output_tensor_list, rc):
            b = _Buffer(t)
            b.array[...] = flat_out[off:off + n]
            b.done()
            off += n
    return _issue(group, fn, async_op, output_tensor_list)


# --- object collectives (pickled, as PyTorch's; only for data you trust) --------------------

def all_gather_object(object_list, obj, group=None):
    """Gather a picklable ``obj`` from every process into ``object_list`` (one per rank)."""
    if _rank_not_in_group(group):
        _warn_not_in_group("all_gather_object")
        return None
    group = group or _get_default_group()
    objs = _run_value(group, lambda: group._comm.allgather(obj))
    for i, o in enumerate(objs):
        object_list[i] = o
    return None


def gather_object(obj, object_gather_list=None, dst=None, group=None, group_dst=None):
    """Gather a picklable ``obj`` from every process into ``object_gather_list`` on ``dst``."""
    group = _group_or_default_group(group)
    if dst is None and group_dst is None:
        dst = 0
    group_dst = _canonicalize_group_rank(group, dst, group_dst)
    if _rank_not_in_group(group):
        _warn_not_in_group("gather_object")
        return None
    me = group.rank()
    if group_dst == me:
        if not object_gather_list:
            raise ValueError("Argument ``gather_list`` must be specified on destination rank.")
    elif object_gather_list:
        raise ValueError("Argument ``gather_list`` must NOT be specified on non-destination "
                         "ranks.")
    objs = _run_value(group, lambda: group._comm.gather(obj, root=group_dst))
    if me == group_dst:
        for i, o in enumerate(objs):
            object_gather_list[i] = o
    return None


def broadcast_object_list(object_list, src=None, group=None, device=None, group_src=None):
    """Broadcast the picklable objects of ``object_list`` from ``src`` (0), in place."""
    group = _group_or_default_group(group)
    if src is None and group_src is None:
        src = 0
    group_src = _canonicalize_group_rank(group, src, group_src)
    if _rank_not_in_group(group):
        _warn_not_in_group("broadcast_object_list")
        return None
    objs = _run_value(group, lambda: group._comm.bcast(
        list(object_list) if group.rank() == group_src else None, root=group_src))
    object_list[:len(objs)] = objs
    return None


def scatter_object_list(scatter_object_output_list, scatter_object_input_list=None, src=None,
                        group=None, group_src=None):
    """Scatter the picklable objects of ``scatter_object_input_list`` on ``src`` (0): rank i
    receives the i-th into ``scatter_object_output_list[0]``."""
    group = _group_or_default_group(group)
    if src is None and group_src is None:
        src = 0
    group_src = _canonicalize_group_rank(group, src, group_src)
    if _rank_not_in_group(group):
        _warn_not_in_group("scatter_object_list")
        return None
    if not isinstance(scatter_object_output_list, list) or len(scatter_object_output_list) < 1:
        raise ValueError("Expected argument scatter_object_output_list to be a list of size "
                         "at least 1.")
    me = group.rank()
    if me == group_src and scatter_object_input_list is None:
        raise ValueError("source rank must provide non-None scatter_object_input_list")
    scatter_object_output_list[0] = _run_value(group, lambda: group._comm.scatter(
        list(scatter_object_input_list) if me == group_src else None, root=group_src))
    return None


def _run_value(group, fn):
    """Run a blocking collective that returns a value, in the group's order."""
    out = []
    group._run_now(lambda: out.append(fn()))
    return out[0]


# --- batched point to point ------------------------------------------------------------------

class P2POp:
    """A point-to-point operation for `batch_isend_irecv`: ``op`` is `isend` or `irecv`,
    ``peer`` the other process's global rank (or ``group_peer`` its rank in ``group``)."""

    def __new__(cls, op, tensor, peer=None, group=None, tag=0, group_peer=None):
        if op not in (isend, irecv):
            raise ValueError("Invalid ``op``. Expected ``op`` to be of type "
                             "``gradrs.distributed.isend`` or ``gradrs.distributed.irecv``.")
        _check_single_tensor(tensor, "tensor")
        return object.__new__(cls)

    def __init__(self, op, tensor, peer=None, group=None, tag=0, group_peer=None):
        self.op = op
        self.tensor = tensor
        self.group = _group_or_default_group(group)
        self.peer = _canonicalize_group_rank(self.group, peer, group_peer, return_global=True)
        self.tag = tag
        self.group_peer = _canonicalize_group_rank(self.group, peer, group_peer)


def batch_isend_irecv(p2p_op_list):
    """Start every send and receive of ``p2p_op_list`` (`P2POp`s of one group) and return
    their `Work`s."""
    if not isinstance(p2p_op_list, list) or not all(isinstance(p, P2POp)
                                                    for p in p2p_op_list):
        raise ValueError("Invalid ``p2p_op_list``. Each op is expected to to be of type "
                         "``gradrs.distributed.P2POp``.")
    group = p2p_op_list[0].group
    if not all(group == p.group for p in p2p_op_list):
        raise ValueError("All ops need to use the same group.")
    works = []
    for p in p2p_op_list:
        key = "group_dst" if p.op is isend else "group_src"
        work = p.op(p.tensor, group=p.group, tag=p.tag, **{key: p.group_peer})
        if work:
            works.append(work)
    return works
