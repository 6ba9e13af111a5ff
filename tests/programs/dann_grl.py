"""Domain-adversarial training (DANN, Ganin & Lempitsky) with a gradient reversal layer written
as a torch.autograd.Function (ctx.alpha, grad_output.neg() * alpha), the lambda schedule
2 / (1 + exp(-10 p)) - 1, a domain classifier on shared features, and a check of the reversed
gradient with register_hook; source and target domains are shifted Gaussian blobs."""
import math

import numpy as np
import torch
import torch.nn as nn
from torch.autograd import Function


class ReverseLayerF(Function):

    @staticmethod
    def forward(ctx, x, alpha):
        ctx.alpha = alpha
        return x.view_as(x)

    @staticmethod
    def backward(ctx, grad_output):
        output = grad_output.neg() * ctx.alpha
        return output, None


class DANN(nn.Module):
    def __init__(self):
        super(DANN, self).__init__()
        self.feature = nn.Sequential()
        self.feature.add_module('f_fc1', nn.Linear(2, 32))
        self.feature.add_module('f_bn1', nn.BatchNorm1d(32))
        self.feature.add_module('f_relu1', nn.ReLU(True))
        self.feature.add_module('f_fc2', nn.Linear(32, 16))
        self.feature.add_module('f_relu2', nn.ReLU(True))
        self.class_classifier = nn.Sequential()
        self.class_classifier.add_module('c_fc1', nn.Linear(16, 16))
        self.class_classifier.add_module('c_relu1', nn.ReLU(True))
        self.class_classifier.add_module('c_fc2', nn.Linear(16, 2))
        self.class_classifier.add_module('c_softmax', nn.LogSoftmax(dim=1))
        self.domain_classifier = nn.Sequential()
        self.domain_classifier.add_module('d_fc1', nn.Linear(16, 16))
        self.domain_classifier.add_module('d_bn1', nn.BatchNorm1d(16))
        self.domain_classifier.add_module('d_relu1', nn.ReLU(True))
        self.domain_classifier.add_module('d_fc2', nn.Linear(16, 2))
        self.domain_classifier.add_module('d_softmax', nn.LogSoftmax(dim=1))

    def forward(self, input_data, alpha):
        feature = self.feature(input_data)
        reverse_feature = ReverseLayerF.apply(feature, alpha)
        class_output = self.class_classifier(feature)
        domain_output = self.domain_classifier(reverse_feature)
        return class_output, domain_output


# gradient reversal check
x = torch.randn(3, 4, requires_grad=True)
seen = []
y = ReverseLayerF.apply(x, 0.5)
y.register_hook(lambda g: seen.append(g.clone()))
(y * torch.arange(4.0)).sum().backward()
print("grad_fn", type(y.grad_fn).__name__, "reversed grad", x.grad[0], "hook saw", seen[0][0])


def blobs(n, shift, rot, gen):
    y = torch.randint(0, 2, (n,), generator=gen)
    centers = torch.tensor([[-1.5, 0.0], [1.5, 0.0]])
    x = centers[y] + 0.6 * torch.randn(n, 2, generator=gen)
    c, s = math.cos(rot), math.sin(rot)
    x = x @ torch.tensor([[c, -s], [s, c]]) + torch.tensor(shift)
    return x, y


gen = torch.Generator().manual_seed(0)
xs, ys = blobs(512, [0.0, 0.0], 0.0, gen)
xt, yt = blobs(512, [0.5, 1.0], 0.5, gen)
torch.manual_seed(0)
my_net = DANN()
optimizer = torch.optim.Adam(my_net.parameters(), lr=1e-3)
loss_class = torch.nn.NLLLoss()
loss_domain = torch.nn.NLLLoss()
n_epoch, batch_size = 8, 64
len_dataloader = 512 // batch_size
for epoch in range(n_epoch):
    perm_s, perm_t = torch.randperm(512), torch.randperm(512)
    for i in range(len_dataloader):
        p = float(i + epoch * len_dataloader) / n_epoch / len_dataloader
        alpha = 2. / (1. + np.exp(-10 * p)) - 1
        idx_s = perm_s[i * batch_size:(i + 1) * batch_size]
        idx_t = perm_t[i * batch_size:(i + 1) * batch_size]
        my_net.zero_grad()
        class_output, domain_output = my_net(input_data=xs[idx_s], alpha=alpha)
        err_s_label = loss_class(class_output, ys[idx_s])
        err_s_domain = loss_domain(domain_output, torch.zeros(batch_size).long())
        _, domain_output = my_net(input_data=xt[idx_t], alpha=alpha)
        err_t_domain = loss_domain(domain_output, torch.ones(batch_size).long())
        err = err_t_domain + err_s_domain + err_s_label
        err.backward()
        optimizer.step()
    print('epoch: %d, [iter: %d / all %d], err_s_label: %f, err_s_domain: %f, err_t_domain: %f, alpha: %.4f'
          % (epoch, i + 1, len_dataloader, err_s_label.data.cpu().numpy(),
             err_s_domain.data.cpu().numpy(), err_t_domain.data.cpu().item(), alpha))

my_net.eval()
with torch.no_grad():
    src_acc = (my_net(xs, 0)[0].argmax(1) == ys).float().mean().item()
    tgt_acc = (my_net(xt, 0)[0].argmax(1) == yt).float().mean().item()
    dom = torch.cat([my_net(xs, 0)[1].argmax(1), my_net(xt, 0)[1].argmax(1)])
    dom_acc = (dom == torch.cat([torch.zeros(512), torch.ones(512)]).long()).float().mean().item()
print(f"source acc {src_acc:.4f} target acc {tgt_acc:.4f} domain acc {dom_acc:.4f}")
print(my_net.domain_classifier)
