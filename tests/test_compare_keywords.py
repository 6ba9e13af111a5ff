"""Comparison ops take PyTorch's keyword names (`other`, `input`) in method and function forms."""

import pytest
from conftest import G

OPS = ["eq", "ne", "lt", "le", "gt", "ge"]


@pytest.mark.parametrize("op", OPS)
def test_keywords_as_torch(torch, op):
    for m in (G, torch):
        x, y = m.tensor([1.0, 2.0, 3.0]), m.tensor([2.0, 2.0, 2.0])
        got = [getattr(x, op)(other=y), getattr(x, op)(other=2), getattr(m, op)(x, other=y),
               getattr(m, op)(input=x, other=y)]
        if m is G:
            mine = [t.tolist() for t in got]
        else:
            assert mine == [t.tolist() for t in got]
