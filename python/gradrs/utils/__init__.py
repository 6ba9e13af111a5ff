"""`gradrs.utils`: data loading and other utilities."""

from . import data  # noqa: F401
from . import checkpoint  # noqa: F401
from . import dlpack  # noqa: F401
from . import _pytree  # noqa: F401
