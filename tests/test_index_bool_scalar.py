"""0-dim bool indices (x[True], x[False], a 0-dim bool tensor mask) against PyTorch: a new
axis indexed by [0] or [], an advanced index (reads copy, writes go through index_put_)."""

import numpy as np
import pytest

import gradrs as G

KEYS = {
    "true": lambda m: True,
    "false": lambda m: False,
    "t_true": lambda m: m.tensor(True),
    "t_false": lambda m: m.tensor(False),
    "false_tuple": lambda m: (slice(None), False),
    "true_list": lambda m: (True, [0, 1]),
    "ellipsis_false": lambda m: (Ellipsis, False),
    "none_false": lambda m: (None, m.tensor(False)),
    "int_true": lambda m: (1, True),
}


@pytest.mark.parametrize("shape", [(), (2,), (2, 3)])
@pytest.mark.parametrize("key", sorted(KEYS))
def test_getitem_bool_scalar(key, shape, torch):
    def run(m):
        x = m.arange(float(np.prod(shape))).reshape(shape).requires_grad_()
        try:
            y = x[KEYS[key](m)]
        except (IndexError, RuntimeError) as e:
            return type(e).__name__
        y.sum().backward()
        return (tuple(y.shape), y.detach().numpy().tolist(), x.grad.numpy().tolist(),
                type(y.grad_fn).__name__, y._base is None)

    assert run(G) == run(torch)


@pytest.mark.parametrize("shape", [(), (2,), (2, 3)])
@pytest.mark.parametrize("key", sorted(KEYS))
def test_setitem_bool_scalar(key, shape, torch):
    def run(m):
        x = m.arange(float(np.prod(shape))).reshape(shape)
        try:
            x[KEYS[key](m)] = 7.0
        except (IndexError, RuntimeError) as e:
            return type(e).__name__
        return x.numpy().tolist()

    assert run(G) == run(torch)


def test_zero_dim_mask_from_a_comparison(torch):
    # `loss[loss != loss] = 0` on a 0-dim loss: a False mask writes nothing
    def run(m):
        loss = m.tensor(1.5)
        loss[loss != loss] = 0.0
        nan = m.tensor(float("nan"))
        nan[nan != nan] = 0.0
        return loss.item(), nan.item()

    assert run(G) == run(torch)
