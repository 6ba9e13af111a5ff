"""The PyTorch profiler recipe on a small CNN: torch.profiler.profile with ProfilerActivity.CPU
and record_shapes, record_function labels, key_averages() grouped by name and by input shape,
the operators recorded (printed as names only, since the timings differ from run to run), a
schedule with on_trace_ready, and torch.autograd.profiler.record_function in model code."""
import torch
import torch.nn as nn
from torch.profiler import ProfilerActivity, profile, record_function, schedule


class Net(nn.Module):
    def __init__(self):
        super().__init__()
        self.conv = nn.Conv2d(3, 8, 3)
        self.fc = nn.Linear(8, 4)

    def forward(self, x):
        with torch.autograd.profiler.record_function("net_forward"):
            x = torch.relu(self.conv(x))
            return self.fc(x.mean((2, 3)))


torch.manual_seed(0)
model = Net()
inputs = torch.randn(2, 3, 16, 16)
with profile(activities=[ProfilerActivity.CPU], record_shapes=True) as prof:
    with record_function("model_inference"):
        model(inputs)
events = prof.key_averages()
names = {e.key for e in events}
print("labels recorded:", sorted(n for n in names if not n.startswith("aten::")))
print("ops recorded:", sorted(n for n in names if n in ("aten::conv2d", "aten::relu", "aten::linear", "aten::mean")))
by_shape = prof.key_averages(group_by_input_shape=True)
print("conv2d input shapes:", [e.input_shapes for e in by_shape if e.key == "aten::conv2d"])
table = prof.key_averages().table(sort_by="cpu_time_total", row_limit=5)
print("table header:", table.splitlines()[1].split()[:3])
print("count of model_inference:", [e.count for e in events if e.key == "model_inference"])

steps = []
with profile(activities=[ProfilerActivity.CPU], schedule=schedule(wait=1, warmup=1, active=2, repeat=1),
             on_trace_ready=lambda p: steps.append(p.step_num)) as p:
    for _ in range(6):
        model(inputs)
        p.step()
print("trace ready at steps:", steps)
