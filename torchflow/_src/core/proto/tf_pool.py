"""The descriptor pool that torchflow's copies of TensorFlow's protos live in.

TensorFlow's messages keep their own package (``tensorflow.BundleEntryProto``),
so bytes and type URLs match TensorFlow's. A real TensorFlow imported into the
same process registers the same symbols in protobuf's default pool, which
refuses a second definition ("duplicate symbol 'tensorflow.DataType'"), so the
``tf_*_pb2`` modules register here instead (``tools/gen_tf_protos.sh`` points
protoc's output at this pool).
"""

from google.protobuf import any_pb2, descriptor_pool

POOL = descriptor_pool.DescriptorPool()
# protobuf's well-known types that TF's schemas import (``meta_graph.proto`` and
# ``saved_object_graph.proto`` hold ``google.protobuf.Any`` fields) must be in
# this pool too; a new pool starts empty.
POOL.AddSerializedFile(any_pb2.DESCRIPTOR.serialized_pb)
