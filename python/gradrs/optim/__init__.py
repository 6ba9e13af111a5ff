"""gradrs.optim: PyTorch's optimizers and learning-rate schedulers, pure Python on tensor ops."""

from . import lr_scheduler, swa_utils
from ._adafactor import Adafactor
from ._muon import Muon
from ._stateless import swap_in_optimizer_params_and_state
from .adadelta import Adadelta
from .adagrad import Adagrad
from .adam import Adam
from .adamax import Adamax
from .adamw import AdamW
from .asgd import ASGD
from .lbfgs import LBFGS
from .nadam import NAdam
from .optimizer import Optimizer
from .radam import RAdam
from .rmsprop import RMSprop
from .rprop import Rprop
from .sgd import SGD

__all__ = [
    "Adafactor",
    "Adadelta",
    "Adagrad",
    "Adam",
    "Adamax",
    "AdamW",
    "ASGD",
    "LBFGS",
    "lr_scheduler",
    "Muon",
    "NAdam",
    "Optimizer",
    "RAdam",
    "RMSprop",
    "Rprop",
    "SGD",
    "swap_in_optimizer_params_and_state",
    "swa_utils",
]
