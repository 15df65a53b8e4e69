"""``tf.keras.experimental``."""

from torchflow._src.keras.layers.rnn.peephole_lstm_cell import PeepholeLSTMCell as PeepholeLSTMCell
from torchflow._src.keras.layers.sequence_features import (
    SequenceFeatures as SequenceFeatures,
)
from torchflow._src.keras.optimizers.schedules.learning_rate_schedule import (
    CosineDecay as CosineDecay,
)
from torchflow._src.keras.optimizers.schedules.learning_rate_schedule import (
    CosineDecayRestarts as CosineDecayRestarts,
)
from torchflow._src.keras.optimizers.schedules.learning_rate_schedule import (
    LinearCosineDecay as LinearCosineDecay,
)
from torchflow._src.keras.optimizers.schedules.learning_rate_schedule import (
    NoisyLinearCosineDecay as NoisyLinearCosineDecay,
)
from torchflow._src.keras.premade.linear import LinearModel as LinearModel
from torchflow._src.keras.premade.wide_deep import WideDeepModel as WideDeepModel
