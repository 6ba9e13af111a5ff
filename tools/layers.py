"""The crate's layers, proven: every `crate::` path in src/ must point to its own layer or one below.
(It also holds the Python package to its own rules, `python_problems`, and every Python and Rust
source file to a size a reader can hold, `size_problems`: rooms named for what they hold.)

    python tools/layers.py           # check; exit 1 on an upward import or a cycle
    python tools/layers.py --graph   # also print the layer graph (edges with their counts)

Stdlib only. Each file of src/ is a module (`src/ops/binary.rs` is `ops::binary`, a `mod.rs`
is its directory); each path it names (`use crate::...` lines, `crate::x::y` in code,
`super::` resolved against the file, `$crate::` in macros) is resolved to the longest module
that exists, and both ends get the layer of the longest prefix in LAYERS. An edge from a layer
to one above it fails, so does a device test (`.is_gpu()`, `Device::Gpu`) in ops, and so
would a cycle between layers (listed, though with ranks checked it can only come from KNOWN). KNOWN lists the upward edges that exist today, each with the
work that removes it: a new upward edge fails, and so does a KNOWN entry that no longer
occurs (delete it, so the list only shrinks).
"""

import re
import sys
from collections import defaultdict
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
SRC = ROOT / "src"
PY = ROOT / "python" / "gradrs"

# Top to bottom; a module belongs to the longest prefix listed. Written down in
# ARCHITECTURE.md ("The layers").
LAYERS = [
    ("bindings", ["python"]),
    # The engine runs the ops' backward formulas and sums, casts and moves gradients with ops.
    ("engine", ["autograd::engine", "autograd::batched"]),
    ("ops", ["ops"]),
    # What ops record into: the node arena, edges, saved tensors, grad mode, hooks.
    ("autograd", ["autograd"]),
    # The one place that picks the device: primitives on tensors, run where their operands live.
    ("kernels", ["kernels"]),
    ("tensor", ["tensor"]),
    ("backend", ["backend"]),
    # Geometry, dtypes, errors and host memory every layer uses; they import only each other.
    # (`tensor::element`, `tensor::layout` and the buffer pool are what the CPU kernels take.)
    (
        "base",
        ["dtype", "error", "tensor::shape", "tensor::layout", "tensor::element", "tensor::pool"],
    ),
]

# Downward edges that still break the design: (from layer, to module prefix) -> why.
FORBIDDEN = {
    ("ops", "backend::wgpu"): "ops are device-agnostic: they reach the GPU through kernels",
    ("ops", "backend::cpu"): "ops are device-agnostic: they reach the host's loops through "
    "kernels too",
    ("autograd", "kernels"): "autograd knows ops, not kernels",
    ("autograd", "backend"): "autograd knows ops, not kernels",
    ("engine", "kernels"): "autograd knows ops, not kernels",
    ("engine", "backend"): "autograd knows ops, not kernels",
}

# Layers that never test a tensor's device: they ask `kernels` (Note [Kernel dispatch]).
DEVICE_BLIND = {"ops": "ops are device-agnostic: the kernels pick the device"}
DEVICE_TEST = re.compile(r"\.is_gpu\(\)|Device::Gpu\b")

# Upward edges that exist today: (from module, to module) -> what removes it. None are left:
# any new one fails.
KNOWN = {}

RANK = {name: i for i, (name, _) in enumerate(LAYERS)}
PREFIXES = sorted(
    ((p, name) for name, ps in LAYERS for p in ps), key=lambda x: -len(x[0].split("::"))
)


def module_of(path, src=SRC):
    """`src/ops/binary.rs` -> `ops::binary`; `src/ops/mod.rs` -> `ops`; `src/lib.rs` -> ``."""
    parts = list(path.relative_to(src).with_suffix("").parts)
    if parts[-1] in ("mod", "lib"):
        parts.pop()
    return "::".join(parts)


def layer_of(module):
    for prefix, name in PREFIXES:
        if module == prefix or module.startswith(prefix + "::"):
            return name
    return None


def strip_comments(text):
    """The code without // comments (doc comments name paths that are not imports) and without
    its unit tests (a trailing `#[cfg(test)] mod`, whose `super` is the file's module)."""
    text = re.split(r"^#\[cfg\(test\)\]\s*mod\s", text, maxsplit=1, flags=re.M)[0]
    out = []
    for line in text.splitlines():
        code, _, _ = line.partition("//")
        out.append(code)
    return "\n".join(out)


USE = re.compile(r"^\s*(?:pub(?:\([^)]*\))?\s+)?use\s+([^;]+);", re.M)


def use_paths(code):
    """Every path a `use` declaration names, groups expanded: `use a::{b, c::d}` -> a::b, a::c::d."""
    for m in USE.finditer(code):
        tree = re.sub(r"\s+", " ", m.group(1)).strip()
        yield from expand(re.sub(r"\s*([{},]|::)\s*", r"\1", tree))


def expand(tree):
    if "{" not in tree:
        yield tree.split(" as ")[0]
        return
    head, rest = tree.split("{", 1)
    inner = rest[: rest.rindex("}")]
    depth, part, parts = 0, "", []
    for ch in inner:
        if ch == "," and depth == 0:
            parts.append(part)
            part = ""
            continue
        depth += ch == "{"
        depth -= ch == "}"
        part += ch
    parts.append(part)
    for p in parts:
        if p == "self":
            yield head.rstrip(":")
        elif p:
            yield from expand(head + p)


def resolve(path, module, modules):
    """The longest known module a path names, or None for paths outside the crate."""
    segs = [s for s in path.split("::") if s]
    if not segs:
        return None
    if segs[0] in ("crate", "$crate"):
        segs = segs[1:]
    elif segs[0] == "super":
        base = module.split("::") if module else []
        while segs and segs[0] == "super":
            segs = segs[1:]
            base = base[:-1]
        segs = base + segs
    elif segs[0] == "self":
        segs = (module.split("::") if module else []) + segs[1:]
    else:
        return None
    for n in range(len(segs), 0, -1):
        cand = "::".join(segs[:n])
        if cand in modules:
            return cand
    return None


def edges(src=SRC):
    """(from module, to module) -> number of references, over every file of `src`."""
    files = {module_of(p, src): p for p in src.rglob("*.rs")}
    modules = set(files)
    found = defaultdict(int)
    for module, path in files.items():
        code = strip_comments(path.read_text())
        paths = list(use_paths(code))
        body = USE.sub("", code)
        paths += re.findall(r"(?<![\w:])\$?crate(?:::\w+)+", body)
        paths += re.findall(r"(?<![\w:])super(?:::\w+)+", body)
        for p in paths:
            target = resolve(p, module, modules)
            if target is not None and target != module:
                found[(module, target)] += 1
    return found


def cycles(graph):
    """Strongly connected groups of more than one layer (Tarjan)."""
    index, low, stack, on, out = {}, {}, [], set(), []

    def visit(v):
        index[v] = low[v] = len(index)
        stack.append(v)
        on.add(v)
        for w in graph.get(v, ()):
            if w not in index:
                visit(w)
                low[v] = min(low[v], low[w])
            elif w in on:
                low[v] = min(low[v], index[w])
        if low[v] == index[v]:
            group = []
            while True:
                w = stack.pop()
                on.discard(w)
                group.append(w)
                if w == v:
                    break
            if len(group) > 1:
                out.append(sorted(group, key=RANK.get))

    for v in list(graph):
        if v not in index:
            visit(v)
    return out


def check(show_graph=False, src=SRC, known=None):
    """Problems found (empty when the layering holds), and the report's lines."""
    known = KNOWN if known is None else known
    found = edges(src)
    problems, lines = [], []
    layer_graph = defaultdict(lambda: defaultdict(int))
    for (a, b), n in sorted(found.items()):
        la, lb = layer_of(a), layer_of(b)
        if la is None or lb is None:
            if a and b:
                problems.append(f"{a} -> {b}: module outside every layer (add it to LAYERS)")
            continue
        for (fl, prefix), why in FORBIDDEN.items():
            if la == fl and (b == prefix or b.startswith(prefix + "::")):
                problems.append(f"{a} ({la}) imports {b}: {why} ({n} references)")
        if la == lb:
            continue
        layer_graph[la][lb] += n
        if RANK[lb] < RANK[la] and (a, b) not in known:
            problems.append(f"{a} ({la}) imports {b} ({lb}), a layer above it ({n} references)")
    for path in sorted(src.rglob("*.rs")):
        module = module_of(path, src)
        why = DEVICE_BLIND.get(layer_of(module))
        n = len(DEVICE_TEST.findall(strip_comments(path.read_text()))) if why else 0
        if n:
            problems.append(f"{module} tests a device: {why} ({n} tests)")
    for key in known:
        if key not in found:
            problems.append(f"KNOWN lists {key[0]} -> {key[1]}, which no longer occurs: delete it")
    for group in cycles({a: set(bs) for a, bs in layer_graph.items()}):
        # Every upward edge is an error unless KNOWN, so a cycle here runs through KNOWN ones.
        lines.append(f"cycle between layers (through KNOWN edges): {' -> '.join(group)}")
    if show_graph:
        for a in sorted(layer_graph, key=RANK.get):
            for b in sorted(layer_graph[a], key=RANK.get):
                mark = "  UP" if RANK[b] < RANK[a] else ""
                lines.append(f"{a:>9} -> {b:<9} {layer_graph[a][b]:4}{mark}")
    return problems, lines


# A name put into a module's namespace at run time (`globals()[name] = ...`,
# `setattr(sys.modules[__name__], ...)`) is invisible to mypy / pyright: every public name of
# the package is defined statically (a def, a class, an assignment, an import, or a block
# tools/gen_ops.py generates), so `gradrs.exp` and `gradrs.special.zeta` type-check (issue 23).
INJECTION = re.compile(r"\bglobals\(\)\s*\[[^\]]*\]\s*=(?!=)|setattr\(\s*sys\.modules\[")


def python_problems(py=PY):
    """The Python package's rule breaks: names injected into a module's namespace."""
    problems = []
    for path in sorted(py.rglob("*.py")):
        code = "\n".join(line for line in path.read_text().splitlines()
                         if not line.lstrip().startswith("#"))
        n = len(INJECTION.findall(code))
        if n:
            problems.append(f"{path.relative_to(py.parent)} injects names through globals() or "
                            f"sys.modules ({n} times): define them statically")
    return problems


# Rooms named for what they hold (issue 23): no Python or Rust source file over MAX_LINES lines;
# a family that outgrows its file is split into files named for the families they hold.
MAX_LINES = 1000

# Files that mirror one PyTorch module whose own file is bigger still: kept whole, so a reader
# comparing with PyTorch finds its module in one place.
LONG_MIRRORS = {
    "python/gradrs/nn/modules/module.py": "the Module class: torch/nn/modules/module.py, 3,053 "
    "lines in torch 2.13",
    "python/gradrs/optim/lr_scheduler.py": "every scheduler of torch/optim/lr_scheduler.py, 2,606 "
    "lines",
    "python/gradrs/distributed/distributed_c10d.py": "torch/distributed/distributed_c10d.py's "
    "process groups and collectives, 6,908 lines",
    "python/gradrs/distributions/transforms.py": "torch/distributions/transforms.py's "
    "transforms, 1,362 lines",
    "python/gradrs/utils/_pytree.py": "torch/utils/_pytree.py's pytrees (registry, TreeSpec, maps, "
    "key paths, serialization), 2,264 lines",
    "python/gradrs/_native.pyi": "the extension's stub, the counterpart of torch/_C/__init__.pyi "
    "(12,459 lines); its declared-op block is generated by tools/gen_ops.py",
}

# Files still over the limit, each with the split that removes it. The list only shrinks: an
# entry for a file back under the limit (or gone) fails too, so it is deleted when it lands.
TO_SPLIT: dict = {}


def size_problems(root=ROOT, mirrors=None, to_split=None):
    """Python and Rust source files over MAX_LINES lines that no list above names, and entries
    of TO_SPLIT that no longer apply."""
    mirrors = LONG_MIRRORS if mirrors is None else mirrors
    to_split = TO_SPLIT if to_split is None else to_split
    problems, long = [], set()
    files = [p for d, pats in (("python", ("*.py", "*.pyi")), ("src", ("*.rs",)))
             for pat in pats for p in (root / d).rglob(pat)]
    for path in sorted(files):
        rel = path.relative_to(root).as_posix()
        n = len(path.read_text().splitlines())
        if n <= MAX_LINES:
            continue
        long.add(rel)
        if rel not in mirrors and rel not in to_split:
            problems.append(f"{rel} has {n} lines, over {MAX_LINES}: split it into files named "
                            "for the families they hold")
    for rel in sorted(set(to_split) - long):
        problems.append(f"TO_SPLIT lists {rel}, which is no longer over {MAX_LINES} lines: "
                        "delete the entry")
    return problems


def main(argv):
    problems, lines = check(show_graph="--graph" in argv)
    problems += python_problems() + size_problems()
    for line in lines:
        print(line)
    for p in problems:
        print("error:", p)
    known = len(KNOWN)
    print(f"{len(problems)} problem(s); {known} known upward edge(s) left to remove (KNOWN)")
    return 1 if problems else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
