"""The gRPC transport (_src/core/rpc.py): framing, errors, deadlines, retries, auth."""

import threading
import time

import numpy as np
import pytest
import torch

import torchflow as tf
from torchflow._src.core import rpc

TOKEN = "s3cret-token"


@pytest.fixture(autouse=True, params=["inprocess", "grpc"])
def transport(request, monkeypatch):
    """Every test runs both ways: a channel to a server of this process calls it
    in-process (the default), or through gRPC (TORCHFLOW_RPC_LOCAL=0)."""
    if request.param == "grpc":
        monkeypatch.setenv(rpc.LOCAL_ENV, "0")
    else:
        monkeypatch.delenv(rpc.LOCAL_ENV, raising=False)
    return request.param


@pytest.fixture
def server():
    srv = rpc.Server("127.0.0.1:0", token=TOKEN, max_message_bytes=1 << 20)
    srv.add_method("Echo", lambda req, ctx: req)
    srv.add_method("Sum", lambda req, ctx: rpc.encode(float(np.sum(rpc.decode(req)))))
    srv.add_method("Fail", _fail)
    srv.add_method("Slow", lambda req, ctx: (time.sleep(1.0), b"late")[1])
    srv.add_method("Run", lambda req, ctx: rpc.encode(rpc.loads_code(req)(3)), code=True)
    srv.add_stream_method("Count", lambda req, ctx: (rpc.encode(i) for i in range(int(
        rpc.decode(req)))))
    srv.start()
    yield srv
    srv.stop()


def _fail(req, ctx):
    kind = req.decode()
    if kind == "aborted":
        raise tf.errors.AbortedError(None, None, "step aborted")
    if kind == "cancelled":
        raise tf.errors.CancelledError(None, None, "cancelled here")
    raise ZeroDivisionError("division by zero")


def test_encode_decode_round_trip_keeps_types_values_and_dtypes():
    bf = tf.cast(tf.constant([1.5, -2.25]), tf.bfloat16)
    value = {"f32": tf.constant([[1.0, 2.0], [3.0, 4.0]]), "i64": np.arange(6).reshape(2, 3),
             "bool": tf.constant([True, False]), "c64": tf.constant([1 + 2j], tf.complex64),
             "bf16": bf, "empty": np.zeros((0, 3), np.float32), "scalar": np.float32(2.5),
             "str": tf.constant([b"a", b"bcd", b""]), "torch": torch.arange(4, dtype=torch.int8),
             "nest": (1, 2.5, "x", None, [b"raw", True]), 7: "int key", (1, 2): "tuple key"}
    out = rpc.decode(rpc.encode(value))
    assert isinstance(out["f32"], tf.Tensor) and out["f32"].dtype == tf.float32
    np.testing.assert_array_equal(out["f32"].numpy(), [[1.0, 2.0], [3.0, 4.0]])
    assert isinstance(out["i64"], np.ndarray) and out["i64"].dtype == np.int64
    np.testing.assert_array_equal(out["i64"], np.arange(6).reshape(2, 3))
    assert out["bool"].dtype == tf.bool and out["bool"].numpy().tolist() == [True, False]
    assert out["c64"].dtype == tf.complex64 and out["c64"].numpy()[0] == 1 + 2j
    assert out["bf16"].dtype == tf.bfloat16
    np.testing.assert_array_equal(tf.cast(out["bf16"], tf.float32).numpy(), [1.5, -2.25])
    assert out["empty"].shape == (0, 3)
    assert out["scalar"] == np.float32(2.5) and isinstance(out["scalar"], np.float32)
    assert out["str"].dtype == tf.string and out["str"].numpy().tolist() == [b"a", b"bcd", b""]
    assert out["torch"].dtype == torch.int8 and out["torch"].tolist() == [0, 1, 2, 3]
    assert out["nest"] == (1, 2.5, "x", None, [b"raw", True])
    assert out[7] == "int key" and out[(1, 2)] == "tuple key"


def test_tensor_bytes_are_raw_buffers_not_pickle():
    a = np.arange(1000, dtype=np.float32)
    payload = rpc.encode(a)
    assert a.tobytes() in payload  # the buffer itself, verbatim
    assert len(payload) < a.nbytes + 200
    assert b"pickle" not in payload and payload[:4] == b"TFR1"


def test_malformed_payload_is_invalid_argument():
    with pytest.raises(tf.errors.InvalidArgumentError, match="Malformed torchflow RPC"):
        rpc.decode(b"not a payload")
    good = bytearray(rpc.encode(np.arange(4.0)))
    with pytest.raises(tf.errors.InvalidArgumentError):
        rpc.decode(bytes(good[:-8]))  # truncated buffer


def test_calls_streams_and_tf_error_mapping(server):
    ch = rpc.Channel(server.address, token=TOKEN)
    assert ch.call("Echo", b"hello") == b"hello"
    assert rpc.decode(ch.call("Sum", rpc.encode(np.arange(5.0)))) == 10.0
    assert [rpc.decode(c) for c in ch.stream("Count", rpc.encode(4))] == [0, 1, 2, 3]
    with pytest.raises(tf.errors.AbortedError, match="step aborted"):
        ch.call("Fail", b"aborted")
    with pytest.raises(tf.errors.CancelledError, match="cancelled here"):
        ch.call("Fail", b"cancelled")
    with pytest.raises(tf.errors.UnknownError, match="ZeroDivisionError: division by zero"):
        ch.call("Fail", b"other")
    with pytest.raises(tf.errors.UnimplementedError):
        ch.call("NoSuchMethod", b"")
    t0 = time.monotonic()
    with pytest.raises(tf.errors.DeadlineExceededError):
        ch.call("Slow", b"", timeout=0.2)
    assert time.monotonic() - t0 < 0.9
    assert ch.call("Echo", b"still serving") == b"still serving"
    ch.close()


def test_unauthenticated_and_oversized_calls_are_refused_and_server_keeps_serving(server):
    for bad in (rpc.Channel(server.address, token="wrong"), rpc.Channel(server.address, token="")):
        with pytest.raises(tf.errors.UnauthenticatedError):
            bad.call("Echo", b"x")
        with pytest.raises(tf.errors.UnauthenticatedError):
            bad.call("Run", rpc.dumps_code(lambda x: x))
        assert not bad.ping()
        bad.close()
    big = rpc.Channel(server.address, token=TOKEN, max_message_bytes=8 << 20)
    with pytest.raises(tf.errors.ResourceExhaustedError):
        big.call("Echo", b"x" * (2 << 20))
    with pytest.raises(tf.errors.InvalidArgumentError, match="Could not load the code"):
        big.call("Run", b"\x80\x04garbage")
    assert big.call("Echo", b"ok") == b"ok"
    assert rpc.decode(big.call("Run", rpc.dumps_code(lambda x: x * 7))) == 21
    big.close()


def test_code_is_refused_by_a_server_without_token():
    srv = rpc.Server("127.0.0.1:0", token="")
    srv.add_method("Run", lambda req, ctx: rpc.encode(rpc.loads_code(req)(1)), code=True)
    srv.add_method("Echo", lambda req, ctx: req)
    srv.start()
    try:
        ch = rpc.Channel(srv.address, token="anything")
        assert ch.call("Echo", b"plain") == b"plain"
        with pytest.raises(tf.errors.UnauthenticatedError, match="accepts no code"):
            ch.call("Run", rpc.dumps_code(lambda x: x))
        ch.close()
    finally:
        srv.stop()


def test_non_loopback_server_without_token_refuses_to_start(monkeypatch):
    monkeypatch.delenv(rpc.TOKEN_ENV, raising=False)
    with pytest.raises(tf.errors.PermissionDeniedError, match="allow_insecure"):
        rpc.Server("0.0.0.0:0").start()
    srv = rpc.Server("0.0.0.0:0", allow_insecure=True).start()
    srv.stop()
    monkeypatch.setenv(rpc.TOKEN_ENV, "from-env")
    srv = rpc.Server("0.0.0.0:0").start()
    try:
        ch = rpc.Channel(f"127.0.0.1:{srv.port}")  # the env token on both sides
        assert ch.ping()
        ch.close()
    finally:
        srv.stop()


def test_unavailable_peer_and_retries_only_when_idempotent():
    port = rpc.pick_unused_port()
    ch = rpc.Channel(f"127.0.0.1:{port}", token=TOKEN)
    with pytest.raises(tf.errors.UnavailableError):
        ch.call("Echo", b"x", timeout=2.0)
    # An idempotent call retries with backoff until the server comes up.
    srv = rpc.Server(f"127.0.0.1:{port}", token=TOKEN)
    srv.add_method("Echo", lambda req, ctx: req)
    timer = threading.Timer(0.5, srv.start)
    timer.start()
    try:
        assert ch.call("Echo", b"back", timeout=10.0, idempotent=True) == b"back"
    finally:
        timer.join()
        srv.stop()
        ch.close()


def test_bind_failure_is_unknown_error():
    srv = rpc.Server("127.0.0.1:0", token=TOKEN).start()
    try:
        with pytest.raises(tf.errors.UnknownError, match="Could not start gRPC server"):
            rpc.Server(f"127.0.0.1:{srv.port}", token=TOKEN).start()
    finally:
        srv.stop()


def test_in_process_call_runs_on_the_servers_threads_and_fails_like_grpc(transport):
    # A handler never runs on the caller's thread (its thread-local state: tapes,
    # strategy scopes, a tracing tf.function), in-process or not.
    srv = rpc.Server("127.0.0.1:0", token=TOKEN)
    srv.add_method("Thread", lambda req, ctx: threading.current_thread().name.encode())
    srv.add_method("Slow", lambda req, ctx: (time.sleep(1.5), b"late")[1])
    srv.start()
    ch = rpc.Channel(srv.address, token=TOKEN)
    name = ch.call("Thread", b"").decode()
    assert name != threading.current_thread().name
    assert name.startswith("tf-rpc-local" if transport == "inprocess" else "ThreadPool")
    both = rpc.call_all([(ch, "Thread", b""), (ch, "Thread", b"")], timeout=5.0)
    assert all(n.decode() != threading.current_thread().name for n in both)
    # A server stopped during a call: UnavailableError (in-process) or what gRPC says
    # for a call its server cancelled; after that the peer is unavailable.
    threading.Timer(0.3, srv.stop).start()
    t0 = time.monotonic()
    with pytest.raises((tf.errors.UnavailableError, tf.errors.CancelledError)):
        ch.call("Slow", b"", timeout=10.0)
    assert time.monotonic() - t0 < 3.0
    with pytest.raises(tf.errors.UnavailableError):
        ch.call("Thread", b"", timeout=2.0)
    assert not ch.ping()
    ch.close()


def test_calls_queued_on_a_stopped_server_never_run(transport):
    srv = rpc.Server("127.0.0.1:0", token=TOKEN, max_workers=1)
    ran = []
    srv.add_method("Slow", lambda req, ctx: (time.sleep(1.0), ran.append(req), b"")[2])
    srv.start()
    ch = rpc.Channel(srv.address, token=TOKEN)
    outcomes = []

    def call(tag):
        try:
            ch.call("Slow", tag, timeout=10.0)
            outcomes.append("ok")
        except tf.errors.OpError as e:
            outcomes.append(type(e).__name__)

    threads = [threading.Thread(target=call, args=(t,)) for t in (b"first", b"second")]
    for t in threads:
        t.start()
        time.sleep(0.2)
    srv.stop()
    for t in threads:
        t.join(10)
    time.sleep(1.5)
    assert b"second" not in ran  # queued behind the first when the server stopped
    assert len(outcomes) == 2 and all(o != "ok" or len(ran) for o in outcomes)
    assert set(outcomes) <= {"ok", "UnavailableError", "CancelledError"}
    ch.close()
