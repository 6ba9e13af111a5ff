"""`gradrs.autograd.graph.Node`: the type of every `grad_fn`."""

from .._native import Node

__all__ = ["Node"]
