"""tools/api_coverage.py: which of PyTorch's public names gradrs lacks, group by group (issue 24).

    python tools/api_coverage.py                 # one line per group: have / total (percent)
    python tools/api_coverage.py --missing       # and the names gradrs lacks
    python tools/api_coverage.py --group nn.functional --missing
    python tools/api_coverage.py --fail-under 95 # exit status 1 when a group is below 95 %
    python tools/api_coverage.py --write-names tools/torch_api_names.json

PyTorch's names come from an installed `torch` when there is one, else from the snapshot file
`tools/torch_api_names.json` (written with --write-names), so the tool runs with the standard
library and gradrs alone. A name counts as present when gradrs has an attribute of that name in
the matching module (for Tensor: on `gradrs.Tensor`); whether it behaves as PyTorch's is the
tests' business. The EXCLUDED table below lists, with a reason each, the only names left out.
"""

from __future__ import annotations

import argparse
import importlib
import inspect
import json
import os
import re
import sys

SNAPSHOT = os.path.join(os.path.dirname(os.path.abspath(__file__)), "torch_api_names.json")

# group name -> the torch module it lists ("torch.Tensor" lists the Tensor class's methods).
GROUPS = [
    ("torch", "torch"),
    ("Tensor", "torch.Tensor"),
    ("linalg", "torch.linalg"),
    ("special", "torch.special"),
    ("nn.functional", "torch.nn.functional"),
    ("nn", "torch.nn"),
    ("nn.init", "torch.nn.init"),
    ("nn.parameter", "torch.nn.parameter"),
    ("nn.utils", "torch.nn.utils"),
    ("nn.utils.rnn", "torch.nn.utils.rnn"),
    ("nn.utils.parametrize", "torch.nn.utils.parametrize"),
    ("nn.utils.parametrizations", "torch.nn.utils.parametrizations"),
    ("nn.utils.prune", "torch.nn.utils.prune"),
    ("nn.utils.fusion", "torch.nn.utils.fusion"),
    ("optim", "torch.optim"),
    ("optim.lr_scheduler", "torch.optim.lr_scheduler"),
    ("utils.data", "torch.utils.data"),
]

# Names left out of the count: only these categories (issue 24), each a regular expression
# matched against the whole name, in every group unless the entry names one.
EXCLUDED = [
    # -- sparse (and nested / jagged) layouts --
    ("sparse layouts", None, r".*sparse.*|.*coalesce.*|to_dense|crow_indices|col_indices|"
                             r"ccol_indices|row_indices|dense_dim|values|indices|sspaddmm|smm|"
                             r"hspmm|saddmm|spmm|dsmm|hsmm|.*nested.*|to_padded_tensor|"
                             r"is_sparse_csr|segment_reduce|_?nnz|.*indices_copy|values_copy"),
    # SparseAdam refuses dense gradients ("SparseAdam does not support dense gradients, please
    # consider Adam instead"): it only runs on the sparse gradients gradrs does not have.
    ("sparse layouts", "optim", r"SparseAdam"),
    # -- quantization --
    ("quantization", None, r".*quantiz.*|q_.*|qscheme|int_repr|.*fbgemm.*|.*per_channel.*|"
                           r"choose_qparams.*|Q(U)?Int.*|.*qint.*|.*quint.*|.*fake_quant.*"),
    # float8 scaled matmuls and their scaling enums: quantized compute with per-tensor/row scales
    ("quantization", "nn.functional", r"scaled_mm|scaled_grouped_mm|ScalingType|SwizzleType"),
    # -- complex-only (gradrs has no complex dtypes) --
    ("complex-only", None, r"complex|view_as_complex(_copy)?|view_as_real(_copy)?|polar|conj|"
                           r"conj_physical_?|resolve_conj|resolve_neg|is_conj|is_neg|real|imag|"
                           r"cfloat|cdouble|chalf"),
    # linalg.eig / eigvals return complex eigenvalues and eigenvectors for every input (a real
    # non-symmetric matrix has complex ones); the symmetric forms eigh / eigvalsh are counted.
    ("complex-only", "linalg", r"eig|eigvals"),
    # -- named tensors --
    ("named tensors", None, r"refine_names|rename_?|align_to|align_as|names|has_names"),
    # -- device kinds gradrs does not have (and their vendor libraries' entry points) --
    ("other devices", None, r"(.*_)?(xpu|mps|ipu|hpu|mtia|maia|xla|vulkan|mkldnn|miopen|cudnn|"
                            r"nnpack|onednn|privateuse1|fpga|hip|ort|meta)(_.*)?"),
    # -- storage internals --
    ("storage internals", None, r"(.*_)?(typed_|untyped_)?storage(_type)?|set_|is_shared|"
                                r"from_file"),
    # -- removed or deprecated (PyTorch warns or documents a replacement) --
    ("deprecated", "torch", r"chain_matmul|lu|set_default_tensor_type|lstsq|solve|symeig|eig|"
                            r"matrix_rank|qr|cholesky|triangular_solve|range"),
    ("deprecated", "nn.functional", r"upsample|upsample_nearest|upsample_bilinear|sigmoid|tanh"),
    ("deprecated", "nn", r"NLLLoss2d"),
    ("deprecated", "Tensor", r"resize|lu|qr|cholesky|triangular_solve"),
    # DataPipes: deprecated with TorchData's DataPipes (torchdata 0.8 dropped them); torch keeps
    # the frozen base classes and decorators only for older torchdata releases.
    ("deprecated", "utils.data", r"IterDataPipe|MapDataPipe|DFIterDataPipe|DataChunk|"
                                 r"functional_datapipe|runtime_validation(_disabled)?|"
                                 r"guaranteed_datapipes_determinism|non_deterministic|"
                                 r"argument_validation"),
]

# Objects re-exported into a module from elsewhere, which are not that module's API: typing and
# standard-library helpers, PyTorch's dispatch machinery.
_FOREIGN_MODULES = re.compile(
    r"(typing|typing_extensions|collections(\..*)?|abc|enum|dataclasses|contextlib|copy|"
    r"functools|itertools|math|numbers|warnings|numpy(\..*)?|torch\.overrides|"
    r"torch\._jit_internal|torch\.utils\._.*|torch\._C\._?functions.*)$")


def _public(module_name):
    """PyTorch's public callable names (functions and classes) of one group."""
    torch = importlib.import_module("torch")
    if module_name == "torch.Tensor":
        return sorted(n for n in dir(torch.Tensor)
                      if not n.startswith("_") and callable(getattr(torch.Tensor, n, None)))
    mod = importlib.import_module(module_name)
    names = getattr(mod, "__all__", None)
    if names is None:
        names = [n for n in dir(mod) if not n.startswith("_")]
    out = []
    for n in names:
        obj = getattr(mod, n, None)
        if obj is None or inspect.ismodule(obj) or not callable(obj):
            continue
        if isinstance(obj, torch.dtype):
            continue
        if module_name == "torch" and inspect.isclass(obj):
            continue  # the group is torch's top-level functions
        origin = getattr(obj, "__module__", None) or ""
        if _FOREIGN_MODULES.match(origin):
            continue
        if module_name != "torch" and (obj is torch.Tensor or origin in ("builtins", "torch._C")):
            continue  # torch's own types and dispatch helpers imported into the module
        out.append(n)
    return sorted(set(out))


def torch_names():
    """{group: [names]} from torch, or from the snapshot without it."""
    try:
        import torch
    except ImportError:
        with open(SNAPSHOT) as f:
            data = json.load(f)
        return data["groups"], f"snapshot of torch {data['torch_version']}"
    return {g: _public(m) for g, m in GROUPS}, f"torch {torch.__version__}"


def excluded(group, name):
    """The category excluding ``name`` from ``group``, or None."""
    for reason, only, pattern in EXCLUDED:
        if (only is None or only == group) and re.fullmatch(pattern, name):
            return reason
    return None


def _gradrs_target(module_name):
    gname = "gradrs" + module_name[len("torch"):]
    if gname == "gradrs.Tensor":
        import gradrs

        return gradrs.Tensor
    try:
        return importlib.import_module(gname)
    except ImportError:
        return None


def coverage(groups):
    """{group: (present names, missing names, excluded names)}."""
    res = {}
    for group, module_name in GROUPS:
        names = groups.get(group, [])
        target = _gradrs_target(module_name)
        have, missing, skipped = [], [], []
        for n in names:
            if excluded(group, n):
                skipped.append(n)
            elif target is not None and hasattr(target, n):
                have.append(n)
            else:
                missing.append(n)
        res[group] = (have, missing, skipped)
    return res


def main(argv=None):
    p = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    p.add_argument("--group", help="only this group")
    p.add_argument("--missing", action="store_true", help="list the missing names")
    p.add_argument("--excluded", action="store_true", help="list the excluded names")
    p.add_argument("--fail-under", type=float, default=None,
                   help="exit with status 1 when a group's coverage is below this percentage")
    p.add_argument("--write-names", metavar="FILE", help="write torch's names (needs torch)")
    args = p.parse_args(argv)

    if args.write_names:
        import torch

        data = {"torch_version": torch.__version__.split("+")[0],
                "groups": {g: _public(m) for g, m in GROUPS}}
        with open(args.write_names, "w") as f:
            json.dump(data, f, indent=0, sort_keys=True)
            f.write("\n")
        print(f"wrote {args.write_names}")
        return 0

    groups, source = torch_names()
    res = coverage(groups)
    print(f"gradrs vs {source}: present / counted (excluded)")
    failed = False
    for group, _ in GROUPS:
        if args.group and group != args.group:
            continue
        have, missing, skipped = res[group]
        total = len(have) + len(missing)
        pct = 100.0 * len(have) / total if total else 100.0
        print(f"  {group:28s} {len(have):4d} / {total:4d}  {pct:5.1f} %   ({len(skipped)} excluded)")
        if args.missing and missing:
            print("      missing: " + ", ".join(missing))
        if args.excluded and skipped:
            print("      excluded: " + ", ".join(f"{n} [{excluded(group, n)}]" for n in skipped))
        if args.fail_under is not None and pct < args.fail_under:
            failed = True
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
