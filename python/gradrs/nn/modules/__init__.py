"""`gradrs.nn.modules`: the layer classes, one file per family as in PyTorch."""

from .module import Module as Module
