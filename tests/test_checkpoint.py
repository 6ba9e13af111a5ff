"""gradrs.utils.checkpoint (checkpoint, checkpoint_sequential) in both use_reentrant modes:
gradients equal to the un-checkpointed model's and to PyTorch's, its warnings and errors."""

import numpy as np
import pytest
from conftest import G, assert_same_values, check_error, check_warning, need_torch, node_name

pytestmark = pytest.mark.usefixtures("restore_grad_mode")

# Preserving the RNG state needs gradrs.get_rng_state; tests without random ops pass
# preserve_rng_state=False where the build lacks it.
HAVE_RNG_STATE = hasattr(G._native, "get_rng_state") if G.__name__ == "gradrs" else True
PRESERVE = HAVE_RNG_STATE
needs_rng_state = pytest.mark.skipif(not HAVE_RNG_STATE, reason="gradrs.get_rng_state is not there yet")

RNG = np.random.default_rng(0)
W1, B1 = RNG.standard_normal((5, 4)), RNG.standard_normal(5)
W2, B2 = RNG.standard_normal((3, 5)), RNG.standard_normal(3)
X = RNG.standard_normal((6, 4))


def model(M, dropout=0.0):
    """The same small MLP in either library (float64 weights from numpy)."""
    lin1, lin2 = M.nn.Linear(4, 5).double(), M.nn.Linear(5, 3).double()
    with M.no_grad():
        for p, v in [(lin1.weight, W1), (lin1.bias, B1), (lin2.weight, W2), (lin2.bias, B2)]:
            p.copy_(M.tensor(v))
    return M.nn.Sequential(lin1, M.nn.Tanh(), M.nn.Dropout(dropout), lin2, M.nn.Sigmoid())


def run(M, use_reentrant, checkpointed=True, x_requires_grad=True, dropout=0.0, preserve=PRESERVE):
    """Output and gradients (input, then parameters) of a loss over a block that returns a
    tuple (two tensors) and reuses the parameters twice."""
    net = model(M, dropout)
    x = M.tensor(X, requires_grad=x_requires_grad)

    def block(x):
        h = net[0](x).tanh()
        return net[4](net[3](net[2](h))), (h * net[0].bias).sum()

    if checkpointed:
        a, b = M.utils.checkpoint.checkpoint(block, x, use_reentrant=use_reentrant, preserve_rng_state=preserve)
    else:
        a, b = block(x)
    loss = (a ** 2).sum() + 3 * b
    loss.backward()
    grads = [x.grad] + [p.grad for p in net.parameters()]
    return (a, b), grads


def same_grads(ga, gb):
    assert len(ga) == len(gb)
    for a, b in zip(ga, gb):
        assert (a is None) == (b is None)
        if a is not None:
            assert_same_values(a, b, rtol=1e-10, atol=1e-12)


@pytest.mark.parametrize("use_reentrant", [True, False])
def test_gradients_equal_uncheckpointed(use_reentrant):
    (a, b), g = run(G, use_reentrant)
    (a0, b0), g0 = run(G, use_reentrant, checkpointed=False)
    assert_same_values(a, a0, rtol=0, atol=0)
    assert_same_values(b, b0, rtol=0, atol=0)
    same_grads(g, g0)


@pytest.mark.parametrize("use_reentrant", [True, False])
def test_against_torch(use_reentrant, torch):
    (a, b), g = run(G, use_reentrant)
    (at, bt), gt = run(torch, use_reentrant)
    assert_same_values(a, at)
    assert_same_values(b, bt)
    # reentrant: CheckpointFunctionBackward; non-reentrant: each output's own node.
    assert node_name(a.grad_fn) == node_name(at.grad_fn)
    assert node_name(b.grad_fn) == node_name(bt.grad_fn)
    same_grads(g, gt)


def test_inputs_without_grad(torch):
    """Reentrant: warns and its outputs need no gradient; non-reentrant: the parameters the
    function uses still get theirs."""
    def reentrant(M):
        net = model(M)
        y = M.utils.checkpoint.checkpoint(net, M.tensor(X), use_reentrant=True, preserve_rng_state=False)
        return y.requires_grad

    assert check_warning(reentrant) == (False, False)
    same_grads(run(G, False, x_requires_grad=False)[1], run(torch, False, x_requires_grad=False)[1])


@needs_rng_state
@pytest.mark.parametrize("use_reentrant", [True, False])
def test_dropout_recomputed_with_same_mask(use_reentrant, torch):
    for M in (G, torch):
        M.manual_seed(7)
        (a, _), g = run(M, use_reentrant, dropout=0.5)
        M.manual_seed(7)
        (a0, _), g0 = run(M, use_reentrant, checkpointed=False, dropout=0.5)
        assert (a.detach() - a0.detach()).abs().max().item() == 0
        same_grads(g, g0)


@needs_rng_state
def test_rng_stream_continues_after_recompute(torch):
    """The recompute replays the forward's draws and gives the caller's generator back."""
    def go(M):
        M.manual_seed(3)
        x = M.ones(4, requires_grad=True)
        y = M.utils.checkpoint.checkpoint(lambda x: M.nn.functional.dropout(x, 0.5), x, use_reentrant=False)
        y.sum().backward()
        after = M.rand(3)
        M.manual_seed(3)
        M.nn.functional.dropout(M.ones(4), 0.5)
        return (after - M.rand(3)).abs().max().item(), (x.grad - y.detach()).abs().max().item()

    assert go(G) == go(torch) == (0.0, 0.0)


def test_forward_runs_again_in_backward(torch):
    def go(M, use_reentrant):
        calls = []

        def f(x):
            calls.append(M.is_grad_enabled())
            return x.sin() * 2

        x = M.ones(3, dtype=M.float64, requires_grad=True)
        y = M.utils.checkpoint.checkpoint(f, x, use_reentrant=use_reentrant, preserve_rng_state=False)
        n_forward = len(calls)
        y.sum().backward()
        return calls[-1], len(calls) - n_forward, x.grad.tolist()

    for use_reentrant in (True, False):
        assert go(G, use_reentrant) == go(torch, use_reentrant)


def test_non_reentrant_grad_kwargs_and_double_backward(torch):
    def go(M):
        x = M.tensor([0.5, -1.0, 2.0], dtype=M.float64, requires_grad=True)

        def f(x, *, power):
            return {"y": x ** power, "z": [x.exp()]}

        out = M.utils.checkpoint.checkpoint(f, x, use_reentrant=False, power=3, preserve_rng_state=False)
        (g,) = M.autograd.grad(out["y"].sum() + out["z"][0].sum(), x, create_graph=True)
        (gg,) = M.autograd.grad(g.sum(), x)
        return g.detach(), gg

    (g, gg), (gt, ggt) = go(G), go(torch)
    assert_same_values(g, gt)
    assert_same_values(gg, ggt)


def test_backward_inputs_non_reentrant(torch):
    def go(M):
        net = model(M)
        x = M.tensor(X, requires_grad=True)
        y = M.utils.checkpoint.checkpoint(net, x, use_reentrant=False, preserve_rng_state=False)
        y.sum().backward(inputs=[x])
        return x.grad, net[0].weight.grad

    (xg, wg), (xt, wt) = go(G), go(torch)
    assert_same_values(xg, xt)
    assert wg is None and wt is None


@pytest.mark.parametrize("use_reentrant", [True, False])
@pytest.mark.parametrize("segments", [1, 2, 3])
def test_checkpoint_sequential(use_reentrant, segments, torch):
    def go(M, as_list):
        net = model(M)
        x = M.tensor(X, requires_grad=True)
        fns = list(net) if as_list else net
        y = M.utils.checkpoint.checkpoint_sequential(fns, segments, x, use_reentrant=use_reentrant,
                                                     preserve_rng_state=PRESERVE if M is G else True)
        y.sum().backward()
        return y, [x.grad] + [p.grad for p in net.parameters()]

    for as_list in (False, True):
        (y, g), (yt, gt) = go(G, as_list), go(torch, as_list)
        assert_same_values(y, yt)
        assert node_name(y.grad_fn) == node_name(yt.grad_fn)
        same_grads(g, gt)


def test_checkpoint_keeps_fewer_nodes_alive():
    """What the memory saving rests on: after the forward, the checkpointed region's graph
    (nodes and the activations they save) is gone."""
    def live_after(use_reentrant):
        x = G.randn(8, 8, requires_grad=True)

        def deep(x):
            for _ in range(50):
                x = (x * 1.01).tanh()
            return x

        y = (G.utils.checkpoint.checkpoint(deep, x, use_reentrant=use_reentrant, preserve_rng_state=False)
             if use_reentrant is not None else deep(x))
        n = G._native._live_nodes()
        y.sum().backward()
        return n

    plain = live_after(None)
    assert live_after(True) < plain - 90
    assert live_after(False) < plain - 90


def use_reentrant_missing(M):
    x = M.ones(2, requires_grad=True)
    return M.utils.checkpoint.checkpoint(lambda x: x * 2, x, preserve_rng_state=False).grad_fn.name()


def sequential_reentrant_missing(M):
    x = M.ones(2, requires_grad=True)
    return M.utils.checkpoint.checkpoint_sequential([M.nn.Tanh(), M.nn.Tanh()], 2, x, preserve_rng_state=False)


def test_warns_without_use_reentrant():
    check_warning(use_reentrant_missing)
    check_warning(sequential_reentrant_missing)


ERRORS = [
    lambda M: M.utils.checkpoint.checkpoint(lambda x, y: x, M.ones(1), use_reentrant=True, y=1),
    lambda M: M.utils.checkpoint.checkpoint(lambda x: x, M.ones(1), use_reentrant=True,
                                            context_fn=M.utils.checkpoint.noop_context_fn.__call__),
    lambda M: M.utils.checkpoint.checkpoint(lambda x: x, M.ones(1), use_reentrant=True, debug=True),
    lambda M: M.utils.checkpoint.checkpoint(lambda x: x, M.ones(1), use_reentrant=False, determinism_check="x",
                                            preserve_rng_state=False),
    lambda M: M.utils.checkpoint.checkpoint_sequential([M.nn.Tanh()], 1, M.ones(1), use_reentrant=False, foo=1),
    lambda M: M.utils.checkpoint.detach_variable([M.ones(1)]),
    # the reentrant backward of a function whose recomputed output needs no gradient
    lambda M: M.utils.checkpoint.checkpoint(lambda x: x.detach() * 2, M.ones(2, requires_grad=True),
                                            use_reentrant=True, preserve_rng_state=False).sum().backward(),
]


@pytest.mark.parametrize("case", range(len(ERRORS)))
def test_errors(case):
    check_error(ERRORS[case])


def test_recomputation_that_differs_is_caught():
    calls = []

    def f(x):
        calls.append(1)
        return x[: len(calls)] * 2  # a different shape on the rerun

    x = G.ones(4, requires_grad=True)
    y = G.utils.checkpoint.checkpoint(f, x, use_reentrant=False, preserve_rng_state=False)
    # PyTorch raises its CheckpointError (a RuntimeError); raised inside gradrs's backward it
    # reaches the caller as the RuntimeError the engine reports.
    with pytest.raises(RuntimeError, match="have different metadata"):
        y.sum().backward()


def test_second_backward_fails_as_torch(torch):
    def go(M):
        x = M.ones(2, requires_grad=True)
        y = M.utils.checkpoint.checkpoint(lambda x: x.exp(), x, use_reentrant=True, preserve_rng_state=False)
        y.sum().backward()
        y.sum().backward()

    check_error(go)
    need_torch()


@pytest.mark.parametrize("use_reentrant", [True, False])
def test_outputs_used_separately(use_reentrant, torch):
    """Several outputs: a backward through one of them, then through the other (retained)."""
    def go(M):
        net = model(M)
        x = M.tensor(X, requires_grad=True)
        a, b = M.utils.checkpoint.checkpoint(lambda x: (net(x), net[0](x).sum()), x,
                                             use_reentrant=use_reentrant,
                                             preserve_rng_state=PRESERVE if M is G else True)
        (a ** 2).sum().backward(retain_graph=True)
        first = [x.grad.clone(), net[0].weight.grad.clone()]
        b.backward()
        return first + [x.grad, net[0].weight.grad]

    same_grads(go(G), go(torch))


@pytest.mark.parametrize("outer", [True, False])
@pytest.mark.parametrize("inner", [True, False])
def test_nested(outer, inner, torch):
    def go(M):
        net = model(M)
        x = M.tensor(X, requires_grad=True)
        keep = PRESERVE if M is G else True

        def block(x):
            h = M.utils.checkpoint.checkpoint(lambda x: net[1](net[0](x)), x, use_reentrant=inner,
                                              preserve_rng_state=keep)
            return net[4](net[3](h))

        y = M.utils.checkpoint.checkpoint(block, x, use_reentrant=outer, preserve_rng_state=keep)
        (y ** 2).sum().backward()
        return [x.grad] + [p.grad for p in net.parameters()]

    same_grads(go(G), go(torch))


_REENTRANT_TARGETS = (
    "When use_reentrant=True, gradrs.utils.checkpoint is incompatible with .grad() or passing "
    "an `inputs` parameter to .backward(). To resolve this error, you can either set "
    "use_reentrant=False, or call .backward() without passing the `inputs` argument.")


@pytest.mark.parametrize("how", ["grad", "inputs"])
def test_reentrant_with_grad_or_inputs_raises(how):
    """The reentrant variant's inner backward accumulates into .grad, which autograd.grad and
    backward(inputs=...) would not see: PyTorch's error; the other variant works."""

    def go(M, use_reentrant):
        net = model(M)
        x = M.tensor(X, requires_grad=True)
        y = M.utils.checkpoint.checkpoint(net, x, use_reentrant=use_reentrant,
                                          preserve_rng_state=False).sum()
        if how == "grad":
            return M.autograd.grad(y, x)[0]
        y.backward(inputs=[x])
        return x.grad

    with pytest.raises(RuntimeError) as e:
        go(G, True)
    assert str(e.value) == _REENTRANT_TARGETS
    assert go(G, False).shape == (6, 4)
    try:
        torch = need_torch()
    except pytest.skip.Exception:
        return
    check_error(lambda M: go(M, True))
    assert_same_values(go(G, False), go(torch, False))
    # A plain backward() is fine, also when the checkpoint is reached from inside it.
    net = model(G)
    x = G.tensor(X, requires_grad=True)
    y = G.utils.checkpoint.checkpoint(net, x, use_reentrant=True, preserve_rng_state=False)
    y.sum().backward()
    assert x.grad is not None
