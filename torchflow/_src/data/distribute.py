"""Auto-sharding a dataset between the workers of a distribution strategy.

TF's rules for ``Options.experimental_distribute.auto_shard_policy``:

* ``OFF``: every worker gets the whole dataset.
* ``FILE``: the file names of the pipeline's file readers are sharded, so each
  worker reads ``1/num_workers`` of the files. Fewer files than workers is an
  error (a worker would get no data).
* ``DATA``: every worker reads everything and keeps elements ``index``,
  ``index + num_workers``, ... A dataset with a known number of elements
  smaller than the number of workers is an error.
* ``AUTO``: ``FILE`` when the pipeline reads files, else ``DATA``.
"""

from __future__ import annotations

import copy

from torchflow._src.core.errors import InvalidArgumentError, NotFoundError
from torchflow._src.data.dataset_ops import DatasetV2
from torchflow._src.data.options import AutoShardPolicy
from torchflow._src.data.readers import _FileDataset


def _readers(ds, found, seen):
    if id(ds) in seen:
        return
    seen.add(id(ds))
    if isinstance(ds, _FileDataset):
        found.append(ds)
        return
    for d in ds._inputs():
        _readers(d, found, seen)


def _rebuild(ds, replace: dict):
    """A shallow copy of the pipeline with readers swapped per ``replace``."""
    if id(ds) in replace:
        return replace[id(ds)]
    inputs = ds._inputs()
    if not inputs:
        return ds
    new = copy.copy(ds)
    new._spec_cache = None
    for name, value in list(vars(ds).items()):
        if isinstance(value, DatasetV2):
            setattr(new, name, _rebuild(value, replace))
        elif isinstance(value, list) and value and all(isinstance(v, DatasetV2) for v in value):
            setattr(new, name, [_rebuild(v, replace) for v in value])
    return new


def auto_shard_dataset(dataset, num_workers: int, index: int, policy=None):
    """The part of ``dataset`` worker ``index`` of ``num_workers`` should read.

    Args:
      dataset: The dataset to shard.
      num_workers: Number of input workers.
      index: This worker's index.
      policy: An ``AutoShardPolicy``; default: the dataset's options.

    Raises:
      InvalidArgumentError: If sharding would leave a worker without data.
      NotFoundError: ``FILE`` policy on a pipeline with no file reader.
    """
    num_workers, index = int(num_workers), int(index)
    if policy is None:
        policy = dataset.options().experimental_distribute.auto_shard_policy
    policy = AutoShardPolicy(policy)
    if policy == AutoShardPolicy.OFF or num_workers == 1:
        return dataset
    readers: list = []
    _readers(dataset, readers, set())
    if policy in (AutoShardPolicy.FILE, AutoShardPolicy.AUTO) and readers:
        replace = {}
        for r in readers:
            n = r._files._cardinality()
            if n >= 0 and n < num_workers:
                raise InvalidArgumentError(
                    None, None, f"There are {n} file(s) but {num_workers} workers: with the "
                    f"FILE auto-shard policy some workers would get no data. Use fewer "
                    f"workers, more files, or "
                    f"AutoShardPolicy.DATA / OFF.")
            replace[id(r)] = r._with_files(r._files.shard(num_workers, index))
        return _rebuild(dataset, replace)
    if policy == AutoShardPolicy.FILE:
        raise NotFoundError(None, None, "Found an unshardable source dataset: the FILE "
                            "auto-shard policy needs a file-based dataset (TFRecordDataset, "
                            "TextLineDataset, ...). Use AutoShardPolicy.DATA instead.")
    n = dataset._cardinality()
    if 0 <= n < num_workers:
        raise InvalidArgumentError(
            None, None, f"The dataset has {n} element(s) but {num_workers} workers: with the "
            f"DATA auto-shard policy some workers would get no data.")
    return dataset.shard(num_workers, index)
