"""`gradrs.profiler`: PyTorch's profiler API (`torch.profiler`).

`profile` records the `record_function` ranges opened while it is active, and, under a
`schedule`, one `ProfilerStep#N` range per `step()`; see `gradrs.autograd.profiler` for what
is (and is not) recorded. Host (CPU) activity only.

>>> from gradrs.profiler import ProfilerActivity, profile, record_function
>>> with profile(activities=[ProfilerActivity.CPU]) as prof:
...     with record_function("model_inference"):
...         y = gradrs.ones(4).relu()
>>> prof.key_averages()[0].key
'model_inference'
"""

from ..autograd.profiler import record_function  # noqa: F401
from .profiler import (  # noqa: F401
    ProfilerAction,
    ProfilerActivity,
    _KinetoProfile,
    profile,
    schedule,
    supported_activities,
    tensorboard_trace_handler,
)

__all__ = [
    "profile",
    "schedule",
    "supported_activities",
    "tensorboard_trace_handler",
    "ProfilerAction",
    "ProfilerActivity",
    "record_function",
]
