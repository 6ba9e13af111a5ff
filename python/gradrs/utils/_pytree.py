"""`gradrs.utils._pytree`: PyTorch's Python pytree utilities (`torch.utils._pytree`).

A pytree is a nest of registered containers (tuple, list, dict, namedtuple, OrderedDict,
defaultdict, deque, `gradrs.Size`, the `gradrs.return_types` tuples, and whatever
`register_pytree_node` adds); everything else is a leaf. `tree_flatten` gives the leaves in
order and a `TreeSpec` describing the containers, printed as PyTorch prints it:

>>> from gradrs.utils._pytree import tree_flatten, tree_unflatten
>>> leaves, spec = tree_flatten({"a": [1, 2], "b": (3,)})
>>> leaves
[1, 2, 3]
>>> spec
TreeSpec(dict, ['a', 'b'], [TreeSpec(list, None, [*,
    *]),
  TreeSpec(tuple, None, [*])])
>>> tree_unflatten([10, 20, 30], spec)
{'a': [10, 20], 'b': (30,)}
"""

import dataclasses
import functools
import importlib
import json
import threading
import types
import warnings
from collections import OrderedDict, defaultdict, deque, namedtuple
from enum import Enum
from typing import Any, Callable, NamedTuple

from .._size import Size
from .. import return_types as _return_types

__all__ = [
    "PyTree",
    "Context",
    "FlattenFn",
    "UnflattenFn",
    "DumpableContext",
    "ToDumpableContextFn",
    "FromDumpableContextFn",
    "PyTreeSpec",
    "TreeSpec",
    "LeafSpec",
    "keystr",
    "key_get",
    "register_pytree_node",
    "tree_is_leaf",
    "tree_flatten",
    "tree_flatten_with_path",
    "tree_unflatten",
    "tree_iter",
    "tree_leaves",
    "tree_leaves_with_path",
    "tree_structure",
    "tree_map",
    "tree_map_with_path",
    "tree_map_",
    "tree_map_only",
    "tree_map_only_",
    "tree_all",
    "tree_any",
    "tree_all_only",
    "tree_any_only",
    "treespec_dumps",
    "treespec_loads",
    "treespec_pprint",
    "is_namedtuple",
    "is_namedtuple_class",
    "is_namedtuple_instance",
    "is_structseq",
    "is_structseq_class",
    "is_structseq_instance",
]

PyTree = Any
Context = Any
DumpableContext = Any
FlattenFn = Callable[[PyTree], "tuple[list[Any], Context]"]
UnflattenFn = Callable[[Any, Context], PyTree]
ToDumpableContextFn = Callable[[Context], DumpableContext]
FromDumpableContextFn = Callable[[DumpableContext], Context]
KeyPath = tuple
FlattenWithKeysFn = Callable[[PyTree], "tuple[list[tuple[Any, Any]], Any]"]

DEFAULT_TREESPEC_SERIALIZATION_PROTOCOL = 1
NO_SERIALIZED_TYPE_NAME_FOUND = "NO_SERIALIZED_TYPE_NAME_FOUND"


class NodeDef(NamedTuple):
    """How one registered container type flattens and unflattens."""

    type: type
    flatten_fn: Any
    unflatten_fn: Any
    flatten_with_keys_fn: Any


class _SerializeNodeDef(NamedTuple):
    typ: type
    serialized_type_name: str
    to_dumpable_context: Any
    from_dumpable_context: Any


_NODE_REGISTRY_LOCK = threading.RLock()
SUPPORTED_NODES: dict = {}
SUPPORTED_SERIALIZED_TYPES: dict = {}
SERIALIZED_TYPE_TO_PYTHON_TYPE: dict = {}
# The `gradrs.return_types` classes: namedtuples in gradrs, PyTorch's structseqs, so they are
# nodes of their own type (PyTorch's `TreeSpec(max, None, ...)`), not `namedtuple` nodes.
_STRUCTSEQ_TYPES: set = set()


def register_pytree_node(
    cls,
    flatten_fn,
    unflatten_fn,
    *,
    serialized_type_name=None,
    to_dumpable_context=None,
    from_dumpable_context=None,
    flatten_with_keys_fn=None,
):
    """Register a container type as a pytree node.

    `flatten_fn(node)` returns `(children, context)`, `unflatten_fn(children, context)` the
    node back; a type registered twice is refused with PyTorch's ValueError.

    >>> from gradrs.utils._pytree import register_pytree_node, tree_leaves
    >>> class Pair:
    ...     def __init__(self, a, b):
    ...         self.a, self.b = a, b
    >>> register_pytree_node(Pair, lambda p: ([p.a, p.b], None), lambda xs, _: Pair(*xs))
    >>> tree_leaves([Pair(1, (2, 3))])
    [1, 2, 3]
    """
    with _NODE_REGISTRY_LOCK:
        if cls in SUPPORTED_NODES:
            raise ValueError(f"{cls} is already registered as pytree node.")
    _private_register_pytree_node(
        cls,
        flatten_fn,
        unflatten_fn,
        serialized_type_name=serialized_type_name,
        to_dumpable_context=to_dumpable_context,
        from_dumpable_context=from_dumpable_context,
        flatten_with_keys_fn=flatten_with_keys_fn,
    )


def _register_pytree_node(
    cls,
    flatten_fn,
    unflatten_fn,
    to_str_fn=None,
    maybe_from_str_fn=None,
    *,
    serialized_type_name=None,
    to_dumpable_context=None,
    from_dumpable_context=None,
    flatten_with_keys_fn=None,
):
    """Deprecated alias of `register_pytree_node` (re-registering warns instead of raising)."""
    warnings.warn(
        "`torch.utils._pytree._register_pytree_node` is deprecated. "
        "Please use `torch.utils._pytree.register_pytree_node` instead.",
        FutureWarning,
        stacklevel=2,
    )
    if to_str_fn is not None or maybe_from_str_fn is not None:
        warnings.warn(
            "`to_str_fn` and `maybe_from_str_fn` is deprecated. "
            "Please use `to_dumpable_context` and `from_dumpable_context` instead.",
            FutureWarning,
            stacklevel=2,
        )
    _private_register_pytree_node(
        cls,
        flatten_fn,
        unflatten_fn,
        serialized_type_name=serialized_type_name,
        to_dumpable_context=to_dumpable_context,
        from_dumpable_context=from_dumpable_context,
        flatten_with_keys_fn=flatten_with_keys_fn,
    )


def _deregister_pytree_node(cls):
    with _NODE_REGISTRY_LOCK:
        del SUPPORTED_NODES[cls]
        node_def = SUPPORTED_SERIALIZED_TYPES.pop(cls)
        del SERIALIZED_TYPE_TO_PYTHON_TYPE[node_def.serialized_type_name]


def _private_register_pytree_node(
    cls,
    flatten_fn,
    unflatten_fn,
    *,
    serialized_type_name=None,
    to_dumpable_context=None,
    from_dumpable_context=None,
    flatten_with_keys_fn=None,
):
    with _NODE_REGISTRY_LOCK:
        if cls in SUPPORTED_NODES:
            warnings.warn(
                f"{cls} is already registered as pytree node. Overwriting the previous registration.",
                stacklevel=2,
            )
        SUPPORTED_NODES[cls] = NodeDef(cls, flatten_fn, unflatten_fn, flatten_with_keys_fn)
        if (to_dumpable_context is None) ^ (from_dumpable_context is None):
            raise ValueError(
                f"Both to_dumpable_context and from_dumpable_context for {cls} must be None or registered."
            )
        if serialized_type_name is None:
            serialized_type_name = NO_SERIALIZED_TYPE_NAME_FOUND
        SUPPORTED_SERIALIZED_TYPES[cls] = _SerializeNodeDef(
            cls, serialized_type_name, to_dumpable_context, from_dumpable_context
        )
        SERIALIZED_TYPE_TO_PYTHON_TYPE[serialized_type_name] = cls


def _register_namedtuple(cls, *, serialized_type_name):
    """Make a namedtuple class's TreeSpecs serializable under `serialized_type_name`."""
    _private_register_pytree_node(
        cls,
        _namedtuple_flatten,
        _namedtuple_unflatten,
        serialized_type_name=serialized_type_name,
        to_dumpable_context=_namedtuple_serialize,
        from_dumpable_context=_namedtuple_deserialize,
        flatten_with_keys_fn=_namedtuple_flatten_with_keys,
    )


# ---- key paths -------------------------------------------------------------------------


class _SubscriptKey:
    """What `SequenceKey` and `MappingKey` share: a key whose one field subscripts the
    container (`container[field]`), printed as `[field!r]`."""

    __slots__ = ()

    def __str__(self):
        return f"[{getattr(self, dataclasses.fields(self)[0].name)!r}]"


@dataclasses.dataclass(frozen=True)
class SequenceKey(_SubscriptKey):
    """The key of a sequence's child: its index.

    >>> from gradrs.utils._pytree import SequenceKey
    >>> str(SequenceKey(1)), SequenceKey(1).get("abc")
    ('[1]', 'b')
    """

    idx: int

    def get(self, sequence):
        """The child of `sequence` this key names."""
        return sequence[self.idx]


@dataclasses.dataclass(frozen=True)
class MappingKey(_SubscriptKey):
    """The key of a mapping's child.

    >>> from gradrs.utils._pytree import MappingKey
    >>> str(MappingKey("a")), MappingKey("a").get({"a": 1})
    ("['a']", 1)
    """

    key: Any

    def get(self, mapping):
        """The child of `mapping` this key names."""
        return mapping[self.key]


@dataclasses.dataclass(frozen=True)
class GetAttrKey:
    """The key of an attribute child (a namedtuple's field).

    >>> from gradrs.utils._pytree import GetAttrKey
    >>> str(GetAttrKey("real")), GetAttrKey("real").get(3)
    ('.real', 3)
    """

    name: str

    def __str__(self):
        return f".{self.name}"

    def get(self, obj):
        """The attribute of `obj` this key names."""
        return getattr(obj, self.name)


def keystr(kp):
    """A key path as a string.

    >>> from gradrs.utils._pytree import GetAttrKey, MappingKey, SequenceKey, keystr
    >>> keystr((MappingKey("a"), SequenceKey(0), GetAttrKey("x")))
    "['a'][0].x"
    """
    return "".join(str(k) for k in kp)


def key_get(obj, kp):
    """The part of `obj` a key path names.

    >>> from gradrs.utils._pytree import MappingKey, SequenceKey, key_get
    >>> key_get({"a": [5, 6]}, (MappingKey("a"), SequenceKey(1)))
    6
    """
    for k in kp:
        obj = k.get(obj)
    return obj


# ---- namedtuples and structseqs --------------------------------------------------------


def is_namedtuple_class(cls):
    """Whether `cls` is a namedtuple class.

    >>> from collections import namedtuple
    >>> from gradrs.utils._pytree import is_namedtuple_class
    >>> is_namedtuple_class(namedtuple("P", "x y")), is_namedtuple_class(tuple)
    (True, False)
    """
    return (
        isinstance(cls, type)
        and issubclass(cls, tuple)
        and cls not in _STRUCTSEQ_TYPES
        and isinstance(getattr(cls, "_fields", None), tuple)
        and all(type(f) is str for f in cls._fields)
        and callable(getattr(cls, "_make", None))
        and callable(getattr(cls, "_asdict", None))
    )


def is_namedtuple(obj):
    """Whether `obj` is a namedtuple instance or class.

    >>> from collections import namedtuple
    >>> from gradrs.utils._pytree import is_namedtuple
    >>> is_namedtuple(namedtuple("P", "x")(1)), is_namedtuple((1,))
    (True, False)
    """
    return is_namedtuple_class(obj if isinstance(obj, type) else type(obj))


def is_namedtuple_instance(obj):
    """Whether `obj` is a namedtuple instance.

    >>> from collections import namedtuple
    >>> from gradrs.utils._pytree import is_namedtuple_instance
    >>> is_namedtuple_instance(namedtuple("P", "x")(1))
    True
    """
    return is_namedtuple_class(type(obj))


def is_structseq_class(cls):
    """Whether `cls` is a struct sequence class (`os.stat_result`, `gradrs.return_types.max`).

    >>> from gradrs.utils._pytree import is_structseq_class
    >>> import os
    >>> is_structseq_class(os.stat_result), is_structseq_class(tuple)
    (True, False)
    """
    if cls in _STRUCTSEQ_TYPES:
        return True
    return (
        isinstance(cls, type)
        and cls.__bases__ == (tuple,)
        and isinstance(getattr(cls, "n_fields", None), int)
        and isinstance(getattr(cls, "n_sequence_fields", None), int)
        and isinstance(getattr(cls, "n_unnamed_fields", None), int)
        and not bool(cls.__flags__ & (1 << 10))
    )


def is_structseq(obj):
    """Whether `obj` is a struct sequence instance or class.

    >>> from gradrs.utils._pytree import is_structseq
    >>> import time
    >>> is_structseq(time.gmtime(0))
    True
    """
    return is_structseq_class(obj if isinstance(obj, type) else type(obj))


def is_structseq_instance(obj):
    """Whether `obj` is a struct sequence instance.

    >>> from gradrs.utils._pytree import is_structseq_instance
    >>> import time
    >>> is_structseq_instance(time.gmtime(0)), is_structseq_instance(())
    (True, False)
    """
    return is_structseq_class(type(obj))


# ---- the built-in nodes ----------------------------------------------------------------


def _seq_keys(values):
    return [(SequenceKey(i), v) for i, v in enumerate(values)]


def _tuple_flatten(d):
    return list(d), None


def _tuple_unflatten(values, context):
    return tuple(values)


def _list_flatten(d):
    return d, None


def _list_unflatten(values, context):
    return list(values)


def _dict_flatten(d):
    return list(d.values()), list(d.keys())


def _dict_flatten_with_keys(d):
    values, context = _dict_flatten(d)
    return [(MappingKey(k), v) for k, v in zip(context, values)], context


def _dict_unflatten(values, context):
    return dict(zip(context, values))


def _namedtuple_flatten(d):
    return list(d), type(d)


def _namedtuple_flatten_with_keys(d):
    values, context = _namedtuple_flatten(d)
    return [(GetAttrKey(f), v) for f, v in zip(context._fields, values)], context


def _namedtuple_unflatten(values, context):
    return context(*values)


def _namedtuple_serialize(context):
    if context not in SUPPORTED_SERIALIZED_TYPES:
        raise NotImplementedError(
            f"Can't serialize TreeSpec of namedtuple class {context} because we "
            "didn't register a serializated_type_name. Please register using "
            "`_register_namedtuple`."
        )
    name = SUPPORTED_SERIALIZED_TYPES[context].serialized_type_name
    if name == NO_SERIALIZED_TYPE_NAME_FOUND:
        raise NotImplementedError(
            f"Can't serialize TreeSpec of namedtuple class {context} because we "
            "couldn't find a serializated_type_name. Please register using "
            "`_register_namedtuple`."
        )
    return name


def _namedtuple_deserialize(dumpable_context):
    if dumpable_context not in SERIALIZED_TYPE_TO_PYTHON_TYPE:
        raise NotImplementedError(
            f"Can't deserialize TreeSpec of namedtuple class {dumpable_context} "
            "because we couldn't find a serializated name."
        )
    return SERIALIZED_TYPE_TO_PYTHON_TYPE[dumpable_context]


def _ordereddict_unflatten(values, context):
    return OrderedDict((k, v) for k, v in zip(context, values))


def _defaultdict_flatten(d):
    values, keys = _dict_flatten(d)
    return values, [d.default_factory, keys]


def _defaultdict_flatten_with_keys(d):
    values, context = _defaultdict_flatten(d)
    return [(MappingKey(k), v) for k, v in zip(context[1], values)], context


def _defaultdict_unflatten(values, context):
    default_factory, keys = context
    return defaultdict(default_factory, _dict_unflatten(values, keys))


def _defaultdict_serialize(context):
    default_factory, keys = context
    return {
        "default_factory_module": default_factory.__module__,
        "default_factory_name": default_factory.__qualname__,
        "dict_context": keys,
    }


def _defaultdict_deserialize(dumpable_context):
    if not isinstance(dumpable_context, dict):
        raise AssertionError("dumpable_context must be a dict")
    expected = {"default_factory_module", "default_factory_name", "dict_context"}
    if set(dumpable_context) != expected:
        raise AssertionError(f"dumpable_context keys must be {expected}, got {set(dumpable_context)}")
    module = importlib.import_module(dumpable_context["default_factory_module"])
    return [getattr(module, dumpable_context["default_factory_name"]), dumpable_context["dict_context"]]


def _deque_flatten(d):
    return list(d), d.maxlen


def _deque_unflatten(values, context):
    return deque(values, maxlen=context)


def _register_builtin(cls, flatten, unflatten, name, keys, **kw):
    _private_register_pytree_node(
        cls, flatten, unflatten, serialized_type_name=name, flatten_with_keys_fn=keys, **kw
    )


_register_builtin(tuple, _tuple_flatten, _tuple_unflatten, "builtins.tuple",
                  lambda d: (_seq_keys(d), None))
_register_builtin(list, _list_flatten, _list_unflatten, "builtins.list", lambda d: (_seq_keys(d), None))
_register_builtin(dict, _dict_flatten, _dict_unflatten, "builtins.dict", _dict_flatten_with_keys)
_register_builtin(namedtuple, _namedtuple_flatten, _namedtuple_unflatten, "collections.namedtuple",  # noqa: PYI024
                  _namedtuple_flatten_with_keys, to_dumpable_context=_namedtuple_serialize,
                  from_dumpable_context=_namedtuple_deserialize)
_register_builtin(OrderedDict, _dict_flatten, _ordereddict_unflatten, "collections.OrderedDict",
                  _dict_flatten_with_keys)
_register_builtin(defaultdict, _defaultdict_flatten, _defaultdict_unflatten, "collections.defaultdict",
                  _defaultdict_flatten_with_keys, to_dumpable_context=_defaultdict_serialize,
                  from_dumpable_context=_defaultdict_deserialize)
_register_builtin(deque, _deque_flatten, _deque_unflatten, "collections.deque",
                  lambda d: (_seq_keys(d), d.maxlen))

STANDARD_DICT_TYPES = frozenset({dict, OrderedDict, defaultdict})
BUILTIN_TYPES = frozenset({tuple, list, dict, namedtuple, OrderedDict, defaultdict, deque})  # noqa: PYI024


def _get_node_type(tree):
    node_type = type(tree)
    # Every namedtuple class is a `namedtuple` node (PyTorch's rule, even when registered).
    if is_namedtuple_class(node_type):
        return namedtuple  # noqa: PYI024 - the registry key of every namedtuple
    return node_type


def tree_is_leaf(tree, is_leaf=None):
    """Whether `tree` is a leaf (not a registered container, or `is_leaf` says so).

    >>> from gradrs.utils._pytree import tree_is_leaf
    >>> tree_is_leaf(1), tree_is_leaf([1]), tree_is_leaf((1,), is_leaf=lambda x: True)
    (True, False, True)
    """
    if is_leaf is not None and is_leaf(tree):
        return True
    return _get_node_type(tree) not in SUPPORTED_NODES


# ---- TreeSpec --------------------------------------------------------------------------


class TreeSpec:
    """The structure of a pytree: its root's type and context and one spec per child.

    >>> from gradrs.utils._pytree import tree_structure
    >>> spec = tree_structure([1, (2, 3)])
    >>> spec.num_leaves, spec.num_nodes, spec.num_children
    (3, 5, 2)
    >>> spec.unflatten("abc")
    ['a', ('b', 'c')]
    """

    __slots__ = ("type", "_context", "_children", "num_nodes", "num_leaves", "num_children")

    def __init__(self, type, context, children_specs):  # noqa: A002 - PyTorch's name
        object.__setattr__(self, "type", type)
        object.__setattr__(self, "_context", context)
        object.__setattr__(self, "_children", children_specs)
        self._count()

    def _count(self):
        if self.type is None:
            if self._context is not None:
                raise AssertionError("leaf node should not have a context")
            if len(self._children) != 0:
                raise AssertionError("leaf node should not have children")
            counts = (1, 1, 0)
        else:
            counts = (
                1 + sum(c.num_nodes for c in self._children),
                sum(c.num_leaves for c in self._children),
                len(self._children),
            )
        for name, value in zip(("num_nodes", "num_leaves", "num_children"), counts):
            object.__setattr__(self, name, value)

    def __setattr__(self, name, value):
        raise dataclasses.FrozenInstanceError(f"cannot assign to field '{name}'")

    def __repr__(self, indent=0):
        prefix = f"TreeSpec({self.type.__name__}, {self._context}, ["
        children = ""
        if self.num_children > 0:
            indent += 2
            children += self._children[0].__repr__(indent)
            children += "," if self.num_children > 1 else ""
            children += ",".join("\n" + " " * indent + c.__repr__(indent) for c in self._children[1:])
        return prefix + children + "])"

    def __eq__(self, other):
        if self is other:
            return True
        if other.__class__ is self.__class__:
            return (
                str(self.type) == str(other.type)
                and self._context == other._context
                and self._children == other._children
            )
        return NotImplemented

    def __hash__(self):
        node_type = self.type
        if node_type is defaultdict:
            factory, keys = self._context
            ctx = (factory, tuple(keys))
        elif node_type in (dict, OrderedDict):
            ctx = tuple(self._context)
        elif node_type is None or node_type in BUILTIN_TYPES:
            ctx = self._context
        else:
            ctx = None  # a user node's context may be unhashable
        return hash((node_type, ctx, tuple(self._children)))

    @property
    def context(self):
        """The root node's context (a dict's keys, a namedtuple's class, ...)."""
        return self._context

    @property
    def children_specs(self):
        """The children's specs (deprecated in PyTorch for `children()`)."""
        warnings.warn(
            "`treespec.children_specs` is deprecated. Use `treespec.child(index)` to access a single "
            "child, or `treespec.children()` to get all children.",
            FutureWarning,
            stacklevel=2,
        )
        return self._children

    def is_leaf(self):
        """Whether the spec is a single leaf.

        >>> from gradrs.utils._pytree import tree_structure
        >>> tree_structure(1).is_leaf(), tree_structure([1]).is_leaf()
        (True, False)
        """
        return self.num_nodes == 1 and self.num_leaves == 1

    def children(self):
        """The children's specs, as a new list.

        >>> from gradrs.utils._pytree import tree_structure
        >>> tree_structure((1, [2])).children()[1]
        TreeSpec(list, None, [*])
        """
        return self._children.copy()

    def child(self, index):
        """The `index`-th child's spec.

        >>> from gradrs.utils._pytree import tree_structure
        >>> tree_structure((1, [2])).child(0)
        *
        """
        return self._children[index]

    def flatten_up_to(self, tree):
        """The subtrees of `tree` at this spec's leaves (`tree` must have this structure as a prefix).

        >>> from gradrs.utils._pytree import tree_structure
        >>> tree_structure([1, 2]).flatten_up_to([(1, 2), {"a": 3}])
        [(1, 2), {'a': 3}]
        """
        subtrees = []
        self._flatten_up_to(tree, subtrees)
        return subtrees

    def _flatten_up_to(self, node, subtrees):
        if self.is_leaf():
            subtrees.append(node)
            return
        node_type = _get_node_type(node)
        if self.type not in BUILTIN_TYPES:
            if node_type != self.type:
                raise ValueError(f"Type mismatch; expected {self.type!r}, but got {node_type!r}.")
            children, context = SUPPORTED_NODES[node_type].flatten_fn(node)
            if len(children) != self.num_children:
                raise ValueError(
                    f"Node arity mismatch; expected {self.num_children}, but got {len(children)}."
                )
            if context != self._context:
                raise ValueError(f"Node context mismatch for custom node type {self.type!r}.")
        else:
            both_dicts = self.type in STANDARD_DICT_TYPES and node_type in STANDARD_DICT_TYPES
            if not both_dicts and node_type != self.type:
                raise ValueError(f"Node type mismatch; expected {self.type!r}, but got {node_type!r}.")
            if len(node) != self.num_children:
                raise ValueError(f"Node arity mismatch; expected {self.num_children}, but got {len(node)}.")
            if both_dicts:
                expected_keys = self._context if self.type is not defaultdict else self._context[1]
                got, expected = set(node), set(expected_keys)
                if got != expected:
                    message = ""
                    if expected - got:
                        message += f"; missing key(s): {expected - got}"
                    if got - expected:
                        message += f"; extra key(s): {got - expected}"
                    raise ValueError(f"Node keys mismatch{message}.")
                children = [node[k] for k in expected_keys]
            else:
                children, context = SUPPORTED_NODES[node_type].flatten_fn(node)
                if node_type is not deque and context != self._context:
                    raise ValueError(
                        f"Node context mismatch for node type {self.type!r}; "
                        f"expected {self._context!r}, but got {context!r}."
                    )
        for subtree, spec in zip(children, self._children):
            spec._flatten_up_to(subtree, subtrees)

    def unflatten(self, leaves):
        """The pytree of this structure holding `leaves`.

        >>> from gradrs.utils._pytree import tree_structure
        >>> tree_structure({"x": 0}).unflatten([7])
        {'x': 7}
        """
        if not isinstance(leaves, (list, tuple)):
            leaves = list(leaves)
        if len(leaves) != self.num_leaves:
            raise ValueError(
                f"treespec.unflatten(leaves): `leaves` has length {len(leaves)} "
                f"but the spec refers to a pytree that holds {self.num_leaves} "
                f"items ({self})."
            )
        if self.is_leaf():
            return leaves[0]
        children, start = [], 0
        for spec in self._children:
            end = start + spec.num_leaves
            children.append(spec.unflatten(leaves[start:end]))
            start = end
        return SUPPORTED_NODES[self.type].unflatten_fn(children, self._context)


PyTreeSpec = TreeSpec


class LeafSpec(TreeSpec):
    """The spec of a leaf, printed `*` (deprecated in PyTorch for `TreeSpec.is_leaf()`).

    >>> from gradrs.utils._pytree import LeafSpec
    >>> LeafSpec()
    *
    """

    __slots__ = ()

    def __init__(self, _warn=True):
        if _warn:
            warnings.warn(
                "`isinstance(treespec, LeafSpec)` is deprecated, use `isinstance(treespec, TreeSpec) "
                "and treespec.is_leaf()` instead.",
                FutureWarning,
                stacklevel=2,
            )
        super().__init__(None, None, [])

    def __repr__(self, indent=0):
        return "*"


_LEAF_SPEC = LeafSpec(_warn=False)


def treespec_leaf():
    """The spec of a leaf.

    >>> from gradrs.utils._pytree import treespec_leaf
    >>> treespec_leaf().is_leaf()
    True
    """
    return _LEAF_SPEC


def treespec_tuple(iterable=(), /):
    """A tuple spec of the given children specs.

    >>> from gradrs.utils._pytree import treespec_leaf, treespec_tuple
    >>> treespec_tuple([treespec_leaf(), treespec_leaf()]).unflatten([1, 2])
    (1, 2)
    """
    children = list(iterable)
    if any(not isinstance(c, TreeSpec) for c in children):
        raise ValueError(f"Expected a tuple of TreeSpec values, got: {children!r}.")
    return TreeSpec(tuple, None, children)


def treespec_dict(mapping=(), /, **kwargs):
    """A dict spec of the given children specs.

    >>> from gradrs.utils._pytree import treespec_dict, treespec_leaf
    >>> treespec_dict(a=treespec_leaf()).unflatten([1])
    {'a': 1}
    """
    dct = dict(mapping, **kwargs)
    if any(not isinstance(c, TreeSpec) for c in dct.values()):
        raise ValueError(f"Expected a dictionary of TreeSpec values, got: {dct!r}.")
    return TreeSpec(dict, list(dct.keys()), list(dct.values()))


# ---- flatten, unflatten, map -----------------------------------------------------------


def tree_flatten(tree, is_leaf=None):
    """The leaves of `tree` in order and the TreeSpec to rebuild it.

    >>> from gradrs.utils._pytree import tree_flatten
    >>> tree_flatten([1, {"a": 2}])
    ([1, 2], TreeSpec(list, None, [*,
      TreeSpec(dict, ['a'], [*])]))
    """
    leaves = []

    def helper(node):
        if tree_is_leaf(node, is_leaf=is_leaf):
            leaves.append(node)
            return _LEAF_SPEC
        node_type = _get_node_type(node)
        children, context = SUPPORTED_NODES[node_type].flatten_fn(node)
        return TreeSpec(node_type, context, [helper(c) for c in children])

    spec = helper(tree)
    return leaves, spec


def tree_unflatten(leaves, treespec):
    """The pytree of structure `treespec` holding `leaves` (the inverse of `tree_flatten`).

    >>> from gradrs.utils._pytree import tree_structure, tree_unflatten
    >>> tree_unflatten([1, 2], tree_structure((0, [0])))
    (1, [2])
    """
    if not isinstance(treespec, TreeSpec):
        if not isinstance(leaves, TreeSpec):
            raise TypeError(
                f"Expected `treespec` to be an instance of PyTreeSpec but got item of type {type(treespec)}."
            )
        leaves, treespec = treespec, leaves
    return treespec.unflatten(leaves)


def tree_iter(tree, is_leaf=None):
    """An iterator over the leaves of `tree`.

    >>> from gradrs.utils._pytree import tree_iter
    >>> list(tree_iter({"a": (1, 2), "b": 3}))
    [1, 2, 3]
    """
    if tree_is_leaf(tree, is_leaf=is_leaf):
        yield tree
    else:
        children, _ = SUPPORTED_NODES[_get_node_type(tree)].flatten_fn(tree)
        for child in children:
            yield from tree_iter(child, is_leaf=is_leaf)


def tree_leaves(tree, is_leaf=None):
    """The leaves of `tree`, as a list.

    >>> from gradrs.utils._pytree import tree_leaves
    >>> tree_leaves([1, (2, None), {"a": 3}])
    [1, 2, None, 3]
    """
    return list(tree_iter(tree, is_leaf=is_leaf))


def tree_structure(tree, is_leaf=None):
    """The TreeSpec of `tree`.

    >>> from gradrs.utils._pytree import tree_structure
    >>> tree_structure((1, 2))
    TreeSpec(tuple, None, [*,
      *])
    """
    return tree_flatten(tree, is_leaf=is_leaf)[1]


def tree_map(func, tree, *rests, is_leaf=None):
    """A new pytree of `tree`'s structure with `func` applied to its leaves (and the matching
    subtrees of `rests`, which have `tree` as a prefix).

    >>> from gradrs.utils._pytree import tree_map
    >>> tree_map(lambda x: x + 1, {"x": 7, "y": (42, 64)})
    {'x': 8, 'y': (43, 65)}
    >>> tree_map(lambda x, y: [x] + y, [5, 6], [[7, 9], [1, 2]])
    [[5, 7, 9], [6, 1, 2]]
    """
    leaves, spec = tree_flatten(tree, is_leaf=is_leaf)
    flat_args = [leaves] + [spec.flatten_up_to(r) for r in rests]
    return spec.unflatten(map(func, *flat_args))


def tree_map_(func, tree, *rests, is_leaf=None):
    """Call `func` on every leaf for its side effect; returns `tree` itself.

    >>> from gradrs.utils._pytree import tree_map_
    >>> seen = []
    >>> tree_map_(seen.append, [1, (2,)])
    [1, (2,)]
    >>> seen
    [1, 2]
    """
    leaves, spec = tree_flatten(tree, is_leaf=is_leaf)
    flat_args = [leaves] + [spec.flatten_up_to(r) for r in rests]
    deque(map(func, *flat_args), maxlen=0)
    return tree


def map_only(type_or_types_or_pred, /):
    """Decorate `func` to apply only to leaves of the given type(s) or predicate.

    >>> from gradrs.utils._pytree import map_only
    >>> @map_only(int)
    ... def double(x):
    ...     return 2 * x
    >>> double(3), double("a")
    (6, 'a')
    """
    if isinstance(type_or_types_or_pred, (type, tuple, types.UnionType)):

        def pred(x):
            return isinstance(x, type_or_types_or_pred)

    elif callable(type_or_types_or_pred):
        pred = type_or_types_or_pred
    else:
        raise TypeError("Argument must be a type, a tuple of types, or a callable.")

    def wrapper(func):
        @functools.wraps(func)
        def wrapped(x):
            return func(x) if pred(x) else x

        return wrapped

    return wrapper


def tree_map_only(type_or_types_or_pred, /, func, tree, is_leaf=None):
    """`tree_map` applied only to leaves of the given type(s) or predicate.

    >>> from gradrs.utils._pytree import tree_map_only
    >>> tree_map_only(int, lambda x: x * 10, [1, "a", (2.5, 3)])
    [10, 'a', (2.5, 30)]
    """
    return tree_map(map_only(type_or_types_or_pred)(func), tree, is_leaf=is_leaf)


def tree_map_only_(type_or_types_or_pred, /, func, tree, is_leaf=None):
    """`tree_map_` applied only to leaves of the given type(s) or predicate.

    >>> from gradrs.utils._pytree import tree_map_only_
    >>> seen = []
    >>> _ = tree_map_only_(str, seen.append, [1, "a", ("b",)])
    >>> seen
    ['a', 'b']
    """
    return tree_map_(map_only(type_or_types_or_pred)(func), tree, is_leaf=is_leaf)


def tree_all(pred, tree, is_leaf=None):
    """Whether `pred` holds for every leaf.

    >>> from gradrs.utils._pytree import tree_all
    >>> tree_all(lambda x: x > 0, [1, (2, 3)])
    True
    """
    return all(map(pred, tree_iter(tree, is_leaf=is_leaf)))


def tree_any(pred, tree, is_leaf=None):
    """Whether `pred` holds for some leaf.

    >>> from gradrs.utils._pytree import tree_any
    >>> tree_any(lambda x: x > 2, [1, (2, 3)])
    True
    """
    return any(map(pred, tree_iter(tree, is_leaf=is_leaf)))


def tree_all_only(type_or_types, /, pred, tree, is_leaf=None):
    """Whether `pred` holds for every leaf of the given type(s).

    >>> from gradrs.utils._pytree import tree_all_only
    >>> tree_all_only(int, lambda x: x > 0, [1, "a", -2.0])
    True
    """
    return all(pred(x) for x in tree_iter(tree, is_leaf=is_leaf) if isinstance(x, type_or_types))


def tree_any_only(type_or_types, /, pred, tree, is_leaf=None):
    """Whether `pred` holds for some leaf of the given type(s).

    >>> from gradrs.utils._pytree import tree_any_only
    >>> tree_any_only(str, lambda x: x == "a", [1, "a"])
    True
    """
    return any(pred(x) for x in tree_iter(tree, is_leaf=is_leaf) if isinstance(x, type_or_types))


def _broadcast_to_and_flatten(tree, treespec, is_leaf=None):
    full_tree = tree_unflatten([0] * treespec.num_leaves, treespec)
    result = []

    def add_leaves(x, subtree):
        result.extend([x] * tree_structure(subtree, is_leaf=is_leaf).num_leaves)

    try:
        tree_map_(add_leaves, tree, full_tree, is_leaf=is_leaf)
    except ValueError:
        return None
    return result


def arg_tree_leaves(*args, **kwargs):
    """The leaves of `(args, kwargs)`, faster than `tree_leaves((args, kwargs))`.

    >>> from gradrs.utils._pytree import arg_tree_leaves
    >>> arg_tree_leaves(1, [2], a=3)
    [1, 2, 3]
    """
    leaves = []
    for a in args:
        leaves.extend(tree_iter(a))
    for a in kwargs.values():
        leaves.extend(tree_iter(a))
    return leaves


# ---- key paths -------------------------------------------------------------------------


def _generate_key_paths(key_path, tree, is_leaf=None):
    if is_leaf is not None and is_leaf(tree):
        yield key_path, tree
        return
    node_type = _get_node_type(tree)
    handler = SUPPORTED_NODES.get(node_type)
    if handler is None:
        yield key_path, tree
        return
    if handler.flatten_with_keys_fn is None:
        raise ValueError(
            f"Did not find a flatten_with_keys_fn for type: {node_type}. "
            "Please pass a flatten_with_keys_fn argument to register_pytree_node."
        )
    key_children, _ = handler.flatten_with_keys_fn(tree)
    for k, c in key_children:
        yield from _generate_key_paths((*key_path, k), c, is_leaf)


def tree_flatten_with_path(tree, is_leaf=None):
    """`tree_flatten` with each leaf's key path.

    >>> from gradrs.utils._pytree import tree_flatten_with_path
    >>> tree_flatten_with_path({"a": [1]})[0]
    [((MappingKey(key='a'), SequenceKey(idx=0)), 1)]
    """
    _, spec = tree_flatten(tree, is_leaf)
    return list(_generate_key_paths((), tree, is_leaf)), spec


def tree_leaves_with_path(tree, is_leaf=None):
    """Each leaf with its key path.

    >>> from gradrs.utils._pytree import keystr, tree_leaves_with_path
    >>> [(keystr(k), v) for k, v in tree_leaves_with_path({"a": (1, 2)})]
    [("['a'][0]", 1), ("['a'][1]", 2)]
    """
    return list(_generate_key_paths((), tree, is_leaf))


def tree_map_with_path(func, tree, *rests, is_leaf=None):
    """`tree_map` whose `func` takes each leaf's key path first.

    >>> from gradrs.utils._pytree import keystr, tree_map_with_path
    >>> tree_map_with_path(lambda kp, x: keystr(kp), {"a": [0]})
    {'a': ["['a'][0]"]}
    """
    keypath_leaves, spec = tree_flatten_with_path(tree, is_leaf)
    keypaths, leaves = zip(*keypath_leaves) if keypath_leaves else ((), ())
    all_leaves = [leaves] + [spec.flatten_up_to(r) for r in rests]
    return spec.unflatten(func(*xs) for xs in zip(keypaths, *all_leaves))


# ---- serialization ---------------------------------------------------------------------


class EnumEncoder(json.JSONEncoder):
    """JSON encoder writing Enum members as PyTorch's pytree serialization does."""

    def default(self, obj):
        """Encode an Enum member by its class and name."""
        if isinstance(obj, Enum):
            return {
                "__enum__": True,
                "fqn": f"{obj.__class__.__module__}:{obj.__class__.__qualname__}",
                "name": obj.name,
            }
        return super().default(obj)


def _enum_object_hook(obj):
    if "__enum__" in obj:
        modname, _, classname = obj["fqn"].partition(":")
        cls = importlib.import_module(modname)
        for attr in classname.split("."):
            cls = getattr(cls, attr)
        return cls[obj["name"]]
    return obj


def _treespec_to_json(spec):
    if spec.is_leaf():
        return {"type": None, "context": None, "children_spec": []}
    if spec.type not in SUPPORTED_SERIALIZED_TYPES:
        raise NotImplementedError(f"Serializing {spec.type} in pytree is not registered.")
    node = SUPPORTED_SERIALIZED_TYPES[spec.type]
    if node.serialized_type_name == NO_SERIALIZED_TYPE_NAME_FOUND:
        raise NotImplementedError(
            f"No registered serialization name for {spec.type} found. "
            "Please update your _register_pytree_node call with a `serialized_type_name` kwarg."
        )
    if node.to_dumpable_context is None:
        try:
            context = json.dumps(spec._context, cls=EnumEncoder)
        except TypeError as e:
            raise TypeError(
                "Unable to serialize context. Please make the context json dump-able, or register a "
                "custom serializer using _register_pytree_node."
            ) from e
    else:
        context = node.to_dumpable_context(spec._context)
    return {
        "type": node.serialized_type_name,
        "context": context,
        "children_spec": [_treespec_to_json(c) for c in spec._children],
    }


def _json_to_treespec(schema):
    if schema["type"] is None and schema["context"] is None and len(schema["children_spec"]) == 0:
        return _LEAF_SPEC
    if schema["type"] not in SERIALIZED_TYPE_TO_PYTHON_TYPE:
        raise NotImplementedError(f"Deserializing {schema['type']} in pytree is not registered.")
    typ = SERIALIZED_TYPE_TO_PYTHON_TYPE[schema["type"]]
    node = SUPPORTED_SERIALIZED_TYPES[typ]
    if node.from_dumpable_context is None:
        try:
            context = json.loads(schema["context"], object_hook=_enum_object_hook)
        except TypeError as e:
            raise TypeError(
                "Unable to deserialize context. Please make the context json load-able, or register a "
                "custom serializer using _register_pytree_node."
            ) from e
    else:
        context = node.from_dumpable_context(schema["context"])
    return TreeSpec(typ, context, [_json_to_treespec(c) for c in schema["children_spec"]])


_SUPPORTED_PROTOCOLS = {1: (_treespec_to_json, _json_to_treespec)}


def treespec_dumps(treespec, protocol=None):
    """A TreeSpec as a JSON string (PyTorch's protocol 1).

    >>> from gradrs.utils._pytree import tree_structure, treespec_dumps
    >>> treespec_dumps(tree_structure([0]))
    '[1, {"type": "builtins.list", "context": "null", "children_spec": [{"type": null, "context": null, "children_spec": []}]}]'
    """
    if not isinstance(treespec, TreeSpec):
        raise TypeError(
            f"Expected `treespec` to be an instance of PyTreeSpec but got item of type {type(treespec)}."
        )
    if protocol is None:
        protocol = DEFAULT_TREESPEC_SERIALIZATION_PROTOCOL
    if protocol not in _SUPPORTED_PROTOCOLS:
        raise ValueError(f"Unknown protocol {protocol}. Available protocols: {list(_SUPPORTED_PROTOCOLS.keys())}")
    return json.dumps((protocol, _SUPPORTED_PROTOCOLS[protocol][0](treespec)), cls=EnumEncoder)


@functools.lru_cache
def treespec_loads(serialized):
    """The TreeSpec a `treespec_dumps` string describes.

    >>> from gradrs.utils._pytree import tree_structure, treespec_dumps, treespec_loads
    >>> treespec_loads(treespec_dumps(tree_structure({"a": (0, 0)})))
    TreeSpec(dict, ['a'], [TreeSpec(tuple, None, [*,
        *])])
    """
    protocol, schema = json.loads(serialized)
    if protocol in _SUPPORTED_PROTOCOLS:
        return _SUPPORTED_PROTOCOLS[protocol][1](schema)
    raise ValueError(f"Unknown protocol {protocol}. Available protocols: {list(_SUPPORTED_PROTOCOLS.keys())}")


class _Asterisk(str):
    __slots__ = ()

    def __new__(cls):
        return super().__new__(cls, "*")

    def __repr__(self):
        return "*"


_asterisk = _Asterisk()


def treespec_pprint(treespec):
    """The structure as a Python literal with `*` for each leaf.

    >>> from gradrs.utils._pytree import tree_structure, treespec_pprint
    >>> treespec_pprint(tree_structure({"a": [1, (2, 3)]}))
    "{'a': [*, (*, *)]}"
    """
    return repr(tree_unflatten([_asterisk] * treespec.num_leaves, treespec))


# ---- gradrs's own containers, registered as PyTorch registers torch's -------------------

_private_register_pytree_node(
    Size,
    lambda xs: (list(xs), None),
    lambda xs, _: tuple(xs),  # PyTorch's registration (proxy_tensor.py) rebuilds a tuple
    serialized_type_name="torch.Size",
    flatten_with_keys_fn=lambda xs: (_seq_keys(xs), None),
)


def _register_structseq(cls):
    _STRUCTSEQ_TYPES.add(cls)
    _private_register_pytree_node(
        cls,
        lambda s: (list(s), None),
        lambda values, _: cls(*values),
        flatten_with_keys_fn=lambda s: (_seq_keys(s), None),
    )


for _name in dir(_return_types):
    _attr = getattr(_return_types, _name)
    if isinstance(_attr, type) and issubclass(_attr, tuple) and _attr.__module__ == "gradrs.return_types":
        _register_structseq(_attr)
del _name, _attr
