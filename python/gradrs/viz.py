"""`gradrs.viz.draw`: a Graphviz picture of a backward graph, as torchviz's `make_dot` draws it.

Only the attributes third-party graph tools read are used (`grad_fn`, `next_functions`,
`AccumulateGrad.variable`, `_saved_*`, a Function's `saved_tensors`, `_base`), so the picture
is of the same graph PyTorch's tools would see. The `graphviz` Python package is optional
(`pip install gradrs[viz]`); rendering to PNG/SVG also needs Graphviz's `dot` program.
"""

from . import _native

__all__ = ["draw"]

# Backward nodes keep torchviz's default fill (light grey); tensors are coloured by role.
_OUTPUT = "darkolivegreen1"
_VIEW_BASE = "darkolivegreen3"
_LEAF = "lightblue"
_SAVED = "orange"
_SAVED_PREFIX = "_saved_"


def _graphviz():
    try:
        import graphviz
    except ImportError as e:
        raise ImportError(
            "gradrs.viz.draw needs the graphviz Python package: pip install graphviz "
            "(or pip install 'gradrs[viz]'); rendering images also needs Graphviz's `dot` "
            "program (e.g. apt-get install graphviz)"
        ) from e
    return graphviz


def _size(t):
    return "(" + ", ".join(str(int(v)) for v in t.size()) + ")"


def _alias_key(t):
    return (t.data_ptr(), tuple(t.shape), t.stride(), str(t.dtype), str(t.device))


def draw(tensor_or_tensors, params=None, show_saved=False):
    """A `graphviz.Digraph` of the backward graph that produced `tensor_or_tensors`.

    Tensors are boxes labelled with their name (from `params`, a dict name -> tensor such as
    `dict(model.named_parameters())`) and shape: the given outputs green, the leaves whose
    `.grad` backward fills blue, saved tensors orange (`show_saved=True` shows those saved by
    built-in nodes, `_saved_self` & co.; a custom Function's `saved_tensors` always show).
    Backward nodes are grey boxes named like `MulBackward0`; edges follow the forward data
    flow, from each node's inputs (`next_functions`) to it.
    """
    graphviz = _graphviz()
    if params is not None:
        if not all(isinstance(p, _native.Tensor) for p in params.values()):
            raise TypeError("draw: params must map names to Tensors")
        param_map = {id(v): k for k, v in params.items()}
        # `AccumulateGrad.variable` gives a Parameter back as a plain Tensor object over the
        # same memory (PyTorch gives the Parameter itself), so leaves are also matched by
        # what they are: storage address, shape, strides, dtype and device.
        param_map.update({("same", _alias_key(v)): k for k, v in params.items()})
    else:
        param_map = {}

    node_attr = dict(style="filled", shape="box", align="left", fontsize="10", ranksep="0.1",
                     height="0.2", fontname="monospace")
    dot = graphviz.Digraph(node_attr=node_attr, graph_attr=dict(size="12,12"))

    # Graph nodes are fresh Python objects on each access but compare and hash by the node
    # they stand for, so they key a dict; tensors are keyed by identity and kept alive here
    # so that no id is reused while drawing.
    ids = {}
    kept = []

    def node_id(fn):
        if fn not in ids:
            ids[fn] = f"n{len(ids)}"
        return ids[fn]

    def tensor_id(t):
        key = ("tensor", id(t))
        if key not in ids:
            ids[key] = f"t{len(ids)}"
            kept.append(t)
        return ids[key]

    seen_tensors = set()

    def tensor_node(t, color, name=None):
        tid = tensor_id(t)
        if tid not in seen_tensors:
            seen_tensors.add(tid)
            label = name if name else param_map.get(id(t), param_map.get(("same", _alias_key(t)), ""))
            dot.node(tid, f"{label}\n {_size(t)}", fillcolor=color)
        return tid

    seen_fns = set()

    def add_nodes(root):
        # Iterative depth-first walk: deep graphs (long training loops) must not recurse.
        stack = [root]
        while stack:
            fn = stack.pop()
            if fn in seen_fns:
                continue
            seen_fns.add(fn)
            fid = node_id(fn)
            if show_saved:
                for attr in dir(fn):
                    if not attr.startswith(_SAVED_PREFIX):
                        continue
                    val = getattr(fn, attr)
                    name = attr[len(_SAVED_PREFIX):]
                    vals = [(name, val)] if isinstance(val, _native.Tensor) else (
                        [(f"{name}[{i}]", v) for i, v in enumerate(val)] if isinstance(val, tuple) else [])
                    for label, v in vals:
                        if isinstance(v, _native.Tensor):
                            dot.edge(fid, tensor_node(v, _SAVED, label), dir="none")
            variable = getattr(fn, "variable", None)
            if isinstance(variable, _native.Tensor):
                dot.edge(tensor_node(variable, _LEAF), fid)
            dot.node(fid, type(fn).__name__)
            children = []
            for child, _ in getattr(fn, "next_functions", ()):
                if child is not None:
                    dot.edge(node_id(child), fid)
                    children.append(child)
            # A custom Function's saved tensors (gone once its graph is freed).
            try:
                saved = getattr(fn, "saved_tensors", ())
            except RuntimeError:
                saved = ()
            for t in saved or ():
                if isinstance(t, _native.Tensor):
                    dot.edge(tensor_node(t, _SAVED), fid, dir="none")
            stack.extend(reversed(children))

    def add_tensor(t, color):
        """`t` and the history that produced it (a view's base too, joined by a dotted edge)."""
        if tensor_id(t) in seen_tensors:
            return
        tid = tensor_node(t, color)
        if t.grad_fn is not None:
            add_nodes(t.grad_fn)
            dot.edge(node_id(t.grad_fn), tid)
        if t._is_view():
            add_tensor(t._base, _VIEW_BASE)  # a base is never a view: one level deep
            dot.edge(tensor_id(t._base), tid, style="dotted")

    outputs = tensor_or_tensors if isinstance(tensor_or_tensors, (tuple, list)) else (tensor_or_tensors,)
    for t in outputs:
        if not isinstance(t, _native.Tensor):
            raise TypeError(f"draw: expected a Tensor or a tuple of Tensors, got {type(t).__name__}")
        add_tensor(t, _OUTPUT)

    # Scale the drawing with its content, as torchviz's resize_graph does.
    size = max(12, len(dot.body) * 0.15)
    dot.graph_attr.update(size=f"{size},{size}")
    return dot
