"""Capsule networks with dynamic routing (Sabour et al.), in the style of the widely copied
gram-ai / higgsfield implementations, on synthetic 12x12 images: PrimaryCaps as a ModuleList
of convs stacked and squashed, DigitCaps with a 5-D weight W broadcast by torch.matmul, routing
by agreement (softmax over the routing logits, b_ij updated by the agreement
u_hat . v_j, averaged over the batch), the margin loss with F.relu(0.9 - v)^2, masking by
torch.eye(...).index_select(...), a reconstruction decoder, and the sqrt(sum(v^2)) class
lengths as predictions."""
# ruff: noqa: UP008 - written the way the repositories it imitates are written
import torch
import torch.nn as nn
import torch.nn.functional as F

torch.manual_seed(0)
NUM_CLASSES = 4


def squash(input_tensor, dim=-1):
    squared_norm = (input_tensor ** 2).sum(dim, keepdim=True)
    output_tensor = squared_norm * input_tensor / ((1. + squared_norm) * torch.sqrt(squared_norm))
    return output_tensor


class ConvLayer(nn.Module):
    def __init__(self, in_channels=1, out_channels=16, kernel_size=5):
        super(ConvLayer, self).__init__()
        self.conv = nn.Conv2d(in_channels=in_channels, out_channels=out_channels,
                              kernel_size=kernel_size, stride=1)

    def forward(self, x):
        return F.relu(self.conv(x))


class PrimaryCaps(nn.Module):
    def __init__(self, num_capsules=4, in_channels=16, out_channels=8, kernel_size=3):
        super(PrimaryCaps, self).__init__()
        self.capsules = nn.ModuleList([
            nn.Conv2d(in_channels=in_channels, out_channels=out_channels, kernel_size=kernel_size, stride=2, padding=0)
            for _ in range(num_capsules)])

    def forward(self, x):
        u = [capsule(x) for capsule in self.capsules]
        u = torch.stack(u, dim=1)
        u = u.view(x.size(0), 8 * 3 * 3, -1)
        return squash(u)


class DigitCaps(nn.Module):
    def __init__(self, num_capsules=NUM_CLASSES, num_routes=8 * 3 * 3, in_channels=4, out_channels=6):
        super(DigitCaps, self).__init__()
        self.in_channels = in_channels
        self.num_routes = num_routes
        self.num_capsules = num_capsules
        self.W = nn.Parameter(0.1 * torch.randn(1, num_routes, num_capsules, out_channels, in_channels))

    def forward(self, x, num_iterations=3):
        batch_size = x.size(0)
        x = torch.stack([x] * self.num_capsules, dim=2).unsqueeze(4)

        W = torch.cat([self.W] * batch_size, dim=0)
        u_hat = torch.matmul(W, x)

        b_ij = torch.zeros(1, self.num_routes, self.num_capsules, 1)

        for iteration in range(num_iterations):
            c_ij = F.softmax(b_ij, dim=2)
            c_ij = torch.cat([c_ij] * batch_size, dim=0).unsqueeze(4)

            s_j = (c_ij * u_hat).sum(dim=1, keepdim=True)
            v_j = squash(s_j, dim=3)

            if iteration < num_iterations - 1:
                a_ij = torch.matmul(u_hat.transpose(3, 4), torch.cat([v_j] * self.num_routes, dim=1))
                b_ij = b_ij + a_ij.squeeze(4).mean(dim=0, keepdim=True)

        return v_j.squeeze(1)


class Decoder(nn.Module):
    def __init__(self, input_width=12, input_height=12, input_channel=1):
        super(Decoder, self).__init__()
        self.input_width = input_width
        self.input_height = input_height
        self.input_channel = input_channel
        self.reconstraction_layers = nn.Sequential(
            nn.Linear(6 * NUM_CLASSES, 64),
            nn.ReLU(inplace=True),
            nn.Linear(64, self.input_height * self.input_width * self.input_channel),
            nn.Sigmoid()
        )

    def forward(self, x, data):
        classes = torch.sqrt((x ** 2).sum(2))
        classes = F.softmax(classes, dim=1)

        _, max_length_indices = classes.max(dim=1)
        masked = torch.eye(NUM_CLASSES)
        masked = masked.index_select(dim=0, index=max_length_indices.squeeze(1).data)
        t = (x * masked[:, :, None, None]).view(x.size(0), -1)
        reconstructions = self.reconstraction_layers(t)
        reconstructions = reconstructions.view(-1, self.input_channel, self.input_width, self.input_height)
        return reconstructions, masked


class CapsNet(nn.Module):
    def __init__(self):
        super(CapsNet, self).__init__()
        self.conv_layer = ConvLayer()
        self.primary_capsules = PrimaryCaps()
        self.digit_capsules = DigitCaps()
        self.decoder = Decoder()
        self.mse_loss = nn.MSELoss()

    def forward(self, data):
        output = self.digit_capsules(self.primary_capsules(self.conv_layer(data)))
        reconstructions, masked = self.decoder(output, data)
        return output, reconstructions, masked

    def loss(self, data, x, target, reconstructions):
        return self.margin_loss(x, target) + self.reconstruction_loss(data, reconstructions)

    def margin_loss(self, x, labels, size_average=True):
        batch_size = x.size(0)

        v_c = torch.sqrt((x ** 2).sum(dim=2, keepdim=True))

        left = F.relu(0.9 - v_c).view(batch_size, -1)
        right = F.relu(v_c - 0.1).view(batch_size, -1)

        loss = labels * left + 0.5 * (1.0 - labels) * right
        loss = loss.sum(dim=1).mean()

        return loss

    def reconstruction_loss(self, data, reconstructions):
        loss = self.mse_loss(reconstructions.view(reconstructions.size(0), -1), data.view(reconstructions.size(0), -1))
        return loss * 0.0005


def make_batch(n, gen):
    y = torch.randint(0, NUM_CLASSES, (n,), generator=gen)
    x = 0.1 * torch.rand(n, 1, 12, 12, generator=gen)
    for i in range(n):
        k = int(y[i])
        x[i, 0, 2 + 2 * k: 4 + 2 * k, 2:10] = 1.0
    return x, y


capsule_net = CapsNet()
print(capsule_net.digit_capsules.W.shape, sum(p.numel() for p in capsule_net.parameters()))
print(capsule_net.primary_capsules)
optimizer = torch.optim.Adam(capsule_net.parameters(), lr=5e-3)
gen = torch.Generator().manual_seed(1)

u = squash(torch.tensor([[3.0, 4.0], [0.3, 0.4]]))
print(u, u.norm(dim=-1))

for epoch in range(3):
    capsule_net.train()
    train_loss = 0
    correct = 0
    for batch_id in range(4):
        data, target = make_batch(16, gen)
        target = torch.eye(NUM_CLASSES).index_select(dim=0, index=target)
        optimizer.zero_grad()
        output, reconstructions, masked = capsule_net(data)
        loss = capsule_net.loss(data, output, target, reconstructions)
        loss.backward()
        optimizer.step()
        train_loss += loss.item()
        correct += (masked.argmax(1) == target.argmax(1)).sum().item()
    print("epoch {} train loss {:.4f} accuracy {}/64".format(epoch, train_loss / 4, correct))

capsule_net.eval()
with torch.no_grad():
    data, labels = make_batch(8, gen)
    output, reconstructions, masked = capsule_net(data)
    lengths = torch.sqrt((output ** 2).sum(2)).squeeze(-1)
    print(output.shape, reconstructions.shape, masked.shape, lengths.shape)
    print("lengths in (0, 1):", bool(((lengths > 0) & (lengths < 1)).all()))
    print("predictions match masks:", torch.equal(lengths.argmax(1), masked.argmax(1)))
