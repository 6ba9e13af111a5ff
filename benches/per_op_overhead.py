"""Per-op overhead of builds of gradrs side by side: tiny-tensor ops in a tight timeit loop.

Each argument is a directory holding a `gradrs` package (an unpacked wheel, e.g.
`python -m zipfile -e dist/gradrs-*.whl /tmp/abi3`). Runs alternate between the builds, each
run in a fresh interpreter, so load that drifts on a shared machine hits every build alike,
and loops are timed in CPU time (`time.process_time`), so waiting for a core is not counted;
the figure per build and op is the median over runs of each run's best-of-5 loop time.

    python benches/per_op_overhead.py /tmp/ver /tmp/abi3 --runs 15

Give the same build twice (a copy) to see the noise: its ratio should be 1.
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import subprocess
import sys

# name -> (setup, statement); a 1-element float32 tensor, so the kernel costs next to nothing.
OPS = {
    "x * 1.0001": ("x = gradrs.ones(1)", "x * 1.0001"),
    "x.add_(1)": ("x = gradrs.ones(1)", "x.add_(1)"),
    "x.sum()": ("x = gradrs.ones(1)", "x.sum()"),
    "a + b": ("a = gradrs.ones(1); b = gradrs.ones(1)", "a + b"),
    "a * b": ("a = gradrs.ones(1); b = gradrs.ones(1)", "a * b"),
    "x.exp()": ("x = gradrs.ones(1)", "x.exp()"),
    "x.shape": ("x = gradrs.ones(1)", "x.shape"),
}

CHILD = """
import json, sys, time, timeit
import gradrs
ops, number = json.loads(sys.argv[1]), int(sys.argv[2])
out = {}
for name, (setup, stmt) in ops.items():
    t = timeit.Timer(stmt, setup, timer=time.process_time, globals={"gradrs": gradrs})
    out[name] = min(t.repeat(5, number)) / number * 1e9
out["_file"] = gradrs._native.__file__
print(json.dumps(out))
"""


def run(path: str, number: int) -> dict[str, float]:
    env = dict(os.environ, PYTHONPATH=path, RAYON_NUM_THREADS="1")
    r = subprocess.run([sys.executable, "-c", CHILD, json.dumps(OPS), str(number)],
                       env=env, capture_output=True, text=True, check=True)
    out = json.loads(r.stdout)
    assert out.pop("_file").startswith(os.path.abspath(path)), f"{path} was not the import"
    return out


def main() -> None:
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("builds", nargs="+", help="directories each holding a gradrs package")
    p.add_argument("--runs", type=int, default=11)
    p.add_argument("--number", type=int, default=20000, help="loop length per timing")
    args = p.parse_args()
    times: dict[str, dict[str, list[float]]] = {b: {op: [] for op in OPS} for b in args.builds}
    for i in range(args.runs):
        order = args.builds if i % 2 == 0 else args.builds[::-1]
        for b in order:
            for op, ns in run(b, args.number).items():
                times[b][op].append(ns)
    names = [os.path.basename(os.path.normpath(b)) for b in args.builds]
    first = args.builds[0]
    print(f"ns per op, median of {args.runs} alternated runs (best of 5 x {args.number} loops);"
          f" ratios to {names[0]}; p25-p75 of {names[0]}'s runs")
    print(f"{'op':<14}" + "".join(f"{n:>12}" for n in names)
          + "".join(f"{'/' + names[0]:>12}" for n in names[1:]) + "     p25-p75")
    for op in OPS:
        meds = [statistics.median(times[b][op]) for b in args.builds]
        q = statistics.quantiles(times[first][op], n=4)
        print(f"{op:<14}" + "".join(f"{m:>12.0f}" for m in meds)
              + "".join(f"{m / meds[0]:>12.3f}" for m in meds[1:]) + f"  {q[0]:>5.0f}-{q[2]:.0f}")

if __name__ == "__main__":
    main()
