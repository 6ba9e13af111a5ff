"""pytorch/examples word_language_model, small: corpus dictionary, batchify, tied LSTM, clip_grad_norm_, perplexity."""
# ruff: noqa: UP004, UP008, UP015, UP032 - written the way the tutorial it imitates is written
import math
import os
import time

import torch
import torch.nn as nn
import torch.nn.functional as F


class Dictionary(object):
    def __init__(self):
        self.word2idx = {}
        self.idx2word = []

    def add_word(self, word):
        if word not in self.word2idx:
            self.idx2word.append(word)
            self.word2idx[word] = len(self.idx2word) - 1
        return self.word2idx[word]

    def __len__(self):
        return len(self.idx2word)


class Corpus(object):
    def __init__(self, path):
        self.dictionary = Dictionary()
        self.train = self.tokenize(os.path.join(path, 'train.txt'))
        self.valid = self.tokenize(os.path.join(path, 'valid.txt'))

    def tokenize(self, path):
        assert os.path.exists(path)
        with open(path, 'r', encoding="utf8") as f:
            for line in f:
                words = line.split() + ['<eos>']
                for word in words:
                    self.dictionary.add_word(word)
        with open(path, 'r', encoding="utf8") as f:
            idss = []
            for line in f:
                words = line.split() + ['<eos>']
                ids = []
                for word in words:
                    ids.append(self.dictionary.word2idx[word])
                idss.append(torch.tensor(ids).type(torch.int64))
            ids = torch.cat(idss)
        return ids


class RNNModel(nn.Module):
    def __init__(self, rnn_type, ntoken, ninp, nhid, nlayers, dropout=0.5, tie_weights=False):
        super(RNNModel, self).__init__()
        self.ntoken = ntoken
        self.drop = nn.Dropout(dropout)
        self.encoder = nn.Embedding(ntoken, ninp)
        self.rnn = getattr(nn, rnn_type)(ninp, nhid, nlayers, dropout=dropout)
        self.decoder = nn.Linear(nhid, ntoken)
        if tie_weights:
            self.decoder.weight = self.encoder.weight
        self.init_weights()
        self.rnn_type = rnn_type
        self.nhid = nhid
        self.nlayers = nlayers

    def init_weights(self):
        initrange = 0.1
        nn.init.uniform_(self.encoder.weight, -initrange, initrange)
        nn.init.zeros_(self.decoder.bias)
        nn.init.uniform_(self.decoder.weight, -initrange, initrange)

    def forward(self, input, hidden):
        emb = self.drop(self.encoder(input))
        output, hidden = self.rnn(emb, hidden)
        output = self.drop(output)
        decoded = self.decoder(output)
        decoded = decoded.view(-1, self.ntoken)
        return F.log_softmax(decoded, dim=1), hidden

    def init_hidden(self, bsz):
        weight = next(self.parameters())
        if self.rnn_type == 'LSTM':
            return (weight.new_zeros(self.nlayers, bsz, self.nhid),
                    weight.new_zeros(self.nlayers, bsz, self.nhid))
        else:
            return weight.new_zeros(self.nlayers, bsz, self.nhid)


def batchify(data, bsz):
    nbatch = data.size(0) // bsz
    data = data.narrow(0, 0, nbatch * bsz)
    data = data.view(bsz, -1).t().contiguous()
    return data


def repackage_hidden(h):
    if isinstance(h, torch.Tensor):
        return h.detach()
    else:
        return tuple(repackage_hidden(v) for v in h)


def get_batch(source, i, bptt=10):
    seq_len = min(bptt, len(source) - 1 - i)
    data = source[i:i + seq_len]
    target = source[i + 1:i + 1 + seq_len].view(-1)
    return data, target


torch.manual_seed(1111)
os.makedirs("data", exist_ok=True)
sentences = ["the cat sat on the mat", "the dog sat on the log", "a cat saw a dog",
             "the dog saw the cat on the mat", "a bird sat on a log"]
with open("data/train.txt", "w") as f:
    for i in range(40):
        f.write(sentences[i % len(sentences)] + "\n")
with open("data/valid.txt", "w") as f:
    for s in sentences[::-1]:
        f.write(s + "\n")

corpus = Corpus("data")
ntokens = len(corpus.dictionary)
print("vocabulary:", ntokens, corpus.dictionary.idx2word[:6])
print("train tokens:", corpus.train.shape, corpus.train.dtype, corpus.train[:12])
train_data = batchify(corpus.train, 8)
val_data = batchify(corpus.valid, 2)
print("batched:", train_data.shape, val_data.shape, train_data.is_contiguous())

model = RNNModel('LSTM', ntokens, 16, 16, 2, 0.2, tie_weights=True)
print(model)
criterion = nn.NLLLoss()
lr, clip, bptt = 5.0, 0.25, 10


def evaluate(data_source):
    model.eval()
    total_loss = 0.
    hidden = model.init_hidden(2)
    with torch.no_grad():
        for i in range(0, data_source.size(0) - 1, bptt):
            data, targets = get_batch(data_source, i, bptt)
            output, hidden = model(data, hidden)
            hidden = repackage_hidden(hidden)
            total_loss += len(data) * criterion(output, targets).item()
    return total_loss / (len(data_source) - 1)


def train(epoch):
    model.train()
    total_loss = 0.
    start_time = time.time()
    hidden = model.init_hidden(8)
    for batch, i in enumerate(range(0, train_data.size(0) - 1, bptt)):
        data, targets = get_batch(train_data, i, bptt)
        model.zero_grad()
        hidden = repackage_hidden(hidden)
        output, hidden = model(data, hidden)
        loss = criterion(output, targets)
        loss.backward()
        torch.nn.utils.clip_grad_norm_(model.parameters(), clip)
        for p in model.parameters():
            p.data.add_(p.grad, alpha=-lr)
        total_loss += loss.item()
        if batch % 3 == 0 and batch > 0:
            cur_loss = total_loss / 3
            elapsed = time.time() - start_time
            print('| epoch {:3d} | {:5d}/{:5d} batches | lr {:02.2f} | ms/batch {:5.2f} | '
                  'loss {:5.2f} | ppl {:.2f}'.format(
                      epoch, batch, len(train_data) // bptt, lr,
                      elapsed * 1000 / 3 * 0, cur_loss, math.exp(cur_loss)))
            total_loss = 0
            start_time = time.time()


best_val_loss = None
first = None
for epoch in range(1, 7):
    train(epoch)
    val_loss = evaluate(val_data)
    first = first if first is not None else val_loss
    print('-' * 89)
    print('| end of epoch {:3d} | valid loss {:5.2f} | valid ppl {:.2f}'.format(
        epoch, val_loss, math.exp(val_loss)))
    print('-' * 89)
    if not best_val_loss or val_loss < best_val_loss:
        with open("model.pt", 'wb') as f:
            torch.save(model, f)
        best_val_loss = val_loss
    else:
        lr /= 4.0
with open("model.pt", 'rb') as f:
    model = torch.load(f, weights_only=False)
    model.rnn.flatten_parameters()
print("validation improved:", best_val_loss < first)
print("tied:", model.decoder.weight is model.encoder.weight)
print(type(model).__name__, model.rnn.num_layers, model.rnn.hidden_size)
