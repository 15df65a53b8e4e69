"""``tf.distribute.cluster_resolver``: where the tasks of a cluster are and who we are.

``TFConfigClusterResolver`` reads the ``TF_CONFIG`` environment variable, a JSON
object such as::

    {"cluster": {"chief": ["host0:2222"], "worker": ["host1:2222", "host2:2222"]},
     "task": {"type": "worker", "index": 0},
     "rpc_layer": "grpc", "environment": "cloud"}

When ``TF_CONFIG`` has no ``"cluster"`` and torchrun's variables are set
(``RANK``, ``WORLD_SIZE``, ``MASTER_ADDR``, ``MASTER_PORT``; ``LOCAL_RANK``), the
cluster is read from them instead: ``WORLD_SIZE`` tasks of job ``worker``, this
process being task ``RANK``. torchrun does not publish the addresses of ranks
other than 0, so those tasks are listed with the placeholder address
``"torchrun-rank-<i>"``; task 0's is ``MASTER_ADDR:MASTER_PORT``.
"""

from __future__ import annotations

import abc
import collections
import json
import os

from torchflow._src.core import config
from torchflow._src.distribute.cluster_spec import ClusterSpec
from torchflow._src.util.api import public

_TF_CONFIG_ENV = "TF_CONFIG"
_TORCHRUN_VARS = ("RANK", "WORLD_SIZE")


def format_master_url(master, rpc_layer=None):
    """``rpc_layer://master``, or ``master`` when there is no rpc layer."""
    return f"{rpc_layer}://{master}" if rpc_layer else master


def _load_tf_config() -> dict:
    text = os.environ.get(_TF_CONFIG_ENV, "") or "{}"
    try:
        value = json.loads(text)
    except json.JSONDecodeError as e:
        raise ValueError(f"TF_CONFIG is not valid JSON ({e}). Received: TF_CONFIG={text!r}") \
            from None
    if not isinstance(value, dict):
        raise ValueError(f"TF_CONFIG must be a JSON object. Received: TF_CONFIG={text!r}")
    return value


def _torchrun_env() -> dict | None:
    """torchrun's ``RANK``/``WORLD_SIZE``/``MASTER_*``/``LOCAL_RANK``, or None if unset."""
    if not all(os.environ.get(v) for v in _TORCHRUN_VARS):
        return None
    try:
        rank, world = int(os.environ["RANK"]), int(os.environ["WORLD_SIZE"])
        local_rank = int(os.environ.get("LOCAL_RANK", "0") or 0)
        port = int(os.environ.get("MASTER_PORT", "29500") or 29500)
    except ValueError:
        raise ValueError("torchrun's RANK, WORLD_SIZE, LOCAL_RANK and MASTER_PORT must be "
                         f"integers. Received: RANK={os.environ.get('RANK')!r}, WORLD_SIZE="
                         f"{os.environ.get('WORLD_SIZE')!r}") from None
    if not 0 <= rank < world:
        raise ValueError(f"RANK must be in [0, WORLD_SIZE). Received: RANK={rank}, "
                         f"WORLD_SIZE={world}")
    return {"rank": rank, "world_size": world, "local_rank": local_rank,
            "master_addr": os.environ.get("MASTER_ADDR", "127.0.0.1") or "127.0.0.1",
            "master_port": port}


def _torchrun_cluster(env: dict) -> dict:
    master = f"{env['master_addr']}:{env['master_port']}"
    return {"worker": [master] + [f"torchrun-rank-{i}" for i in range(1, env["world_size"])]}


@public("torchflow.distribute.cluster_resolver")
class ClusterResolver(abc.ABC):
    """Abstract class for all implementations of ClusterResolvers.

    A cluster resolver tells a distribution strategy the cluster's tasks
    (``cluster_spec()``), this process's role (``task_type``, ``task_id``), the
    RPC protocol (``rpc_layer``) and the accelerators per task.
    """

    @abc.abstractmethod
    def cluster_spec(self):
        """Retrieves the current state of the cluster and returns a ``ClusterSpec``."""
        raise NotImplementedError()

    @abc.abstractmethod
    def master(self, task_type=None, task_id=None, rpc_layer=None):
        """The address of the master (TF 1.x sessions); see subclasses."""
        raise NotImplementedError()

    def num_accelerators(self, task_type=None, task_id=None, config_proto=None):
        """The number of accelerator cores per worker, as ``{"GPU": n}``.

        Counts this process's logical GPUs (empty when there are none). The
        arguments are accepted for TF's signature; other tasks are not queried.

        Raises:
          ValueError: As TF does, if ``master(task_type, task_id)`` cannot be
            resolved.
        """
        del config_proto
        self.master(task_type, task_id)  # TF resolves the task's master first
        mapping = collections.defaultdict(int)
        n = len(config.list_logical_devices("GPU"))
        if n:
            mapping["GPU"] = n
        return mapping

    @property
    def environment(self):
        """The environment TensorFlow runs in (``""`` in the open-source world)."""
        return ""

    @property
    def task_type(self):
        """This task's job name (``"worker"``, ``"chief"``, ...), or None."""
        return getattr(self, "_task_type", None)

    @task_type.setter
    def task_type(self, task_type):
        self._task_type = task_type

    @property
    def task_id(self):
        """This task's index in its job, or None."""
        return getattr(self, "_task_id", None)

    @task_id.setter
    def task_id(self, task_id):
        self._task_id = task_id

    @property
    def rpc_layer(self):
        """The RPC protocol (e.g. ``"grpc"``), or None."""
        return getattr(self, "_rpc_layer", None)

    @rpc_layer.setter
    def rpc_layer(self, rpc_layer):
        self._rpc_layer = rpc_layer


@public("torchflow.distribute.cluster_resolver")
class SimpleClusterResolver(ClusterResolver):
    """A cluster resolver that returns what it was given.

    Args:
      cluster_spec: A ``tf.train.ClusterSpec``.
      master: The master address (a string).
      task_type: This task's job name.
      task_id: This task's index.
      environment: The environment string.
      num_accelerators: A dict such as ``{"GPU": 2}`` (default ``{}``).
      rpc_layer: The RPC protocol.

    Raises:
      TypeError: If ``cluster_spec`` is not a ``ClusterSpec`` or ``master`` not a string.
    """

    def __init__(self, cluster_spec, master="", task_type=None, task_id=None,
                 environment="", num_accelerators=None, rpc_layer=None):
        self._task_type = task_type
        self._task_id = task_id
        self._environment = environment
        self._num_accelerators = num_accelerators
        self._rpc_layer = rpc_layer
        if not isinstance(cluster_spec, ClusterSpec):
            raise TypeError("cluster_spec must be a `tf.train.ClusterSpec`.")
        self._cluster_spec = cluster_spec
        if not isinstance(master, str):
            raise TypeError("master must be a string.")
        self._master = master

    def cluster_spec(self):
        """Returns the ClusterSpec passed into the constructor."""
        return self._cluster_spec

    def master(self, task_type=None, task_id=None, rpc_layer=None):
        """The given ``master``, or task ``task_type:task_id``'s address if both given."""
        if task_type is not None and task_id is not None:
            master = self.cluster_spec().task_address(task_type, task_id)
        else:
            master = self._master
        return format_master_url(master, rpc_layer=rpc_layer or self._rpc_layer)

    @property
    def task_type(self):
        return self._task_type

    @task_type.setter
    def task_type(self, task_type):
        self._task_type = task_type

    @property
    def task_id(self):
        return self._task_id

    @task_id.setter
    def task_id(self, task_id):
        self._task_id = task_id

    @property
    def environment(self):
        return self._environment

    def num_accelerators(self, task_type=None, task_id=None, config_proto=None):
        """The ``num_accelerators`` given to the constructor (``{}`` if None)."""
        del task_type, task_id, config_proto
        return {} if self._num_accelerators is None else self._num_accelerators

    @property
    def rpc_layer(self):
        return self._rpc_layer

    @rpc_layer.setter
    def rpc_layer(self, rpc_layer):
        self._rpc_layer = rpc_layer


@public("torchflow.distribute.cluster_resolver")
class TFConfigClusterResolver(ClusterResolver):
    """Reads the cluster from the ``TF_CONFIG`` environment variable.

    ``TF_CONFIG`` is read again on every call, so changes to it are seen. When
    it has no ``"cluster"``, torchrun's ``RANK``/``WORLD_SIZE``/``MASTER_ADDR``/
    ``MASTER_PORT`` describe a cluster of ``worker`` tasks (see the module
    docstring).

    Args:
      task_type: Overrides the task type in ``TF_CONFIG``.
      task_id: Overrides the task index in ``TF_CONFIG``.
      rpc_layer: Overrides the rpc layer in ``TF_CONFIG``.
      environment: Overrides the environment.

    Raises:
      ValueError: (from the methods) If ``TF_CONFIG`` is not a JSON object.

    >>> import os, json, torchflow as tf
    >>> os.environ["TF_CONFIG"] = json.dumps({"cluster": {"worker": ["a:1", "b:2"]},
    ...                                       "task": {"type": "worker", "index": 1}})
    >>> r = tf.distribute.cluster_resolver.TFConfigClusterResolver()
    >>> r.task_type, r.task_id, r.master()
    ('worker', 1, 'b:2')
    >>> del os.environ["TF_CONFIG"]
    """

    def __init__(self, task_type=None, task_id=None, rpc_layer=None, environment=None):
        self._task_type = task_type
        self._task_id = task_id
        self._rpc_layer = rpc_layer
        self._environment = environment

    def _torchrun(self) -> dict | None:
        """torchrun's variables, when they describe the cluster (no TF_CONFIG cluster)."""
        if "cluster" in _load_tf_config():
            return None
        return _torchrun_env()

    @property
    def task_type(self):
        if self._task_type is not None:
            return str(self._task_type)
        task = _load_tf_config().get("task", {})
        if "type" in task:
            return str(task["type"])
        return "worker" if self._torchrun() is not None else None

    @task_type.setter
    def task_type(self, task_type):
        self._task_type = task_type

    @property
    def task_id(self):
        if self._task_id is not None:
            return int(self._task_id)
        task = _load_tf_config().get("task", {})
        if "index" in task:
            return int(task["index"])
        env = self._torchrun()
        return env["rank"] if env is not None else None

    @task_id.setter
    def task_id(self, task_id):
        self._task_id = task_id

    @property
    def environment(self):
        return self._environment

    @property
    def rpc_layer(self):
        if self._rpc_layer is None:
            return _load_tf_config().get("rpc_layer")
        return self._rpc_layer

    @rpc_layer.setter
    def rpc_layer(self, rpc_layer):
        self._rpc_layer = rpc_layer

    def num_accelerators(self, task_type=None, task_id=None, config_proto=None):
        task_type = self.task_type if task_type is None else task_type
        task_id = self.task_id if task_id is None else task_id
        return super().num_accelerators(task_type, task_id, config_proto)

    def cluster_spec(self):
        """A ``ClusterSpec`` from ``TF_CONFIG`` (or torchrun's variables; else empty)."""
        tf_config = _load_tf_config()
        if "cluster" in tf_config:
            return ClusterSpec(tf_config["cluster"])
        env = _torchrun_env()
        return ClusterSpec(_torchrun_cluster(env)) if env is not None else ClusterSpec({})

    def master(self, task_type=None, task_id=None, rpc_layer=None):
        """The address of task ``task_type:task_id`` (default: this task).

        ``TF_CONFIG``'s ``session_master`` wins when set; ``""`` for a cluster
        of one task.

        Raises:
          ValueError: If the task is not in the cluster.
        """
        session_master = _load_tf_config().get("session_master")
        if session_master is not None:
            return session_master
        spec = self.cluster_spec()
        if not spec.jobs or (len(spec.jobs) == 1 and len(spec.job_tasks(spec.jobs[0])) == 1):
            return ""
        task_type = task_type if task_type is not None else self.task_type
        task_id = task_id if task_id is not None else self.task_id
        rpc_layer = rpc_layer if rpc_layer is not None else self.rpc_layer
        return format_master_url(spec.task_address(task_type, task_id), rpc_layer)


@public("torchflow.distribute.cluster_resolver")
class UnionResolver(ClusterResolver):
    """The union of several cluster resolvers' cluster specs.

    Task type, id, rpc layer and environment come from the first resolver.

    Args:
      *args: ``ClusterResolver`` instances.
      rpc_layer: Overrides the rpc layer.
      task_type: Overrides the task type.
      task_id: Overrides the task id.

    Raises:
      ValueError: With no resolver, or unexpected keyword arguments.
      TypeError: If an argument is not a ``ClusterResolver``.
      KeyError: (``cluster_spec``) If two resolvers list the same task of a sparse job.
    """

    def __init__(self, *args, **kwargs):
        self._rpc_layer = kwargs.pop("rpc_layer", None)
        self._task_type = kwargs.pop("task_type", None)
        self._task_id = kwargs.pop("task_id", None)
        if kwargs:
            raise ValueError(f"Unexpected kwargs provided {kwargs!r}")
        if not args:
            raise ValueError("At least one ClusterResolver is required.")
        for r in args:
            if not isinstance(r, ClusterResolver):
                raise TypeError("All arguments must be a sub-class of `ClusterResolver.`")
        self._cluster_resolvers = args

    def cluster_spec(self):
        """The merged ``ClusterSpec``: dense jobs are concatenated, sparse ones merged."""
        specs = [r.cluster_spec().as_dict() for r in self._cluster_resolvers]
        # A job stays a list only if every resolver lists it densely.
        merged: dict = {}
        for spec in specs:
            for job, tasks in spec.items():
                if isinstance(tasks, dict) or job not in merged:
                    merged[job] = {} if isinstance(tasks, dict) else []
        for spec in specs:
            for job, tasks in spec.items():
                cur = merged[job]
                if isinstance(cur, list):
                    cur.extend(tasks)
                    continue
                new = dict(enumerate(tasks)) if isinstance(tasks, list) else dict(tasks)
                dup = set(new) & set(cur)
                if dup:
                    raise KeyError("Duplicate keys detected when merging two "
                                   f"ClusterSpecs: {dup!r}")
                cur.update(new)
        return ClusterSpec(merged)

    def master(self, task_type=None, task_id=None, rpc_layer=None):
        """The address of task ``task_type:task_id`` in the union, else the first's master."""
        if task_type is not None and task_id is not None:
            master = self.cluster_spec().task_address(task_type, task_id)
            return format_master_url(master, rpc_layer or self._rpc_layer)
        return self._cluster_resolvers[0].master(rpc_layer=rpc_layer)

    @property
    def task_type(self):
        return self._task_type or self._cluster_resolvers[0].task_type

    @task_type.setter
    def task_type(self, task_type):
        self._task_type = task_type

    @property
    def task_id(self):
        return self._task_id or self._cluster_resolvers[0].task_id

    @task_id.setter
    def task_id(self, task_id):
        self._task_id = task_id

    @property
    def environment(self):
        return self._cluster_resolvers[0].environment

    def num_accelerators(self, task_type=None, task_id=None, config_proto=None):
        return self._cluster_resolvers[0].num_accelerators(task_type, task_id, config_proto)

    @property
    def rpc_layer(self):
        return self._rpc_layer or self._cluster_resolvers[0].rpc_layer

    @rpc_layer.setter
    def rpc_layer(self, rpc_layer):
        self._rpc_layer = rpc_layer
