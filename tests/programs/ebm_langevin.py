"""An energy-based model trained with short-run stochastic gradient Langevin dynamics and a
replay buffer (the JEM / 'Implicit Generation and Generalization in EBMs' recipe, as the UvA
deep-learning tutorial writes it): a spectral-normalized MLP energy (nn.utils.spectral_norm),
samples refined by x <- x - step * dE/dx + noise with torch.autograd.grad on a
requires_grad_() copy (model parameters frozen with requires_grad_(False) during sampling and
restored after), the contrastive-divergence loss with an L2 regularizer on the energies, the
buffer refreshed with 5 % uniform noise, gradient clipping by value, and torch.enable_grad()
inside a torch.no_grad() evaluation."""
import random

import torch
import torch.nn as nn

torch.manual_seed(0)
random.seed(0)


class EnergyNet(nn.Module):
    def __init__(self, hidden=64):
        super().__init__()
        sn = nn.utils.spectral_norm
        self.net = nn.Sequential(sn(nn.Linear(2, hidden)), nn.SiLU(), sn(nn.Linear(hidden, hidden)), nn.SiLU(), sn(nn.Linear(hidden, 1)))

    def forward(self, x):
        return self.net(x).squeeze(-1)


class Sampler:
    def __init__(self, model, sample_size, max_len=256):
        self.model = model
        self.sample_size = sample_size
        self.max_len = max_len
        self.examples = [(torch.rand((1, 2)) * 8 - 4) for _ in range(self.sample_size)]

    def sample_new_exmps(self, steps=20, step_size=0.1):
        n_new = int((torch.rand(self.sample_size) < 0.05).sum().item())
        rand_imgs = torch.rand((n_new, 2)) * 8 - 4
        old_imgs = torch.cat(random.choices(self.examples, k=self.sample_size - n_new), dim=0)
        inp_imgs = torch.cat([rand_imgs, old_imgs], dim=0).detach()
        inp_imgs = Sampler.generate_samples(self.model, inp_imgs, steps=steps, step_size=step_size)
        self.examples = list(inp_imgs.chunk(self.sample_size, dim=0)) + self.examples
        self.examples = self.examples[: self.max_len]
        return inp_imgs, n_new

    @staticmethod
    def generate_samples(model, inp_imgs, steps=20, step_size=0.1, return_energy=False):
        is_training = model.training
        model.eval()
        for p in model.parameters():
            p.requires_grad = False
        inp_imgs.requires_grad = True
        had_gradients_enabled = torch.is_grad_enabled()
        torch.set_grad_enabled(True)
        noise = torch.randn(inp_imgs.shape)
        energies = []
        for _ in range(steps):
            noise.normal_(0, 0.005)
            inp_imgs.data.add_(noise.data)
            inp_imgs.data.clamp_(min=-4.0, max=4.0)
            out_imgs = -model(inp_imgs)
            out_imgs.sum().backward()
            inp_imgs.grad.data.clamp_(-0.03, 0.03)
            inp_imgs.data.add_(-step_size * inp_imgs.grad.data)
            inp_imgs.grad.detach_()
            inp_imgs.grad.zero_()
            inp_imgs.data.clamp_(min=-4.0, max=4.0)
            energies.append(out_imgs.mean().item())
        for p in model.parameters():
            p.requires_grad = True
        model.train(is_training)
        torch.set_grad_enabled(had_gradients_enabled)
        return (inp_imgs, energies) if return_energy else inp_imgs


def data_batch(n):
    centers = torch.tensor([[2.0, 2.0], [-2.0, -2.0], [2.0, -2.0]])
    idx = torch.randint(0, 3, (n,))
    return centers[idx] + 0.3 * torch.randn(n, 2)


model = EnergyNet()
print(model)
print("spectral norm hooks", [k for k, _ in model.net[0].named_parameters()], [k for k, _ in model.net[0].named_buffers()])
sampler = Sampler(model, sample_size=32)
optimizer = torch.optim.Adam(model.parameters(), lr=1e-3, betas=(0.0, 0.999))
scheduler = torch.optim.lr_scheduler.StepLR(optimizer, 1, gamma=0.97)
alpha = 0.1
for step in range(40):
    real_imgs = data_batch(32)
    small_noise = torch.randn_like(real_imgs) * 0.005
    real_imgs = real_imgs + small_noise
    fake_imgs, n_new = sampler.sample_new_exmps(steps=20, step_size=0.1)
    inp_imgs = torch.cat([real_imgs, fake_imgs], dim=0)
    real_out, fake_out = model(inp_imgs).chunk(2, dim=0)
    reg_loss = alpha * (real_out ** 2 + fake_out ** 2).mean()
    cdiv_loss = fake_out.mean() - real_out.mean()
    loss = reg_loss + cdiv_loss
    optimizer.zero_grad()
    loss.backward()
    torch.nn.utils.clip_grad_value_(model.parameters(), 0.1)
    optimizer.step()
    if step % 10 == 9:
        scheduler.step()
    if step % 10 == 0:
        print(f"step {step:2d} loss {loss.item():.5f} reg {reg_loss.item():.5f} cdiv {cdiv_loss.item():.5f} "
              f"real {real_out.mean().item():.4f} fake {fake_out.mean().item():.4f} new {n_new}")
print("parameters require grad again:", all(p.requires_grad for p in model.parameters()))
print("buffer length", len(sampler.examples), "lr", scheduler.get_last_lr())

model.eval()
with torch.no_grad():
    start = torch.rand(16, 2) * 8 - 4
    samples, energies = Sampler.generate_samples(model, start.clone(), steps=40, step_size=0.1, return_energy=True)
    print("samples", tuple(samples.shape), "inside the box:", bool((samples.abs() <= 4).all()))
    print("grad mode restored:", torch.is_grad_enabled())
    with torch.enable_grad():
        x = data_batch(4).requires_grad_()
        score = torch.autograd.grad(model(x).sum(), x)[0]
    print("score field", tuple(score.shape), score.requires_grad)
    real_e = model(data_batch(64)).mean()
    rand_e = model(torch.rand(64, 2) * 8 - 4).mean()
    print("data scores higher than uniform noise:", real_e.item() > rand_e.item())

# spectral norm: sigma estimated by power iteration stays near 1 for the normalized weight
lin = nn.utils.spectral_norm(nn.Linear(5, 4), n_power_iterations=5)
for _ in range(10):
    lin(torch.randn(2, 5))
print("spectral norm of the normalized weight", torch.linalg.matrix_norm(lin.weight.detach(), ord=2))
