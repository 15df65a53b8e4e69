#!/bin/sh
# Regenerates torchflow/_src/core/proto/tf_*_pb2.py from the tf_*.proto schemas
# (TensorFlow's published .proto files, TF's package names) with protobuf's own
# compiler, then points each module at torchflow's private descriptor pool
# (tf_pool.py) instead of protobuf's default one, so that a real TensorFlow can
# be imported into the same process. Run from the repository root:
#   sh tools/gen_tf_protos.sh
set -eu
PY=${PY:-.venv/bin/python}
DIR=torchflow/_src/core/proto
"$PY" -m grpc_tools.protoc -I. --python_out=. --pyi_out=. "$DIR"/tf_*.proto
for f in "$DIR"/tf_*_pb2.py; do
  sed -i \
    -e 's/^from google.protobuf import descriptor_pool as _descriptor_pool$/from torchflow._src.core.proto.tf_pool import POOL as _TF_POOL/' \
    -e 's/_descriptor_pool\.Default()\.AddSerializedFile/_TF_POOL.AddSerializedFile/' \
    "$f"
done
