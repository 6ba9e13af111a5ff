"""`gradrs.lobpcg`: Locally Optimal Block Preconditioned Conjugate Gradient methods for the
k largest (or smallest) eigenpairs of a symmetric positive definite generalized eigenproblem,
as PyTorch's torch/_lobpcg.py computes them (Python over gradrs ops: the same random initial
basis for the same seed, the same iteration), with its backward (`LOBPCGAutogradFunction`,
the symmetric eigenproblem's gradient through a Sylvester equation for a partial eigenspace)."""

from __future__ import annotations

import sys

from . import _linalg_utils as _utils

__all__ = ["lobpcg"]

_G = sys.modules[__package__]


def _symeig_backward_complete_eigenspace(D_grad, U_grad, A, D, U):
    # F_ij = (d_j - d_i)^-1 for i != j, F_ii = 0
    F = D.unsqueeze(-2) - D.unsqueeze(-1)
    F.diagonal(dim1=-2, dim2=-1).fill_(float("inf"))
    F.pow_(-1)
    # A.grad = U (D.grad + (U^T U.grad * F)) U^T
    Ut = U.mT.contiguous()
    return _G.matmul(U, _G.matmul(_G.diag_embed(D_grad) + _G.matmul(Ut, U_grad) * F, Ut))


def _polynomial_coefficients_given_roots(roots):
    """The coefficients (a_0, ..., a_n == 1) of the polynomial whose roots are `roots` (last
    dim), by Horner's rule on copies so that the steps differentiate."""
    poly_order = roots.shape[-1]
    poly_coeffs_shape = list(roots.shape)
    # p(x) = x^n + ... + a_0, with one extra coefficient for the vectorized update below
    poly_coeffs_shape[-1] += 2
    poly_coeffs = roots.new_zeros(poly_coeffs_shape)
    poly_coeffs[..., 0] = 1
    poly_coeffs[..., -1] = 1
    for i in range(1, poly_order + 1):
        poly_coeffs_new = poly_coeffs.clone() if roots.requires_grad else poly_coeffs
        out = poly_coeffs_new.narrow(-1, poly_order - i, i + 1)
        out -= roots.narrow(-1, i - 1, 1) * poly_coeffs.narrow(-1, poly_order - i + 1, i + 1)
        poly_coeffs = poly_coeffs_new
    return poly_coeffs.narrow(-1, 1, poly_order + 1)


def _polynomial_value(poly, x, zero_power, transition):
    """poly(x) by Horner's rule; `transition(val, x, coeff)` is one step, `x * val + coeff *
    zero_power` in the meaning of x (a vector, a matrix)."""
    res = zero_power.clone()
    for k in range(poly.size(-1) - 2, -1, -1):
        res = transition(res, x, poly[..., k])
    return res


def _matrix_polynomial_value(poly, x, zero_power=None):
    """poly(x) for a (batched) matrix x."""

    def transition(curr_poly_val, x, poly_coeff):
        res = x.matmul(curr_poly_val)
        res.diagonal(dim1=-2, dim2=-1).add_(poly_coeff.unsqueeze(-1))
        return res

    if zero_power is None:
        zero_power = _G.eye(x.size(-1), x.size(-1), dtype=x.dtype, device=x.device).view(
            *([1] * len(list(x.shape[:-2]))), x.size(-1), x.size(-1))
    return _polynomial_value(poly, x, zero_power, transition)


def _vector_polynomial_value(poly, x, zero_power=None):
    """poly(x) for a (batched) vector x."""

    def transition(curr_poly_val, x, poly_coeff):
        return _G.addcmul(poly_coeff.unsqueeze(-1), x, curr_poly_val)

    if zero_power is None:
        zero_power = x.new_ones(1).expand(x.shape)
    return _polynomial_value(poly, x, zero_power, transition)


def _symeig_backward_partial_eigenspace(D_grad, U_grad, A, D, U, largest):
    # the projection onto the orthogonal complement of span(U): I - U U^T
    Ut = U.mT.contiguous()
    proj_U_ortho = -U.matmul(Ut)
    proj_U_ortho.diagonal(dim1=-2, dim2=-1).add_(1)
    # a basis of that complement: a random [..., m, m - k] matrix projected onto it, drawn from
    # a fresh generator (seed 67280421310721, PyTorch's default) so that it is deterministic
    gen = _G.Generator(A.device)
    U_ortho = proj_U_ortho.matmul(_G.randn((*A.shape[:-1], A.size(-1) - D.size(-1)),
                                           dtype=A.dtype, device=A.device, generator=gen))
    U_ortho_t = U_ortho.mT.contiguous()
    # D is diagonal: its entries are the roots of its characteristic polynomial
    chr_poly_D = _polynomial_coefficients_given_roots(D)
    # the explicit solution of the Sylvester equation
    #   U_ortho^T A U_ortho dX - dX D = -U_ortho^T A U
    # (Hu and Cheng, "The polynomial solution to the Sylvester matrix equation", 2006), with
    # the series over powers of A accumulated without forming matrix powers
    U_grad_projected = U_grad
    series_acc = U_grad_projected.new_zeros(U_grad_projected.shape)
    for k in range(1, chr_poly_D.size(-1)):
        poly_D = _vector_polynomial_value(chr_poly_D[..., k:], D)
        series_acc += U_grad_projected * poly_D.unsqueeze(-2)
        U_grad_projected = A.matmul(U_grad_projected)
    chr_poly_D_at_A = _matrix_polynomial_value(chr_poly_D, A)
    chr_poly_D_at_A_to_U_ortho = _G.matmul(U_ortho_t, _G.matmul(chr_poly_D_at_A, U_ortho))
    # inverted through Cholesky: it is positive definite unless largest with k odd, where it
    # is negative definite (for distinct eigenvalues)
    chr_poly_D_at_A_to_U_ortho_sign = -1 if (largest and (k % 2 == 1)) else +1
    chr_poly_D_at_A_to_U_ortho_L = _G.linalg.cholesky(
        chr_poly_D_at_A_to_U_ortho_sign * chr_poly_D_at_A_to_U_ortho)
    # the part in span(U)
    res = _symeig_backward_complete_eigenspace(D_grad, U_grad, A, D, U)
    # the Sylvester solution, in span(U_ortho)
    res -= U_ortho.matmul(
        chr_poly_D_at_A_to_U_ortho_sign
        * _G.cholesky_solve(U_ortho_t.matmul(series_acc), chr_poly_D_at_A_to_U_ortho_L)
    ).matmul(Ut)
    return res


def _symeig_backward(D_grad, U_grad, A, D, U, largest):
    # a square U is a complete eigenspace
    if U.size(-1) == U.size(-2):
        return _symeig_backward_complete_eigenspace(D_grad, U_grad, A, D, U)
    return _symeig_backward_partial_eigenspace(D_grad, U_grad, A, D, U, largest)


class LOBPCGAutogradFunction(_G.autograd.Function):
    """`lobpcg` as a Function: the forward runs the iteration, the backward is the symmetric
    eigenproblem's gradient with respect to A (B must be None)."""

    @staticmethod
    def forward(ctx, A, k=None, B=None, X=None, n=None, iK=None, niter=None, tol=None,
                largest=None, method=None, tracker=None, ortho_iparams=None,
                ortho_fparams=None, ortho_bparams=None):
        A = A.contiguous() if not A.is_sparse else A
        if B is not None:
            B = B.contiguous() if not B.is_sparse else B
        D, U = _lobpcg(A, k, B, X, n, iK, niter, tol, largest, method, tracker, ortho_iparams,
                       ortho_fparams, ortho_bparams)
        ctx.save_for_backward(A, B, D, U)
        ctx.largest = largest
        return D, U

    @staticmethod
    def backward(ctx, D_grad, U_grad):
        A_grad = B_grad = None
        grads = [None] * 14
        A, B, D, U = ctx.saved_tensors
        largest = ctx.largest
        if A.is_sparse or (B is not None and B.is_sparse and ctx.needs_input_grad[2]):
            raise ValueError("lobpcg.backward does not support sparse input yet. "
                             "Note that lobpcg.forward does though.")
        if A.is_complex() or B is not None and B.is_complex():
            raise ValueError("lobpcg.backward does not support complex input yet. "
                             "Note that lobpcg.forward does though.")
        if B is not None:
            raise ValueError("lobpcg.backward does not support backward with B != I yet.")
        if largest is None:
            largest = True
        if B is None:
            A_grad = _symeig_backward(D_grad, U_grad, A, D, U, largest)
        grads[0] = A_grad  # A is input 0
        grads[2] = B_grad  # B is input 2
        return tuple(grads)


def lobpcg(A, k=None, B=None, X=None, n=None, iK=None, niter=None, tol=None, largest=None,
           method=None, tracker=None, ortho_iparams=None, ortho_fparams=None,
           ortho_bparams=None):
    """Find the k largest (or smallest) eigenvalues and the corresponding eigenvectors of a
    symmetric positive definite generalized eigenvalue problem using matrix-free LOBPCG
    methods.

    `method="basic"` is the LOBPCG method of [Knyazev2001] (less robust: it may fail when
    Cholesky meets a singular input); `method="ortho"` (the default) the LOBPCG method with
    orthogonal basis selection of [StathopoulosEtal2002], robust and faster to converge.

    While A is assumed symmetric, its gradient need not be: when A (or B) requires grad, A is
    first replaced by ``(A + A.mT) / 2`` (and B likewise), as PyTorch does, so that
    ``A - t * A.grad`` stays symmetric. The backward supports neither complex inputs nor B.
    LOBPCG is not applicable when A has fewer than 3 x n rows.

    Args:
      A (Tensor): the input tensor of size :math:`(*, m, m)`
      k (integer, optional): the number of requested eigenpairs. Default is the number of
        :math:`X` columns (when specified) or `1`.
      B (Tensor, optional): the input tensor of size :math:`(*, m, m)`; the identity when not
        given.
      X (tensor, optional): the input tensor of size :math:`(*, m, n)` where `k <= n <= m`,
        the initial approximation of the eigenvectors.
      n (integer, optional): without `X`, the number of columns of the random initial
        approximation (default `k`); ignored when `X` is given.
      iK (tensor, optional): the input tensor of size :math:`(*, m, m)`, a preconditioner.
      niter (int, optional): the maximum number of iterations (default 1000); `-1` iterates
        until convergence.
      tol (float, optional): the residual tolerance of the stopping criterion; default
        `feps ** 0.5` with `feps` the dtype's machine epsilon.
      largest (bool, optional): solve for the largest eigenvalues (default `True`), else the
        smallest.
      method (str, optional): `"basic"` or `"ortho"` (default).
      tracker (callable, optional): called at each iteration with the LOBPCG worker (its
        `iparams`, `fparams`, `bparams`, `ivars`, `fvars`, `bvars`, `tvars`, `A`, `B`, `iK`,
        `E`, `X`, `S`, `R`); setting `bvars["force_stop"] = True` stops the iteration.
      ortho_iparams, ortho_fparams, ortho_bparams (dict, optional): parameters of the
        `"ortho"` method (`ortho_i_max`, `ortho_j_max`, `ortho_tol`, `ortho_tol_drop`,
        `ortho_tol_replace`, `ortho_use_drop`).

    Returns:
      E (Tensor): tensor of eigenvalues of size :math:`(*, k)`
      X (Tensor): tensor of eigenvectors of size :math:`(*, m, k)`

    References:
      [Knyazev2001] Andrew V. Knyazev. (2001) Toward the Optimal Preconditioned Eigensolver:
      Locally Optimal Block Preconditioned Conjugate Gradient Method. SIAM J. Sci. Comput.,
      23(2), 517-541.

      [StathopoulosEtal2002] Andreas Stathopoulos and Kesheng Wu. (2002) A Block
      Orthogonalization Procedure with Constant Synchronization Requirements. SIAM J. Sci.
      Comput., 23(6), 2165-2182.

      [DuerschEtal2018] Jed A. Duersch, Meiyue Shao, Chao Yang, Ming Gu. (2018) A Robust and
      Efficient Implementation of LOBPCG. SIAM J. Sci. Comput., 40(5), C655-C676.

    Example:
        >>> A = gradrs.diag(gradrs.arange(1.0, 11.0, dtype=gradrs.float64))
        >>> E, X = gradrs.lobpcg(A, k=2)
        >>> E
        tensor([10.0000,  9.0000], dtype=gradrs.float64)
        >>> X.abs().argmax(dim=0)
        tensor([9, 8])
    """
    if A.requires_grad or (B is not None and B.requires_grad):
        # A's gradient is made symmetric by symmetrizing A first (B likewise)
        A_sym = (A + A.mT) / 2
        B_sym = (B + B.mT) / 2 if (B is not None) else None
        return LOBPCGAutogradFunction.apply(A_sym, k, B_sym, X, n, iK, niter, tol, largest,
                                            method, tracker, ortho_iparams, ortho_fparams,
                                            ortho_bparams)
    return _lobpcg(A, k, B, X, n, iK, niter, tol, largest, method, tracker, ortho_iparams,
                   ortho_fparams, ortho_bparams)


def _lobpcg(A, k=None, B=None, X=None, n=None, iK=None, niter=None, tol=None, largest=None,
            method=None, tracker=None, ortho_iparams=None, ortho_fparams=None,
            ortho_bparams=None):
    if A.shape[-2] != A.shape[-1]:
        raise AssertionError(f"A must be square, got shape {A.shape}")
    if B is not None and A.shape != B.shape:
        raise AssertionError(f"A and B must have same shape, got {A.shape} vs {B.shape}")
    dtype = _utils.get_floating_dtype(A)
    device = A.device
    if tol is None:
        feps = {_G.float32: 1.2e-07, _G.float64: 2.23e-16}[dtype]
        tol = feps**0.5
    m = A.shape[-1]
    k = (1 if X is None else X.shape[-1]) if k is None else k
    n = (k if n is None else n) if X is None else X.shape[-1]
    if m < 3 * n:
        raise ValueError(
            f"LOBPCG algorithm is not applicable when the number of A rows (={m})"
            f" is smaller than 3 x the number of requested eigenpairs (={n})")
    method = "ortho" if method is None else method
    iparams = {"m": m, "n": n, "k": k, "niter": 1000 if niter is None else niter}
    fparams = {"tol": tol}
    bparams = {"largest": True if largest is None else largest}
    if method == "ortho":
        if ortho_iparams is not None:
            iparams.update(ortho_iparams)
        if ortho_fparams is not None:
            fparams.update(ortho_fparams)
        if ortho_bparams is not None:
            bparams.update(ortho_bparams)
        iparams["ortho_i_max"] = iparams.get("ortho_i_max", 3)
        iparams["ortho_j_max"] = iparams.get("ortho_j_max", 3)
        fparams["ortho_tol"] = fparams.get("ortho_tol", tol)
        fparams["ortho_tol_drop"] = fparams.get("ortho_tol_drop", tol)
        fparams["ortho_tol_replace"] = fparams.get("ortho_tol_replace", tol)
        bparams["ortho_use_drop"] = bparams.get("ortho_use_drop", False)
    if len(A.shape) > 2:
        N = int(_G.prod(_G.tensor(A.shape[:-2])))
        bA = A.reshape((N,) + A.shape[-2:])
        bB = B.reshape((N,) + A.shape[-2:]) if B is not None else None
        bX = X.reshape((N,) + X.shape[-2:]) if X is not None else None
        bE = _G.empty((N, k), dtype=dtype, device=device)
        bXret = _G.empty((N, m, k), dtype=dtype, device=device)
        for i in range(N):
            A_ = bA[i]
            B_ = bB[i] if bB is not None else None
            X_ = _G.randn((m, n), dtype=dtype, device=device) if bX is None else bX[i]
            if not (len(X_.shape) == 2 and X_.shape == (m, n)):
                raise AssertionError(f"X_ shape mismatch: got {X_.shape}, expected {(m, n)}")
            iparams["batch_index"] = i
            worker = LOBPCG(A_, B_, X_, iK, iparams, fparams, bparams, method, tracker)
            worker.run()
            bE[i] = worker.E[:k]
            bXret[i] = worker.X[:, :k]
        return bE.reshape(A.shape[:-2] + (k,)), bXret.reshape(A.shape[:-2] + (m, k))
    X = _G.randn((m, n), dtype=dtype, device=device) if X is None else X
    if not (len(X.shape) == 2 and X.shape == (m, n)):
        raise AssertionError(f"X shape mismatch: got {X.shape}, expected {(m, n)}")
    worker = LOBPCG(A, B, X, iK, iparams, fparams, bparams, method, tracker)
    worker.run()
    return worker.E[:k], worker.X[:, :k]


class LOBPCG:
    """Worker class of LOBPCG methods."""

    def __init__(self, A, B, X, iK, iparams, fparams, bparams, method, tracker) -> None:
        # constant parameters
        self.A = A
        self.B = B
        self.iK = iK
        self.iparams = iparams
        self.fparams = fparams
        self.bparams = bparams
        self.method = method
        self.tracker = tracker
        m = iparams["m"]
        n = iparams["n"]
        # variable parameters
        self.X = X
        self.E = _G.zeros((n,), dtype=X.dtype, device=X.device)
        self.R = _G.zeros((m, n), dtype=X.dtype, device=X.device)
        self.S = _G.zeros((m, 3 * n), dtype=X.dtype, device=X.device)
        self.tvars = {}
        self.ivars = {"istep": 0}
        self.fvars = {"_": 0.0}
        self.bvars = {"_": False}

    def __str__(self):
        lines = ["LOBPCG:"]
        lines += [f"  iparams={self.iparams}"]
        lines += [f"  fparams={self.fparams}"]
        lines += [f"  bparams={self.bparams}"]
        lines += [f"  ivars={self.ivars}"]
        lines += [f"  fvars={self.fvars}"]
        lines += [f"  bvars={self.bvars}"]
        lines += [f"  tvars={self.tvars}"]
        lines += [f"  A={self.A}"]
        lines += [f"  B={self.B}"]
        lines += [f"  iK={self.iK}"]
        lines += [f"  X={self.X}"]
        lines += [f"  E={self.E}"]
        return "".join(line + "\n" for line in lines)

    def update(self):
        """Set and update iteration variables."""
        if self.ivars["istep"] == 0:
            X_norm = float(_G.norm(self.X))
            iX_norm = X_norm**-1
            A_norm = float(_G.norm(_utils.matmul(self.A, self.X))) * iX_norm
            B_norm = float(_G.norm(_utils.matmul(self.B, self.X))) * iX_norm
            self.fvars["X_norm"] = X_norm
            self.fvars["A_norm"] = A_norm
            self.fvars["B_norm"] = B_norm
            self.ivars["iterations_left"] = self.iparams["niter"]
            self.ivars["converged_count"] = 0
            self.ivars["converged_end"] = 0
        if self.method == "ortho":
            self._update_ortho()
        else:
            self._update_basic()
        self.ivars["iterations_left"] = self.ivars["iterations_left"] - 1
        self.ivars["istep"] = self.ivars["istep"] + 1

    def update_residual(self):
        """Update residual R from A, B, X, E."""
        mm = _utils.matmul
        self.R = mm(self.A, self.X) - mm(self.B, self.X) * self.E

    def update_converged_count(self):
        """Determine the number of converged eigenpairs using the backward stable convergence
        criterion of Sec 4.3 of [DuerschEtal2018]. Users may redefine this method for custom
        convergence criteria."""
        prev_count = self.ivars["converged_count"]
        tol = self.fparams["tol"]
        A_norm = self.fvars["A_norm"]
        B_norm = self.fvars["B_norm"]
        E, X, R = self.E, self.X, self.R
        rerr = _G.norm(R, 2, (0,)) / (
            _G.norm(X, 2, (0,)) * (A_norm + _G.abs(E[: X.shape[-1]]) * B_norm))
        converged = rerr < tol
        count = 0
        for b in converged:
            if not b:
                # the pairs after an unconverged one are not counted: strict ordering
                break
            count += 1
        if count < prev_count:
            raise AssertionError(f"the number of converged eigenpairs (was {prev_count}, got "
                                 f"{count}) cannot decrease")
        self.ivars["converged_count"] = count
        self.tvars["rerr"] = rerr
        return count

    def stop_iteration(self):
        """Return True to stop iterations (a tracker may set ``bvars['force_stop'] = True``)."""
        return (self.bvars.get("force_stop", False)
                or self.ivars["iterations_left"] == 0
                or self.ivars["converged_count"] >= self.iparams["k"])

    def run(self):
        """Run LOBPCG iterations."""
        self.update()
        if self.tracker is not None:
            self.call_tracker()
        while not self.stop_iteration():
            self.update()
            if self.tracker is not None:
                self.call_tracker()

    def call_tracker(self):
        """Call the tracker with this worker."""
        self.tracker(self)

    # Internal methods

    def _update_basic(self):
        """Update or initialize iteration variables when `method == "basic"`."""
        mm = _G.matmul
        ns = self.ivars["converged_end"]
        nc = self.ivars["converged_count"]
        n = self.iparams["n"]
        largest = self.bparams["largest"]
        if self.ivars["istep"] == 0:
            Ri = self._get_rayleigh_ritz_transform(self.X)
            M = _utils.qform(_utils.qform(self.A, self.X), Ri)
            E, Z = _utils.symeig(M, largest)
            self.X[:] = mm(self.X, mm(Ri, Z))
            self.E[:] = E
            np = 0
            self.update_residual()
            nc = self.update_converged_count()
            self.S[..., :n] = self.X
            W = _utils.matmul(self.iK, self.R)
            self.ivars["converged_end"] = ns = n + np + W.shape[-1]
            self.S[:, n + np: ns] = W
        else:
            S_ = self.S[:, nc:ns]
            Ri = self._get_rayleigh_ritz_transform(S_)
            M = _utils.qform(_utils.qform(self.A, S_), Ri)
            E_, Z = _utils.symeig(M, largest)
            self.X[:, nc:] = mm(S_, mm(Ri, Z[:, : n - nc]))
            self.E[nc:] = E_[: n - nc]
            P = mm(S_, mm(Ri, Z[:, n: 2 * n - nc]))
            np = P.shape[-1]
            self.update_residual()
            nc = self.update_converged_count()
            self.S[..., :n] = self.X
            self.S[:, n: n + np] = P
            W = _utils.matmul(self.iK, self.R[:, nc:])
            self.ivars["converged_end"] = ns = n + np + W.shape[-1]
            self.S[:, n + np: ns] = W

    def _update_ortho(self):
        """Update or initialize iteration variables when `method == "ortho"`."""
        mm = _G.matmul
        ns = self.ivars["converged_end"]
        nc = self.ivars["converged_count"]
        n = self.iparams["n"]
        largest = self.bparams["largest"]
        if self.ivars["istep"] == 0:
            Ri = self._get_rayleigh_ritz_transform(self.X)
            M = _utils.qform(_utils.qform(self.A, self.X), Ri)
            _E, Z = _utils.symeig(M, largest)
            self.X = mm(self.X, mm(Ri, Z))
            self.update_residual()
            np = 0
            nc = self.update_converged_count()
            self.S[:, :n] = self.X
            W = self._get_ortho(self.R, self.X)
            ns = self.ivars["converged_end"] = n + np + W.shape[-1]
            self.S[:, n + np: ns] = W
        else:
            S_ = self.S[:, nc:ns]
            # Rayleigh-Ritz procedure
            E_, Z = _utils.symeig(_utils.qform(self.A, S_), largest)
            # update E, X, P
            self.X[:, nc:] = mm(S_, Z[:, : n - nc])
            self.E[nc:] = E_[: n - nc]
            P = mm(S_, mm(Z[:, n - nc:], _utils.basis(Z[: n - nc, n - nc:].mT)))
            np = P.shape[-1]
            # check convergence
            self.update_residual()
            nc = self.update_converged_count()
            # update S
            self.S[:, :n] = self.X
            self.S[:, n: n + np] = P
            W = self._get_ortho(self.R[:, nc:], self.S[:, : n + np])
            ns = self.ivars["converged_end"] = n + np + W.shape[-1]
            self.S[:, n + np: ns] = W

    def _get_rayleigh_ritz_transform(self, S):
        """The upper-triangular Ri reducing the Rayleigh-Ritz problem (S^T A S) C =
        (S^T B S) C E to the standard one (Ri^T S^T A S Ri) Z = Z E, C = Ri Z
        ([DuerschEtal2018], with D M D replaced by elementwise products): d = diag(S^T B
        S)^-1/2, R^T R = Cholesky(d d^T * S^T B S), Ri = R^-1 * d."""
        B = self.B
        SBS = _utils.qform(B, S)
        d_row = SBS.diagonal(0, -2, -1) ** -0.5
        d_col = d_row.reshape(d_row.shape[0], 1)
        R = _G.linalg.cholesky((SBS * d_row) * d_col, upper=True)
        return _G.linalg.solve_triangular(R, d_row.diag_embed(), upper=True, left=False)

    def _get_svqb(self, U, drop, tau):
        """Return B-orthonormal U (Algorithm 4 of [DuerschPhD2015] when `drop` is False);
        with `drop`, the columns that contribute little to span(U) are dropped."""
        if _G.numel(U) == 0:
            return U
        UBU = _utils.qform(self.B, U)
        d = UBU.diagonal(0, -2, -1)
        # exact zero columns (d == 0, which d ** -0.5 cannot take) are dropped first
        nz = _G.where(abs(d) != 0.0)
        if len(nz) != 1:
            raise AssertionError(f"expected nz to have length 1, got {nz}")
        if len(nz[0]) < len(d):
            U = U[:, nz[0]]
            if _G.numel(U) == 0:
                return U
            UBU = _utils.qform(self.B, U)
            d = UBU.diagonal(0, -2, -1)
            nz = _G.where(abs(d) != 0.0)
            if len(nz[0]) != len(d):
                raise AssertionError(f"expected nz[0] length {len(d)}, got {len(nz[0])}")
        # Algorithm 4 of [DuerschPhD2015]
        d_col = (d**-0.5).reshape(d.shape[0], 1)
        DUBUD = (UBU * d_col) * d_col.mT
        E, Z = _utils.symeig(DUBUD)
        t = tau * abs(E).max()
        if drop:
            keep = _G.where(E > t)
            if len(keep) != 1:
                raise AssertionError(f"expected keep to have length 1, got {keep}")
            E = E[keep[0]]
            Z = Z[:, keep[0]]
            d_col = d_col[keep[0]]
        else:
            E[(_G.where(E < t))[0]] = t
        return _G.matmul(U * d_col.mT, Z * E**-0.5)

    def _get_ortho(self, U, V):
        """Return B-orthonormal U whose columns are B-orthogonal to V (Algorithm 3 of
        [DuerschPhD2015], or its Algorithm 6 when ``bparams["ortho_use_drop"]``); empty when
        every column of U is B-collinear to V."""
        mm = _G.matmul
        mm_B = _utils.matmul
        m = self.iparams["m"]
        tau_ortho = self.fparams["ortho_tol"]
        tau_drop = self.fparams["ortho_tol_drop"]
        tau_replace = self.fparams["ortho_tol_replace"]
        i_max = self.iparams["ortho_i_max"]
        j_max = self.iparams["ortho_j_max"]
        # with use_drop, columns of U that contribute little to span([U, V]) are dropped
        use_drop = self.bparams["ortho_use_drop"]
        # clean up the variables of the previous call
        for vkey in list(self.fvars.keys()):
            if vkey.startswith("ortho_") and vkey.endswith("_rerr"):
                self.fvars.pop(vkey)
        self.ivars.pop("ortho_i", 0)
        self.ivars.pop("ortho_j", 0)
        BV_norm = _G.norm(mm_B(self.B, V))
        BU = mm_B(self.B, U)
        VBU = mm(V.mT, BU)
        i = j = 0
        for i in range(i_max):
            U = U - mm(V, VBU)
            drop = False
            tau_svqb = tau_drop
            for j in range(j_max):
                if use_drop:
                    U = self._get_svqb(U, drop, tau_svqb)
                    drop = True
                    tau_svqb = tau_replace
                else:
                    U = self._get_svqb(U, False, tau_replace)
                if _G.numel(U) == 0:
                    # all initial U columns are B-collinear to V
                    self.ivars["ortho_i"] = i
                    self.ivars["ortho_j"] = j
                    return U
                BU = mm_B(self.B, U)
                UBU = mm(U.mT, BU)
                U_norm = _G.norm(U)
                BU_norm = _G.norm(BU)
                R = UBU - _G.eye(UBU.shape[-1], device=UBU.device, dtype=UBU.dtype)
                R_norm = _G.norm(R)
                rerr = float(R_norm) * float(BU_norm * U_norm) ** -1
                vkey = f"ortho_UBUmI_rerr[{i}, {j}]"
                self.fvars[vkey] = rerr
                if rerr < tau_ortho:
                    break
            VBU = mm(V.mT, BU)
            VBU_norm = _G.norm(VBU)
            U_norm = _G.norm(U)
            rerr = float(VBU_norm) * float(BV_norm * U_norm) ** -1
            vkey = f"ortho_VBU_rerr[{i}]"
            self.fvars[vkey] = rerr
            if rerr < tau_ortho:
                break
            if m < U.shape[-1] + V.shape[-1]:
                B = self.B
                if B is None:
                    raise AssertionError("B must not be None")
                raise ValueError(
                    "Overdetermined shape of U:"
                    f" #B-cols(={B.shape[-1]}) >= #U-cols(={U.shape[-1]}) + "
                    f"#V-cols(={V.shape[-1]}) must hold")
        self.ivars["ortho_i"] = i
        self.ivars["ortho_j"] = j
        return U
