"""``tf.train.ClusterSpec``: the jobs of a cluster and the addresses of their tasks.

A cluster is a mapping ``{job name: tasks}``; the tasks of a job are a list of
addresses (task index = position) or a dict ``{task index: address}`` for a
sparse job. ``TF_CONFIG``'s ``"cluster"`` entry is such a mapping.
"""

from __future__ import annotations

from torchflow._src.core.proto import tf_cluster_pb2
from torchflow._src.util.api import public


def _is_cluster_def(value) -> bool:
    """Whether ``value`` is a ``tensorflow.ClusterDef`` message: torchflow's own, or
    a same-named copy of TF's schema (TensorBoard's, a real TensorFlow's)."""
    desc = getattr(value, "DESCRIPTOR", None)
    return getattr(desc, "name", None) == "ClusterDef" and hasattr(value, "job")


def _text(value) -> str:
    return value.decode("utf-8") if isinstance(value, bytes) else value


@public("torchflow.train")
class ClusterSpec:
    """Represents a cluster as a set of "tasks", organized into "jobs".

    Args:
      cluster: A dictionary mapping one or more job names to (i) a list of
        network addresses, or (ii) a dictionary mapping integer task indices to
        network addresses; or a ``tf.train.ClusterDef`` protocol buffer; or
        another ``ClusterSpec``.

    Raises:
      TypeError: If ``cluster`` is not a dictionary mapping strings to lists
        (or dicts) of strings, not a ``ClusterDef`` and not a ``ClusterSpec``.

    >>> import torchflow as tf
    >>> spec = tf.train.ClusterSpec({"worker": ["w0:2222", "w1:2222"], "ps": ["p0:2222"]})
    >>> spec.num_tasks("worker"), spec.task_address("ps", 0)
    (2, 'p0:2222')
    """

    def __init__(self, cluster):
        if isinstance(cluster, ClusterSpec):
            # TF rebuilds from the ClusterDef, whose jobs are sorted by name.
            cluster = cluster.as_cluster_def()
        if _is_cluster_def(cluster):
            # As TF: the jobs in the proto's order, each job's tasks as its map holds them.
            self._cluster_spec = {}
            for job_def in cluster.job:
                self._cluster_spec[job_def.name] = {i: t for i, t in job_def.tasks.items()}
            return
        if not isinstance(cluster, dict):
            raise TypeError("`cluster` must be a dictionary mapping one or more job names to "
                            "lists of network addresses, or a `ClusterDef` protocol buffer")
        spec = {}
        for job_name, tasks in cluster.items():
            if isinstance(tasks, (list, tuple)):
                job_tasks = dict(enumerate(tasks))
            elif isinstance(tasks, dict):
                job_tasks = {int(i): task for i, task in tasks.items()}
            else:
                raise TypeError(f"The tasks for job {job_name!r} must be a list or a "
                                "dictionary from integers to strings.")
            if not isinstance(job_name, (str, bytes)):
                raise TypeError(f"Job name {job_name!r} must be bytes or unicode")
            for address in job_tasks.values():
                if not isinstance(address, (str, bytes)):
                    raise TypeError(f"Task address {address!r} must be bytes or unicode")
            spec[job_name] = job_tasks
        self._cluster_spec = spec

    def __bool__(self) -> bool:
        return bool(self._cluster_spec)

    def __eq__(self, other) -> bool:
        if isinstance(other, ClusterSpec):
            other = other._cluster_spec
        return self._cluster_spec == other

    def __ne__(self, other) -> bool:
        return not self == other

    __hash__ = None  # mutable-looking and compared by value, as in TF

    def __repr__(self) -> str:
        d = self.as_dict()
        return "ClusterSpec({" + ", ".join(f"{k!r}: {d[k]!r}" for k in sorted(d)) + "})"

    def as_dict(self) -> dict:
        """Returns a dictionary from job names to their tasks.

        For each job, if the task index space is dense, the value is a list of
        network addresses; otherwise a dictionary mapping (sparse) task indices
        to addresses.
        """
        ret = {}
        for job in self.jobs:
            indices = self.task_indices(job)
            if not indices:
                ret[job] = {}
            elif max(indices) + 1 == len(indices):
                ret[job] = self.job_tasks(job)
            else:
                ret[job] = {i: self.task_address(job, i) for i in indices}
        return ret

    def as_cluster_def(self):
        """Returns a ``tf.train.ClusterDef`` protocol buffer for this cluster.

        Jobs are sorted by name and each job's tasks by index (TF's order), so
        the serialized bytes are deterministic and equal TensorFlow's.

        Returns:
          A ``ClusterDef`` message (TF's ``tensorflow.ClusterDef`` schema).
        """
        cluster_def = tf_cluster_pb2.ClusterDef()
        for job_name, tasks in sorted(self._cluster_spec.items(), key=lambda kv: _text(kv[0])):
            job_def = cluster_def.job.add()
            job_def.name = _text(job_name)
            for i, address in sorted(tasks.items()):
                job_def.tasks[i] = _text(address)
        return cluster_def

    @property
    def jobs(self) -> list:
        """A list of the job names in this cluster."""
        return list(self._cluster_spec.keys())

    def _job(self, job_name) -> dict:
        try:
            return self._cluster_spec[job_name]
        except (KeyError, TypeError):
            raise ValueError(f"No such job in cluster: {job_name!r}") from None

    def num_tasks(self, job_name) -> int:
        """The number of tasks in job ``job_name``.

        Raises:
          ValueError: If ``job_name`` does not name a job in this cluster.
        """
        return len(self._job(job_name))

    def task_indices(self, job_name) -> list:
        """The sorted list of valid task indices in job ``job_name``.

        Raises:
          ValueError: If ``job_name`` does not name a job in this cluster.
        """
        return sorted(self._job(job_name).keys())

    def task_address(self, job_name, task_index):
        """The address of task ``task_index`` of job ``job_name``.

        Raises:
          ValueError: If ``job_name`` does not name a job in this cluster, or no
            task with index ``task_index`` is defined in that job.
        """
        job = self._job(job_name)
        try:
            return job[task_index]
        except (KeyError, TypeError):
            raise ValueError(f"No task with index {task_index!r} in job {job_name!r}") from None

    def job_tasks(self, job_name) -> list:
        """The addresses of job ``job_name``'s tasks, indexed by task index.

        The list holds ``None`` at indices missing from a sparse job.

        Raises:
          ValueError: If ``job_name`` does not name a job in this cluster.
        """
        job = self._job(job_name)
        ret = [None] * (max(job.keys()) + 1) if job else []
        for i, task in job.items():
            ret[i] = task
        return ret
