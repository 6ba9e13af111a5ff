"""`profile`, `schedule` and the trace handlers of `gradrs.profiler`
(torch/profiler/profiler.py), on the autograd profiler's recorder."""

import enum
import os
import socket
import time
from functools import partial
from warnings import warn

from ..autograd import profiler as prof

__all__ = ["supported_activities", "ProfilerAction", "schedule", "tensorboard_trace_handler", "profile",
           "ProfilerActivity"]

PROFILER_STEP_NAME = "ProfilerStep"


class ProfilerActivity(enum.Enum):
    """The activity groups a profiler may record (gradrs records CPU).

    >>> from gradrs.profiler import ProfilerActivity
    >>> ProfilerActivity.CPU
    <ProfilerActivity.CPU: 0>
    """

    CPU = 0
    XPU = 1
    MTIA = 2
    CUDA = 3
    HPU = 4
    PrivateUse1 = 5


def supported_activities():
    """The activities this build can record.

    >>> from gradrs.profiler import supported_activities
    >>> supported_activities()
    {<ProfilerActivity.CPU: 0>}
    """
    return {ProfilerActivity.CPU}


class ProfilerAction(enum.Enum):
    """What the profiler does at a step, as a schedule returns it.

    >>> from gradrs.profiler import ProfilerAction
    >>> ProfilerAction.RECORD_AND_SAVE.value
    3
    """

    NONE = 0
    WARMUP = 1
    RECORD = 2
    RECORD_AND_SAVE = 3
    DEVICE_STOPPED = 4


def schedule(*, wait, warmup, active, repeat=0, skip_first=0, skip_first_wait=0):
    """A schedule: skip `skip_first` steps, then cycles of `wait` idle, `warmup` and `active`
    recorded steps (the last one `RECORD_AND_SAVE`), `repeat` times (0: forever).

    Examples:
        >>> from gradrs.profiler import schedule
        >>> s = schedule(wait=1, warmup=1, active=2, repeat=1)
        >>> [s(i).name for i in range(5)]
        ['NONE', 'WARMUP', 'RECORD', 'RECORD_AND_SAVE', 'NONE']
    """

    def schedule_fn(step):
        if step < 0:
            raise AssertionError(f"Step must be non-negative. Got {step}.")
        if step < skip_first:
            return ProfilerAction.NONE
        step -= skip_first
        if skip_first_wait != 0:
            step += wait
        num_steps = wait + warmup + active
        if repeat > 0 and step / num_steps >= repeat:
            return ProfilerAction.NONE
        mod_step = step % num_steps
        if mod_step < wait:
            return ProfilerAction.NONE
        if mod_step < wait + warmup:
            return ProfilerAction.WARMUP
        return ProfilerAction.RECORD if mod_step < num_steps - 1 else ProfilerAction.RECORD_AND_SAVE

    if wait < 0 or warmup < 0 or active <= 0 or repeat < 0 or skip_first < 0:
        raise AssertionError(
            f"Invalid profiler schedule arguments. Got wait={wait} (need >= 0), warmup={warmup} (need >= 0), "
            f"active={active} (need > 0), repeat={repeat} (need >= 0), skip_first={skip_first} (need >= 0)."
        )
    if warmup == 0:
        warn("Profiler won't be using warmup, this can skew profiler results", stacklevel=2)
    return schedule_fn


def _default_schedule_fn(_):
    return ProfilerAction.RECORD


def tensorboard_trace_handler(dir_name, worker_name=None, use_gzip=False, use_python_export=False):
    """An `on_trace_ready` handler writing each trace to `dir_name` as
    `{worker_name}.{time_ns}.pt.trace.json` (gzipped with `use_gzip`).

    Examples:
        >>> import os, tempfile
        >>> from gradrs.profiler import profile, tensorboard_trace_handler
        >>> d = tempfile.mkdtemp()
        >>> with profile(on_trace_ready=tensorboard_trace_handler(d, worker_name="w")):
        ...     pass
        >>> [f.startswith("w.") and f.endswith(".pt.trace.json") for f in os.listdir(d)]
        [True]
    """

    def handler_fn(p):
        nonlocal worker_name
        if not os.path.isdir(dir_name):
            try:
                os.makedirs(dir_name, exist_ok=True)
            except Exception as e:
                raise RuntimeError("Can't create directory: " + dir_name) from e
        if not worker_name:
            worker_name = f"{socket.gethostname()}_{os.getpid()}"
        file_name = f"{worker_name}.{time.time_ns()}.pt.trace.json"
        if use_gzip:
            file_name = file_name + ".gz"
        p.export_chrome_trace(os.path.join(dir_name, file_name))

    return handler_fn


class _KinetoProfile:
    """The profiler without a schedule: `start()` / `stop()` one recording."""

    def __init__(self, *, activities=None, record_shapes=False, profile_memory=False, with_stack=False,
                 with_flops=False, with_modules=False, experimental_config=None, execution_trace_observer=None,
                 acc_events=False, custom_trace_id_callback=None, post_processing_timeout_s=None):
        self.activities = set(activities) if activities else supported_activities()
        self.record_shapes = record_shapes
        self.with_flops = with_flops
        self.profile_memory = profile_memory
        self.with_stack = with_stack
        self.with_modules = with_modules
        self.experimental_config = experimental_config
        self.execution_trace_observer = execution_trace_observer
        self.acc_events = acc_events
        self.custom_trace_id_callback = custom_trace_id_callback
        self.profiler = None
        self.use_device = None
        self.preset_metadata = {}

    def start(self):
        """Start recording."""
        self.prepare_trace()
        self.start_trace()

    def stop(self):
        """Stop recording."""
        self.stop_trace()

    def prepare_trace(self):
        """Create the recorder (PyTorch's warmup state)."""
        if self.profiler is None or not self.acc_events:
            self.profiler = prof.profile(use_cpu=ProfilerActivity.CPU in self.activities,
                                         record_shapes=self.record_shapes, with_flops=self.with_flops,
                                         profile_memory=self.profile_memory, with_stack=self.with_stack,
                                         with_modules=self.with_modules, acc_events=self.acc_events)
        self.profiler._prepare_trace()

    def start_trace(self):
        """Begin recording events."""
        if self.profiler is None:
            raise AssertionError("Profiler must be initialized before starting trace")
        self.profiler._start_trace()

    def stop_trace(self):
        """Stop recording events; they are then summarized."""
        if self.profiler is None:
            raise AssertionError("Profiler must be initialized before stopping trace")
        self.profiler.__exit__(None, None, None)
        self.profiler.entered = False

    def export_chrome_trace(self, path):
        """Write the recorded events as a Chrome trace JSON file (`.gz`: gzipped)."""
        if self.profiler is None:
            raise AssertionError("Profiler must be initialized before exporting chrome trace")
        if path.endswith(".gz"):
            import gzip
            import shutil
            import tempfile

            fd, tmp = tempfile.mkstemp(suffix=".json")
            os.close(fd)
            try:
                self.profiler.export_chrome_trace(tmp)
                with open(tmp, "rb") as src, gzip.open(path, "wb") as dst:
                    shutil.copyfileobj(src, dst)
            finally:
                os.remove(tmp)
            return None
        return self.profiler.export_chrome_trace(path)

    def export_stacks(self, path, metric="self_cpu_time_total"):
        """Write the events' stacks (none are recorded: an empty file)."""
        if self.profiler is None:
            raise AssertionError("Profiler must be initialized before exporting stacks")
        return self.profiler.export_stacks(path, metric)

    def key_averages(self, group_by_input_shape=False, group_by_stack_n=0, group_by_overload_name=False):
        """The recorded events averaged per name (an `EventList` of `FunctionEventAvg`)."""
        if self.profiler is None:
            raise AssertionError("Profiler must be initialized before calling key_averages")
        return self.profiler.key_averages(group_by_input_shape, group_by_stack_n, group_by_overload_name)

    def events(self):
        """The recorded events (an `EventList` of `FunctionEvent`)."""
        if self.profiler is None:
            raise AssertionError("Profiler must be initialized before accessing events")
        return self.profiler.function_events

    def add_metadata(self, key, value):
        """Attach a string metadata entry to the trace."""
        self.preset_metadata[key] = value

    def add_metadata_json(self, key, value):
        """Attach a JSON metadata entry to the trace."""
        self.preset_metadata[key] = value


class profile(_KinetoProfile):  # noqa: N801 - PyTorch's name
    """The profiler context manager (`torch.profiler.profile`): with a `schedule`, each
    `step()` moves through PyTorch's `ProfilerAction` states, recording in `RECORD` steps and
    calling `on_trace_ready(prof)` at the end of each cycle.

    >>> from gradrs.profiler import profile, record_function, schedule
    >>> ready = []
    >>> with profile(schedule=schedule(wait=1, warmup=1, active=2),
    ...              on_trace_ready=lambda p: ready.append(p.step_num)) as p:
    ...     for _ in range(4):
    ...         with record_function("work"):
    ...             pass
    ...         p.step()
    >>> ready
    [4]
    """

    def __init__(self, *, activities=None, schedule=None, on_trace_ready=None, record_shapes=False,
                 profile_memory=False, with_stack=False, with_flops=False, with_modules=False,
                 experimental_config=None, execution_trace_observer=None, acc_events=False,
                 use_cuda=None, custom_trace_id_callback=None, post_processing_timeout_s=None):
        activities_set = set(activities) if activities else supported_activities()
        if use_cuda is not None:
            warn("`use_cuda` is deprecated, use `activities` argument instead", FutureWarning, stacklevel=2)
            if use_cuda:
                activities_set.add(ProfilerActivity.CUDA)
            elif ProfilerActivity.CUDA in activities_set:
                activities_set.remove(ProfilerActivity.CUDA)
        if len(activities_set) == 0:
            raise AssertionError("No valid profiler activities found")
        super().__init__(activities=activities_set, record_shapes=record_shapes, profile_memory=profile_memory,
                         with_stack=with_stack, with_flops=with_flops, with_modules=with_modules,
                         experimental_config=experimental_config, execution_trace_observer=execution_trace_observer,
                         acc_events=acc_events, custom_trace_id_callback=custom_trace_id_callback)
        if schedule:
            self.schedule = schedule
            self.record_steps = True
        else:
            self.schedule = _default_schedule_fn
            self.record_steps = False
        self.on_trace_ready = on_trace_ready
        self.step_num = 0
        schedule_action = self.schedule(self.step_num)
        if schedule_action == ProfilerAction.DEVICE_STOPPED:
            raise ValueError("ProfilerAction.DEVICE_STOPPED is set internally by the profiler and must not be "
                             "returned by a user-provided schedule")
        self.current_action = schedule_action
        self._prev_schedule_action = schedule_action
        self.step_rec_fn = None
        A = ProfilerAction  # noqa: N806
        self.action_map = {
            (A.NONE, A.NONE): [],
            (A.NONE, A.WARMUP): [self.prepare_trace],
            (A.NONE, A.RECORD): [self.prepare_trace, self.start_trace],
            (A.NONE, A.RECORD_AND_SAVE): [self.prepare_trace, self.start_trace],
            (A.WARMUP, A.NONE): [partial(warn, "Incorrect schedule: WARMUP followed by NONE"), self.start_trace,
                                 self.stop_trace],
            (A.WARMUP, A.WARMUP): [],
            (A.WARMUP, A.RECORD): [self.start_trace],
            (A.WARMUP, A.RECORD_AND_SAVE): [self.start_trace],
            (A.RECORD, A.NONE): [partial(warn, "Incorrect schedule: RECORD followed by NONE"), self.stop_trace],
            (A.RECORD, A.WARMUP): [partial(warn, "Incorrect schedule: RECORD followed by WARMUP"), self.stop_trace],
            (A.RECORD, A.RECORD): [],
            (A.RECORD, A.RECORD_AND_SAVE): [],
            (A.RECORD_AND_SAVE, A.NONE): [self.stop_trace, self._trace_ready],
            (A.RECORD_AND_SAVE, A.WARMUP): [self.stop_trace, self._trace_ready, self.prepare_trace],
            (A.RECORD_AND_SAVE, A.RECORD): [self.stop_trace, self._trace_ready, self.prepare_trace,
                                            self.start_trace],
            (A.RECORD_AND_SAVE, A.RECORD_AND_SAVE): [self.stop_trace, self._trace_ready, self.prepare_trace,
                                                     self.start_trace],
            (A.WARMUP, None): [self.start_trace, self.stop_trace],
            (A.RECORD, None): [self.stop_trace, self._trace_ready],
            (A.RECORD_AND_SAVE, None): [self.stop_trace, self._trace_ready],
        }

    def __enter__(self):
        self.start()
        return self

    def __exit__(self, exc_type, exc_val, exc_tb):
        self.stop()

    def start(self):
        """Start profiling (the schedule's action for step 0).

        >>> from gradrs.profiler import profile, record_function, schedule
        >>> p = profile(schedule=schedule(wait=0, warmup=1, active=1))
        >>> p.start()
        >>> p.current_action
        <ProfilerAction.WARMUP: 1>
        >>> p.stop()
        """
        self._transit_action(ProfilerAction.NONE, self.current_action)
        if self.record_steps:
            self.step_rec_fn = prof.record_function("ProfilerStep#" + str(self.step_num))
            self.step_rec_fn.__enter__()

    def stop(self):
        """Stop profiling (closing the current cycle).

        >>> from gradrs.profiler import profile, record_function, schedule
        >>> p = profile(schedule=schedule(wait=0, warmup=1, active=1))
        >>> p.start()
        >>> p.step()
        >>> p.stop()
        >>> p.step_num
        1
        """
        if self.record_steps and self.step_rec_fn:
            self.step_rec_fn.__exit__(None, None, None)
            self.step_rec_fn = None
        self._transit_action(self.current_action, None)
        self.current_action = self._prev_schedule_action

    def step(self):
        """Signal that the next profiling step has started.

        >>> from gradrs.profiler import profile, record_function, schedule
        >>> p = profile(schedule=schedule(wait=0, warmup=1, active=1))
        >>> p.start()
        >>> p.step()
        >>> p.current_action
        <ProfilerAction.RECORD_AND_SAVE: 3>
        >>> p.stop()
        """
        if self.record_steps and self.step_rec_fn:
            self.step_rec_fn.__exit__(None, None, None)
            self.step_rec_fn = None
        prev_action = self.current_action
        next_step = self.step_num + 1
        schedule_action = self.schedule(next_step)
        if schedule_action == ProfilerAction.DEVICE_STOPPED:
            raise ValueError("ProfilerAction.DEVICE_STOPPED is set internally by the profiler and must not be "
                             "returned by a user-provided schedule")
        self.step_num = next_step
        self.current_action = schedule_action
        self._prev_schedule_action = schedule_action
        self._transit_action(prev_action, self.current_action)
        if self.record_steps:
            self.step_rec_fn = prof.record_function("ProfilerStep#" + str(self.step_num))
            self.step_rec_fn.__enter__()

    def _trace_ready(self):
        if self.on_trace_ready:
            self.on_trace_ready(self)

    def _transit_action(self, prev_action, current_action):
        for action in self.action_map.get((prev_action, current_action), []):
            action()
