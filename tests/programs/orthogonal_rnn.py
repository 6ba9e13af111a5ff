"""Orthogonal and unitary-style recurrent networks (expRNN / the 'orthogonal constraints'
recipe of Lezcano-Casado) on the copying-memory task: nn.utils.parametrizations.orthogonal
on the recurrent weight (matrix_exp, cayley and householder maps, use_trivialization on and
off), the constraint checked with W.T @ W == I, a custom parametrization (skew-symmetric via
triu), parametrize.cached() around the unrolled loop, modReLU, gradient norms over a long
sequence compared with an unconstrained nn.RNN, and right_inverse assignments."""
import torch
import torch.nn as nn
import torch.nn.functional as F
import torch.nn.utils.parametrize as parametrize
from torch.nn.utils.parametrizations import orthogonal

torch.manual_seed(0)
torch.set_printoptions(precision=4)


class Skew(nn.Module):
    def forward(self, X):
        A = X.triu(1)
        return A - A.transpose(-1, -2)


class ModReLU(nn.Module):
    def __init__(self, features):
        super().__init__()
        self.b = nn.Parameter(torch.empty(features).uniform_(-0.01, 0.01))

    def forward(self, inputs):
        norm = torch.abs(inputs)
        biased_norm = norm + self.b
        magnitude = F.relu(biased_norm)
        phase = torch.sign(inputs)
        return phase * magnitude


class OrthoRNN(nn.Module):
    def __init__(self, input_size, hidden_size, output_size, orthogonal_map="matrix_exp", use_trivialization=True):
        super().__init__()
        self.hidden_size = hidden_size
        self.input_kernel = nn.Linear(input_size, hidden_size, bias=False)
        self.recurrent_kernel = nn.Linear(hidden_size, hidden_size, bias=False)
        self.nonlinearity = ModReLU(hidden_size)
        self.lin = nn.Linear(hidden_size, output_size)
        nn.init.kaiming_normal_(self.input_kernel.weight.data, nonlinearity="relu")
        orthogonal(self.recurrent_kernel, orthogonal_map=orthogonal_map, use_trivialization=use_trivialization)

    def forward(self, inputs):
        state = inputs.new_zeros(inputs.size(1), self.hidden_size)
        outputs = []
        with parametrize.cached():
            for x in inputs:
                state = self.nonlinearity(self.input_kernel(x) + self.recurrent_kernel(state))
                outputs.append(self.lin(state))
        return torch.stack(outputs)


def copying_data(T, n_sequence, batch, gen):
    seq = torch.randint(1, 9, (batch, n_sequence), generator=gen)
    zeros1 = torch.zeros(batch, T)
    zeros2 = torch.zeros(batch, T)
    marker = 9 * torch.ones(batch, 1)
    zeros3 = torch.zeros(batch, n_sequence)
    x = torch.cat([seq.float(), zeros1, marker, zeros3], 1).long()
    y = torch.cat([zeros3, zeros2, torch.zeros(batch, 1), seq.float()], 1).long()
    return x, y


layer = nn.Linear(5, 5)
orthogonal(layer)
print(layer)
W = layer.weight
print("orthogonal:", torch.allclose(W.T @ W, torch.eye(5), atol=1e-5))
print("parametrized names", [n for n, _ in layer.named_parameters()])
print("original shape", tuple(layer.parametrizations.weight.original.shape))

for omap in ("matrix_exp", "cayley", "householder"):
    torch.manual_seed(1)
    lin = nn.Linear(4, 4, bias=False)
    orthogonal(lin, orthogonal_map=omap)
    Q = lin.weight
    print(f"{omap:12s} orthogonal: {torch.allclose(Q.T @ Q, torch.eye(4), atol=1e-5)} det magnitude {Q.det().abs().item():.4f}")
    target = torch.linalg.qr(torch.randn(4, 4)).Q
    with torch.no_grad():
        lin.weight = target
    print(f"{omap:12s} right_inverse reproduces the assigned matrix: {torch.allclose(lin.weight, target, atol=1e-5)}")

lin = nn.Linear(3, 3, bias=False)
orthogonal(lin, use_trivialization=False)
print("no trivialization: base buffer", [n for n, _ in lin.parametrizations.weight.named_buffers()])

skew = nn.Linear(4, 4, bias=False)
parametrize.register_parametrization(skew, "weight", Skew())
print("skew-symmetric:", torch.allclose(skew.weight, -skew.weight.T))
print("exp of skew is orthogonal:", torch.allclose(torch.matrix_exp(skew.weight) @ torch.matrix_exp(skew.weight).T, torch.eye(4), atol=1e-5))
print(type(skew).__name__, parametrize.is_parametrized(skew), parametrize.is_parametrized(skew, "bias"))

# the copying task: remember 4 symbols across a delay of T steps
T, n_seq, batch, hidden = 12, 4, 16, 32
gen = torch.Generator().manual_seed(0)
results = {}
for kind in ("orthogonal", "rnn"):
    torch.manual_seed(2)
    if kind == "orthogonal":
        model = OrthoRNN(10, hidden, 9)
    else:
        model = nn.ModuleDict({"rnn": nn.RNN(10, hidden), "lin": nn.Linear(hidden, 9)})
    opt = torch.optim.RMSprop(model.parameters(), lr=1e-3)
    for step in range(30):
        x, y = copying_data(T, n_seq, batch, gen)
        inputs = F.one_hot(x, 10).float().transpose(0, 1)
        if kind == "orthogonal":
            logits = model(inputs)
        else:
            logits = model["lin"](model["rnn"](inputs)[0])
        loss = F.cross_entropy(logits.reshape(-1, 9), y.t().reshape(-1))
        opt.zero_grad()
        loss.backward()
        if step == 0:
            first_grad = (model.input_kernel.weight.grad if kind == "orthogonal" else model["rnn"].weight_ih_l0.grad).norm()
        opt.step()
        if step % 10 == 0:
            print(f"{kind:10s} step {step:2d} loss {loss.item():.5f}")
    results[kind] = loss.item()
    print(f"{kind:10s} first input-weight grad norm {first_grad.item():.5f}")
    if kind == "orthogonal":
        Wr = model.recurrent_kernel.weight
        print("recurrent weight still orthogonal after training:", torch.allclose(Wr @ Wr.T, torch.eye(hidden), atol=1e-4))
print("both below the chance loss ln(9):", all(v < 2.2 for v in results.values()))

parametrize.remove_parametrizations(layer, "weight", leave_parametrized=True)
print("after remove:", [n for n, _ in layer.named_parameters()], type(layer).__name__)
