"""d2l.ai's 'from scratch' sections on synthetic data: softmax regression (softmax by hand, cross
entropy by fancy indexing, accuracy), weight decay with an L2 penalty, dropout_layer, batch_norm
with moving averages, a GRU and an LSTM cell written with torch.randn parameters and
clip_gradients, and the attention-scoring chapter (sequence_mask, masked_softmax,
AdditiveAttention, DotProductAttention)."""
import math

import torch
from torch import nn
from torch.nn import functional as F

torch.manual_seed(0)


# --- softmax regression
def softmax(X):
    X_exp = torch.exp(X)
    partition = X_exp.sum(1, keepdim=True)
    return X_exp / partition


X = torch.rand((2, 5))
X_prob = softmax(X)
print(X_prob, X_prob.sum(1))


def cross_entropy(y_hat, y):
    return -torch.log(y_hat[list(range(len(y_hat))), y]).mean()


y = torch.tensor([0, 2])
y_hat = torch.tensor([[0.1, 0.3, 0.6], [0.3, 0.2, 0.5]])
print(y_hat[[0, 1], y], cross_entropy(y_hat, y))


def accuracy(y_hat, y):
    if len(y_hat.shape) > 1 and y_hat.shape[1] > 1:
        y_hat = y_hat.argmax(axis=1)
    cmp = y_hat.type(y.dtype) == y
    return float(cmp.type(y.dtype).sum())


print(accuracy(y_hat, y) / len(y))

num_inputs, num_outputs = 20, 4
W = torch.normal(0, 0.01, size=(num_inputs, num_outputs), requires_grad=True)
b = torch.zeros(num_outputs, requires_grad=True)
true_W = torch.randn(num_inputs, num_outputs)
features = torch.randn(256, num_inputs)
labels = (features @ true_W).argmax(1)
for epoch in range(3):
    for i in range(0, 256, 32):
        Xb, yb = features[i:i + 32], labels[i:i + 32]
        l = cross_entropy(softmax(Xb @ W + b), yb)
        l.backward()
        with torch.no_grad():
            for param in (W, b):
                param -= 0.5 * param.grad
                param.grad.zero_()
    with torch.no_grad():
        train_acc = accuracy(features @ W + b, labels) / 256
    print(f'epoch {epoch + 1}, loss {float(l):f}, train acc {train_acc:.3f}')


# --- weight decay
def l2_penalty(w):
    return torch.sum(w.pow(2)) / 2


n_train, num_inputs = 20, 200
true_w, true_b = torch.ones((num_inputs, 1)) * 0.01, 0.05
Xtr = torch.randn(n_train, num_inputs)
ytr = Xtr @ true_w + true_b + torch.randn(n_train, 1) * 0.01
for lambd in (0, 3):
    torch.manual_seed(1)
    w = torch.normal(0, 1, size=(num_inputs, 1), requires_grad=True)
    b = torch.zeros(1, requires_grad=True)
    for _ in range(100):
        l = ((Xtr @ w + b - ytr) ** 2 / 2).mean() + lambd * l2_penalty(w)
        l.backward()
        with torch.no_grad():
            w -= 0.01 * w.grad
            b -= 0.01 * b.grad
            w.grad.zero_()
            b.grad.zero_()
    print(f'lambda {lambd}: L2 norm of w: {float(torch.norm(w).item()):.4f}')


# --- dropout from scratch
def dropout_layer(X, dropout):
    assert 0 <= dropout <= 1
    if dropout == 1:
        return torch.zeros_like(X)
    mask = (torch.rand(X.shape) > dropout).float()
    return mask * X / (1.0 - dropout)


X = torch.arange(16, dtype=torch.float32).reshape((2, 8))
print('dropout_p = 0:', dropout_layer(X, 0))
print('dropout_p = 1:', dropout_layer(X, 1))
d = dropout_layer(X, 0.5)
print('dropout_p = 0.5 values in {0, 2x}:', bool(((d == 0) | (d == 2 * X)).all()))


# --- batch normalization from scratch
def batch_norm(X, gamma, beta, moving_mean, moving_var, eps, momentum):
    if not torch.is_grad_enabled():
        X_hat = (X - moving_mean) / torch.sqrt(moving_var + eps)
    else:
        assert len(X.shape) in (2, 4)
        if len(X.shape) == 2:
            mean = X.mean(dim=0)
            var = ((X - mean) ** 2).mean(dim=0)
        else:
            mean = X.mean(dim=(0, 2, 3), keepdim=True)
            var = ((X - mean) ** 2).mean(dim=(0, 2, 3), keepdim=True)
        X_hat = (X - mean) / torch.sqrt(var + eps)
        moving_mean = (1.0 - momentum) * moving_mean + momentum * mean
        moving_var = (1.0 - momentum) * moving_var + momentum * var
    Y = gamma * X_hat + beta
    return Y, moving_mean.data, moving_var.data


class BatchNorm(nn.Module):
    def __init__(self, num_features, num_dims):
        super().__init__()
        shape = (1, num_features) if num_dims == 2 else (1, num_features, 1, 1)
        self.gamma = nn.Parameter(torch.ones(shape))
        self.beta = nn.Parameter(torch.zeros(shape))
        self.moving_mean = torch.zeros(shape)
        self.moving_var = torch.ones(shape)

    def forward(self, X):
        if self.moving_mean.device != X.device:
            self.moving_mean = self.moving_mean.to(X.device)
            self.moving_var = self.moving_var.to(X.device)
        Y, self.moving_mean, self.moving_var = batch_norm(
            X, self.gamma, self.beta, self.moving_mean,
            self.moving_var, eps=1e-5, momentum=0.1)
        return Y


torch.manual_seed(2)
X = torch.randn(8, 3, 4, 4) * 2 + 1
ours, ref = BatchNorm(3, num_dims=4), nn.BatchNorm2d(3)
print(torch.allclose(ours(X), ref(X), atol=1e-5))
print(ours.moving_mean.flatten(), ref.running_mean)
print(torch.allclose(ours.moving_var.flatten(), ref.running_var, atol=1e-4), ref.running_var.shape)
with torch.no_grad():
    ours.train(False)
    print(torch.allclose(ours(X), ref.eval()(X), atol=1e-5))


# --- GRU and LSTM from scratch
def init_gru_params(num_inputs, num_hiddens, sigma=0.01):
    init_weight = lambda *shape: nn.Parameter(torch.randn(*shape) * sigma)
    triple = lambda: (init_weight(num_inputs, num_hiddens),
                      init_weight(num_hiddens, num_hiddens),
                      nn.Parameter(torch.zeros(num_hiddens)))
    return [*triple(), *triple(), *triple()]


def gru(inputs, H, params):
    W_xz, W_hz, b_z, W_xr, W_hr, b_r, W_xh, W_hh, b_h = params
    outputs = []
    for X in inputs:
        Z = torch.sigmoid(torch.matmul(X, W_xz) + torch.matmul(H, W_hz) + b_z)
        R = torch.sigmoid(torch.matmul(X, W_xr) + torch.matmul(H, W_hr) + b_r)
        H_tilde = torch.tanh(torch.matmul(X, W_xh) + torch.matmul(R * H, W_hh) + b_h)
        H = Z * H + (1 - Z) * H_tilde
        outputs.append(H)
    return outputs, H


def lstm(inputs, H_C, params):
    [W_xi, W_hi, b_i, W_xf, W_hf, b_f, W_xo, W_ho, b_o, W_xc, W_hc, b_c] = params
    (H, C) = H_C
    outputs = []
    for X in inputs:
        I = torch.sigmoid(torch.matmul(X, W_xi) + torch.matmul(H, W_hi) + b_i)
        F_ = torch.sigmoid(torch.matmul(X, W_xf) + torch.matmul(H, W_hf) + b_f)
        O = torch.sigmoid(torch.matmul(X, W_xo) + torch.matmul(H, W_ho) + b_o)
        C_tilde = torch.tanh(torch.matmul(X, W_xc) + torch.matmul(H, W_hc) + b_c)
        C = F_ * C + I * C_tilde
        H = O * torch.tanh(C)
        outputs.append(H)
    return outputs, (H, C)


def clip_gradients(grad_clip_val, params):
    norm = torch.sqrt(sum(torch.sum((p.grad ** 2)) for p in params))
    if norm > grad_clip_val:
        for param in params:
            param.grad[:] *= grad_clip_val / norm
    return norm


torch.manual_seed(3)
vocab, num_hiddens, T, batch = 12, 16, 6, 4
gru_params = init_gru_params(vocab, num_hiddens)
lstm_params = init_gru_params(vocab, num_hiddens) + [nn.Parameter(torch.randn(vocab, num_hiddens) * 0.01),
                                                    nn.Parameter(torch.randn(num_hiddens, num_hiddens) * 0.01),
                                                    nn.Parameter(torch.zeros(num_hiddens))]
W_hq = nn.Parameter(torch.randn(num_hiddens, vocab) * 0.01)
tokens = torch.randint(0, vocab, (batch, T + 1))
inputs = F.one_hot(tokens[:, :-1].T, vocab).type(torch.float32)
print(inputs.shape, inputs.dtype)
H0 = torch.zeros((batch, num_hiddens))
outs, H = gru(inputs, H0, gru_params)
print(len(outs), H.shape, H.grad_fn)
outs2, (H2, C2) = lstm(inputs, (H0, H0.clone()), lstm_params)
print(len(outs2), H2.shape, C2.shape)
logits = torch.stack([o @ W_hq for o in outs2], 1)
loss = F.cross_entropy(logits.reshape(-1, vocab), tokens[:, 1:].reshape(-1))
loss.backward()
norm = clip_gradients(1e-4, lstm_params + [W_hq])
print(norm > 1e-4, float(torch.sqrt(sum((p.grad ** 2).sum() for p in lstm_params + [W_hq]))) <= 1.0001e-4)


# --- attention scoring
def sequence_mask(X, valid_len, value=0):
    maxlen = X.size(1)
    mask = torch.arange((maxlen), dtype=torch.float32,
                        device=X.device)[None, :] < valid_len[:, None]
    X[~mask] = value
    return X


def masked_softmax(X, valid_lens):
    if valid_lens is None:
        return nn.functional.softmax(X, dim=-1)
    else:
        shape = X.shape
        if valid_lens.dim() == 1:
            valid_lens = torch.repeat_interleave(valid_lens, shape[1])
        else:
            valid_lens = valid_lens.reshape(-1)
        X = sequence_mask(X.reshape(-1, shape[-1]), valid_lens, value=-1e6)
        return nn.functional.softmax(X.reshape(shape), dim=-1)


torch.manual_seed(4)
print(masked_softmax(torch.rand(2, 2, 4), torch.tensor([2, 3])))
print(masked_softmax(torch.rand(2, 2, 4), torch.tensor([[1, 3], [2, 4]])))


class DotProductAttention(nn.Module):
    def __init__(self, dropout):
        super().__init__()
        self.dropout = nn.Dropout(dropout)

    def forward(self, queries, keys, values, valid_lens=None):
        d = queries.shape[-1]
        scores = torch.bmm(queries, keys.transpose(1, 2)) / math.sqrt(d)
        self.attention_weights = masked_softmax(scores, valid_lens)
        return torch.bmm(self.dropout(self.attention_weights), values)


class AdditiveAttention(nn.Module):
    def __init__(self, num_hiddens, dropout, **kwargs):
        super(AdditiveAttention, self).__init__(**kwargs)
        self.W_k = nn.LazyLinear(num_hiddens, bias=False)
        self.W_q = nn.LazyLinear(num_hiddens, bias=False)
        self.w_v = nn.LazyLinear(1, bias=False)
        self.dropout = nn.Dropout(dropout)

    def forward(self, queries, keys, values, valid_lens):
        queries, keys = self.W_q(queries), self.W_k(keys)
        features = queries.unsqueeze(2) + keys.unsqueeze(1)
        features = torch.tanh(features)
        scores = self.w_v(features).squeeze(-1)
        self.attention_weights = masked_softmax(scores, valid_lens)
        return torch.bmm(self.dropout(self.attention_weights), values)


queries = torch.normal(0, 1, (2, 1, 2))
keys = torch.normal(0, 1, (2, 10, 2))
values = torch.arange(40, dtype=torch.float32).reshape(1, 10, 4).repeat(2, 1, 1)
valid_lens = torch.tensor([2, 6])
attention = DotProductAttention(dropout=0.5)
attention.eval()
out = attention(queries, keys, values, valid_lens)
print(out.shape, attention.attention_weights.shape, (attention.attention_weights[0, 0, 2:] == 0).all())
queries = torch.normal(0, 1, (2, 1, 20))
attention = AdditiveAttention(num_hiddens=8, dropout=0.1)
attention.eval()
out = attention(queries, keys, values, valid_lens)
print(out.shape, attention.W_q, attention.attention_weights.sum(-1))
