"""Weight normalization, spectral normalization and custom parametrizations (nn.utils.parametrize): reprs, constraints and training."""
import torch
import torch.nn as nn
import torch.nn.utils.parametrize as parametrize
from torch.nn.utils import spectral_norm, weight_norm
from torch.nn.utils.parametrizations import orthogonal
from torch.nn.utils.parametrizations import spectral_norm as sn_param
from torch.nn.utils.parametrizations import weight_norm as wn_param

torch.manual_seed(8)

# the old hook-based API
lin = weight_norm(nn.Linear(5, 3), name="weight")
print(lin)
print("params:", [n for n, _ in lin.named_parameters()])
print("weight_g:", lin.weight_g.shape, "weight_v:", lin.weight_v.shape)
print("g equals row norms:", torch.allclose(lin.weight_g.squeeze(), lin.weight_v.norm(dim=1)))
lin = nn.utils.remove_weight_norm(lin)
print("after remove:", [n for n, _ in lin.named_parameters()])

conv = spectral_norm(nn.Conv2d(2, 4, 3))
print("spectral buffers:", sorted(n for n, _ in conv.named_buffers()))
x = torch.randn(2, 2, 6, 6)
for _ in range(10):
    conv(x)
sigma = torch.linalg.matrix_norm(conv.weight.reshape(4, -1), ord=2)
print(f"largest singular value after power iteration: {sigma.item():.3f}")

# the parametrization API
layer = wn_param(nn.Linear(4, 4))
print(layer)
print("parametrized:", parametrize.is_parametrized(layer), parametrize.is_parametrized(layer, "bias"))
print("original keys:", sorted(layer.parametrizations.weight.state_dict()))


class Symmetric(nn.Module):
    def forward(self, X):
        return X.triu() + X.triu(1).transpose(-1, -2)


class PositiveDiag(nn.Module):
    def forward(self, X):
        return X.tril(-1) + torch.diag_embed(nn.functional.softplus(X.diagonal()))

    def right_inverse(self, A):
        return A.tril(-1) + torch.diag_embed(torch.log(torch.expm1(A.diagonal())))


sym = nn.Linear(3, 3)
parametrize.register_parametrization(sym, "weight", Symmetric())
print(sym)
print("symmetric:", torch.equal(sym.weight, sym.weight.T))
with parametrize.cached():
    w1 = sym.weight
    w2 = sym.weight
print("cached returns the same tensor:", w1 is w2)

chol = nn.Linear(3, 3, bias=False)
parametrize.register_parametrization(chol, "weight", PositiveDiag())
target = torch.tensor([[2.0, 0.0, 0.0], [0.5, 1.0, 0.0], [-0.3, 0.2, 0.7]])
chol.weight = target
print("right_inverse round trip:", torch.allclose(chol.weight, target, atol=1e-6))

ortho = orthogonal(nn.Linear(4, 4))
Q = ortho.weight
print("orthogonal:", torch.allclose(Q @ Q.T, torch.eye(4), atol=1e-5))

model = nn.Sequential(sn_param(nn.Linear(6, 16)), nn.ReLU(), wn_param(nn.Linear(16, 1)))
print(model)
opt = torch.optim.Adam(model.parameters(), lr=1e-2)
X = torch.randn(64, 6)
y = X[:, :1] * 2 - X[:, 1:2]
first = None
for _ in range(40):
    loss = nn.functional.mse_loss(model(X), y)
    opt.zero_grad()
    loss.backward()
    opt.step()
    first = first if first is not None else loss.item()
print("loss decreased:", loss.item() < first)
print("state_dict keys:", list(model.state_dict()))
parametrize.remove_parametrizations(model[2], "weight", leave_parametrized=True)
print("removed:", model[2], parametrize.is_parametrized(model[2]))
