"""Behaviours that the third-party programs of tests/programs/ (session 2026-11-27, helper
"programs4") found different from PyTorch and that were fixed in Python, checked against torch."""

import pytest

from conftest import G, need_torch, norm


def _subclass_reprs(M):
    """str() / print / format of a Tensor subclass with its own __repr__, and the names a
    logging __torch_function__ subclass sees for them."""

    class Tagged(M.Tensor):
        def __repr__(self):
            return f"Tagged({self.as_subclass(M.Tensor)!r})"

    class Logging(M.Tensor):
        calls = []

        @classmethod
        def __torch_function__(cls, func, types, args=(), kwargs=None):
            cls.calls.append(getattr(func, "__name__", str(func)))
            return super().__torch_function__(func, types, args, kwargs or {})

    t = M.tensor([1.0, 2.0]).as_subclass(Tagged)
    x = M.arange(3.0).as_subclass(Logging)
    out = [str(t), repr(t), f"{t}", "{}".format(t), str(t + t), str(M.tensor([1.5])),  # noqa: UP032
           f"{M.tensor(2.5):.2f}"]
    Logging.calls.clear()
    out.append(str(x))
    out.append(list(Logging.calls))
    Logging.calls.clear()
    out.append(f"{x}")
    out.append(list(Logging.calls))
    return out


def test_str_of_a_tensor_subclass_is_its_repr():
    # PyTorch's Tensor has no __str__: print(sub) calls the subclass's __repr__ (gradrs's
    # native __str__ printed the plain tensor), and a __torch_function__ subclass is
    # dispatched `__repr__` (gradrs: `__str__`)
    torch = need_torch()
    ours = _subclass_reprs(G)
    theirs = _subclass_reprs(torch)
    assert [norm(o) if isinstance(o, str) else o for o in theirs] == ours


def test_tensor_has_no_str_of_its_own():
    need_torch()
    assert "__str__" not in vars(G.Tensor)
    assert str(G.ones(2)) == repr(G.ones(2))


@pytest.mark.parametrize("make", [lambda M: M.nn.Parameter(M.ones(2)),
                                  lambda M: M.ones(2, requires_grad=True) * 2,
                                  lambda M: M.tensor([], dtype=M.int64)])
def test_str_equals_torch(make):
    torch = need_torch()
    assert str(make(G)) == norm(str(make(torch)))


# PyTorch's deprecated linear algebra that still computes (older GP / BO code): triangular_solve
# (node TriangularSolveBackward0 over (solution, cloned_coefficient)) and lu / _lu_with_info.
def _tri_inputs(M, batch=()):
    A = M.tensor([[2.0, 1.0, 0.5], [0.3, 3.0, 1.0], [0.1, 0.2, 4.0]], dtype=M.float64)
    b = M.arange(6.0, dtype=M.float64).view(3, 2) - 2
    A = A.expand(*batch, 3, 3).clone().requires_grad_()
    return A, b.clone().requires_grad_()


@pytest.mark.parametrize("flags", [(True, False, False), (False, False, False),
                                   (True, True, False), (False, True, True), (True, False, True)])
def test_triangular_solve_values_and_grads(flags):
    from conftest import check

    def run(M):
        A, b = _tri_inputs(M)
        r = M.triangular_solve(b, A, *flags)
        w = M.arange(6.0, dtype=M.float64).view(3, 2)
        ((r.solution * w).sum() + (r.cloned_coefficient ** 2).sum()).backward()
        return r.solution, r.cloned_coefficient, A.grad, b.grad

    check(run)


def test_triangular_solve_double_backward_and_gradcheck():
    from conftest import check

    def run(M):
        A, b = _tri_inputs(M)
        x = M.triangular_solve(b, A, upper=False).solution
        (gA,) = M.autograd.grad((x ** 2).sum(), A, create_graph=True)
        (gb,) = M.autograd.grad(gA.sum(), b)
        return gA, gb

    check(run)
    A, b = _tri_inputs(G)
    assert G.autograd.gradcheck(lambda b, A: G.triangular_solve(b, A, False, True), (b, A))


def test_triangular_solve_broadcast_method_and_out():
    from conftest import check

    def run(M):
        A = M.tensor([[2.0, 1.0], [0.0, 4.0]], requires_grad=True)
        b = M.ones(3, 2, 1)
        r = M.triangular_solve(b, A)
        r.solution.sum().backward()
        out = (M.empty(0), M.empty(0))
        r2 = M.triangular_solve(b, A.detach(), out=out)
        return (r.solution, r.cloned_coefficient, A.grad, b.triangular_solve(A, upper=False)[0],
                type(r).__name__, type(r2).__name__, r2.solution is out[0],
                type(r.solution.grad_fn).__name__)

    check(run)


@pytest.mark.parametrize("case", [
    lambda M: M.triangular_solve(M.ones(3, 1), M.eye(2)),
    lambda M: M.triangular_solve(M.ones(2), M.eye(2)),
    lambda M: M.triangular_solve(M.ones(2, 1), M.ones(2, 3)),
    lambda M: M.triangular_solve(M.ones(2, 1, dtype=M.long), M.eye(2, dtype=M.long)),
    lambda M: M.triangular_solve(M.ones(2, 1, dtype=M.float64), M.eye(2)),
    lambda M: M.lu(M.ones(2)),
    lambda M: M.lu(M.ones(2, 2, dtype=M.long)),
    lambda M: M.lu(M.eye(2), pivot=False),
])
def test_deprecated_linalg_errors(case):
    from conftest import check_error

    check_error(case)


def test_lu_forms():
    from conftest import check

    def run(M):
        A = M.tensor([[1.0, 2.0, 0.5], [3.0, 4.0, 1.0], [0.5, 1.0, 5.0]], requires_grad=True)
        LU, piv = M.lu(A)
        with_infos = M.lu(A, get_infos=True)
        LU.sum().backward()
        return (LU, piv, A.grad, with_infos.info, type(with_infos).__name__,
                type(M.lu(A)).__name__, A.lu()[1], A.lu(get_infos=True)[2],
                M._lu_with_info(A.detach()).pivots, M.lu(M.zeros(2, 2), get_infos=True)[2],
                M.lu_solve(M.ones(3, 1), *M.lu(A.detach())))

    check(run)


@pytest.mark.parametrize("call", [
    lambda M: M.symeig(M.eye(2)), lambda M: M.eye(2).symeig(), lambda M: M.eig(M.eye(2), True),
    lambda M: M.eye(2).eig(), lambda M: M.solve(M.ones(2, 1), M.eye(2)),
    lambda M: M.ones(2, 1).solve(M.eye(2)), lambda M: M.lstsq(M.ones(2, 1), M.eye(2)),
    lambda M: M.ones(2, 1).lstsq(M.eye(2)), lambda M: M.matrix_rank(M.eye(2)),
])
def test_functions_removed_in_1_9_raise_their_notes(call):
    from conftest import check_error

    check_error(call)


def test_deprecation_warnings_once():
    from conftest import assert_same_warning

    torch = need_torch()
    for M in (G, torch):
        M.triangular_solve(M.ones(2, 1), M.eye(2))  # the once-per-process warnings are spent
        M.lu(M.eye(2))
    assert_same_warning(lambda: G.triangular_solve(G.ones(2, 1), G.eye(2)),
                        lambda: torch.triangular_solve(torch.ones(2, 1), torch.eye(2)))
    G.set_warn_always(True)
    torch.set_warn_always(True)
    try:
        assert_same_warning(lambda: G.triangular_solve(G.ones(2, 1), G.eye(2)),
                            lambda: torch.triangular_solve(torch.ones(2, 1), torch.eye(2)))
        assert_same_warning(lambda: G.lu(G.eye(2)), lambda: torch.lu(torch.eye(2)))
    finally:
        G.set_warn_always(False)
        torch.set_warn_always(False)


# The linalg entry points' argument errors: PyTorch checks floating / complex inputs in some
# ops (RuntimeError) and lets others reach their CPU kernel's dispatch (NotImplementedError
# naming the kernel); its dimension messages differ by op (found through torch.lu's errors).
def _linalg_calls(M, dt, one_d):
    A = M.ones(2) if one_d else M.eye(3, dtype=dt) + M.ones(3, 3, dtype=dt)
    B = M.ones(3, 1, dtype=dt)
    piv = M.ones(3, dtype=M.int32)
    tau = M.ones(2, dtype=dt)
    return {
        "linalg.lu_factor": lambda: M.linalg.lu_factor(A),
        "linalg.lu_factor_ex": lambda: M.linalg.lu_factor_ex(A),
        "linalg.lu": lambda: M.linalg.lu(A),
        "linalg.solve_triangular": lambda: M.linalg.solve_triangular(A, B, upper=True),
        "linalg.eigh": lambda: M.linalg.eigh(A), "linalg.eigvalsh": lambda: M.linalg.eigvalsh(A),
        "linalg.matrix_exp": lambda: M.linalg.matrix_exp(A),
        "linalg.matrix_rank": lambda: M.linalg.matrix_rank(A),
        "linalg.lstsq": lambda: M.linalg.lstsq(A, B), "linalg.cond": lambda: M.linalg.cond(A),
        "linalg.householder_product": lambda: M.linalg.householder_product(A, tau),
        "linalg.lu_solve": lambda: M.linalg.lu_solve(A, piv, B),
        "linalg.vecdot": lambda: M.linalg.vecdot(A, A), "linalg.vander": lambda: M.linalg.vander(A),
        "linalg.cross": lambda: M.linalg.cross(A, A),
        "cholesky_solve": lambda: M.cholesky_solve(B, A),
        "cholesky_inverse": lambda: M.cholesky_inverse(A), "lu_unpack": lambda: M.lu_unpack(A, piv),
        "logdet": lambda: M.logdet(A), "svd": lambda: M.svd(A), "orgqr": lambda: M.orgqr(A, tau),
        "cholesky": lambda: M.cholesky(A), "matrix_exp": lambda: M.matrix_exp(A),
        "lu_solve": lambda: M.lu_solve(B, A, piv), "trace": lambda: M.trace(A),
    }


_LINALG_CASES = [(dt, one_d, name) for dt, one_d in (("int64", False), ("int32", False),
                                                     ("bool", False), ("float16", False),
                                                     ("float32", True))
                 for name in _linalg_calls(G, G.float32, False)]


@pytest.mark.parametrize("dt,one_d,name", _LINALG_CASES)
def test_linalg_argument_errors(dt, one_d, name):
    import warnings

    torch = need_torch()

    def outcome(M):
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            try:
                _linalg_calls(M, getattr(M, dt), one_d)[name]()
            except Exception as e:  # noqa: BLE001 - compared with torch's
                return type(e).__name__, str(e).splitlines()[0]
        return "ok"

    theirs = outcome(torch)
    if theirs != "ok":
        theirs = (theirs[0], norm(theirs[1]))
    assert outcome(G) == theirs


# PyTorch 1.x's (beta, [alpha,] m1, m2) forms of the matrix-product accumulations (PyTorch 0.x
# layers wrote `output.addmm_(0, 1, input, weight.t())`): deprecated, still computing.
_BETA_FIRST = {
    "addmm beta alpha": lambda M, a, v, b: a.addmm(0.5, 2.0, a, a),
    "addmm beta": lambda M, a, v, b: a.addmm(0.5, a, a),
    "addmm_ beta alpha": lambda M, a, v, b: a.clone().addmm_(0, 1, a, a),
    "addmv fn beta alpha": lambda M, a, v, b: M.addmv(0.5, v, 2.0, a, v),
    "addmv fn beta": lambda M, a, v, b: M.addmv(0.5, v, a, v),
    "addmv beta alpha": lambda M, a, v, b: v.addmv(0.5, 2.0, a, v),
    "addmv_ beta": lambda M, a, v, b: v.clone().addmv_(0.5, a, v),
    "addr fn beta alpha": lambda M, a, v, b: M.addr(0.5, a, 2.0, v, v),
    "addr beta": lambda M, a, v, b: a.addr(2.0, v, v),
    "addr_ beta alpha": lambda M, a, v, b: a.clone().addr_(0.5, 2.0, v, v),
    "baddbmm fn beta alpha": lambda M, a, v, b: M.baddbmm(0.5, b, 2.0, b, b),
    "baddbmm fn out": lambda M, a, v, b: M.baddbmm(0.5, b, b, b, out=M.empty(0)),
    "baddbmm beta": lambda M, a, v, b: b.baddbmm(0.5, b, b),
    "baddbmm_ beta alpha": lambda M, a, v, b: b.clone().baddbmm_(0.5, 2.0, b, b),
    "addbmm fn beta alpha": lambda M, a, v, b: M.addbmm(0.5, a, 2.0, b, b),
    "addbmm beta": lambda M, a, v, b: a.addbmm(0.5, b, b),
    "current form": lambda M, a, v, b: M.addbmm(a, b, b, beta=0.5),
}


@pytest.mark.parametrize("case", list(_BETA_FIRST))
def test_beta_first_product_overloads(case):
    import warnings

    from conftest import check

    def run(M):
        a = M.arange(4.0).view(2, 2).requires_grad_()
        v = M.tensor([1.0, -2.0])
        b = M.arange(12.0).view(3, 2, 2) / 4
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            out = _BETA_FIRST[case](M, a, v, b)
        if out.requires_grad:
            out.sum().backward()
        return out, a.grad

    check(run)


def test_beta_first_warning_text():
    import warnings

    from gradrs import _deprecated_overloads

    need_torch()
    _deprecated_overloads._warned = False
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        G.ones(2, 2).addmm_(0, 1, G.ones(2, 2), G.ones(2, 2))
        G.ones(2).addmv(0.5, G.ones(2, 2), G.ones(2))
    # torch 2.13's text (once per process, whichever deprecated overload comes first)
    assert [str(w.message) for w in caught] == [
        "This overload of addmm_ is deprecated:\n\taddmm_(Number beta, Number alpha, Tensor "
        "mat1, Tensor mat2)\nConsider using one of the following signatures instead:\n\t"
        "addmm_(Tensor mat1, Tensor mat2, *, Number beta = 1, Number alpha = 1)"]


def test_torch_utils_flatten_pair():
    # `from torch._utils import _flatten_dense_tensors, _unflatten_dense_tensors` (gradient
    # bucketing in DDP-like and mixed-precision code) found no module under gradrs
    from conftest import check

    def run(M):
        from importlib import import_module

        u = import_module(M.__name__ + "._utils")
        a = M.arange(6.0).view(2, 3).requires_grad_()
        b = M.arange(4.0).view(2, 2).t()
        flat = u._flatten_dense_tensors([a, b, M.empty(0)])
        parts = u._unflatten_dense_tensors(flat, [a, b, M.empty(0)])
        (parts[0] * parts[0]).sum().backward()
        return (flat, type(flat.grad_fn).__name__, type(parts).__name__, parts[0], parts[1],
                parts[2], [p._is_view() for p in parts], a.grad,
                type(u._flatten_dense_tensors([a]).grad_fn).__name__,
                u._get_device_index("cpu", allow_cpu=True), u._get_device_index(2))

    check(run)
