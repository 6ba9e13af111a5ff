"""`gradrs.Size`: a tuple subclass printed as PyTorch prints `torch.Size`."""


class Size(tuple):
    __slots__ = ()

    def __repr__(self) -> str:
        return f"gradrs.Size([{', '.join(str(d) for d in self)}])"

    __str__ = __repr__

    def numel(self) -> int:
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
