"""The data service's calls, over the shared transport ``torchflow._src.core.rpc``.

A thin adapter: handlers take and return one dict (ids, flags and NumPy arrays,
framed by ``rpc.encode``: raw buffers and a JSON skeleton, never a pickle), and
every server of the service holds a cluster token, so it refuses every call that
does not carry it (``UNAUTHENTICATED``) before a handler runs.

The token is ``$TORCHFLOW_CLUSTER_TOKEN``; a server started without one makes a
random one into this process's environment (``rpc.ensure_cluster_token``), which
the processes it starts inherit. Processes started otherwise (another shell,
another machine) must be given the same ``TORCHFLOW_CLUSTER_TOKEN``.

Datasets travel as their graph (``GRAPH``: a TF ``GraphDef``, data) or, where a
pipeline has no graph form, as a pickle (``PICKLE``: code; see
``data_service_ops.register_dataset``). The consumer signs either with an HMAC
under the token and a worker checks the signature before it reads the bytes, so
neither a caller without the token nor a dispatcher impersonated on the network
can make a worker run a pipeline.
"""

from __future__ import annotations

import hashlib
import hmac

from torchflow._src.core import rpc
from torchflow._src.core.errors import (
    DeadlineExceededError,
    InvalidArgumentError,
    PermissionDeniedError,
    UnavailableError,
)
from torchflow._src.data import dataset_graph_read

GRAPH = "graph"    # a dataset as a TF GraphDef of dataset ops (data)
PICKLE = "pickle"  # a dataset as a cloudpickle of the pipeline (code)


class Server:
    """Serves ``handlers`` (``{name: (fn(request: dict) -> dict, carries_code)}``)
    on ``port`` of every interface (0: a free port)."""

    def __init__(self, port: int, handlers: dict):
        rpc.ensure_cluster_token()
        self._srv = rpc.Server(f"[::]:{int(port)}")
        for name, (fn, code) in handlers.items():
            self._srv.add_method(name, _wrap(fn), code=code)

    def start(self) -> None:
        self._srv.start()

    @property
    def port(self) -> int:
        return self._srv.port

    def wait(self, timeout=None) -> bool:
        return self._srv.wait(timeout)

    def stop(self) -> None:
        self._srv.stop(grace=None)


def _wrap(fn):
    def handle(request: bytes, ctx) -> bytes:
        return rpc.encode(fn(rpc.decode(request)))
    return handle


class Client:
    """Calls the service methods of the server at ``address`` (``host:port``)."""

    def __init__(self, address: str, token=None):
        self.address = address
        self._ch = rpc.Channel(address, token=token)

    def call(self, method: str, request: dict, timeout: float = 10.0,
             idempotent: bool = True) -> dict:
        """The answer to ``request``. A peer that does not answer in ``timeout``
        (idempotent calls are retried until then) is ``UnavailableError``."""
        try:
            return rpc.decode(self._ch.call(method, rpc.encode(request), timeout=timeout,
                                            idempotent=idempotent))
        except DeadlineExceededError as e:
            raise UnavailableError(None, None, f"{e.message} (tf.data service peer "
                                   f"{self.address} did not answer in {timeout:g} s)") from None

    def close(self) -> None:
        self._ch.close()


def sign(data: bytes) -> str:
    """The HMAC-SHA256 of ``data`` under the cluster token (hex)."""
    token = rpc.ensure_cluster_token()
    return hmac.new(token.encode(), data, hashlib.sha256).hexdigest()


def load_signed(data: bytes, signature: str, kind: str = PICKLE):
    """The dataset ``data`` holds (a ``kind`` of ``GRAPH`` or ``PICKLE``), read after
    checking that a token holder signed it."""
    if not hmac.compare_digest(sign(data), str(signature)):
        raise PermissionDeniedError(None, None, "The dataset definition's signature does "
                                    "not match this cluster's token; refusing to load it.")
    if kind == GRAPH:
        return dataset_graph_read.dataset_from_graph(data)
    if kind != PICKLE:
        raise InvalidArgumentError(None, None, f"Unknown dataset encoding {kind!r}")
    return rpc.loads_code(data)
