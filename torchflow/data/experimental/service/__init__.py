"""``tf.data.experimental.service``: input pipelines run by a dispatcher and workers."""

from torchflow._src.data.service.data_service_ops import distribute as distribute
from torchflow._src.data.service.data_service_ops import from_dataset_id as from_dataset_id
from torchflow._src.data.service.data_service_ops import register_dataset as register_dataset
from torchflow._src.data.service.server_lib import DispatcherConfig as DispatcherConfig
from torchflow._src.data.service.server_lib import DispatchServer as DispatchServer
from torchflow._src.data.service.server_lib import WorkerConfig as WorkerConfig
from torchflow._src.data.service.server_lib import WorkerServer as WorkerServer
