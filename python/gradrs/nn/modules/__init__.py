"""`gradrs.nn.modules`: the layer classes, one file per family as in PyTorch."""

from .module import Module as Module
from .container import (
    Container as Container, ModuleDict as ModuleDict, ModuleList as ModuleList,
    ParameterDict as ParameterDict, ParameterList as ParameterList, Sequential as Sequential,
)
# Layers, activations and losses (one file per family, as PyTorch's).
from .adaptive import AdaptiveLogSoftmaxWithLoss as AdaptiveLogSoftmaxWithLoss
from .activation import (
    CELU as CELU, ELU as ELU, GELU as GELU, GLU as GLU, Hardshrink as Hardshrink,
    Hardsigmoid as Hardsigmoid, Hardswish as Hardswish, Hardtanh as Hardtanh,
    LeakyReLU as LeakyReLU, LogSigmoid as LogSigmoid, LogSoftmax as LogSoftmax, Mish as Mish,
    PReLU as PReLU, RReLU as RReLU, ReLU as ReLU, ReLU6 as ReLU6, SELU as SELU, SiLU as SiLU,
    Sigmoid as Sigmoid, Softmax as Softmax, Softmax2d as Softmax2d, Softmin as Softmin,
    Softplus as Softplus, Softshrink as Softshrink, Softsign as Softsign, Tanh as Tanh,
    Tanhshrink as Tanhshrink, Threshold as Threshold,
)
from .batchnorm import (
    BatchNorm1d as BatchNorm1d, BatchNorm2d as BatchNorm2d, BatchNorm3d as BatchNorm3d,
    LazyBatchNorm1d as LazyBatchNorm1d, LazyBatchNorm2d as LazyBatchNorm2d,
    LazyBatchNorm3d as LazyBatchNorm3d, SyncBatchNorm as SyncBatchNorm,
)
from .channelshuffle import (
    ChannelShuffle as ChannelShuffle,
)
from .conv import (
    Conv1d as Conv1d, Conv2d as Conv2d, Conv3d as Conv3d, ConvTranspose1d as ConvTranspose1d,
    ConvTranspose2d as ConvTranspose2d, LazyConv1d as LazyConv1d, LazyConv2d as LazyConv2d,
    LazyConv3d as LazyConv3d, LazyConvTranspose1d as LazyConvTranspose1d,
    LazyConvTranspose2d as LazyConvTranspose2d, ConvTranspose3d as ConvTranspose3d,
    LazyConvTranspose3d as LazyConvTranspose3d,
)
from .distance import (
    CosineSimilarity as CosineSimilarity, PairwiseDistance as PairwiseDistance,
)
from .dropout import (
    AlphaDropout as AlphaDropout, Dropout as Dropout, Dropout1d as Dropout1d,
    Dropout2d as Dropout2d, Dropout3d as Dropout3d, FeatureAlphaDropout as FeatureAlphaDropout,
)
from .flatten import (
    Flatten as Flatten, Unflatten as Unflatten,
)
from .fold import (
    Fold as Fold, Unfold as Unfold,
)
from .instancenorm import (
    InstanceNorm1d as InstanceNorm1d, InstanceNorm2d as InstanceNorm2d,
    InstanceNorm3d as InstanceNorm3d, LazyInstanceNorm1d as LazyInstanceNorm1d,
    LazyInstanceNorm2d as LazyInstanceNorm2d, LazyInstanceNorm3d as LazyInstanceNorm3d,
)
from .lazy import LazyModuleMixin as LazyModuleMixin
from .linear import (
    Bilinear as Bilinear, Identity as Identity, LazyLinear as LazyLinear, Linear as Linear,
)
from .loss import (
    BCELoss as BCELoss, BCEWithLogitsLoss as BCEWithLogitsLoss, CTCLoss as CTCLoss,
    CosineEmbeddingLoss as CosineEmbeddingLoss, CrossEntropyLoss as CrossEntropyLoss,
    GaussianNLLLoss as GaussianNLLLoss, HingeEmbeddingLoss as HingeEmbeddingLoss,
    HuberLoss as HuberLoss, KLDivLoss as KLDivLoss, L1Loss as L1Loss, MSELoss as MSELoss,
    MarginRankingLoss as MarginRankingLoss, MultiLabelMarginLoss as MultiLabelMarginLoss,
    MultiLabelSoftMarginLoss as MultiLabelSoftMarginLoss, MultiMarginLoss as MultiMarginLoss,
    NLLLoss as NLLLoss, NLLLoss2d as NLLLoss2d, LinearCrossEntropyLoss as LinearCrossEntropyLoss,
    PoissonNLLLoss as PoissonNLLLoss, SmoothL1Loss as SmoothL1Loss,
    SoftMarginLoss as SoftMarginLoss, TripletMarginLoss as TripletMarginLoss,
    TripletMarginWithDistanceLoss as TripletMarginWithDistanceLoss,
)
from .linear_cross_entropy_options import (
    LinearCrossEntropyOptions as LinearCrossEntropyOptions,
)
from .normalization import (
    GroupNorm as GroupNorm, LayerNorm as LayerNorm, LocalResponseNorm as LocalResponseNorm,
    RMSNorm as RMSNorm, CrossMapLRN2d as CrossMapLRN2d,
)
from .padding import (
    CircularPad1d as CircularPad1d, CircularPad2d as CircularPad2d,
    CircularPad3d as CircularPad3d, ConstantPad1d as ConstantPad1d,
    ConstantPad2d as ConstantPad2d, ConstantPad3d as ConstantPad3d,
    ReflectionPad1d as ReflectionPad1d, ReflectionPad2d as ReflectionPad2d,
    ReflectionPad3d as ReflectionPad3d, ReplicationPad1d as ReplicationPad1d,
    ReplicationPad2d as ReplicationPad2d, ReplicationPad3d as ReplicationPad3d,
    ZeroPad1d as ZeroPad1d, ZeroPad2d as ZeroPad2d, ZeroPad3d as ZeroPad3d,
)
from .pixelshuffle import (
    PixelShuffle as PixelShuffle, PixelUnshuffle as PixelUnshuffle,
)
from .pooling import (
    AdaptiveAvgPool1d as AdaptiveAvgPool1d, AdaptiveAvgPool2d as AdaptiveAvgPool2d,
    AdaptiveMaxPool1d as AdaptiveMaxPool1d, AdaptiveMaxPool2d as AdaptiveMaxPool2d,
    AvgPool1d as AvgPool1d, AvgPool2d as AvgPool2d, LPPool1d as LPPool1d, LPPool2d as LPPool2d,
    MaxPool1d as MaxPool1d, MaxPool2d as MaxPool2d, MaxUnpool1d as MaxUnpool1d,
    MaxUnpool2d as MaxUnpool2d, AdaptiveAvgPool3d as AdaptiveAvgPool3d,
    AdaptiveMaxPool3d as AdaptiveMaxPool3d, AvgPool3d as AvgPool3d, LPPool3d as LPPool3d,
    MaxPool3d as MaxPool3d, MaxUnpool3d as MaxUnpool3d,
    FractionalMaxPool2d as FractionalMaxPool2d, FractionalMaxPool3d as FractionalMaxPool3d,
)
from .sparse import (
    Embedding as Embedding, EmbeddingBag as EmbeddingBag,
)
from .upsampling import (
    Upsample as Upsample, UpsamplingBilinear2d as UpsamplingBilinear2d,
    UpsamplingNearest2d as UpsamplingNearest2d,
)
from .attention import (
    MultiheadAttention as MultiheadAttention,
)
from .rnn import (
    GRU as GRU, GRUCell as GRUCell, LSTM as LSTM, LSTMCell as LSTMCell, RNN as RNN,
    RNNBase as RNNBase, RNNCell as RNNCell, RNNCellBase as RNNCellBase,
)
from .transformer import (
    Transformer as Transformer, TransformerDecoder as TransformerDecoder,
    TransformerDecoderLayer as TransformerDecoderLayer, TransformerEncoder as TransformerEncoder,
    TransformerEncoderLayer as TransformerEncoderLayer,
)
