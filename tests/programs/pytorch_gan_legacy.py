"""eriklindernoren/PyTorch-GAN's gan.py / cgan.py style, on synthetic 8x8 'digits': argparse
options, `Tensor = torch.cuda.FloatTensor if cuda else torch.FloatTensor`,
`Variable(Tensor(imgs.size(0), 1).fill_(1.0), requires_grad=False)`, latent vectors from
np.random.normal wrapped in Tensor(...), BatchNorm1d(out_feat, 0.8) (eps=0.8, the repository's
well-known positional slip), LeakyReLU(0.2, inplace=True), an embedding-conditioned generator
(cgan), LongTensor labels, weights_init_normal on .data, and the legacy isinstance / type
checks such scripts print."""
# ruff: noqa: UP008, UP031, UP032 - written the way the repository it imitates is written
import argparse

import numpy as np
import torch
import torch.nn as nn
from torch.autograd import Variable

parser = argparse.ArgumentParser()
parser.add_argument("--n_epochs", type=int, default=3, help="number of epochs of training")
parser.add_argument("--batch_size", type=int, default=16, help="size of the batches")
parser.add_argument("--lr", type=float, default=0.0002, help="adam: learning rate")
parser.add_argument("--b1", type=float, default=0.5, help="adam: decay of first order momentum of gradient")
parser.add_argument("--b2", type=float, default=0.999, help="adam: decay of first order momentum of gradient")
parser.add_argument("--latent_dim", type=int, default=10, help="dimensionality of the latent space")
parser.add_argument("--n_classes", type=int, default=4, help="number of classes for dataset")
parser.add_argument("--img_size", type=int, default=8, help="size of each image dimension")
parser.add_argument("--channels", type=int, default=1, help="number of image channels")
opt = parser.parse_args([])
print(opt)

img_shape = (opt.channels, opt.img_size, opt.img_size)

cuda = True if torch.cuda.is_available() else False
torch.manual_seed(0)
np.random.seed(0)


class Generator(nn.Module):
    def __init__(self):
        super(Generator, self).__init__()

        self.label_emb = nn.Embedding(opt.n_classes, opt.n_classes)

        def block(in_feat, out_feat, normalize=True):
            layers = [nn.Linear(in_feat, out_feat)]
            if normalize:
                layers.append(nn.BatchNorm1d(out_feat, 0.8))
            layers.append(nn.LeakyReLU(0.2, inplace=True))
            return layers

        self.model = nn.Sequential(
            *block(opt.latent_dim + opt.n_classes, 32, normalize=False),
            *block(32, 64),
            nn.Linear(64, int(np.prod(img_shape))),
            nn.Tanh()
        )

    def forward(self, noise, labels):
        # Concatenate label embedding and image to produce input
        gen_input = torch.cat((self.label_emb(labels), noise), -1)
        img = self.model(gen_input)
        img = img.view(img.size(0), *img_shape)
        return img


class Discriminator(nn.Module):
    def __init__(self):
        super(Discriminator, self).__init__()

        self.label_embedding = nn.Embedding(opt.n_classes, opt.n_classes)

        self.model = nn.Sequential(
            nn.Linear(opt.n_classes + int(np.prod(img_shape)), 64),
            nn.LeakyReLU(0.2, inplace=True),
            nn.Linear(64, 64),
            nn.Dropout(0.4),
            nn.LeakyReLU(0.2, inplace=True),
            nn.Linear(64, 1),
        )

    def forward(self, img, labels):
        # Concatenate label embedding and image to produce input
        d_in = torch.cat((img.view(img.size(0), -1), self.label_embedding(labels)), -1)
        validity = self.model(d_in)
        return validity


def weights_init_normal(m):
    classname = m.__class__.__name__
    if classname.find("Linear") != -1:
        torch.nn.init.normal_(m.weight.data, 0.0, 0.02)
    elif classname.find("BatchNorm") != -1:
        torch.nn.init.normal_(m.weight.data, 1.0, 0.02)
        torch.nn.init.constant_(m.bias.data, 0.0)


# Loss functions
adversarial_loss = torch.nn.MSELoss()

# Initialize generator and discriminator
generator = Generator()
discriminator = Discriminator()
generator.apply(weights_init_normal)
discriminator.apply(weights_init_normal)
print(generator)
print(generator.model[3])

if cuda:
    generator.cuda()
    discriminator.cuda()
    adversarial_loss.cuda()

# synthetic dataset: class k lights up row 2k and column 2k
labels_all = torch.arange(64) % opt.n_classes
imgs_all = -torch.ones(64, 1, opt.img_size, opt.img_size)
for i in range(64):
    k = int(labels_all[i])
    imgs_all[i, 0, 2 * k, :] = 1.0
    imgs_all[i, 0, :, 2 * k] = 1.0
imgs_all += 0.05 * torch.randn_like(imgs_all)
dataloader = torch.utils.data.DataLoader(torch.utils.data.TensorDataset(imgs_all, labels_all),
                                         batch_size=opt.batch_size, shuffle=True)

# Optimizers
optimizer_G = torch.optim.Adam(generator.parameters(), lr=opt.lr, betas=(opt.b1, opt.b2))
optimizer_D = torch.optim.Adam(discriminator.parameters(), lr=opt.lr, betas=(opt.b1, opt.b2))

FloatTensor = torch.cuda.FloatTensor if cuda else torch.FloatTensor
LongTensor = torch.cuda.LongTensor if cuda else torch.LongTensor
print(FloatTensor, LongTensor, FloatTensor.is_cuda, torch.cuda.FloatTensor.is_cuda)

# ----------
#  Training
# ----------

for epoch in range(opt.n_epochs):
    for i, (imgs, labels) in enumerate(dataloader):

        batch_size = imgs.shape[0]

        # Adversarial ground truths
        valid = Variable(FloatTensor(batch_size, 1).fill_(1.0), requires_grad=False)
        fake = Variable(FloatTensor(batch_size, 1).fill_(0.0), requires_grad=False)

        # Configure input
        real_imgs = Variable(imgs.type(FloatTensor))
        labels = Variable(labels.type(LongTensor))

        # -----------------
        #  Train Generator
        # -----------------

        optimizer_G.zero_grad()

        # Sample noise and labels as generator input
        z = Variable(FloatTensor(np.random.normal(0, 1, (batch_size, opt.latent_dim))))
        gen_labels = Variable(LongTensor(np.random.randint(0, opt.n_classes, batch_size)))

        # Generate a batch of images
        gen_imgs = generator(z, gen_labels)

        # Loss measures generator's ability to fool the discriminator
        validity = discriminator(gen_imgs, gen_labels)
        g_loss = adversarial_loss(validity, valid)

        g_loss.backward()
        optimizer_G.step()

        # ---------------------
        #  Train Discriminator
        # ---------------------

        optimizer_D.zero_grad()

        # Loss for real images
        validity_real = discriminator(real_imgs, labels)
        d_real_loss = adversarial_loss(validity_real, valid)

        # Loss for fake images
        validity_fake = discriminator(gen_imgs.detach(), gen_labels)
        d_fake_loss = adversarial_loss(validity_fake, fake)

        # Total discriminator loss
        d_loss = (d_real_loss + d_fake_loss) / 2

        d_loss.backward()
        optimizer_D.step()

        if i == len(dataloader) - 1:
            print(
                "[Epoch %d/%d] [Batch %d/%d] [D loss: %f] [G loss: %f]"
                % (epoch, opt.n_epochs, i, len(dataloader), d_loss.item(), g_loss.item())
            )

print(type(z).__name__, z.dtype, z.requires_grad, valid.requires_grad, isinstance(z, FloatTensor),
      isinstance(gen_labels, torch.LongTensor), gen_labels.dtype, real_imgs.type(), labels.type())
print(z.shape, gen_imgs.shape, gen_imgs.min().item() >= -1, gen_imgs.max().item() <= 1)
generator.eval()
with torch.no_grad():
    sample = generator(FloatTensor(np.random.normal(0, 1, (opt.n_classes, opt.latent_dim))),
                       LongTensor(np.arange(opt.n_classes)))
print(sample.shape, sample.type(), torch.FloatTensor(2, 3).shape, torch.LongTensor([1, 2]))
print(generator.model[3].running_var.shape, generator.model[3].eps, generator.model[3].num_batches_tracked)
