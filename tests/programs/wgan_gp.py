"""WGAN-GP (Gulrajani et al.) on a 2-D ring of Gaussians, in the style of the popular
wgan-gp repositories: calc_gradient_penalty with torch.autograd.grad(create_graph=True,
retain_graph=True, only_inputs=True) on interpolates, the critic trained n_critic times per
generator step with `one` / `mone` backward calls, Adam(betas=(0.5, 0.9)), requires_grad
toggling of the critic's parameters, plus the original WGAN's weight clipping (clamp_) and
an R1 penalty; the double-backward graph's grad_fn names are printed."""
# ruff: noqa: UP031 - written the way the repositories it imitates are written
import math

import torch
import torch.autograd as autograd
import torch.nn as nn
import torch.optim as optim

torch.manual_seed(1)

DIM = 64
LAMBDA = 0.1
CRITIC_ITERS = 5
BATCH_SIZE = 64
ITERS = 40


class Generator(nn.Module):
    def __init__(self):
        super(Generator, self).__init__()
        main = nn.Sequential(
            nn.Linear(2, DIM),
            nn.ReLU(True),
            nn.Linear(DIM, DIM),
            nn.ReLU(True),
            nn.Linear(DIM, 2),
        )
        self.main = main

    def forward(self, noise, real_data):
        output = self.main(noise)
        return output


class Discriminator(nn.Module):
    def __init__(self):
        super(Discriminator, self).__init__()
        main = nn.Sequential(
            nn.Linear(2, DIM),
            nn.ReLU(True),
            nn.Linear(DIM, DIM),
            nn.ReLU(True),
            nn.Linear(DIM, 1),
        )
        self.main = main

    def forward(self, inputs):
        output = self.main(inputs)
        return output.view(-1)


def weights_init(m):
    classname = m.__class__.__name__
    if classname.find('Linear') != -1:
        m.weight.data.normal_(0.0, 0.02)
        m.bias.data.fill_(0)


def inf_train_gen(gen):
    scale = 2.
    centers = [(math.cos(2 * math.pi * k / 8), math.sin(2 * math.pi * k / 8)) for k in range(8)]
    centers = torch.tensor(centers) * scale
    while True:
        idx = torch.randint(0, 8, (BATCH_SIZE,), generator=gen)
        point = torch.randn(BATCH_SIZE, 2, generator=gen) * 0.02
        dataset = (point + centers[idx]) / 1.414  # stdev
        yield dataset


def calc_gradient_penalty(netD, real_data, fake_data):
    alpha = torch.rand(BATCH_SIZE, 1)
    alpha = alpha.expand(real_data.size())

    interpolates = alpha * real_data + ((1 - alpha) * fake_data)
    interpolates = autograd.Variable(interpolates, requires_grad=True)

    disc_interpolates = netD(interpolates)

    gradients = autograd.grad(outputs=disc_interpolates, inputs=interpolates,
                              grad_outputs=torch.ones(disc_interpolates.size()),
                              create_graph=True, retain_graph=True, only_inputs=True)[0]

    gradient_penalty = ((gradients.norm(2, dim=1) - 1) ** 2).mean() * LAMBDA
    return gradient_penalty


netG = Generator()
netD = Discriminator()
netD.apply(weights_init)
netG.apply(weights_init)
print(netG)
print(netD)

optimizerD = optim.Adam(netD.parameters(), lr=1e-4, betas=(0.5, 0.9))
optimizerG = optim.Adam(netG.parameters(), lr=1e-4, betas=(0.5, 0.9))

one = torch.tensor(1, dtype=torch.float)
mone = one * -1
print(one, mone)

data = inf_train_gen(torch.Generator().manual_seed(2))

# the penalty's graph, once, for inspection
real = next(data)
fake = netG(torch.randn(BATCH_SIZE, 2), real).detach()
gp = calc_gradient_penalty(netD, real, fake)
print(gp.grad_fn.name(), gp.requires_grad, [type(n[0]).__name__ for n in gp.grad_fn.next_functions])
gp.backward()
print([None if p.grad is None else tuple(p.grad.shape) for p in netD.parameters()], netD.main[0].weight.grad.abs().sum().item() > 0)
netD.zero_grad()

for iteration in range(ITERS):
    ############################
    # (1) Update D network
    ###########################
    for p in netD.parameters():  # reset requires_grad
        p.requires_grad = True  # they are set to False below in netG update

    for iter_d in range(CRITIC_ITERS):
        _data = next(data)
        real_data_v = autograd.Variable(_data)

        netD.zero_grad()

        # train with real
        D_real = netD(real_data_v)
        D_real = D_real.mean()
        D_real.backward(mone)

        # train with fake
        noise = torch.randn(BATCH_SIZE, 2)
        with torch.no_grad():
            noisev = autograd.Variable(noise)  # totally freeze netG
        fake = autograd.Variable(netG(noisev, real_data_v).data)
        inputv = fake
        D_fake = netD(inputv)
        D_fake = D_fake.mean()
        D_fake.backward(one)

        # train with gradient penalty
        gradient_penalty = calc_gradient_penalty(netD, real_data_v.data, fake.data)
        gradient_penalty.backward()

        D_cost = D_fake - D_real + gradient_penalty
        Wasserstein_D = D_real - D_fake
        optimizerD.step()

    ############################
    # (2) Update G network
    ###########################
    for p in netD.parameters():
        p.requires_grad = False  # to avoid computation
    netG.zero_grad()

    _data = next(data)
    real_data = autograd.Variable(_data)

    noise = torch.randn(BATCH_SIZE, 2)
    noisev = autograd.Variable(noise)
    fake = netG(noisev, real_data)
    G = netD(fake)
    G = G.mean()
    G.backward(mone)
    G_cost = -G
    optimizerG.step()

    if iteration % 10 == 9:
        print('iter %d\tD cost %.6f\tG cost %.6f\tW dist %.6f\tgp %.6f' % (
            iteration + 1, D_cost.item(), G_cost.item(), Wasserstein_D.item(), gradient_penalty.item()))

print('critic params frozen:', all(not p.requires_grad for p in netD.parameters()))
print('critic grads kept from the last critic step:', netD.main[0].weight.grad is not None)

# --- the original WGAN: RMSprop and weight clipping
torch.manual_seed(3)
critic = Discriminator()
opt = optim.RMSprop(critic.parameters(), lr=5e-5)
clamp_lower, clamp_upper = -0.01, 0.01
for p in critic.parameters():
    p.data.clamp_(clamp_lower, clamp_upper)
for i in range(5):
    x = next(data)
    errD = -critic(x).mean() + critic(torch.randn(BATCH_SIZE, 2)).mean()
    opt.zero_grad()
    errD.backward()
    opt.step()
    for p in critic.parameters():
        p.data.clamp_(clamp_lower, clamp_upper)
print('clipped:', max(p.abs().max().item() for p in critic.parameters()) <= 0.01)
print(opt.state_dict()['param_groups'][0]['alpha'], len(opt.state_dict()['state']))

# --- R1 penalty (StyleGAN2): gradient of the real scores with respect to the real images
real = next(data).requires_grad_(True)
scores = critic(real)
grad_real, = autograd.grad(outputs=scores.sum(), inputs=real, create_graph=True)
r1 = grad_real.pow(2).reshape(grad_real.shape[0], -1).sum(1).mean()
print(r1.grad_fn.name(), grad_real.shape, grad_real.requires_grad)
r1.backward()
print(real.grad.shape, critic.main[4].bias.grad is not None)

# second derivatives through ReLU and a smooth activation
x = torch.tensor([[0.5, -1.0], [2.0, 0.25]], requires_grad=True)
net = nn.Sequential(nn.Linear(2, 3), nn.Softplus(), nn.Linear(3, 1)).double()
x = x.double().detach().requires_grad_()
torch.manual_seed(0)
for p in net.parameters():
    nn.init.uniform_(p, -1, 1)
y = net(x).sum()
g, = torch.autograd.grad(y, x, create_graph=True)
gg = torch.autograd.grad(g.sum(), x)[0]
print(g)
print(gg)
h = torch.autograd.functional.hessian(lambda inp: net(inp).sum(), x)
print(h.shape, torch.allclose(h.sum((2, 3)), gg))
