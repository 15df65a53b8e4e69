"""``tf.data.experimental.make_batched_features_dataset``: batches of parsed Examples
read from TFRecord files."""

from __future__ import annotations

from torchflow._src.data.dataset_ops import AUTOTUNE
from torchflow._src.data.readers import TFRecordDataset, list_files
from torchflow._src.ops import parsing_ops
from torchflow._src.util.api import public


@public("torchflow.data.experimental")
def make_batched_features_dataset(file_pattern, batch_size, features, reader=None,
                                  label_key=None, reader_args=None, num_epochs=None,
                                  shuffle=True, shuffle_buffer_size=10000, shuffle_seed=None,
                                  prefetch_buffer_size=None, reader_num_threads=None,
                                  parser_num_threads=None, sloppy_ordering=False,
                                  drop_final_batch=False):
    """A dataset of ``parse_example`` dicts (or ``(features, label)``) batched from files.

    Args:
      file_pattern: File name(s) or glob pattern(s).
      batch_size: Examples per batch.
      features: The ``parse_example`` feature dict.
      reader: A dataset class taking a file name (default ``TFRecordDataset``).
      label_key: If given, that feature is popped and returned as the label.
      reader_args: Extra arguments for ``reader``.
      num_epochs: Passes over the files (None: forever).
      shuffle: Shuffle the files and the examples (buffer ``shuffle_buffer_size``).
      shuffle_seed: Seed for both shuffles.
      prefetch_buffer_size: Batches prefetched (default AUTOTUNE).
      reader_num_threads: Files read at once (default 1).
      parser_num_threads: Parallel parsing calls (default AUTOTUNE).
      sloppy_ordering: Let parallel reads return in completion order.
      drop_final_batch: Drop a last partial batch.

    Raises:
      ValueError: If ``label_key`` is not in ``features``.
    """
    if label_key is not None and label_key not in features:
        raise ValueError(f"The `label_key` provided ({label_key}) must be one of the "
                         f"`features` keys.")
    reader = reader or TFRecordDataset
    args = list(reader_args or [])
    files = list_files(file_pattern, shuffle, shuffle_seed)
    cycle = reader_num_threads or 1
    ds = files.interleave(lambda f: reader(f, *args), cycle_length=cycle,
                          num_parallel_calls=cycle if cycle > 1 else None,
                          deterministic=not sloppy_ordering)
    if num_epochs != 1:
        ds = ds.repeat(num_epochs)
    if shuffle:
        ds = ds.shuffle(shuffle_buffer_size, seed=shuffle_seed)
    ds = ds.batch(batch_size, drop_remainder=drop_final_batch)
    ds = ds.map(lambda s: parsing_ops.parse_example(s, features),
                num_parallel_calls=parser_num_threads or AUTOTUNE)
    if label_key is not None:
        ds = ds.map(lambda d: ({k: v for k, v in d.items() if k != label_key}, d[label_key]))
    return ds.prefetch(AUTOTUNE if prefetch_buffer_size is None else prefetch_buffer_size)
