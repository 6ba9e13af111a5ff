"""NumPy's keyword names (`axis`, `keepdims`, `x` / `a` / `x1`, `x2`) on the ops PyTorch's
argument parser reads, the error when a parameter is given both ways, and the ops PyTorch
writes in Python (which take none); against torch 2.13."""

import pytest
from conftest import check, check_error


def _x(m):
    return m.tensor([[1.0, -2.0, 3.0], [0.5, 4.0, -1.0]])


def _y(m):
    return m.tensor([[0.0, 1.0, 5.0], [2.0, -3.0, 1.0]])


def _i(m):
    return m.tensor([[0, 2], [1, 0]])


ACCEPTED = {
    # native Tensor methods
    "sum": lambda m: _x(m).sum(axis=0),
    "sum_tuple_keepdims": lambda m: _x(m).sum(axis=(0, 1), keepdims=True),
    "sum_pos_keepdims": lambda m: _x(m).sum(1, keepdims=True),
    "mean": lambda m: _x(m).mean(axis=1, keepdims=True),
    "max": lambda m: _x(m).max(axis=0),
    "max_keepdims": lambda m: _x(m).max(axis=1, keepdims=True),
    "min": lambda m: _x(m).min(axis=1),
    "argmax": lambda m: _x(m).argmax(axis=1),
    "argmin_keepdims": lambda m: _x(m).argmin(axis=0, keepdims=True),
    "std": lambda m: _x(m).std(axis=0),
    "var": lambda m: _x(m).var(axis=1, keepdims=True),
    "prod": lambda m: _x(m).prod(axis=0),
    "cumsum": lambda m: _x(m).cumsum(axis=1),
    "softmax": lambda m: _x(m).softmax(axis=0),
    "log_softmax": lambda m: _x(m).log_softmax(axis=1),
    "logsumexp": lambda m: _x(m).logsumexp(axis=1, keepdims=True),
    "unsqueeze": lambda m: _x(m).unsqueeze(axis=0),
    "squeeze": lambda m: _x(m)[None].squeeze(axis=0),
    "all": lambda m: (_x(m) > 0).all(axis=0),
    "any": lambda m: (_x(m) > 0).any(axis=1, keepdims=True),
    "amax": lambda m: _x(m).amax(axis=0),
    "nansum": lambda m: _x(m).nansum(axis=1),
    "size": lambda m: _x(m).size(axis=1),
    "median": lambda m: _x(m).median(axis=0),
    "topk": lambda m: _x(m).topk(2, axis=1),
    "sort": lambda m: _x(m).sort(axis=0),
    "argsort": lambda m: _x(m).argsort(axis=1),
    "chunk": lambda m: _x(m).chunk(2, axis=0),
    "gather": lambda m: _x(m).gather(axis=1, index=_i(m)),
    "index_select": lambda m: _x(m).index_select(axis=1, index=m.tensor([2, 0])),
    "add": lambda m: _x(m).add(x2=_y(m)),
    "mul": lambda m: _x(m).mul(x2=_y(m)),
    "maximum": lambda m: _x(m).maximum(x2=_y(m)),
    "eq": lambda m: _x(m).eq(x2=_y(m)),
    "atan2": lambda m: _x(m).atan2(x2=_y(m)),
    # Python Tensor methods of gradrs that PyTorch's parser reads
    "cummax": lambda m: _x(m).cummax(axis=0),
    "logcumsumexp": lambda m: _x(m).logcumsumexp(axis=1),
    "count_nonzero": lambda m: _x(m).count_nonzero(axis=0),
    "diff": lambda m: _x(m).diff(axis=1),
    "mode": lambda m: _x(m).mode(axis=0),
    "nanmedian": lambda m: _x(m).nanmedian(axis=1),
    # functions
    "f_sum": lambda m: m.sum(_x(m), axis=0),
    "f_sum_a": lambda m: m.sum(a=_x(m), axis=0),
    "f_sum_x": lambda m: m.sum(x=_x(m), axis=1, keepdims=True),
    "f_mean_x1": lambda m: m.mean(x1=_x(m), axis=1, keepdims=True),
    "f_exp_x": lambda m: m.exp(x=_y(m)),
    "f_add": lambda m: m.add(x1=_x(m), x2=_y(m)),
    "f_sub": lambda m: m.sub(_x(m), x2=_y(m)),
    "f_max": lambda m: m.max(_x(m), axis=0),
    "f_argmax": lambda m: m.argmax(_x(m), axis=1),
    "f_cumsum": lambda m: m.cumsum(_x(m), axis=1),
    "f_std": lambda m: m.std(_x(m), axis=0, keepdims=True),
    "f_softmax": lambda m: m.softmax(_x(m), axis=0),
    "f_squeeze": lambda m: m.squeeze(_x(m)[None], axis=0),
    "f_cat": lambda m: m.cat([_x(m), _y(m)], axis=0),
    "f_stack": lambda m: m.stack([_x(m), _y(m)], axis=1),
    "f_where": lambda m: m.where(_x(m) > 0, x1=_x(m), x2=_y(m)),
}


@pytest.mark.parametrize("name", sorted(ACCEPTED))
def test_numpy_names_accepted(name):
    def run(m):
        res = ACCEPTED[name](m)
        # return_types: compared by value
        return tuple(res) if isinstance(res, tuple) and type(res) is not tuple else res
    check(run)


REFUSED = {
    # a parameter given both ways
    "both_kw": lambda m: _x(m).sum(axis=0, dim=0),
    "both_pos": lambda m: _x(m).sum(0, axis=1),
    "both_keepdim": lambda m: _x(m).sum(0, keepdim=True, keepdims=True),
    "both_max": lambda m: _x(m).max(dim=0, axis=0),
    "both_other": lambda m: _x(m).add(_y(m), x2=_y(m)),
    "both_f_sum": lambda m: m.sum(_x(m), axis=0, dim=0),
    "both_f_cumsum": lambda m: m.cumsum(_x(m), axis=0, dim=0),
    "both_f_add": lambda m: m.add(_x(m), _y(m), x2=_y(m)),
    # ops PyTorch writes in Python take no NumPy names
    "norm": lambda m: _x(m).norm(axis=0),
    "split": lambda m: _x(m).split(1, axis=0),
    "unflatten": lambda m: _x(m).unflatten(axis=1, sizes=(3, 1)),
    "F_softmax": lambda m: m.nn.functional.softmax(_x(m), axis=0),
}


@pytest.mark.parametrize("name", sorted(REFUSED))
def test_numpy_names_refused(name):
    check_error(REFUSED[name])


def test_no_keywords_unchanged():
    """The trampoline passes positional calls and PyTorch's own keywords straight through."""
    check(lambda m: (_x(m).sum(1, True), _x(m).sum(dim=1, keepdim=True, dtype=m.float64)))
