"""`Timer` (torch/utils/benchmark/utils/timer.py): `timeit.Timer` with warmups, a fixed thread
count and replicates, for Python statements."""

import enum
import textwrap
import timeit

import numpy as np

from . import common

__all__ = ["Timer", "timer", "Language"]


def timer():
    """The current time in seconds, after waiting for queued accelerator work.

    >>> from gradrs.utils.benchmark import timer
    >>> timer() <= timer()
    True
    """
    import gradrs

    if gradrs.accelerator.is_available():
        gradrs.accelerator.synchronize()
    return timeit.default_timer()


class Language(enum.Enum):
    """The language of a Timer's statement (only Python runs in gradrs).

    >>> from gradrs.utils.benchmark import Language
    >>> Language.PYTHON.value
    0
    """

    PYTHON = 0
    CPP = 1


class Timer:
    """Measures the execution time of a Python statement, as `torch.utils.benchmark.Timer`.

    `stmt` runs in a loop after `setup`, with `globals` (and `torch`, bound to gradrs) in scope,
    with the thread count set to `num_threads`; `label`, `sub_label`, `description` and `env`
    name the result for printing and for `Compare`.

    >>> from gradrs.utils.benchmark import Timer
    >>> t = Timer("x * 2", setup="x = torch.ones(4)", label="mul", description="n=4")
    >>> m = t.blocked_autorange(min_run_time=0.01)
    >>> m.label, m.description, m.median > 0
    ('mul', 'n=4', True)
    """

    _timer_cls = timeit.Timer

    def __init__(self, stmt="pass", setup="pass", global_setup="", timer=timer, globals=None,  # noqa: A002
                 label=None, sub_label=None, description=None, env=None, num_threads=1,
                 language=Language.PYTHON):
        if not isinstance(stmt, str):
            raise ValueError("Currently only a `str` stmt is supported.")
        self._globals = dict(globals or {})
        if language in (Language.PYTHON, "py", "python"):
            import gradrs

            self._globals.setdefault("torch", gradrs)
            self._language = Language.PYTHON
            if global_setup:
                raise ValueError(
                    f"global_setup is C++ only, got `{global_setup}`. Most "
                    "likely this code can simply be moved to `setup`."
                )
        elif language in (Language.CPP, "cpp", "c++"):
            raise NotImplementedError(
                "gradrs has no C++ API: Timer(language='cpp') is not supported; time the "
                "statement in Python."
            )
        else:
            raise ValueError(f"Invalid language `{language}`.")
        stmt = textwrap.dedent(stmt)
        stmt = (stmt[1:] if stmt and stmt[0] == "\n" else stmt).rstrip()
        setup = textwrap.dedent(setup)
        setup = (setup[1:] if setup and setup[0] == "\n" else setup).rstrip()
        self._timer = self._timer_cls(stmt=stmt, setup=setup, timer=timer, globals=self._globals)
        self._task_spec = common.TaskSpec(
            stmt=stmt, setup=setup, global_setup=global_setup, label=label, sub_label=sub_label,
            description=description, env=env, num_threads=num_threads,
        )

    def _timeit(self, number):
        # Even the fastest statement takes some time (and a zero would break the statistics).
        return max(self._timer.timeit(number), 1e-9)

    def timeit(self, number=1000000):
        """Run `stmt` `number` times (after a warmup of `number // 100`): one replicate.

        >>> from gradrs.utils.benchmark import Timer
        >>> Timer("1 + 1").timeit(1000).number_per_run
        1000
        """
        with common.set_torch_threads(self._task_spec.num_threads):
            self._timeit(number=max(int(number // 100), 2))
            return common.Measurement(number_per_run=number, raw_times=[self._timeit(number=number)],
                                      task_spec=self._task_spec)

    def repeat(self, repeat=-1, number=-1):
        """Not provided (as in PyTorch): use `blocked_autorange`.

        >>> from gradrs.utils.benchmark import Timer
        >>> Timer().repeat()
        Traceback (most recent call last):
        NotImplementedError: See `Timer.blocked_autorange.`
        """
        raise NotImplementedError("See `Timer.blocked_autorange.`")

    def autorange(self, callback=None):
        """Not provided (as in PyTorch): use `blocked_autorange`.

        >>> from gradrs.utils.benchmark import Timer
        >>> Timer().autorange()
        Traceback (most recent call last):
        NotImplementedError: See `Timer.blocked_autorange.`
        """
        raise NotImplementedError("See `Timer.blocked_autorange.`")

    def _threaded_measurement_loop(self, number, time_hook, stop_hook, min_run_time,
                                   max_run_time=None, callback=None):
        total_time = 0.0
        can_stop = False
        times = []
        with common.set_torch_threads(self._task_spec.num_threads):
            while (total_time < min_run_time) or (not can_stop):
                time_spent = time_hook()
                times.append(time_spent)
                total_time += time_spent
                if callback:
                    callback(number, time_spent)
                can_stop = stop_hook(times)
                if max_run_time and total_time > max_run_time:
                    break
        return times

    def _estimate_block_size(self, min_run_time):
        with common.set_torch_threads(self._task_spec.num_threads):
            # The timer's own overhead: the median of five empty runs (PyTorch's lower median).
            overheads = np.asarray([self._timeit(0) for _ in range(5)], dtype=np.float32)
            overhead = float(np.sort(overheads)[2])
            number = 1
            while True:
                time_taken = self._timeit(number)
                relative_overhead = overhead / time_taken
                if relative_overhead <= 1e-4 and time_taken >= min_run_time / 1000:
                    break
                if time_taken > min_run_time:
                    break
                if number * 10 > 2147483647:  # the C++ timer's int
                    break
                number *= 10
        return number

    def blocked_autorange(self, callback=None, min_run_time=0.2):
        """Replicates of a block of `stmt` runs, for at least `min_run_time` seconds in all; the
        block is grown tenfold until the timer's overhead is under 0.01 % of it.

        >>> from gradrs.utils.benchmark import Timer
        >>> m = Timer("sum(range(10))").blocked_autorange(min_run_time=0.01)
        >>> sum(m.raw_times) >= 0.01
        True
        """
        number = self._estimate_block_size(min_run_time)
        times = self._threaded_measurement_loop(number, lambda: self._timeit(number), lambda times: True,
                                                min_run_time=min_run_time, callback=callback)
        return common.Measurement(number_per_run=number, raw_times=times, task_spec=self._task_spec)

    def adaptive_autorange(self, threshold=0.1, *, min_run_time=0.01, max_run_time=10.0, callback=None):
        """As `blocked_autorange`, repeating until IQR / median is under `threshold` (with more
        than 3 replicates and `min_run_time` spent) or `max_run_time` is spent.

        >>> from gradrs.utils.benchmark import Timer
        >>> m = Timer("sum(range(10))").adaptive_autorange(max_run_time=0.5)
        >>> m.number_per_run >= 1 and m.median > 0
        True
        """
        number = self._estimate_block_size(min_run_time=0.05)

        def stop_hook(times):
            if len(times) > 3:
                return common.Measurement(number_per_run=number, raw_times=times,
                                          task_spec=self._task_spec).meets_confidence(threshold=threshold)
            return False

        times = self._threaded_measurement_loop(number, lambda: self._timeit(number), stop_hook,
                                                min_run_time, max_run_time, callback=callback)
        return common.Measurement(number_per_run=number, raw_times=times, task_spec=self._task_spec)
