"""`gradrs.nn.modules`: the layer classes, one file per family as in PyTorch."""
