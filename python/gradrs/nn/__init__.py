"""`gradrs.nn`: neural-network building blocks (the functional API for now)."""

from . import functional as functional
from . import init as init
from . import utils as utils
from .modules.module import Module as Module
from .modules.container import (
    Container as Container, ModuleDict as ModuleDict, ModuleList as ModuleList,
    ParameterDict as ParameterDict, ParameterList as ParameterList, Sequential as Sequential,
)
from .modules import (  # recurrent layers
    GRU as GRU, GRUCell as GRUCell, LSTM as LSTM, LSTMCell as LSTMCell, RNN as RNN,
    RNNBase as RNNBase, RNNCell as RNNCell, RNNCellBase as RNNCellBase,
)
from .parameter import Buffer as Buffer, Parameter as Parameter
