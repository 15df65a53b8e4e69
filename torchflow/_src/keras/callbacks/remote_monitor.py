"""``tf.keras.callbacks.RemoteMonitor``: POSTs each epoch's logs to a server."""

from __future__ import annotations

import json
import logging
import urllib.error
import urllib.parse
import urllib.request

import numpy as np

from torchflow._src.keras.callbacks.callback import Callback
from torchflow._src.util.api import public

_log = logging.getLogger("torchflow")


@public("torchflow.keras.callbacks")
class RemoteMonitor(Callback):
    """Sends ``{"epoch": epoch, **logs}`` with an HTTP POST at the end of each epoch.

    By default the JSON goes form-encoded in the field ``field``; with
    ``send_as_json=True`` it is the request body (``application/json``). An
    unreachable server only logs a warning. Uses the standard library
    (``urllib``), so no extra dependency is needed.

    Args:
      root: Root URL of the server.
      path: Path relative to ``root``.
      field: Form field holding the JSON (when not ``send_as_json``).
      headers: Optional dict of extra HTTP headers.
      send_as_json: Send the JSON itself as the request body.
    """

    def __init__(self, root="http://localhost:9000", path="/publish/epoch/end/", field="data",
                 headers=None, send_as_json=False):
        super().__init__()
        self.root = root
        self.path = path
        self.field = field
        self.headers = headers
        self.send_as_json = send_as_json

    def on_epoch_end(self, epoch, logs=None):
        send = {"epoch": epoch}
        for k, v in (logs or {}).items():
            if hasattr(v, "numpy"):
                v = v.numpy()
            send[k] = v.item() if isinstance(v, (np.ndarray, np.generic)) else v
        headers = dict(self.headers or {})
        if self.send_as_json:
            body = json.dumps(send).encode()
            headers.setdefault("Content-Type", "application/json")
        else:
            body = urllib.parse.urlencode({self.field: json.dumps(send)}).encode()
            headers.setdefault("Content-Type", "application/x-www-form-urlencoded")
        request = urllib.request.Request(self.root + self.path, data=body, headers=headers,
                                         method="POST")
        try:
            with urllib.request.urlopen(request, timeout=10) as response:
                response.read()
        except (urllib.error.URLError, OSError):
            _log.warning("Warning: could not reach RemoteMonitor root server at %s", self.root)
