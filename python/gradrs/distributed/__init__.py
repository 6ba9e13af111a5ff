"""`gradrs.distributed`: process groups and collectives over MPI with `torch.distributed`'s API
(`init_process_group(backend="mpi")`, `all_reduce`, `broadcast`, `all_gather`, ...); launch with
`mpirun -np N python train.py`. `algorithms` holds DDP's communication hooks and `Join`."""

from ._grad_bucket import BuiltinCommHookType, GradBucket
from .distributed_c10d import *  # noqa: F403
from .distributed_c10d import __all__ as _c10d_all
from .distributed_c10d import default_pg_timeout

__all__ = [*_c10d_all, "BuiltinCommHookType", "GradBucket", "default_pg_timeout"]
