"""A variational autoencoder (the pytorch/examples VAE, smaller), on random binary images."""
# Written as the tutorial or repository it imitates writes it:
# ruff: noqa: B007, UP008, UP032
import torch
import torch.utils.data
from torch import nn, optim
from torch.nn import functional as F

torch.manual_seed(1)
data = (torch.rand(128, 1, 14, 14) > 0.5).float()
train_loader = torch.utils.data.DataLoader(torch.utils.data.TensorDataset(data), batch_size=32, shuffle=True)


class VAE(nn.Module):
    def __init__(self):
        super(VAE, self).__init__()
        self.fc1 = nn.Linear(196, 64)
        self.fc21 = nn.Linear(64, 8)
        self.fc22 = nn.Linear(64, 8)
        self.fc3 = nn.Linear(8, 64)
        self.fc4 = nn.Linear(64, 196)

    def encode(self, x):
        h1 = F.relu(self.fc1(x))
        return self.fc21(h1), self.fc22(h1)

    def reparameterize(self, mu, logvar):
        std = torch.exp(0.5 * logvar)
        eps = torch.randn_like(std)
        return mu + eps * std

    def decode(self, z):
        h3 = F.relu(self.fc3(z))
        return torch.sigmoid(self.fc4(h3))

    def forward(self, x):
        mu, logvar = self.encode(x.view(-1, 196))
        z = self.reparameterize(mu, logvar)
        return self.decode(z), mu, logvar


model = VAE()
optimizer = optim.Adam(model.parameters(), lr=1e-3)


def loss_function(recon_x, x, mu, logvar):
    BCE = F.binary_cross_entropy(recon_x, x.view(-1, 196), reduction='sum')
    KLD = -0.5 * torch.sum(1 + logvar - mu.pow(2) - logvar.exp())
    return BCE + KLD


losses = []
for epoch in range(1, 6):
    model.train()
    train_loss = 0
    for batch_idx, (x,) in enumerate(train_loader):
        optimizer.zero_grad()
        recon_batch, mu, logvar = model(x)
        loss = loss_function(recon_batch, x, mu, logvar)
        loss.backward()
        train_loss += loss.item()
        optimizer.step()
    losses.append(train_loss / len(train_loader.dataset))
    print('====> Epoch: {} Average loss: {:.4f}'.format(epoch, losses[-1]))
print("loss decreased:", losses[-1] < losses[0])
model.eval()
with torch.no_grad():
    sample = torch.randn(16, 8)
    sample = model.decode(sample)
    print(sample.view(16, 1, 14, 14).shape, bool(((sample >= 0) & (sample <= 1)).all()))
    recon, mu, logvar = model(data[:4])
    comparison = torch.cat([data[:4], recon.view(4, 1, 14, 14)])
    print(comparison.size(), mu.dtype, logvar.requires_grad)
