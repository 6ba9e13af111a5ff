"""Differentially private SGD the way Opacus-free research code writes it with torch.func:
per-sample gradients by vmap(grad(compute_loss), in_dims=(None, None, 0, 0)) over
functional_call, checked against a loop of per-example backward passes; per-sample gradient
clipping to max_grad_norm with the clip factor (max_norm / (norm + 1e-6)).clamp(max=1.0),
Gaussian noise with a seeded generator, the noisy mean written back to .grad; plus jvp / vjp /
jacfwd / jacrev / hessian on the model's parameters, vmap with out_dims and chunk_size, and a
per-sample gradient norm histogram."""
import copy

import torch
import torch.nn as nn
import torch.nn.functional as F
from torch.func import functional_call, grad, grad_and_value, hessian, jacfwd, jacrev, jvp, vjp, vmap

torch.manual_seed(0)


class SampleNet(nn.Module):
    def __init__(self):
        super().__init__()
        self.fc1 = nn.Linear(10, 16)
        self.fc2 = nn.Linear(16, 4)

    def forward(self, x):
        return self.fc2(torch.tanh(self.fc1(x)))


device = "cpu"
model = SampleNet().to(device)
n = 24
data = torch.randn(n, 10, device=device)
targets = torch.randint(4, (n,), device=device)
print(targets.tolist())

params = {k: v.detach() for k, v in model.named_parameters()}
buffers = {k: v.detach() for k, v in model.named_buffers()}
print({k: tuple(v.shape) for k, v in params.items()}, buffers)


def compute_loss(params, buffers, sample, target):
    batch = sample.unsqueeze(0)
    targets = target.unsqueeze(0)
    predictions = functional_call(model, (params, buffers), (batch,))
    loss = F.cross_entropy(predictions, targets)
    return loss


ft_compute_grad = grad(compute_loss)
ft_compute_sample_grad = vmap(ft_compute_grad, in_dims=(None, None, 0, 0))
ft_per_sample_grads = ft_compute_sample_grad(params, buffers, data, targets)
print({k: tuple(v.shape) for k, v in ft_per_sample_grads.items()})


def compute_grad(sample, target):
    sample = sample.unsqueeze(0)
    target = target.unsqueeze(0)
    prediction = model(sample)
    loss = F.cross_entropy(prediction, target)
    return torch.autograd.grad(loss, list(model.parameters()))


def compute_sample_grads(data, targets):
    sample_grads = [compute_grad(data[i], targets[i]) for i in range(n)]
    sample_grads = zip(*sample_grads)
    sample_grads = [torch.stack(shards) for shards in sample_grads]
    return sample_grads


per_sample_grads = compute_sample_grads(data, targets)
for per_sample_grad, ft_per_sample_grad in zip(per_sample_grads, ft_per_sample_grads.values()):
    assert torch.allclose(per_sample_grad, ft_per_sample_grad, atol=3e-3, rtol=1e-5)
print("vmap matches the loop:", all(torch.allclose(a, b, atol=1e-6)
                                    for a, b in zip(per_sample_grads, ft_per_sample_grads.values())))
mean_grad = [g.mean(0) for g in ft_per_sample_grads.values()]
model.zero_grad()
F.cross_entropy(model(data), targets).backward()
print("mean of per-sample grads == batch grad:",
      all(torch.allclose(m, p.grad, atol=1e-6) for m, p in zip(mean_grad, model.parameters())))

# grad_and_value gives the per-sample losses too
gv = vmap(grad_and_value(compute_loss), in_dims=(None, None, 0, 0))
grads, losses = gv(params, buffers, data, targets)
print(losses.shape, torch.allclose(losses.mean(), F.cross_entropy(model(data), targets)))

# --- DP-SGD
max_grad_norm = 1.0
noise_multiplier = 1.1
lr = 0.5
noise_gen = torch.Generator().manual_seed(1234)
dp_model = copy.deepcopy(model)
optimizer = torch.optim.SGD(dp_model.parameters(), lr=lr)


def dp_step(xb, yb):
    p = {k: v.detach() for k, v in dp_model.named_parameters()}
    sample_grads = vmap(grad(lambda p_, x_, y_: F.cross_entropy(
        functional_call(dp_model, p_, (x_.unsqueeze(0),)), y_.unsqueeze(0))),
        in_dims=(None, 0, 0))(p, xb, yb)
    per_sample_norms = torch.stack([g.reshape(len(xb), -1).norm(2, dim=-1) for g in sample_grads.values()],
                                   dim=1).norm(2, dim=1)
    per_sample_clip_factor = (max_grad_norm / (per_sample_norms + 1e-6)).clamp(max=1.0)
    for name, param in dp_model.named_parameters():
        g = sample_grads[name]
        clipped = torch.einsum("i,i...", per_sample_clip_factor, g)
        noise = torch.normal(mean=0, std=noise_multiplier * max_grad_norm, size=param.shape,
                             generator=noise_gen)
        param.grad = (clipped + noise) / len(xb)
    optimizer.step()
    optimizer.zero_grad(set_to_none=True)
    return per_sample_norms, per_sample_clip_factor


for epoch in range(3):
    perm = torch.randperm(n, generator=torch.Generator().manual_seed(epoch))
    for start in range(0, n, 8):
        idx = perm[start:start + 8]
        norms, factors = dp_step(data[idx], targets[idx])
    with torch.no_grad():
        loss = F.cross_entropy(dp_model(data), targets)
    print(f"epoch {epoch}: loss {loss.item():.4f} clipped {int((factors < 1).sum())}/8 "
          f"median norm {norms.median().item():.4f}")
print(torch.histc(norms, bins=4, min=0, max=8).tolist())

# --- forward- and reverse-mode products over the parameters
x0 = data[:3]


def f(p):
    return functional_call(model, p, (x0,))


tangents = {k: torch.ones_like(v) for k, v in params.items()}
out, jvp_out = jvp(f, (params,), (tangents,))
print(out.shape, jvp_out.shape)
out2, vjp_fn = vjp(f, params)
(vjp_params,) = vjp_fn(torch.ones_like(out2))
print(sorted(vjp_params), vjp_params["fc2.bias"])

w = params["fc2.weight"]
jr = jacrev(lambda w_: functional_call(model, {**params, "fc2.weight": w_}, (x0,)))(w)
jf = jacfwd(lambda w_: functional_call(model, {**params, "fc2.weight": w_}, (x0,)))(w)
print(jr.shape, torch.allclose(jr, jf, atol=1e-6))


def loss_of_bias(b):
    return F.cross_entropy(functional_call(model, {**params, "fc2.bias": b}, (data,)), targets)


H = hessian(loss_of_bias)(params["fc2.bias"])
print(H.shape, torch.allclose(H, H.T, atol=1e-6), (torch.linalg.eigvalsh(H) > -1e-6).all().item())
print(torch.allclose(H.sum(1), torch.zeros(4), atol=1e-5))

# vmap: out_dims, chunk_size, nested vmap, randomness
batched_dot = vmap(torch.dot)
a, b = torch.randn(5, 3), torch.randn(5, 3)
print(torch.allclose(batched_dot(a, b), (a * b).sum(1)))
outer = vmap(vmap(torch.mul, in_dims=(None, 0)), in_dims=(0, None))
print(outer(torch.arange(3.), torch.arange(4.)))
t = vmap(lambda v: v * 2, out_dims=1)(torch.arange(6.).view(2, 3))
print(t.shape, t)
chunked = vmap(lambda v: v.sum(), chunk_size=2)(torch.arange(10.).view(5, 2))
print(chunked)
try:
    vmap(lambda v: torch.rand(1) + v)(torch.ones(3))
except RuntimeError as e:
    print("RuntimeError:", str(e).split(".")[0])
print(vmap(lambda v: F.dropout(v, 0.5), randomness="same")(torch.ones(2, 6)).shape)
