"""Every code cell of the three seed documents must print, under ``import gradrs as torch``,
exactly what it prints under PyTorch.

The cells live in ``seed_cells.py`` (sources stored literally, with their documented fixes).
Each cell is run in a fresh namespace of a fresh ``python -c`` subprocess with gradrs installed
as ``torch`` (``sys.modules["torch"] = gradrs``, ``sys.modules["torch.autograd"] =
gradrs.autograd``); stdout plus the uncaught exception, if any, is normalized (object addresses
-> ``0xADDR``, the word ``gradrs`` -> ``torch``) and compared with a reference:

* ``test_seed_vs_torch[...]``: the reference is live PyTorch (all selected cells run in one
  subprocess, each in a fresh namespace, since importing torch takes seconds). Skipped when
  torch is not importable.
* ``test_seed_vs_stored[...]``: the reference is ``SeedCell.expected``, the normalized output of
  PyTorch stored in the table. Runs when torch is not importable (or with
  ``GRADRS_SEEDS_STORED=1``, or in self-test mode); otherwise skipped as covered live.

If gradrs cannot be imported the comparisons fail, they do not skip.

Environment switches:

* ``GRADRS_SEEDS_SELFTEST=1``: real torch stands in for gradrs (to validate the table and this
  harness: torch vs torch and torch vs stored); the stand-in runs all cells in one subprocess.
* ``GRADRS_SEEDS_STORED=1``: also compare against the stored expectations when torch is present.
* ``GRADRS_SEEDS_DIR``: where the seed documents are, for the faithfulness test (default:
  ``shared/seeds`` in the repository, else ``/work/shared/seeds``; skipped when absent).

``python tests/test_seeds.py`` prints, for the installed torch, the normalized output of every
cell whose stored ``expected`` is out of date (to refresh the table).

Run: ``python -m pytest tests/test_seeds.py -q``
"""

from __future__ import annotations

import json
import os
import re
import subprocess
import sys
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass
from pathlib import Path

import pytest

try:
    from .seed_cells import CELLS, SEED_DOCS, SeedCell
except ImportError:  # tests/ is not a package: imported by rootdir-relative path
    sys.path.insert(0, str(Path(__file__).resolve().parent))
    from seed_cells import CELLS, SEED_DOCS, SeedCell

SELFTEST = os.environ.get("GRADRS_SEEDS_SELFTEST") == "1"
FORCE_STORED = os.environ.get("GRADRS_SEEDS_STORED") == "1"
TIMEOUT_S = 300

_MARKER = "@@GRADRS-SEED-RESULTS@@"

# Runs the JSON list of sources given on stdin, each in a fresh namespace with stdout captured,
# then writes the results as one JSON line after _MARKER on the real stdout.
# argv[1]: "torch" (the reference), "gradrs" (gradrs installed as torch) or
# "selftest" (torch installed as torch through the same code path as gradrs).
_RUNNER = r"""
import contextlib, importlib, io, json, sys, traceback

def emit(obj):
    sys.__stdout__.write("\n" + MARKER + json.dumps(obj) + "\n")
    sys.__stdout__.flush()

mode = sys.argv[1]
sources = json.loads(sys.stdin.read())
try:
    if mode == "torch":
        import torch  # noqa: F401
    else:
        lib = importlib.import_module("torch" if mode == "selftest" else "gradrs")
        sys.modules["torch"] = lib
        try:
            autograd = importlib.import_module(lib.__name__ + ".autograd")
        except ImportError:
            autograd = getattr(lib, "autograd", None)
        if autograd is not None:
            sys.modules["torch.autograd"] = autograd
except BaseException:
    emit({"import_error": traceback.format_exc()})
    sys.exit(0)

results = []
for src in sources:
    out = io.StringIO()
    exc = tb = None
    try:
        code = compile(src, "<seed cell>", "exec")
        with contextlib.redirect_stdout(out):
            exec(code, {"__name__": "__main__"})
    except BaseException as e:
        exc = type(e).__name__ + ": " + str(e)
        tb = traceback.format_exc()
    results.append({"stdout": out.getvalue(), "exception": exc, "traceback": tb})
emit({"results": results})
""".replace("MARKER", repr(_MARKER))


@dataclass
class Outcome:
    """What one cell did: its stdout and uncaught exception, or why it could not run."""

    stdout: str = ""
    exception: str | None = None
    traceback: str | None = None
    failure: str | None = None  # the library did not import, or the subprocess died

    def observed(self) -> str:
        if self.exception is None:
            return self.stdout
        return self.stdout + f"<<uncaught {self.exception}>>\n"


def run_cells(sources: list[str], mode: str) -> list[Outcome]:
    """Run sources (each in a fresh namespace) in one fresh subprocess."""
    env = dict(os.environ, PYTHONIOENCODING="utf-8")
    try:
        proc = subprocess.run(
            [sys.executable, "-c", _RUNNER, mode],
            input=json.dumps(sources),
            check=False,
            capture_output=True,
            text=True,
            timeout=TIMEOUT_S,
            env=env,
        )
    except subprocess.TimeoutExpired:
        return [Outcome(failure=f"{mode} subprocess timed out after {TIMEOUT_S}s")] * len(sources)
    _, marker, payload = proc.stdout.rpartition(_MARKER)
    if not marker:
        why = (
            f"{mode} subprocess died (exit code {proc.returncode}) before reporting\n"
            f"--- stdout ---\n{proc.stdout[-4000:]}\n--- stderr ---\n{proc.stderr[-4000:]}"
        )
        return [Outcome(failure=why)] * len(sources)
    data = json.loads(payload)
    if "import_error" in data:
        return [Outcome(failure=f"import failed ({mode}):\n{data['import_error']}")] * len(sources)
    return [Outcome(**r) for r in data["results"]]


_ADDR = re.compile(r"0x[0-9a-fA-F]+")
_LIB = re.compile(r"\bgradrs\b")
_FLOAT = re.compile(r"[-+]?(?:\d+\.\d*(?:[eE][-+]?\d+)?|\d+[eE][-+]?\d+)|\b(?:nan|inf)\b")


def normalize(text: str, compare: str = "stdout") -> str:
    """Object addresses -> 0xADDR, gradrs -> torch; with compare="shapes" floats -> <f>."""
    text = _ADDR.sub("0xADDR", text)
    text = _LIB.sub("torch", text)
    if compare == "shapes":
        text = _FLOAT.sub("<f>", text)
    return text


def _cell_id(cell: SeedCell) -> str:
    return cell.id


@dataclass
class Runs:
    torch: dict[str, Outcome]  # cell id -> outcome under real torch
    torch_failure: str | None  # set when torch could not be imported
    gradrs: dict[str, Outcome]  # cell id -> outcome under gradrs (or its self-test stand-in)


def _batch(cells: list[SeedCell], mode: str) -> dict[str, Outcome]:
    outcomes = run_cells([c.source for c in cells], mode)
    return {c.id: o for c, o in zip(cells, outcomes)}


@pytest.fixture(scope="session")
def runs(request) -> Runs:
    """Runs every cell selected in this session, all subprocesses started at once."""
    wanted = set()
    for item in request.session.items:
        params = getattr(getattr(item, "callspec", None), "params", {})
        if isinstance(params.get("cell"), SeedCell):
            wanted.add(params["cell"].id)
    cells = [c for c in CELLS if c.id in wanted] or list(CELLS)
    workers = max(2, min(8, os.cpu_count() or 2))
    with ThreadPoolExecutor(max_workers=workers) as pool:
        torch_future = pool.submit(_batch, cells, "torch")
        if SELFTEST:
            gradrs_futures = [pool.submit(_batch, cells, "selftest")]
        else:  # gradrs: one fresh subprocess per cell
            gradrs_futures = [pool.submit(_batch, [c], "gradrs") for c in cells]
        gradrs: dict[str, Outcome] = {}
        for future in gradrs_futures:
            gradrs.update(future.result())
        torch_runs = torch_future.result()
    failures = {o.failure for o in torch_runs.values() if o.failure}
    torch_failure = failures.pop() if failures else None
    return Runs(torch=torch_runs, torch_failure=torch_failure, gradrs=gradrs)


def _describe(cell: SeedCell) -> str:
    return f"seed cell {cell.id} ({cell.note})\n--- source ---\n{cell.source}--- end ---"


def _check(cell: SeedCell, got: Outcome, expected: str, reference: str) -> None:
    __tracebackhide__ = True
    name = "gradrs" if not SELFTEST else "torch standing in for gradrs"
    if got.failure:
        pytest.fail(
            f"{_describe(cell)}\n{name} could not run the cell: {got.failure}", pytrace=False
        )
    actual = normalize(got.observed(), cell.compare)
    message = f"{_describe(cell)}\n{name} output differs from {reference}"
    if got.traceback:
        message += f"\n--- {name} traceback ---\n{got.traceback}"
    assert actual == expected, message


@pytest.mark.parametrize("cell", CELLS, ids=_cell_id)
def test_seed_vs_torch(cell: SeedCell, runs: Runs) -> None:
    if runs.torch_failure:
        pytest.skip("torch is not importable; test_seed_vs_stored compares with stored output")
    ref = runs.torch[cell.id]
    assert ref.exception is None, (
        f"{_describe(cell)}\nthe cell fails under real torch (fix the table):\n{ref.traceback}"
    )
    _check(cell, runs.gradrs[cell.id], normalize(ref.observed(), cell.compare), "live torch")


@pytest.mark.parametrize("cell", CELLS, ids=_cell_id)
def test_seed_vs_stored(cell: SeedCell, runs: Runs) -> None:
    if not (runs.torch_failure or SELFTEST or FORCE_STORED):
        pytest.skip("torch is importable: compared live (set GRADRS_SEEDS_STORED=1 to also run)")
    assert cell.expected is not None, f"{cell.id} has no stored expected output"
    _check(cell, runs.gradrs[cell.id], cell.expected, "the stored expected output")


# ------------------------------------------------------------------ the table itself


def _seeds_dir() -> Path | None:
    candidates = [os.environ.get("GRADRS_SEEDS_DIR")]
    candidates += [str(Path(__file__).resolve().parents[1] / "shared" / "seeds")]
    candidates += ["/work/shared/seeds"]
    for c in candidates:
        if c and all((Path(c) / name).is_file() for name in SEED_DOCS.values()):
            return Path(c)
    return None


def _lines(text: str) -> str:
    """Indentation and trailing blanks do not count (the seeds nest or lose indentation)."""
    return "\n".join(line.strip() for line in text.strip("\n").split("\n"))


@pytest.mark.parametrize("cell", CELLS, ids=_cell_id)
def test_seed_cell_is_faithful(cell: SeedCell) -> None:
    """The stored cell, minus its documented setup/appended lines and fixes, is in the seed."""
    seeds = _seeds_dir()
    if seeds is None:
        pytest.skip("seed documents not found (set GRADRS_SEEDS_DIR)")
    doc = (seeds / SEED_DOCS[cell.doc]).read_text(encoding="utf-8")
    text = cell.seed_text()  # asserts each fix occurs exactly once
    assert text.strip(), f"{cell.id}: nothing of the seed left"
    assert _lines(text) in _lines(doc), f"{cell.id}: not found in {SEED_DOCS[cell.doc]}:\n{text}"
    if cell.fixes or cell.source != text:
        assert cell.note and cell.note != "verbatim", f"{cell.id}: changes must be explained"


def test_table_shape() -> None:
    ids = [c.id for c in CELLS]
    assert len(ids) == len(set(ids))
    for doc in SEED_DOCS:
        indexes = [c.index for c in CELLS if c.doc == doc]
        assert indexes == list(range(len(indexes))), f"doc {doc}: indexes {indexes}"
    for c in CELLS:
        assert c.compare in ("stdout", "shapes", "error"), c.id
        assert c.expected is not None, f"{c.id}: store the normalized torch output in expected"
        assert c.source.endswith("\n"), c.id
        compile(c.source, c.id, "exec")


if __name__ == "__main__":  # print refreshed expectations for the installed torch
    for c, o in zip(CELLS, run_cells([c.source for c in CELLS], "torch")):
        if o.failure or o.exception:
            print(f"{c.id}: FAILS under torch: {o.failure or o.traceback}")
        elif normalize(o.observed(), c.compare) != c.expected:
            print(f"{c.id}: expected={normalize(o.observed(), c.compare)!r}")
