"""gradrs.viz.draw: the DOT graph of the seed article's backward graph, checked node by node
and edge by edge (and against the graph PyTorch builds for the same program)."""

import re
import shutil
import sys
from collections import Counter

import pytest
from conftest import SELFTEST, G

if SELFTEST:  # a gradrs-only module: PyTorch has no draw
    pytest.skip("gradrs.viz has no PyTorch counterpart", allow_module_level=True)
graphviz = pytest.importorskip("graphviz")
import gradrs.viz as viz  # noqa: E402

NODE = re.compile(r'^\t(\w+) \[label=(?:"(.*?)"|(\S+?))(?: fillcolor=(\w+))?(?: \w+=\w+)*\]$', re.S)
EDGE = re.compile(r"^\t(\w+) -> (\w+)(?: \[(.*)\])?$")


def parse(dot):
    """({id: (label, fillcolor)}, [(src id, dst id, attrs)]) from a Digraph's body."""
    nodes, edges = {}, []
    for line in dot.body:
        line = line.rstrip("\n")
        m = EDGE.match(line)
        if m:
            edges.append((m[1], m[2], m[3] or ""))
            continue
        m = NODE.match(line)
        assert m, f"unexpected DOT line {line!r}"
        nodes[m[1]] = (m[2] if m[2] is not None else m[3], m[4])
    return nodes, edges


def seed_graph(M):
    """The seed article's graph: b=w1*a; c=w2*a; d=w3*b+w4*c; L=10-d."""
    M.manual_seed(0)
    names = ["a", "w1", "w2", "w3", "w4"]
    t = {n: M.randn((3, 3), requires_grad=True) for n in names}
    b = t["w1"] * t["a"]
    c = t["w2"] * t["a"]
    d = t["w3"] * b + t["w4"] * c
    L = 10 - d
    return L, t


def canonical(nodes, edges):
    """Each node named by its label and, recursively, its inputs' names: a form in which two
    drawings of the same graph are equal whatever their node ids."""
    preds = {n: [] for n in nodes}
    for s, d, _ in edges:
        preds[d].append(s)
    memo = {}

    def key(n):
        if n not in memo:
            memo[n] = (nodes[n][0], tuple(sorted(key(p) for p in preds[n])))
        return memo[n]

    return Counter((key(s), key(d)) for s, d, _ in edges)


def torch_edges(out, params):
    """The same (node, edge) lists, read off a PyTorch graph by the attributes draw uses."""
    names = {id(v): k for k, v in params.items()}
    nodes, edges, ids = {}, [], {}

    def nid(x):
        return ids.setdefault(x, f"x{len(ids)}")

    def label(t, name=""):
        return f"{names.get(id(t), name)}\n ({', '.join(str(s) for s in t.shape)})"

    nodes[nid(out)] = (label(out), "darkolivegreen1")
    stack, seen = [out.grad_fn], set()
    edges.append((nid(out.grad_fn), nid(out), ""))
    while stack:
        fn = stack.pop()
        if fn in seen:
            continue
        seen.add(fn)
        nodes[nid(fn)] = (type(fn).__name__, None)
        if hasattr(fn, "variable"):
            nodes[nid(fn.variable)] = (label(fn.variable), "lightblue")
            edges.append((nid(fn.variable), nid(fn), ""))
        for child, _ in fn.next_functions:
            if child is not None:
                edges.append((nid(child), nid(fn), ""))
                stack.append(child)
    return nodes, edges


def test_seed_graph_structure():
    L, t = seed_graph(G)
    dot = viz.draw(L, params=t)
    assert isinstance(dot, graphviz.Digraph)
    nodes, edges = parse(dot)
    labels = Counter(label for label, _ in nodes.values())
    assert labels == Counter({"AccumulateGrad": 5, "MulBackward0": 4, "AddBackward0": 1, "RsubBackward1": 1,
                              "\n (3, 3)": 1, **{f"{n}\n (3, 3)": 1 for n in t}})
    colors = {label: color for label, color in nodes.values()}
    assert colors["\n (3, 3)"] == "darkolivegreen1"
    assert all(colors[f"{n}\n (3, 3)"] == "lightblue" for n in t)
    assert all(colors[k] is None for k in ["MulBackward0", "AddBackward0", "RsubBackward1"])
    by_id = {i: label for i, (label, _) in nodes.items()}
    named = Counter((by_id[s], by_id[d]) for s, d, _ in edges)
    assert named == Counter({
        **{(f"{n}\n (3, 3)", "AccumulateGrad"): 1 for n in t},
        ("AccumulateGrad", "MulBackward0"): 6,  # w1, a | w2, a | w3 | w4
        ("MulBackward0", "MulBackward0"): 2,  # b -> w3*b, c -> w4*c
        ("MulBackward0", "AddBackward0"): 2,
        ("AddBackward0", "RsubBackward1"): 1,
        ("RsubBackward1", "\n (3, 3)"): 1,
    })
    # `a` is used twice but drawn once: its AccumulateGrad feeds both products.
    acc_a = next(d for s, d, _ in edges if by_id[s] == "a\n (3, 3)")
    assert sum(1 for s, _, _ in edges if s == acc_a) == 2
    assert len(edges) == 17 and len(nodes) == 17


def test_seed_graph_matches_torch(torch):
    L, t = seed_graph(G)
    Lt, tt = seed_graph(torch)
    assert canonical(*parse(viz.draw(L, params=t))) == canonical(*torch_edges(Lt, tt))


def test_mlp_graph_matches_torch(torch):
    """A model's parameters named through named_parameters(), several outputs."""
    def build(M):
        M.manual_seed(0)
        model = M.nn.Sequential(M.nn.Linear(3, 4), M.nn.Tanh(), M.nn.Linear(4, 2))
        x = M.randn(5, 3)
        out = model(x)
        return out.pow(2).mean(), dict(model.named_parameters())

    (yg, pg), (yt, pt) = build(G), build(torch)
    assert canonical(*parse(viz.draw(yg, params=pg))) == canonical(*torch_edges(yt, pt))
    nodes, _ = parse(viz.draw(yg, params=pg))
    assert {label for label, _ in nodes.values()} >= {"0.weight\n (4, 3)", "2.bias\n (2)", "AddmmBackward0"}


def test_several_outputs_and_views():
    w = G.randn(2, 3, requires_grad=True)
    y = w * 2
    v = y[0]
    dot = viz.draw((v, y.sum()), params={"w": w})
    nodes, edges = parse(dot)
    by_id = {i: label for i, (label, _) in nodes.items()}
    # The view is green, its base (the product) dark green and joined by a dotted edge.
    green = [label for label, color in nodes.values() if color == "darkolivegreen1"]
    assert sorted(green) == ["\n ()", "\n (3)"]
    base = [i for i, (_, color) in nodes.items() if color == "darkolivegreen3"]
    assert len(base) == 1 and by_id[base[0]] == "\n (2, 3)"
    assert any(s == base[0] and "dotted" in a for s, _, a in edges)
    # MulBackward0 is drawn once though both outputs reach it.
    assert sum(1 for label in by_id.values() if label == "MulBackward0") == 1


def test_show_saved(torch):
    a = G.randn(3, requires_grad=True)
    b = G.randn(3, requires_grad=True)
    node = (a * b).grad_fn
    if not hasattr(node, "_saved_self"):
        pytest.skip("gradrs nodes do not expose _saved_<name> attributes yet")
    nodes, edges = parse(viz.draw(a * b, show_saved=True))
    saved = sorted(label for label, color in nodes.values() if color == "orange")
    assert saved == ["other\n (3)", "self\n (3)"]
    assert sum(1 for *_, attrs in edges if "dir=none" in attrs) == 2


def test_leaf_without_history():
    x = G.ones(2, requires_grad=True)
    nodes, edges = parse(viz.draw(x, params={"x": x}))
    assert list(nodes.values()) == [("x\n (2)", "darkolivegreen1")] and edges == []


def test_errors(monkeypatch):
    with pytest.raises(TypeError, match="expected a Tensor"):
        viz.draw([G.ones(1), 3])
    monkeypatch.setitem(sys.modules, "graphviz", None)
    with pytest.raises(ImportError, match="pip install graphviz"):
        viz.draw(G.ones(1))


@pytest.mark.skipif(shutil.which("dot") is None, reason="Graphviz's dot program is not installed")
def test_renders_png():
    L, t = seed_graph(G)
    png = viz.draw(L, params=t).pipe(format="png")
    assert png[:8] == b"\x89PNG\r\n\x1a\n" and len(png) > 1000
