"""`gradrs.backends.opt_einsum`: PyTorch computes einsum's contraction order with the optional
opt_einsum package when it is installed; gradrs's einsum never uses it, so it reports the
package unavailable (`enabled` False, `strategy` None) and refuses to be enabled through
set_flags / flags, with the errors PyTorch gives when opt_einsum is missing."""

from contextlib import contextmanager

__all__ = ["is_available", "get_opt_einsum", "set_flags", "flags", "enabled", "strategy"]


def is_available() -> bool:
    """Whether einsum's path optimization through opt_einsum is available: no.

    Examples:
        >>> gradrs.backends.opt_einsum.is_available()
        False
    """
    return False


def get_opt_einsum():
    """The opt_einsum package when available, else None (always None here)."""
    return None


def _set_enabled(value) -> None:
    if value:
        raise ValueError(
            f"opt_einsum is not available, so setting `enabled` to {value} will not reap "
            "the benefits of calculating an optimal path for einsum. gradrs.einsum will "
            "fall back to contracting from left to right. To enable this optimal path "
            "calculation, please install opt-einsum.")
    global enabled
    enabled = value


def _set_strategy(value) -> None:
    raise ValueError(
        f"opt_einsum is not available, so setting `strategy` to {value} will not be "
        "meaningful. gradrs.einsum will bypass path calculation and simply contract from left "
        "to right. Please install opt_einsum or unset `strategy`.")


def set_flags(_enabled=None, _strategy=None):
    """Sets `enabled` / `strategy` (checked as PyTorch checks them); returns the old flags."""
    orig_flags = (enabled, None)
    if _enabled is not None:
        _set_enabled(_enabled)
    if _strategy is not None:
        _set_strategy(_strategy)
    return orig_flags


@contextmanager
def flags(enabled=None, strategy=None):
    """Sets the flags for the duration of a `with` block."""
    orig_flags = set_flags(enabled, strategy)
    try:
        yield
    finally:
        set_flags(*orig_flags)


# plain module attributes, as in PyTorch (whose ContextProp for `enabled` is shadowed by the
# module global): assigning `enabled = True` is not checked there, set_flags / flags are
enabled = False
strategy = None
