"""Karpathy's makemore part 1: a bigram character model of names, first by counting (a 27x27
int32 count matrix, smoothed probabilities, sampling with torch.multinomial and a seeded
torch.Generator, the average negative log likelihood), then as a one-layer neural net trained by
gradient descent on one-hot inputs."""
import torch
import torch.nn.functional as F

words = ("emma olivia ava isabella sophia charlotte mia amelia harper evelyn abigail emily "
         "elizabeth mila ella avery sofia camila aria scarlett victoria madison luna grace chloe "
         "penelope layla riley zoey nora lily eleanor hannah lillian addison aubrey ellie stella "
         "natalie zoe leah hazel violet aurora savannah audrey brooklyn bella claire skylar lucy "
         "paisley everly anna caroline nova genesis emilia kennedy samantha maya willow kinsley "
         "naomi aaliyah elena sarah ariana allison gabriella alice madelyn cora ruby eva serenity "
         "autumn adeline hailey gianna valentina isla eliana quinn nevaeh ivy sadie piper lydia "
         "alexa josephine emery julia delilah arianna vivian kaylee sophie brielle madeline").split()
print(len(words), min(len(w) for w in words), max(len(w) for w in words))

chars = sorted(list(set(''.join(words))))
stoi = {s: i + 1 for i, s in enumerate(chars)}
stoi['.'] = 0
itos = {i: s for s, i in stoi.items()}
print(len(stoi), ''.join(chars))

N = torch.zeros((27, 27), dtype=torch.int32)
for w in words:
    chs = ['.'] + list(w) + ['.']
    for ch1, ch2 in zip(chs, chs[1:]):
        ix1 = stoi[ch1]
        ix2 = stoi[ch2]
        N[ix1, ix2] += 1
print(N.dtype, N.sum().item(), N[0, :8], N.max())
top = torch.topk(N.flatten(), 2)
print([(itos[i.item() // 27] + itos[i.item() % 27], v.item()) for v, i in zip(top.values, top.indices)])

p = N[0].float()
p = p / p.sum()
print(p[:6])

g = torch.Generator().manual_seed(2147483647)
p3 = torch.rand(3, generator=g)
p3 = p3 / p3.sum()
print(p3)
print(torch.multinomial(p3, num_samples=20, replacement=True, generator=g))

P = (N + 1).float()
P /= P.sum(1, keepdims=True)
print(P.shape, P[0].sum(), P.sum(1)[:3])

g = torch.Generator().manual_seed(2147483647)
for _ in range(5):
    out = []
    ix = 0
    while True:
        p = P[ix]
        ix = torch.multinomial(p, num_samples=1, replacement=True, generator=g).item()
        out.append(itos[ix])
        if ix == 0:
            break
    print(''.join(out))

log_likelihood = 0.0
n = 0
for w in words:
    chs = ['.'] + list(w) + ['.']
    for ch1, ch2 in zip(chs, chs[1:]):
        ix1 = stoi[ch1]
        ix2 = stoi[ch2]
        prob = P[ix1, ix2]
        logprob = torch.log(prob)
        log_likelihood += logprob
        n += 1
print(f'{log_likelihood=}')
nll = -log_likelihood
print(f'{nll=}')
print(f'{nll/n}')

# the training set of bigrams (x, y)
xs, ys = [], []
for w in words:
    chs = ['.'] + list(w) + ['.']
    for ch1, ch2 in zip(chs, chs[1:]):
        xs.append(stoi[ch1])
        ys.append(stoi[ch2])
xs = torch.tensor(xs)
ys = torch.tensor(ys)
num = xs.nelement()
print('number of examples: ', num, xs[:5], ys.dtype)

xenc = F.one_hot(xs, num_classes=27).float()
print(xenc.shape, xenc.dtype, xenc[:2].nonzero())

g = torch.Generator().manual_seed(2147483647)
W = torch.randn((27, 27), generator=g, requires_grad=True)
print(W[0, :4])

for k in range(60):
    xenc = F.one_hot(xs, num_classes=27).float()
    logits = xenc @ W
    counts = logits.exp()
    probs = counts / counts.sum(1, keepdims=True)
    loss = -probs[torch.arange(num), ys].log().mean() + 0.01 * (W ** 2).mean()
    if k % 20 == 0:
        print(k, loss.item())
    W.grad = None
    loss.backward()
    W.data += -50 * W.grad
print(f"final loss {loss.item():.4f}")

g = torch.Generator().manual_seed(2147483647)
for _ in range(5):
    out = []
    ix = 0
    while True:
        xenc = F.one_hot(torch.tensor([ix]), num_classes=27).float()
        logits = xenc @ W
        counts = logits.exp()
        p = counts / counts.sum(1, keepdims=True)
        ix = torch.multinomial(p, num_samples=1, replacement=True, generator=g).item()
        out.append(itos[ix])
        if ix == 0:
            break
    print(''.join(out))
