"""gradrs.memory_format: `contiguous_format` / `preserve_format` / `legacy_contiguous_format`
taken by the `*_like` factories, `clone` and `contiguous` as PyTorch takes them (third-party
optimizers allocate their state with `torch.zeros_like(p, memory_format=torch.preserve_format)`,
copied from PyTorch 1.x's Adam), with PyTorch's errors; pickled by reference."""

import pickle

import pytest

from conftest import G, check_error, run_both, to_np

FACTORIES = [
    lambda M, x, f: M.zeros_like(x, memory_format=f),
    lambda M, x, f: M.ones_like(x, memory_format=f),
    lambda M, x, f: M.empty_like(x, memory_format=f).shape,
    lambda M, x, f: M.full_like(x, 3.5, memory_format=f),
    lambda M, x, f: (M.manual_seed(0), M.rand_like(x, memory_format=f))[1],
    lambda M, x, f: (M.manual_seed(0), M.randn_like(x, memory_format=f))[1].shape,
    lambda M, x, f: (M.manual_seed(0), M.randint_like(x, 7, memory_format=f))[1],
    lambda M, x, f: x.clone(memory_format=f),
    lambda M, x, f: M.clone(x, memory_format=f),
]


@pytest.mark.parametrize("make", FACTORIES)
@pytest.mark.parametrize("fmt", ["preserve_format", "contiguous_format",
                                 "legacy_contiguous_format"])
def test_factories_take_memory_format(make, fmt):
    def run(M):
        x = M.arange(6.0).view(2, 3)
        out = make(M, x, getattr(M, fmt))
        return out if isinstance(out, tuple) else to_np(out)

    g, t = run_both(run)
    assert (g == t) if isinstance(g, tuple) else (g == t).all()


def test_contiguous_and_clone_keep_their_nodes():
    leaf = G.ones(2, 3, requires_grad=True)
    x = leaf.t()
    y = x.clone(memory_format=G.contiguous_format)
    assert type(y.grad_fn).__name__ == "CloneBackward0" and y.is_contiguous()
    z = x.contiguous(memory_format=G.contiguous_format)
    assert z.is_contiguous()
    (y.sum() + z.sum()).backward()
    assert leaf.grad.tolist() == [[2.0, 2.0, 2.0]] * 2


@pytest.mark.parametrize("call", [
    lambda M: M.ones(3, 2).t().contiguous(memory_format=M.preserve_format),
    lambda M: M.zeros_like(M.ones(2), memory_format="preserve"),
    lambda M: M.ones(2).clone(memory_format=1),
])
def test_memory_format_errors(call):
    check_error(call)


def test_memory_format_objects(torch):
    for name in ("contiguous_format", "preserve_format", "legacy_contiguous_format"):
        ours = getattr(G, name)
        assert repr(ours) == repr(getattr(torch, name)).replace("torch", "gradrs")
        assert isinstance(ours, G.memory_format)
        assert pickle.loads(pickle.dumps(ours)) is ours
    assert G.legacy_contiguous_format is G.contiguous_format
    assert G.ones(2, 3).contiguous(memory_format=G.preserve_format).shape == (2, 3)
    assert G.contiguous_format == G.contiguous_format != G.preserve_format
