"""PairwiseDistance and CosineSimilarity (PyTorch's `torch.nn.modules.distance`)."""

from .. import functional as F
from .module import Module

__all__ = ["CosineSimilarity", "PairwiseDistance"]


class PairwiseDistance(Module):
    """The p-norm of x1 - x2 + eps along the last dim.

    Examples:
        >>> gradrs.nn.PairwiseDistance()(gradrs.tensor([[0.0, 0.0]]), gradrs.tensor([[3.0, 4.0]]))
        tensor([5.0000])
    """

    __constants__ = ["norm", "eps", "keepdim"]

    def __init__(self, p=2.0, eps=1e-6, keepdim=False):
        super().__init__()
        self.norm = p
        self.eps = eps
        self.keepdim = keepdim

    def forward(self, x1, x2):
        return F.pairwise_distance(x1, x2, self.norm, self.eps, self.keepdim)


class CosineSimilarity(Module):
    """Cosine of the angle between x1 and x2 along `dim`.

    Examples:
        >>> gradrs.nn.CosineSimilarity(dim=1)(gradrs.tensor([[1.0, 0.0]]), gradrs.tensor([[1.0, 1.0]]))
        tensor([0.7071])
    """

    __constants__ = ["dim", "eps"]

    def __init__(self, dim=1, eps=1e-8):
        super().__init__()
        self.dim = dim
        self.eps = eps

    def forward(self, x1, x2):
        return F.cosine_similarity(x1, x2, self.dim, self.eps)
