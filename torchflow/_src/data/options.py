"""``tf.data.Options`` and its option groups (threading, distribute, optimization)."""

from __future__ import annotations

import enum

from torchflow._src.util.api import public


class _OptionsBase:
    """Options objects: declared attributes only; None means "not set"."""

    _fields: dict = {}

    def __init__(self, **kwargs):
        for k, v in self._fields.items():
            object.__setattr__(self, k, v() if callable(v) else v)
        for k, v in kwargs.items():
            setattr(self, k, v)

    def __setattr__(self, name, value):
        name = self._aliases.get(name, name) if hasattr(self, "_aliases") else name
        if name not in self._fields:
            raise AttributeError(f"Cannot set the property {name} on {type(self).__name__}.")
        object.__setattr__(self, name, value)

    def __getattr__(self, name):
        aliases = type(self).__dict__.get("_aliases", {})
        if name in aliases:
            return getattr(self, aliases[name])
        raise AttributeError(f"'{type(self).__name__}' object has no attribute '{name}'")

    def __eq__(self, other):
        return type(self) is type(other) and all(
            getattr(self, k) == getattr(other, k) for k in self._fields)

    def __ne__(self, other):
        return not self == other

    __hash__ = None  # type: ignore[assignment]

    def __repr__(self):
        set_ = ", ".join(f"{k}={getattr(self, k)!r}" for k in self._fields
                         if not isinstance(getattr(self, k), _OptionsBase)
                         and getattr(self, k) is not None)
        return f"{type(self).__name__}({set_})"

    def _merge_from(self, other) -> None:
        for k in self._fields:
            mine, theirs = getattr(self, k), getattr(other, k)
            if isinstance(mine, _OptionsBase):
                mine._merge_from(theirs)
            elif theirs is not None and theirs != self._default(k):
                object.__setattr__(self, k, theirs)

    def _default(self, k):
        v = self._fields[k]
        return None if callable(v) else v

    def _copy(self):
        new = type(self)()
        new._merge_from(self)
        for k in self._fields:
            v = getattr(self, k)
            if not isinstance(v, _OptionsBase):
                object.__setattr__(new, k, v)
        return new


@public("torchflow.data.experimental")
class AutoShardPolicy(enum.IntEnum):
    """How a distribution strategy splits a dataset between workers.

    * ``OFF``: no sharding; every worker sees every element.
    * ``AUTO``: ``FILE`` when the pipeline reads files, else ``DATA``.
    * ``FILE``: each worker reads its share of the input files (an error when
      there are fewer files than workers).
    * ``DATA``: each worker reads all data and keeps every N-th element.
    * ``HINT``: shard where ``tf.data.experimental.SHARD_HINT`` is placed
      (accepted; treated like ``DATA``).
    """

    OFF = -1
    AUTO = 0
    FILE = 1
    DATA = 2
    HINT = 3


@public("torchflow.data.experimental")
class ThreadingOptions(_OptionsBase):
    """Threading options of a dataset (``tf.data.Options().experimental_threading``).

    Attributes (None means "not set"):
      private_threadpool_size: int, the threads a parallel transformation
        (``map(num_parallel_calls=...)``, ``interleave``) may use; None: the
        number of CPUs.
      max_intra_op_parallelism: int, the intra-op parallelism TF 2.4 would use
        inside the dataset's ops; accepted (torch's intra-op thread count is
        process wide, so it is not changed per dataset).

    Args:
      **kwargs: Initial values of the options, by attribute name (TF 2.4's
        constructor takes none; setting the attributes afterwards is the same).

    Raises:
      AttributeError: For a name that is not one of these options.
    """

    _fields = {"max_intra_op_parallelism": None, "private_threadpool_size": None}


@public("torchflow.data.experimental")
class DistributeOptions(_OptionsBase):
    """Distribution options of a dataset (``tf.data.Options().experimental_distribute``).

    Attributes:
      auto_shard_policy: A ``tf.data.experimental.AutoShardPolicy``: how a
        multi-worker strategy splits the dataset between workers (default
        ``AUTO``).
      num_devices: int or None, the number of devices the dataset is attached
        to (set by the strategy; None when not set).

    Args:
      **kwargs: Initial values of the options, by attribute name (TF 2.4's
        constructor takes none; setting the attributes afterwards is the same).

    Raises:
      AttributeError: For a name that is not one of these options.
    """

    _fields = {"auto_shard_policy": AutoShardPolicy.AUTO, "num_devices": None}


@public("torchflow.data.experimental")
class MapVectorizationOptions(_OptionsBase):
    """Options of the map vectorization optimization (``optimization.map_vectorization``).

    Attributes (None means "not set", which is off):
      enabled: bool, run a ``map`` over ``from_tensor_slices`` on chunks of rows
        instead of one row at a time (see ``tf.data.experimental.OptimizationOptions``).
      use_choose_fastest: bool, TF 2.4 picks whichever of the plain and the
        vectorized pipeline is faster at run time; accepted, not used.

    Args:
      **kwargs: Initial values of the options, by attribute name (TF 2.4's
        constructor takes none; setting the attributes afterwards is the same).

    Raises:
      AttributeError: For a name that is not one of these options.
    """

    _fields = {"enabled": None, "use_choose_fastest": None}


@public("torchflow.data.experimental")
class OptimizationOptions(_OptionsBase):
    """Static optimization switches of a dataset (``tf.data.Options().experimental_optimization``).

    Attributes are bools or None ("not set", TF's default): ``apply_default_optimizations``,
    ``autotune``, ``autotune_buffers``, ``autotune_cpu_budget``, ``autotune_ram_budget``,
    the fusions (``map_fusion``, ``map_and_batch_fusion``, ``filter_fusion`` ...),
    ``map_parallelization``, ``noop_elimination``, ``parallel_batch``,
    ``shuffle_and_repeat_fusion`` and ``map_vectorization`` (a
    ``tf.data.experimental.MapVectorizationOptions``). They are accepted; torchflow
    runs pipelines as written, except that ``autotune`` switches AUTOTUNE's tuning on
    or off, and ``map_vectorization.enabled = True`` runs a ``map`` over
    ``from_tensor_slices`` on chunks of rows: off by default, since the function then
    sees chunks and runs more than once for some rows.

    Args:
      **kwargs: Initial values of the options, by attribute name (TF 2.4's
        constructor takes none; setting the attributes afterwards is the same).

    Raises:
      AttributeError: For a name that is not one of these options.
    """

    _fields = {
        "apply_default_optimizations": None, "autotune": None, "autotune_buffers": None,
        "autotune_cpu_budget": None, "autotune_ram_budget": None, "filter_fusion": None,
        "filter_with_random_uniform_fusion": None, "hoist_random_uniform": None,
        "map_and_batch_fusion": None, "map_and_filter_fusion": None, "map_fusion": None,
        "map_parallelization": None, "map_vectorization": MapVectorizationOptions,
        "noop_elimination": None, "parallel_batch": None, "reorder_data_discarding_ops": None,
        "shuffle_and_repeat_fusion": None, "inject_prefetch": None,
    }


@public("torchflow.data.experimental")
class StatsOptions(_OptionsBase):
    """Statistics options of a dataset (``tf.data.Options().experimental_stats``).

    Attributes (None means "not set"): ``aggregator`` (TF's
    ``StatsAggregator`` to collect into), ``prefix`` and
    ``counter_prefix`` (str, name prefixes of the statistics) and
    ``latency_all_edges`` (bool, record every transformation's latency). Accepted
    and kept with the dataset; torchflow collects no statistics.

    Args:
      **kwargs: Initial values of the options, by attribute name (TF 2.4's
        constructor takes none; setting the attributes afterwards is the same).

    Raises:
      AttributeError: For a name that is not one of these options.
    """

    _fields = {"aggregator": None, "counter_prefix": None, "latency_all_edges": None,
               "prefix": None}


@public("torchflow.data")
class Options(_OptionsBase):
    """Options for a dataset, set with ``dataset.with_options(options)``.

    >>> import torchflow as tf
    >>> o = tf.data.Options()
    >>> o.experimental_deterministic = False
    >>> o.experimental_distribute.auto_shard_policy = (
    ...     tf.data.experimental.AutoShardPolicy.DATA)
    >>> ds = tf.data.Dataset.range(4).with_options(o)
    >>> ds.options().experimental_deterministic
    False

    The newer spellings (``deterministic``, ``threading``, ``distribute``,
    ``optimization``, ``autotune``) name the same options.

    Attributes (None means "not set"):
      experimental_deterministic: bool, whether parallel transformations keep
        the input order (default: they do).
      experimental_distribute: A ``tf.data.experimental.DistributeOptions``.
      experimental_external_state_policy: TF's policy for checkpointing
        datasets whose functions use outside state; accepted.
      experimental_optimization: A ``tf.data.experimental.OptimizationOptions``.
      experimental_slack: bool, TF's slack on the final prefetch; accepted.
      experimental_stats: A ``tf.data.experimental.StatsOptions``.
      experimental_threading: A ``tf.data.experimental.ThreadingOptions``.

    Args:
      **kwargs: Initial values of the options, by attribute name (TF 2.4's
        constructor takes none; setting the attributes afterwards is the same).

    Raises:
      AttributeError: For a name that is not one of these options.
    """

    _fields = {
        "experimental_deterministic": None,
        "experimental_distribute": DistributeOptions,
        "experimental_external_state_policy": None,
        "experimental_optimization": OptimizationOptions,
        "experimental_slack": None,
        "experimental_stats": StatsOptions,
        "experimental_threading": ThreadingOptions,
    }
    _aliases = {
        "deterministic": "experimental_deterministic",
        "distribute": "experimental_distribute",
        "optimization": "experimental_optimization",
        "threading": "experimental_threading",
        "slack": "experimental_slack",
        "autotune": "experimental_optimization",
    }

    def merge(self, options) -> "Options":
        """A new Options with ``options``' set values taking precedence."""
        new = self._copy()
        if options is not None:
            new._merge_from(options)
        return new
