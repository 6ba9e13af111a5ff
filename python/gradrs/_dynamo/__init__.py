"""`gradrs._dynamo`: the few `torch._dynamo` functions programs call around `compile`
(`reset`, `list_backends`, `is_compiling`, `disable`); see gradrs.compiler."""

from ..compiler import disable, is_compiling, list_backends, reset

__all__ = ["disable", "is_compiling", "list_backends", "reset"]
