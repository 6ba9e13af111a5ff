"""Instructions per op of builds of gradrs, counted by callgrind: noise-free on a shared machine.

Each argument is a directory holding a `gradrs` package (an unpacked wheel, or a checkout's
`python/` after `maturin develop`). Each build runs in one process under
`valgrind --tool=callgrind` that counts only inside `operator.call`, through which each op's
loop runs twice, with `--small` and `--large` iterations, each run dumped apart; the difference
of the two instruction totals over the difference of the iteration counts is the cost of one op
(the loop's own `for` included), with the interpreter, the import and the setup left out.

    python benches/per_op_instructions.py /tmp/snap_before python --large 3000

`--annotate DIR` also writes, per build and op, the
per-function inclusive instruction counts of the difference (large - small) divided by the
iteration difference, so what one op spends in each function can be read (`DIR/<build>-<op>.txt`).
"""

from __future__ import annotations

import argparse
import json
import os
import re
import subprocess
import sys
import tempfile

# name -> (setup, statement): tiny tensors, so the kernel costs next to nothing.
OPS = {
    "a * b": ("a = gradrs.ones(1); b = gradrs.ones(1)", "a * b"),
    "a + b": ("a = gradrs.ones(1); b = gradrs.ones(1)", "a + b"),
    "x.exp()": ("x = gradrs.ones(1)", "x.exp()"),
    "x.sum()": ("x = gradrs.ones(1)", "x.sum()"),
    "m @ m 4x4": ("m = gradrs.ones(4, 4)", "m @ m"),
    "mul+backward": ("a = gradrs.ones(1, requires_grad=True); b = gradrs.ones(1)",
                     "(a * b).backward()"),
}

CHILD = """
import json, operator, sys
import gradrs
ops, small, large = json.loads(sys.argv[1]), int(sys.argv[2]), int(sys.argv[3])
for setup, stmt in ops:
    g = {"gradrs": gradrs}
    exec(setup, g)
    exec("def loop(n):\\n    for _ in range(n):\\n        " + stmt, g)
    g["loop"](3)
    operator.call(g["loop"], small)
    operator.call(g["loop"], large)
"""


def totals(path: str) -> int:
    with open(path) as f:
        for line in f:
            if line.startswith(("totals:", "summary:")):
                return int(line.split()[1])
    raise RuntimeError(f"no totals in {path}")


def inclusive(out: str) -> dict[str, int]:
    r = subprocess.run(["callgrind_annotate", "--inclusive=yes", "--threshold=100", out],
                       capture_output=True, text=True, check=True)
    costs: dict[str, int] = {}
    for line in r.stdout.splitlines():
        m = re.match(r"\s*([\d,]+)\s+(?:\([^)]*\)\s+)?(\S.*)$", line)
        if m and ":" in m.group(2):
            name = m.group(2).split(" [")[0]
            costs[name] = costs.get(name, 0) + int(m.group(1).replace(",", ""))
    return costs


def measure(path: str, ops: dict[str, tuple[str, str]], small: int, large: int,
            tmp: str) -> list[tuple[str, str]]:
    """Runs every op's two loops in one process; returns the (small, large) dump files per op."""
    env = dict(os.environ, PYTHONPATH=os.path.abspath(path), RAYON_NUM_THREADS="1")
    out = os.path.join(tmp, "cg.out")
    # Collection is on only inside operator.call (the timed loops), and each loop's costs are
    # dumped when it returns: out.1, out.2, ... in call order.
    subprocess.run(["valgrind", "--tool=callgrind", f"--callgrind-out-file={out}",
                    "--collect-atstart=no", "--toggle-collect=_operator_call",
                    "--dump-after=_operator_call",
                    sys.executable, "-c", CHILD, json.dumps(list(ops.values())), str(small),
                    str(large)],
                   env=env, capture_output=True, text=True, check=True)
    return [(f"{out}.{2 * i + 1}", f"{out}.{2 * i + 2}") for i in range(len(ops))]


def main() -> None:
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("builds", nargs="+", help="directories each holding a gradrs package")
    p.add_argument("--small", type=int, default=1000)
    p.add_argument("--large", type=int, default=3000)
    p.add_argument("--only", help="ops whose name contains this")
    p.add_argument("--annotate", help="directory for per-function differences")
    args = p.parse_args()
    ops = {k: v for k, v in OPS.items() if not args.only or args.only in k}
    names = [os.path.basename(os.path.normpath(os.path.abspath(b))) for b in args.builds]
    d = args.large - args.small
    table: dict[str, list[float]] = {op: [] for op in ops}
    for b, name in zip(args.builds, names):
        with tempfile.TemporaryDirectory() as tmp:
            for op, (f1, f2) in zip(ops, measure(b, ops, args.small, args.large, tmp)):
                table[op].append((totals(f2) - totals(f1)) / d)
                if args.annotate:
                    os.makedirs(args.annotate, exist_ok=True)
                    c1, c2 = inclusive(f1), inclusive(f2)
                    diff = sorted(((c2.get(k, 0) - c1.get(k, 0)) / d, k) for k in c2)
                    slug = re.sub(r"\W+", "_", op.replace("*", "mul").replace("+", "add")
                                  .replace("@", "matmul")).strip("_")
                    with open(os.path.join(args.annotate, f"{name}-{slug}.txt"), "w") as f:
                        for cost, k in reversed(diff):
                            if cost >= 5:
                                f.write(f"{cost:10.0f}  {k}\n")
    print(f"instructions per op (callgrind, ({args.large} - {args.small} iterations) / {d})")
    print(f"{'op':<14}" + "".join(f"{n:>14}" for n in names)
          + "".join(f"{'/' + names[0]:>14}" for n in names[1:]))
    for op, row in table.items():
        print(f"{op:<14}" + "".join(f"{v:>14.0f}" for v in row)
              + "".join(f"{v / row[0]:>14.3f}" for v in row[1:]))


if __name__ == "__main__":
    main()
