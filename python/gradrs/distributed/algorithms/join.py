"""`Join`: a context manager for training on uneven inputs, as `torch.distributed.algorithms.join`.

A process that runs out of inputs leaves its loop and enters `Join.__exit__`, where it keeps
running its joinables' `JoinHook.main_hook()` (which shadow the collectives the processes still
training issue per iteration: for DistributedDataParallel the all-reduces of its forward and
backward) while any process has not joined; the processes still training announce themselves
each iteration through `Join.notify_join_context` (an all-reduce of ones that the joined
processes' count of non-joined processes, an all-reduce of zeros, pairs with). Once every process
has joined, each runs `post_hook(is_last_joiner)` (DDP broadcasts the model of the last process
to join)."""

from __future__ import annotations

import warnings
from abc import ABC, abstractmethod
from types import TracebackType
from typing import Any, NamedTuple

from ... import _native
from .. import distributed_c10d as dist

__all__ = ["Join", "JoinHook", "Joinable"]


class JoinHook:
    r"""A join hook's two entry points: ``main_hook()``, called repeatedly while some process has
    not joined, and ``post_hook(is_last_joiner)``, called once after every process has. Subclass
    it and override either."""

    def main_hook(self) -> None:
        r"""Called while some process has not joined, to shadow the collective communications of
        one training iteration (forward, backward, optimizer step)."""

    def post_hook(self, is_last_joiner: bool) -> None:
        r"""Called once every process has joined; ``is_last_joiner`` says whether this rank is one
        of the last to join."""


class Joinable(ABC):
    r"""A class taking part in a `Join` context: it implements ``join_hook()`` (a `JoinHook`),
    ``join_device`` and ``join_process_group``, and calls ``Joinable.__init__`` from its
    constructor."""

    @abstractmethod
    def __init__(self) -> None:
        super().__init__()
        self._join_config = _JoinConfig.construct_disabled_join_config()

    @abstractmethod
    def join_hook(self, **kwargs) -> JoinHook:
        r"""The `JoinHook` of this joinable; ``kwargs`` are the keyword arguments given to
        `Join`, the same for every joinable of the context."""
        ...

    @property
    @abstractmethod
    def join_device(self) -> Any:
        r"""The device of the join context manager's collective communications."""
        ...

    @property
    @abstractmethod
    def join_process_group(self) -> Any:
        r"""The process group of the join context manager's collective communications."""
        ...


class _JoinConfig(NamedTuple):
    r"""What a `Joinable` holds of the join context manager."""

    enable: bool
    throw_on_early_termination: bool
    is_first_joinable: bool

    @staticmethod
    def construct_disabled_join_config():
        r"""The configuration outside a join context manager: join logic disabled."""
        return _JoinConfig(enable=False, throw_on_early_termination=False,
                           is_first_joinable=False)


class Join:
    r"""Context manager for uneven inputs: a process that has exhausted its inputs runs its
    joinables' hooks, shadowing the collectives of the processes still training, until every
    process has joined.

    Each participating `Joinable` must call `Join.notify_join_context` before its own
    per-iteration collectives; every joinable must use the same process group (the first
    joinable's device is used).

    Arguments:
        joinables (List[Joinable]): the participating joinables; their hooks run in this order.
        enable (bool): enables uneven input detection (default ``True``); ``False`` makes the
            context manager do nothing.
        throw_on_early_termination (bool): raise on every process once one has exhausted its
            inputs, instead of shadowing (default ``False``).
        kwargs: handed to every joinable's ``join_hook``.

    Example (``model`` a DistributedDataParallel, under ``mpirun``)::

        with Join([model]):
            for batch in my_uneven_batches:
                model(batch).sum().backward()
    """

    def __init__(self, joinables: list[Joinable], enable: bool = True,
                 throw_on_early_termination: bool = False, **kwargs) -> None:
        if len(joinables) == 0:
            raise ValueError("The join context manager requires at least one joinable")
        self._joinables = joinables
        self._join_hooks = [joinable.join_hook(**kwargs) for joinable in self._joinables]
        self._enable = enable
        self._throw_on_early_termination = throw_on_early_termination
        self._set_joinable_configs()
        self._extract_dist_info()

    def _set_joinable_configs(self) -> None:
        if len(self._joinables) <= 0:
            raise AssertionError
        is_first_joinable = True
        for joinable in self._joinables:
            joinable._join_config = _JoinConfig(
                enable=self._enable, throw_on_early_termination=self._throw_on_early_termination,
                is_first_joinable=is_first_joinable)
            is_first_joinable = False

    def _extract_dist_info(self) -> None:
        process_group = None
        device = None
        for joinable in self._joinables:
            if process_group is None:
                process_group = joinable.join_process_group
            elif process_group != joinable.join_process_group:
                raise ValueError("Using join context manager with multiple process groups")
            if device is None:
                device = joinable.join_device
        self._process_group = process_group
        self._rank = dist.get_rank(self._process_group)
        self._device = device

    def __enter__(self): ...

    def __exit__(self, type: type[BaseException] | None, value: BaseException | None,
                 traceback: TracebackType | None):
        r"""Run the main hooks until every process has joined, then the post-hooks.

        Raises:
            RuntimeError: with ``throw_on_early_termination=True``, once a process has
                exhausted its inputs.
        """
        if not self._enable or type:
            return  # an exception raised in the block propagates as it is
        all_procs_joined = False
        is_last_joiner = True
        i = 0
        WARN_THRESHOLD = 1000
        warnings.simplefilter("once")  # as PyTorch's
        while not all_procs_joined:
            if i > WARN_THRESHOLD:
                warnings.warn(
                    "Detected uneven input skew of greater than "
                    f"{WARN_THRESHOLD}. This means that rank "
                    f"{self._rank} has at least {WARN_THRESHOLD} "
                    "fewer inputs than other currently-active ranks. "
                    "This level of skew could lead to performance "
                    "degradation during training.", stacklevel=2)
            num_nonjoined_procs = self._get_num_nonjoined_procs()
            if num_nonjoined_procs == 0:
                all_procs_joined = True
            else:
                if self._throw_on_early_termination:
                    self._notify_procs_to_terminate()
                for join_hook in self._join_hooks:
                    join_hook.main_hook()
                is_last_joiner = False
                i += 1
        for join_hook in self._join_hooks:
            join_hook.post_hook(is_last_joiner)

    def _get_num_nonjoined_procs(self):
        # pairs with the all-reduce of ones in notify_join_context on the non-joined processes
        num_nonjoined_procs = _native.zeros(1, device=self._device)
        dist.all_reduce(num_nonjoined_procs, group=self._process_group)
        return num_nonjoined_procs.item()

    def _notify_procs_to_terminate(self):
        ones = _native.ones(1, device=self._device)
        dist.all_reduce(ones, group=self._process_group)
        raise RuntimeError(f"Rank {self._rank} exhausted all inputs.")

    @staticmethod
    def notify_join_context(joinable: Joinable):
        r"""Tell the join context manager that this process has not joined (an all-reduce of
        ones, made by the first joinable of the context only); with
        ``throw_on_early_termination=True``, raise if some process has joined.

        Returns:
            The all-reduce's async work for the first joinable of an enabled context, else
            ``None``.
        """
        if not hasattr(joinable, "_join_config"):
            raise AssertionError(f"Check that the {type(joinable)} constructor calls the "
                                 "``Joinable`` constructor")
        join_config = joinable._join_config
        if not join_config.is_first_joinable or not join_config.enable:
            return None
        device = joinable.join_device
        process_group = joinable.join_process_group
        ones = _native.ones(1, device=device)
        work = dist.all_reduce(ones, group=process_group, async_op=True)
        if join_config.throw_on_early_termination:
            zeros = _native.zeros(1, device=device)
            dist.all_reduce(zeros, group=process_group)
            should_throw = zeros.item()
            if should_throw:
                raise RuntimeError("Detected at least one rank that exhausted inputs. "
                                   "Throwing across all ranks.")
        return work
