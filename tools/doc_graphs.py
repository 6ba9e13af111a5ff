"""Draws the backward-graph pictures of the documentation (docs/*.png) with gradrs.viz.draw.

    python tools/doc_graphs.py          # rewrites docs/seed_graph.png and docs/graph_*.png

Needs the graphviz Python package and Graphviz's `dot` (the test extra and CI have both).
The pictures are committed: the docs build does not run this.
"""

import os
import sys

import gradrs
import gradrs.nn as nn
from gradrs.viz import draw

DOCS = os.path.join(os.path.dirname(os.path.dirname(os.path.abspath(__file__))), "docs")


def seed_graph():
    """The seed article's graph: b = w1*a; c = w2*a; d = w3*b + w4*c; L = 10 - d."""
    a, w1, w2, w3, w4 = (gradrs.randn(3, 3, requires_grad=True) for _ in range(5))
    b = w1 * a
    c = w2 * a
    d = w3 * b + w4 * c
    L = 10 - d
    return draw(L, params=dict(a=a, w1=w1, w2=w2, w3=w3, w4=w4))


def mul_graph():
    """The smallest graph: z = x * y with only x requiring grad."""
    x = gradrs.tensor(1.0, requires_grad=True)
    y = gradrs.tensor(2.0)
    return draw(x * y, params=dict(x=x))


def saved_graph():
    """What backward keeps: y = exp(x) * w saves x's exp (its result) and both factors."""
    x = gradrs.randn(3, requires_grad=True)
    w = gradrs.randn(3, requires_grad=True)
    y = (x.exp() * w).sum()
    return draw(y, params=dict(x=x, w=w), show_saved=True)


def mlp_graph():
    """A two-layer perceptron's loss, parameters named from named_parameters()."""
    gradrs.manual_seed(0)
    model = nn.Sequential(nn.Linear(4, 8), nn.ReLU(), nn.Linear(8, 2))
    x = gradrs.randn(16, 4)
    target = gradrs.randint(0, 2, (16,))
    loss = nn.functional.cross_entropy(model(x), target)
    return draw(loss, params=dict(model.named_parameters()))


PICTURES = {"seed_graph": seed_graph, "graph_mul": mul_graph, "graph_saved": saved_graph,
            "graph_mlp": mlp_graph}


def main():
    for name, make in PICTURES.items():
        gradrs.manual_seed(0)
        path = make().render(os.path.join(DOCS, name), format="png", cleanup=True)
        print(path)
    return 0


if __name__ == "__main__":
    sys.exit(main())
