"""``tf.keras.optimizers.schedules``."""

from torchflow._src.keras.optimizers.schedules.learning_rate_schedule import (
    CosineDecay as CosineDecay,
)
from torchflow._src.keras.optimizers.schedules.learning_rate_schedule import (
    CosineDecayRestarts as CosineDecayRestarts,
)
from torchflow._src.keras.optimizers.schedules.learning_rate_schedule import (
    ExponentialDecay as ExponentialDecay,
)
from torchflow._src.keras.optimizers.schedules.learning_rate_schedule import (
    InverseTimeDecay as InverseTimeDecay,
)
from torchflow._src.keras.optimizers.schedules.learning_rate_schedule import (
    LearningRateSchedule as LearningRateSchedule,
)
from torchflow._src.keras.optimizers.schedules.learning_rate_schedule import (
    PiecewiseConstantDecay as PiecewiseConstantDecay,
)
from torchflow._src.keras.optimizers.schedules.learning_rate_schedule import (
    PolynomialDecay as PolynomialDecay,
)
from torchflow._src.keras.optimizers.schedules.learning_rate_schedule import (
    deserialize as deserialize,
)
from torchflow._src.keras.optimizers.schedules.learning_rate_schedule import serialize as serialize
