"""`Measurement` and `TaskSpec`, the results `Timer` returns, and the unit helpers
(torch/utils/benchmark/utils/common.py): statistics in float64, the float32 rounding of
PyTorch's unit and significant-figure arithmetic kept."""

import collections
import contextlib
import dataclasses
import math
import textwrap

import numpy as np

__all__ = ["TaskSpec", "Measurement", "select_unit", "unit_to_english", "trim_sigfig",
           "ordered_unique", "set_torch_threads"]

_MAX_SIGNIFICANT_FIGURES = 4
_MIN_CONFIDENCE_INTERVAL = 25e-9  # 25 ns
_IQR_WARN_THRESHOLD = 0.1
_IQR_GROSS_WARN_THRESHOLD = 0.25


def _f32(x):
    return np.float32(x)


def _log10_f32(x):
    """log10 of `x` in float32 as PyTorch's `torch.tensor(x).log10()` gives it (correctly
    rounded; numpy's float32 log10 is not, e.g. at 1e-6)."""
    x = float(_f32(x))
    if x > 0:
        return float(_f32(math.log10(x)))
    return -math.inf if x == 0 else math.nan


@dataclasses.dataclass(init=True, repr=False, eq=True, frozen=True)
class TaskSpec:
    """What a Timer measures (statement, setup, labels, threads), without its globals.

    >>> from gradrs.utils.benchmark import TaskSpec
    >>> TaskSpec("x + 1", "pass", label="add", sub_label="float").title
    'add: float'
    """

    stmt: str
    setup: str
    global_setup: str = ""
    label: str = None
    sub_label: str = None
    description: str = None
    env: str = None
    num_threads: int = 1

    @property
    def title(self):
        """A label for the measurement: `label` or the statement, with the sub-label.

        >>> from gradrs.utils.benchmark import TaskSpec
        >>> TaskSpec("x + 1", "pass", sub_label="int").title
        'x + 1: int'
        """
        if self.label is not None:
            return self.label + (f": {self.sub_label}" if self.sub_label else "")
        if "\n" not in self.stmt:
            return self.stmt + (f": {self.sub_label}" if self.sub_label else "")
        return (f"stmt:{f' ({self.sub_label})' if self.sub_label else ''}\n"
                f"{textwrap.indent(self.stmt, '  ')}")

    def setup_str(self):
        """The setup line of a measurement's repr ('' for none).

        >>> from gradrs.utils.benchmark import TaskSpec
        >>> TaskSpec("y", "x = 1").setup_str()
        'setup: x = 1'
        """
        if self.setup == "pass" or not self.setup:
            return ""
        if "\n" in self.setup:
            return f"setup:\n{textwrap.indent(self.setup, '  ')}"
        return f"setup: {self.setup}"

    def summarize(self):
        """The task's lines of a measurement's repr.

        >>> from gradrs.utils.benchmark import TaskSpec
        >>> print(TaskSpec("x + 1", "x = 1", description="small").summarize())
        x + 1
        small
        setup: x = 1
        """
        sections = [self.title, self.description or "", self.setup_str()]
        return "\n".join(f"{i}\n" if "\n" in i else i for i in sections if i)


_TASKSPEC_FIELDS = tuple(f.name for f in dataclasses.fields(TaskSpec))


def _statistic(name, summary, example, value):
    """A `Measurement` property: `value(self)` once `_lazy_init` has computed the statistics,
    its docstring `summary` with an example on four times, whose `round(m.<name>, 12)` prints
    `example`."""

    def get(self):
        self._lazy_init()
        return value(self)

    get.__name__ = get.__qualname__ = name
    return property(get, doc=f"""{summary}

        >>> from gradrs.utils.benchmark import Measurement, TaskSpec
        >>> m = Measurement(2, [2e-6, 4e-6, 6e-6, 8e-6], TaskSpec("f()", "pass", label="f", sub_label="small"))
        >>> round(m.{name}, 12)
        {example}
        """)


@dataclasses.dataclass(init=True, repr=False)
class Measurement:
    """The times of one Timer run: `raw_times[i]` is the time of `number_per_run` executions.

    >>> from gradrs.utils.benchmark import Measurement, TaskSpec
    >>> m = Measurement(10, [1e-5, 2e-5, 3e-5, 4e-5], TaskSpec("f()", "pass"))
    >>> m.median, m.mean, round(m.iqr, 12)
    (2.5e-06, 2.5e-06, 1.5e-06)
    >>> print(m)  # doctest: +ELLIPSIS
    <gradrs.utils.benchmark.utils.common.Measurement object at 0x...>
    f()
      Median: 2.50 us
      IQR:    1.50 us (1.75 to 3.25)
      4 measurements, 10 runs per measurement, 1 thread
      WARNING: Interquartile range is 60.0% of the median measurement.
               This suggests significant environmental influence.
    """

    number_per_run: int
    raw_times: list
    task_spec: TaskSpec
    metadata: dict = None  # reserved for user payloads

    def __post_init__(self):
        self._sorted_times = ()
        self._warnings = ()
        self._median = -1.0
        self._mean = -1.0
        self._p25 = -1.0
        self._p75 = -1.0

    def __getattr__(self, name):
        if name in _TASKSPEC_FIELDS:
            return getattr(self.task_spec, name)
        return super().__getattribute__(name)

    @property
    def times(self):
        """The time of one execution, per replicate.

        >>> from gradrs.utils.benchmark import Measurement, TaskSpec
        >>> m = Measurement(2, [2e-6, 4e-6, 6e-6, 8e-6], TaskSpec("f()", "pass", label="f", sub_label="small"))
        >>> m.times
        [1e-06, 2e-06, 3e-06, 4e-06]
        """
        return [t / self.number_per_run for t in self.raw_times]

    median = _statistic("median", "The median time of one execution.", "2.5e-06",
                        lambda self: self._median)
    mean = _statistic("mean", "The mean time of one execution.", "2.5e-06",
                      lambda self: self._mean)
    iqr = _statistic("iqr", "The interquartile range of one execution's time.", "1.5e-06",
                     lambda self: self._p75 - self._p25)

    @property
    def significant_figures(self):
        """Significant figures the interquartile points support (1 to 4), for `Compare`.

        >>> from gradrs.utils.benchmark import Measurement, TaskSpec
        >>> Measurement(1, [1.0, 1.001, 0.999, 1.0], TaskSpec("f()", "pass")).significant_figures
        4
        """
        self._lazy_init()
        n_total = len(self._sorted_times)
        lower = int(n_total // 4)
        upper = int(np.ceil(_f32(3 * n_total / 4)))
        points = np.asarray(self._sorted_times[lower:upper], dtype=np.float32)
        std = float(points.std())
        sqrt_n = float(np.sqrt(_f32(len(points))))
        ci = max(1.645 * std / sqrt_n, _MIN_CONFIDENCE_INTERVAL)
        relative_ci = _log10_f32(self._median / ci)
        return min(max(int(np.floor(_f32(relative_ci))), 1), _MAX_SIGNIFICANT_FIGURES)

    @property
    def has_warnings(self):
        """Whether the spread is large enough to warn about.

        >>> from gradrs.utils.benchmark import Measurement, TaskSpec
        >>> m = Measurement(2, [2e-6, 4e-6, 6e-6, 8e-6], TaskSpec("f()", "pass", label="f", sub_label="small"))
        >>> m.has_warnings
        True
        """
        self._lazy_init()
        return bool(self._warnings)

    def _lazy_init(self):
        if self.raw_times and not self._sorted_times:
            self._sorted_times = tuple(sorted(self.times))
            st = np.asarray(self._sorted_times, dtype=np.float64)
            self._median = float(np.quantile(st, 0.5))
            self._mean = float(st.mean())
            self._p25 = float(np.quantile(st, 0.25))
            self._p75 = float(np.quantile(st, 0.75))

            def add_warning(msg):
                rel_iqr = self.iqr / self.median * 100
                self._warnings += (
                    f"  WARNING: Interquartile range is {rel_iqr:.1f}% "
                    f"of the median measurement.\n           {msg}",
                )

            if not self.meets_confidence(_IQR_GROSS_WARN_THRESHOLD):
                add_warning("This suggests significant environmental influence.")
            elif not self.meets_confidence(_IQR_WARN_THRESHOLD):
                add_warning("This could indicate system fluctuation.")

    def meets_confidence(self, threshold=_IQR_WARN_THRESHOLD):
        """Whether IQR / median is below `threshold`.

        >>> from gradrs.utils.benchmark import Measurement, TaskSpec
        >>> Measurement(1, [1.0, 1.0, 1.0, 1.01], TaskSpec("f()", "pass")).meets_confidence()
        True
        """
        return self.iqr / self.median < threshold

    @property
    def title(self):
        """The task's title (its label or statement).

        >>> from gradrs.utils.benchmark import Measurement, TaskSpec
        >>> m = Measurement(2, [2e-6, 4e-6, 6e-6, 8e-6], TaskSpec("f()", "pass", label="f", sub_label="small"))
        >>> m.title
        'f: small'
        """
        return self.task_spec.title

    @property
    def env(self):
        """The task's environment tag (`env` of its TaskSpec).

        >>> from gradrs.utils.benchmark import Measurement, TaskSpec
        >>> m = Measurement(2, [2e-6, 4e-6, 6e-6, 8e-6], TaskSpec("f()", "pass", label="f", sub_label="small"))
        >>> m.env is None
        True
        """
        return "Unspecified env" if self.taskspec.env is None else self.taskspec.env

    @property
    def as_row_name(self):
        """The row name `Compare` gives the measurement.

        >>> from gradrs.utils.benchmark import Measurement, TaskSpec
        >>> m = Measurement(2, [2e-6, 4e-6, 6e-6, 8e-6], TaskSpec("f()", "pass", label="f", sub_label="small"))
        >>> m.as_row_name
        'small'
        """
        return self.sub_label or self.stmt or "[Unknown]"

    def __repr__(self):
        self._lazy_init()
        skip_line, newline = "MEASUREMENT_REPR_SKIP_LINE", "\n"
        n = len(self._sorted_times)
        time_unit, time_scale = select_unit(self._median)
        iqr_filter = "" if n >= 4 else skip_line
        repr_str = f"""
{super().__repr__()}
{self.task_spec.summarize()}
  {'Median: ' if n > 1 else ''}{self._median / time_scale:.2f} {time_unit}
  {iqr_filter}IQR:    {self.iqr / time_scale:.2f} {time_unit} ({self._p25 / time_scale:.2f} to {self._p75 / time_scale:.2f})
  {n} measurement{'s' if n > 1 else ''}, {self.number_per_run} runs {'per measurement,' if n > 1 else ','} {self.num_threads} thread{'s' if self.num_threads > 1 else ''}
{newline.join(self._warnings)}""".strip()  # noqa: E501
        return "\n".join(line for line in repr_str.splitlines(keepends=False) if skip_line not in line)

    @staticmethod
    def merge(measurements):
        """Merge replicates of the same task into one measurement of `number_per_run=1`.

        Examples:
            >>> from gradrs.utils.benchmark import Measurement, TaskSpec
            >>> t = TaskSpec("f()", "pass")
            >>> [m.times for m in Measurement.merge([Measurement(2, [4.0], t), Measurement(1, [3.0], t)])]
            [[2.0, 3.0]]
        """
        grouped = collections.defaultdict(list)
        for m in measurements:
            grouped[m.task_spec].append(m)

        def merge_group(task_spec, group):
            times = []
            for m in group:
                times.extend(m.times)
            return Measurement(number_per_run=1, raw_times=times, task_spec=task_spec, metadata=None)

        return [merge_group(t, g) for t, g in grouped.items()]


def select_unit(t):
    """The unit and scale that print `t` seconds with O(1) magnitude.

    >>> from gradrs.utils.benchmark import select_unit
    >>> select_unit(3e-6), select_unit(0.2), select_unit(12.0)
    (('us', 1e-06), ('ms', 0.001), ('s', 1))
    """
    exponent = _log10_f32(t)
    key = int(exponent // 3) if math.isfinite(exponent) else None
    time_unit = {-3: "ns", -2: "us", -1: "ms"}.get(key, "s")
    return time_unit, {"ns": 1e-9, "us": 1e-6, "ms": 1e-3, "s": 1}[time_unit]


def unit_to_english(u):
    """The English name of a time unit.

    >>> from gradrs.utils.benchmark import unit_to_english
    >>> unit_to_english("us")
    'microsecond'
    """
    return {"ns": "nanosecond", "us": "microsecond", "ms": "millisecond", "s": "second"}[u]


def trim_sigfig(x, n):
    """`x` rounded to `n` significant figures (in float32, as PyTorch's).

    >>> from gradrs.utils.benchmark import trim_sigfig
    >>> round(trim_sigfig(3.14159, 2), 4)
    3.1
    """
    if n != int(n):
        raise AssertionError("Number of significant figures must be an integer")
    magnitude = int(math.ceil(_log10_f32(abs(x))))
    scale = 10 ** (magnitude - n)
    return float(np.round(_f32(x / scale)) * _f32(scale))


def ordered_unique(elements):
    """The distinct elements in first-seen order.

    >>> from gradrs.utils.benchmark import ordered_unique
    >>> ordered_unique([3, 1, 3, 2, 1])
    [3, 1, 2]
    """
    return list(collections.OrderedDict(dict.fromkeys(elements)).keys())


@contextlib.contextmanager
def set_torch_threads(n):
    """Run a block with `gradrs.set_num_threads(n)`, restoring the prior count after.

    >>> from gradrs.utils.benchmark import set_torch_threads
    >>> with set_torch_threads(1):
    ...     gradrs.get_num_threads()
    1
    """
    import gradrs

    prior = gradrs.get_num_threads()
    try:
        gradrs.set_num_threads(n)
        yield
    finally:
        gradrs.set_num_threads(prior)
