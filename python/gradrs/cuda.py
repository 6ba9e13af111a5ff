"""`gradrs.cuda`: an alias of `gradrs.gpu`, so code written for `torch.cuda` runs unchanged.

There is no CUDA here: the GPU is whatever Vulkan/Metal/DX12 adapter wgpu finds.
"""

from .gpu import *  # noqa: F403 - the alias exports exactly gpu's names
from .gpu import __all__  # noqa: F401

import sys as _sys  # noqa: E402

# `import gradrs.cuda.amp` (and `torch.cuda.amp` through the alias) finds gpu's `amp` here.
_sys.modules[__name__ + ".amp"] = amp  # noqa: F405 - amp is one of gpu's exported names
# A (file-less) package, so that `from gradrs.cuda.amp import ...` and the torch alias's
# `from torch.cuda.amp import ...` look `amp` up in sys.modules instead of refusing a module.
__path__: list[str] = []
