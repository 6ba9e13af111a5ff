"""`gradrs.random` (PyTorch's `torch.random`): the default generator's seeding and state, and
`fork_rng`, which restores the state when its block ends."""

import contextlib

from ._native import get_rng_state, initial_seed, manual_seed, seed, set_rng_state

__all__ = ["fork_rng", "get_rng_state", "initial_seed", "manual_seed", "seed", "set_rng_state"]


@contextlib.contextmanager
def fork_rng(devices=None, enabled=True, _caller="fork_rng", _devices_kw="devices",
             device_type="cuda"):
    """Runs the block with the random state forked: whatever it draws or seeds, the state is
    back as it was afterwards. gradrs's GPU tensors draw from the one default generator
    (`gradrs.cuda.manual_seed`'s note), so its state is the only one to save, whatever
    `devices` / `device_type` name.

    Examples:
        >>> _ = gradrs.manual_seed(0)
        >>> with gradrs.random.fork_rng():
        ...     a = gradrs.rand(1)
        ...
        >>> b = gradrs.rand(1)
        >>> gradrs.equal(a, b)
        True
    """
    if not enabled:
        yield
        return
    state = get_rng_state()
    try:
        yield
    finally:
        set_rng_state(state)
