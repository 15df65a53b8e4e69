"""torchflow's RPC call against a raw grpcio unary round trip of the same bytes.

One process, one run: a raw grpcio server (a generic echo method, no framing, no
checks) and a torchflow ``core/rpc.py`` server (cluster token, deadline, error
mapping, size limits) side by side on 127.0.0.1, both over gRPC (in-process
hand-off turned off for the torchflow channel: this measures the wire path).
For each payload (a float32 tensor of 0 B, 4 KB and 1 MB) it times, interleaved:

- ``raw``: ``stub(tensor_bytes)`` echoed back (grpcio alone);
- ``tf/bytes``: ``Channel.call("Echo", tensor_bytes)``: the transport's own cost
  (token metadata and check, deadline, retry loop, error mapping);
- ``tf/tensor``: ``decode(call("Echo", encode({"t": tensor})))`` with the handler
  decoding and re-encoding the tensor: what a variable read costs end to end
  (framing both ways, a writable tensor out);
- ``tf/local``: the same as ``tf/tensor`` through the in-process hand-off (a
  channel to a server of this process), for reference.

Medians of ``--repeats`` rounds of ``--calls`` calls each, wall time and CPU time
(client and server threads: all in this process, so a loaded machine's scheduling
delays drop out); ratios to ``raw`` (issue 14's goal: within 2x). ``--profile`` also prints a cProfile of the
``tf/tensor`` 4 KB loop (where the time beyond grpcio goes).

    .venv/bin/python benchmarks/bench_rpc.py [--calls 300] [--repeats 5] [--profile]
"""

from __future__ import annotations

import argparse
import cProfile
import os
import pstats
import statistics
import time
from concurrent import futures

import grpc
import numpy as np

import torchflow as tf
from torchflow._src.core import rpc

SIZES = (("0 B", 0), ("4 KB", 4096), ("1 MB", 1 << 20))


def _raw_server():
    def echo(request, ctx):
        return request

    handler = grpc.method_handlers_generic_handler(
        "bench.Echo", {"Echo": grpc.unary_unary_rpc_method_handler(echo)})
    server = grpc.server(futures.ThreadPoolExecutor(max_workers=16))
    server.add_generic_rpc_handlers((handler,))
    port = server.add_insecure_port("127.0.0.1:0")
    server.start()
    channel = grpc.insecure_channel(f"127.0.0.1:{port}")
    return server, channel, channel.unary_unary("/bench.Echo/Echo")


def _tf_server(token: str) -> rpc.Server:
    srv = rpc.Server("127.0.0.1:0", token=token)
    srv.add_method("Echo", lambda req, ctx: req)
    srv.add_method("Tensor", lambda req, ctx: rpc.encode({"t": rpc.decode(req)["t"]}))
    return srv.start()


def _time(fn, calls: int) -> tuple:
    """(wall seconds, CPU seconds of this process: client and server) per call."""
    t0, c0 = time.perf_counter(), time.process_time()
    for _ in range(calls):
        fn()
    return (time.perf_counter() - t0) / calls, (time.process_time() - c0) / calls


def main() -> None:
    p = argparse.ArgumentParser()
    p.add_argument("--calls", type=int, default=300)
    p.add_argument("--repeats", type=int, default=5)
    p.add_argument("--profile", action="store_true")
    ns = p.parse_args()
    token = "bench-" + os.urandom(8).hex()
    raw_server, raw_channel, stub = _raw_server()
    srv = _tf_server(token)
    os.environ[rpc.LOCAL_ENV] = "0"
    wire = rpc.Channel(srv.address, token=token)  # over gRPC
    os.environ.pop(rpc.LOCAL_ENV)
    local = rpc.Channel(srv.address, token=token)  # in-process hand-off

    cases = {}
    for label, nbytes in SIZES:
        t = tf.constant(np.arange(nbytes // 4, dtype=np.float32))
        raw = t.numpy().tobytes()

        def tensor_call(ch=wire, t=t):
            return rpc.decode(ch.call("Tensor", rpc.encode({"t": t}), timeout=10.0))["t"]

        cases[label] = {
            "raw": lambda raw=raw: stub(raw, timeout=10.0),
            "tf/bytes": lambda raw=raw: wire.call("Echo", raw, timeout=10.0),
            "tf/tensor": tensor_call,
            "tf/local": lambda t=t: tensor_call(local, t),
        }
        out = tensor_call()
        np.testing.assert_array_equal(out.numpy(), t.numpy())  # the round trip is exact
    kinds = ("raw", "tf/bytes", "tf/tensor", "tf/local")
    times: dict = {}
    for label, _ in SIZES:  # warm up every path
        for kind in kinds:
            _time(cases[label][kind], 30)
    for _ in range(ns.repeats):  # interleaved: load drift hits every path alike
        for label, nbytes in SIZES:
            calls = ns.calls if nbytes < (1 << 20) else max(20, ns.calls // 10)
            for kind in kinds:
                times.setdefault((label, kind), []).append(_time(cases[label][kind], calls))
    def med(label, kind, which):
        return statistics.median(t[which] for t in times[(label, kind)])

    for which, what in ((0, "wall"), (1, "CPU (client + server, this process)")):
        print(f"median us per call, {what} ({ns.repeats} rounds; load "
              f"{os.getloadavg()[0]:.1f}); ratio to raw grpcio in ()")
        print(f"{'payload':>8} " + " ".join(f"{k:>18}" for k in kinds))
        for label, _ in SIZES:
            base = med(label, "raw", which)
            cells = [f"{med(label, k, which) * 1e6:9.1f} ({med(label, k, which) / base:4.2f}x)"
                     for k in kinds]
            print(f"{label:>8} " + " ".join(f"{c:>18}" for c in cells))
    for which, what in ((0, "wall"), (1, "CPU")):
        for label, _ in SIZES:
            r = med(label, "tf/tensor", which) / med(label, "raw", which)
            print(f"goal: tf/tensor within 2x raw at {label} ({what}): {r:.2f}x "
                  f"({'met' if r <= 2 else 'NOT met'})")
    if ns.profile:
        prof = cProfile.Profile()
        fn = cases["4 KB"]["tf/tensor"]
        prof.enable()
        _time(fn, 2000)
        prof.disable()
        pstats.Stats(prof).sort_stats("tottime").print_stats(25)
    wire.close()
    local.close()
    srv.stop()
    raw_channel.close()
    raw_server.stop(None)


if __name__ == "__main__":
    main()
