"""Two tutorials on a small CNN and synthetic 'images': transfer learning (a trained backbone
reused as a fixed feature extractor, requires_grad=False, a new fc head, an optimizer over the
head only, StepLR, train/val phases with torch.set_grad_enabled, best weights kept with
copy.deepcopy) and the FGSM adversarial example tutorial (data.requires_grad, the sign of the
input gradient, clamp to [0, 1], accuracy per epsilon, adversarial examples kept)."""
import copy
import time

import torch
import torch.nn as nn
import torch.nn.functional as F
import torch.optim as optim
from torch.optim import lr_scheduler

torch.manual_seed(0)
device = torch.device("cuda:0" if torch.cuda.is_available() else "cpu")


def make_images(n, g):
    # class 0: bright left half, class 1: bright right half, class 2: bright centre
    y = torch.randint(0, 3, (n,), generator=g)
    x = torch.rand(n, 1, 16, 16, generator=g) * 0.3
    x[y == 0, :, :, :8] += 0.6
    x[y == 1, :, :, 8:] += 0.6
    x[y == 2, :, 4:12, 4:12] += 0.6
    return x.clamp(0, 1), y


g = torch.Generator().manual_seed(0)
x_train, y_train = make_images(192, g)
x_val, y_val = make_images(96, g)
dataloaders = {
    "train": torch.utils.data.DataLoader(torch.utils.data.TensorDataset(x_train, y_train), batch_size=32, shuffle=True),
    "val": torch.utils.data.DataLoader(torch.utils.data.TensorDataset(x_val, y_val), batch_size=32),
}
dataset_sizes = {k: len(v.dataset) for k, v in dataloaders.items()}
print(dataset_sizes)


class Net(nn.Module):
    def __init__(self):
        super(Net, self).__init__()
        self.conv1 = nn.Conv2d(1, 8, kernel_size=3, padding=1)
        self.conv2 = nn.Conv2d(8, 16, kernel_size=3, padding=1)
        self.dropout = nn.Dropout(0.25)
        self.fc = nn.Linear(16 * 4 * 4, 3)

    def forward(self, x):
        x = F.max_pool2d(F.relu(self.conv1(x)), 2)
        x = F.max_pool2d(F.relu(self.conv2(x)), 2)
        x = self.dropout(torch.flatten(x, 1))
        return self.fc(x)


def train_model(model, criterion, optimizer, scheduler, num_epochs=3):
    since = time.time()
    best_model_wts = copy.deepcopy(model.state_dict())
    best_acc = 0.0
    for epoch in range(num_epochs):
        print(f'Epoch {epoch}/{num_epochs - 1}')
        print('-' * 10)
        for phase in ['train', 'val']:
            if phase == 'train':
                model.train()
            else:
                model.eval()
            running_loss = 0.0
            running_corrects = 0
            for inputs, labels in dataloaders[phase]:
                inputs = inputs.to(device)
                labels = labels.to(device)
                optimizer.zero_grad()
                with torch.set_grad_enabled(phase == 'train'):
                    outputs = model(inputs)
                    _, preds = torch.max(outputs, 1)
                    loss = criterion(outputs, labels)
                    if phase == 'train':
                        loss.backward()
                        optimizer.step()
                running_loss += loss.item() * inputs.size(0)
                running_corrects += torch.sum(preds == labels.data)
            if phase == 'train':
                scheduler.step()
            epoch_loss = running_loss / dataset_sizes[phase]
            epoch_acc = running_corrects.double() / dataset_sizes[phase]
            print(f'{phase} Loss: {epoch_loss:.4f} Acc: {epoch_acc:.4f}')
            if phase == 'val' and epoch_acc > best_acc:
                best_acc = epoch_acc
                best_model_wts = copy.deepcopy(model.state_dict())
        print()
    time_elapsed = time.time() - since
    print(f'Training complete in {time_elapsed // 60:.0f}m {time_elapsed % 60 >= 0}')
    print(f'Best val Acc: {best_acc:4f}')
    model.load_state_dict(best_model_wts)
    return model


# "pretrained" backbone: trained once on the task
model = Net().to(device)
criterion = nn.CrossEntropyLoss()
optimizer_ft = optim.SGD(model.parameters(), lr=0.05, momentum=0.9)
exp_lr_scheduler = lr_scheduler.StepLR(optimizer_ft, step_size=2, gamma=0.1)
model = train_model(model, criterion, optimizer_ft, exp_lr_scheduler, num_epochs=3)
print(type(exp_lr_scheduler.get_last_lr()), exp_lr_scheduler.get_last_lr())

# ConvNet as fixed feature extractor: freeze everything, replace the head
model_conv = copy.deepcopy(model)
for param in model_conv.parameters():
    param.requires_grad = False
num_ftrs = model_conv.fc.in_features
model_conv.fc = nn.Linear(num_ftrs, 3)
print(model_conv)
print([n for n, p in model_conv.named_parameters() if p.requires_grad])
optimizer_conv = optim.SGD(model_conv.fc.parameters(), lr=0.05, momentum=0.9)
exp_lr_scheduler = lr_scheduler.StepLR(optimizer_conv, step_size=7, gamma=0.1)
model_conv = train_model(model_conv, criterion, optimizer_conv, exp_lr_scheduler, num_epochs=2)
print(model_conv.conv1.weight.grad is None, model_conv.fc.weight.grad is not None)
print(torch.equal(model_conv.conv1.weight, model.conv1.weight))


# FGSM
def fgsm_attack(image, epsilon, data_grad):
    sign_data_grad = data_grad.sign()
    perturbed_image = image + epsilon * sign_data_grad
    perturbed_image = torch.clamp(perturbed_image, 0, 1)
    return perturbed_image


def test(model, device, test_loader, epsilon):
    correct = 0
    adv_examples = []
    for data, target in test_loader:
        data, target = data.to(device), target.to(device)
        data.requires_grad = True
        output = model(data)
        init_pred = output.max(1, keepdim=True)[1]
        if init_pred.item() != target.item():
            continue
        loss = F.nll_loss(F.log_softmax(output, dim=1), target)
        model.zero_grad()
        loss.backward()
        data_grad = data.grad.data
        perturbed_data = fgsm_attack(data, epsilon, data_grad)
        output = model(perturbed_data)
        final_pred = output.max(1, keepdim=True)[1]
        if final_pred.item() == target.item():
            correct += 1
            if epsilon == 0 and len(adv_examples) < 3:
                adv_ex = perturbed_data.squeeze().detach().cpu().numpy()
                adv_examples.append((init_pred.item(), final_pred.item(), adv_ex))
        else:
            if len(adv_examples) < 3:
                adv_ex = perturbed_data.squeeze().detach().cpu().numpy()
                adv_examples.append((init_pred.item(), final_pred.item(), adv_ex))
    final_acc = correct / float(len(test_loader))
    print(f"Epsilon: {epsilon}\tTest Accuracy = {correct} / {len(test_loader)} = {final_acc}")
    return final_acc, adv_examples


model.eval()
test_loader = torch.utils.data.DataLoader(torch.utils.data.TensorDataset(x_val, y_val), batch_size=1, shuffle=False)
epsilons = [0, .05, .1, .2, .3]
accuracies = []
examples = []
for eps in epsilons:
    acc, ex = test(model, device, test_loader, eps)
    accuracies.append(acc)
    examples.append(ex)
print("accuracy non-increasing:", all(a >= b for a, b in zip(accuracies, accuracies[1:])))
print([len(e) for e in examples], examples[-1][0][2].shape if examples[-1] else None, examples[0][0][2].dtype)
x = x_val[:1].clone().requires_grad_(True)
loss = F.cross_entropy(model(x), y_val[:1])
loss.backward()
adv = fgsm_attack(x, 0.1, x.grad)
print(adv.requires_grad, adv.grad_fn, (adv - x).abs().max().item() <= 0.1 + 1e-6, adv.min() >= 0, adv.max() <= 1)
