"""core/rpc.py's fast paths: payloads encoded by exact type, tensors decoded through
NumPy, gRPC method handlers made once per method. Each is checked against NumPy or
against the behaviour it must keep (a re-registered method, a refused token)."""

import enum
import gc
import json
import struct
import warnings

import numpy as np
import pytest
import torch

import torchflow as tf
from torchflow._src.core import rpc, rpc_payload

TOKEN = "fast-path-token"

FAST_DTYPES = (np.float16, np.float32, np.float64, np.int8, np.int16, np.int32, np.int64,
               np.uint8, np.bool_, np.complex64, np.complex128)


@pytest.mark.parametrize("dtype", FAST_DTYPES)
def test_every_numpy_dtype_round_trips_as_tf_torch_and_numpy(dtype):
    a = (np.arange(12).reshape(3, 4) % 3).astype(dtype)
    for value, kind in ((tf.constant(a), tf.Tensor), (torch.from_numpy(a.copy()), torch.Tensor),
                        (a, np.ndarray)):
        out = rpc.decode(rpc.encode({"v": value}))["v"]
        assert isinstance(out, kind)
        got = out.numpy() if not isinstance(out, np.ndarray) else out
        assert got.dtype == np.dtype(dtype) and got.shape == (3, 4)
        np.testing.assert_array_equal(got, a)


def test_non_contiguous_zero_d_and_empty_arrays_keep_shape_and_values():
    base = np.arange(24, dtype=np.float32).reshape(4, 6)
    values = {"transposed": base.T, "strided": base[::2, ::3], "zero_d": np.array(7, np.int64),
              "empty": np.zeros((0, 5), np.float64), "scalar": np.float32(1.5),
              "tf_empty": tf.zeros([2, 0]), "tf_scalar": tf.constant(3.0),
              "torch_strided": torch.arange(10.0)[::3]}
    out = rpc.decode(rpc.encode(values))
    for key in ("transposed", "strided", "zero_d", "empty"):
        assert out[key].shape == values[key].shape
        np.testing.assert_array_equal(out[key], values[key])
    assert out["scalar"] == np.float32(1.5) and type(out["scalar"]) is np.float32
    assert out["tf_empty"].shape == (2, 0) and out["tf_empty"].dtype == tf.float32
    assert out["tf_scalar"].shape == () and float(out["tf_scalar"].numpy()) == 3.0
    np.testing.assert_array_equal(out["torch_strided"].numpy(), [0.0, 3.0, 6.0, 9.0])


def test_tensor_needing_grad_is_sent_by_value():
    t = torch.ones(3, requires_grad=True) * 2.0
    out = rpc.decode(rpc.encode(t))
    assert not out.requires_grad
    np.testing.assert_array_equal(out.numpy(), [2.0, 2.0, 2.0])


def test_decoded_tensors_are_writable_copies_of_the_payload():
    payload = rpc.encode({"t": tf.constant([1.0, 2.0]), "p": torch.tensor([5, 6])})
    before = bytes(payload)
    out = rpc.decode(payload)
    out["p"].add_(1)  # a torch tensor a handler updates in place
    out["t"]._t.mul_(10)
    assert payload == before  # the message itself is untouched
    np.testing.assert_array_equal(rpc.decode(payload)["t"].numpy(), [1.0, 2.0])
    np.testing.assert_array_equal(out["p"].numpy(), [6, 7])


def test_large_tensors_of_a_bytes_payload_share_its_memory_without_warnings():
    a = np.arange(rpc_payload.ALIAS_MIN_BYTES // 4 * 3, dtype=np.float32).reshape(3, -1)
    b = np.arange(rpc_payload.ALIAS_MIN_BYTES // 8, dtype=np.float64)
    payload = rpc.encode({"small": tf.constant([1, 2, 3], tf.int16), "a": tf.constant(a),
                          "b": tf.constant(b), "c": tf.constant(a + 1)})
    start = np.frombuffer(payload, np.uint8).ctypes.data
    with warnings.catch_warnings():
        warnings.simplefilter("error")  # torch's non-writable warning never reaches users
        out = rpc.decode(payload)
    for key, want in (("a", a), ("b", b), ("c", a + 1)):
        ptr = out[key]._t.data_ptr()
        assert start <= ptr < start + len(payload)  # inside the message: no copy
        assert ptr % want.itemsize == 0  # aligned (the header is padded)
        np.testing.assert_array_equal(out[key].numpy(), want)
        assert out[key].shape == want.shape and out[key].dtype == tf.as_dtype(want.dtype)
    del payload
    gc.collect()
    np.testing.assert_array_equal((out["a"] * 2).numpy(), a * 2)  # the tensor keeps it alive
    np.testing.assert_array_equal(out["small"].numpy(), [1, 2, 3])


def test_mutable_payloads_and_torch_tensors_are_decoded_into_copies():
    a = np.arange(rpc_payload.ALIAS_MIN_BYTES // 4, dtype=np.float32)
    payload = bytearray(rpc.encode({"t": tf.constant(a), "p": torch.from_numpy(a.copy())}))
    out = rpc.decode(payload)
    payload[-8:] = b"\xff" * 8  # the sender's buffer changes after the decode
    np.testing.assert_array_equal(out["t"].numpy(), a)
    out2 = rpc.decode(bytes(payload))
    out2["p"].add_(1)  # torch tensors are a handler's own, even from a bytes payload
    assert out2["p"].numpy()[0] == 1.0


def test_padded_header_still_decodes_and_buffers_start_aligned():
    for n in range(12):  # header lengths of every residue mod 8
        value = {"k" * n: tf.constant(np.arange(n + 1, dtype=np.float64))}
        payload = rpc.encode(value)
        (hlen,) = struct.unpack("<I", payload[4:8])
        assert (8 + hlen) % 8 == 0
        json.loads(payload[8:8 + hlen])
        np.testing.assert_array_equal(rpc.decode(payload)["k" * n].numpy(), np.arange(n + 1))


def test_subclasses_and_strings_still_take_the_general_path():
    class Level(enum.IntEnum):
        HIGH = 3

    out = rpc.decode(rpc.encode([Level.HIGH, np.array([b"ab", b""]), tf.constant(["x"]),
                                 True, None, 2.5, (1, [2])]))
    assert out[0] == 3 and type(out[0]) is int
    assert out[1].tolist() == [b"ab", b""]
    assert out[2].dtype == tf.string and out[2].numpy().tolist() == [b"x"]
    assert out[3:] == [True, None, 2.5, (1, [2])]


def test_malformed_dtype_names_and_shapes_are_refused():
    good = rpc.encode(np.zeros(2, np.float32))
    for old, new in ((b'"float32"', b'"nosuch"'), (b'"float32"', b'["f"]'), (b"[2]", b'["x"]'),
                     (b"[2]", b"[3]")):
        bad = _rehead(good.replace(old, new))
        with pytest.raises(tf.errors.InvalidArgumentError, match="Malformed"):
            rpc.decode(bad)


def _rehead(payload: bytes) -> bytes:
    """``payload`` with its header length field fixed after an edit of the header."""
    body = payload[8:]
    header_end = body.index(b"]]}") + 3
    json.loads(body[:header_end])  # the edited header still parses as JSON
    buffers = body[header_end:].lstrip(b" ")  # the header's padding (the buffer is zeros)
    return payload[:4] + struct.pack("<I", header_end) + body[:header_end] + buffers


@pytest.fixture(params=["inprocess", "grpc"])
def transport(request, monkeypatch):
    if request.param == "grpc":
        monkeypatch.setenv(rpc.LOCAL_ENV, "0")
    else:
        monkeypatch.delenv(rpc.LOCAL_ENV, raising=False)
    return request.param


def test_a_method_registered_again_serves_its_new_function(transport):
    srv = rpc.Server("127.0.0.1:0", token=TOKEN).start()
    try:
        srv.add_method("Which", lambda req, ctx: b"first")
        ch = rpc.Channel(srv.address, token=TOKEN)
        assert ch.call("Which", timeout=10.0) == b"first"
        assert ch.call("Which", timeout=10.0) == b"first"  # the kept handler
        srv.add_method("Which", lambda req, ctx: b"second")
        assert ch.call("Which", timeout=10.0) == b"second"
        with pytest.raises(tf.errors.UnimplementedError):
            ch.call("Missing", timeout=10.0)
        ch.close()
    finally:
        srv.stop()


def test_kept_handlers_still_check_the_token_of_every_call(transport):
    srv = rpc.Server("127.0.0.1:0", token=TOKEN)
    srv.add_method("Echo", lambda req, ctx: req)
    srv.start()
    try:
        good = rpc.Channel(srv.address, token=TOKEN)
        bad = rpc.Channel(srv.address, token=TOKEN[:-1] + "X")
        none = rpc.Channel(srv.address, token="")
        for _ in range(3):  # alternate, so a kept handler serves both kinds of caller
            assert good.call("Echo", b"hi", timeout=10.0) == b"hi"
            with pytest.raises(tf.errors.UnauthenticatedError):
                bad.call("Echo", b"hi", timeout=10.0)
            with pytest.raises(tf.errors.UnauthenticatedError):
                none.call("Echo", b"hi", timeout=10.0)
        for ch in (good, bad, none):
            ch.close()
    finally:
        srv.stop()
