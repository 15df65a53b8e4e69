"""``tf.keras.layers``. Each family of layers has its own section below."""

from torchflow._src.keras.engine.base_layer import Layer as Layer
from torchflow._src.keras.engine.input_layer import Input as Input
from torchflow._src.keras.engine.input_layer import InputLayer as InputLayer
from torchflow._src.keras.engine.input_spec import InputSpec as InputSpec
from torchflow._src.keras.engine.tf_op_layer import TFOpLambda as TFOpLambda
from torchflow._src.keras.layers.activation.activation_layers import ELU as ELU
from torchflow._src.keras.layers.activation.activation_layers import LeakyReLU as LeakyReLU
from torchflow._src.keras.layers.activation.activation_layers import PReLU as PReLU
from torchflow._src.keras.layers.activation.activation_layers import ReLU as ReLU
from torchflow._src.keras.layers.activation.activation_layers import Softmax as Softmax
from torchflow._src.keras.layers.activation.activation_layers import (
    ThresholdedReLU as ThresholdedReLU,
)
from torchflow._src.keras.layers.attention.dense_attention import (
    AdditiveAttention as AdditiveAttention,
)
from torchflow._src.keras.layers.attention.dense_attention import Attention as Attention
from torchflow._src.keras.layers.attention.multi_head_attention import (
    MultiHeadAttention as MultiHeadAttention,
)
from torchflow._src.keras.layers.convolutional.base_conv import Conv1D as Conv1D
from torchflow._src.keras.layers.convolutional.base_conv import Conv2D as Conv2D
from torchflow._src.keras.layers.convolutional.base_conv import Conv3D as Conv3D
from torchflow._src.keras.layers.convolutional.base_conv import Convolution1D as Convolution1D
from torchflow._src.keras.layers.convolutional.base_conv import Convolution2D as Convolution2D
from torchflow._src.keras.layers.convolutional.base_conv import Convolution3D as Convolution3D
from torchflow._src.keras.layers.convolutional.conv_transpose import (
    Conv1DTranspose as Conv1DTranspose,
)
from torchflow._src.keras.layers.convolutional.conv_transpose import (
    Conv2DTranspose as Conv2DTranspose,
)
from torchflow._src.keras.layers.convolutional.conv_transpose import (
    Conv3DTranspose as Conv3DTranspose,
)
from torchflow._src.keras.layers.convolutional.conv_transpose import (
    Convolution1DTranspose as Convolution1DTranspose,
)
from torchflow._src.keras.layers.convolutional.conv_transpose import (
    Convolution2DTranspose as Convolution2DTranspose,
)
from torchflow._src.keras.layers.convolutional.conv_transpose import (
    Convolution3DTranspose as Convolution3DTranspose,
)
from torchflow._src.keras.layers.convolutional.separable_conv import (
    DepthwiseConv2D as DepthwiseConv2D,
)
from torchflow._src.keras.layers.convolutional.separable_conv import (
    SeparableConv1D as SeparableConv1D,
)
from torchflow._src.keras.layers.convolutional.separable_conv import (
    SeparableConv2D as SeparableConv2D,
)
from torchflow._src.keras.layers.convolutional.separable_conv import (
    SeparableConvolution1D as SeparableConvolution1D,
)
from torchflow._src.keras.layers.convolutional.separable_conv import (
    SeparableConvolution2D as SeparableConvolution2D,
)
from torchflow._src.keras.layers.core.activation import Activation as Activation

# --- LAYERSA ---
from torchflow._src.keras.layers.core.dense import Dense as Dense
from torchflow._src.keras.layers.core.dropout import Dropout as Dropout
from torchflow._src.keras.layers.core.dropout import SpatialDropout1D as SpatialDropout1D
from torchflow._src.keras.layers.core.dropout import SpatialDropout2D as SpatialDropout2D
from torchflow._src.keras.layers.core.dropout import SpatialDropout3D as SpatialDropout3D
from torchflow._src.keras.layers.core.lambda_layer import Lambda as Lambda
from torchflow._src.keras.layers.core.masking import (
    ActivityRegularization as ActivityRegularization,
)
from torchflow._src.keras.layers.core.masking import Masking as Masking
from torchflow._src.keras.layers.core.reshaping import Flatten as Flatten
from torchflow._src.keras.layers.core.reshaping import Permute as Permute
from torchflow._src.keras.layers.core.reshaping import RepeatVector as RepeatVector
from torchflow._src.keras.layers.core.reshaping import Reshape as Reshape
from torchflow._src.keras.layers.dense_features import DenseFeatures as DenseFeatures

# --- end LAYERSA ---
# --- LAYERSB ---
from torchflow._src.keras.layers.embeddings import Embedding as Embedding
from torchflow._src.keras.layers.locally_connected import (
    LocallyConnected1D as LocallyConnected1D,
)
from torchflow._src.keras.layers.locally_connected import (
    LocallyConnected2D as LocallyConnected2D,
)
from torchflow._src.keras.layers.merging.merging import Add as Add
from torchflow._src.keras.layers.merging.merging import Average as Average
from torchflow._src.keras.layers.merging.merging import Concatenate as Concatenate
from torchflow._src.keras.layers.merging.merging import Dot as Dot
from torchflow._src.keras.layers.merging.merging import Maximum as Maximum
from torchflow._src.keras.layers.merging.merging import Minimum as Minimum
from torchflow._src.keras.layers.merging.merging import Multiply as Multiply
from torchflow._src.keras.layers.merging.merging import Subtract as Subtract
from torchflow._src.keras.layers.merging.merging import add as add
from torchflow._src.keras.layers.merging.merging import average as average
from torchflow._src.keras.layers.merging.merging import concatenate as concatenate
from torchflow._src.keras.layers.merging.merging import dot as dot
from torchflow._src.keras.layers.merging.merging import maximum_ as maximum
from torchflow._src.keras.layers.merging.merging import minimum_ as minimum
from torchflow._src.keras.layers.merging.merging import multiply as multiply
from torchflow._src.keras.layers.merging.merging import subtract as subtract
from torchflow._src.keras.layers.noise.noise import AlphaDropout as AlphaDropout
from torchflow._src.keras.layers.noise.noise import GaussianDropout as GaussianDropout
from torchflow._src.keras.layers.noise.noise import GaussianNoise as GaussianNoise
from torchflow._src.keras.layers.normalization.batch_normalization import (
    BatchNormalization as BatchNormalization,
)
from torchflow._src.keras.layers.normalization.layer_normalization import (
    LayerNormalization as LayerNormalization,
)
from torchflow._src.keras.layers.pooling.global_pooling import (
    GlobalAveragePooling1D as GlobalAveragePooling1D,
)
from torchflow._src.keras.layers.pooling.global_pooling import (
    GlobalAveragePooling2D as GlobalAveragePooling2D,
)
from torchflow._src.keras.layers.pooling.global_pooling import (
    GlobalAveragePooling3D as GlobalAveragePooling3D,
)
from torchflow._src.keras.layers.pooling.global_pooling import GlobalAvgPool1D as GlobalAvgPool1D
from torchflow._src.keras.layers.pooling.global_pooling import GlobalAvgPool2D as GlobalAvgPool2D
from torchflow._src.keras.layers.pooling.global_pooling import GlobalAvgPool3D as GlobalAvgPool3D
from torchflow._src.keras.layers.pooling.global_pooling import GlobalMaxPool1D as GlobalMaxPool1D
from torchflow._src.keras.layers.pooling.global_pooling import GlobalMaxPool2D as GlobalMaxPool2D
from torchflow._src.keras.layers.pooling.global_pooling import GlobalMaxPool3D as GlobalMaxPool3D
from torchflow._src.keras.layers.pooling.global_pooling import (
    GlobalMaxPooling1D as GlobalMaxPooling1D,
)
from torchflow._src.keras.layers.pooling.global_pooling import (
    GlobalMaxPooling2D as GlobalMaxPooling2D,
)
from torchflow._src.keras.layers.pooling.global_pooling import (
    GlobalMaxPooling3D as GlobalMaxPooling3D,
)
from torchflow._src.keras.layers.pooling.pooling import AveragePooling1D as AveragePooling1D
from torchflow._src.keras.layers.pooling.pooling import AveragePooling2D as AveragePooling2D
from torchflow._src.keras.layers.pooling.pooling import AveragePooling3D as AveragePooling3D
from torchflow._src.keras.layers.pooling.pooling import AvgPool1D as AvgPool1D
from torchflow._src.keras.layers.pooling.pooling import AvgPool2D as AvgPool2D
from torchflow._src.keras.layers.pooling.pooling import AvgPool3D as AvgPool3D
from torchflow._src.keras.layers.pooling.pooling import MaxPool1D as MaxPool1D
from torchflow._src.keras.layers.pooling.pooling import MaxPool2D as MaxPool2D
from torchflow._src.keras.layers.pooling.pooling import MaxPool3D as MaxPool3D
from torchflow._src.keras.layers.pooling.pooling import MaxPooling1D as MaxPooling1D
from torchflow._src.keras.layers.pooling.pooling import MaxPooling2D as MaxPooling2D
from torchflow._src.keras.layers.pooling.pooling import MaxPooling3D as MaxPooling3D
from torchflow._src.keras.layers.reshaping.padding_cropping import Cropping1D as Cropping1D
from torchflow._src.keras.layers.reshaping.padding_cropping import Cropping2D as Cropping2D
from torchflow._src.keras.layers.reshaping.padding_cropping import Cropping3D as Cropping3D
from torchflow._src.keras.layers.reshaping.padding_cropping import ZeroPadding1D as ZeroPadding1D
from torchflow._src.keras.layers.reshaping.padding_cropping import ZeroPadding2D as ZeroPadding2D
from torchflow._src.keras.layers.reshaping.padding_cropping import ZeroPadding3D as ZeroPadding3D
from torchflow._src.keras.layers.reshaping.up_sampling import UpSampling1D as UpSampling1D
from torchflow._src.keras.layers.reshaping.up_sampling import UpSampling2D as UpSampling2D
from torchflow._src.keras.layers.reshaping.up_sampling import UpSampling3D as UpSampling3D
from torchflow._src.keras.layers.rnn.base_rnn import RNN as RNN
from torchflow._src.keras.layers.rnn.base_rnn import StackedRNNCells as StackedRNNCells
from torchflow._src.keras.layers.rnn.cells import AbstractRNNCell as AbstractRNNCell
from torchflow._src.keras.layers.rnn.cells import GRUCell as GRUCell
from torchflow._src.keras.layers.rnn.cells import LSTMCell as LSTMCell
from torchflow._src.keras.layers.rnn.cells import SimpleRNNCell as SimpleRNNCell
from torchflow._src.keras.layers.rnn.conv_lstm import ConvLSTM2D as ConvLSTM2D
from torchflow._src.keras.layers.rnn.recurrent import GRU as GRU
from torchflow._src.keras.layers.rnn.recurrent import LSTM as LSTM
from torchflow._src.keras.layers.rnn.recurrent import SimpleRNN as SimpleRNN
from torchflow._src.keras.layers.rnn.wrappers import Bidirectional as Bidirectional
from torchflow._src.keras.layers.rnn.wrappers import TimeDistributed as TimeDistributed
from torchflow._src.keras.layers.rnn.wrappers import Wrapper as Wrapper
from torchflow._src.keras.layers.serialization import deserialize as deserialize
from torchflow._src.keras.layers.serialization import serialize as serialize

# --- end LAYERSB ---
# --- PREPROC ---
from torchflow.keras.layers import experimental as experimental
# --- end PREPROC ---
