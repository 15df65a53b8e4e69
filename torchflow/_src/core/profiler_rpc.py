"""gRPC for TF's profiler service (``/tensorflow.ProfilerService/...``) on grpcio.

TF's capture tools (``tf.profiler.experimental.client.trace``, TensorBoard's and XProf's
"capture profile") speak this protocol with protobuf messages and no authentication, so
it cannot ride ``core/rpc.py``'s ``torchflow.Rpc`` methods; it reuses that module's
mapping of gRPC status codes to ``tf.errors``. The service's behaviour lives in the
profiler layer (``_src/profiler/server.py``), which passes its handlers in.
"""

from __future__ import annotations

from collections.abc import Callable
from concurrent import futures

import grpc

from torchflow._src.core import errors, rpc
from torchflow._src.core.proto import profiler_service_pb2 as pb

SERVICE = "tensorflow.ProfilerService"
MESSAGES = {
    "Profile": (pb.ProfileRequest, pb.ProfileResponse),
    "Terminate": (pb.TerminateRequest, pb.TerminateResponse),
    "Monitor": (pb.MonitorRequest, pb.MonitorResponse),
}
_STATUS = {s.value[0]: s for s in grpc.StatusCode}
_MAX_BYTES = 1 << 30  # an XSpace of a long capture is large


def strip_grpc_prefix(address: str) -> str:
    """``grpc://host:port`` -> ``host:port`` (other addresses unchanged)."""
    address = address.strip()
    return address[len("grpc://"):] if address.startswith("grpc://") else address


class _Handler(grpc.GenericRpcHandler):
    def __init__(self, handlers: dict):
        self._handlers = handlers

    def service(self, details):
        prefix = f"/{SERVICE}/"
        if not details.method.startswith(prefix):
            return None
        name = details.method[len(prefix):]
        fn = self._handlers.get(name)
        if fn is None or name not in MESSAGES:
            return None
        req_cls, resp_cls = MESSAGES[name]

        def handle(request, ctx):
            try:
                return fn(request)
            except errors.OpError as e:
                ctx.abort(_STATUS.get(e.error_code, grpc.StatusCode.UNKNOWN), e.message)
            except Exception as e:  # noqa: BLE001 - every failure becomes a gRPC status
                ctx.abort(grpc.StatusCode.UNKNOWN, f"{type(e).__name__}: {e}")

        return grpc.unary_unary_rpc_method_handler(
            handle, request_deserializer=req_cls.FromString,
            response_serializer=resp_cls.SerializeToString)


class Server:
    """A gRPC server for TF's profiler service on ``host:port`` (port 0: pick one).

    Args:
      address: where to listen (TF's ``server.start(port)`` listens on ``[::]:port``).
      handlers: ``{"Profile": fn(ProfileRequest) -> ProfileResponse, ...}``.
    """

    def __init__(self, address: str, handlers: dict[str, Callable]):
        self._server = grpc.server(
            futures.ThreadPoolExecutor(max_workers=4, thread_name_prefix="profiler_server"),
            options=[("grpc.max_receive_message_length", _MAX_BYTES),
                     ("grpc.max_send_message_length", _MAX_BYTES),
                     ("grpc.so_reuseport", 0)])
        self._server.add_generic_rpc_handlers((_Handler(handlers),))
        try:
            self.port = self._server.add_insecure_port(address)
        except RuntimeError:
            self.port = 0
        if not self.port:
            raise errors.UnavailableError(
                None, None, f"Could not start profiler server: cannot bind {address}")
        self._server.start()

    def stop(self, grace: float | None = None) -> None:
        self._server.stop(grace).wait(5)


def call(address: str, method: str, request, timeout: float):
    """One call of the profiler service at ``address``; failures raise ``tf.errors``."""
    req_cls, resp_cls = MESSAGES[method]
    target = strip_grpc_prefix(address)
    channel = grpc.insecure_channel(
        target, options=[("grpc.max_receive_message_length", _MAX_BYTES),
                         ("grpc.max_send_message_length", _MAX_BYTES)])
    try:
        stub = channel.unary_unary(f"/{SERVICE}/{method}",
                                   request_serializer=req_cls.SerializeToString,
                                   response_deserializer=resp_cls.FromString)
        return stub(request, timeout=timeout)
    except grpc.RpcError as e:
        raise rpc.error_from_rpc(e, target) from None
    finally:
        channel.close()
