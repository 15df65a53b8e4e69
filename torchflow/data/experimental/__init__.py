"""``tf.data.experimental``."""

from torchflow._src.data.csv_dataset import CsvDataset as CsvDataset
from torchflow._src.data.csv_dataset import make_csv_dataset as make_csv_dataset
from torchflow._src.data.dataset_ops import AUTOTUNE as AUTOTUNE
from torchflow._src.data.dataset_ops import INFINITE as INFINITE_CARDINALITY
from torchflow._src.data.dataset_ops import UNKNOWN as UNKNOWN_CARDINALITY
from torchflow._src.data.experimental import assert_cardinality as assert_cardinality
from torchflow._src.data.experimental import bucket_by_sequence_length as bucket_by_sequence_length
from torchflow._src.data.experimental import cardinality as cardinality
from torchflow._src.data.experimental import choose_from_datasets as choose_from_datasets
from torchflow._src.data.experimental import enumerate_dataset as enumerate_dataset
from torchflow._src.data.experimental import get_single_element as get_single_element
from torchflow._src.data.experimental import group_by_window as group_by_window
from torchflow._src.data.experimental import ignore_errors as ignore_errors
from torchflow._src.data.experimental import sample_from_datasets as sample_from_datasets
from torchflow._src.data.experimental import shuffle_and_repeat as shuffle_and_repeat
from torchflow._src.data.experimental import unbatch as unbatch
from torchflow._src.data.experimental_ops import Counter as Counter
from torchflow._src.data.experimental_ops import RandomDataset as RandomDataset
from torchflow._src.data.experimental_ops import Reducer as Reducer
from torchflow._src.data.experimental_ops import TFRecordWriter as TFRecordWriter
from torchflow._src.data.experimental_ops import copy_to_device as copy_to_device
from torchflow._src.data.experimental_ops import get_next_as_optional as get_next_as_optional
from torchflow._src.data.experimental_ops import get_structure as get_structure
from torchflow._src.data.experimental_ops import group_by_reducer as group_by_reducer
from torchflow._src.data.experimental_ops import load as load
from torchflow._src.data.experimental_ops import map_and_batch as map_and_batch
from torchflow._src.data.experimental_ops import parallel_interleave as parallel_interleave
from torchflow._src.data.experimental_ops import parse_example_dataset as parse_example_dataset
from torchflow._src.data.experimental_ops import prefetch_to_device as prefetch_to_device
from torchflow._src.data.experimental_ops import save as save
from torchflow._src.data.experimental_ops import scan as scan
from torchflow._src.data.experimental_ops import snapshot as snapshot
from torchflow._src.data.experimental_ops import take_while as take_while
from torchflow._src.data.experimental_ops import unique as unique
from torchflow._src.data.features_dataset import (
    make_batched_features_dataset as make_batched_features_dataset,
)
from torchflow._src.data.iterator_ops import Optional as Optional
from torchflow._src.data.options import AutoShardPolicy as AutoShardPolicy
from torchflow._src.data.options import DistributeOptions as DistributeOptions
from torchflow._src.data.options import MapVectorizationOptions as MapVectorizationOptions
from torchflow._src.data.options import OptimizationOptions as OptimizationOptions
from torchflow._src.data.options import StatsOptions as StatsOptions
from torchflow._src.data.options import ThreadingOptions as ThreadingOptions
from torchflow._src.data.ragged_batching import dense_to_ragged_batch as dense_to_ragged_batch
from torchflow._src.data.readers import TFRecordDataset as TFRecordDataset
from torchflow._src.data.resampling import rejection_resample as rejection_resample
from torchflow._src.data.sparse_batching import dense_to_sparse_batch as dense_to_sparse_batch
from torchflow._src.data.sql_dataset import SqlDataset as SqlDataset
from torchflow._src.data.stats_ops import StatsAggregator as StatsAggregator
from torchflow._src.data.stats_ops import bytes_produced_stats as bytes_produced_stats
from torchflow._src.data.stats_ops import latency_stats as latency_stats
from torchflow._src.data.variant_ops import from_variant as from_variant
from torchflow._src.data.variant_ops import to_variant as to_variant
from torchflow.data.experimental import service as service
