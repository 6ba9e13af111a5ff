"""`__torch_function__` against torch 2.13: the default `Tensor.__torch_function__` (results
wrapped into the subclass), what reaches a subclass's, a duck type's and a mode's
`__torch_function__` (func, types, args, kwargs, in order) from top-level functions, Tensor
methods, dunders, properties and `nn.functional`, the examples of PyTorch's docs ("Extending
torch with a Tensor-like type": ScalarTensor and HANDLED_FUNCTIONS; "Subclassing
torch.Tensor": a logging subclass; TorchFunctionMode), DisableTorchFunction(Subclass), the
errors when every handler refuses, and that plain tensors keep their native methods."""

import importlib
import threading

import pytest
from conftest import G, assert_same_error


def _ov(mod):
    return importlib.import_module(f"{mod.__name__}.overrides")


def _F(mod):
    return importlib.import_module(f"{mod.__name__}.nn.functional")


def _tn(x):
    """The type names of a result (lists and tuples item by item)."""
    if isinstance(x, (tuple, list)) and not hasattr(x, "shape"):
        return [type(x).__name__] + [_tn(i) for i in x]
    return type(x).__name__


def _name(mod, x):
    return type(x).__name__


def _logging(mod):
    """The docs' logging subclass: records each call, then runs the default."""
    calls = []

    class LoggingTensor(mod.Tensor):
        @classmethod
        def __torch_function__(cls, func, types, args=(), kwargs=None):
            calls.append((func.__name__, [t.__name__ for t in types],
                          [type(a).__name__ for a in args], kwargs))
            return super().__torch_function__(func, types, args, kwargs)

    return LoggingTensor, calls


# Calls whose result types and dispatched calls are compared (s: the subclass, a: a Tensor).
_CASES = {
    "s + 1": lambda M, F, s, a: s + 1,
    "1 + s": lambda M, F, s, a: 1 + s,
    "a + s": lambda M, F, s, a: a + s,
    "s + a": lambda M, F, s, a: s + a,
    "s - 1": lambda M, F, s, a: s - 1,
    "1 - s": lambda M, F, s, a: 1 - s,
    "a - s": lambda M, F, s, a: a - s,
    "s * a": lambda M, F, s, a: s * a,
    "2 * s": lambda M, F, s, a: 2 * s,
    "s / 2": lambda M, F, s, a: s / 2,
    "2 / s": lambda M, F, s, a: 2 / s,
    "s ** 2": lambda M, F, s, a: s ** 2,
    "2 ** s": lambda M, F, s, a: 2 ** s,
    "a ** s": lambda M, F, s, a: a ** s,
    "s % 2": lambda M, F, s, a: s % 2,
    "s // 2": lambda M, F, s, a: s // 2,
    "a @ s": lambda M, F, s, a: a @ s,
    "-s": lambda M, F, s, a: -s,
    "abs(s)": lambda M, F, s, a: abs(s),
    "s < a": lambda M, F, s, a: s < a,
    "a < s": lambda M, F, s, a: a < s,
    "s == a": lambda M, F, s, a: s == a,
    "s != 1": lambda M, F, s, a: s != 1,
    "s[0]": lambda M, F, s, a: s[0],
    "s.add(1)": lambda M, F, s, a: s.add(1),
    "s.add(a, alpha=2)": lambda M, F, s, a: s.add(a, alpha=2),
    "s.sum()": lambda M, F, s, a: s.sum(),
    "s.max(0)": lambda M, F, s, a: s.max(0),
    "s.exp()": lambda M, F, s, a: s.exp(),
    "s.reshape(2, 1)": lambda M, F, s, a: s.reshape(2, 1),
    "s.size()": lambda M, F, s, a: s.size(),
    "s.dim()": lambda M, F, s, a: s.dim(),
    "s.tolist()": lambda M, F, s, a: s.tolist(),
    "s.shape": lambda M, F, s, a: s.shape,
    "s.dtype": lambda M, F, s, a: s.dtype,
    "s.grad": lambda M, F, s, a: s.grad,
    "s.requires_grad": lambda M, F, s, a: s.requires_grad,
    "s.mT": lambda M, F, s, a: s.reshape(1, 2).mT,
    "M.add(s, 1)": lambda M, F, s, a: M.add(s, 1),
    "M.add(a, s)": lambda M, F, s, a: M.add(a, s),
    "M.mul(s, a)": lambda M, F, s, a: M.mul(s, a),
    "M.exp(s)": lambda M, F, s, a: M.exp(s),
    "M.cat([a, s])": lambda M, F, s, a: M.cat([a, s]),
    "M.stack((s, a))": lambda M, F, s, a: M.stack((s, a)),
    "M.where(s > 1, s, a)": lambda M, F, s, a: M.where(s > 1, s, a),
    "M.ones_like(s)": lambda M, F, s, a: M.ones_like(s),
    "M.sum(s, 0)": lambda M, F, s, a: M.sum(s, 0),
    "F.relu(s)": lambda M, F, s, a: F.relu(s),
    "len(s)": lambda M, F, s, a: len(s),
    "float(s[0])": lambda M, F, s, a: float(s[0]),
    "s[0] = 5": lambda M, F, s, a: s.__setitem__(0, 5.0),
    "s += 1": lambda M, F, s, a: s.__iadd__(1),
    "list(s)": lambda M, F, s, a: list(s),
    "repr(s)": lambda M, F, s, a: repr(s),
}
# PyTorch writes these in Python and passes all their keywords (F.relu's inplace=False,
# __repr__'s tensor_contents=None): their kwargs are not compared.
_PYTHON_KWARGS = {"relu", "__repr__"}


def _run_case(mod, case):
    LoggingTensor, calls = _logging(mod)
    s = mod.tensor([1.0, 2.0]).as_subclass(LoggingTensor)
    a = mod.tensor([3.0, 4.0])
    del calls[:]
    out = _CASES[case](mod, _F(mod), s, a)
    rec = [(n, ty, ar, None if n in _PYTHON_KWARGS else kw) for n, ty, ar, kw in calls]
    return _tn(out).replace("LoggingTensor", "S") if isinstance(out, str) else _tn(out), rec


@pytest.mark.parametrize("case", sorted(_CASES))
def test_logging_subclass(torch, case):
    assert _run_case(G, case) == _run_case(torch, case)


def test_func_objects(torch):
    """`func` is the public function or the Tensor method PyTorch passes (compared by
    identity within each library, by name across them)."""

    def run(mod):
        F = _F(mod)
        seen = []

        class S(mod.Tensor):
            @classmethod
            def __torch_function__(cls, func, types, args=(), kwargs=None):
                seen.append(func)
                return super().__torch_function__(func, types, args, kwargs)

        s = mod.ones(2).as_subclass(S)
        s.add(1), s + 1, mod.add(s, 1), F.relu(s), mod.cat([s]), s.shape, s.sum(), s[0]
        expected = [mod.Tensor.add, mod.Tensor.add, mod.add, F.relu, mod.cat,
                    mod.Tensor.shape.__get__, mod.Tensor.sum, mod.Tensor.__getitem__]
        return [f == e for f, e in zip(seen, expected)], [f.__name__ for f in seen]

    assert run(G) == run(torch)
    assert all(run(G)[0])


def test_default_subclass_values_and_grad(torch):
    def run(mod):
        class S(mod.Tensor):
            pass

        x = mod.tensor([1.0, 2.0, 3.0], requires_grad=True)
        s = x.as_subclass(S)
        y = (s * s + 1).sum()
        y.backward()
        return (type(y).__name__, y.item(), type(y.grad_fn).__name__ if y.grad_fn else None,
                x.grad.tolist(), type(x.grad).__name__, type(s.detach()).__name__,
                mod.overrides.has_torch_function((s,)), mod.overrides.is_tensor_like(s),
                [b.__name__ for b in S.__mro__ if b.__name__ in ("S", "Tensor", "object")])

    assert run(G) == run(torch)


def test_super_method_override(torch):
    """A subclass's own method calling `super().add` still reaches `__torch_function__`."""

    def run(mod):
        seen = []

        class S(mod.Tensor):
            @classmethod
            def __torch_function__(cls, func, types, args=(), kwargs=None):
                seen.append(func.__name__)
                return super().__torch_function__(func, types, args, kwargs)

            def add(self, other):
                seen.append("own add")
                return super().add(other)

        s = mod.ones(2).as_subclass(S)
        return _tn(s.add(1)), seen

    assert run(G) == run(torch)


def test_parameter_is_not_dispatched(torch):
    def run(mod):
        p = mod.nn.Parameter(mod.ones(2))
        seen = []

        class P(mod.nn.Parameter):
            @classmethod
            def __torch_function__(cls, func, types, args=(), kwargs=None):
                seen.append(func.__name__)
                return super().__torch_function__(func, types, args, kwargs)

        q = P(mod.ones(2))
        return (_tn(p + 1), _tn(p.sum()), mod.overrides.has_torch_function((p,)), _tn(q * 2),
                seen, [c.__name__ for c in type(p).__mro__ if c.__name__ != "TensorBase"])

    assert run(G) == run(torch)


# ----------------------------------------------------------------------------------------------
# "Extending torch with a Tensor-like type": ScalarTensor


def _scalar_tensor(mod):
    import functools

    HANDLED_FUNCTIONS = {}

    class ScalarTensor:
        def __init__(self, N, value):
            self._N = N
            self._value = value

        def __repr__(self):
            return f"ScalarTensor(N={self._N}, value={self._value})"

        def tensor(self):
            return self._value * mod.eye(self._N)

        @classmethod
        def __torch_function__(cls, func, types, args=(), kwargs=None):
            if kwargs is None:
                kwargs = {}
            if func not in HANDLED_FUNCTIONS or not all(
                    issubclass(t, (mod.Tensor, ScalarTensor)) for t in types):
                return NotImplemented
            return HANDLED_FUNCTIONS[func](*args, **kwargs)

    def implements(torch_function):
        def decorator(func):
            functools.update_wrapper(func, torch_function)
            HANDLED_FUNCTIONS[torch_function] = func
            return func
        return decorator

    @implements(mod.mean)
    def mean(input):
        return float(input._value) / input._N

    def ensure_tensor(data):
        return data.tensor() if isinstance(data, ScalarTensor) else mod.as_tensor(data)

    @implements(mod.add)
    def add(input, other):
        try:
            if input._N == other._N:
                return ScalarTensor(input._N, input._value + other._value)
            raise ValueError("Shape mismatch!")
        except AttributeError:
            return mod.add(ensure_tensor(input), ensure_tensor(other))

    return ScalarTensor


def test_scalar_tensor(torch):
    def run(mod):
        ST = _scalar_tensor(mod)
        d = ST(5, 2)
        s = mod.add(d, d)
        t = mod.add(d, mod.ones(5, 5))
        return (mod.mean(d), repr(s), t.tolist(), mod.overrides.is_tensor_like(d),
                mod.overrides.has_torch_function((1, d)))

    assert run(G) == run(torch)


@pytest.mark.parametrize("call", [
    lambda M, d: M.sum(d),
    lambda M, d: M.mul(M.ones(2), d),
    lambda M, d: M.cat([M.ones(1), d]),
    lambda M, d: _F(M).relu(d),
    lambda M, d: M.exp(input=d),
])
def test_scalar_tensor_unhandled(torch, call):
    assert_same_error(lambda: call(G, _scalar_tensor(G)(2, 1)),
                      lambda: call(torch, _scalar_tensor(torch)(2, 1)))


def _refusing(mod):
    class N(mod.Tensor):
        @classmethod
        def __torch_function__(cls, func, types, args=(), kwargs=None):
            return NotImplemented

    return mod.ones(2).as_subclass(N)


@pytest.mark.parametrize("call", [
    lambda M, n: n.add(1),
    lambda M, n: n + 1,
    lambda M, n: 1 - n,
    lambda M, n: n.shape,
    lambda M, n: M.add(n, 1),
    lambda M, n: _F(M).relu(n),
])
def test_all_refuse(torch, call):
    assert_same_error(lambda: call(G, _refusing(G)), lambda: call(torch, _refusing(torch)))


# ----------------------------------------------------------------------------------------------
# Modes


def _recording_mode(mod, calls, tag="M"):
    class Recording(_ov(mod).TorchFunctionMode):
        def __torch_function__(self, func, types, args=(), kwargs=None):
            calls.append((tag, func.__name__, [t.__name__ for t in types],
                          [type(a).__name__ for a in args],
                          None if func.__name__ in _PYTHON_KWARGS | {"__repr__"} else kwargs or None))
            return func(*args, **(kwargs or {}))

        def __repr__(self):
            return f"Recording({tag})"

    return Recording()


def test_mode_records_calls(torch):
    def run(mod):
        F = _F(mod)
        calls = []
        with _recording_mode(mod, calls) as m:
            x = mod.ones(2)
            y = x + 1
            x.shape, mod.add(x, y), x.sum(), F.relu(x), mod.tensor([1.0]), x[0]
            mod.cat([x, y]), mod.arange(3), mod.zeros_like(x), x.requires_grad, repr(x)
            mod.is_tensor(x), mod.manual_seed(0), mod.get_default_dtype()
            inside = (_ov(mod)._get_current_function_mode() is m,
                      len(_ov(mod)._get_current_function_mode_stack()))
        return calls, inside, _ov(mod)._get_current_function_mode()

    assert run(G) == run(torch)


def test_modes_nest(torch):
    def run(mod):
        calls = []
        outer, inner = _recording_mode(mod, calls, "outer"), _recording_mode(mod, calls, "inner")
        with outer:
            with inner:
                mod.ones(1).mul(2)
                stack = [repr(m) for m in _ov(mod)._get_current_function_mode_stack()]
            mod.zeros(1)
        return calls, stack

    assert run(G) == run(torch)


def test_mode_and_subclass(torch):
    def run(mod):
        calls = []
        LoggingTensor, sub_calls = _logging(mod)
        s = mod.ones(2).as_subclass(LoggingTensor)
        del sub_calls[:]
        with _recording_mode(mod, calls):
            r = mod.add(s, 1)
        # the mode calls func(*args, **{}): torch's C++ parser passes that {} on, a Python
        # function cannot tell it from no keywords
        return calls, [c[:3] + (c[3] or None,) for c in sub_calls], _tn(r)

    assert run(G) == run(torch)


def test_mode_refuses(torch):
    def run(mod):
        class Refuse(_ov(mod).TorchFunctionMode):
            def __torch_function__(self, func, types, args=(), kwargs=None):
                return NotImplemented

            def __repr__(self):
                return "Refuse()"

        with Refuse():
            mod.ones(2)

    assert_same_error(lambda: run(G), lambda: run(torch))


def test_base_mode_and_disable(torch):
    def run(mod):
        ov = _ov(mod)
        LoggingTensor, calls = _logging(mod)
        s = mod.ones(2).as_subclass(LoggingTensor)
        del calls[:]
        with ov.BaseTorchFunctionMode():
            base = _tn(s + 1)
        with mod._C.DisableTorchFunctionSubclass():
            r1 = _tn(s + 1), ov.has_torch_function((s,)), mod._C._is_torch_function_enabled()
            mode_calls = []
            with _recording_mode(mod, mode_calls):
                mod.ones(1)
        with mod._C.DisableTorchFunction():
            r2 = _tn(mod.add(s, 1))
            with _recording_mode(mod, mode_calls, "off"):
                mod.ones(1)
        return base, r1, r2, calls, mode_calls

    assert run(G) == run(torch)


def test_mode_is_per_thread():
    calls = []
    other = []

    def work():
        x = G.ones(2)
        other.append(type(x + 1).__name__)

    with _recording_mode(G, calls):
        t = threading.Thread(target=work)
        t.start()
        t.join()
    assert other == ["Tensor"] and calls == []


def test_plain_tensor_keeps_native_methods():
    """Outside a mode, Tensor's own methods are the natives: no dispatch cost for them."""
    before = {n: vars(G.Tensor)[n] for n in ("__add__", "add", "shape", "__getitem__")}
    with _recording_mode(G, []):
        assert vars(G.Tensor)["__add__"] is not before["__add__"]
    assert {n: vars(G.Tensor)[n] for n in before} == before
    assert type(vars(G.Tensor)["__add__"]).__name__ == "wrapper_descriptor"


def test_overridable_listing(torch):
    def run(mod):
        ov = _ov(mod)
        fns = ov.get_overridable_functions()
        F = _F(mod)
        return (mod.add in fns[mod], mod.Tensor.add in fns[mod.Tensor], F.relu in fns[F],
                mod.Tensor.shape.__get__ in fns[mod.Tensor], mod.is_tensor in fns.get(mod, []),
                mod.is_tensor in ov.get_ignored_functions(),
                ov.resolve_name(mod.add), ov.resolve_name(mod.Tensor.add))

    g, t = run(G), run(torch)
    assert g[:6] == t[:6]
    assert (g[6], g[7]) == ("gradrs.add", "gradrs.Tensor.add")


def test_repr_of_subclass(torch):
    def run(mod):
        class S(mod.Tensor):
            pass

        class P(mod.nn.Parameter):
            pass

        s = mod.tensor([1.0, 2.0]).as_subclass(S)
        return repr(s), str(s), repr(s.sum()), repr(P(mod.ones(1))), repr(mod.ones(1))

    assert run(G) == run(torch)


def test_metadata_subclass(torch):
    """A units-carrying subclass made with `_make_subclass` whose `__torch_function__`
    carries its metadata to the results."""

    def run(mod):
        class UnitTensor(mod.Tensor):
            @staticmethod
            def __new__(cls, data, unit):
                t = mod.Tensor._make_subclass(cls, data, data.requires_grad)
                t.unit = unit
                return t

            def __init__(self, data, unit):
                pass

            @classmethod
            def __torch_function__(cls, func, types, args=(), kwargs=None):
                units = [a.unit for a in args if isinstance(a, UnitTensor)]
                ret = super().__torch_function__(func, types, args, kwargs)
                if isinstance(ret, UnitTensor):
                    ret.unit = units[0] if units else None
                return ret

        x = UnitTensor(mod.tensor([1.0, 2.0]), "m")
        y = x * 2 + mod.ones(2)
        z = mod.exp(x)
        return (type(y).__name__, y.unit, y.tolist(), z.unit, x.unit, x.is_leaf,
                type(x.detach()).__name__)

    assert run(G) == run(torch)


def test_is_tensor_method_or_property(torch):
    def run(mod):
        ov = _ov(mod)
        return [ov.is_tensor_method_or_property(f) for f in (
            mod.Tensor.add, mod.Tensor.__add__, mod.add, mod.Tensor.shape.__get__,
            _F(mod).relu)]

    assert run(G) == run(torch)


def test_make_subclass_errors(torch):
    assert_same_error(lambda: G.Tensor._make_subclass(G.Tensor, [1.0]),
                      lambda: torch.Tensor._make_subclass(torch.Tensor, [1.0]))


def test_redispatch_function(torch):
    """torch.overrides.redispatch_function's docs: one hop skipped, inner calls dispatch."""

    def run(mod):
        ov = _ov(mod)
        seen = []

        class LoggingTensor(mod.Tensor):
            depth = 0

            @classmethod
            def __torch_function__(cls, func, types, args, kwargs=None):
                seen.append("  " * cls.depth + func.__name__)
                cls.depth += 1
                r = ov.redispatch_function(func, types, args, kwargs)
                cls.depth -= 1
                return r

        def scaled_mul(a, b):
            if ov.has_torch_function((a, b)):
                return ov.handle_torch_function(scaled_mul, (a, b), a, b)
            return a * b + 1

        class LoggingMode(ov.TorchFunctionMode):
            depth = 0

            def __torch_function__(self, func, types, args, kwargs=None):
                seen.append("mode " + "  " * self.depth + func.__name__)
                self.depth += 1
                with self:
                    r = ov.redispatch_function(func, types, args, kwargs)
                self.depth -= 1
                return r

        x = mod.tensor([3.0]).as_subclass(LoggingTensor)
        r = scaled_mul(x, mod.tensor([4.0]).as_subclass(LoggingTensor))
        with LoggingMode():
            r2 = scaled_mul(mod.tensor([3.0]), mod.tensor([4.0]))
        return seen, repr(r), repr(r2)

    assert run(G) == run(torch)


_NO_ARG_SKIP = {"backward", "register_hook", "share_memory_", "apply_", "map_", "storage",
                "untyped_storage", "numpy", "tolist", "item", "cpu", "cuda", "pin_memory",
                "is_pinned", "to_dense", "record_stream"}


def _first_calls(mod, names):
    calls = []

    class L(mod.Tensor):
        @classmethod
        def __torch_function__(cls, func, types, args=(), kwargs=None):
            calls.append(func.__name__)
            return super().__torch_function__(func, types, args, kwargs)

    out = {}
    for n in names:
        s = mod.tensor([[0.5, 0.25], [0.75, 0.125]]).as_subclass(L)
        del calls[:]
        try:
            getattr(s, n)()
        except Exception:  # noqa: BLE001 - only the calls both libraries run are compared
            continue
        out[n] = calls[:1]
    return out


def test_method_func_names(torch):
    """Each Tensor method called without arguments reaches `__torch_function__` under
    PyTorch's name (aliases such as `nelement` as `numel`)."""
    import warnings

    names = sorted(n for n in dir(G.Tensor) if not n.startswith("_") and not n.endswith("_")
                   and n not in _NO_ARG_SKIP and callable(getattr(torch.Tensor, n, None)))
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        g, t = _first_calls(G, names), _first_calls(torch, names)
    both = sorted(set(g) & set(t))
    assert len(both) > 150
    assert {n: g[n] for n in both} == {n: t[n] for n in both}


# ----------------------------------------------------------------------------------------------
# The arguments as PyTorch passes them: its Python functions pass every parameter (those with a
# default by keyword, `F.relu(x)` as kwargs={'inplace': False}), its C-bound ones the call as
# given (kwargs None without keywords)


def _shape(x):
    """An argument as compared: tensors by their type name, containers item by item."""
    if isinstance(x, (list, tuple)) and not hasattr(x, "shape"):
        return type(x).__name__, [_shape(i) for i in x]
    if isinstance(x, dict):
        return {k: _shape(v) for k, v in x.items()}
    if hasattr(x, "shape") and hasattr(x, "dtype"):
        return type(x).__name__.replace("Tensor", "T")
    return repr(x).replace("torch", "M").replace("gradrs", "M")


_KW_CASES = {
    "F.relu(s)": lambda M, F, s, v: F.relu(s),
    "F.relu(s, **{})": lambda M, F, s, v: F.relu(s, **{}),
    "F.relu(input=s)": lambda M, F, s, v: F.relu(input=s),
    "F.softmax(s, 0)": lambda M, F, s, v: F.softmax(s, 0),
    "F.log_softmax(v, dim=0)": lambda M, F, s, v: F.log_softmax(v, dim=0),
    "F.dropout(s)": lambda M, F, s, v: F.dropout(s),
    "F.dropout(s, 0.0, False)": lambda M, F, s, v: F.dropout(s, 0.0, False),
    "F.layer_norm(s, (4,))": lambda M, F, s, v: F.layer_norm(s, (4,)),
    "F.mse_loss(s, s)": lambda M, F, s, v: F.mse_loss(s, s),
    "F.cross_entropy": lambda M, F, s, v: F.cross_entropy(s[0, 0], M.tensor([0, 1, 2, 3])),
    "F.normalize(v, dim=0)": lambda M, F, s, v: F.normalize(v, dim=0),
    "F.hardsigmoid(s)": lambda M, F, s, v: F.hardsigmoid(s),
    "F.pad(s, (1, 1))": lambda M, F, s, v: F.pad(s, (1, 1)),
    "F.interpolate": lambda M, F, s, v: F.interpolate(s, scale_factor=2),
    "F.upsample": lambda M, F, s, v: F.upsample(s, scale_factor=2),
    "F.max_pool1d": lambda M, F, s, v: F.max_pool1d(s[0], 2),
    "F.max_pool2d indices": lambda M, F, s, v: F.max_pool2d(s, 2, return_indices=True),
    "F.max_pool2d_with_indices": lambda M, F, s, v: F.max_pool2d_with_indices(s, 2),
    "F.adaptive_max_pool2d": lambda M, F, s, v: F.adaptive_max_pool2d(s, 2, True),
    "F.fractional_max_pool2d": lambda M, F, s, v: F.fractional_max_pool2d(
        s, 2, output_size=2, return_indices=True, _random_samples=M.full((1, 1, 2), 0.5)),
    "F.sigmoid(s)": lambda M, F, s, v: F.sigmoid(s),
    "F.tanh(s)": lambda M, F, s, v: F.tanh(s),
    "F.linear(v, w)": lambda M, F, s, v: F.linear(v, M.ones(2, 4)),
    "F.conv1d": lambda M, F, s, v: F.conv1d(s[0], M.ones(1, 1, 2), stride=1),
    "F.gelu(s)": lambda M, F, s, v: F.gelu(s),
    "F.one_hot": lambda M, F, s, v: F.one_hot(M.tensor([0, 2]).as_subclass(type(s)), 3),
    "M.split(v, 2)": lambda M, F, s, v: M.split(v, 2),
    "M.norm(v)": lambda M, F, s, v: M.norm(v),
    "v.norm()": lambda M, F, s, v: v.norm(),
    "v.split(2)": lambda M, F, s, v: v.split(2),
    "M.einsum": lambda M, F, s, v: M.einsum("i,i->", v, v),
    "M.meshgrid": lambda M, F, s, v: M.meshgrid(v, v, indexing="ij"),
    "M.unique(v)": lambda M, F, s, v: M.unique(v),
    "M.unravel_index": lambda M, F, s, v: M.unravel_index(M.tensor([1]).as_subclass(type(s)),
                                                          (2, 2)),
    "M.chain_matmul": lambda M, F, s, v: M.chain_matmul(s[0, 0], s[0, 0]),
    "M.tensordot": lambda M, F, s, v: M.tensordot(s[0, 0], s[0, 0]),
    "M.cdist": lambda M, F, s, v: M.cdist(s[0], s[0]),
    "M.add(v, 1)": lambda M, F, s, v: M.add(v, 1),
    "M.add(v, 1, alpha=2)": lambda M, F, s, v: M.add(v, 1, alpha=2),
    "v.add(1)": lambda M, F, s, v: v.add(1),
    "M.is_nonzero": lambda M, F, s, v: M.is_nonzero(v[:1]),
    "M.from_dlpack(v)": lambda M, F, s, v: M.from_dlpack(v),
    "2 ** v": lambda M, F, s, v: 2 ** v,
    "v ** 2": lambda M, F, s, v: v ** 2,
    "v // 2": lambda M, F, s, v: v // 2,
    "2 // v": lambda M, F, s, v: 2 // v,
    "1 - v": lambda M, F, s, v: 1 - v,
    "v.__array__()": lambda M, F, s, v: v.__array__(),
    "format(v[0])": lambda M, F, s, v: format(v[0], ".1f"),
    "v.unflatten": lambda M, F, s, v: v.unflatten(0, (2, 2)),
    "v.shape": lambda M, F, s, v: v.shape,
    "2.0 in v": lambda M, F, s, v: 2.0 in v,
    "reversed(v)": lambda M, F, s, v: reversed(v),
}


def _kw_calls(mod, case):
    import warnings

    calls = []

    class S(mod.Tensor):
        @classmethod
        def __torch_function__(cls, func, types, args=(), kwargs=None):
            calls.append((func.__name__, [_shape(a) for a in args], _shape(kwargs)))
            return super().__torch_function__(func, types, args, kwargs)

    s = mod.ones(1, 1, 4, 4).as_subclass(S)
    v = mod.tensor([1.0, 2.0, 3.0, 4.0]).as_subclass(S)
    del calls[:]
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        try:
            _KW_CASES[case](mod, _F(mod), s, v)
        except Exception as e:  # noqa: BLE001 - compared (format's refusal, in both)
            calls.append(type(e).__name__)
    return calls


@pytest.mark.parametrize("case", sorted(_KW_CASES))
def test_kwargs_as_pytorch_passes_them(torch, case):
    """func, args and kwargs of each dispatched call, as torch's: F.relu(s) arrives with
    kwargs={'inplace': False}, F.softmax(s, 0) with (s,) and {'dim': 0, '_stacklevel': 3,
    'dtype': None}, F.linear(v, w) with kwargs None, F.max_pool2d(..., return_indices=True)
    as max_pool2d_with_indices, F.sigmoid(s) as Tensor.sigmoid."""
    assert _kw_calls(G, case) == _kw_calls(torch, case)


def test_kwargs_in_a_mode(torch):
    def run(mod):
        F = _F(mod)
        calls = []

        class Rec(_ov(mod).TorchFunctionMode):
            def __torch_function__(self, func, types, args=(), kwargs=None):
                calls.append((func.__name__, [_shape(a) for a in args], _shape(kwargs)))
                return func(*args, **(kwargs or {}))

        x = mod.ones(2, 4)
        with Rec():
            F.relu(x), F.linear(x, x), mod.add(x, 1), x.norm(), F.dropout(x, training=False)
            mod.split(x, 1), x.add(1, alpha=2), F.softmax(x, -1)
        return calls

    assert run(G) == run(torch)


def test_empty_kwargs_dict(torch):
    """`f(x, **{})` is `f(x)` to a Python function: gradrs's C-bound paths (all written in
    Python) pass None for both, where torch's C parser passes the `{}` it was given on. The
    Python-written functions give their full keywords either way, as torch's."""
    assert _kw_calls(G, "F.relu(s, **{})") == _kw_calls(torch, "F.relu(s, **{})")

    def run(mod, empty):
        seen = []

        class S(mod.Tensor):
            @classmethod
            def __torch_function__(cls, func, types, args=(), kwargs=None):
                seen.append(kwargs)
                return super().__torch_function__(func, types, args, kwargs)

        s = mod.ones(2).as_subclass(S)
        mod.add(s, 1, **({} if empty else {"alpha": 1}))
        s.add(1, **({} if empty else {"alpha": 1}))
        return seen

    assert run(G, False) == run(torch, False) == [{"alpha": 1}] * 2
    assert run(torch, True) == [{}, {}] and run(G, True) == [None, None]


def test_c_bound_functional_names(torch):
    """The nn.functional functions gradrs dispatches as C-bound (kwargs as given, PyTorch's
    C refusal naming `torch.nn.<name>` or `torch.<name>`) are those torch binds in C."""
    import types

    from gradrs import _torch_function as tf

    TF = torch.nn.functional
    names = tf.OVERRIDABLE["gradrs.nn.functional"]
    c_bound = {n for n in names if not isinstance(getattr(TF, n), types.FunctionType)}
    assert c_bound == set(tf.C_BOUND_FUNCTIONAL)
    for n in c_bound:
        prefix = "gradrs.nn." if getattr(TF, n).__module__ == "torch._C._nn" else "gradrs."
        assert tf.C_BOUND_FUNCTIONAL[n] == prefix


@pytest.mark.parametrize("call", [
    lambda M, n: _F(M).linear(n, n),
    lambda M, n: _F(M).gelu(n),
    lambda M, n: _F(M).conv1d(n, n),
    lambda M, n: M.split(n, 1),
    lambda M, n: n.norm(),
])
def test_all_refuse_kinds(torch, call):
    assert_same_error(lambda: call(G, _refusing(G)), lambda: call(torch, _refusing(torch)))


# ----------------------------------------------------------------------------------------------
# A subclass's class: nothing between it and Tensor


def test_subclass_mro_and_bases(torch):
    def run(mod):
        class S(mod.Tensor):
            pass

        class S2(S):
            @classmethod
            def __torch_function__(cls, func, types, args=(), kwargs=None):
                return super().__torch_function__(func, types, args, kwargs)

        class Mixin:
            def hello(self):
                return "hello"

        class MS(Mixin, mod.Tensor):
            pass

        class P(mod.nn.Parameter):
            @classmethod
            def __torch_function__(cls, func, types, args=(), kwargs=None):
                return super().__torch_function__(func, types, args, kwargs)

        def names(c):
            return [b.__name__ for b in c.__mro__ if b.__name__ != "TensorBase"]

        s = mod.ones(2).as_subclass(S)
        s2 = mod.ones(2).as_subclass(S2)
        ms = mod.ones(2).as_subclass(MS)
        p = P(mod.ones(2))
        return (names(S), names(S2), names(MS), names(P), [b.__name__ for b in S.__bases__],
                _tn(s + 1), _tn(s2 * s), _tn(ms.sum()), ms.hello(), _tn(p + 1),
                type(hash(s)).__name__, s in {s}, issubclass(S, mod.Tensor))

    assert run(G) == run(torch)


def test_plain_tensor_natives_after_subclasses():
    """Defining subclasses leaves Tensor's own methods native, but for the names a subclass
    overrides (whose `super()` call must reach a dispatching Tensor method)."""

    class A(G.Tensor):
        def clamp_min(self, m):
            return super().clamp_min(m)

    for name in ("__add__", "__getitem__", "exp"):
        assert vars(G.Tensor)[name] is not vars(A).get(name)
    assert type(vars(G.Tensor)["__add__"]).__name__ == "wrapper_descriptor"
    assert type(vars(G.Tensor)["exp"]).__name__ == "method_descriptor"
    # the override's name: a dispatching wrapper on Tensor, `func` is that wrapper
    seen = []

    class B(A):
        @classmethod
        def __torch_function__(cls, func, types, args=(), kwargs=None):
            seen.append(func)
            return super().__torch_function__(func, types, args, kwargs)

    b = G.ones(2).as_subclass(B)
    assert type(b.clamp_min(0.5)) is B and seen == [G.Tensor.clamp_min]
    assert G.overrides.resolve_name(G.Tensor.clamp_min) == "gradrs.Tensor.clamp_min"
    assert G.Tensor.clamp_min in G.overrides.get_overridable_functions()[G.Tensor]
    assert G.ones(2).clamp_min(0.5).tolist() == [1.0, 1.0]


# ----------------------------------------------------------------------------------------------
# torch.overrides' listings


def test_testing_overrides(torch):
    import inspect

    def run(mod):
        dummies = _ov(mod).get_testing_overrides()
        F = _F(mod)
        picks = [mod.add, F.relu, F.dropout, mod.Tensor.add, mod.linalg.vector_norm]
        sigs = [list(inspect.signature(dummies[f]).parameters) for f in picks]
        return sigs, dummies[F.relu](mod.ones(1)), dummies[mod.add](1, 2)

    g, t = run(G), run(torch)
    assert g[1:] == t[1:] == (-1, -1)
    # torch's table is written by hand (its `add` dummy lacks `alpha`); its Python functions'
    # dummies have their real signatures, as gradrs's all have
    assert g[0][1:3] == t[0][1:3] == [["input", "inplace"], ["input", "p", "training", "inplace"]]
    assert g[0][0] == ["input", "other", "alpha", "out"]
    dummies = G.overrides.get_testing_overrides()
    with pytest.raises(TypeError):
        dummies[G.nn.functional.relu](G.ones(1), inplace=False, bogus=1)
    assert set(dummies) == {f for fs in G.overrides.get_overridable_functions().values()
                            for f in fs}


def test_listings_agree_with_torch(torch):
    """For every public function both libraries have in `torch`, `nn.functional`, `linalg`
    and `special`: overridable in one if and only if in the other, and likewise ignored.
    torch lists a few functions as ignored that its own calls dispatch (checked here): gradrs
    lists what it does."""
    import importlib

    tov = {f for fs in torch.overrides.get_overridable_functions().values() for f in fs}
    tig = torch.overrides.get_ignored_functions()
    # (under pytest `torch.manual_seed` may be another object than the one torch listed)
    tig_names = {getattr(f, "__name__", None) for f in tig}
    gov = G.overrides.get_overridable_functions()
    gig = G.overrides.get_ignored_functions()
    listed_wrong_in_torch = {"fill", "rand_like", "randn_like", "randint_like", "vander",
                             "empty_permuted", "hardsigmoid", "hardswish"}
    diffs = []
    for sub in ("", ".nn.functional", ".linalg", ".special"):
        g, t = importlib.import_module("gradrs" + sub), importlib.import_module("torch" + sub)
        for n in dir(g):
            gf, tf_ = getattr(g, n), getattr(t, n, None)
            if n.startswith("_") or tf_ is None or isinstance(gf, type) or not callable(gf):
                continue
            try:
                ts = "ov" if tf_ in tov else "ign" if tf_ in tig or (
                    not sub and n in tig_names) else "-"
            except TypeError:
                continue
            gs = "ov" if gf in gov.get(g, ()) else "ign" if gf in gig else "-"
            if ts != gs and n not in listed_wrong_in_torch:
                diffs.append((sub, n, ts, gs))
    # torch lists neither: from_dlpack (which calls `__dlpack__`), set_default_dtype
    assert sorted(diffs) == [("", "from_dlpack", "-", "ign"), ("", "set_default_dtype", "-", "ign")]
    calls = []

    class S(torch.Tensor):
        @classmethod
        def __torch_function__(cls, func, types, args=(), kwargs=None):
            calls.append(func.__name__)
            return super().__torch_function__(func, types, args, kwargs)

    s = torch.ones(2).as_subclass(S)
    torch.rand_like(s), torch.fill(s, 1), torch.vander(s), torch.nn.functional.hardsigmoid(s)
    assert calls == ["rand_like", "fill", "vander", "hardsigmoid"]


@pytest.mark.parametrize("call", [
    lambda M, t: 1.0 in t, lambda M, t: 5 in t, lambda M, t: M.tensor(2.0) in t,
    lambda M, t: M.tensor([3.0, 5.0]) in t, lambda M, t: True in M.tensor([1]),
    lambda M, t: reversed(t).tolist(), lambda M, t: reversed(M.tensor(3.0)).tolist(),
])
def test_contains_and_reversed(torch, call):
    """`in` compares every element (PyTorch's Tensor.__contains__, not iteration over rows,
    which refused a 2-d tensor); `reversed` is flip(0)."""
    def run(mod):
        return call(mod, mod.tensor([[1.0, 2.0], [3.0, 4.0]]))

    assert run(G) == run(torch)


@pytest.mark.parametrize("element", ["a", [1.0], None])
def test_contains_refuses(torch, element):
    assert_same_error(lambda: element in G.ones(2), lambda: element in torch.ones(2))


# Tensor.__repr__(tensor_contents=): the text a subclass prints in place of the elements, with
# the tensor's own suffixes (size, dtype, grad_fn / requires_grad); Parameter's own __repr__
# takes no keywords
_CONTENTS_CASES = {
    "float": lambda M: M.ones(2),
    "float64": lambda M: M.zeros(2, dtype=M.float64),
    "int64": lambda M: M.arange(3),
    "empty 2-d": lambda M: M.zeros(0, 3),
    "empty int": lambda M: M.zeros(0, dtype=M.int64),
    "requires_grad": lambda M: M.ones(2, requires_grad=True),
    "grad_fn": lambda M: M.ones(2, requires_grad=True) * 2,
}


@pytest.mark.parametrize("case", sorted(_CONTENTS_CASES))
@pytest.mark.parametrize("contents", [None, "abc", "[\n  1, 2]"])
def test_repr_tensor_contents(torch, case, contents):
    ours = _CONTENTS_CASES[case](G).__repr__(tensor_contents=contents)
    theirs = _CONTENTS_CASES[case](torch).__repr__(tensor_contents=contents)
    assert _tn(ours) == _tn(theirs)


def test_repr_tensor_contents_refusals(torch):
    assert_same_error(lambda: G.ones(2).__repr__("abc"), lambda: torch.ones(2).__repr__("abc"))
    assert_same_error(lambda: G.nn.Parameter(G.ones(2)).__repr__(tensor_contents="a"),
                      lambda: torch.nn.Parameter(torch.ones(2)).__repr__(tensor_contents="a"))
