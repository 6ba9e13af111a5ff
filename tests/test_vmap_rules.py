"""vmap's batching rules for F.conv1d / conv2d, the poolings, unfold / fold / interpolate,
the native activations, F.embedding, F.one_hot, F.nll_loss / cross_entropy /
binary_cross_entropy, sort / topk / tril / roll, einsum, gradrs.linalg, index_select and
`x[:, index]` with a batched index, `func.vjp` and `autograd.grad` inside vmap: values and
gradients against a Python loop and `torch.func.vmap`, with no per-call fallback, and graphs
that do not grow with the batch."""

import numpy as np
import pytest
from conftest import G, norm, norm_g

from gradrs import _vmap


@pytest.fixture
def batched_only(monkeypatch):
    """Fail where vmap would take its per-call fallback or a per-op loop."""
    def refuse(*a, **k):
        raise AssertionError("vmap fell back to a per-sample loop")
    monkeypatch.setattr(_vmap, "_loop_call", refuse)
    monkeypatch.setattr(_vmap, "_per_sample", refuse)


_rng = np.random.default_rng(0)


def R(*s):
    return _rng.standard_normal(s)


def Ix(hi, *s):
    return _rng.integers(0, hi, s)


def Pos(*s):
    return np.abs(_rng.standard_normal(s)) + 0.1


# name: (function of the module, arrays (floats are differentiated), in_dims)
CASES = {
    "conv1d_input": (lambda m: lambda x, w: m.nn.functional.conv1d(x, w, padding=1),
                     [R(3, 2, 4, 7), R(5, 4, 3)], (0, None)),
    "conv1d_unbatched_sample_bias": (
        lambda m: lambda x, w, b: m.nn.functional.conv1d(x, w, b, stride=2),
        [R(3, 4, 7), R(6, 4, 3), R(6)], (0, None, None)),
    "conv1d_weight_groups": (lambda m: lambda x, w: m.nn.functional.conv1d(x, w, groups=2),
                             [R(2, 4, 7), R(3, 6, 2, 3)], (None, 0)),
    "conv1d_all_same": (
        lambda m: lambda x, w, b: m.nn.functional.conv1d(x, w, b, groups=2, padding="same"),
        [R(3, 2, 4, 7), R(3, 6, 2, 3), R(3, 6)], (0, 0, 0)),
    "conv1d_both_dilation": (lambda m: lambda x, w: m.nn.functional.conv1d(x, w, dilation=2),
                             [R(3, 4, 9), R(3, 6, 4, 3)], (0, 0)),
    "conv2d_weight": (lambda m: lambda x, w: m.nn.functional.conv2d(x, w),
                      [R(4, 5, 5), R(3, 6, 4, 3, 3)], (None, 0)),
    "conv2d_input_dim1": (lambda m: lambda x, w: m.nn.functional.conv2d(x, w, padding=(1, 0)),
                          [R(2, 3, 4, 5, 5), R(6, 4, 3, 3)], (1, None)),
    "conv2d_both_groups": (lambda m: lambda x, w: m.nn.functional.conv2d(x, w, groups=2),
                           [R(3, 2, 4, 5, 5), R(3, 6, 2, 3, 3)], (0, 0)),
    "conv2d_bias_batched": (lambda m: lambda x, w, b: m.nn.functional.conv2d(x, w, b),
                            [R(2, 4, 5, 5), R(6, 4, 3, 3), R(3, 6)], (None, None, 0)),
    "embedding": (lambda m: lambda i, w: m.nn.functional.embedding(i, w, padding_idx=1),
                  [Ix(6, 3, 4), R(6, 5)], (0, None)),
    "embedding_both": (lambda m: lambda i, w: m.nn.functional.embedding(i, w),
                       [Ix(6, 3, 4), R(3, 6, 5)], (0, 0)),
    "nll_loss": (lambda m: lambda x, t: m.nn.functional.nll_loss(x, t),
                 [R(3, 4, 5), Ix(5, 3, 4)], (0, 0)),
    "nll_loss_weight_sum": (
        lambda m: lambda x, t: m.nn.functional.nll_loss(
            x, t, m.tensor([0.5, 1.0, 2.0, 0.1, 3.0], dtype=m.float64), ignore_index=2,
            reduction="sum"),
        [R(3, 4, 5), Ix(5, 3, 4)], (0, 0)),
    "nll_loss_weight_mean_2d": (
        lambda m: lambda x, t: m.nn.functional.nll_loss(
            x, t, m.tensor([0.5, 1.0, 2.0, 0.1, 3.0], dtype=m.float64), ignore_index=2),
        [R(3, 4, 5, 2), Ix(5, 3, 4, 2)], (0, 0)),
    "nll_loss_1d_none": (lambda m: lambda x, t: m.nn.functional.nll_loss(x, t, reduction="none"),
                         [R(3, 5), Ix(5, 3)], (0, 0)),
    "cross_entropy": (lambda m: lambda x, t: m.nn.functional.cross_entropy(x, t),
                      [R(3, 4, 5), Ix(5, 3, 4)], (0, 0)),
    "cross_entropy_shared_target_smoothing": (
        lambda m: lambda x, t: m.nn.functional.cross_entropy(x, t, label_smoothing=0.2),
        [R(3, 4, 5), Ix(5, 4)], (0, None)),
    "cross_entropy_shared_input": (lambda m: lambda x, t: m.nn.functional.cross_entropy(x, t),
                                   [R(4, 5), Ix(5, 3, 4)], (None, 0)),
    "cross_entropy_probs": (
        lambda m: lambda x, t: m.nn.functional.cross_entropy(x, t.softmax(-1)),
        [R(3, 4, 5), R(3, 4, 5)], (0, 0)),
    "cross_entropy_none_2d": (
        lambda m: lambda x, t: m.nn.functional.cross_entropy(x, t, reduction="none"),
        [R(3, 4, 5, 2), Ix(5, 3, 4, 2)], (0, 0)),
    "index_select": (lambda m: lambda x, i: x.index_select(1, i), [R(3, 4, 5), Ix(5, 3, 2)],
                     (0, 0)),
    "index_select_scalar_index": (lambda m: lambda x, i: x.index_select(-1, i),
                                  [R(3, 4, 5), Ix(5, 3)], (0, 0)),
    "max_pool2d_indices": (
        lambda m: lambda x: m.nn.functional.max_pool2d(x, 2, 1, return_indices=True)[0] * 1.0
        + m.nn.functional.max_pool2d(x, 2, 1, return_indices=True)[1].double(),
        [R(3, 2, 4, 5, 5)], (0,)),
    "max_pool1d_unbatched_sample": (lambda m: lambda x: m.nn.functional.max_pool1d(x, 3, 2, 1),
                                    [R(3, 4, 7)], (0,)),
    "avg_pool2d_dim1": (
        lambda m: lambda x: m.nn.functional.avg_pool2d(x, 2, ceil_mode=True,
                                                       count_include_pad=False),
        [R(2, 3, 4, 5, 5)], (1,)),
    "adaptive_avg_pool2d": (lambda m: lambda x: m.nn.functional.adaptive_avg_pool2d(x, (2, 3)),
                            [R(3, 2, 4, 5, 5)], (0,)),
    "adaptive_max_pool1d": (lambda m: lambda x: m.nn.functional.adaptive_max_pool1d(x, 3),
                            [R(3, 4, 7)], (0,)),
    "lp_pool2d": (lambda m: lambda x: m.nn.functional.lp_pool2d(x.abs() + 0.1, 2.0, 2),
                  [R(3, 2, 4, 4, 4)], (0,)),
    "activations": (
        lambda m: lambda x: m.nn.functional.gelu(x, approximate="tanh")
        + m.nn.functional.silu(x) + m.nn.functional.softplus(x, beta=2)
        + m.nn.functional.elu(x * 1.0, inplace=True) + m.nn.functional.leaky_relu(x, 0.1)
        + m.nn.functional.hardtanh(x, -0.5, 0.5) + m.nn.functional.relu6(x * 4),
        [R(3, 2, 4, 6)], (0,)),
    "binary_cross_entropy": (
        lambda m: lambda x, t: m.nn.functional.binary_cross_entropy(x.sigmoid(), t.sigmoid(),
                                                                    reduction="sum"),
        [R(3, 2, 4), R(2, 4)], (0, None)),
    "binary_cross_entropy_weight": (
        lambda m: lambda x, t: m.nn.functional.binary_cross_entropy(
            x.sigmoid(), t.sigmoid(), weight=m.arange(4, dtype=m.float64)),
        [R(3, 2, 4), R(3, 2, 4)], (0, 0)),
    "unfold_fold": (
        lambda m: lambda x: m.nn.functional.fold(m.nn.functional.unfold(x, 2), (4, 6), 2)
        + m.nn.functional.unfold(x[None], 2, padding=1).sum(),
        [R(3, 2, 4, 6)], (0,)),
    "interpolate": (
        lambda m: lambda x: m.nn.functional.interpolate(x, scale_factor=2, mode="linear")
        .sum(-1) + m.nn.functional.interpolate(x[None], size=(5, 7), mode="bilinear",
                                              align_corners=True).sum((-2, -1))[0, :, None],
        [R(3, 2, 4, 6)], (0,)),
    "sort_topk": (
        lambda m: lambda x: m.sort(x, 1, descending=True)[0] + x.sort()[1] + x.argsort(dim=0)
        + x.topk(2)[0].sum() + x.topk(2, 1, largest=False)[1].sum()
        + x.kthvalue(2, 0)[0].sum(),
        [R(3, 2, 4, 6)], (0,)),
    "tril_roll": (lambda m: lambda x: x.tril(1) - x.triu(-1) + x.roll(2) + x.roll((1, -1), (0, -1)),
                  [R(3, 2, 4, 6)], (0,)),
    "one_hot": (lambda m: lambda x, i: x * m.nn.functional.one_hot(i, 5), [R(3, 4, 5), Ix(5, 3, 4)],
                (0, 0)),
    "einsum": (lambda m: lambda x, y: m.einsum("ij,kj->ik", x, y) + m.einsum("ij,jk", x, y.T)
               + m.einsum("...j,...j", x, x)[:, None] + m.einsum(x, [0, 1], y, [2, 1], [0, 2]),
               [R(3, 4, 5), R(4, 5)], (0, None)),
    "einsum_both_list": (lambda m: lambda x, y: m.einsum("bij,bkj->bik", [x, y]),
                         [R(3, 2, 4, 5), R(3, 2, 4, 5)], (0, 0)),
    "linalg_factorizations": (
        lambda m: lambda a: m.linalg.det(a) + m.linalg.slogdet(a).logabsdet
        + m.linalg.inv(a).sum((-2, -1)) + m.linalg.svdvals(a).sum(-1)
        + m.linalg.qr(a).R.abs().sum((-2, -1)) + m.linalg.lu(a).U.sum((-2, -1))
        + m.linalg.pinv(a).sum((-2, -1)) + m.linalg.matrix_exp(a).sum((-2, -1))
        + a.matrix_power(-2).sum((-2, -1)) + m.linalg.cond(a) + a.det(),
        [R(3, 2, 3, 3)], (0,)),
    "linalg_symmetric": (
        lambda m: lambda a: (lambda s: m.linalg.cholesky(s).sum((-2, -1))
                             + m.linalg.eigh(s).eigenvalues.sum(-1) + m.logdet(s)
                             + m.cholesky_inverse(m.linalg.cholesky(s)).sum((-2, -1)))(
            a @ a.mT + 3 * m.eye(3, dtype=m.float64)),
        [R(3, 3, 3)], (0,)),
    "linalg_solves": (
        lambda m: lambda a, b: m.linalg.solve(a, b[:, 0]).sum() + m.linalg.solve(a, b).sum()
        + m.linalg.solve(a, b.mT, left=False).sum()
        + m.linalg.solve_triangular(a.triu(), b, upper=True).sum()
        + m.linalg.lu_solve(*m.linalg.lu_factor(a), b).sum()
        + m.linalg.lstsq(a, b).solution.sum()
        + m.cholesky_solve(b, m.linalg.cholesky(a @ a.mT + 3 * m.eye(3, dtype=m.float64))).sum(),
        [R(3, 3, 3), R(3, 2)], (0, None)),
    "linalg_solve_shared_a": (lambda m: lambda b, a: m.linalg.solve(a, b),
                              [R(3, 3), R(3, 3)], (0, None)),
    "getitem_batched_index": (lambda m: lambda x, i: x[i], [R(3, 4, 5), Ix(4, 3, 2, 2) - 2],
                              (0, 0)),
    "getitem_slice_batched_index": (lambda m: lambda x, i: x[:, i], [R(3, 4, 5), Ix(5, 3, 3)],
                                    (0, 0)),
}


def _run(m, case, vmap=True):
    fn, arrays, in_dims = CASES[case]
    ts = [m.tensor(a, dtype=m.float64 if a.dtype.kind == "f" else m.int64) for a in arrays]
    for t in ts:
        if t.is_floating_point():
            t.requires_grad_()
    f = fn(m)
    if vmap:
        out = m.func.vmap(f, in_dims=in_dims)(*ts)
    else:
        size = next(t.shape[d] for t, d in zip(ts, in_dims) if d is not None)
        out = m.stack([f(*[t if d is None else t.select(d, i) for t, d in zip(ts, in_dims)])
                       for i in range(size)])
    grads = m.autograd.grad((out * out.detach().cos()).sum(),
                            [t for t in ts if t.requires_grad])
    return [out.detach().numpy()] + [g.numpy() for g in grads]


def _same(a, b):
    assert len(a) == len(b)
    for x, y in zip(a, b):
        np.testing.assert_allclose(x, y, rtol=1e-10, atol=1e-12)


@pytest.mark.parametrize("case", sorted(CASES))
def test_rule_matches_loop(case, batched_only):
    _same(_run(G, case), _run(G, case, vmap=False))


# torch.func.vmap gives index_select with a 0-d index per sample the wrong shape (4, 5) where
# a sample's index_select gives (4, 1) (torch 2.13); gradrs's rule gives the loop's.
@pytest.mark.parametrize("case", sorted(set(CASES) - {"index_select_scalar_index"}))
def test_rule_matches_torch(case, torch, batched_only):
    _same(_run(G, case), _run(torch, case))


def test_cross_entropy_weight_and_smoothing_matches_loop(batched_only):
    """PyTorch's vmap refuses this one (a masked_select in its decomposition); gradrs's rule
    gives the loop's values and gradients."""
    w = G.tensor([0.5, 1.0, 2.0, 0.1, 3.0], dtype=G.float64)
    x = G.tensor(R(3, 4, 5), requires_grad=True)
    t = G.tensor(Ix(5, 3, 4))
    for red in ("none", "mean", "sum"):
        def f(a, b, red=red):
            return G.nn.functional.cross_entropy(a, b, w, ignore_index=0, label_smoothing=0.1,
                                                 reduction=red)
        out = G.func.vmap(f)(x, t)
        loop = G.stack([f(x[i], t[i]) for i in range(3)])
        ga, = G.autograd.grad(out.sum(), x)
        gb, = G.autograd.grad(loop.sum(), x)
        np.testing.assert_allclose(out.detach().numpy(), loop.detach().numpy(), atol=1e-12)
        np.testing.assert_allclose(ga.numpy(), gb.numpy(), atol=1e-12)


def _nodes(out):
    seen, todo = set(), [out.grad_fn]
    while todo:
        n = todo.pop()
        if n is None or n in seen:
            continue
        seen.add(n)
        todo += [f for f, _ in n.next_functions]
    return len(seen)


@pytest.mark.parametrize("case", ["conv1d_all_same", "conv2d_both_groups", "embedding_both",
                                  "nll_loss_weight_mean_2d", "cross_entropy", "index_select"])
def test_graph_does_not_grow_with_batch(case, batched_only):
    fn, arrays, in_dims = CASES[case]
    counts = []
    for size in (2, 5):
        ts = []
        for a, d in zip(arrays, in_dims):
            if d is not None:
                a = np.take(a, np.arange(size) % a.shape[d], axis=d)
            t = G.tensor(a, dtype=G.float64 if a.dtype.kind == "f" else G.int64)
            ts.append(t.requires_grad_() if t.is_floating_point() else t)
        counts.append(_nodes(G.func.vmap(fn(G), in_dims=in_dims)(*ts)))
    assert counts[0] == counts[1] > 0


ERRORS = [
    (lambda m: lambda x: m.nn.functional.conv1d(x, m.ones(2, 3, 3)), lambda m: (m.ones(2, 3),)),
    (lambda m: lambda x: m.nn.functional.conv1d(x, m.ones(2, 3, 3)),
     lambda m: (m.ones(4, 2, 5),)),
    (lambda m: lambda w: m.nn.functional.conv1d(m.ones(2, 5), w),
     lambda m: (m.ones(4, 2, 3, 3),)),
    (lambda m: lambda x, t: m.nn.functional.cross_entropy(x, t),
     lambda m: (m.ones(4, 3, 5), m.zeros(4, 2, dtype=m.long))),
    (lambda m: lambda i: m.nn.functional.embedding(i, m.ones(3, 2)),
     lambda m: (m.full((4, 2), 5, dtype=m.long),)),
]


@pytest.mark.parametrize("k", range(len(ERRORS)))
def test_errors_name_a_sample_as_torch(torch, k):
    fn, args = ERRORS[k]
    errs = []
    for m in (G, torch):
        with pytest.raises(Exception) as info:  # noqa: PT011 - compared with torch's below
            m.func.vmap(fn(m))(*args(m))
        errs.append((type(info.value).__name__, str(info.value)))
    assert errs[0] == errs[1]


def _vjp_cases(m, xa, va, wa):
    W = m.tensor(wa)

    def fn(x, w):
        return (x @ w).tanh() * x, x.sum()

    def per(x, v):
        _, vjp_fn = m.func.vjp(fn, x, W)
        return vjp_fn((v, x.sum() * 0 + 1.0))

    r1 = m.func.vmap(per)(m.tensor(xa), m.tensor(va))
    _, vjp_fn = m.func.vjp(lambda x: (x @ W).sin(), m.tensor(xa[0]))
    r2 = m.func.vmap(vjp_fn)(m.tensor(va))
    r3 = m.func.vmap(lambda x: m.func.vjp(lambda a, b: a * 2, x, W)[1](m.ones(3)))(
        m.tensor(xa))
    r4 = m.func.jacrev(lambda x: (x @ W).exp())(m.tensor(xa[1]))
    return [t.detach().numpy() for t in (*r1, *r2, *r3, r4)]


def test_vjp_inside_vmap_as_torch(torch, batched_only):
    """vjp inside vmap (batched primals: one backward of batched leaves) and vjp_fn mapped
    over a batch of cotangents (one graph, is_grads_batched's passes)."""
    xa, va, wa = R(4, 3), R(4, 3), R(3, 3)
    _same(_vjp_cases(G, xa, va, wa), _vjp_cases(torch, xa, va, wa))


def test_per_sample_gradients_of_a_cnn_as_torch(torch, batched_only):
    """vmap(grad(loss)) over functional_call of a small CNN (conv, relu, max pool, linear,
    cross entropy): each sample's gradients in one batched pass, as torch.func's."""
    xa = R(4, 1, 8, 8)
    ya = Ix(3, 4)
    params = [R(4, 1, 3, 3) * 0.3, R(4) * 0.3, R(4, 4, 3, 3) * 0.3, R(4) * 0.3, R(3, 64) * 0.3,
              R(3) * 0.3]

    def run(m):
        m.manual_seed(0)
        net = m.nn.Sequential(m.nn.Conv2d(1, 4, 3, padding=1), m.nn.ReLU(), m.nn.MaxPool2d(2),
                              m.nn.Conv2d(4, 4, 3, padding="same"), m.nn.Flatten(0),
                              m.nn.Linear(64, 3)).double()
        p = {k: m.tensor(a) for (k, _), a in zip(net.named_parameters(), params)}

        def loss(p, x, y):
            out = m.func.functional_call(net, p, (x,))
            return m.nn.functional.cross_entropy(out[None], y[None])

        g = m.func.vmap(m.func.grad(loss), in_dims=(None, 0, 0))(p, m.tensor(xa), m.tensor(ya))
        return [g[k].detach().numpy() for k in sorted(g)]

    _same(run(G), run(torch))


def test_jacobians_of_linalg_in_one_batched_call(torch, batched_only):
    """jacfwd / jacrev of factorizations: vmap over the basis runs each linalg node once for
    the whole basis (no per-call loop), as torch.func's. (hessian's grad of an input batched
    by the enclosing jacfwd still runs per sample.)"""
    a = R(3, 3)
    s = a @ a.T + 3 * np.eye(3)

    def run(m):
        x, y = m.tensor(a), m.tensor(s)
        return [j.detach().numpy() for j in (
            m.func.jacfwd(m.linalg.det)(x), m.func.jacrev(lambda t: m.linalg.inv(t))(x),
            m.func.jacfwd(lambda t: m.linalg.svdvals(t))(x),
            m.func.jacrev(lambda t: m.linalg.eigh(t).eigenvalues)(y))]

    _same(run(G), run(torch))


def test_nested_reverse_transforms_as_torch(torch):
    """grad(grad(f)), jacrev(jacrev(f)), vmap(grad(grad(f))), a vjp whose function closes over
    its primal, and grad closing over a tensor of the caller's graph: each transform's result
    stays differentiable with respect to an input of an outer one (it gave zeros)."""
    def run(m):
        f64 = m.float64
        x, y = m.tensor(2.0, dtype=f64), m.tensor([2.0, -1.0], dtype=f64)
        xs = m.tensor([[0.5, 1.0], [2.0, 3.0]], dtype=f64)
        w = m.tensor(1.5, dtype=f64, requires_grad=True)
        a = m.tensor([0.5, 1.0], dtype=f64, requires_grad=True)
        g = m.func.grad(lambda t: (t * w).sin())(x)
        r = m.func.vjp(lambda t: t.exp() * a, a)[1](a)[0]
        out = [m.func.grad(m.func.grad(lambda t: t ** 3))(x),
               m.func.grad(m.func.grad(m.func.grad(lambda t: t ** 4)))(x),
               m.func.jacrev(m.func.jacrev(lambda t: t.sin() * t[0]))(y),
               m.func.jacrev(m.func.jacfwd(lambda t: t.sin() * t[0]))(y),
               m.func.vmap(m.func.grad(m.func.grad(lambda t: t.sin() * t)))(xs[0]),
               m.func.vmap(m.func.hessian(lambda t: (t.sin() * t).sum()))(xs),
               m.autograd.grad(g, w)[0], m.autograd.grad(r.sum(), a)[0]]
        return [o.detach().numpy() for o in out]

    _same(run(G), run(torch))


def _functions(m):
    class NoSetup(m.autograd.Function):
        @staticmethod
        def forward(ctx, x):
            return x * 2

        @staticmethod
        def backward(ctx, g):
            return g * 2

    class NoRule(m.autograd.Function):
        @staticmethod
        def forward(x):
            return x * 2

        @staticmethod
        def setup_context(ctx, inputs, output):
            pass

        @staticmethod
        def backward(ctx, g):
            return g * 2

    class Generated(NoRule):
        generate_vmap_rule = True

    class Both(Generated):
        @staticmethod
        def vmap(info, in_dims, x):
            return x * 2, 0

    class OwnRule(NoRule):
        @staticmethod
        def vmap(info, in_dims, x, y):
            # the info and dims the rule sees, folded into the result to compare them
            out = x.sum(0) if in_dims[0] == 0 else x
            return out * info.batch_size + (0 if y is None else 1), None

    class BadReturn(NoRule):
        @staticmethod
        def vmap(info, in_dims, x):
            return x

    return NoSetup, NoRule, Generated, Both, OwnRule, BadReturn


@pytest.mark.parametrize("k", range(6))
def test_autograd_function_under_vmap_as_torch(torch, k):
    """functorch's rules: setup_context required, then generate_vmap_rule or a vmap
    staticmethod (called with the physical tensors, the batch size and in_dims)."""
    def run(m):
        fn = _functions(m)[k]
        x = m.tensor([[1.0, 2.0], [3.0, 4.0], [5.0, 6.0]])
        try:
            if k == 4:
                out = m.func.vmap(lambda a: fn.apply(a, None))(x)
            else:
                out = m.func.vmap(fn.apply)(x)
        except Exception as e:  # noqa: BLE001 - compared with torch's below
            return type(e).__name__, (norm_g if m is G else norm)(str(e))
        return out.tolist()
    assert run(G) == run(torch)


def test_gradcheck_batched_checks_run_any_function():
    """gradcheck's batched checks run a Function without setup_context per sample, as
    PyTorch's legacy vmap runs it."""
    NoSetup = _functions(G)[0]
    x = G.tensor([1.0, 2.0], dtype=G.float64, requires_grad=True)
    assert G.autograd.gradcheck(NoSetup.apply, (x,), check_batched_grad=True)


def test_transform_results_print_as_torch(torch):
    """At the outermost level grad / grad_and_value / vmap(grad) / jacrev / vjp results carry no
    history (functorch unwraps them), unless they depend on the caller's graph."""
    def run(m):
        x = m.tensor([2.0, 1.0])
        w = m.tensor(1.5, requires_grad=True)
        return [repr(v) for v in (
            m.func.grad(lambda t: (t ** 3).sum())(x),
            m.func.grad_and_value(lambda t: (t ** 3).sum())(x)[1],
            m.func.grad(lambda t: ((t ** 3).sum(), t.sin()), has_aux=True)(x)[1],
            m.func.vmap(m.func.grad(lambda t: t ** 3))(x),
            m.func.jacrev(lambda t: t.sin())(x),
            m.func.vjp(lambda t: t.sin(), x)[1](m.ones(2))[0],
            m.func.grad(lambda t: (t * w).sin().sum())(x),
            m.func.hessian(lambda t: (t ** 3).sum())(x))]

    g, t = run(G), run(torch)
    assert g == [norm(r) for r in t]
