"""How training logs format tensors and numbers: f-strings with format specs on 0-dim tensors
(Tensor.__format__), %-formatting, round / float / int / bool of tensors, iteration over a 1-D
tensor, tensors inside lists / dicts / tuples and pprint, torch.Size / dtype / device in
f-strings, finfo / iinfo, sci-mode and precision options, tensors with nan / inf / huge /
tiny values, integer and bool tensors, grad_fn and requires_grad in reprs, and summaries of
large tensors."""
import pprint

import torch

torch.manual_seed(0)
loss = torch.tensor(0.123456789)
acc = torch.tensor(0.875)
step = torch.tensor(42)
print(f"loss {loss:.4f} acc {acc:.1%} step {step:5d} raw {loss} {step}")
print(f"{loss.item():.6e} | {float(loss):.3g} | {loss!r} | {loss!s:>20}")
print("loss %.3f acc %.2f step %d" % (loss, acc, step))
print("%s %r" % (loss, step))
print(round(loss.item(), 3), round(float(acc), 1), int(step), bool(torch.tensor(1)), int(torch.tensor(3.9)))
print(format(acc, ".2f"), format(step, "03d"), "{:8.3f}|".format(loss))
try:
    print(f"{torch.tensor([1.0, 2.0]):.2f}")
except TypeError as e:
    print("TypeError:", e)
print(f"{torch.tensor([1.0, 2.0])}")
print([x for x in torch.tensor([1.5, 2.5])], [int(x) for x in torch.arange(3)])
print(*torch.tensor([1, 2, 3]))
x = torch.randn(2, 3)
print(f"shape {x.shape} size {x.size()} dims {x.dim()} dtype {x.dtype} device {x.device}")
print(f"{list(x.shape)} {tuple(x.size())} {x.shape[0]} {x.numel():,}")
print({"loss": loss, "acc": acc}, [loss, step], (acc,))
pprint.pprint({"weights": torch.ones(2), "step": step, "nested": {"a": torch.zeros(1, 2)}})
print(torch.finfo(torch.float32))
print(torch.finfo(torch.float16).eps, torch.finfo(torch.float64).tiny, torch.finfo().max)
print(torch.iinfo(torch.int8), torch.iinfo(torch.int64).max, torch.iinfo(torch.uint8).bits)
print(torch.float32, torch.int64, str(torch.bool), repr(torch.float16), torch.device("cpu"), torch.device("cpu", 0) if False else "")
print(torch.tensor([1e-10, 1.0, 1e10]))
print(torch.tensor([0.1, 0.25, 100.0]), torch.tensor([1e-5, 1e-4]), torch.tensor([123456.0, 0.5]))
print(torch.tensor([float("nan"), float("inf"), -float("inf"), 1.5]))
print(torch.tensor([1.0, 2.0, 3.0]), torch.tensor([1.5, 2.0]), torch.tensor([-0.0, 0.0]))
print(torch.tensor([[1, -200], [30, 4]]), torch.tensor([True, False]), torch.tensor([], dtype=torch.int32))
print(torch.tensor(3.5, dtype=torch.float64), torch.tensor([2.5], dtype=torch.float16), torch.tensor(7, dtype=torch.int16))
w = torch.randn(3, requires_grad=True)
print(w.shape, (w * 2).grad_fn.name(), w[0], w.sum(), w.detach()[:2].requires_grad)
print(torch.zeros(2, 2, requires_grad=True), torch.ones(1, dtype=torch.float64, requires_grad=True) * 2)
big = torch.arange(2000.).view(40, 50)
print(big)
print(torch.arange(1200))
torch.set_printoptions(precision=2, sci_mode=False)
print(torch.tensor([1e-6, 123.456789, 1e6]))
torch.set_printoptions(precision=3, sci_mode=True)
print(torch.tensor([0.5, 2.0]))
torch.set_printoptions(profile="default")
torch.set_printoptions(linewidth=60)
print(torch.linspace(0, 1, 12))
torch.set_printoptions(profile="default", linewidth=80)
print(torch.randn(3, 4, dtype=torch.float64).abs().max() < 10)
print(str(torch.tensor([1, 2])), repr(torch.tensor([[0.5]])), torch.tensor([1.25]).__str__())
