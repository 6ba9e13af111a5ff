"""The torch.func tutorials on model ensembling and per-sample gradients: stack_module_state,
a stateless copy of the base model, vmap over functional_call with in_dims, the same
minibatch or different minibatches per model, per-sample gradients with vmap(grad(...)), and
the Jacobian / Hessian tutorial's jacrev / jacfwd / hessian / vjp / jvp on a small function."""
import copy
from functools import partial

import torch
import torch.nn as nn
import torch.nn.functional as F
from torch.func import functional_call, grad, hessian, jacfwd, jacrev, jvp, stack_module_state, vjp, vmap

torch.manual_seed(0)


class SimpleMLP(nn.Module):
    def __init__(self):
        super().__init__()
        self.fc1 = nn.Linear(784, 128)
        self.fc2 = nn.Linear(128, 128)
        self.fc3 = nn.Linear(128, 10)

    def forward(self, x):
        x = x.flatten(1)
        x = self.fc1(x)
        x = F.relu(x)
        x = self.fc2(x)
        x = F.relu(x)
        x = self.fc3(x)
        return x


device = "cpu"
num_models = 10
data = torch.randn(100, 64, 1, 28, 28, device=device)
targets = torch.randint(10, (6400,), device=device)
models = [SimpleMLP().to(device) for _ in range(num_models)]
minibatches = data[:num_models]
predictions_diff_minibatch_loop = [model(minibatch) for model, minibatch in zip(models, minibatches)]
minibatch = data[0]
predictions2 = [model(minibatch) for model in models]

params, buffers = stack_module_state(models)
print({k: tuple(v.shape) for k, v in params.items()}, buffers)
print("stacked requires_grad:", params["fc1.weight"].requires_grad, params["fc1.weight"].is_leaf)
# (the tutorial moves this copy to the 'meta' device; tests/programs/meta_init.py covers that)
base_model = copy.deepcopy(models[0])


def fmodel(params, buffers, x):
    return functional_call(base_model, (params, buffers), (x,))


predictions1_vmap = vmap(fmodel)(params, buffers, minibatches)
print(predictions1_vmap.shape)
assert torch.allclose(predictions1_vmap, torch.stack(predictions_diff_minibatch_loop), atol=1e-3, rtol=1e-5)
predictions2_vmap = vmap(fmodel, in_dims=(0, 0, None))(params, buffers, minibatch)
assert torch.allclose(predictions2_vmap, torch.stack(predictions2), atol=1e-3, rtol=1e-5)
print("ensemble matches loop:", torch.allclose(predictions2_vmap, torch.stack(predictions2), atol=1e-6))


# per-sample gradients
class SimpleCNN(nn.Module):
    def __init__(self):
        super().__init__()
        self.conv1 = nn.Conv2d(1, 8, 3, 1)
        self.conv2 = nn.Conv2d(8, 16, 3, 1)
        self.fc1 = nn.Linear(256, 32)
        self.fc2 = nn.Linear(32, 10)

    def forward(self, x):
        x = F.relu(self.conv1(x))
        x = F.max_pool2d(F.relu(self.conv2(x)), 2)
        x = F.max_pool2d(x, 2)
        x = torch.flatten(x, 1)
        x = F.relu(self.fc1(x))
        return F.log_softmax(self.fc2(x), dim=1)


def loss_fn(predictions, targets):
    return F.nll_loss(predictions, targets)


model = SimpleCNN().to(device=device)
batch_size = 16
pdata = torch.randn(batch_size, 1, 22, 22, device=device)
ptargets = torch.randint(10, (batch_size,), device=device)


def compute_grad(sample, target):
    sample = sample.unsqueeze(0)
    target = target.unsqueeze(0)
    prediction = model(sample)
    loss = loss_fn(prediction, target)
    return torch.autograd.grad(loss, list(model.parameters()))


per_sample_grads = [compute_grad(pdata[i], ptargets[i]) for i in range(batch_size)]
per_sample_grads = zip(*per_sample_grads)
per_sample_grads = [torch.stack(shards) for shards in per_sample_grads]
fparams = {k: v.detach() for k, v in model.named_parameters()}
fbuffers = {k: v.detach() for k, v in model.named_buffers()}


def compute_loss(params, buffers, sample, target):
    batch = sample.unsqueeze(0)
    targets = target.unsqueeze(0)
    predictions = functional_call(model, (params, buffers), (batch,))
    return loss_fn(predictions, targets)


ft_compute_grad = grad(compute_loss)
ft_compute_sample_grad = vmap(ft_compute_grad, in_dims=(None, None, 0, 0))
ft_per_sample_grads = ft_compute_sample_grad(fparams, fbuffers, pdata, ptargets)
for per_sample_grad, ft_per_sample_grad in zip(per_sample_grads, ft_per_sample_grads.values()):
    assert torch.allclose(per_sample_grad, ft_per_sample_grad, atol=3e-3, rtol=1e-5)
print({k: tuple(v.shape) for k, v in ft_per_sample_grads.items()})
print("per-sample grads match:", all(torch.allclose(a, b, atol=1e-6) for a, b in zip(per_sample_grads, ft_per_sample_grads.values())))
print("mean of per-sample = batch grad:", torch.allclose(
    ft_per_sample_grads["fc2.bias"].mean(0),
    torch.autograd.grad(loss_fn(model(pdata), ptargets), model.fc2.bias)[0], atol=1e-6))

# Jacobians, Hessians, hvp
D = 8
weight = torch.randn(D, D)
bias = torch.randn(D)
x = torch.randn(D)


def predict(weight, bias, x):
    return F.linear(x, weight, bias).tanh()


jacobian = jacrev(predict, argnums=2)(weight, bias, x)
print("jacrev", jacobian.shape)
unit_vectors = torch.eye(D)
_, vjp_fn = vjp(partial(predict, weight, bias), x)
(ft_jacobian,) = vmap(vjp_fn)(unit_vectors)
print("vjp rows equal jacrev:", torch.allclose(ft_jacobian, jacobian))
print("jacfwd equal jacrev:", torch.allclose(jacfwd(predict, argnums=2)(weight, bias, x), jacobian, atol=1e-6))
ft_jac_weight, ft_jac_bias = jacrev(predict, argnums=(0, 1))(weight, bias, x)
print(ft_jac_weight.shape, ft_jac_bias.shape)
hess = hessian(lambda v: predict(weight, bias, v).sum())(x)
print("hessian", hess.shape, "symmetric:", torch.allclose(hess, hess.T, atol=1e-6))


def hvp(f, primals, tangents):
    return jvp(grad(f), primals, tangents)[1]


f = lambda v: predict(weight, bias, v).pow(2).sum()  # noqa: E731
tangent = torch.randn(D)
print("hvp equals hessian @ v:", torch.allclose(hvp(f, (x,), (tangent,)), hessian(f)(x) @ tangent, atol=1e-5))
compute_batch_jacobian = vmap(jacrev(predict, argnums=2), in_dims=(None, None, 0))
batch_jacobian0 = compute_batch_jacobian(weight, bias, torch.randn(64, D))
print("batch jacobian", batch_jacobian0.shape)
