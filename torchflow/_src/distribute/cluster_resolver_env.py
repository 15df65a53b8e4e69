"""Cluster resolvers that read a scheduler: ``SlurmClusterResolver`` and
``KubernetesClusterResolver`` (TF 2.4's names, arguments and errors).

``SlurmClusterResolver`` reads the variables ``srun`` sets for a job step
(``SLURM_PROCID``, ``SLURM_STEP_NUM_TASKS``, ``SLURM_STEP_NODELIST``,
``SLURM_STEP_TASKS_PER_NODE``): the step's tasks, node by node in host-name order,
are given to the jobs in sorted job-name order; a node's tasks listen on
``port_base``, ``port_base + 1``, ...; the process whose ``SLURM_PROCID`` is ``r``
is the ``r``-th task. Each task gets ``gpus_per_task`` GPUs of its node
(``CUDA_VISIBLE_DEVICES`` set when ``auto_set_gpu``).

``KubernetesClusterResolver`` lists the pods of each job through the Kubernetes
API client (the ``kubernetes`` package, or ``override_client``): the pods
matching a job's label selectors, sorted by name, at ``host_ip:tf_server_port``.
"""

from __future__ import annotations

import os
import re
import subprocess

from torchflow._src.distribute.cluster_resolver import ClusterResolver, format_master_url
from torchflow._src.distribute.cluster_spec import ClusterSpec
from torchflow._src.util.api import public


def _env(name: str) -> str:
    value = os.environ.get(name)
    if value is None:
        raise RuntimeError(f"{name} not found in environment. Not running inside a SLURM "
                           "step?")
    return value


def expand_hostlist(hostlist: str) -> list:
    """Slurm's compressed host list (``n[01-03,7],gpu1``) as host names, in order."""
    hosts: list = []
    for item in re.findall(r"[^,\[]+(?:\[[^\]]*\])?[^,\[]*", hostlist):
        m = re.fullmatch(r"([^\[]*)\[([^\]]*)\](.*)", item)
        if m is None:
            hosts.append(item)
            continue
        prefix, ranges, suffix = m.groups()
        for part in ranges.split(","):
            lo, _, hi = part.partition("-")
            width = len(lo)
            for i in range(int(lo), int(hi or lo) + 1):
                hosts.append(f"{prefix}{i:0{width}d}{suffix}")
    return hosts


def expand_tasks_per_node(spec: str) -> list:
    """``SLURM_STEP_TASKS_PER_NODE`` (``2(x3),1``) as one count per node."""
    counts: list = []
    for part in spec.split(","):
        m = re.fullmatch(r"(\d+)(?:\(x(\d+)\))?", part.strip())
        if m is None:
            raise ValueError(f"Unexpected tasks-per-node entry {part!r} in {spec!r}")
        counts.extend([int(m.group(1))] * int(m.group(2) or 1))
    return counts


def _nvidia_gpus() -> int:
    out = subprocess.check_output(["nvidia-smi", "--list-gpus"]).decode("utf-8")
    return sum(1 for line in out.splitlines() if line.startswith("GPU "))


@public("torchflow.distribute.cluster_resolver")
class SlurmClusterResolver(ClusterResolver):
    """A cluster resolver for jobs started by the Slurm workload manager (``srun``).

    Args:
      jobs: A dict of job names to task counts (default: every task of the step a
        ``"worker"``). Jobs take the step's tasks in sorted name order.
      port_base: The port of a node's first task; the next tasks on the node take
        the following ports.
      gpus_per_node: GPUs on each node (default: what ``nvidia-smi`` lists).
      gpus_per_task: GPUs each task uses (default: the node's GPUs divided by the
        largest number of tasks on one node).
      tasks_per_node: Tasks on each node: an int for every node, or a dict of host
        names to counts (default: ``SLURM_STEP_TASKS_PER_NODE``).
      auto_set_gpu: Set ``CUDA_VISIBLE_DEVICES`` to this task's GPUs.
      rpc_layer: The protocol of the addresses ``master`` gives.

    Raises:
      RuntimeError: Outside a Slurm step (a variable missing), if more tasks are
        requested than the step has, or more GPUs per node than the node has.

    Differences from TF: with no GPUs (``gpus_per_node=0``) TF 2.21 fails computing the
    GPU ids (``range()`` step 0); here the cluster resolves and tasks get no GPUs.
    """

    def __init__(self, jobs=None, port_base=8888, gpus_per_node=None, gpus_per_task=None,
                 tasks_per_node=None, auto_set_gpu=True, rpc_layer="grpc"):
        self._rank = int(_env("SLURM_PROCID"))
        num_tasks = int(_env("SLURM_STEP_NUM_TASKS"))
        self._jobs = dict(jobs) if jobs is not None else {"worker": num_tasks}
        self._port_base = int(port_base)
        self._rpc_layer = rpc_layer
        self._auto_set_gpu = bool(auto_set_gpu)
        hosts = expand_hostlist(_env("SLURM_STEP_NODELIST"))
        if tasks_per_node is None:
            counts = expand_tasks_per_node(_env("SLURM_STEP_TASKS_PER_NODE"))
        elif isinstance(tasks_per_node, dict):
            counts = [int(tasks_per_node.get(h, 0)) for h in hosts]
        else:
            counts = [int(tasks_per_node)] * len(hosts)
        # the nodes in name order, each with its count from the node list's order
        self._tasks = [(h, self._port_base + i) for h, n in sorted(zip(hosts, counts))
                       for i in range(n)]
        self._gpus_per_node = _nvidia_gpus() if gpus_per_node is None else int(gpus_per_node)
        most = max(counts) if counts else 1
        self._gpus_per_task = (self._gpus_per_node // most if gpus_per_task is None
                               else int(gpus_per_task))
        if self._gpus_per_task * most > self._gpus_per_node:
            raise RuntimeError("Requested more GPUs per node than available.")
        requested = sum(self._jobs.values())
        if requested > num_tasks:
            raise RuntimeError(f"Requested {requested} tasks but only {num_tasks} were "
                               "assigned.")
        self._spec, self._roles = {}, []
        it = iter(self._tasks)
        for job in sorted(self._jobs):
            addrs = []
            for i in range(self._jobs[job]):
                host, port = next(it)
                addrs.append(f"{host}:{port}")
                self._roles.append((job, i))
            self._spec[job] = addrs
        if self._rank >= len(self._roles):
            raise RuntimeError(f"SLURM_PROCID {self._rank} has no task: the jobs hold "
                               f"{len(self._roles)} tasks.")
        self._task_type, self._task_id = self._roles[self._rank]
        if self._auto_set_gpu and self._gpus_per_task:
            local = self._local_index(self._rank)
            first = local * self._gpus_per_task
            os.environ["CUDA_VISIBLE_DEVICES"] = ",".join(
                str(g) for g in range(first, first + self._gpus_per_task))

    def _local_index(self, rank: int) -> int:
        host = self._tasks[rank][0]
        return sum(1 for h, _ in self._tasks[:rank] if h == host)

    def cluster_spec(self):
        """The ``tf.train.ClusterSpec`` of the jobs, from the step's nodes."""
        return ClusterSpec(self._spec)

    def get_task_info(self):
        """This task's ``(task_type, task_id)``."""
        return self._task_type, self._task_id

    def master(self, task_type=None, task_id=None, rpc_layer=None):
        """The address of ``task_type``/``task_id`` (default: this task), with the
        rpc layer's prefix (``rpc_layer``, else the resolver's)."""
        if task_type is None or task_id is None:
            task_type, task_id = self._task_type, self._task_id
        address = self.cluster_spec().task_address(task_type, task_id)
        return format_master_url(address, rpc_layer or self._rpc_layer)

    def num_accelerators(self, task_type=None, task_id=None, config_proto=None):
        """``{"GPU": gpus_per_task}``: every task gets the same number."""
        del task_type, task_id, config_proto
        return {"GPU": self._gpus_per_task}


@public("torchflow.distribute.cluster_resolver")
class KubernetesClusterResolver(ClusterResolver):
    """A cluster resolver for tasks running as Kubernetes pods.

    Args:
      job_to_label_mapping: A dict of job names to lists of label selectors (default
        ``{"worker": ["job-name=tensorflow"]}``); a job's tasks are the pods matching
        its selectors, each selector's pods sorted by name.
      tf_server_port: The port every task listens on.
      rpc_layer: The protocol of the addresses ``master`` gives.
      override_client: A Kubernetes ``CoreV1Api``-like client (with
        ``list_pod_for_all_namespaces(label_selector=...)``); default: the
        ``kubernetes`` package's, from the in-cluster or kube config.

    Raises:
      ImportError: Without ``override_client`` when the ``kubernetes`` package is
        not installed.
    """

    def __init__(self, job_to_label_mapping=None, tf_server_port=8470, rpc_layer="grpc",
                 override_client=None):
        if override_client is None:
            try:
                from kubernetes import client as k8s_client
                from kubernetes import config as k8s_config
            except ImportError:
                raise ImportError("The Kubernetes Python client must be installed before "
                                  "using the Kubernetes Cluster Resolver. To install the "
                                  "Kubernetes Python client, run `pip install kubernetes` "
                                  "on your command line.") from None
            k8s_config.load_kube_config()
            override_client = k8s_client.CoreV1Api()
        self._client = override_client
        self._job_to_label_mapping = job_to_label_mapping or {"worker": ["job-name=tensorflow"]}
        self._tf_server_port = tf_server_port
        self._rpc_layer = rpc_layer
        self._task_type = None
        self._task_id = None

    def cluster_spec(self):
        """The pods of each job, at ``host_ip:tf_server_port``, as a ``ClusterSpec``.

        Raises:
          RuntimeError: If a matching pod is not in the ``Running`` phase.
        """
        spec = {}
        for job, selectors in self._job_to_label_mapping.items():
            addrs = []
            for selector in selectors:
                pods = self._client.list_pod_for_all_namespaces(label_selector=selector,
                                                                 watch=False)
                for pod in sorted(pods.items, key=lambda p: p.metadata.name):
                    if pod.status.phase != "Running":
                        raise RuntimeError(f'Pod "{pod.metadata.name}" is not running; '
                                           f'phase: "{pod.status.phase}"')
                    addrs.append(f"{pod.status.host_ip}:{self._tf_server_port}")
            spec[job] = addrs
        return ClusterSpec(spec)

    def master(self, task_type=None, task_id=None, rpc_layer=None):
        """The address of ``task_type``/``task_id`` with the rpc layer's prefix; ``""``
        when no task is named (TF's in-cluster default)."""
        if task_type is None or task_id is None:
            task_type, task_id = self._task_type, self._task_id
        if task_type is None or task_id is None:
            return ""
        address = self.cluster_spec().task_address(task_type, task_id)
        return format_master_url(address, rpc_layer or self._rpc_layer)
