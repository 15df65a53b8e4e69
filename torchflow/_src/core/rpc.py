"""The one gRPC transport of torchflow (parameter servers, tf.data service, profiler).

A small service framework on ``grpcio`` with generic methods: bytes in, bytes out,
no ``.proto``. Every method lives under the gRPC service ``torchflow.Rpc``, so one
server can host the methods of several features.

API for other modules::

    from torchflow._src.core import rpc

    # --- server -----------------------------------------------------------------
    srv = rpc.Server("127.0.0.1:0")            # token: arg, else $TORCHFLOW_CLUSTER_TOKEN
    srv.add_method("Echo", fn)                 # fn(request: bytes, ctx) -> bytes
    srv.add_method("Run", run_fn, code=True)   # code=True: only callers with the token
    srv.add_stream_method("Tail", gen_fn)      # gen_fn(request, ctx) -> iterator of bytes
    srv.start(); srv.port; srv.address         # "127.0.0.1:<port>"
    srv.stop(grace=None); srv.wait()

    # --- client -----------------------------------------------------------------
    ch = rpc.Channel("127.0.0.1:1234")         # token: arg, else $TORCHFLOW_CLUSTER_TOKEN
    out = ch.call("Echo", payload, timeout=10.0, idempotent=True)
    outs = rpc.call_all([(ch1, "Read", p1), (ch2, "Read", p2)], timeout=5.0)  # at once
    for chunk in ch.stream("Tail", payload, timeout=60.0): ...
    ch.ping(timeout=1.0) -> bool; ch.close()

    # --- payloads ---------------------------------------------------------------
    buf = rpc.encode({"w": tf_tensor, "x": np_array, "n": 3, "s": "a", "raw": b".."})
    obj = rpc.decode(buf)      # tf.Tensor -> tf.Tensor, ndarray -> read-only ndarray,
                               # torch.Tensor -> torch.Tensor; tuples stay tuples
    blob = rpc.dumps_code(fn)  # cloudpickle; rpc.loads_code(blob) only inside a
                               # code=True handler (the caller proved the token)

Semantics:

- Tensors travel as raw buffers with dtype and shape (string tensors as their
  elements' bytes); the rest of a payload is a JSON skeleton. Nothing in
  ``encode``/``decode`` unpickles, so a payload from anyone is safe to decode.
- Every call has a deadline (``timeout``, default ``DEFAULT_TIMEOUT``). Only calls
  marked ``idempotent=True`` are retried, on UNAVAILABLE, with exponential backoff and
  jitter, while the deadline allows.
- Failures are TF errors: a gRPC status maps to the ``tf.errors`` class of the same
  code (UNAVAILABLE -> ``UnavailableError``, DEADLINE_EXCEEDED ->
  ``DeadlineExceededError``, ABORTED, CANCELLED, RESOURCE_EXHAUSTED for an oversized
  message, UNAUTHENTICATED ...). A ``tf.errors.OpError`` raised by a handler reaches
  the caller as the same class and message; any other exception as ``UnknownError``
  whose message starts with the exception's type name. (Handlers raise ``tf.errors``;
  they do not call ``ctx.abort``.)
- Authentication: the cluster token (``TORCHFLOW_CLUSTER_TOKEN``, set by
  ``torchflow launch``; ``ensure_cluster_token()`` makes one for in-process clusters
  and children) travels as call metadata and is checked on every call with a
  constant-time compare. A server with a token refuses every call without it. A
  server without a token serves only its non-code methods, and only when bound to
  loopback, unless ``allow_insecure=True``; ``code=True`` methods always need the token.
- In-process calls: a channel to a loopback address whose port a ``Server`` of this
  process serves (TF's in-process clusters: every task in one process) skips gRPC:
  the request bytes go straight to that server's own thread pool (the handler never
  runs on the caller's thread), with the same token check, size limits, deadline and
  errors; a server stopped meanwhile is ``UnavailableError``. A gRPC round trip costs
  ~0.4 ms of CPU here, the hand-off ~0.03 ms. ``TORCHFLOW_RPC_LOCAL=0`` turns it off.
- Profiling (``tf.profiler``): while a capture runs, each unary call is an event on
  both sides: ``rpc::<Method>`` on the caller's thread (stats ``peer``,
  ``bytes_sent``, ``bytes_received``; a ``call_all`` fan-out to several peers is one
  event with ``calls``, around the calls' own events) and ``rpc_served::<Method>`` on the thread that served it
  (``bytes_received``, ``bytes_sent``). With no capture, one global read per call.
- Keepalive pings every 10 s (a peer gone silent fails calls within ~15 s even when
  no RST arrives); messages over ``max_message_bytes`` are refused with
  RESOURCE_EXHAUSTED; a malformed, oversized or unauthenticated call never stops the
  server.
"""

from __future__ import annotations

import hmac
import ipaddress
import os
import pickle
import random
import secrets
import socket
import threading
import time
from concurrent import futures
from typing import Any, Callable, Iterator, cast

import cloudpickle
import grpc

from torchflow._src.core import errors, profiler_backend
from torchflow._src.core.rpc_local import STATUS_BY_CODE as _STATUS_BY_CODE
from torchflow._src.core.rpc_local import run_local as _run_local
from torchflow._src.core.rpc_payload import decode as decode
from torchflow._src.core.rpc_payload import encode as encode

TOKEN_ENV = "TORCHFLOW_CLUSTER_TOKEN"
SERVICE = "torchflow.Rpc"
DEFAULT_TIMEOUT = 30.0
# The largest message a server or channel accepts (``TORCHFLOW_RPC_MAX_MESSAGE_BYTES``).
MAX_MESSAGE_BYTES = int(os.environ.get("TORCHFLOW_RPC_MAX_MESSAGE_BYTES", 256 * 1024 * 1024))
_TOKEN_KEY = "x-torchflow-token"

_KEEPALIVE = [
    ("grpc.keepalive_time_ms", 10_000),
    ("grpc.keepalive_timeout_ms", 5_000),
    ("grpc.keepalive_permit_without_calls", 1),
    ("grpc.http2.max_pings_without_data", 0),
]


# --- the cluster token -----------------------------------------------------------------


def cluster_token() -> str | None:
    """The cluster token from ``$TORCHFLOW_CLUSTER_TOKEN`` (None when unset or empty)."""
    return os.environ.get(TOKEN_ENV) or None


def ensure_cluster_token() -> str:
    """Returns the cluster token, first making a random one (into the environment, so
    child processes inherit it) when none is set."""
    tok = cluster_token()
    if tok is None:
        tok = secrets.token_hex(32)
        os.environ[TOKEN_ENV] = tok
    return tok


def is_loopback(address: str) -> bool:
    """True when ``host:port``'s host is a loopback name or address."""
    host = address.rsplit(":", 1)[0].strip("[]")
    if host == "localhost":
        return True
    try:
        return ipaddress.ip_address(host).is_loopback
    except ValueError:
        return False


def pick_unused_port() -> int:
    """A TCP port free on 127.0.0.1 now (the in-process clusters' ports)."""
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


# --- payloads: tensors as raw buffers (rpc_payload.py) ----------------------------------


def dumps_code(obj) -> bytes:
    """Pickles code (functions, closures, dataset functions) with cloudpickle."""
    return cloudpickle.dumps(obj)


def loads_code(blob: bytes):
    """Unpickles what :func:`dumps_code` made. Call it only in a ``code=True``
    handler: there the caller has proved it holds the cluster token."""
    try:
        return pickle.loads(blob)  # only from authenticated peers (see the docstring)
    except errors.OpError:
        raise
    except Exception as e:  # noqa: BLE001
        raise errors.InvalidArgumentError(
            None, None, f"Could not load the code sent: {type(e).__name__}: {e}") from None


# --- errors ----------------------------------------------------------------------------



def error_from_rpc(e: grpc.RpcError, target: str = "") -> errors.OpError:
    """The ``tf.errors`` exception for a failed call."""
    code = e.code() if hasattr(e, "code") else grpc.StatusCode.UNKNOWN
    details = (e.details() if hasattr(e, "details") else None) or str(code)
    num = code.value[0] if code is not None else errors.UNKNOWN
    if num == errors.OK:
        num = errors.UNKNOWN
    cls = errors.exception_type_from_error_code(num)
    if num in (errors.UNAVAILABLE, errors.DEADLINE_EXCEEDED) and target:
        details = f"{details} (peer {target})"
    return cls(None, None, details)


# --- several peers at once ------------------------------------------------------------

_fanout = futures.ThreadPoolExecutor(max_workers=8, thread_name_prefix="tf-rpc-fanout")


def call_all(calls, timeout: float | None = DEFAULT_TIMEOUT, idempotent: bool = False) -> list:
    """Makes ``calls`` (``(channel, method, payload)`` triples, one per peer) at the same
    time and returns their responses in order; the first error is raised after all
    have finished. (gRPC's own futures start a thread per call; a pool is cheaper.
    In-process calls start on their servers' threads at once.)"""
    if profiler_backend._active:
        if len(calls) == 1:  # the call's own event, as Channel.call records it
            ch, method, payload = calls[0]
            return [ch.call(method, payload, timeout=timeout, idempotent=idempotent)]
        methods = {method for _, method, _ in calls}
        name = "rpc::" + (methods.pop() if len(methods) == 1 else "call_all")
        with profiler_backend.late_range(
                name, calls=len(calls),
                bytes_sent=sum(len(payload) for _, _, payload in calls)) as event:
            out = _call_all(calls, timeout, idempotent)
            event.add("bytes_received", sum(len(r) for r in out))
            return out
    return _call_all(calls, timeout, idempotent)


def _call_all(calls, timeout: float | None, idempotent: bool) -> list:
    timeout = DEFAULT_TIMEOUT if timeout is None else float(timeout)
    waits: list = [None] * len(calls)
    remote = []
    for i, (ch, method, payload) in enumerate(calls):
        try:
            waits[i] = ch._begin_local(method, payload, timeout, idempotent)
        except errors.OpError as e:
            waits[i] = _raiser(e)
        if waits[i] is None:
            remote.append(i)
    for i in remote[1:]:
        ch, method, payload = calls[i]
        waits[i] = _fanout.submit(ch.call, method, payload, timeout, idempotent).result
    if remote:
        ch, method, payload = calls[remote[0]]
        try:
            out = ch.call(method, payload, timeout=timeout, idempotent=idempotent)
            waits[remote[0]] = lambda: out
        except errors.OpError as e:
            waits[remote[0]] = _raiser(e)
    first_error = None
    results = []
    for wait in waits:
        try:
            results.append(wait())
        except errors.OpError as e:
            first_error = first_error or e
            results.append(None)
    if first_error is not None:
        raise first_error
    return results


def _raiser(e: BaseException):
    def wait():
        raise e
    return wait


# --- server ----------------------------------------------------------------------------

# Servers of this process by port: a channel to a loopback address whose port one of
# them serves calls it in-process (see ``Channel``). ``TORCHFLOW_RPC_LOCAL=0`` turns
# that off (every call goes through gRPC).
LOCAL_ENV = "TORCHFLOW_RPC_LOCAL"
_LOCAL: dict[int, Server] = {}
_LOCAL_LOCK = threading.Lock()
_WILDCARD_HOSTS = ("", "[::]", "::", "0.0.0.0")


def _local_host(address: str) -> bool:
    """Whether a server bound to ``address`` is reachable at loopback addresses."""
    return is_loopback(address) or address.rsplit(":", 1)[0] in _WILDCARD_HOSTS


def _loopback_port(target: str) -> int | None:
    host, _, port = target.rpartition(":")
    if not port.isdigit() or not is_loopback(target):
        return None
    return int(port)


class _Method:
    __slots__ = ("fn", "code", "stream")

    def __init__(self, fn, code, stream):
        self.fn = fn
        self.code = code
        self.stream = stream


class Server:
    """A gRPC server hosting generic ``torchflow.Rpc`` methods (see the module doc).

    Args:
      address: ``host:port`` to bind (port 0 picks a free one).
      token: The cluster token callers must send; defaults to ``$TORCHFLOW_CLUSTER_TOKEN``.
      allow_insecure: Allow serving on a non-loopback address without a token.
      max_message_bytes: Largest request or response accepted.
      max_workers: Threads serving calls.

    Raises:
      PermissionDeniedError: On ``start()`` without a token on a non-loopback address
        (and not ``allow_insecure``).
      UnknownError: If the address cannot be bound.
    """

    def __init__(self, address: str, token: str | None = None, allow_insecure: bool = False,
                 max_message_bytes: int = MAX_MESSAGE_BYTES, max_workers: int = 16):
        self._address = address
        self._token = (token if token is not None else cluster_token()) or None
        self._token_bytes = b"" if self._token is None else self._token.encode()
        self._allow_insecure = allow_insecure
        self._max = int(max_message_bytes)
        self._max_workers = max_workers
        self._methods: dict[str, _Method] = {"Ping": _Method(lambda req, ctx: b"", False, False)}
        self._server = None
        self._port = None
        self._local_pool: futures.ThreadPoolExecutor | None = None
        self._lock = threading.Lock()

    @property
    def port(self) -> int | None:
        return self._port

    @property
    def address(self) -> str:
        host = self._address.rsplit(":", 1)[0]
        return f"{host}:{self._port}"

    @property
    def has_token(self) -> bool:
        return self._token is not None

    def add_method(self, name: str, fn: Callable[[bytes, Any], bytes], code: bool = False):
        """Registers unary ``fn(request_bytes, grpc_context) -> bytes`` as ``name``."""
        self._methods[name] = _Method(fn, code, False)

    def add_stream_method(self, name: str, fn: Callable[[bytes, Any], Iterator[bytes]],
                          code: bool = False):
        """Registers server-streaming ``fn(request_bytes, ctx) -> iterator of bytes``."""
        self._methods[name] = _Method(fn, code, True)

    def start(self) -> Server:
        with self._lock:
            if self._server is not None:
                return self
            if self._token is None and not self._allow_insecure and not is_loopback(
                    self._address):
                raise errors.PermissionDeniedError(
                    None, None,
                    f"Refusing to serve on non-loopback address {self._address} without a "
                    f"cluster token: set {TOKEN_ENV} (torchflow launch sets it) or pass "
                    "allow_insecure=True.")
            opts = [("grpc.max_receive_message_length", self._max),
                    ("grpc.max_send_message_length", self._max),
                    ("grpc.so_reuseport", 0),
                    ("grpc.http2.min_ping_interval_without_data_ms", 5_000),
                    ("grpc.http2.max_ping_strikes", 0)]
            server = grpc.server(futures.ThreadPoolExecutor(max_workers=self._max_workers),
                                 options=opts)
            server.add_generic_rpc_handlers((_Handler(self),))
            try:
                port = server.add_insecure_port(self._address)
            except RuntimeError:
                port = 0
            if not port:
                raise errors.UnknownError(
                    None, None, f"Could not start gRPC server: cannot bind {self._address}")
            server.start()
            self._server, self._port = server, port
            if _local_host(self._address):
                self._local_pool = futures.ThreadPoolExecutor(
                    max_workers=self._max_workers, thread_name_prefix="tf-rpc-local")
                with _LOCAL_LOCK:
                    _LOCAL[port] = self
        return self

    def stop(self, grace: float | None = None) -> None:
        with self._lock:
            server, self._server = self._server, None
            pool, self._local_pool = self._local_pool, None
        with _LOCAL_LOCK:
            if self._port is not None and _LOCAL.get(self._port) is self:
                del _LOCAL[self._port]
        if pool is not None:
            pool.shutdown(wait=False, cancel_futures=True)  # queued calls never run
        if server is not None:
            server.stop(grace).wait(5)

    def wait(self, timeout: float | None = None) -> bool:
        """Blocks until the server stops (or ``timeout``); True when it stopped."""
        server = self._server
        return True if server is None else server.wait_for_termination(timeout)

    # --- per call ---
    def _refusal(self, method: _Method, metadata) -> str | None:
        """Why a call with ``metadata`` may not run ``method`` (None: it may)."""
        sent = None
        for k, v in metadata or ():
            if k == _TOKEN_KEY:
                sent = v
        if self._token is None:
            if method.code:
                return ("This server has no cluster token and accepts no code; set "
                        f"{TOKEN_ENV} on every task.")
            return None
        if sent is None or not hmac.compare_digest(
                sent.encode() if type(sent) is str else bytes(sent), self._token_bytes):
            return "Missing or wrong cluster token."
        return None

    def _check(self, method: _Method, ctx) -> None:
        why = self._refusal(method, ctx.invocation_metadata())
        if why is not None:
            ctx.abort(grpc.StatusCode.UNAUTHENTICATED, why)

    def _submit_local(self, name: str, payload: bytes, metadata, client_max: int):
        """Starts an in-process call (see ``Channel``): the same checks as a gRPC call,
        then the handler on this server's own threads. Returns a future, or None when
        this server no longer serves."""
        pool = self._local_pool
        if pool is None or self._server is None:
            return None
        method = self._methods.get(name)
        if method is None or method.stream:
            raise errors.UnimplementedError(None, None, "Method not found!")
        n = len(payload)
        if n > client_max:
            raise errors.ResourceExhaustedError(
                None, None, f"Sent message larger than max ({n} vs. {client_max})")
        if n > self._max:
            raise errors.ResourceExhaustedError(
                None, None, f"Received message larger than max ({n} vs. {self._max})")
        why = self._refusal(method, metadata)
        if why is not None:
            raise errors.UnauthenticatedError(None, None, why)
        try:
            return pool.submit(_serve_local, name, method, payload, metadata, self._max,
                               client_max)
        except RuntimeError:  # shut down meanwhile
            return None

    def _unary(self, method: _Method, name: str):
        def handle(request, ctx):
            self._check(method, ctx)
            try:
                if profiler_backend._active:
                    with profiler_backend.late_range("rpc_served::" + name,
                                                     bytes_received=len(request)) as event:
                        out = bytes(method.fn(request, ctx))
                        event.add("bytes_sent", len(out))
                        return out
                return bytes(method.fn(request, ctx))
            except Exception as e:  # noqa: BLE001 - every failure becomes a gRPC status
                _abort(ctx, e)
        return handle

    def _stream(self, method: _Method):
        def handle(request, ctx):
            self._check(method, ctx)
            try:
                for chunk in method.fn(request, ctx):
                    yield bytes(chunk)
            except Exception as e:  # noqa: BLE001
                _abort(ctx, e)
        return handle


def _serve_local(name: str, method: _Method, payload: bytes, metadata, server_max: int,
                 client_max: int) -> bytes:
    if not profiler_backend._active:
        return _run_local(method, payload, metadata, server_max, client_max)
    with profiler_backend.late_range("rpc_served::" + name,
                                     bytes_received=len(payload)) as event:
        out = _run_local(method, payload, metadata, server_max, client_max)
        event.add("bytes_sent", len(out))
        return out


def _abort(ctx, e: BaseException):
    if isinstance(e, errors.OpError):
        status = _STATUS_BY_CODE.get(e.error_code, grpc.StatusCode.UNKNOWN)
        msg = e.message
    else:
        status, msg = grpc.StatusCode.UNKNOWN, f"{type(e).__name__}: {e}"
    ctx.abort(status, msg or status.name)


class _Handler(grpc.GenericRpcHandler):
    """Finds a call's method. gRPC asks on every call: the handler of each method is
    made once, on its first call, and kept while the method stays registered."""

    def __init__(self, server: Server):
        self._srv = server
        self._made: dict = {}  # full method path -> (_Method, its grpc handler)

    def service(self, details):
        name = details.method
        made = self._made.get(name)
        if made is not None and self._srv._methods.get(made[2]) is made[0]:
            return made[1]
        prefix = f"/{SERVICE}/"
        if not name.startswith(prefix):
            return None
        short = name[len(prefix):]
        method = self._srv._methods.get(short)
        if method is None:
            return None
        if method.stream:
            handler = grpc.unary_stream_rpc_method_handler(self._srv._stream(method))
        else:
            handler = grpc.unary_unary_rpc_method_handler(self._srv._unary(method, short))
        self._made[name] = (method, handler, short)
        return handler


# --- client ----------------------------------------------------------------------------


class Channel:
    """A client for one server's ``torchflow.Rpc`` methods (thread-safe).

    Args:
      target: ``host:port`` (a ``grpc://`` prefix is accepted).
      token: The cluster token to send; defaults to ``$TORCHFLOW_CLUSTER_TOKEN``.
      max_message_bytes: Largest request or response.
    """

    def __init__(self, target: str, token: str | None = None,
                 max_message_bytes: int = MAX_MESSAGE_BYTES):
        if target.startswith("grpc://"):
            target = target[len("grpc://"):]
        self.target = target
        token = token if token is not None else cluster_token()
        self._metadata = ((_TOKEN_KEY, token),) if token else ()
        opts = [("grpc.max_receive_message_length", int(max_message_bytes)),
                ("grpc.max_send_message_length", int(max_message_bytes)),
                ("grpc.enable_retries", 0),
                ("grpc.initial_reconnect_backoff_ms", 100),
                ("grpc.min_reconnect_backoff_ms", 100),
                ("grpc.max_reconnect_backoff_ms", 1000), *_KEEPALIVE]
        self._channel = grpc.insecure_channel(target, options=opts)
        self._max = int(max_message_bytes)
        self._local_port = None if os.environ.get(LOCAL_ENV, "1") == "0" else \
            _loopback_port(target)
        self._unary: dict = {}
        self._streams: dict = {}

    def _stub(self, name: str, stream: bool):
        table = self._streams if stream else self._unary
        stub = table.get(name)
        if stub is None:
            path = f"/{SERVICE}/{name}"
            stub = (self._channel.unary_stream(path) if stream
                    else self._channel.unary_unary(path))
            table[name] = stub
        return stub

    def call(self, method: str, payload: bytes = b"", timeout: float | None = DEFAULT_TIMEOUT,
             idempotent: bool = False) -> bytes:
        """Calls ``method`` with ``payload``; returns the response bytes.

        Raises:
          tf.errors.OpError: The subclass of the call's status (UnavailableError for
            a peer that is gone, DeadlineExceededError after ``timeout`` ...).
        """
        if profiler_backend._active:
            with profiler_backend.late_range("rpc::" + method, peer=self.target,
                                             bytes_sent=len(payload)) as event:
                out = self._call(method, payload, timeout, idempotent)
                event.add("bytes_received", len(out))
                return out
        return self._call(method, payload, timeout, idempotent)

    def _call(self, method: str, payload, timeout: float | None, idempotent: bool) -> bytes:
        timeout = DEFAULT_TIMEOUT if timeout is None else float(timeout)
        wait = self._begin_local(method, payload, timeout, idempotent)
        if wait is not None:
            return wait()
        stub = self._stub(method, False)
        end = time.monotonic() + timeout
        attempt = 0
        while True:
            left = end - time.monotonic()
            if left <= 0:
                raise errors.DeadlineExceededError(
                    None, None, f"Deadline Exceeded calling {method} on {self.target}")
            try:
                return cast(bytes, stub(payload, timeout=left, metadata=self._metadata))
            except grpc.RpcError as e:
                err = error_from_rpc(e, self.target)
                if not idempotent or not isinstance(err, errors.UnavailableError):
                    raise err from None
                attempt += 1
                pause = min(1.0, 0.05 * 2 ** attempt) * (0.5 + random.random() / 2)
                if time.monotonic() + pause >= end:
                    raise err from None
                time.sleep(pause)

    def _begin_local(self, method: str, payload, timeout: float, idempotent: bool):
        """Starts ``method`` in-process when this channel's target is a server of this
        process (same checks, errors and deadline as over gRPC; the handler runs on
        that server's threads, never the caller's). Returns a function that waits for
        the response, or None (then the call goes through gRPC)."""
        port = self._local_port
        srv = None if port is None else _LOCAL.get(port)
        if srv is None:
            return None
        payload = payload if type(payload) is bytes else bytes(payload)
        end = time.monotonic() + timeout
        fut = srv._submit_local(method, payload, self._metadata, self._max)
        if fut is None:
            return None

        def wait() -> bytes:
            while True:
                left = end - time.monotonic()
                if left <= 0:
                    raise errors.DeadlineExceededError(
                        None, None, f"Deadline Exceeded (peer {self.target})")
                try:
                    return fut.result(timeout=min(left, 0.5))
                except futures.TimeoutError:
                    if srv._server is not None:
                        continue
                except futures.CancelledError:  # queued when the server stopped
                    pass
                left = end - time.monotonic()
                if not idempotent or left <= 0:
                    raise errors.UnavailableError(
                        None, None, f"Server stopped during the call (peer {self.target})")
                return self.call(method, payload, timeout=left, idempotent=True)
        return wait

    def stream(self, method: str, payload: bytes = b"",
               timeout: float | None = DEFAULT_TIMEOUT) -> Iterator[bytes]:
        """Calls a streaming ``method``; yields each response chunk (TF errors as in
        :meth:`call`; ``timeout`` bounds the whole stream)."""
        timeout = DEFAULT_TIMEOUT if timeout is None else float(timeout)
        it = self._stub(method, True)(payload, timeout=timeout, metadata=self._metadata)
        try:
            yield from it
        except grpc.RpcError as e:
            raise error_from_rpc(e, self.target) from None
        finally:
            it.cancel()

    def ping(self, timeout: float = 1.0) -> bool:
        """True when the server answers (and accepts this channel's token) in ``timeout``."""
        try:
            self.call("Ping", b"", timeout=timeout)
            return True
        except errors.OpError:
            return False

    def close(self) -> None:
        self._channel.close()
