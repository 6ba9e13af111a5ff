"""`gradrs.utils.benchmark.utils`: the modules of `gradrs.utils.benchmark` (as PyTorch's)."""
