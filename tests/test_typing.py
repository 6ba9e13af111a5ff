"""Type checkers see gradrs's API: mypy accepts a typed program, and `mypy.stubtest` finds
each stub (`_native.pyi`, `_functional_forms.pyi`) equal to its module (skip without mypy)."""

from __future__ import annotations

import subprocess
import sys
import textwrap

from pathlib import Path

import pytest
from conftest import SELFTEST

pytest.importorskip("mypy")

# The modules that have a `.pyi` stub beside them.
STUBBED = ("gradrs._native", "gradrs._functional_forms")

PROGRAM = """
    import gradrs
    from gradrs import Tensor, nn

    x: Tensor = gradrs.ones(3, 4)
    y: Tensor = gradrs.exp(x) + x.exp()
    z: Tensor = gradrs.clamp(y, min=0.0, out=gradrs.empty(0))
    values, indices = gradrs.max(x, 1)
    layer = nn.Linear(4, 2)
    w: Tensor = layer.weight
    layer(x).sum().backward()
    # names made by generated code or helper calls, statically defined (issue 23)
    special = gradrs.special.zeta(x, 2.0) + gradrs.special.bessel_j0(x)
    copied = gradrs.alias_copy(x)
    reveal_type(gradrs.exp)
    reveal_type(x.exp())
    reveal_type(layer)
"""

# A typical training program, written as for PyTorch (`import gradrs as torch`): mypy must
# accept it, and the names it leans on must have types (not `Any`, which hides mistakes).
TRAINING = """
    import gradrs as torch
    import gradrs.nn as nn
    import gradrs.nn.functional as F
    from gradrs import Tensor, optim
    from gradrs.utils.data import DataLoader, Dataset, TensorDataset, random_split


    class Net(nn.Module):
        def __init__(self, d_in: int, hidden: int, classes: int) -> None:
            super().__init__()
            self.fc1 = nn.Linear(d_in, hidden)
            self.bn = nn.BatchNorm1d(hidden)
            self.body = nn.Sequential(nn.Linear(hidden, hidden), nn.ReLU(), nn.Dropout(0.1),
                                      nn.LayerNorm(hidden))
            self.fc2 = nn.Linear(hidden, classes)
            self.register_buffer("scale", torch.ones(1))

        def forward(self, x: Tensor) -> Tensor:
            h = F.relu(self.bn(self.fc1(x)))
            return self.fc2(self.body(F.dropout(h, 0.1, self.training)))


    class Pairs(Dataset):
        def __init__(self, n: int) -> None:
            self.x = torch.randn(n, 8)
            self.y = (self.x.sum(dim=1) > 0).long()

        def __len__(self) -> int:
            return len(self.x)

        def __getitem__(self, i: int) -> tuple[Tensor, Tensor]:
            return self.x[i], self.y[i]


    torch.manual_seed(0)
    torch.backends.cudnn.deterministic = True
    device = torch.device("cuda" if torch.cuda.is_available() else "cpu")
    x, y = torch.randn(64, 8), torch.randint(0, 3, (64,))
    train, val = random_split(TensorDataset(x, y), [48, 16])
    loader = DataLoader(train, batch_size=16, shuffle=True)
    model = Net(8, 16, 3).to(device)
    opt = optim.AdamW(model.parameters(), lr=1e-3, weight_decay=0.01)
    sched = optim.lr_scheduler.StepLR(opt, step_size=10, gamma=0.5)
    loss_fn = nn.CrossEntropyLoss()
    for epoch in range(2):
        model.train()
        total = 0.0
        for xb, yb in loader:
            xb, yb = xb.to(device), yb.to(device)
            opt.zero_grad()
            out = model(xb)
            loss = loss_fn(out, yb) + F.mse_loss(out.softmax(-1), F.one_hot(yb, 3).float())
            loss.backward()
            nn.utils.clip_grad_norm_(model.parameters(), max_norm=1.0)
            opt.step()
            total += loss.item() * xb.size(0)
        sched.step()
        with torch.no_grad():
            pred = model.eval()(x).argmax(dim=1)
            correct = int((pred == y).sum().item())
        print(epoch, total, correct, sched.get_last_lr()[0], [r.max() for r in x[:2]],
              len(Pairs(4)))
    torch.save(model.state_dict(), "model.pt")
    model.load_state_dict(torch.load("model.pt"))
    q = torch.tensor([1.0, 2.0], dtype=torch.float32, requires_grad=True)
    (g,) = torch.autograd.grad((q**2).sum(), [q])
    both = torch.cat([torch.stack([q, g]), torch.where(q > 1, q, g)[None]], dim=0)
    reveal_type(model.train())
    reveal_type(model.parameters())
    reveal_type(model.named_parameters())
    reveal_type(model.state_dict())
    reveal_type(F.cross_entropy(out, yb))
    reveal_type(F.relu)
    reveal_type(nn.utils.clip_grad_norm_(model.parameters(), 1.0))
    reveal_type(sched.get_last_lr())
    reveal_type(g)
    reveal_type(both)
"""

# Each line is one mistake mypy must report.
MISTAKES = """
    import gradrs
    x = gradrs.ones(3)
    s: str = gradrs.exp(x)
    gradrs.exp(x, nope=1)
    x.exp(3)
    gradrs.sum(x, keepdim=0.5)
    gradrs.cat(x)
    gradrs.cat([x], dim="0")
    gradrs.where(x > 0, x, "0")
    gradrs.nn.functional.relu(x, inplace="no")
    gradrs.autograd.grad(x.sum(), "x")
    gradrs.nn.Linear(3, 2).train().parameters().nope
    gradrs.nn.utils.clip_grad_norm_(gradrs.nn.Linear(3, 2).parameters(), max_norm="1")
    gradrs.optim.SGD(gradrs.nn.Linear(3, 2).parameters(), lr="0.1")
"""


@pytest.fixture(scope="module")
def mypy_run(tmp_path_factory):
    """One mypy process over the three programs (each run costs ~10 s analysing gradrs):
    {file name: its output lines}, and mypy's exit status."""
    tmp = tmp_path_factory.mktemp("mypy")
    programs = {"prog.py": PROGRAM, "train.py": TRAINING, "mistakes.py": MISTAKES}
    for name, source in programs.items():
        (tmp / name).write_text(textwrap.dedent(source))
    r = subprocess.run(
        [sys.executable, "-m", "mypy", "--no-incremental", "--no-error-summary",
         "--cache-dir", str(tmp / "cache"), *programs],
        capture_output=True, text=True, cwd=tmp)
    lines = {name: [line for line in r.stdout.splitlines() if line.startswith(name + ":")]
             for name in programs}
    assert r.stderr == "" and sum(map(len, lines.values())) == len(r.stdout.splitlines()), (
        r.stdout + r.stderr)
    return lines


def _revealed(lines):
    assert not [line for line in lines if ": error:" in line], "\n".join(lines)
    return [line.split("Revealed type is ")[1] for line in lines if "Revealed type is" in line]


@pytest.mark.skipif(SELFTEST, reason="type-checks gradrs itself")
def test_mypy_accepts_a_typed_program(mypy_run):
    assert _revealed(mypy_run["prog.py"]) == [
        '"def (input: gradrs._native.Tensor, *, out: gradrs._native.Tensor | None =) '
        '-> gradrs._native.Tensor"',
        '"gradrs._native.Tensor"',
        '"gradrs.nn.modules.linear.Linear"',
    ]


@pytest.mark.skipif(SELFTEST, reason="type-checks gradrs itself")
def test_mypy_accepts_a_training_program(mypy_run):
    tensor = '"gradrs._native.Tensor"'
    assert _revealed(mypy_run["train.py"]) == [
        '"train.Net"',
        '"typing.Iterator[gradrs.nn.parameter.Parameter]"',
        '"typing.Iterator[tuple[str, gradrs.nn.parameter.Parameter]]"',
        '"dict[str, Any]"',
        tensor,
        '"def (input: gradrs._native.Tensor, inplace: bool =) -> gradrs._native.Tensor"',
        tensor,
        '"list[float]"',
        tensor,
        tensor,
    ]


@pytest.mark.skipif(SELFTEST, reason="type-checks gradrs itself")
def test_mypy_reports_mistakes(mypy_run):
    errors = [line for line in mypy_run["mistakes.py"] if ": error:" in line]
    assert [int(e.split(":")[1]) for e in errors] == list(range(4, 16)), "\n".join(errors)


@pytest.mark.skipif(SELFTEST, reason="checks gradrs's own extension module")
def test_stubtest_finds_the_stubs_equal_to_the_modules(tmp_path):
    # Every name, signature (parameter names, kinds, defaults), class flag and property of
    # `_native` as `_native.pyi` declares it, and of the generated functional forms (whose
    # runtime signatures are the native methods', see `_forms._signature`) as
    # `_functional_forms.pyi` declares them; one process for both (each run costs ~15 s).
    # Run from tmp_path so no cache lands in the tree, and the installed package is checked.
    r = subprocess.run([sys.executable, "-m", "mypy.stubtest", *STUBBED],
                       capture_output=True, text=True, cwd=tmp_path)
    assert r.returncode == 0, r.stdout + r.stderr
    assert f"Success: no issues found in {len(STUBBED)} modules" in r.stdout, r.stdout


@pytest.mark.skipif(SELFTEST, reason="lists gradrs's own stubs")
def test_every_stub_is_stubtested():
    # A new `.pyi` in the package joins STUBBED (and so the stubtest run above).
    import gradrs

    root = Path(gradrs.__file__).parent
    found = {".".join(("gradrs",) + p.relative_to(root).with_suffix("").parts)
             for p in root.rglob("*.pyi")}
    assert found == set(STUBBED)
