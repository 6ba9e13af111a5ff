"""`gradrs.autograd.profiler`: PyTorch's autograd profiler (torch/autograd/profiler.py).

What is recorded: the ranges a program opens with `record_function` (as PyTorch's
`user_annotation` events, also used as decorators) and the `ProfilerStep#N` ranges
`gradrs.profiler.profile.step()` opens under a schedule, with their wall-clock times, thread
and nesting. gradrs's ops have no native profiling hook, so there is one event per range, not
one per op (PyTorch also lists `aten::*` ops); no memory or device time is measured (those
columns read 0). With no profiler active `record_function` only checks one list, and nothing
else in gradrs changes.

Examples:
    >>> from gradrs.autograd.profiler import profile, record_function
    >>> with profile() as prof:
    ...     with record_function("forward"):
    ...         y = gradrs.ones(3) * 2
    >>> [e.name for e in prof.function_events]
    ['forward']
"""

import functools
import threading
import time

from .profiler_util import EventList, FunctionEvent

__all__ = ["profile", "record_function", "emit_nvtx", "EventList", "FunctionEvent"]

# The profilers recording now; `record_function` reads it on every entry.
_COLLECTORS = []
_LOCK = threading.Lock()
_STEP_PREFIX = "ProfilerStep#"


class _Collector:
    """The ranges recorded between a profiler's start and stop."""

    def __init__(self):
        self.records = []  # (name, trace_name, thread, start_ns, end_ns)
        self.threads = {}
        self.base_ns = time.perf_counter_ns()

    def thread_id(self):
        native = threading.get_native_id()
        with _LOCK:
            return self.threads.setdefault(native, len(self.threads) + 1)


def _now_ns():
    return time.perf_counter_ns()


class record_function:  # noqa: N801 - PyTorch's name
    """Label a block (or, as a decorator, every call of a function) for the profiler.

    >>> from gradrs.autograd.profiler import profile, record_function
    >>> @record_function("loss")
    ... def loss(x):
    ...     return (x * x).sum()
    >>> with profile() as prof:
    ...     _ = loss(gradrs.ones(2))
    >>> prof.function_events[0].name
    'loss'
    """

    def __init__(self, name, args=None):
        self.name = name
        self.args = args
        self.run_callbacks_on_exit = True
        self._open = None

    def __enter__(self):
        if _COLLECTORS:
            self._open = [(c, c.thread_id(), _now_ns()) for c in list(_COLLECTORS)]
        return self

    def __exit__(self, exc_type, exc_value, traceback):
        if not self.run_callbacks_on_exit:
            return
        self._close()

    def _close(self):
        if self._open:
            end = _now_ns()
            for collector, thread, start in self._open:
                collector.records.append((self.name, self.name, thread, start, end))
        self._open = None

    def __call__(self, fn):
        @functools.wraps(fn)
        def wrapped(*args, **kwargs):
            with record_function(self.name, self.args):
                return fn(*args, **kwargs)

        return wrapped

    def _call_end_callbacks_on_future(self, fut):
        """Close the range when `fut` completes; returns a future of its value."""
        if not self.run_callbacks_on_exit:
            raise RuntimeError("_call_end_callbacks_on_future can only be called once.")
        self.run_callbacks_on_exit = False

        def done(f):
            self._close()
            return f.wait()

        return fut.then(done)


class profile:
    """The autograd profiler's context manager (`torch.autograd.profiler.profile`): records
    `record_function` ranges while open; `key_averages()`, `table()` and
    `export_chrome_trace()` summarize them.

    >>> from gradrs.autograd.profiler import profile, record_function
    >>> with profile(record_shapes=True) as prof:
    ...     for _ in range(2):
    ...         with record_function("step"):
    ...             pass
    >>> prof.key_averages()[0].count
    2
    """

    def __init__(self, enabled=True, *, use_cuda=False, use_device=None, record_shapes=False, with_flops=False,
                 profile_memory=False, with_stack=False, with_modules=False, use_kineto=False, use_cpu=True,
                 experimental_config=None, acc_events=False, custom_trace_id_callback=None):
        self.enabled = enabled
        if not self.enabled:
            return
        if use_cuda or (use_device is not None and use_device != "cpu"):
            raise AssertionError(f"gradrs's profiler records host time only; use_device={use_device or 'cuda'} "
                                 "is not supported")
        self.use_device = None
        self.use_cpu = use_cpu
        self.record_shapes = record_shapes
        self.with_flops = with_flops
        self.record_shapes |= self.with_flops
        self.profile_memory = profile_memory
        self.with_stack = with_stack
        self.with_modules = with_modules
        self.acc_events = acc_events
        self.entered = False
        self.function_events = None
        self._collector = None
        self._old_events = []
        self._next_id = 0

    def __enter__(self):
        if not self.enabled:
            return None
        if self.entered:
            raise RuntimeError("Profiler context manager is not reentrant")
        self._prepare_trace()
        self._start_trace()
        return self

    def _prepare_trace(self):
        self.entered = True

    def _start_trace(self):
        self.entered = True
        self._collector = _Collector()
        _COLLECTORS.append(self._collector)

    def __exit__(self, exc_type, exc_val, exc_tb):
        if not self.enabled:
            return
        collector = self._collector
        if collector in _COLLECTORS:
            _COLLECTORS.remove(collector)
        self._collector = None
        events = self._parse(collector)
        if self.acc_events and self.function_events is not None:
            events = EventList(list(self.function_events) + list(events), use_device=None,
                               profile_memory=self.profile_memory, with_flops=self.with_flops)
        self.function_events = events
        self.function_events._build_tree()
        return False

    def _parse(self, collector):
        events = EventList(use_device=None, profile_memory=self.profile_memory, with_flops=self.with_flops)
        if collector is None:
            return events
        base = collector.base_ns
        for name, trace_name, thread, start, end in sorted(collector.records, key=lambda r: (r[3], -r[4])):
            if name.startswith(_STEP_PREFIX):
                name = "ProfilerStep*"  # PyTorch's name for every step; the trace keeps the number
            events.append(FunctionEvent(
                id=self._next_id, name=name, thread=thread, start_us=(start - base) / 1000,
                end_us=(end - base) / 1000, overload_name="", input_shapes=[], stack=[],
                trace_name=trace_name, is_user_annotation=True, concrete_inputs=[], kwinputs={},
            ))
            self._next_id += 1
        return events

    def __repr__(self):
        if self.function_events is None:
            return "<unfinished gradrs.autograd.profile>"
        return repr(self.function_events)

    def __str__(self):
        if self.function_events is None:
            return "<unfinished gradrs.autograd.profile>"
        return str(self.function_events)

    def _ensure_function_events(self):
        # As PyTorch's: a profiler never run summarizes no events.
        if self.function_events is None:
            self.function_events = EventList(use_device=None, profile_memory=self.profile_memory,
                                             with_flops=self.with_flops)
            self.function_events._build_tree()

    def table(self, sort_by=None, row_limit=100, max_src_column_width=75, max_name_column_width=55,
              max_shapes_column_width=80, header=None, top_level_events_only=False, time_unit=None):
        """The recorded events as PyTorch's table (see `EventList.table`).

        >>> from gradrs.autograd.profiler import profile
        >>> with profile() as prof:
        ...     pass
        >>> prof.table()
        ''
        """
        self._ensure_function_events()
        return self.function_events.table(sort_by=sort_by, row_limit=row_limit,
                                          max_src_column_width=max_src_column_width,
                                          max_name_column_width=max_name_column_width,
                                          max_shapes_column_width=max_shapes_column_width, header=header,
                                          top_level_events_only=top_level_events_only, time_unit=time_unit)

    def export_chrome_trace(self, path):
        """Write the events as a Chrome trace (`chrome://tracing`, Perfetto) to `path`.

        Examples:
            >>> import json, os, tempfile
            >>> from gradrs.autograd.profiler import profile, record_function
            >>> with profile() as prof:
            ...     with record_function("x"):
            ...         pass
            >>> path = os.path.join(tempfile.mkdtemp(), "t.json")
            >>> prof.export_chrome_trace(path)
            >>> [e["name"] for e in json.load(open(path))["traceEvents"] if e["ph"] == "X"]
            ['x']
        """
        self._ensure_function_events()
        _write_trace(self.function_events, path)

    def export_stacks(self, path, metric="self_cpu_time_total"):
        """Write the events' stacks (see `EventList.export_stacks`).

        >>> import os, tempfile
        >>> from gradrs.autograd.profiler import profile, record_function
        >>> with profile() as prof:
        ...     with record_function("a"):
        ...         pass
        >>> prof.export_stacks(os.path.join(tempfile.mkdtemp(), "stacks.txt"))
        """
        self._ensure_function_events()
        return self.function_events.export_stacks(path, metric)

    def key_averages(self, group_by_input_shape=False, group_by_stack_n=0, group_by_overload_name=False):
        """The events averaged per name (see `EventList.key_averages`).

        >>> from gradrs.autograd.profiler import profile, record_function
        >>> with profile() as prof:
        ...     with record_function("a"):
        ...         pass
        >>> prof.key_averages()[0].key
        'a'
        """
        self._ensure_function_events()
        return self.function_events.key_averages(group_by_input_shape, group_by_stack_n, group_by_overload_name)

    def total_average(self):
        """All events accumulated into one average (see `EventList.total_average`).

        >>> from gradrs.autograd.profiler import profile, record_function
        >>> with profile() as prof:
        ...     with record_function("a"):
        ...         pass
        >>> prof.total_average().count
        1
        """
        self._ensure_function_events()
        return self.function_events.total_average()

    @property
    def self_cpu_time_total(self):
        """The summed self CPU time of the events, in microseconds.

        >>> from gradrs.autograd.profiler import profile, record_function
        >>> with profile() as prof:
        ...     with record_function("a"):
        ...         pass
        >>> prof.self_cpu_time_total >= 0
        True
        """
        self._ensure_function_events()
        return self.function_events.self_cpu_time_total


def _write_trace(events, path):
    """Write `events` as a Chrome trace in the layout of PyTorch's (Kineto's) traces."""
    import json
    import os
    import socket

    pid = os.getpid()
    trace = [
        {"ph": "M", "name": "process_name", "ts": 0, "pid": pid, "tid": 0, "args": {"name": "python"}},
        {"ph": "M", "name": "process_labels", "ts": 0, "pid": pid, "tid": 0, "args": {"labels": "CPU"}},
    ]
    for thread in sorted({e.thread for e in events}):
        trace.append({"ph": "M", "name": "thread_name", "ts": 0, "pid": pid, "tid": thread,
                      "args": {"name": f"thread {thread} (python)"}})
    for e in events:
        trace.append({"ph": "X", "cat": "user_annotation", "name": e.trace_name or e.name, "pid": pid,
                      "tid": e.thread, "ts": e.time_range.start, "dur": e.time_range.elapsed_us(),
                      "args": {"External id": e.id + 1}})
    doc = {"schemaVersion": 1, "deviceProperties": [], "host_name": socket.gethostname(),
           "displayTimeUnit": "ms", "traceEvents": trace}
    with open(path, "w") as f:
        json.dump(doc, f, indent=1)


class emit_nvtx:  # noqa: N801 - PyTorch's name
    """NVTX ranges for NVIDIA's profilers: gradrs has no CUDA, so an enabled one raises on
    entry, as PyTorch built without CUDA does; `enabled=False` does nothing.

    >>> from gradrs.autograd.profiler import emit_nvtx
    >>> with emit_nvtx(enabled=False):
    ...     pass
    """

    def __init__(self, enabled=True, record_shapes=False):
        self.enabled = enabled
        self.entered = False
        self.record_shapes = record_shapes

    def __enter__(self):
        if not self.enabled:
            return None
        if self.entered:
            raise RuntimeError("NVTX annotation context manager is not reentrant")
        self.entered = True
        raise AssertionError("gradrs not compiled with CUDA enabled")

    def __exit__(self, exc_type, exc_val, exc_tb):
        return False
