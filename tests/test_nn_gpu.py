"""Every layer family trains on the GPU device with no host round trip: for each layer (or
loss) a small model moved with `.to("gpu")` takes a warm-up step, then a full training step
(forward, loss, backward, optimizer.step, zero_grad) during which `gradrs.gpu.transfer_counts()`
does not move, and its losses and parameters equal the same steps on the CPU. Also float16
models (`.half()`) on the GPU. Optimizers alone are covered in test_optim.py, recurrent layers
in test_nn_rnn.py and transformers in test_nn_transformer.py."""

from __future__ import annotations

import copy

import numpy as np
import pytest
from conftest import G, SELFTEST

pytestmark = pytest.mark.skipif(
    SELFTEST or not G.gpu.is_available(), reason="needs gradrs's GPU device (an adapter)")

nn = G.nn


def _x(*shape, seed=0):
    return G.tensor(np.random.default_rng(seed).standard_normal(shape).astype(np.float32))


def _u(*shape, seed=1):
    return G.tensor(np.random.default_rng(seed).uniform(0.05, 0.95, shape).astype(np.float32))


def _k(high, *shape, seed=2):
    return G.tensor(np.random.default_rng(seed).integers(0, high, shape))


def _probs(*shape, seed=3):
    return _x(*shape, seed=seed).softmax(-1)


def _head(*layers, n_out):
    """A conv stem (so the layer under test gets a gradient to pass back), the layers, then a
    flatten: the loss compares it with a target of n_out features."""
    return lambda: nn.Sequential(nn.Conv2d(3, 4, 3), *layers, nn.Flatten()), n_out


class _Twice(nn.Module):
    """A two-input layer given its input twice."""

    def __init__(self, layer):
        super().__init__()
        self.layer = layer

    def forward(self, x):
        return self.layer(x, x)


IMG, SEQ, VEC = (2, 3, 8, 8), (2, 3, 10), (4, 6)

# name: (model factory, input, target, loss)
CASES = {
    "Linear": (lambda: nn.Linear(6, 3), _x(*VEC), _x(4, 3), nn.MSELoss()),
    "Bilinear": (lambda: _Twice(nn.Bilinear(6, 6, 3)), _x(*VEC), _x(4, 3), nn.L1Loss()),
    "Flatten, Unflatten, Identity": (
        lambda: nn.Sequential(nn.Linear(6, 6), nn.Identity(), nn.Flatten(0, -1),
                              nn.Unflatten(0, (4, 6))), _x(*VEC), _x(4, 6), nn.L1Loss()),
    "Conv1d+MaxPool1d": (lambda: nn.Sequential(nn.Conv1d(3, 4, 3, padding=1), nn.MaxPool1d(2),
                                               nn.Flatten()), _x(*SEQ), _x(2, 20), nn.MSELoss()),
    "Conv2d strided": (lambda: nn.Sequential(nn.Conv2d(3, 4, 3, stride=2, padding=1,
                                                       dilation=1, groups=1), nn.Flatten()),
                       _x(*IMG), _x(2, 64), nn.MSELoss()),
    "Conv2d groups": (lambda: nn.Sequential(nn.Conv2d(3, 6, 3, groups=3, padding="same",
                                                      padding_mode="reflect"), nn.Flatten()),
                      _x(*IMG), _x(2, 384), nn.MSELoss()),
    "ConvTranspose2d": (lambda: nn.Sequential(nn.ConvTranspose2d(3, 2, 3, stride=2,
                                                                 output_padding=1),
                                              nn.Flatten()),
                        _x(*IMG), _x(2, 2 * 18 * 18), nn.MSELoss()),
    "MaxPool2d": (lambda: nn.Sequential(nn.Conv2d(3, 4, 3), nn.MaxPool2d(3, 2, padding=1,
                                                                         ceil_mode=True),
                                        nn.Flatten()), _x(*IMG), _x(2, 64), nn.MSELoss()),
    "AvgPool2d": (lambda: nn.Sequential(nn.Conv2d(3, 4, 3), nn.AvgPool2d(2), nn.Flatten()),
                  _x(*IMG), _x(2, 36), nn.MSELoss()),
    "AdaptiveAvgPool2d": (lambda: nn.Sequential(nn.Conv2d(3, 4, 3), nn.AdaptiveAvgPool2d((2, 3)),
                                                nn.Flatten()), _x(*IMG), _x(2, 24), nn.MSELoss()),
    "AdaptiveMaxPool2d": (lambda: nn.Sequential(nn.Conv2d(3, 4, 3), nn.AdaptiveMaxPool2d((4, 3)),
                                                nn.Flatten()), _x(*IMG), _x(2, 48), nn.MSELoss()),
    "BatchNorm1d": (lambda: nn.Sequential(nn.Linear(6, 5), nn.BatchNorm1d(5)), _x(*VEC),
                    _x(4, 5), nn.MSELoss()),
    "BatchNorm2d": (lambda: nn.Sequential(nn.Conv2d(3, 4, 3), nn.BatchNorm2d(4), nn.ReLU(),
                                          nn.Flatten()), _x(*IMG), _x(2, 144), nn.MSELoss()),
    "LayerNorm": (lambda: nn.Sequential(nn.Linear(6, 5), nn.LayerNorm(5)), _x(*VEC), _x(4, 5),
                  nn.MSELoss()),
    "GroupNorm": (lambda: nn.Sequential(nn.Conv2d(3, 4, 3), nn.GroupNorm(2, 4), nn.Flatten()),
                  _x(*IMG), _x(2, 144), nn.MSELoss()),
    "InstanceNorm2d": (lambda: nn.Sequential(nn.Conv2d(3, 2, 3),
                                             nn.InstanceNorm2d(2, affine=True,
                                                               track_running_stats=True),
                                             nn.Flatten()), _x(*IMG), _x(2, 72), nn.MSELoss()),
    "Embedding": (lambda: nn.Sequential(nn.Embedding(10, 4, padding_idx=0), nn.Flatten()),
                  _k(10, 3, 5), _x(3, 20), nn.MSELoss()),
    "Embedding max_norm": (lambda: nn.Sequential(nn.Embedding(10, 4, max_norm=1.0),
                                                 nn.Flatten()),
                           _k(10, 3, 5), _x(3, 20), nn.MSELoss()),
    "Dropout": (lambda: nn.Sequential(nn.Linear(6, 5), nn.Dropout(0.3)), _x(*VEC), _x(4, 5),
                nn.MSELoss()),
    "Dropout2d": (lambda: nn.Sequential(nn.Conv2d(3, 4, 3), nn.Dropout2d(0.3), nn.Flatten()),
                  _x(*IMG), _x(2, 144), nn.MSELoss()),
    "Pads": (lambda: nn.Sequential(nn.Conv2d(3, 2, 3), nn.ZeroPad2d(1), nn.ReflectionPad2d(1),
                                   nn.ReplicationPad2d((1, 0, 0, 1)), nn.ConstantPad2d(1, 0.5),
                                   nn.Flatten()), _x(*IMG), _x(2, 2 * 13 * 13), nn.MSELoss()),
    "Upsample": (lambda: nn.Sequential(nn.Conv2d(3, 2, 3), nn.Upsample(scale_factor=2),
                                       nn.Flatten()), _x(*IMG), _x(2, 288), nn.MSELoss()),
    "CrossEntropyLoss": (lambda: nn.Linear(6, 5), _x(*VEC), _k(5, 4), nn.CrossEntropyLoss()),
    "CrossEntropyLoss weight ignore_index": (
        lambda: nn.Linear(6, 5), _x(*VEC), G.tensor([1, -100, 4, 1]),
        nn.CrossEntropyLoss(weight=_u(5))),
    "CrossEntropyLoss label_smoothing": (
        lambda: nn.Linear(6, 5), _x(*VEC), G.tensor([1, 2, 4, 2]),
        nn.CrossEntropyLoss(label_smoothing=0.1, ignore_index=2)),
    "CrossEntropyLoss probabilities": (lambda: nn.Linear(6, 5), _x(*VEC), _probs(4, 5),
                                       nn.CrossEntropyLoss(label_smoothing=0.2)),
    "CrossEntropyLoss 2-D": (lambda: nn.Conv2d(3, 4, 1), _x(*IMG), _k(4, 2, 8, 8),
                             nn.CrossEntropyLoss()),
    "NLLLoss": (lambda: nn.Sequential(nn.Linear(6, 5), nn.LogSoftmax(1)), _x(*VEC), _k(5, 4),
                nn.NLLLoss(reduction="sum")),
    "BCELoss": (lambda: nn.Sequential(nn.Linear(6, 5), nn.Sigmoid()), _x(*VEC), _u(4, 5),
                nn.BCELoss()),
    "BCEWithLogitsLoss": (lambda: nn.Linear(6, 5), _x(*VEC), _u(4, 5),
                          nn.BCEWithLogitsLoss(pos_weight=_u(5, seed=4))),
    "MSELoss": (lambda: nn.Linear(6, 5), _x(*VEC), _x(4, 5), nn.MSELoss(reduction="sum")),
    "L1Loss": (lambda: nn.Linear(6, 5), _x(*VEC), _x(4, 5), nn.L1Loss()),
    "HuberLoss": (lambda: nn.Linear(6, 5), _x(*VEC), _x(4, 5), nn.HuberLoss(delta=0.5)),
    "SmoothL1Loss": (lambda: nn.Linear(6, 5), _x(*VEC), _x(4, 5), nn.SmoothL1Loss()),
    "KLDivLoss": (lambda: nn.Sequential(nn.Linear(6, 5), nn.LogSoftmax(1)), _x(*VEC),
                  _probs(4, 5), nn.KLDivLoss(reduction="batchmean")),
}

ACTIVATIONS = {
    "ReLU": nn.ReLU, "LeakyReLU": lambda: nn.LeakyReLU(0.1), "PReLU": lambda: nn.PReLU(6),
    "GELU": nn.GELU, "GELU tanh": lambda: nn.GELU("tanh"), "SiLU": nn.SiLU, "Mish": nn.Mish,
    "Tanh": nn.Tanh, "Sigmoid": nn.Sigmoid, "Softmax": lambda: nn.Softmax(1),
    "LogSoftmax": lambda: nn.LogSoftmax(1), "Softmin": lambda: nn.Softmin(1), "ELU": nn.ELU,
    "CELU": nn.CELU, "SELU": nn.SELU, "Softplus": nn.Softplus, "Hardtanh": nn.Hardtanh,
    "ReLU6": nn.ReLU6, "Hardswish": nn.Hardswish, "Hardsigmoid": nn.Hardsigmoid,
    "Softsign": nn.Softsign, "Tanhshrink": nn.Tanhshrink, "Softshrink": nn.Softshrink,
    "Hardshrink": nn.Hardshrink, "LogSigmoid": nn.LogSigmoid,
    "Threshold": lambda: nn.Threshold(0.1, -1.0), "GLU": nn.GLU, "RReLU": nn.RReLU,
}
for _name, _make in ACTIVATIONS.items():
    CASES[_name] = (lambda make=_make: nn.Sequential(nn.Linear(6, 6), make()), _x(*VEC),
                    _x(4, 3 if _name == "GLU" else 6), nn.MSELoss())

# What a step still moves, and why: (downloads, uploads) per step.
EXPECTED = {
    # The generator is the host's (PyTorch's sequence for a seed): each mask is drawn there
    # and uploaded. (So the GPU's dropout equals the CPU's for the same seed.)
    "Dropout": (0, 1),
    "Dropout2d": (0, 1),
    # rrelu draws PyTorch's CPU stream only for the non-positive elements, in order, so the
    # host reads the sign mask back to know which (and how many) draws to make.
    "RReLU": (1, 1),
    # PyTorch's CPU kernel raises for inputs outside [0, 1]; gradrs checks on every device,
    # which reads one bool back (PyTorch's CUDA kernel asserts on the device instead).
    "BCELoss": (1, 0),
}


def _step(model, opt, crit, x, t):
    loss = crit(model(x), t)
    loss.backward()
    opt.step()
    opt.zero_grad()
    return loss


def _train(make, x, t, crit, device, steps=2, eval_mode=False, half=False):
    """Losses and final state of `steps` SGD steps; on the GPU, the transfers of the last."""
    G.manual_seed(0)
    model = make()
    if eval_mode:
        model.eval()
    crit = copy.deepcopy(crit)
    model.to(device)
    crit.to(device)
    if half:
        model.half()
        crit.half()
    x, t = x.to(device), t.to(device)
    if half and x.is_floating_point():
        x = x.half()
    if half and t.is_floating_point():
        t = t.half()
    opt = G.optim.SGD(model.parameters(), lr=0.1, momentum=0.9, weight_decay=1e-3)
    G.manual_seed(1)  # dropout masks: the same draws on both devices
    losses, moved = [], None
    for i in range(steps):
        if i == steps - 1 and device == "gpu":
            before = G.gpu.transfer_counts()
        losses.append(_step(model, opt, crit, x, t))
        if i == steps - 1 and device == "gpu":
            after = G.gpu.transfer_counts()
            moved = (after[0] - before[0], after[1] - before[1])
    losses = [loss.item() for loss in losses]
    state = {k: v.detach().cpu().float().numpy() for k, v in model.state_dict().items()}
    return losses, state, moved


def _compare(cpu, gpu, rtol=1e-4, atol=1e-5):
    np.testing.assert_allclose(gpu[0], cpu[0], rtol=rtol, atol=atol, err_msg="losses")
    assert cpu[1].keys() == gpu[1].keys()
    for k, v in cpu[1].items():
        np.testing.assert_allclose(gpu[1][k], v, rtol=rtol, atol=atol, err_msg=k)


@pytest.mark.parametrize("name", list(CASES))
def test_training_step_stays_on_gpu(name):
    make, x, t, crit = CASES[name]
    cpu = _train(make, x, t, crit, "cpu")
    gpu = _train(make, x, t, crit, "gpu")
    assert gpu[2] == EXPECTED.get(name, (0, 0)), f"(downloads, uploads) of a step: {gpu[2]}"
    _compare(cpu, gpu)


@pytest.mark.parametrize("name", ["BatchNorm1d", "BatchNorm2d", "InstanceNorm2d", "Dropout"])
def test_eval_mode_step_stays_on_gpu(name):
    """eval(): the norms use (and keep) their running statistics, dropout is the identity."""
    make, x, t, crit = CASES[name]
    cpu = _train(make, x, t, crit, "cpu", eval_mode=True)
    gpu = _train(make, x, t, crit, "gpu", eval_mode=True)
    assert gpu[2] == (0, 0)
    _compare(cpu, gpu)


def _cnn():
    return nn.Sequential(nn.Conv2d(3, 4, 3, padding=1), nn.BatchNorm2d(4), nn.ReLU(),
                         nn.MaxPool2d(2), nn.Conv2d(4, 4, 3), nn.GELU(), nn.Flatten(),
                         nn.Linear(16, 5))


def _mlp():
    return nn.Sequential(nn.Linear(6, 8), nn.LayerNorm(8), nn.SiLU(), nn.Linear(8, 5))


def _embed():
    return nn.Sequential(nn.Embedding(10, 4, padding_idx=0), nn.Flatten(), nn.Linear(20, 5))


HALF = {
    "cnn": (_cnn, _x(*IMG), _k(5, 2), nn.CrossEntropyLoss()),
    "mlp": (_mlp, _x(*VEC), _k(5, 4), nn.CrossEntropyLoss(label_smoothing=0.1)),
    "embedding": (_embed, _k(10, 3, 5), _k(5, 3), nn.CrossEntropyLoss()),
    "bce": (_mlp, _x(*VEC), _u(4, 5), nn.BCEWithLogitsLoss()),
}


@pytest.mark.parametrize("name", list(HALF))
def test_half_models_train_on_gpu(name):
    """.half() on the GPU: parameters, activations and gradients stay float16 and on the GPU,
    and the steps follow the float32 CPU run within float16's precision."""
    make, x, t, crit = HALF[name]
    cpu = _train(make, x, t, crit, "cpu")
    gpu = _train(make, x, t, crit, "gpu", half=True)
    assert gpu[2] == (0, 0)
    _compare(cpu, gpu, rtol=2e-2, atol=2e-2)
    G.manual_seed(0)
    model = make().to("gpu").half()
    out = model(x.to("gpu").half() if x.is_floating_point() else x.to("gpu"))
    assert out.dtype == G.float16 and out.device.type == "gpu"
    crit(out, t.to("gpu").half() if t.is_floating_point() else t.to("gpu")).backward()
    for p in model.parameters():
        assert p.grad.dtype == G.float16 and p.grad.device.type == "gpu"


def test_masks_indices_and_factories_stay_on_gpu():
    """What the layers above lean on: comparisons of int64 indices (with PyTorch's
    ignore_index -100, a NaN pattern as a float word), bool masks combined with & | ^ ~, and
    factories asked for the GPU, all made there with nothing moved."""
    scores = G.tensor(np.random.default_rng(5).standard_normal((6, 4)).astype(np.float32))
    gpu = scores.to("gpu") * 1  # a kernel's output: only the GPU holds it
    idx = gpu.argmax(1)
    ref = scores.argmax(1).numpy()
    before = G.gpu.transfer_counts()
    masks = [idx == 2, idx != -100, idx < 2, idx >= idx.flip(0)]
    m = gpu > 0
    combos = [m | (gpu < -1), m & (gpu < 1), m ^ (gpu < 0.5), ~m]
    made = [G.zeros(2, 3, device="gpu"), G.ones(4, dtype=G.bool, device="gpu"),
            G.full((3,), -100, device="gpu"), G.zeros_like(gpu), G.full_like(gpu, 0.5),
            G.empty(2, device="gpu")]
    assert G.gpu.transfer_counts() == before
    assert all(t.device.type == "gpu" for t in masks + combos + made)
    want = [ref == 2, ref != -100, ref < 2, ref >= ref[::-1]]
    for got, w in zip(masks, want):
        np.testing.assert_array_equal(got.cpu().numpy(), w)
    s = scores.numpy()
    for got, w in zip(combos, [(s > 0) | (s < -1), (s > 0) & (s < 1), (s > 0) ^ (s < 0.5),
                               ~(s > 0)]):
        np.testing.assert_array_equal(got.cpu().numpy(), w)
    assert made[2].dtype == G.int64 and made[2].tolist() == [-100] * 3
    assert made[1].tolist() == [True] * 4 and made[0].sum().item() == 0
    assert made[4].tolist() == [[0.5] * 4] * 6
    with pytest.raises(TypeError, match="float64"):
        G.zeros(2, dtype=G.float64, device="gpu")
