"""`gradrs.autograd.profiler_util`: the profiler's events and their tables
(torch/autograd/profiler_util.py): `FunctionEvent`, `FunctionEventAvg`, `EventList` with
`key_averages`, `table` (PyTorch's column layout) and `export_chrome_trace`.

>>> from gradrs.autograd.profiler_util import EventList, FunctionEvent
>>> events = EventList([FunctionEvent(0, "outer", 1, 0.0, 10.0), FunctionEvent(1, "inner", 1, 2.0, 5.0)])
>>> events._build_tree()
>>> [(e.name, e.self_cpu_time_total) for e in events]
[('outer', 7.0), ('inner', 3.0)]
"""

import enum
import itertools
import math
from collections import defaultdict, namedtuple
from operator import attrgetter

__all__ = ["EventList", "FormattedTimesMixin", "Interval", "Kernel", "FunctionEvent", "FunctionEventAvg",
           "StringTable", "MemRecordsAcc"]


class DeviceType(enum.Enum):
    """The device of a profiler event (c10's device type numbers).

    >>> from gradrs.autograd.profiler_util import DeviceType
    >>> DeviceType.CPU
    DeviceType.CPU
    """

    CPU = 0
    CUDA = 1
    XPU = 12
    MPS = 13
    HPU = 15
    MTIA = 19
    PrivateUse1 = 20

    def __repr__(self):
        return f"DeviceType.{self.name}"


_DEVICE_TYPES = (DeviceType.CUDA, DeviceType.PrivateUse1, DeviceType.MTIA, DeviceType.XPU)


class EventList(list):
    """A list of profiler events with PyTorch's summaries.

    >>> from gradrs.autograd.profiler_util import EventList, FunctionEvent
    >>> events = EventList([FunctionEvent(0, "step", 1, 0.0, 1500.0)])
    >>> events._build_tree()
    >>> events.self_cpu_time_total
    1500.0
    """

    def __init__(self, *args, **kwargs):
        use_device = kwargs.pop("use_device", None)
        profile_memory = kwargs.pop("profile_memory", False)
        with_flops = kwargs.pop("with_flops", False)
        super().__init__(*args, **kwargs)
        self._use_device = use_device
        self._profile_memory = profile_memory
        self._tree_built = False
        self._with_flops = with_flops

    def _build_tree(self):
        self._populate_cpu_children()
        self._remove_dup_nodes()
        self._tree_built = True

    def __str__(self):
        return self.table()

    def _remove_dup_nodes(self):
        while True:
            to_delete = set()
            for idx in range(len(self)):
                evt = self[idx]
                parent = evt.cpu_parent
                if parent is not None and parent.name == evt.name and len(parent.cpu_children) == 1:
                    parent.cpu_children = evt.cpu_children
                    parent.kernels = evt.kernels
                    for ch in evt.cpu_children:
                        ch.cpu_parent = parent
                    to_delete.add(idx)
            if not to_delete:
                break
            kept = [ev for i, ev in enumerate(self) if i not in to_delete]
            self.clear()
            self.extend(kept)

    def _populate_cpu_children(self):
        # An event is a child of the innermost event of its thread whose [start, end) holds it.
        sync = sorted((e for e in self if not e.is_async and e.device_type == DeviceType.CPU),
                      key=attrgetter("thread"))
        for _, thread_events in itertools.groupby(sync, key=lambda e: (e.thread, e.node_id)):
            ordered = sorted(thread_events, key=lambda e: [e.time_range.start, -e.time_range.end])
            current = []
            for event in ordered:
                while current:
                    parent = current[-1]
                    if event.time_range.start >= parent.time_range.end or event.time_range.end > parent.time_range.end:
                        current.pop()
                    else:
                        parent.append_cpu_child(event)
                        if event.cpu_parent is not None:
                            raise AssertionError(f"There is already a CPU parent event for {event.key}")
                        event.set_cpu_parent(parent)
                        break
                current.append(event)

    @property
    def self_cpu_time_total(self):
        """The summed self CPU time of the events, in microseconds.

        >>> from gradrs.autograd.profiler_util import EventList, FunctionEvent
        >>> EventList([FunctionEvent(0, "a", 1, 0.0, 2.0)]).self_cpu_time_total
        2.0
        """
        return sum(e.self_cpu_time_total for e in self)

    def table(self, sort_by=None, row_limit=100, max_src_column_width=75, max_name_column_width=55,
              max_shapes_column_width=80, header=None, top_level_events_only=False, time_unit=None):
        """The events as PyTorch's profiler table, sorted by the attribute `sort_by`
        (`cpu_time_total`, `self_cpu_time_total`, `count`, ...), at most `row_limit` rows.

        >>> from gradrs.autograd.profiler_util import EventList, FunctionEvent
        >>> events = EventList([FunctionEvent(0, "step", 1, 0.0, 1500.0)])
        >>> events._build_tree()
        >>> print(events.table())
        --------  ------------  ------------  ------------  ------------  ------------  ------------
            Name    Self CPU %      Self CPU   CPU total %     CPU total  CPU time avg    # of Calls
        --------  ------------  ------------  ------------  ------------  ------------  ------------
            step       100.00%       1.500ms       100.00%       1.500ms       1.500ms             1
        --------  ------------  ------------  ------------  ------------  ------------  ------------
        Self CPU time total: 1.500ms
        <BLANKLINE>
        """
        return _build_table(self, sort_by=sort_by, row_limit=row_limit, max_src_column_width=max_src_column_width,
                            max_name_column_width=max_name_column_width,
                            max_shapes_column_width=max_shapes_column_width, header=header,
                            profile_memory=self._profile_memory, with_flops=self._with_flops,
                            top_level_events_only=top_level_events_only, time_unit=time_unit)

    def export_chrome_trace(self, path):
        """Write the events as a Chrome trace (a JSON list of complete events) to `path`.

        Examples:
            >>> import json, os, tempfile
            >>> from gradrs.autograd.profiler_util import EventList, FunctionEvent
            >>> path = os.path.join(tempfile.mkdtemp(), "trace.json")
            >>> EventList([FunctionEvent(0, "step", 1, 0.0, 2.0, trace_name="step")]).export_chrome_trace(path)
            >>> json.load(open(path))[0]["name"]
            'step'
        """
        import json

        records = []
        for evt in self:
            if evt.trace_name is None:
                continue
            records.append({"name": evt.trace_name, "ph": "X", "ts": evt.time_range.start,
                            "dur": evt.time_range.elapsed_us(), "tid": evt.thread, "pid": "CPU functions",
                            "args": {}})
        with open(path, "w") as f:
            f.write("[" + ", ".join(json.dumps(r) for r in records) + "]")

    def supported_export_stacks_metrics(self):
        """The metrics `export_stacks` takes.

        >>> from gradrs.autograd.profiler_util import EventList
        >>> EventList().supported_export_stacks_metrics()[0]
        'self_cpu_time_total'
        """
        return ["self_cpu_time_total", "self_cuda_time_total", "self_xpu_time_total",
                "self_privateuse1_time_total"]

    def export_stacks(self, path, metric):
        """Write each event's stack with its `metric` in the flame-graph format.

        >>> import os, tempfile
        >>> from gradrs.autograd.profiler_util import EventList
        >>> EventList().export_stacks(os.path.join(tempfile.mkdtemp(), "s.txt"), "self_cpu_time_total")
        """
        if metric not in self.supported_export_stacks_metrics():
            raise ValueError("metric should be one of: " + str(self.supported_export_stacks_metrics()))
        translate = str.maketrans(" ;\t\n", "____")
        with open(path, "w") as f:
            for evt in self:
                if evt.stack and len(evt.stack) > 0:
                    value = getattr(evt, metric.replace("cuda", "device").replace("xpu", "device")
                                    .replace("privateuse1", "device"))
                    if int(value) > 0:
                        stack = ";".join(e.translate(translate) for e in reversed(evt.stack))
                        f.write(f"{stack} {int(value)}\n")

    def key_averages(self, group_by_input_shapes=False, group_by_stack_n=0, group_by_overload_name=False):
        """The events averaged per name (and input shapes / stack / overload when asked).

        >>> from gradrs.autograd.profiler_util import EventList, FunctionEvent
        >>> events = EventList([FunctionEvent(i, "step", 1, 10.0 * i, 10.0 * i + 4, stack=[]) for i in range(3)])
        >>> events._build_tree()
        >>> avg = events.key_averages()[0]
        >>> avg.key, avg.count, avg.cpu_time_total, avg.cpu_time
        ('step', 3, 12.0, 4.0)
        """
        if not self._tree_built:
            raise AssertionError("Expected tree to be built before calling key_averages")
        stats = defaultdict(FunctionEventAvg)

        def get_key(event):
            key = [str(event.key), str(event.node_id), str(event.device_type), str(event.is_legacy),
                   str(event.is_user_annotation)]
            if group_by_overload_name:
                key.append(event.overload_name)
            if group_by_input_shapes:
                key.append(str(event.input_shapes))
            if group_by_stack_n > 0:
                key += event.stack[:group_by_stack_n]
            return tuple(key)

        for evt in self:
            stats[get_key(evt)].add(evt)
        avg_list = EventList(stats.values(), use_device=self._use_device, profile_memory=self._profile_memory,
                             with_flops=self._with_flops)
        for evt in avg_list:
            evt.stack = evt.stack[:group_by_stack_n]
            if not group_by_input_shapes:
                evt.input_shapes = ""
            if not group_by_overload_name:
                evt.overload_name = ""
        return avg_list

    def total_average(self):
        """All events accumulated into one `FunctionEventAvg` keyed "Total".

        >>> from gradrs.autograd.profiler_util import EventList, FunctionEvent
        >>> EventList([FunctionEvent(0, "a", 1, 0.0, 2.0), FunctionEvent(1, "b", 1, 3.0, 4.0)]).total_average().count
        2
        """
        total = FunctionEventAvg()
        for evt in self:
            total += evt
            total.key = None
        total.key = "Total"
        return total


def _format_time(time_us):
    if time_us >= 1000.0 * 1000.0:
        return f"{time_us / (1000.0 * 1000.0):.3f}s"
    if time_us >= 1000.0:
        return f"{time_us / 1000.0:.3f}ms"
    return f"{time_us:.3f}us"


def _format_time_share(time_us, total_time_us):
    if total_time_us == 0:
        if time_us != 0:
            raise AssertionError(f"Expected time_us == 0 but got {time_us}")
        return "NaN"
    return f"{time_us * 100.0 / total_time_us:.2f}%"


def _format_memory(nbytes):
    kb = 1024
    mb = 1024 * kb
    gb = 1024 * mb
    if abs(nbytes) >= gb:
        return f"{nbytes * 1.0 / gb:.2f} GB"
    if abs(nbytes) >= mb:
        return f"{nbytes * 1.0 / mb:.2f} MB"
    if abs(nbytes) >= kb:
        return f"{nbytes * 1.0 / kb:.2f} KB"
    return str(nbytes) + " B"


def _attr_formatter(name):
    return property(lambda self: _format_time(getattr(self, name)))


class FormattedTimesMixin:
    """The `*_str` forms of an event's times and its per-call averages.

    >>> from gradrs.autograd.profiler_util import FunctionEvent
    >>> FunctionEvent(0, "f", 1, 0.0, 2500.0).cpu_time_total_str
    '2.500ms'
    """

    cpu_time_str = _attr_formatter("cpu_time")
    device_time_str = _attr_formatter("device_time")
    cpu_time_total_str = _attr_formatter("cpu_time_total")
    device_time_total_str = _attr_formatter("device_time_total")
    self_cpu_time_total_str = _attr_formatter("self_cpu_time_total")
    self_device_time_total_str = _attr_formatter("self_device_time_total")

    @property
    def cpu_time(self):
        """CPU time per call, in microseconds."""
        return 0.0 if self.count == 0 else 1.0 * self.cpu_time_total / self.count

    @property
    def device_time(self):
        """Device time per call, in microseconds."""
        return 0.0 if self.count == 0 else 1.0 * self.device_time_total / self.count


class Interval:
    """A [start, end) time range in microseconds.

    >>> from gradrs.autograd.profiler_util import Interval
    >>> Interval(1.0, 3.5).elapsed_us()
    2.5
    """

    def __init__(self, start, end):
        self.start = start
        self.end = end

    def elapsed_us(self):
        """The length of the interval."""
        return self.end - self.start


Kernel = namedtuple("Kernel", ["name", "device", "duration"])  # noqa: PYI024 - PyTorch's


class FunctionEvent(FormattedTimesMixin):
    """One recorded range: a `record_function` block or a profiler step.

    >>> from gradrs.autograd.profiler_util import FunctionEvent
    >>> e = FunctionEvent(0, "load", 1, 5.0, 9.0)
    >>> e.key, e.cpu_time_total, e.count
    ('load', 4.0, 1)
    """

    def __init__(self, id, name, thread, start_us, end_us, overload_name=None, fwd_thread=None,  # noqa: A002
                 input_shapes=None, stack=None, scope=0, use_device=None, cpu_memory_usage=0,
                 device_memory_usage=0, is_async=False, is_remote=False, sequence_nr=-1, node_id=-1,
                 device_type=DeviceType.CPU, device_index=0, device_resource_id=None, is_legacy=False,
                 flops=None, trace_name=None, concrete_inputs=None, kwinputs=None, is_user_annotation=False,
                 is_python_function=False, activity_type=None, metadata_json=None):
        self.id = id
        self.node_id = node_id
        self.name = name
        self.overload_name = overload_name
        self.trace_name = trace_name
        self.time_range = Interval(start_us, end_us)
        self.thread = thread
        self.fwd_thread = fwd_thread
        self.kernels = []
        self.count = 1
        self.cpu_children = []
        self.cpu_parent = None
        self.input_shapes = input_shapes
        self.concrete_inputs = concrete_inputs
        self.kwinputs = kwinputs
        self.stack = stack
        self.scope = scope
        self.use_device = use_device
        self.cpu_memory_usage = cpu_memory_usage
        self.device_memory_usage = device_memory_usage
        self.is_async = is_async
        self.is_remote = is_remote
        self.sequence_nr = sequence_nr
        self.device_type = device_type
        self.device_index = device_index
        self.device_resource_id = thread if device_resource_id is None else device_resource_id
        self.is_legacy = is_legacy
        self.flops = flops
        self.is_user_annotation = is_user_annotation
        self.is_python_function = is_python_function
        self.activity_type = activity_type
        self.self_cpu_percent = -1
        self.total_cpu_percent = -1
        self.total_device_percent = -1
        self._metadata_json = metadata_json

    def append_kernel(self, name, device, duration):
        """Record a device kernel this event launched.

        >>> from gradrs.autograd.profiler_util import FunctionEvent
        >>> e = FunctionEvent(0, "mm", 1, 0.0, 1.0)
        >>> e.append_kernel("gemm", 0, 0.5)
        >>> e.kernels[0].name
        'gemm'
        """
        if self.device_type != DeviceType.CPU:
            raise AssertionError("Expected device_type to be CPU")
        self.kernels.append(Kernel(name, device, duration))

    def append_cpu_child(self, child):
        """Record a direct child event.

        >>> from gradrs.autograd.profiler_util import FunctionEvent
        >>> a, b = FunctionEvent(0, "a", 1, 0.0, 9.0), FunctionEvent(1, "b", 1, 1.0, 2.0)
        >>> a.append_cpu_child(b)
        >>> a.self_cpu_time_total
        8.0
        """
        if self.device_type != DeviceType.CPU:
            raise AssertionError("Expected device_type to be CPU")
        if not isinstance(child, FunctionEvent):
            raise AssertionError("Expected child to be a FunctionEvent")
        if child.device_type != DeviceType.CPU:
            raise AssertionError("Expected child device_type to be CPU")
        self.cpu_children.append(child)

    def set_cpu_parent(self, parent):
        """Record the event's direct parent.

        >>> from gradrs.autograd.profiler_util import FunctionEvent
        >>> a, b = FunctionEvent(0, "a", 1, 0.0, 9.0), FunctionEvent(1, "b", 1, 1.0, 2.0)
        >>> b.set_cpu_parent(a)
        >>> b.cpu_parent.name
        'a'
        """
        if self.device_type != DeviceType.CPU:
            raise AssertionError("Expected device_type to be CPU")
        if not isinstance(parent, FunctionEvent):
            raise AssertionError("Expected parent to be a FunctionEvent")
        if parent.device_type != DeviceType.CPU:
            raise AssertionError("Expected parent device_type to be CPU")
        self.cpu_parent = parent

    @property
    def self_cpu_memory_usage(self):
        """CPU memory allocated by the event less its children's.

        >>> from gradrs.autograd.profiler_util import FunctionEvent
        >>> FunctionEvent(0, "a", 1, 0.0, 1.0, cpu_memory_usage=64).self_cpu_memory_usage
        64
        """
        if self.is_async or self.device_type != DeviceType.CPU:
            return 0
        return self.cpu_memory_usage - sum(c.cpu_memory_usage for c in self.cpu_children)

    @property
    def self_device_memory_usage(self):
        """Device memory allocated by the event less its children's.

        >>> from gradrs.autograd.profiler_util import FunctionEvent
        >>> FunctionEvent(0, "a", 1, 0.0, 1.0).self_device_memory_usage
        0
        """
        if self.is_async or self.device_type != DeviceType.CPU:
            return 0
        return self.device_memory_usage - sum(c.device_memory_usage for c in self.cpu_children)

    @property
    def cpu_time_total(self):
        """The event's duration, in microseconds.

        >>> from gradrs.autograd.profiler_util import FunctionEvent
        >>> FunctionEvent(0, "a", 1, 2.0, 5.0).cpu_time_total
        3.0
        """
        return self.time_range.elapsed_us() if self.device_type == DeviceType.CPU else 0

    @property
    def self_cpu_time_total(self):
        """The event's duration less its children's.

        >>> from gradrs.autograd.profiler_util import FunctionEvent
        >>> FunctionEvent(0, "a", 1, 2.0, 5.0).self_cpu_time_total
        3.0
        """
        if self.is_async or self.device_type != DeviceType.CPU:
            return 0
        return self.cpu_time_total - sum(c.cpu_time_total for c in self.cpu_children)

    @property
    def device_time_total(self):
        """Device time of the event's kernels (none are recorded: 0).

        >>> from gradrs.autograd.profiler_util import FunctionEvent
        >>> FunctionEvent(0, "a", 1, 2.0, 5.0).device_time_total
        0
        """
        if self.is_async or not self.use_device:
            return 0
        if self.device_type == DeviceType.CPU:
            return sum(k.duration for k in self.kernels) + sum(c.device_time_total for c in self.cpu_children)
        return self.time_range.elapsed_us()

    @property
    def self_device_time_total(self):
        """Device time of the event less its children's.

        >>> from gradrs.autograd.profiler_util import FunctionEvent
        >>> FunctionEvent(0, "a", 1, 2.0, 5.0).self_device_time_total
        0
        """
        if self.is_async or not self.use_device:
            return 0
        if self.device_type == DeviceType.CPU:
            return self.device_time_total - sum(c.device_time_total for c in self.cpu_children)
        return self.device_time_total

    @property
    def key(self):
        """The name events are averaged by.

        >>> from gradrs.autograd.profiler_util import FunctionEvent
        >>> FunctionEvent(0, "conv", 1, 0.0, 1.0).key
        'conv'
        """
        return self.name

    def __repr__(self):
        device_name = self.use_device
        return (
            f"<FunctionEvent id={self.id} name={self.name} overload_name={self.overload_name} "
            f"device_type={self.device_type!r} node_id={self.node_id} cpu_time={self.cpu_time_str} "
            f"start_us={self.time_range.start} end_us={self.time_range.end} "
            f"cpu_children={str([child.id for child in self.cpu_children])} {device_name}_time={self.device_time_str} "
            f"name={self.name} thread={self.thread} input_shapes={str(self.input_shapes)} "
            f"cpu_memory_usage={self.cpu_memory_usage} {device_name}_memory_usage={self.device_memory_usage} "
            f"is_async={self.is_async} is_remote={self.is_remote} seq_nr={self.sequence_nr} "
            f"is_legacy={self.is_legacy}>"
        )


class FunctionEventAvg(FormattedTimesMixin):
    """The statistics of several events of one key.

    >>> from gradrs.autograd.profiler_util import FunctionEvent, FunctionEventAvg
    >>> avg = FunctionEventAvg()
    >>> avg += FunctionEvent(0, "f", 1, 0.0, 2.0)
    >>> avg += FunctionEvent(1, "f", 1, 5.0, 9.0)
    >>> avg.count, avg.cpu_time
    (2, 3.0)
    """

    def __init__(self):
        self.key = None
        self.count = 0
        self.node_id = 0
        self.is_async = False
        self.is_remote = False
        self.use_device = None
        self.cpu_time_total = 0
        self.device_time_total = 0
        self.self_cpu_time_total = 0
        self.self_device_time_total = 0
        self.input_shapes = None
        self.overload_name = None
        self.stack = None
        self.scope = None
        self.cpu_memory_usage = 0
        self.device_memory_usage = 0
        self.self_cpu_memory_usage = 0
        self.self_device_memory_usage = 0
        self.cpu_children = None
        self.cpu_parent = None
        self.device_type = DeviceType.CPU
        self.is_legacy = False
        self.flops = 0

    def add(self, other):
        """Accumulate another event (or average) of the same key."""
        if self.key is None:
            self.key = other.key
            self.node_id = other.node_id
            self.is_async = other.is_async
            self.is_remote = other.is_remote
            self.cpu_parent = other.cpu_parent
            self.cpu_children = other.cpu_children
            self.overload_name = other.overload_name
            self.input_shapes = other.input_shapes
            self.stack = other.stack
            self.scope = other.scope
            self.device_type = other.device_type
            self.is_legacy = other.is_legacy
            self.use_device = other.use_device
            self.is_user_annotation = other.is_user_annotation
        if not isinstance(other, (FunctionEvent, FunctionEventAvg)):
            raise AssertionError("Expected other to be a FunctionEvent or FunctionEventAvg")
        if other.key != self.key:
            raise AssertionError(f"Expected keys to match, but got {other.key} vs {self.key}")
        self.cpu_time_total += other.cpu_time_total
        self.device_time_total += other.device_time_total
        self.self_cpu_time_total += other.self_cpu_time_total
        self.self_device_time_total += other.self_device_time_total
        self.cpu_memory_usage += other.cpu_memory_usage
        self.device_memory_usage += other.device_memory_usage
        self.self_cpu_memory_usage += other.self_cpu_memory_usage
        self.self_device_memory_usage += other.self_device_memory_usage
        self.count += other.count
        if self.flops is None:
            self.flops = other.flops
        elif other.flops is not None:
            self.flops += other.flops
        return self

    def __iadd__(self, other):
        return self.add(other)

    def __repr__(self):
        device_name = "cuda" if not self.use_device else self.use_device
        return (
            f"<FunctionEventAvg key={self.key} self_cpu_time={self.self_cpu_time_total_str} "
            f"cpu_time={self.cpu_time_str}  self_{device_name}_time={self.self_device_time_total_str} "
            f"{device_name}_time={self.device_time_str} input_shapes={str(self.input_shapes)} "
            f"cpu_memory_usage={self.cpu_memory_usage} {device_name}_memory_usage={self.device_memory_usage}>"
        )


class StringTable(defaultdict):
    """A dict whose missing keys map to themselves (PyTorch demangles them here).

    >>> from gradrs.autograd.profiler_util import StringTable
    >>> StringTable()["name"]
    'name'
    """

    def __missing__(self, key):
        self[key] = key
        return key


class MemRecordsAcc:
    """Memory records ordered by time, queried by interval.

    >>> from gradrs.autograd.profiler_util import MemRecordsAcc
    >>> list(MemRecordsAcc([]).in_interval(0, 10))
    []
    """

    def __init__(self, mem_records):
        self._mem_records = sorted(mem_records, key=lambda r: r[0])
        self._start_nses = [r[0] for r in self._mem_records]

    def in_interval(self, start_ns, end_ns):
        """The records whose time is in [start_ns, end_ns)."""
        import bisect

        lo = bisect.bisect_left(self._start_nses, start_ns)
        hi = bisect.bisect_right(self._start_nses, end_ns)
        for i in range(lo, hi):
            yield self._mem_records[i]


def _build_table(events, sort_by=None, header=None, row_limit=100, max_src_column_width=75,
                 max_name_column_width=55, max_shapes_column_width=80, with_flops=False, profile_memory=False,
                 top_level_events_only=False, time_unit=None):
    """PyTorch's profiler table of `events` (FunctionEvents or FunctionEventAvgs)."""
    if len(events) == 0:
        return ""
    has_device_time = any(e.self_device_time_total > 0 for e in events)
    has_device_mem = any(e.self_device_memory_usage > 0 for e in events)
    use_device = events[0].use_device
    if not use_device and has_device_time:
        raise RuntimeError("use_device is None, but there is device performance data.")
    has_input_shapes = any(e.input_shapes is not None and len(e.input_shapes) > 0 for e in events)
    has_overload_names = any(e.overload_name is not None and len(e.overload_name) > 0 for e in events)
    if sort_by is not None:
        attr = sort_by.replace("cuda", "device").replace("xpu", "device").replace("privateuse1", "device")
        events = EventList(sorted(events, key=lambda e: getattr(e, attr), reverse=True), use_device=use_device,
                           profile_memory=profile_memory, with_flops=with_flops)
    name_column_width = max(len(e.key) for e in events) + 4
    if max_name_column_width is not None:
        name_column_width = min(name_column_width, max_name_column_width)
    shapes_column_width = max(len(str(e.input_shapes)) for e in events) + 4
    if max_shapes_column_width is not None:
        shapes_column_width = min(shapes_column_width, max_shapes_column_width)
    default_width = 12
    stacks = [e.stack for e in events if e.stack is not None and len(e.stack) > 0]
    has_stack = len(stacks) > 0
    src_column_width = None
    if has_stack:
        src_column_width = max(max(len(entry) for entry in stack) for stack in stacks) + 4
        if max_src_column_width is not None:
            src_column_width = min(src_column_width, max_src_column_width)
    headers = ["Name"]
    if has_overload_names:
        headers.append("Overload Name")
    headers += ["Self CPU %", "Self CPU", "CPU total %", "CPU total", "CPU time avg"]
    device_name = use_device.upper() if use_device is not None else "None"
    if has_device_time:
        headers += [f"Self {device_name}", f"Self {device_name} %", f"{device_name} total",
                    f"{device_name} time avg"]
    if profile_memory:
        headers += ["CPU Mem", "Self CPU Mem"]
        if use_device and has_device_mem:
            headers += [f"{device_name} Mem", f"Self {device_name} Mem"]
    headers.append("# of Calls")
    append_node_id = any(e.node_id != -1 for e in events)
    if append_node_id:
        headers.append("Node ID")
    spacing = 2
    row_format, header_sep, line_length = "", "", -spacing

    def add_column(padding, text_dir=">"):
        nonlocal row_format, header_sep, line_length
        row_format += "{: " + text_dir + str(padding) + "}" + " " * spacing
        header_sep += "-" * padding + " " * spacing
        line_length += padding + spacing

    add_column(name_column_width)
    if has_overload_names:
        add_column(name_column_width)
    for _ in headers[1 + has_overload_names:]:
        add_column(default_width)
    if has_input_shapes:
        headers.append("Input Shapes")
        add_column(shapes_column_width)
    if has_stack:
        headers.append("Source Location")
        add_column(src_column_width, text_dir="<")
    flops_scale = 1.0
    if with_flops:
        raw_flops = [e.flops for e in events if e.flops is not None and e.flops > 0]
        if raw_flops:
            names = ["FLOPs", "KFLOPs", "MFLOPs", "GFLOPs", "TFLOPs", "PFLOPs"]
            log_flops = max(0, min(math.log10(min(raw_flops)) / 3, float(len(names) - 1)))
            flops_scale = pow(10, math.floor(log_flops) * -3.0)
            headers.append(f"Total {names[int(log_flops)]}")
            add_column(default_width)
        else:
            with_flops = False
    result = []

    def append(s):
        result.append(s)
        result.append("\n")

    sum_self_cpu = 0
    sum_self_device = 0
    for e in events:
        sum_self_cpu += e.self_cpu_time_total
        if e.device_type == DeviceType.CPU and e.is_legacy:
            sum_self_device += e.self_device_time_total
        elif e.device_type in _DEVICE_TYPES and not getattr(e, "is_user_annotation", False):
            sum_self_device += e.self_device_time_total
    if header is not None:
        append("=" * line_length)
        append(header)
    if top_level_events_only:
        append("=" * line_length)
        append("This report only display top-level ops statistics")
    append(header_sep)
    append(row_format.format(*headers))
    append(header_sep)

    def trim_path(path, width):
        if len(path) > width:
            path = path[len(path) - width:]
            if len(path) > 3:
                path = "..." + path[3:]
        return path

    def unit(time_us, default_str):
        if time_unit == "s":
            return f"{time_us / 1e6:.3f}s"
        if time_unit == "ms":
            return f"{time_us / 1e3:.3f}ms"
        if time_unit == "us":
            return f"{time_us:.3f}us"
        return default_str

    event_limit = 0
    for evt in events:
        if event_limit == row_limit:
            break
        if top_level_events_only and evt.cpu_parent is not None:
            continue
        event_limit += 1
        name = evt.key
        if max_name_column_width is not None and len(name) >= max_name_column_width - 3:
            name = name[:max_name_column_width - 3] + "..."
        evt.self_cpu_percent = _format_time_share(evt.self_cpu_time_total, sum_self_cpu)
        evt.total_cpu_percent = _format_time_share(evt.cpu_time_total, sum_self_cpu) if not evt.is_async else 0
        row = [name]
        if has_overload_names:
            overload = evt.overload_name
            if max_name_column_width is not None and len(overload) >= max_name_column_width - 3:
                overload = overload[:max_name_column_width - 3] + "..."
            row.append(overload)
        row += [evt.self_cpu_percent, unit(evt.self_cpu_time_total, evt.self_cpu_time_total_str),
                evt.total_cpu_percent, unit(evt.cpu_time_total, evt.cpu_time_total_str),
                unit(evt.cpu_time, evt.cpu_time_str)]
        if has_device_time:
            evt.total_device_percent = _format_time_share(evt.self_device_time_total, sum_self_device)
            row += [unit(evt.self_device_time_total, evt.self_device_time_total_str), evt.total_device_percent,
                    unit(evt.device_time_total, evt.device_time_total_str), unit(evt.device_time, evt.device_time_str)]
        if profile_memory:
            row += [_format_memory(evt.cpu_memory_usage), _format_memory(evt.self_cpu_memory_usage)]
            if use_device and has_device_mem:
                row += [_format_memory(evt.device_memory_usage), _format_memory(evt.self_device_memory_usage)]
        row.append(evt.count)
        if append_node_id:
            row.append(evt.node_id)
        if has_input_shapes:
            row.append(str(evt.input_shapes)[:shapes_column_width])
        if with_flops:
            row.append("--" if not evt.flops or evt.flops <= 0 else f"{evt.flops * flops_scale:8.3f}")
        if has_stack:
            row.append(trim_path(evt.stack[0], src_column_width) if len(evt.stack) > 0 else "")
        append(row_format.format(*row))
        if has_stack:
            empty = [""] * (len(headers) - 1)
            for entry in evt.stack[1:]:
                append(row_format.format(*(empty + [trim_path(entry, src_column_width)])))
            empty.append("")
            append(row_format.format(*empty))
    append(header_sep)
    append(f"Self CPU time total: {unit(sum_self_cpu, _format_time(sum_self_cpu))}")
    if has_device_time:
        append(f"Self {device_name} time total: {unit(sum_self_device, _format_time(sum_self_device))}")
    return "".join(result)
