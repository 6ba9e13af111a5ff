"""`gradrs.utils.benchmark`: PyTorch's benchmarking utilities (`torch.utils.benchmark`).

`Timer` times a statement (`timeit`, `blocked_autorange`, `adaptive_autorange`) and returns a
`Measurement`, printed as PyTorch prints it; `Compare` lays many measurements out in PyTorch's
table. Python statements only (PyTorch's C++ timing, Callgrind and fuzzers are not provided).

>>> from gradrs.utils.benchmark import Timer
>>> m = Timer("x + 1", globals={"x": gradrs.ones(3)}).timeit(100)
>>> m.number_per_run, len(m.times)
(100, 1)
"""

from .utils.common import (  # noqa: F401
    Measurement,
    TaskSpec,
    ordered_unique,
    select_unit,
    set_torch_threads,
    trim_sigfig,
    unit_to_english,
)
from .utils.compare import Colorize, Compare  # noqa: F401
from .utils.timer import Language, Timer, timer  # noqa: F401

__all__ = [
    "Colorize",
    "Compare",
    "Language",
    "Measurement",
    "TaskSpec",
    "Timer",
    "ordered_unique",
    "select_unit",
    "set_torch_threads",
    "timer",
    "trim_sigfig",
    "unit_to_english",
]
