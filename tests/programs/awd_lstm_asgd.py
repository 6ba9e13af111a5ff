"""AWD-LSTM's training recipe (salesforce/awd-lstm-lm) on a toy corpus: embedding dropout on whole
rows of the weight, locked (variational) dropout, DropConnect on the hidden-to-hidden weights
through a parametrization, tied encoder / decoder weights, truncated BPTT with a random sequence
length and hidden-state repackaging, activation / temporal activation regularization, and the
non-monotonically triggered switch from SGD to ASGD whose averaged weights ('ax') are swapped in
for evaluation."""
import math

import numpy as np
import torch
import torch.nn as nn
import torch.nn.functional as F
import torch.nn.utils.parametrize as P

np.random.seed(0)
torch.manual_seed(0)

# toy corpus: a noisy counting language over 20 tokens
tokens = []
for i in range(3000):
    tokens.append((i * 3 + (i // 7)) % 20 if i % 11 else int(np.random.randint(20)))
corpus = torch.tensor(tokens)
train_data, val_data = corpus[:2400], corpus[2400:]


def batchify(data, bsz):
    nbatch = data.size(0) // bsz
    return data.narrow(0, 0, nbatch * bsz).view(bsz, -1).t().contiguous()


def get_batch(source, i, seq_len):
    seq_len = min(seq_len, len(source) - 1 - i)
    return source[i:i + seq_len], source[i + 1:i + 1 + seq_len].reshape(-1)


def embedded_dropout(embed, words, dropout=0.1, scale=None):
    if dropout:
        mask = embed.weight.new_empty((embed.weight.size(0), 1)).bernoulli_(1 - dropout).expand_as(
            embed.weight) / (1 - dropout)
        masked_embed_weight = mask * embed.weight
    else:
        masked_embed_weight = embed.weight
    if scale:
        masked_embed_weight = scale.expand_as(masked_embed_weight) * masked_embed_weight
    return F.embedding(words, masked_embed_weight, embed.padding_idx, embed.max_norm,
                       embed.norm_type, embed.scale_grad_by_freq, embed.sparse)


class LockedDropout(nn.Module):
    def forward(self, x, dropout=0.5):
        if not self.training or not dropout:
            return x
        m = x.data.new_empty(1, x.size(1), x.size(2)).bernoulli_(1 - dropout)
        return x * (m / (1 - dropout))


class WeightDropParam(nn.Module):
    def __init__(self, p):
        super().__init__()
        self.p = p

    def forward(self, w):
        return F.dropout(w, p=self.p, training=self.training)


class RNNModel(nn.Module):
    def __init__(self, ntoken, ninp, nhid, nlayers, dropout=0.4, dropouth=0.25, dropouti=0.4,
                 dropoute=0.1, wdrop=0.3):
        super().__init__()
        self.lockdrop = LockedDropout()
        self.encoder = nn.Embedding(ntoken, ninp)
        self.rnns = nn.ModuleList(
            nn.LSTM(ninp if l == 0 else nhid, nhid if l != nlayers - 1 else ninp, 1) for l in range(nlayers))
        for rnn in self.rnns:
            P.register_parametrization(rnn, "weight_hh_l0", WeightDropParam(wdrop))
        self.decoder = nn.Linear(ninp, ntoken)
        self.decoder.weight = self.encoder.weight  # tie weights
        self.encoder.weight.data.uniform_(-0.1, 0.1)
        self.decoder.bias.data.zero_()
        self.ninp, self.nhid, self.nlayers = ninp, nhid, nlayers
        self.dropout, self.dropouti, self.dropouth, self.dropoute = dropout, dropouti, dropouth, dropoute

    def forward(self, input, hidden, return_h=False):
        emb = embedded_dropout(self.encoder, input, dropout=self.dropoute if self.training else 0)
        emb = self.lockdrop(emb, self.dropouti)
        raw_output = emb
        new_hidden, raw_outputs, outputs = [], [], []
        for l, rnn in enumerate(self.rnns):
            raw_output, new_h = rnn(raw_output, hidden[l])
            new_hidden.append(new_h)
            raw_outputs.append(raw_output)
            if l != self.nlayers - 1:
                raw_output = self.lockdrop(raw_output, self.dropouth)
                outputs.append(raw_output)
        output = self.lockdrop(raw_output, self.dropout)
        outputs.append(output)
        result = self.decoder(output.view(output.size(0) * output.size(1), output.size(2)))
        if return_h:
            return result, new_hidden, raw_outputs, outputs
        return result, new_hidden

    def init_hidden(self, bsz):
        return [(torch.zeros(1, bsz, self.nhid if l != self.nlayers - 1 else self.ninp),
                 torch.zeros(1, bsz, self.nhid if l != self.nlayers - 1 else self.ninp))
                for l in range(self.nlayers)]


def repackage_hidden(h):
    if isinstance(h, torch.Tensor):
        return h.detach()
    return tuple(repackage_hidden(v) for v in h) if isinstance(h, tuple) else [repackage_hidden(v) for v in h]


ntokens, bptt, batch_size = 20, 12, 8
train_b, val_b = batchify(train_data, batch_size), batchify(val_data, 4)
model = RNNModel(ntokens, 16, 24, 2)
print(model.rnns[0])
print("tied:", model.decoder.weight is model.encoder.weight,
      "params:", sum(p.numel() for p in model.parameters()))
params = list(model.parameters())
optimizer = torch.optim.SGD(params, lr=2.0, weight_decay=1.2e-6)


def evaluate(data_source, bsz=4):
    model.eval()
    total_loss = 0.0
    hidden = model.init_hidden(bsz)
    with torch.no_grad():
        for i in range(0, data_source.size(0) - 1, bptt):
            data, targets = get_batch(data_source, i, bptt)
            output, hidden = model(data, hidden)
            total_loss += len(data) * F.cross_entropy(output, targets).item()
            hidden = repackage_hidden(hidden)
    return total_loss / len(data_source)


best_val, stored_loss, nonmono = [], 1e8, 2
for epoch in range(1, 7):
    model.train()
    hidden = model.init_hidden(batch_size)
    i, total = 0, 0.0
    while i < train_b.size(0) - 2:
        bptt_ = bptt if np.random.random() < 0.95 else bptt / 2.0
        seq_len = max(5, int(np.random.normal(bptt_, 5)))
        lr2 = optimizer.param_groups[0]["lr"]
        optimizer.param_groups[0]["lr"] = lr2 * seq_len / bptt
        data, targets = get_batch(train_b, i, seq_len)
        hidden = repackage_hidden(hidden)
        optimizer.zero_grad()
        output, hidden, rnn_hs, dropped_rnn_hs = model(data, hidden, return_h=True)
        raw_loss = F.cross_entropy(output, targets)
        loss = raw_loss + sum(2.0 * dropped_rnn_h.pow(2).mean() for dropped_rnn_h in dropped_rnn_hs[-1:])
        loss = loss + sum(1.0 * (rnn_h[1:] - rnn_h[:-1]).pow(2).mean() for rnn_h in rnn_hs[-1:])
        loss.backward()
        torch.nn.utils.clip_grad_norm_(params, 0.25)
        optimizer.step()
        optimizer.param_groups[0]["lr"] = lr2
        total += raw_loss.item()
        i += seq_len
    if "t0" in optimizer.param_groups[0]:
        tmp = {}
        for prm in model.parameters():
            tmp[prm] = prm.data.clone()
            if "ax" in optimizer.state[prm]:
                prm.data = optimizer.state[prm]["ax"].clone()
        val_loss = evaluate(val_b)
        for prm in model.parameters():
            prm.data = tmp[prm].clone()
    else:
        val_loss = evaluate(val_b)
        if len(best_val) > nonmono and val_loss > min(best_val[:-nonmono]):
            print("Switching to ASGD")
            optimizer = torch.optim.ASGD(model.parameters(), lr=2.0, t0=0, lambd=0.0, weight_decay=1.2e-6)
        best_val.append(val_loss)
    print(f"| end of epoch {epoch} | valid loss {val_loss:5.2f} | valid ppl {math.exp(val_loss):8.2f} | "
          f"{type(optimizer).__name__}")

print("ASGD state keys:", sorted(optimizer.state[params[0]].keys()) if isinstance(optimizer, torch.optim.ASGD) else None)
print("weight drop active in train:", model.training, "eval forward deterministic:",
      (lambda h: torch.equal(model.eval()(val_b[:5], h)[0], model(val_b[:5], h)[0]))(model.init_hidden(4)))
