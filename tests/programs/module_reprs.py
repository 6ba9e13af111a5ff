"""What `print(model)` and friends show for the layers real models use: convolutions with every
option, recurrent layers, transformer layers, attention, embeddings, norms, pooling, upsampling,
activations with arguments, containers (ModuleDict, ModuleList, ParameterList, ParameterDict,
nested Sequential with OrderedDict names), a custom extra_repr, optimizers with several param
groups, and a parameter-count table."""
from collections import OrderedDict

import torch
import torch.nn as nn

torch.manual_seed(0)

layers = [
    nn.Conv1d(16, 33, 3, stride=2),
    nn.Conv2d(16, 33, (3, 5), stride=(2, 1), padding=(4, 2), dilation=(3, 1)),
    nn.Conv2d(8, 8, 3, padding="same", groups=8, bias=False, padding_mode="reflect"),
    nn.Conv3d(4, 8, 3, padding=1),
    nn.ConvTranspose2d(16, 8, 3, stride=2, padding=1, output_padding=1),
    nn.ConvTranspose1d(4, 2, 5, groups=2, dilation=2),
    nn.Linear(20, 30, bias=False),
    nn.Bilinear(5, 6, 7),
    nn.Identity(),
    nn.Embedding(10, 3, padding_idx=0),
    nn.Embedding(10, 3, max_norm=1.0, scale_grad_by_freq=True, sparse=True),
    nn.EmbeddingBag(10, 3, mode="max"),
    nn.RNN(10, 20, 2, nonlinearity="relu"),
    nn.LSTM(10, 20, num_layers=2, batch_first=True, dropout=0.1, bidirectional=True),
    nn.LSTM(10, 20, proj_size=5),
    nn.GRU(8, 16, bias=False),
    nn.LSTMCell(10, 20),
    nn.GRUCell(10, 20, bias=False),
    nn.RNNCell(4, 8, nonlinearity="tanh"),
    nn.MultiheadAttention(16, 4, dropout=0.1, batch_first=True),
    nn.MultiheadAttention(16, 2, kdim=8, vdim=12),
    nn.BatchNorm1d(100, affine=False),
    nn.BatchNorm2d(16, eps=1e-3, momentum=None, track_running_stats=False),
    nn.LayerNorm([4, 5], elementwise_affine=False),
    nn.LayerNorm(8, bias=False),
    nn.GroupNorm(2, 8),
    nn.InstanceNorm2d(3, affine=True),
    nn.LocalResponseNorm(2),
    nn.RMSNorm([4]),
    nn.MaxPool2d(3, stride=2, ceil_mode=True),
    nn.MaxPool1d(2, return_indices=True),
    nn.AvgPool2d((2, 3), count_include_pad=False, divisor_override=2),
    nn.AdaptiveAvgPool2d((5, None)),
    nn.AdaptiveMaxPool1d(3),
    nn.LPPool2d(2, 3),
    nn.Upsample(scale_factor=2, mode="bilinear", align_corners=True),
    nn.Upsample(size=(4, 4)),
    nn.PixelShuffle(2),
    nn.Flatten(),
    nn.Unflatten(1, (2, 5)),
    nn.Dropout(p=0.3, inplace=True),
    nn.Dropout2d(),
    nn.AlphaDropout(0.2),
    nn.ReLU(inplace=True),
    nn.LeakyReLU(0.2, inplace=True),
    nn.ELU(alpha=0.5),
    nn.GELU(approximate="tanh"),
    nn.Softplus(beta=2, threshold=10),
    nn.Hardtanh(-2, 2),
    nn.ReLU6(),
    nn.PReLU(num_parameters=3),
    nn.Softmax(dim=-1),
    nn.LogSoftmax(dim=1),
    nn.Threshold(0.1, 20),
    nn.SiLU(),
    nn.Mish(),
    nn.Tanh(),
    nn.ZeroPad2d((1, 1, 2, 0)),
    nn.ReflectionPad1d(2),
    nn.ConstantPad2d(1, 3.5),
    nn.CosineSimilarity(dim=1, eps=1e-6),
    nn.PairwiseDistance(p=1),
    nn.CrossEntropyLoss(label_smoothing=0.1),
    nn.BCEWithLogitsLoss(pos_weight=torch.ones(3)),
    nn.TripletMarginLoss(margin=0.5),
    nn.TransformerEncoderLayer(d_model=16, nhead=2, dim_feedforward=32, batch_first=True, norm_first=True),
]
for layer in layers:
    print(layer)

print(nn.TransformerDecoderLayer(16, 2, 32, dropout=0.0, activation="gelu"))
print(nn.Transformer(d_model=16, nhead=2, num_encoder_layers=1, num_decoder_layers=1, dim_feedforward=32))


class Block(nn.Module):
    def __init__(self, c, expansion=4):
        super().__init__()
        self.c, self.expansion = c, expansion
        self.body = nn.Sequential(OrderedDict([
            ("conv", nn.Conv2d(c, c * expansion, 1)),
            ("bn", nn.BatchNorm2d(c * expansion)),
            ("act", nn.ReLU()),
        ]))
        self.scale = nn.Parameter(torch.ones(1))

    def extra_repr(self):
        return f"c={self.c}, expansion={self.expansion}"

    def forward(self, x):
        return self.body(x) * self.scale


model = nn.Sequential(OrderedDict([
    ("stem", nn.Conv2d(3, 8, 3)),
    ("blocks", nn.ModuleList([Block(8), Block(8, expansion=2)])),
    ("heads", nn.ModuleDict({"cls": nn.Linear(8, 10), "box": nn.Linear(8, 4)})),
    ("empty", nn.Sequential()),
]))
print(model)
plist = nn.ParameterList([nn.Parameter(torch.randn(2, 3)), nn.Parameter(torch.zeros(4), requires_grad=False)])
print(plist)
pdict = nn.ParameterDict({"alpha": nn.Parameter(torch.ones(1)), "beta": nn.Parameter(torch.zeros(2, 2, dtype=torch.float64))})
print(pdict)
repeated = nn.Sequential(*[nn.Linear(4, 4) for _ in range(3)], nn.ReLU(), nn.ReLU())
print(repeated)
print(nn.ModuleList())

print(f"{'name':30s} {'shape':20s} params")
for name, p in model.named_parameters():
    print(f"{name:30s} {str(tuple(p.shape)):20s} {p.numel()}")
print("total:", sum(p.numel() for p in model.parameters()),
      "trainable:", sum(p.numel() for p in model.parameters() if p.requires_grad))

opt = torch.optim.SGD([
    {"params": model.stem.parameters()},
    {"params": model.heads.parameters(), "lr": 1e-3, "momentum": 0.9, "nesterov": True},
], lr=1e-2, weight_decay=5e-4)
print(opt)
print(torch.optim.Adam(model.parameters(), lr=3e-4, betas=(0.9, 0.98), eps=1e-9, amsgrad=True))
print(torch.optim.AdamW(model.parameters(), lr=1e-3, fused=None))
print(torch.optim.RMSprop(model.parameters(), alpha=0.9, centered=True))
print(torch.optim.Adagrad(model.parameters(), lr_decay=1e-4))
print(torch.optim.LBFGS(model.parameters(), history_size=5))
