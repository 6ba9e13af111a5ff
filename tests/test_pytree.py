"""`gradrs.utils._pytree` against `torch.utils._pytree`: leaves, TreeSpec reprs, maps,
key paths, serialization, the registry (gradrs's Size and return types as torch's) and errors."""

import collections
import importlib

import pytest
from conftest import G, assert_same_error, norm

P = collections.namedtuple("P", "a b")  # noqa: PYI024 - pytree treats both kinds alike


def _pytree(mod):
    return importlib.import_module(f"{mod.__name__}.utils._pytree")


def _trees():
    return [
        1,
        None,
        [],
        (),
        {},
        [1, (2, 3)],
        {"a": [1, (2, 3)], "b": P(4, {"c": 5}), "g": None},
        collections.OrderedDict(x=1, y=[2]),
        collections.deque([1, 2], maxlen=3),
        collections.defaultdict(list, {1: 2, 3: (4,)}),
        ((((1,),),),),
        {"z": 1, "a": 2},
    ]


@pytest.mark.parametrize("i", range(len(_trees())))
def test_flatten_unflatten_repr(torch, i):
    gp, tp = _pytree(G), _pytree(torch)
    tree = _trees()[i]
    gl, gs = gp.tree_flatten(tree)
    tl, ts = tp.tree_flatten(tree)
    assert gl == tl
    assert repr(gs) == repr(ts)
    assert str(gs) == str(ts)
    assert (gs.num_nodes, gs.num_leaves, gs.num_children) == (ts.num_nodes, ts.num_leaves, ts.num_children)
    assert gs.is_leaf() == ts.is_leaf()
    back = gp.tree_unflatten(gl, gs)
    assert back == tp.tree_unflatten(tl, ts) == tree
    assert type(back) is type(tree)
    assert gp.treespec_pprint(gs) == tp.treespec_pprint(ts)
    assert gp.tree_leaves(tree) == tp.tree_leaves(tree)
    assert hash(gs) == hash(gp.tree_structure(tree))
    assert gs == gp.tree_structure(tree)


def test_maps(torch):
    gp, tp = _pytree(G), _pytree(torch)
    tree = {"x": 7, "y": (42, 64), "z": [1.5, "s"]}
    for p in (gp, tp):
        assert p.tree_map(lambda x: x * 2, tree) == {"x": 14, "y": (84, 128), "z": [3.0, "ss"]}
    assert gp.tree_map(lambda x, y: [x] + y, [5, 6], [[7, 9], [1, 2]]) == tp.tree_map(
        lambda x, y: [x] + y, [5, 6], [[7, 9], [1, 2]]
    )
    assert gp.tree_map_only(int, lambda x: -x, tree) == tp.tree_map_only(int, lambda x: -x, tree)
    assert gp.tree_map_only((int, float), str, tree) == tp.tree_map_only((int, float), str, tree)
    seen_g, seen_t = [], []
    assert gp.tree_map_(seen_g.append, tree) is tree
    tp.tree_map_(seen_t.append, tree)
    assert seen_g == seen_t
    seen_g, seen_t = [], []
    gp.tree_map_only_(str, seen_g.append, tree)
    tp.tree_map_only_(str, seen_t.append, tree)
    assert seen_g == seen_t == ["s"]
    for name in ("tree_all", "tree_any"):
        for pred in (lambda x: isinstance(x, int), lambda x: x is not None):
            assert getattr(gp, name)(pred, tree) == getattr(tp, name)(pred, tree)
    for name in ("tree_all_only", "tree_any_only"):
        for pred in (lambda x: x > 10, lambda x: x > 100):
            assert getattr(gp, name)(int, pred, tree) == getattr(tp, name)(int, pred, tree)
    is_leaf = lambda x: isinstance(x, tuple)  # noqa: E731
    assert gp.tree_leaves(tree, is_leaf=is_leaf) == tp.tree_leaves(tree, is_leaf=is_leaf)
    assert repr(gp.tree_structure(tree, is_leaf=is_leaf)) == repr(tp.tree_structure(tree, is_leaf=is_leaf))


def test_tensors_and_gradrs_containers(torch):
    gp, tp = _pytree(G), _pytree(torch)
    g = G.tensor([[1.0, 3.0], [2.0, 0.0]])
    t = torch.tensor([[1.0, 3.0], [2.0, 0.0]])
    for gv, tv in [
        (g.max(0), t.max(0)),
        (g.sort(1), t.sort(1)),
        (g.shape, t.shape),
        ([g, {"s": g.shape}], [t, {"s": t.shape}]),
    ]:
        gl, gs = gp.tree_flatten(gv)
        tl, ts = tp.tree_flatten(tv)
        assert repr(gs) == repr(ts)
        assert len(gl) == len(tl)
        back_g, back_t = gp.tree_unflatten(gl, gs), tp.tree_unflatten(tl, ts)
        assert type(back_g).__name__ == type(back_t).__name__
        assert norm(repr(back_t)) == repr(back_g)
    assert gp.is_namedtuple(g.max(0)) == tp.is_namedtuple(t.max(0)) is False
    assert gp.is_structseq(g.max(0)) == tp.is_structseq(t.max(0)) is True
    out = gp.tree_map_only(G.Tensor, lambda x: x * 2, {"a": g, "b": 1})
    assert out["b"] == 1 and out["a"].tolist() == [[2.0, 6.0], [4.0, 0.0]]


def test_key_paths(torch):
    gp, tp = _pytree(G), _pytree(torch)
    tree = {"a": [1, P(2, 3)], "b": collections.OrderedDict(k=(4,))}
    gkp, gs = gp.tree_flatten_with_path(tree)
    tkp, ts = tp.tree_flatten_with_path(tree)
    assert repr(gkp) == repr(tkp) and repr(gs) == repr(ts)
    assert [gp.keystr(k) for k, _ in gkp] == [tp.keystr(k) for k, _ in tkp]
    assert [gp.key_get(tree, k) for k, _ in gkp] == [v for _, v in tkp]
    assert repr(gp.tree_leaves_with_path(tree)) == repr(tp.tree_leaves_with_path(tree))
    f = lambda kp, x: (len(kp), x)  # noqa: E731
    assert gp.tree_map_with_path(f, tree) == tp.tree_map_with_path(f, tree)


def test_serialization(torch):
    gp, tp = _pytree(G), _pytree(torch)
    for tree in [[1, (2, {"a": 3})], collections.defaultdict(list, {"x": 1}), collections.OrderedDict(a=1),
                 collections.deque([1]), 5]:
        gd, td = gp.treespec_dumps(gp.tree_structure(tree)), tp.treespec_dumps(tp.tree_structure(tree))
        assert gd == td
        assert gp.treespec_loads(gd) == gp.tree_structure(tree)
    assert gp.treespec_dumps(gp.tree_structure(G.Size([1]))) == tp.treespec_dumps(tp.tree_structure(torch.Size([1])))
    assert_same_error(lambda: gp.treespec_dumps(gp.tree_structure(P(1, 2))),
                      lambda: tp.treespec_dumps(tp.tree_structure(P(1, 2))))
    assert_same_error(lambda: gp.treespec_dumps(gp.tree_structure([1]), protocol=7),
                      lambda: tp.treespec_dumps(tp.tree_structure([1]), protocol=7))


def test_register_pytree_node(torch):
    class Box:
        def __init__(self, items, tag):
            self.items, self.tag = items, tag

    for p in (_pytree(G), _pytree(torch)):
        p.register_pytree_node(
            Box,
            lambda b: (list(b.items), b.tag),
            lambda xs, tag: Box(xs, tag),
            serialized_type_name="test.Box",
        )
    try:
        gp, tp = _pytree(G), _pytree(torch)
        tree = [Box([1, (2, 3)], "t"), 4]
        gl, gs = gp.tree_flatten(tree)
        tl, ts = tp.tree_flatten(tree)
        assert gl == tl and repr(gs) == repr(ts)
        back = gp.tree_unflatten([10, 20, 30, 40], gs)
        assert back[0].items == [10, (20, 30)] and back[0].tag == "t" and back[1] == 40
        assert gp.treespec_dumps(gs) == tp.treespec_dumps(ts)
        assert_same_error(lambda: gp.register_pytree_node(Box, None, None),
                          lambda: tp.register_pytree_node(Box, None, None))
        # flatten_up_to of a custom node with another context
        assert_same_error(lambda: gp.tree_map(lambda a, b: a, tree, [Box([1, (2, 3)], "u"), 4]),
                          lambda: tp.tree_map(lambda a, b: a, tree, [Box([1, (2, 3)], "u"), 4]))
    finally:
        _pytree(G)._deregister_pytree_node(Box)
        _pytree(torch)._deregister_pytree_node(Box)


def test_private_register_alias_warns(torch):
    class Cell:
        def __init__(self, v):
            self.v = v

    for p in (_pytree(G), _pytree(torch)):
        with pytest.warns(FutureWarning, match="_register_pytree_node` is deprecated"):
            p._register_pytree_node(Cell, lambda c: ([c.v], None), lambda xs, _: Cell(xs[0]))
        try:
            assert p.tree_leaves([Cell(3)]) == [3]
        finally:
            p._deregister_pytree_node(Cell)


@pytest.mark.parametrize(
    "case",
    [
        lambda p: p.tree_unflatten([1], p.tree_structure({"a": [1, 2], "b": P(1, 2)})),
        lambda p: p.tree_unflatten([1], [1]),
        lambda p: p.tree_map(lambda a, b: a, [1, 2], (1, 2)),
        lambda p: p.tree_map(lambda a, b: a, [1, 2], [1]),
        lambda p: p.tree_map(lambda a, b: a, {"a": 1, "b": 2}, {"a": 1, "c": 2}),
        lambda p: p.tree_map(lambda a, b: a, P(1, 2), collections.namedtuple("Q", "a b")(1, 2)),  # noqa: PYI024
        lambda p: p.treespec_tuple([1]),
        lambda p: p.treespec_dict(a=1),
        lambda p: p.map_only(3),
    ],
)
def test_errors(torch, case):
    assert_same_error(lambda: case(_pytree(G)), lambda: case(_pytree(torch)))


def test_standard_dicts_interchange(torch):
    gp, tp = _pytree(G), _pytree(torch)
    a = {"x": 1, "y": 2}
    b = collections.OrderedDict(y=20, x=10)
    assert gp.tree_map(lambda u, v: u + v, a, b) == tp.tree_map(lambda u, v: u + v, a, b)
    d = collections.deque([1, 2], maxlen=2)
    assert gp.tree_map(lambda u, v: u + v, d, collections.deque([3, 4])) == tp.tree_map(
        lambda u, v: u + v, d, collections.deque([3, 4])
    )


def test_leafspec(torch):
    from conftest import assert_same_warning

    assert_same_warning(lambda: _pytree(G).LeafSpec(), lambda: _pytree(torch).LeafSpec())
    with pytest.warns(FutureWarning):
        leaf = _pytree(G).LeafSpec()
    assert repr(leaf) == "*" and leaf.is_leaf() and leaf.num_leaves == 1
    assert _pytree(G).tree_structure(1) is _pytree(G).treespec_leaf()
