'''
Properly implemented ResNet-s for CIFAR10 as described in paper [1] (akamaster/pytorch_resnet_cifar10
style), trained on synthetic 16x16 "CIFAR" batches in channels_last memory format: the option-A
identity shortcut (LambdaLayer with F.pad of a strided slice), kaiming_normal_ init through
self.apply, SGD with nesterov and MultiStepLR, an AverageMeter, accuracy@k, and strides /
is_contiguous checks of the channels_last activations.

Reference:
[1] Kaiming He, Xiangyu Zhang, Shaoqing Ren, Jian Sun
    Deep Residual Learning for Image Recognition. arXiv:1512.03385
'''
# Written as the repository it imitates writes it:
# ruff: noqa: F841, UP004, UP008
import time

import torch
import torch.nn as nn
import torch.nn.functional as F
import torch.nn.init as init

__all__ = ['ResNet', 'resnet8']


def _weights_init(m):
    classname = m.__class__.__name__
    if isinstance(m, nn.Linear) or isinstance(m, nn.Conv2d):
        init.kaiming_normal_(m.weight)


class LambdaLayer(nn.Module):
    def __init__(self, lambd):
        super(LambdaLayer, self).__init__()
        self.lambd = lambd

    def forward(self, x):
        return self.lambd(x)


class BasicBlock(nn.Module):
    expansion = 1

    def __init__(self, in_planes, planes, stride=1, option='A'):
        super(BasicBlock, self).__init__()
        self.conv1 = nn.Conv2d(in_planes, planes, kernel_size=3, stride=stride, padding=1, bias=False)
        self.bn1 = nn.BatchNorm2d(planes)
        self.conv2 = nn.Conv2d(planes, planes, kernel_size=3, stride=1, padding=1, bias=False)
        self.bn2 = nn.BatchNorm2d(planes)

        self.shortcut = nn.Sequential()
        if stride != 1 or in_planes != planes:
            if option == 'A':
                """
                For CIFAR10 ResNet paper uses option A.
                """
                self.shortcut = LambdaLayer(lambda x:
                                            F.pad(x[:, :, ::2, ::2], (0, 0, 0, 0, planes//4, planes//4), "constant", 0))
            elif option == 'B':
                self.shortcut = nn.Sequential(
                     nn.Conv2d(in_planes, self.expansion * planes, kernel_size=1, stride=stride, bias=False),
                     nn.BatchNorm2d(self.expansion * planes)
                )

    def forward(self, x):
        out = F.relu(self.bn1(self.conv1(x)))
        out = self.bn2(self.conv2(out))
        out += self.shortcut(x)
        out = F.relu(out)
        return out


class ResNet(nn.Module):
    def __init__(self, block, num_blocks, num_classes=10):
        super(ResNet, self).__init__()
        self.in_planes = 8

        self.conv1 = nn.Conv2d(3, 8, kernel_size=3, stride=1, padding=1, bias=False)
        self.bn1 = nn.BatchNorm2d(8)
        self.layer1 = self._make_layer(block, 8, num_blocks[0], stride=1)
        self.layer2 = self._make_layer(block, 16, num_blocks[1], stride=2)
        self.layer3 = self._make_layer(block, 32, num_blocks[2], stride=2)
        self.linear = nn.Linear(32, num_classes)

        self.apply(_weights_init)

    def _make_layer(self, block, planes, num_blocks, stride):
        strides = [stride] + [1]*(num_blocks-1)
        layers = []
        for stride in strides:
            layers.append(block(self.in_planes, planes, stride))
            self.in_planes = planes * block.expansion

        return nn.Sequential(*layers)

    def forward(self, x):
        out = F.relu(self.bn1(self.conv1(x)))
        out = self.layer1(out)
        out = self.layer2(out)
        out = self.layer3(out)
        out = F.avg_pool2d(out, out.size()[3])
        out = out.view(out.size(0), -1)
        out = self.linear(out)
        return out


def resnet8():
    return ResNet(BasicBlock, [1, 1, 1])


def test(net):
    import numpy as np
    total_params = 0

    for x in filter(lambda p: p.requires_grad, net.parameters()):
        total_params += np.prod(x.data.numpy().shape)
    print("Total number of params", total_params)
    print("Total layers", len(list(filter(lambda p: p.requires_grad and len(p.data.size())>1, net.parameters()))))


class AverageMeter(object):
    """Computes and stores the average and current value"""
    def __init__(self):
        self.reset()

    def reset(self):
        self.val = 0
        self.avg = 0
        self.sum = 0
        self.count = 0

    def update(self, val, n=1):
        self.val = val
        self.sum += val * n
        self.count += n
        self.avg = self.sum / self.count


def accuracy(output, target, topk=(1,)):
    """Computes the precision@k for the specified values of k"""
    maxk = max(topk)
    batch_size = target.size(0)

    _, pred = output.topk(maxk, 1, True, True)
    pred = pred.t()
    correct = pred.eq(target.view(1, -1).expand_as(pred))

    res = []
    for k in topk:
        correct_k = correct[:k].reshape(-1).float().sum(0)
        res.append(correct_k.mul_(100.0 / batch_size))
    return res


torch.manual_seed(0)
model = resnet8()
test(model)
print(model.layer2[0])
print(type(model.layer2[0].shortcut).__name__, model.layer2[0].shortcut.lambd.__name__)

model = model.to(memory_format=torch.channels_last)
print(model.conv1.weight.shape, model.conv1.weight.stride(),
      model.conv1.weight.is_contiguous(memory_format=torch.channels_last))
print(model.linear.weight.stride(), model.bn1.weight.stride())

# synthetic CIFAR: class k has a bright blob at a class-dependent position
def make_batch(n, gen):
    y = torch.randint(0, 10, (n,), generator=gen)
    x = torch.randn(n, 3, 16, 16, generator=gen) * 0.5
    for i in range(n):
        r, c = divmod(int(y[i]), 4)
        x[i, :, 4 * r:4 * r + 4, 4 * c:4 * c + 4] += 2.0
    return x, y


gen = torch.Generator().manual_seed(1)
batches = [make_batch(32, gen) for _ in range(6)]
x0 = batches[0][0].to(memory_format=torch.channels_last)
print(x0.stride(), x0.is_contiguous(), x0.is_contiguous(memory_format=torch.channels_last))
print(torch.equal(x0, batches[0][0]))

# activations keep the memory format through conv / bn / relu / pad / add
with torch.no_grad():
    model.eval()
    h = F.relu(model.bn1(model.conv1(x0)))
    print('stem', h.shape)
    h1 = model.layer1(h)
    s = model.layer2[0].shortcut(h1)
    print('shortcut', s.shape, s[:, :4].abs().sum().item(), s[:, 12:].abs().sum().item())
    out_cl = model(x0)
    out_nchw = model(batches[0][0])
    print('same logits', torch.allclose(out_cl, out_nchw, atol=1e-5), out_cl.shape, out_cl.stride())
    back = x0.contiguous()
    print(back.stride(), back.is_contiguous(memory_format=torch.channels_last), x0.to(memory_format=torch.channels_last) is x0)

criterion = nn.CrossEntropyLoss()
optimizer = torch.optim.SGD(model.parameters(), 0.1, momentum=0.9, weight_decay=1e-4, nesterov=True)
lr_scheduler = torch.optim.lr_scheduler.MultiStepLR(optimizer, milestones=[3, 5], last_epoch=-1)
print(optimizer)

for epoch in range(6):
    losses = AverageMeter()
    top1 = AverageMeter()
    model.train()
    end = time.time()
    for i, (input, target) in enumerate(batches):
        input = input.contiguous(memory_format=torch.channels_last)
        output = model(input)
        loss = criterion(output, target)
        optimizer.zero_grad()
        loss.backward()
        optimizer.step()
        output = output.float()
        loss = loss.float()
        prec1 = accuracy(output.data, target)[0]
        losses.update(loss.item(), input.size(0))
        top1.update(prec1.item(), input.size(0))
    batch_time = time.time() - end
    print('Epoch: [{0}]\tlr {lr:.4f}\tLoss {loss.avg:.4f}\tPrec@1 {top1.avg:.3f}'.format(
        epoch, lr=optimizer.param_groups[0]['lr'], loss=losses, top1=top1))
    lr_scheduler.step()

print(optimizer.state[model.conv1.weight]['momentum_buffer'].shape)
model.eval()
with torch.no_grad():
    xv, yv = make_batch(64, gen)
    out = model(xv.to(memory_format=torch.channels_last))
    p1, p5 = accuracy(out, yv, topk=(1, 5))
    print(' * Prec@1 {:.3f} Prec@5 {:.3f}'.format(p1.item(), p5.item()))
    print('train loss decreased', losses.avg < 2.3, 'prec@5 >= prec@1', bool(p5 >= p1))
print(lr_scheduler.state_dict())
