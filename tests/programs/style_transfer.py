"""The neural style transfer tutorial (Gatys et al.) on a small random CNN instead of VGG19:
content / style losses as transparent modules inserted into an nn.Sequential copy of the
feature extractor, gram matrices, a Normalization module, optimizing the input image with LBFGS
and clamp_ inside the closure, and trimming the model after the last loss layer."""
import copy

import torch
import torch.nn as nn
import torch.nn.functional as F
import torch.optim as optim

torch.manual_seed(0)
imsize = 32
# synthetic "photos": a smooth gradient content image, a striped style image
yy, xx = torch.meshgrid(torch.linspace(0, 1, imsize), torch.linspace(0, 1, imsize), indexing="ij")
content_img = torch.stack([xx, yy, (xx + yy) / 2]).unsqueeze(0)
style_img = torch.stack([torch.sin(12 * xx) * 0.5 + 0.5, torch.cos(9 * yy) * 0.5 + 0.5,
                         torch.sin(6 * (xx + yy)) * 0.5 + 0.5]).unsqueeze(0)
assert style_img.size() == content_img.size(), "we need to import style and content images of the same size"
print("images", style_img.shape, style_img.dtype, f"{content_img.mean().item():.4f}")


class ContentLoss(nn.Module):
    def __init__(self, target):
        super().__init__()
        self.target = target.detach()

    def forward(self, input):
        self.loss = F.mse_loss(input, self.target)
        return input


def gram_matrix(input):
    a, b, c, d = input.size()
    features = input.view(a * b, c * d)
    G = torch.mm(features, features.t())
    return G.div(a * b * c * d)


class StyleLoss(nn.Module):
    def __init__(self, target_feature):
        super().__init__()
        self.target = gram_matrix(target_feature).detach()

    def forward(self, input):
        G = gram_matrix(input)
        self.loss = F.mse_loss(G, self.target)
        return input


class Normalization(nn.Module):
    def __init__(self, mean, std):
        super().__init__()
        self.mean = torch.tensor(mean).view(-1, 1, 1)
        self.std = torch.tensor(std).view(-1, 1, 1)

    def forward(self, img):
        return (img - self.mean) / self.std


cnn = nn.Sequential(
    nn.Conv2d(3, 16, 3, padding=1), nn.ReLU(inplace=True),
    nn.Conv2d(16, 16, 3, padding=1), nn.ReLU(inplace=True), nn.MaxPool2d(2),
    nn.Conv2d(16, 32, 3, padding=1), nn.ReLU(inplace=True),
    nn.Conv2d(32, 32, 3, padding=1), nn.ReLU(inplace=True), nn.MaxPool2d(2),
    nn.Conv2d(32, 64, 3, padding=1), nn.ReLU(inplace=True),
).eval()
for p in cnn.parameters():
    p.requires_grad_(False)
cnn_normalization_mean = [0.485, 0.456, 0.406]
cnn_normalization_std = [0.229, 0.224, 0.225]
content_layers_default = ["conv_4"]
style_layers_default = ["conv_1", "conv_2", "conv_3", "conv_4", "conv_5"]


def get_style_model_and_losses(cnn, normalization_mean, normalization_std, style_img, content_img,
                               content_layers=content_layers_default, style_layers=style_layers_default):
    normalization = Normalization(normalization_mean, normalization_std)
    content_losses = []
    style_losses = []
    model = nn.Sequential(normalization)
    i = 0
    for layer in cnn.children():
        if isinstance(layer, nn.Conv2d):
            i += 1
            name = f"conv_{i}"
        elif isinstance(layer, nn.ReLU):
            name = f"relu_{i}"
            layer = nn.ReLU(inplace=False)
        elif isinstance(layer, nn.MaxPool2d):
            name = f"pool_{i}"
        elif isinstance(layer, nn.BatchNorm2d):
            name = f"bn_{i}"
        else:
            raise RuntimeError(f"Unrecognized layer: {layer.__class__.__name__}")
        model.add_module(name, layer)
        if name in content_layers:
            target = model(content_img).detach()
            content_loss = ContentLoss(target)
            model.add_module(f"content_loss_{i}", content_loss)
            content_losses.append(content_loss)
        if name in style_layers:
            target_feature = model(style_img).detach()
            style_loss = StyleLoss(target_feature)
            model.add_module(f"style_loss_{i}", style_loss)
            style_losses.append(style_loss)
    for i in range(len(model) - 1, -1, -1):
        if isinstance(model[i], ContentLoss) or isinstance(model[i], StyleLoss):
            break
    model = model[:(i + 1)]
    return model, style_losses, content_losses


def run_style_transfer(cnn, normalization_mean, normalization_std, content_img, style_img, input_img,
                       num_steps=40, style_weight=1000000, content_weight=1):
    print("Building the style transfer model..")
    model, style_losses, content_losses = get_style_model_and_losses(
        cnn, normalization_mean, normalization_std, style_img, content_img)
    input_img.requires_grad_(True)
    model.eval()
    model.requires_grad_(False)
    optimizer = optim.LBFGS([input_img])
    print("Optimizing..")
    run = [0]
    while run[0] <= num_steps:
        def closure():
            with torch.no_grad():
                input_img.clamp_(0, 1)
            optimizer.zero_grad()
            model(input_img)
            style_score = 0
            content_score = 0
            for sl in style_losses:
                style_score += sl.loss
            for cl in content_losses:
                content_score += cl.loss
            style_score *= style_weight
            content_score *= content_weight
            loss = style_score + content_score
            loss.backward()
            run[0] += 1
            if run[0] % 10 == 0:
                print(f"run {run}:")
                print(f"Style Loss : {style_score.item():4f} Content Loss: {content_score.item():4f}")
                print()
            return style_score + content_score

        optimizer.step(closure)
    with torch.no_grad():
        input_img.clamp_(0, 1)
    return input_img, model


input_img = content_img.clone()
model, style_losses, content_losses = get_style_model_and_losses(
    cnn, cnn_normalization_mean, cnn_normalization_std, style_img, content_img)
print(model)
print("style targets:", [tuple(s.target.shape) for s in style_losses])
output, model = run_style_transfer(copy.deepcopy(cnn), cnn_normalization_mean, cnn_normalization_std,
                                   content_img, style_img, input_img)
print("output", output.shape, f"min {output.min().item():.3f} max {output.max().item():.3f}")
print("changed pixels:", (output - content_img).abs().gt(1e-3).float().mean().item() > 0.5)
