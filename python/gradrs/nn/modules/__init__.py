"""`gradrs.nn.modules`: the layer classes, one file per family as in PyTorch."""

from .module import Module as Module
from .container import (
    Container as Container, ModuleDict as ModuleDict, ModuleList as ModuleList,
    ParameterDict as ParameterDict, ParameterList as ParameterList, Sequential as Sequential,
)
from .rnn import (
    GRU as GRU, GRUCell as GRUCell, LSTM as LSTM, LSTMCell as LSTMCell, RNN as RNN,
    RNNBase as RNNBase, RNNCell as RNNCell, RNNCellBase as RNNCellBase,
)
