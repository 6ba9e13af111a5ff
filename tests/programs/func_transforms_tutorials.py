"""Three pytorch/tutorials pages on derivatives beyond backward(), in order: "Forward-mode
Automatic Differentiation" (dual levels, make_dual / unpack_dual, modules with dual parameters,
functional_call, a custom Function with jvp checked by gradcheck, torch.func.jvp), "Jacobians,
Hessians, hvp, vhp, and more" (row-by-row autograd.grad vs vmap(vjp), jacrev / jacfwd with
argnums, batched Jacobians, hessian, hvp as jvp of grad, autograd.functional.hvp / vhp) and
"Neural Tangent Kernels" (a small CNN, the Jacobian-contraction and the NTK-vector-product
methods with einsum, full and trace modes)."""
import torch
import torch.autograd.forward_ad as fwAD
import torch.nn as nn
import torch.nn.functional as F
from torch.func import functional_call, hessian, jacfwd, jacrev, jvp, vjp, vmap

# ---- Forward-mode Automatic Differentiation
torch.manual_seed(0)
primal = torch.randn(10, 10)
tangent = torch.randn(10, 10)


def fn(x, y):
    return x ** 2 + y ** 2


with fwAD.dual_level():
    dual_input = fwAD.make_dual(primal, tangent)
    print("tangent is tangent:", fwAD.unpack_dual(dual_input).tangent is tangent)
    dual_input_alt = fwAD.make_dual(primal, tangent.T)
    print("transposed tangent copied:", fwAD.unpack_dual(dual_input_alt).tangent is not tangent)
    plain_tensor = torch.randn(10, 10)
    dual_output = fn(dual_input, plain_tensor)
    jvp_out = fwAD.unpack_dual(dual_output).tangent
    print(type(fwAD.unpack_dual(dual_output)).__name__, fwAD.unpack_dual(dual_output)._fields)
    print("jvp == 2 * primal * tangent:", torch.allclose(jvp_out, 2 * primal * tangent))
print("outside the level:", fwAD.unpack_dual(dual_output).tangent)
print(jvp_out[0, :4])

model = nn.Linear(5, 5)
input = torch.randn(16, 5)
params = {name: p for name, p in model.named_parameters()}
tangents = {name: torch.rand_like(p) for name, p in params.items()}

with fwAD.dual_level():
    for name, p in params.items():
        delattr(model, name)
        setattr(model, name, fwAD.make_dual(p, tangents[name]))
    out = model(input)
    jvp_module = fwAD.unpack_dual(out).tangent
# torch's tangent here also records a graph through the zero tangent of `input`
# (efficient zero tensors in the formulas): programs_gaps.md 72; the values are printed
print(jvp_module.shape, jvp_module[0].detach())

model = nn.Linear(5, 5)
dual_params = {}
with fwAD.dual_level():
    for name, p in params.items():
        dual_params[name] = fwAD.make_dual(p, tangents[name])
    out = functional_call(model, dual_params, input)
    jvp2 = fwAD.unpack_dual(out).tangent
print("functional_call agrees:", torch.allclose(jvp_module, jvp2))


class Fn(torch.autograd.Function):
    @staticmethod
    def forward(ctx, foo):
        result = torch.exp(foo)
        ctx.result = result
        return result

    @staticmethod
    def jvp(ctx, gI):
        gO = gI * ctx.result
        del ctx.result
        return gO


fn_apply = Fn.apply
primal = torch.randn(10, 10, dtype=torch.double, requires_grad=True)
tangent = torch.randn(10, 10)
with fwAD.dual_level():
    dual_input = fwAD.make_dual(primal, tangent)
    dual_output = fn_apply(dual_input)
    jvp_fn = fwAD.unpack_dual(dual_output).tangent
print(jvp_fn.dtype, jvp_fn[0, :3])
print("gradcheck:", torch.autograd.gradcheck(Fn.apply, (primal,), check_forward_ad=True,
                                             check_backward_ad=False, check_undefined_grad=False,
                                             check_batched_grad=False))

primal0 = torch.randn(10, 10)
tangent0 = torch.randn(10, 10)
primal1 = torch.randn(10, 10)
tangent1 = torch.randn(10, 10)
primal_out, tangent_out = jvp(fn, (primal0, primal1), (tangent0, tangent1))
print(primal_out.shape, tangent_out[0, :3])
print("func.jvp agrees:",
      torch.allclose(tangent_out, 2 * primal0 * tangent0 + 2 * primal1 * tangent1))

# ---- Jacobians, Hessians, hvp, vhp, and more
torch.manual_seed(0)


def predict(weight, bias, x):
    return F.linear(x, weight, bias).tanh()


D = 16
weight = torch.randn(D, D)
bias = torch.randn(D)
x = torch.randn(D)

xp = x.clone().requires_grad_()
unit_vectors = torch.eye(D)


def compute_jac(xp):
    jacobian_rows = [torch.autograd.grad(predict(weight, bias, xp), xp, vec)[0]
                     for vec in unit_vectors]
    return torch.stack(jacobian_rows)


jacobian = compute_jac(xp)
print(jacobian.shape)
print(jacobian[0])

_, vjp_fn = vjp(lambda x: predict(weight, bias, x), x)
ft_jacobian, = vmap(vjp_fn)(unit_vectors)
print("vmap(vjp) matches:", torch.allclose(ft_jacobian, jacobian))

ft_jacobian = jacrev(predict, argnums=2)(weight, bias, x)
print("jacrev matches:", torch.allclose(ft_jacobian, jacobian))

ft_jac_weight, ft_jac_bias = jacrev(predict, argnums=(0, 1))(weight, bias, x)
print(ft_jac_weight.shape, ft_jac_bias.shape)
print("bias jacobian is diag(1 - y^2) @ I:",
      torch.allclose(ft_jac_bias, torch.diag(1 - predict(weight, bias, x) ** 2)))

jacfwd_out = jacfwd(predict, argnums=2)(weight, bias, x)
jacrev_out = jacrev(predict, argnums=2)(weight, bias, x)
print("jacfwd vs jacrev:", torch.allclose(jacfwd_out, jacrev_out))

# Hessians of a small function, three ways
Dh = 4
wh = torch.randn(Dh, Dh)
bh = torch.randn(Dh)
xh = torch.randn(Dh)
hess_api = hessian(predict, argnums=2)(wh, bh, xh)
hess_fwdfwd = jacfwd(jacfwd(predict, argnums=2), argnums=2)(wh, bh, xh)
hess_revrev = jacrev(jacrev(predict, argnums=2), argnums=2)(wh, bh, xh)
print(hess_api.shape, torch.allclose(hess_api, hess_fwdfwd, atol=1e-6),
      torch.allclose(hess_api, hess_revrev, atol=1e-6))
print(hess_api[0, 0])

# Batch Jacobian and batch Hessian
batch_size = 64
Din = 31
Dout = 33
weight = torch.randn(Dout, Din)
bias = torch.randn(Dout)
x = torch.randn(batch_size, Din)
compute_batch_jacobian = vmap(jacrev(predict, argnums=2), in_dims=(None, None, 0))
batch_jacobian0 = compute_batch_jacobian(weight, bias, x)
print(batch_jacobian0.shape)


def predict_with_output_summed(weight, bias, x):
    return predict(weight, bias, x).sum(0)


batch_jacobian1 = jacrev(predict_with_output_summed, argnums=2)(weight, bias, x).movedim(1, 0)
print("summed-output trick:", torch.allclose(batch_jacobian0, batch_jacobian1))
compute_batch_hessian = vmap(hessian(predict, argnums=2), in_dims=(None, None, 0))
batch_hess = compute_batch_hessian(weight, bias, x[:4])
print(batch_hess.shape)


def hvp(f, primals, tangents):
    return jvp(torch.func.grad(f), primals, tangents)[1]


def f(x):
    return x.sin().sum()


x = torch.randn(2048)
tangent = torch.randn(2048)
result = hvp(f, (x,), (tangent,))
print("hvp of sum(sin):", torch.allclose(result, -x.sin() * tangent), result[:3])

xd = torch.randn(3, dtype=torch.float64)
vd = torch.randn(3, dtype=torch.float64)


def cubic(x):
    return (x ** 3).sum() + x[0] * x[1]


value, hv = torch.autograd.functional.hvp(cubic, xd, vd)
value2, vh = torch.autograd.functional.vhp(cubic, xd, vd)
print(value, hv)
print(torch.equal(value, value2), torch.allclose(hv, vh))
print(torch.autograd.functional.hessian(cubic, xd))

# ---- Neural Tangent Kernels
torch.manual_seed(0)


class CNN(nn.Module):
    def __init__(self):
        super().__init__()
        self.conv1 = nn.Conv2d(3, 8, (3, 3))
        self.conv2 = nn.Conv2d(8, 8, (3, 3))
        self.conv3 = nn.Conv2d(8, 8, (3, 3))
        self.fc = nn.Linear(8, 10)

    def forward(self, x):
        x = self.conv1(x)
        x = x.relu()
        x = self.conv2(x)
        x = x.relu()
        x = self.conv3(x)
        x = x.flatten(1)
        x = self.fc(x)
        return x


x_train = torch.randn(4, 3, 7, 7, dtype=torch.float64)
x_test = torch.randn(3, 3, 7, 7, dtype=torch.float64)
net = CNN().double()
params = {k: v.detach() for k, v in net.named_parameters()}
print({k: tuple(v.shape) for k, v in params.items()})


def fnet_single(params, x):
    return functional_call(net, params, (x.unsqueeze(0),)).squeeze(0)


def empirical_ntk_jacobian_contraction(fnet_single, params, x1, x2, compute="full"):
    jac1 = vmap(jacrev(fnet_single), (None, 0))(params, x1)
    jac1 = jac1.values()
    jac1 = [j.flatten(2) for j in jac1]

    jac2 = vmap(jacrev(fnet_single), (None, 0))(params, x2)
    jac2 = jac2.values()
    jac2 = [j.flatten(2) for j in jac2]

    if compute == "full":
        einsum_expr = "Naf,Mbf->NMab"
    elif compute == "trace":
        einsum_expr = "Naf,Maf->NM"
    elif compute == "diagonal":
        einsum_expr = "Naf,Maf->NMa"
    else:
        raise AssertionError(compute)

    result = torch.stack([torch.einsum(einsum_expr, j1, j2) for j1, j2 in zip(jac1, jac2)])
    result = result.sum(0)
    return result


result = empirical_ntk_jacobian_contraction(fnet_single, params, x_train, x_test)
print(result.shape)
trace = empirical_ntk_jacobian_contraction(fnet_single, params, x_train, x_test, "trace")
diagonal = empirical_ntk_jacobian_contraction(fnet_single, params, x_train, x_test, "diagonal")
print(trace.shape, diagonal.shape)
print("trace is the full kernel's trace:",
      torch.allclose(trace, result.diagonal(dim1=-2, dim2=-1).sum(-1)))
print("diagonal is the full kernel's diagonal:",
      torch.allclose(diagonal, result.diagonal(dim1=-2, dim2=-1)))


def empirical_ntk_ntk_vps(func, params, x1, x2, compute="full"):
    def get_ntk(x1, x2):
        def func_x1(params):
            return func(params, x1)

        def func_x2(params):
            return func(params, x2)

        output, vjp_fn = vjp(func_x1, params)

        def get_ntk_slice(vec):
            vjps = vjp_fn(vec)
            _, jvps = jvp(func_x2, (params,), vjps)
            return jvps

        basis = torch.eye(output.numel(), dtype=output.dtype, device=output.device).view(
            output.numel(), -1)
        return vmap(get_ntk_slice)(basis)

    result = vmap(vmap(get_ntk, (None, 0)), (0, None))(x1, x2)

    if compute == "full":
        return result
    if compute == "trace":
        return torch.einsum("NMKK->NM", result)
    if compute == "diagonal":
        return torch.einsum("NMKK->NMK", result)


result_from_ntk_vps = empirical_ntk_ntk_vps(fnet_single, params, x_train, x_test)
result_from_jacobian_contraction = empirical_ntk_jacobian_contraction(fnet_single, params,
                                                                      x_train, x_test)
print("NTK methods agree:",
      torch.allclose(result_from_ntk_vps, result_from_jacobian_contraction, atol=1e-8))
print(result_from_ntk_vps[0, 0, :3, :3])
print(empirical_ntk_ntk_vps(fnet_single, params, x_train, x_test, "trace"))
