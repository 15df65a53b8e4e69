"""In-process calls of ``core/rpc.py``: running a handler the way gRPC would.

When a channel's target is a server of the same process, ``rpc`` hands the request
bytes to that server's thread pool, where ``run_local`` runs the handler with a
context offering what handlers use of gRPC's (metadata, ``abort``) and turns every
outcome into what a gRPC client would see: the response bytes, or the TF error of the
same class and message (``rpc.error_from_rpc`` of the status the gRPC path sends).
"""

from __future__ import annotations

import grpc

from torchflow._src.core import errors

STATUS_BY_CODE = {s.value[0]: s for s in grpc.StatusCode}


class _Aborted(Exception):
    def __init__(self, code, details):
        super().__init__(details)
        self.code, self.details = code, details


class _LocalContext:
    """The handler context of an in-process call (what handlers use of gRPC's)."""

    def __init__(self, metadata):
        self._metadata = metadata

    def invocation_metadata(self):
        return self._metadata

    def abort(self, code, details):
        raise _Aborted(code, details)

    def is_active(self) -> bool:
        return True

    def peer(self) -> str:
        return "inprocess"


def _status_error(code, details) -> errors.OpError:
    """The TF error a client sees for a call that ended with ``code`` (as
    ``error_from_rpc``)."""
    num = code.value[0] if isinstance(code, grpc.StatusCode) else errors.UNKNOWN
    if num == errors.OK:
        num = errors.UNKNOWN
    return errors.exception_type_from_error_code(num)(None, None, details or str(code))


def run_local(method, payload: bytes, metadata, server_max: int, client_max: int):
    """Runs a handler for an in-process call; failures become the TF error a gRPC
    call would raise (the same class and message)."""
    try:
        out = bytes(method.fn(payload, _LocalContext(metadata)))
    except _Aborted as e:
        raise _status_error(e.code, e.details) from None
    except errors.OpError as e:
        status = STATUS_BY_CODE.get(e.error_code, grpc.StatusCode.UNKNOWN)
        raise _status_error(status, e.message or status.name) from None
    except Exception as e:  # noqa: BLE001 - every failure becomes a TF error, as over gRPC
        raise errors.UnknownError(None, None, f"{type(e).__name__}: {e}") from None
    n = len(out)
    limit = min(server_max, client_max)
    if n > limit:
        raise errors.ResourceExhaustedError(
            None, None, f"Received message larger than max ({n} vs. {limit})")
    return out
