"""d2l.ai's modern CNN chapters with lazy layers: LeNet's layer-by-layer shape printout, VGG / NiN
blocks, the ResNet Residual block (1x1 shortcut when strides change), DenseNet's conv_block /
DenseBlock / transition_block, all built from nn.LazyConv2d / nn.LazyBatchNorm2d / nn.LazyLinear,
initialized by a dummy forward and net.apply(init_cnn), then one training step."""
import torch
from torch import nn
from torch.nn import functional as F


def init_cnn(module):
    if type(module) == nn.Linear or type(module) == nn.Conv2d:
        nn.init.xavier_uniform_(module.weight)


def layer_summary(net, X_shape):
    X = torch.randn(*X_shape)
    for layer in net:
        X = layer(X)
        print(layer.__class__.__name__, 'output shape:\t', X.shape)


torch.manual_seed(0)
lenet = nn.Sequential(
    nn.LazyConv2d(6, kernel_size=5, padding=2), nn.Sigmoid(),
    nn.AvgPool2d(kernel_size=2, stride=2),
    nn.LazyConv2d(16, kernel_size=5), nn.Sigmoid(),
    nn.AvgPool2d(kernel_size=2, stride=2),
    nn.Flatten(),
    nn.LazyLinear(120), nn.Sigmoid(),
    nn.LazyLinear(84), nn.Sigmoid(),
    nn.LazyLinear(10))
print(lenet[0])
print(lenet[0].weight)
print(lenet[0].has_uninitialized_params())
layer_summary(lenet, (1, 1, 28, 28))
print(lenet[0], lenet[7])
lenet.apply(init_cnn)
print(sum(p.numel() for p in lenet.parameters()))


def vgg_block(num_convs, out_channels):
    layers = []
    for _ in range(num_convs):
        layers.append(nn.LazyConv2d(out_channels, kernel_size=3, padding=1))
        layers.append(nn.ReLU())
    layers.append(nn.MaxPool2d(kernel_size=2, stride=2))
    return nn.Sequential(*layers)


def nin_block(out_channels, kernel_size, strides, padding):
    return nn.Sequential(
        nn.LazyConv2d(out_channels, kernel_size, strides, padding), nn.ReLU(),
        nn.LazyConv2d(out_channels, kernel_size=1), nn.ReLU(),
        nn.LazyConv2d(out_channels, kernel_size=1), nn.ReLU())


vgg = nn.Sequential(vgg_block(1, 8), vgg_block(2, 16), nn.Flatten(), nn.LazyLinear(32), nn.ReLU(),
                    nn.Dropout(0.5), nn.LazyLinear(10))
layer_summary(vgg, (1, 1, 32, 32))
nin = nn.Sequential(nin_block(8, kernel_size=5, strides=2, padding=1), nn.MaxPool2d(3, stride=2),
                    nin_block(10, kernel_size=3, strides=1, padding=1),
                    nn.AdaptiveAvgPool2d((1, 1)), nn.Flatten())
layer_summary(nin, (1, 1, 32, 32))


class Residual(nn.Module):
    """The Residual block of ResNet models."""
    def __init__(self, num_channels, use_1x1conv=False, strides=1):
        super().__init__()
        self.conv1 = nn.LazyConv2d(num_channels, kernel_size=3, padding=1, stride=strides)
        self.conv2 = nn.LazyConv2d(num_channels, kernel_size=3, padding=1)
        if use_1x1conv:
            self.conv3 = nn.LazyConv2d(num_channels, kernel_size=1, stride=strides)
        else:
            self.conv3 = None
        self.bn1 = nn.LazyBatchNorm2d()
        self.bn2 = nn.LazyBatchNorm2d()

    def forward(self, X):
        Y = F.relu(self.bn1(self.conv1(X)))
        Y = self.bn2(self.conv2(Y))
        if self.conv3:
            X = self.conv3(X)
        Y += X
        return F.relu(Y)


blk = Residual(3)
X = torch.randn(4, 3, 6, 6)
print(blk(X).shape)
blk = Residual(6, use_1x1conv=True, strides=2)
print(blk(X).shape)
print(blk)


def conv_block(num_channels):
    return nn.Sequential(
        nn.LazyBatchNorm2d(), nn.ReLU(),
        nn.LazyConv2d(num_channels, kernel_size=3, padding=1))


class DenseBlock(nn.Module):
    def __init__(self, num_convs, num_channels):
        super(DenseBlock, self).__init__()
        layer = []
        for i in range(num_convs):
            layer.append(conv_block(num_channels))
        self.net = nn.Sequential(*layer)

    def forward(self, X):
        for blk in self.net:
            Y = blk(X)
            X = torch.cat((X, Y), dim=1)
        return X


def transition_block(num_channels):
    return nn.Sequential(
        nn.LazyBatchNorm2d(), nn.ReLU(),
        nn.LazyConv2d(num_channels, kernel_size=1),
        nn.AvgPool2d(kernel_size=2, stride=2))


blk = DenseBlock(2, 10)
X = torch.randn(4, 3, 8, 8)
Y = blk(X)
print(Y.shape)
print(transition_block(10)(Y).shape)


class ResNet(nn.Module):
    def __init__(self, arch, lr=0.1, num_classes=10):
        super(ResNet, self).__init__()
        self.net = nn.Sequential(self.b1())
        for i, b in enumerate(arch):
            self.net.add_module(f'b{i+2}', self.block(*b, first_block=(i == 0)))
        self.net.add_module('last', nn.Sequential(
            nn.AdaptiveAvgPool2d((1, 1)), nn.Flatten(),
            nn.LazyLinear(num_classes)))

    def b1(self):
        return nn.Sequential(
            nn.LazyConv2d(16, kernel_size=7, stride=2, padding=3),
            nn.LazyBatchNorm2d(), nn.ReLU(),
            nn.MaxPool2d(kernel_size=3, stride=2, padding=1))

    def block(self, num_residuals, num_channels, first_block=False):
        blk = []
        for i in range(num_residuals):
            if i == 0 and not first_block:
                blk.append(Residual(num_channels, use_1x1conv=True, strides=2))
            else:
                blk.append(Residual(num_channels))
        return nn.Sequential(*blk)

    def forward(self, X):
        return self.net(X)


torch.manual_seed(1)
model = ResNet(((1, 16), (1, 32)))
X = torch.randn(8, 1, 32, 32)
model(X)
model.apply(init_cnn)
for name, m in model.net.named_children():
    X = m(X)
    print(name, X.shape)
print(model.net.b3[0].bn1)
print(model.net.b3[0].bn1.running_mean.shape, model.net.b3[0].bn1.num_batches_tracked)
print(sum(p.numel() for p in model.parameters()), len(list(model.buffers())))
print([k for k in model.state_dict() if k.startswith("net.b2")][:6])

y = torch.randint(0, 10, (8,))
opt = torch.optim.SGD(model.parameters(), lr=0.1)
loss = F.cross_entropy(model(torch.randn(8, 1, 32, 32)), y)
loss.backward()
opt.step()
print(loss.grad_fn, model.net.b2[0].conv1.weight.grad.shape)
print(type(model.net.last[2]).__name__, model.net.last[2].in_features)
