"""A PyTorch 0.3-era script kept running on 2.x: a LinearFunction written as in the old
"Extending PyTorch" notes with addmm_(beta, alpha, ...) / addr-style accumulation, Variables,
FloatTensor type switches, manual SGD with p.data.add_(-lr, grad), F.sigmoid, size_average
losses, and torch.gels-era linear algebra replaced through the deprecated wrappers."""
import warnings

import torch
import torch.nn as nn
import torch.nn.functional as F
from torch.autograd import Function, Variable

warnings.filterwarnings("ignore")
use_cuda = torch.cuda.is_available()
FloatTensor = torch.cuda.FloatTensor if use_cuda else torch.FloatTensor
LongTensor = torch.cuda.LongTensor if use_cuda else torch.LongTensor
torch.manual_seed(1)


class LinearFunction(Function):
    @staticmethod
    def forward(ctx, input, weight, bias=None):
        ctx.save_for_backward(input, weight, bias)
        output = input.new(input.size(0), weight.size(0)).zero_()
        output.addmm_(0, 1, input, weight.t())
        if bias is not None:
            output += bias.unsqueeze(0).expand_as(output)
        return output

    @staticmethod
    def backward(ctx, grad_output):
        input, weight, bias = ctx.saved_tensors
        grad_input = grad_weight = grad_bias = None
        if ctx.needs_input_grad[0]:
            grad_input = grad_output.mm(weight)
        if ctx.needs_input_grad[1]:
            grad_weight = weight.new(weight.size()).zero_()
            grad_weight.addmm_(0, 1, grad_output.t(), input)
        if bias is not None and ctx.needs_input_grad[2]:
            grad_bias = grad_output.sum(0)
        return grad_input, grad_weight, grad_bias


class Linear(nn.Module):
    def __init__(self, input_features, output_features, bias=True):
        super(Linear, self).__init__()
        self.input_features = input_features
        self.output_features = output_features
        self.weight = nn.Parameter(torch.Tensor(output_features, input_features))
        if bias:
            self.bias = nn.Parameter(torch.Tensor(output_features))
        else:
            self.register_parameter('bias', None)
        self.weight.data.uniform_(-0.1, 0.1)
        if self.bias is not None:
            self.bias.data.uniform_(-0.1, 0.1)

    def forward(self, input):
        return LinearFunction.apply(input, self.weight, self.bias)

    def extra_repr(self):
        return 'input_features={}, output_features={}, bias={}'.format(
            self.input_features, self.output_features, self.bias is not None)


class Net(nn.Module):
    def __init__(self):
        super(Net, self).__init__()
        self.fc1 = Linear(4, 16)
        self.fc2 = Linear(16, 1)

    def forward(self, x):
        return F.sigmoid(self.fc2(F.tanh(self.fc1(x))))


net = Net()
print(net)
x = Variable(torch.randn(64, 4).type(FloatTensor))
y = Variable((x.data[:, 0] * x.data[:, 1] > 0).float().unsqueeze(1))
print("x", type(x).__name__, x.type(), x.size(), "y mean", y.data.mean())
criterion = nn.BCELoss(size_average=True)
lr = 0.5
for epoch in range(40):
    out = net(x)
    loss = criterion(out, y)
    net.zero_grad()
    loss.backward()
    for p in net.parameters():
        p.data.add_(-lr, p.grad.data)
    if epoch % 10 == 0:
        print("epoch %d loss %.6f" % (epoch, loss.item()))

print("gradcheck:", torch.autograd.gradcheck(
    LinearFunction.apply, (Variable(torch.randn(3, 4).double(), requires_grad=True),
                           Variable(torch.randn(2, 4).double(), requires_grad=True),
                           Variable(torch.randn(2).double(), requires_grad=True))))
pred = (net(x).data > 0.5).float()
print("accuracy %.3f" % (pred.eq(y.data).sum().item() / 64.0))
idx = LongTensor([0, 5, 9])
print("selected rows", x.index_select(0, Variable(idx)).data.size())
acc = torch.zeros(2, 2)
acc.addmm_(1, 0.5, torch.ones(2, 3), torch.ones(3, 2))
acc.addr_(1, 2, torch.ones(2), torch.arange(2.0))
print(acc)
print(torch.addmv(0.5, torch.ones(2), 2.0, torch.eye(2), torch.tensor([1.0, 2.0])))
print(torch.baddbmm(0.0, torch.zeros(1, 2, 2), torch.ones(1, 2, 3), torch.ones(1, 3, 2)))
