"""Weight initialisation with model.apply and nn.init, parameter counting and inspection."""
import torch
import torch.nn as nn


class MLP(nn.Module):
    def __init__(self):
        super().__init__()
        self.layers = nn.ModuleList([nn.Linear(8, 16), nn.Linear(16, 16), nn.Linear(16, 4)])
        self.norm = nn.LayerNorm(16)
        self.conv = nn.Conv1d(2, 4, 3)
        self.emb = nn.Embedding(10, 8)
        self.act = nn.GELU()

    def forward(self, x):
        for layer in self.layers[:-1]:
            x = self.act(self.norm(layer(x)))
        return self.layers[-1](x)


def init_weights(m):
    if isinstance(m, nn.Linear):
        nn.init.xavier_uniform_(m.weight, gain=nn.init.calculate_gain("relu"))
        if m.bias is not None:
            nn.init.zeros_(m.bias)
    elif isinstance(m, nn.Conv1d):
        nn.init.kaiming_normal_(m.weight, mode="fan_out", nonlinearity="relu")
        nn.init.constant_(m.bias, 0.1)
    elif isinstance(m, nn.Embedding):
        nn.init.normal_(m.weight, mean=0.0, std=0.02)
    elif isinstance(m, nn.LayerNorm):
        m.weight.data.fill_(1.0)
        m.bias.data.zero_()


torch.manual_seed(0)
model = MLP()
model.apply(init_weights)
print(model)
total = sum(p.numel() for p in model.parameters())
trainable = sum(p.numel() for p in model.parameters() if p.requires_grad)
print(f"Total params: {total:,}  trainable: {trainable:,}")
for name, param in model.named_parameters():
    print(f"{name:20s} {str(tuple(param.shape)):12s} {param.dtype} {param.requires_grad}")
print("biases zero:", all(bool((m.bias == 0).all()) for m in model.modules() if isinstance(m, nn.Linear)))
print("conv bias:", model.conv.bias.data)
print("emb std small:", model.emb.weight.std().item() < 0.05)
for p in model.emb.parameters():
    p.requires_grad = False
print("trainable after freezing:", sum(p.numel() for p in model.parameters() if p.requires_grad))
print([n for n, _ in model.named_children()])
print([type(m).__name__ for m in model.modules()][:4])
x = torch.randn(5, 8)
out = model(x)
print(out.shape, out.grad_fn.name())
print(model.layers[0].weight.grad)
out.sum().backward()
print(model.layers[0].weight.grad.shape, model.emb.weight.grad)
print(model.state_dict()["norm.weight"])
print(nn.init.calculate_gain("leaky_relu", 0.2), nn.init.calculate_gain("tanh"))
w = torch.empty(3, 5)
nn.init.eye_(w)
print(w)
nn.init.orthogonal_(w)
print(torch.allclose(w @ w.T, torch.eye(3), atol=1e-5))
print(model.training, model.eval().training, model.layers[1].training)
