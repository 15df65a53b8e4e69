"""``tf.distribute.experimental``."""

from torchflow._src.distribute.communication_options import (
    CollectiveCommunication as CollectiveCommunication,
)
from torchflow._src.distribute.communication_options import CollectiveHints as CollectiveHints
from torchflow._src.distribute.communication_options import (
    CommunicationImplementation as CommunicationImplementation,
)
from torchflow._src.distribute.communication_options import (
    CommunicationOptions as CommunicationOptions,
)
from torchflow._src.distribute.input_options import ValueContext as ValueContext
from torchflow._src.distribute.mirrored_strategy import (
    CentralStorageStrategy as CentralStorageStrategy,
)
from torchflow._src.distribute.multi_worker_mirrored import (
    _ExperimentalMultiWorkerMirroredStrategy as MultiWorkerMirroredStrategy,
)
from torchflow._src.distribute.parameter_server_strategy import (
    ParameterServerStrategy as ParameterServerStrategy,
)
from torchflow.distribute.experimental import coordinator as coordinator
from torchflow.distribute.experimental import partitioners as partitioners
