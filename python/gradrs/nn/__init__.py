"""`gradrs.nn`: neural-network building blocks (the functional API for now)."""

from . import functional as functional
from . import init as init
from . import utils as utils
from .modules.module import Module as Module
from .modules.container import (
    Container as Container, ModuleDict as ModuleDict, ModuleList as ModuleList,
    ParameterDict as ParameterDict, ParameterList as ParameterList, Sequential as Sequential,
)
from .modules import (  # layers, activations, losses
    AdaptiveAvgPool1d as AdaptiveAvgPool1d, AdaptiveAvgPool2d as AdaptiveAvgPool2d,
    AdaptiveMaxPool1d as AdaptiveMaxPool1d, AdaptiveMaxPool2d as AdaptiveMaxPool2d,
    AlphaDropout as AlphaDropout, AvgPool1d as AvgPool1d, AvgPool2d as AvgPool2d,
    BCELoss as BCELoss, BCEWithLogitsLoss as BCEWithLogitsLoss, BatchNorm1d as BatchNorm1d,
    CTCLoss as CTCLoss,
    BatchNorm2d as BatchNorm2d, BatchNorm3d as BatchNorm3d, Bilinear as Bilinear, CELU as CELU,
    ChannelShuffle as ChannelShuffle, LPPool1d as LPPool1d, LPPool2d as LPPool2d,
    MaxUnpool1d as MaxUnpool1d, MaxUnpool2d as MaxUnpool2d,
    CircularPad1d as CircularPad1d, CircularPad2d as CircularPad2d,
    CircularPad3d as CircularPad3d, ConstantPad1d as ConstantPad1d,
    ConstantPad2d as ConstantPad2d, ConstantPad3d as ConstantPad3d, Conv1d as Conv1d,
    Conv2d as Conv2d, Conv3d as Conv3d, ConvTranspose1d as ConvTranspose1d,
    ConvTranspose2d as ConvTranspose2d,
    CosineEmbeddingLoss as CosineEmbeddingLoss, CosineSimilarity as CosineSimilarity,
    CrossEntropyLoss as CrossEntropyLoss, Dropout as Dropout, Dropout1d as Dropout1d,
    Dropout2d as Dropout2d, Dropout3d as Dropout3d, ELU as ELU, Embedding as Embedding,
    EmbeddingBag as EmbeddingBag,
    FeatureAlphaDropout as FeatureAlphaDropout, Flatten as Flatten, Fold as Fold,
    GELU as GELU, GLU as GLU,
    GaussianNLLLoss as GaussianNLLLoss, GroupNorm as GroupNorm, Hardshrink as Hardshrink,
    Hardsigmoid as Hardsigmoid, Hardswish as Hardswish, Hardtanh as Hardtanh,
    HingeEmbeddingLoss as HingeEmbeddingLoss, HuberLoss as HuberLoss, Identity as Identity,
    InstanceNorm1d as InstanceNorm1d, InstanceNorm2d as InstanceNorm2d,
    InstanceNorm3d as InstanceNorm3d, KLDivLoss as KLDivLoss, L1Loss as L1Loss,
    LayerNorm as LayerNorm, LeakyReLU as LeakyReLU, Linear as Linear,
    LocalResponseNorm as LocalResponseNorm, LogSigmoid as LogSigmoid,
    LogSoftmax as LogSoftmax, MSELoss as MSELoss, MarginRankingLoss as MarginRankingLoss,
    MaxPool1d as MaxPool1d, MaxPool2d as MaxPool2d, Mish as Mish,
    MultiLabelMarginLoss as MultiLabelMarginLoss,
    MultiLabelSoftMarginLoss as MultiLabelSoftMarginLoss, MultiMarginLoss as MultiMarginLoss,
    NLLLoss as NLLLoss, PReLU as PReLU,
    PairwiseDistance as PairwiseDistance, PixelShuffle as PixelShuffle,
    PixelUnshuffle as PixelUnshuffle, PoissonNLLLoss as PoissonNLLLoss, RMSNorm as RMSNorm,
    RReLU as RReLU, ReLU as ReLU, ReLU6 as ReLU6, ReflectionPad1d as ReflectionPad1d,
    ReflectionPad2d as ReflectionPad2d, ReflectionPad3d as ReflectionPad3d,
    ReplicationPad1d as ReplicationPad1d, ReplicationPad2d as ReplicationPad2d,
    ReplicationPad3d as ReplicationPad3d, SELU as SELU, SiLU as SiLU, Sigmoid as Sigmoid,
    SmoothL1Loss as SmoothL1Loss, SoftMarginLoss as SoftMarginLoss, Softmax as Softmax,
    Softmax2d as Softmax2d, Softmin as Softmin, Softplus as Softplus, Softshrink as Softshrink,
    Softsign as Softsign, Tanh as Tanh, Tanhshrink as Tanhshrink, Threshold as Threshold,
    TripletMarginLoss as TripletMarginLoss,
    TripletMarginWithDistanceLoss as TripletMarginWithDistanceLoss, Unflatten as Unflatten,
    Unfold as Unfold,
    Upsample as Upsample, UpsamplingBilinear2d as UpsamplingBilinear2d,
    UpsamplingNearest2d as UpsamplingNearest2d, ZeroPad1d as ZeroPad1d, ZeroPad2d as ZeroPad2d,
    ZeroPad3d as ZeroPad3d,
)
from .modules import (  # recurrent layers, attention, transformers
    GRU as GRU, GRUCell as GRUCell, LSTM as LSTM, LSTMCell as LSTMCell,
    MultiheadAttention as MultiheadAttention, RNN as RNN, RNNBase as RNNBase,
    RNNCell as RNNCell, RNNCellBase as RNNCellBase, Transformer as Transformer,
    TransformerDecoder as TransformerDecoder, TransformerDecoderLayer as TransformerDecoderLayer,
    TransformerEncoder as TransformerEncoder, TransformerEncoderLayer as TransformerEncoderLayer,
)
from .modules import (  # lazy modules: shapes from the first input
    LazyBatchNorm1d as LazyBatchNorm1d, LazyBatchNorm2d as LazyBatchNorm2d,
    LazyBatchNorm3d as LazyBatchNorm3d, LazyConv1d as LazyConv1d, LazyConv2d as LazyConv2d,
    LazyConv3d as LazyConv3d, LazyConvTranspose1d as LazyConvTranspose1d,
    LazyConvTranspose2d as LazyConvTranspose2d, LazyInstanceNorm1d as LazyInstanceNorm1d,
    LazyInstanceNorm2d as LazyInstanceNorm2d, LazyInstanceNorm3d as LazyInstanceNorm3d,
    LazyLinear as LazyLinear,
)
from .modules import (  # 3-D layers
    AdaptiveAvgPool3d as AdaptiveAvgPool3d, AdaptiveMaxPool3d as AdaptiveMaxPool3d,
    AvgPool3d as AvgPool3d, ConvTranspose3d as ConvTranspose3d, LPPool3d as LPPool3d,
    LazyConvTranspose3d as LazyConvTranspose3d, MaxPool3d as MaxPool3d,
    MaxUnpool3d as MaxUnpool3d,
)
from .modules import (  # fractional max pooling, legacy names
    FractionalMaxPool2d as FractionalMaxPool2d, FractionalMaxPool3d as FractionalMaxPool3d,
    CrossMapLRN2d as CrossMapLRN2d, NLLLoss2d as NLLLoss2d,
    AdaptiveLogSoftmaxWithLoss as AdaptiveLogSoftmaxWithLoss, SyncBatchNorm as SyncBatchNorm,
    LinearCrossEntropyLoss as LinearCrossEntropyLoss,
    LinearCrossEntropyOptions as LinearCrossEntropyOptions,
)
from . import parallel as parallel
from . import attention as attention
from .parallel import DataParallel as DataParallel
from .modules.utils import factory_kwargs as factory_kwargs
from .parameter import Buffer as Buffer, Parameter as Parameter
from .parameter import (
    UninitializedBuffer as UninitializedBuffer, UninitializedParameter as UninitializedParameter,
)
