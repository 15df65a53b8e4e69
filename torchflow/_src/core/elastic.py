"""The engine's adapter for PyTorch's elastic agent (``torch.distributed.elastic``).

``run_group`` starts ``nprocs`` copies of a command on this machine under
torchrun's agent: each gets torchrun's variables (``RANK``, ``WORLD_SIZE``,
``MASTER_ADDR``, ``MASTER_PORT``, ``LOCAL_RANK``, ``TORCHELASTIC_RESTART_COUNT``,
...), the agent hosts the rendezvous store, and when one process fails the
agent ends the others and, while restarts are left, starts the whole group
again. Signals sent to the agent's process end the group.
"""

from __future__ import annotations

import uuid

from torch.distributed.elastic.multiprocessing.errors import ChildFailedError
from torch.distributed.launcher.api import LaunchConfig, elastic_launch


class GroupFailed(Exception):
    """A process of the group failed and no restart was left.

    Attributes:
      failures: ``{rank: (exit code, message)}`` of the failed processes.
    """

    def __init__(self, failures: dict):
        self.failures = failures
        super().__init__("; ".join(f"rank {r}: exit code {c}" for r, (c, _) in
                                   sorted(failures.items())))


def run_group(command: list[str], nprocs: int, *, max_restarts: int = 0,
              rdzv_port: int, monitor_interval: float = 0.2) -> None:
    """Runs ``command`` (an executable and its arguments) in ``nprocs`` processes.

    Raises:
      GroupFailed: If the group failed with no restart left.
    """
    config = LaunchConfig(
        min_nodes=1, max_nodes=1, nproc_per_node=int(nprocs), run_id=uuid.uuid4().hex,
        rdzv_backend="c10d", rdzv_endpoint=f"127.0.0.1:{int(rdzv_port)}",
        rdzv_configs={"timeout": 120}, max_restarts=int(max_restarts),
        monitor_interval=monitor_interval, start_method="spawn", local_addr="127.0.0.1")
    try:
        elastic_launch(config, entrypoint=command[0])(*command[1:])
    except ChildFailedError as e:
        failures = {}
        for rank, failure in e.failures.items():
            failures[int(rank)] = (int(failure.exitcode), str(failure.message or ""))
        raise GroupFailed(failures) from None
