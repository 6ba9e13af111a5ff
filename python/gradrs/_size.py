"""`gradrs.Size`: a tuple subclass printed as PyTorch prints `torch.Size`."""


class Size(tuple):
    """The type of `Tensor.shape` and `Tensor.size()`: a tuple of ints that prints as
    `gradrs.Size([...])`, as PyTorch's `torch.Size`.

    Args:
        iterable: the sizes (default: none, a 0-dim shape).

    Examples:
        >>> s = gradrs.ones(2, 3).shape
        >>> s
        gradrs.Size([2, 3])
        >>> s[1], len(s), s == (2, 3)
        (3, 2, True)
    """
    __slots__ = ()

    def __repr__(self) -> str:
        return f"gradrs.Size([{', '.join(str(d) for d in self)}])"

    __str__ = __repr__

    def numel(self) -> int:
        """The number of elements a tensor of this shape holds: the product of the sizes.

        Examples:
            >>> gradrs.Size([2, 3, 4]).numel()
            24
        """
        n = 1
        for d in self:
            n *= d
        return n

    def __getitem__(self, key):
        out = tuple.__getitem__(self, key)
        return Size(out) if isinstance(key, slice) else out

    def __add__(self, other):
        return Size(tuple.__add__(self, tuple(other)))

    def __reduce__(self):
        return (Size, (tuple(self),))
