"""RemoteMonitor (against a local HTTP server, no network) and BaseLogger, compared with
real tf.keras given the same logs."""

import http.server
import json
import socket
import threading
import urllib.parse

import numpy as np
import pytest

import torchflow as tf
from torchflow._src.testing import real_tf


@pytest.fixture()
def server():
    received = []

    class Handler(http.server.BaseHTTPRequestHandler):
        def do_POST(self):
            body = self.rfile.read(int(self.headers["Content-Length"]))
            received.append((self.path, self.headers["Content-Type"], body))
            self.send_response(200)
            self.end_headers()

        def log_message(self, *args):
            pass

    httpd = http.server.HTTPServer(("127.0.0.1", 0), Handler)
    thread = threading.Thread(target=httpd.serve_forever, daemon=True)
    thread.start()
    yield f"http://127.0.0.1:{httpd.server_address[1]}", received
    httpd.shutdown()
    httpd.server_close()
    thread.join(timeout=10)


def _payload(content_type, body):
    if content_type == "application/json":
        return json.loads(body)
    return {k: json.loads(v[0]) for k, v in urllib.parse.parse_qs(body.decode()).items()}


@pytest.mark.parametrize("kwargs", [{}, {"send_as_json": True}, {"field": "metrics",
                                                                  "path": "/x/"}])
def test_remote_monitor_posts_what_tf_keras_posts(server, kwargs):
    root, received = server
    logs = {"loss": np.float32(0.5), "val_acc": np.float64(0.25), "n": 3}
    for lib in (tf, real_tf()):
        cb = lib.keras.callbacks.RemoteMonitor(root=root, **kwargs)
        cb.on_epoch_end(2, dict(logs))
    assert len(received) == 2
    (p0, t0, b0), (p1, t1, b1) = received
    assert p0 == p1 == kwargs.get("path", "/publish/epoch/end/")
    assert t0.split(";")[0] == t1.split(";")[0]
    assert _payload(t0, b0) == _payload(t1, b1)
    assert "epoch" in json.dumps(_payload(t0, b0))


def test_remote_monitor_unreachable_server_only_warns(caplog):
    with socket.socket() as s:  # a port nothing listens on
        s.bind(("127.0.0.1", 0))
        port = s.getsockname()[1]
    cb = tf.keras.callbacks.RemoteMonitor(root=f"http://127.0.0.1:{port}")
    cb.on_epoch_end(0, {"loss": 1.0})
    assert "could not reach RemoteMonitor" in caplog.text


def test_base_logger_matches_tf_keras():
    out = []
    for lib in (tf, real_tf()):
        cb = lib.keras.callbacks.BaseLogger(stateful_metrics=["acc"])
        cb.set_params({"metrics": ["loss", "acc", "missing"]})
        cb.on_epoch_begin(0)
        for i, size in enumerate((4, 4, 2)):
            cb.on_batch_end(i, {"size": size, "loss": float(i + 1), "acc": 0.1 * i})
        logs = {}
        cb.on_epoch_end(0, logs)
        out.append(logs)
    assert out[0] == pytest.approx(out[1])
    assert out[0]["loss"] == pytest.approx((4 * 1 + 4 * 2 + 2 * 3) / 10)
