"""`gradrs.distributed.algorithms` (`torch.distributed.algorithms`): the generic join context
manager for uneven inputs (`Join`, `Joinable`, `JoinHook`) and DDP's communication hooks
(`ddp_comm_hooks`)."""

from .join import Join, Joinable, JoinHook

__all__ = ["Join", "JoinHook", "Joinable"]
