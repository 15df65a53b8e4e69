"""Regenerates torchflow's profiler proto modules (xplane, profiler service) with protoc.

Run from the repository root: ``.venv/bin/python tools/gen_profiler_protos.py``
(needs grpcio-tools, a dev tool; the generated modules are committed).

The .proto files keep TF's package names (``tensorflow.profiler``, ``tensorflow``), so
messages and gRPC method paths match TF's on the wire. Their descriptors are loaded into
the pool of torchflow's TF protos (``_src/core/proto/tf_pool.py``) instead of protobuf's
default one: real TensorFlow ships its own ``xplane_pb2`` with the same symbols, and two files
defining ``tensorflow.profiler.XSpace`` in one pool fail at import ("duplicate symbol")
when a test process loads both.
"""

from __future__ import annotations

import re
import subprocess
import sys
from pathlib import Path

PROTO_DIR = Path("torchflow/_src/core/proto")
PROTOS = ["xplane.proto", "profiler_options.proto", "profiler_service.proto"]
POOL_IMPORT = "from torchflow._src.core.proto.tf_pool import POOL as _TF_POOL\n"


def main() -> int:
    protos = [str(PROTO_DIR / p) for p in PROTOS if (PROTO_DIR / p).exists()]
    subprocess.run([sys.executable, "-m", "grpc_tools.protoc", "-I.", "--python_out=.",
                    "--pyi_out=.", *protos], check=True)
    for proto in protos:
        for suffix in ("_pb2.py", "_pb2_grpc.py"):
            path = Path(proto[: -len(".proto")] + suffix)
            if not path.exists():
                continue
            text = path.read_text()
            if suffix == "_pb2_grpc.py" and "class " not in text:
                path.unlink()  # no service in this file
                continue
            if suffix == "_pb2.py":
                text = text.replace("_descriptor_pool.Default()", "_TF_POOL")
                text = re.sub(r"(# @@protoc_insertion_point\(imports\)\n)",
                              POOL_IMPORT + r"\1", text, count=1)
            path.write_text(text)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
