"""pytorch/examples fast_neural_style's TransformerNet (reflection padding, InstanceNorm2d with
affine, residual blocks, nearest-upsampling convolutions), its gram matrix and batch
normalisation helpers, trained for a few steps against a small fixed random "VGG" loss network
on synthetic images (offline). Prints shapes, losses and the saved state_dict's keys."""
# ruff: noqa: PYI024 - written the way the example it imitates is written
from collections import namedtuple

import torch


class TransformerNet(torch.nn.Module):
    def __init__(self):
        super(TransformerNet, self).__init__()
        self.conv1 = ConvLayer(3, 8, kernel_size=9, stride=1)
        self.in1 = torch.nn.InstanceNorm2d(8, affine=True)
        self.conv2 = ConvLayer(8, 16, kernel_size=3, stride=2)
        self.in2 = torch.nn.InstanceNorm2d(16, affine=True)
        self.conv3 = ConvLayer(16, 32, kernel_size=3, stride=2)
        self.in3 = torch.nn.InstanceNorm2d(32, affine=True)
        self.res1 = ResidualBlock(32)
        self.res2 = ResidualBlock(32)
        self.deconv1 = UpsampleConvLayer(32, 16, kernel_size=3, stride=1, upsample=2)
        self.in4 = torch.nn.InstanceNorm2d(16, affine=True)
        self.deconv2 = UpsampleConvLayer(16, 8, kernel_size=3, stride=1, upsample=2)
        self.in5 = torch.nn.InstanceNorm2d(8, affine=True)
        self.deconv3 = ConvLayer(8, 3, kernel_size=9, stride=1)
        self.relu = torch.nn.ReLU()

    def forward(self, X):
        y = self.relu(self.in1(self.conv1(X)))
        y = self.relu(self.in2(self.conv2(y)))
        y = self.relu(self.in3(self.conv3(y)))
        y = self.res1(y)
        y = self.res2(y)
        y = self.relu(self.in4(self.deconv1(y)))
        y = self.relu(self.in5(self.deconv2(y)))
        y = self.deconv3(y)
        return y


class ConvLayer(torch.nn.Module):
    def __init__(self, in_channels, out_channels, kernel_size, stride):
        super(ConvLayer, self).__init__()
        reflection_padding = kernel_size // 2
        self.reflection_pad = torch.nn.ReflectionPad2d(reflection_padding)
        self.conv2d = torch.nn.Conv2d(in_channels, out_channels, kernel_size, stride)

    def forward(self, x):
        out = self.reflection_pad(x)
        out = self.conv2d(out)
        return out


class ResidualBlock(torch.nn.Module):
    def __init__(self, channels):
        super(ResidualBlock, self).__init__()
        self.conv1 = ConvLayer(channels, channels, kernel_size=3, stride=1)
        self.in1 = torch.nn.InstanceNorm2d(channels, affine=True)
        self.conv2 = ConvLayer(channels, channels, kernel_size=3, stride=1)
        self.in2 = torch.nn.InstanceNorm2d(channels, affine=True)
        self.relu = torch.nn.ReLU()

    def forward(self, x):
        residual = x
        out = self.relu(self.in1(self.conv1(x)))
        out = self.in2(self.conv2(out))
        out = out + residual
        return out


class UpsampleConvLayer(torch.nn.Module):
    def __init__(self, in_channels, out_channels, kernel_size, stride, upsample=None):
        super(UpsampleConvLayer, self).__init__()
        self.upsample = upsample
        reflection_padding = kernel_size // 2
        self.reflection_pad = torch.nn.ReflectionPad2d(reflection_padding)
        self.conv2d = torch.nn.Conv2d(in_channels, out_channels, kernel_size, stride)

    def forward(self, x):
        x_in = x
        if self.upsample:
            x_in = torch.nn.functional.interpolate(x_in, mode='nearest', scale_factor=self.upsample)
        out = self.reflection_pad(x_in)
        out = self.conv2d(out)
        return out


class TinyVGG(torch.nn.Module):
    """Stands in for torchvision's vgg16(pretrained=True).features, frozen."""

    def __init__(self, requires_grad=False):
        super(TinyVGG, self).__init__()
        self.slice1 = torch.nn.Sequential(torch.nn.Conv2d(3, 8, 3, padding=1), torch.nn.ReLU(inplace=True))
        self.slice2 = torch.nn.Sequential(torch.nn.MaxPool2d(2, 2), torch.nn.Conv2d(8, 16, 3, padding=1),
                                          torch.nn.ReLU(inplace=True))
        self.slice3 = torch.nn.Sequential(torch.nn.MaxPool2d(2, 2), torch.nn.Conv2d(16, 16, 3, padding=1),
                                          torch.nn.ReLU(inplace=True))
        if not requires_grad:
            for param in self.parameters():
                param.requires_grad = False

    def forward(self, X):
        h_relu1_2 = self.slice1(X)
        h_relu2_2 = self.slice2(h_relu1_2)
        h_relu3_3 = self.slice3(h_relu2_2)
        vgg_outputs = namedtuple("VggOutputs", ['relu1_2', 'relu2_2', 'relu3_3'])
        return vgg_outputs(h_relu1_2, h_relu2_2, h_relu3_3)


def gram_matrix(y):
    (b, ch, h, w) = y.size()
    features = y.view(b, ch, w * h)
    features_t = features.transpose(1, 2)
    gram = features.bmm(features_t) / (ch * h * w)
    return gram


def normalize_batch(batch):
    # normalize using imagenet mean and std
    mean = batch.new_tensor([0.485, 0.456, 0.406]).view(-1, 1, 1)
    std = batch.new_tensor([0.229, 0.224, 0.225]).view(-1, 1, 1)
    batch = batch.div_(255.0)
    return (batch - mean) / std


torch.manual_seed(42)
device = torch.device("cuda" if torch.cuda.is_available() else "cpu")
transformer = TransformerNet().to(device)
optimizer = torch.optim.Adam(transformer.parameters(), 1e-3)
mse_loss = torch.nn.MSELoss()
vgg = TinyVGG(requires_grad=False).to(device)
print(transformer.res1)
print("transformer params:", sum(p.numel() for p in transformer.parameters()))
print("vgg trainable:", sum(p.numel() for p in vgg.parameters() if p.requires_grad))

style = torch.rand(1, 3, 32, 32) * 255
style = style.repeat(2, 1, 1, 1).to(device)
features_style = vgg(normalize_batch(style))
gram_style = [gram_matrix(y) for y in features_style]
print("gram shapes", [tuple(g.shape) for g in gram_style])
content_weight, style_weight = 1e5, 1e10

agg_content_loss = 0.
agg_style_loss = 0.
count = 0
transformer.train()
for batch_id in range(6):
    x = torch.rand(2, 3, 32, 32) * 255
    n_batch = len(x)
    count += n_batch
    optimizer.zero_grad()
    x = x.to(device)
    y = transformer(x)
    y = normalize_batch(y)
    x = normalize_batch(x)
    features_y = vgg(y)
    features_x = vgg(x)
    content_loss = content_weight * mse_loss(features_y.relu2_2, features_x.relu2_2)
    style_loss = 0.
    for ft_y, gm_s in zip(features_y, gram_style):
        gm_y = gram_matrix(ft_y)
        style_loss += mse_loss(gm_y, gm_s[:n_batch, :, :])
    style_loss *= style_weight
    total_loss = content_loss + style_loss
    total_loss.backward()
    optimizer.step()
    agg_content_loss += content_loss.item()
    agg_style_loss += style_loss.item()
    if (batch_id + 1) % 2 == 0:
        mesg = "Epoch {}:\t[{}/{}]\tcontent: {:.6f}\tstyle: {:.6f}\ttotal: {:.6f}".format(
            1, count, 12, agg_content_loss / (batch_id + 1), agg_style_loss / (batch_id + 1),
            (agg_content_loss + agg_style_loss) / (batch_id + 1))
        print(mesg)

transformer.eval().cpu()
torch.save(transformer.state_dict(), "model.pth")
state_dict = torch.load("model.pth")
print("saved keys:", len(state_dict), list(state_dict)[:6])
for k in list(state_dict.keys()):
    if k.endswith(('running_mean', 'running_var')):
        del state_dict[k]
style_model = TransformerNet()
style_model.load_state_dict(state_dict)
with torch.no_grad():
    content_image = torch.rand(1, 3, 24, 20) * 255
    output = style_model(content_image).cpu()
img = output[0].clone().clamp(0, 255).numpy()
img = img.transpose(1, 2, 0).astype("uint8")
print("stylized image", img.shape, img.dtype)
print("instance norm of a constant image is zero:",
      torch.nn.InstanceNorm2d(3)(torch.ones(1, 3, 4, 4)).abs().max().item())
print(torch.nn.InstanceNorm2d(3, affine=True, track_running_stats=True))
