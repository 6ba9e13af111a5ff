"""NumPy's keyword names (`x=` / `a=` / `x1=` for `input`, `x2=` for `other`, `axis=`,
`keepdims=`) on the functions PyTorch binds in C (`F.softplus`, `F.gelu`, `F.linear`,
`torch.angle`, `torch.zeros_like`...), which its argument parser reads; the ones it writes in
Python refuse them. Also the parser's texts around them: which keyword an unexpected-keyword
error names, its "missing ... required positional arguments" text (checked before unknown
keywords), and `F.logsigmoid`'s name (ATen's `log_sigmoid`). Against torch 2.13."""

import types
import warnings

import pytest
from conftest import check, check_error

import gradrs as G


def _t(m):
    return m.tensor([[1.0, -2.0, 3.0, 0.5], [0.5, 4.0, -1.0, 2.0], [0.0, 1.5, -0.5, 3.0]])


def _w(m):
    return m.tensor([[0.5, -1.0, 2.0, 1.0], [1.0, 0.0, -0.5, 0.25]])


ACCEPTED = {
    "F.softplus": lambda m: m.nn.functional.softplus(x=_t(m), beta=2),
    "F.gelu": lambda m: m.nn.functional.gelu(x=_t(m), approximate="tanh"),
    "F.logsigmoid": lambda m: m.nn.functional.logsigmoid(x=_t(m)),
    "F.logsigmoid_a": lambda m: m.nn.functional.logsigmoid(a=_t(m)),
    "F.hardshrink": lambda m: m.nn.functional.hardshrink(x1=_t(m), lambd=1.0),
    "F.softshrink": lambda m: m.nn.functional.softshrink(x=_t(m)),
    "F.linear": lambda m: m.nn.functional.linear(x=_t(m), weight=_w(m)),
    "F.elu_": lambda m: m.nn.functional.elu_(x=_t(m)),
    "F.relu_": lambda m: m.nn.functional.relu_(x=_t(m)),
    "F.celu_": lambda m: m.nn.functional.celu_(x=_t(m)),
    "F.pdist": lambda m: m.nn.functional.pdist(x=_t(m)),
    "F.one_hot": lambda m: m.nn.functional.one_hot(x=m.tensor([0, 2, 1]), num_classes=3),
    "F.avg_pool1d": lambda m: m.nn.functional.avg_pool1d(x=_t(m)[None], kernel_size=2),
    "F.pixel_shuffle": lambda m: m.nn.functional.pixel_shuffle(
        x=_t(m).reshape(1, 4, 3, 1), upscale_factor=2),
    "F.prelu": lambda m: m.nn.functional.prelu(x=_t(m), weight=m.tensor([0.25])),
    "F.conv1d": lambda m: m.nn.functional.conv1d(x=_t(m)[None], weight=_t(m)[:2, :3, None]),
    "angle": lambda m: m.angle(x=_t(m)),
    "diag": lambda m: m.diag(x=_t(m), diagonal=1),
    "adjoint": lambda m: m.adjoint(x=_t(m)),
    "zeros_like": lambda m: m.zeros_like(x=_t(m)),
    "ones_like": lambda m: m.ones_like(a=_t(m), dtype=m.float64),
    "trace": lambda m: m.trace(x=_t(m)),
    "det": lambda m: m.det(x=_t(m)[:, :3]),
    "cross": lambda m: m.cross(x=_t(m)[:, :3], other=_w(m)[:1, :3].expand(3, 3), dim=1),
    "gcd": lambda m: m.gcd(x=m.tensor([4, 6]), x2=m.tensor([6, 9])),
    "rms_norm": lambda m: m.rms_norm(x=_t(m), normalized_shape=[4]),
    "combinations": lambda m: m.combinations(x=m.tensor([1, 2, 3])),
    "softmax": lambda m: m.softmax(x=_t(m), axis=1),
    "kron": lambda m: m.kron(x=_w(m), other=_w(m)),
}


@pytest.mark.parametrize("name", sorted(ACCEPTED))
def test_c_bound_functions_take_numpy_names(name):
    check(ACCEPTED[name])


ERRORS = {
    # written in Python in PyTorch: no NumPy names
    "F.relu": lambda m: m.nn.functional.relu(x=_t(m)),
    "F.hardtanh": lambda m: m.nn.functional.hardtanh(x=_t(m)),
    "F.rms_norm": lambda m: m.nn.functional.rms_norm(x=_t(m), normalized_shape=[4]),
    "norm": lambda m: m.norm(x=_t(m)),
    "split": lambda m: m.split(x=_t(m), split_size_or_sections=1),
    # the keyword named: the first, in the call's order, that is no parameter's own name
    "alias_and_unknown": lambda m: m.nn.functional.softplus(x=_t(m), y=1),
    "unknown_and_alias": lambda m: m.nn.functional.softplus(y=1, x=_t(m)),
    "two_aliases": lambda m: m.nn.functional.softplus(a=_t(m), x=_t(m)),
    "alias_and_own": lambda m: m.nn.functional.softplus(x=_t(m), beta=1, input=_t(m)),
    "alias_and_positional": lambda m: m.nn.functional.softplus(_t(m), x=_t(m)),
    "angle_two": lambda m: m.angle(x=_t(m), a=_t(m)),
    "log_sigmoid_two": lambda m: m.nn.functional.logsigmoid(input=_t(m), x=_t(m)),
    # a required parameter left out: PyTorch's text, before unknown keywords
    "linear_missing": lambda m: m.nn.functional.linear(_t(m)),
    "linear_x_missing": lambda m: m.nn.functional.linear(x=_t(m)),
    "log_sigmoid_missing": lambda m: m.nn.functional.logsigmoid(),
    "log_sigmoid_positional": lambda m: m.nn.functional.logsigmoid(_t(m), _t(m)),
    "log_sigmoid_unknown": lambda m: m.nn.functional.logsigmoid(_t(m), y=1),
    "log_sigmoid_str": lambda m: m.nn.functional.logsigmoid("a"),
    "bilinear_x": lambda m: m.nn.functional.bilinear(x=_t(m)),
    "cosine_similarity_x": lambda m: m.nn.functional.cosine_similarity(x=_t(m)),
    "pairwise_distance": lambda m: m.nn.functional.pairwise_distance(_t(m)),
    "threshold_": lambda m: m.nn.functional.threshold_(x=_t(m)),
    "conv_tbc": lambda m: m.nn.functional.conv_tbc(x=_t(m)),
    "sdpa": lambda m: m.nn.functional.scaled_dot_product_attention(x=_t(m)),
    "cross_missing": lambda m: m.cross(x=_t(m)),
    "softmax_missing": lambda m: m.softmax(x=_t(m)),
    "allclose_missing": lambda m: m.allclose(_t(m)),
    "swapaxes_missing": lambda m: m.swapaxes(x=_t(m)),
    "tile_missing": lambda m: m.tile(x=_t(m)),
}


@pytest.mark.parametrize("name", sorted(ERRORS))
def test_parser_texts(name):
    check_error(ERRORS[name])


def test_logsigmoid_name(torch):
    """PyTorch's F.logsigmoid is ATen's `log_sigmoid`: its name and its texts say so."""
    assert G.nn.functional.logsigmoid.__name__ == torch.nn.functional.logsigmoid.__name__
    assert G.nn.functional.logsigmoid.__qualname__ == torch.nn.functional.logsigmoid.__qualname__


def test_torch_function_sees_the_keywords_as_given(torch):
    """A C-bound function passes `x=` on to `__torch_function__` unrenamed."""
    def run(m):
        seen = []

        class S(m.Tensor):
            @classmethod
            def __torch_function__(cls, func, types, args=(), kwargs=None):
                if kwargs:
                    seen.append((func.__name__, len(args), sorted(kwargs)))
                return super().__torch_function__(func, types, args, kwargs)

        s = _t(m).as_subclass(S)
        m.nn.functional.softplus(x=s)
        m.angle(x=s)
        m.nn.functional.logsigmoid(x=s)
        m.zeros_like(x=s)
        m.nn.functional.linear(x=s, weight=_w(m))
        return seen

    assert run(G) == run(torch)


# Refusals whose text differs, for reasons other than NumPy's names
KNOWN = {
    # PyTorch's text names its inner function (`_max_pool2d`, `_return_output`, `_sym_sqrt`)
    **dict.fromkeys("""lu unique unique_consecutive max_pool1d max_pool2d max_pool3d
        adaptive_max_pool1d adaptive_max_pool2d adaptive_max_pool3d fractional_max_pool2d
        fractional_max_pool3d threshold sym_sqrt""".split(), "inner name"),
    # Python functions without parameters in PyTorch (torch/random.py), native ones here:
    # PyO3's "takes no keyword arguments"
    **dict.fromkeys("get_rng_state initial_seed seed".split(), "native"),
}


def _public(mod):
    return sorted(n for n in dir(mod) if not n.startswith("_") and n[0].islower())


def _accepts_x(fn, m):
    try:
        fn(x=_t(m))
    except Exception:
        return False
    return True


@pytest.mark.parametrize("where", ["nn.functional", "top"])
def test_every_function_torch_takes_x_for(torch, where):
    """Sweep: each public function of torch (or torch.nn.functional) that runs on
    `x=<a float tensor>` alone runs on it in gradrs, and the ones that refuse `x` in a
    one-line TypeError naming it refuse it as torch."""
    tmod = torch.nn.functional if where == "nn.functional" else torch
    gmod = G.nn.functional if where == "nn.functional" else G
    differ = []
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        for name in _public(tmod):
            tf, gf = getattr(tmod, name), getattr(gmod, name, None)
            if gf is None or isinstance(tf, type) or not callable(tf) or not isinstance(
                    tf, (types.FunctionType, types.BuiltinFunctionType)):
                continue
            try:
                tf(x=_t(torch))
            except TypeError as e:
                if str(e).endswith("unexpected keyword argument 'x'") and name not in KNOWN:
                    try:
                        gf(x=_t(G))
                        differ.append((name, "accepted"))
                    except TypeError as ge:
                        if str(ge) != str(e):
                            differ.append((name, str(ge)))
                continue
            except Exception:
                continue
            if not _accepts_x(gf, G):
                differ.append((name, "refused"))
    assert differ == [], differ


METHODS = {
    "cumsum_": lambda m: _t(m).cumsum_(axis=0),
    "cumprod_": lambda m: _t(m).cumprod_(axis=1),
    "kron": lambda m: _w(m).kron(x2=_w(m)),
    "kron_function": lambda m: m.kron(x=_w(m), x2=_w(m)),
    "ldexp": lambda m: _w(m).ldexp(x2=m.tensor([1.0, 2.0, 0.0, -1.0])),
    "ldexp_": lambda m: _w(m).ldexp_(x2=m.tensor([1.0, 2.0, 0.0, -1.0])),
    "logical_xor_": lambda m: _t(m).logical_xor_(x2=_t(m) > 0),
}


@pytest.mark.parametrize("name", sorted(METHODS))
def test_python_tensor_methods_take_numpy_names(name):
    """Tensor methods gradrs writes in Python over a parser check or an in-place recompute
    (`cumsum_`, `kron`, `ldexp_`...) take NumPy's names as PyTorch's C methods do."""
    check(METHODS[name])


@pytest.mark.parametrize("call", [
    lambda m: _w(m).kron(x2=_w(m), other=_w(m)),
    lambda m: _t(m).cumsum_(0, axis=1),
])
def test_python_tensor_method_alias_twice(call):
    check_error(call)
