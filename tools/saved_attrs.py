"""Compare every op-table node's `_saved_<name>` attributes with PyTorch's: which node names
show the same names and values (`match`), and which differ (`differ`, with the first
difference). Needs torch. Usage: `python tools/saved_attrs.py [--list]`; it prints the counts
(`tests/test_graph_attrs.py` asserts the same comparison node by node)."""

import argparse
import os
import sys


sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "tests"))

import gradrs  # noqa: E402
from op_table import OPS, as_outputs, make_args  # noqa: E402
from saved_values import difference, same_named_nodes  # noqa: E402


def compare(torch):
    """{node name: first difference or None} over every op-table sample that needs grad."""
    result = {}
    for op in OPS:
        for s in op.samples:
            if not s.needs_grad:
                continue
            try:
                _, ta = make_args(torch, s)
                t_outs = as_outputs(op.fn(torch, *ta, **s.kwargs))
                _, ga = make_args(gradrs, s)
                g_outs = as_outputs(op.fn(gradrs, *ga, **s.kwargs))
            except Exception:  # noqa: BLE001 - samples either library rejects: nothing to compare
                continue
            for name, gf, tf in same_named_nodes(g_outs, t_outs):
                diff = difference(gf, tf)
                if result.get(name) is None:
                    result[name] = diff
    return result


def main():
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--list", action="store_true", help="name each differing node")
    args = parser.parse_args()
    import torch

    result = compare(torch)
    differ = sorted(n for n, d in result.items() if d is not None)
    print(f"nodes compared: {len(result)}, match: {len(result) - len(differ)}, "
          f"differ: {len(differ)}")
    if args.list:
        for n in differ:
            print(f"  {n}: {result[n]}")


if __name__ == "__main__":
    main()
