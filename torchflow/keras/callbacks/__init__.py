"""``tf.keras.callbacks``."""

# --- CALLBACKS ---
from torchflow._src.keras.callbacks.base_logger import BaseLogger as BaseLogger
from torchflow._src.keras.callbacks.callback import Callback as Callback
from torchflow._src.keras.callbacks.callback import CallbackList as CallbackList
from torchflow._src.keras.callbacks.csv_logger import CSVLogger as CSVLogger
from torchflow._src.keras.callbacks.early_stopping import EarlyStopping as EarlyStopping
from torchflow._src.keras.callbacks.history import History as History
from torchflow._src.keras.callbacks.lambda_callback import LambdaCallback as LambdaCallback
from torchflow._src.keras.callbacks.learning_rate_scheduler import (
    LearningRateScheduler as LearningRateScheduler,
)
from torchflow._src.keras.callbacks.model_checkpoint import ModelCheckpoint as ModelCheckpoint
from torchflow._src.keras.callbacks.progbar_logger import ProgbarLogger as ProgbarLogger
from torchflow._src.keras.callbacks.reduce_lr_on_plateau import (
    ReduceLROnPlateau as ReduceLROnPlateau,
)
from torchflow._src.keras.callbacks.remote_monitor import RemoteMonitor as RemoteMonitor
from torchflow._src.keras.callbacks.tensorboard import TensorBoard as TensorBoard
from torchflow._src.keras.callbacks.terminate_on_nan import TerminateOnNaN as TerminateOnNaN
from torchflow.keras.callbacks import experimental as experimental
# --- end CALLBACKS ---
