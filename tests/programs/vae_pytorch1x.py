"""The PyTorch 0.4 / 1.x era VAE example as countless repositories still carry it: Variable,
F.sigmoid, binary_cross_entropy(size_average=False), torch.FloatTensor(...).normal_(),
legacy type checks, loss.data.item(), manual learning-rate decay over param_groups, and the
deprecated add_ / addcmul_ overloads in a hand-written RMSprop."""
import math
import warnings

import torch
import torch.nn as nn
import torch.nn.functional as F
from torch.autograd import Variable

warnings.filterwarnings("ignore")
torch.manual_seed(1)
N, D = 64, 16
centers = torch.FloatTensor([[0.9] * 8 + [0.1] * 8, [0.1] * 8 + [0.9] * 8])
data = centers[torch.arange(N) % 2] + torch.FloatTensor(N, D).uniform_(-0.08, 0.08)
data = data.clamp(0, 1)
print("data", type(data).__name__, data.type(), isinstance(data, torch.FloatTensor), data.size())


class VAE(nn.Module):
    def __init__(self):
        super(VAE, self).__init__()
        self.fc1 = nn.Linear(D, 12)
        self.fc21 = nn.Linear(12, 2)
        self.fc22 = nn.Linear(12, 2)
        self.fc3 = nn.Linear(2, 12)
        self.fc4 = nn.Linear(12, D)

    def encode(self, x):
        h1 = F.relu(self.fc1(x))
        return self.fc21(h1), self.fc22(h1)

    def reparameterize(self, mu, logvar):
        if self.training:
            std = logvar.mul(0.5).exp_()
            eps = Variable(std.data.new(std.size()).normal_())
            return eps.mul(std).add_(mu)
        return mu

    def decode(self, z):
        h3 = F.relu(self.fc3(z))
        return F.sigmoid(self.fc4(h3))

    def forward(self, x):
        mu, logvar = self.encode(x.view(-1, D))
        z = self.reparameterize(mu, logvar)
        return self.decode(z), mu, logvar


def loss_function(recon_x, x, mu, logvar):
    BCE = F.binary_cross_entropy(recon_x, x.view(-1, D), size_average=False)
    KLD = -0.5 * torch.sum(1 + logvar - mu.pow(2) - logvar.exp())
    return BCE + KLD


class RMSpropOld(torch.optim.Optimizer):
    def __init__(self, params, lr=1e-2, alpha=0.99, eps=1e-8):
        super(RMSpropOld, self).__init__(params, dict(lr=lr, alpha=alpha, eps=eps))

    def step(self, closure=None):
        for group in self.param_groups:
            for p in group['params']:
                if p.grad is None:
                    continue
                grad = p.grad.data
                state = self.state[p]
                if len(state) == 0:
                    state['step'] = 0
                    state['square_avg'] = grad.new().resize_as_(grad).zero_() if hasattr(grad, "resize_as_") else torch.zeros_like(grad)
                square_avg = state['square_avg']
                state['step'] += 1
                square_avg.mul_(group['alpha']).addcmul_(1 - group['alpha'], grad, grad)
                avg = square_avg.sqrt().add_(group['eps'])
                p.data.addcdiv_(-group['lr'], grad, avg)


model = VAE()
optimizer = RMSpropOld(model.parameters(), lr=5e-3)
print(model)
for epoch in range(1, 6):
    model.train()
    train_loss = 0
    perm = torch.randperm(N)
    for batch_idx in range(N // 16):
        x = Variable(data[perm[batch_idx * 16:(batch_idx + 1) * 16]])
        optimizer.zero_grad()
        recon_batch, mu, logvar = model(x)
        loss = loss_function(recon_batch, x, mu, logvar)
        loss.backward()
        train_loss += loss.data.item()
        optimizer.step()
    if epoch % 2 == 0:
        for param_group in optimizer.param_groups:
            param_group['lr'] = param_group['lr'] * 0.5
    print('====> Epoch: {} Average loss: {:.4f} lr {}'.format(epoch, train_loss / N, optimizer.param_groups[0]['lr']))

model.eval()
with torch.no_grad():
    recon, mu, logvar = model(Variable(data[:4], volatile=True))
    print("latent means\n", mu)
    print("recon error per sample", F.binary_cross_entropy(recon, data[:4], reduce=False).sum(1))
    sample = Variable(torch.FloatTensor(3, 2).normal_())
    print("decoded samples", model.decode(sample).size(), model.decode(sample).type())
    z_grid = torch.stack(torch.meshgrid(torch.linspace(-2, 2, 3), torch.linspace(-2, 2, 3), indexing="ij"), -1).view(-1, 2)
    print("grid decodes", model.decode(z_grid).mean(1))
print("loss is finite:", math.isfinite(loss.data.item()))
print("legacy checks", isinstance(recon, torch.DoubleTensor), recon.type(torch.DoubleTensor).dtype, torch.LongTensor(perm.size()).size())
