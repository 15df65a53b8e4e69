"""``tf.io.write_graph``: a GraphDef written as a binary or text protocol buffer."""

from __future__ import annotations

import os
import uuid

from google.protobuf import text_format

from torchflow._src.ops import io_ops
from torchflow._src.util.api import public


@public("torchflow.io")
def write_graph(graph_or_graph_def, logdir, name, as_text=True) -> str:
    """Writes a graph's GraphDef to ``logdir/name``.

    The file is what TF writes: protobuf's text format or the deterministic
    binary serialization, written atomically (a temporary file renamed into
    place). ``logdir`` is created if missing.

    Args:
      graph_or_graph_def: A graph (``concrete_fn.graph``) or a ``GraphDef``.
      logdir: The directory to write to (local path or a gfile scheme).
      name: The file name.
      as_text: If True, the text format; otherwise binary.

    Returns:
      The path of the file written.

    Raises:
      ValueError: If the GraphDef is 2 GB or larger.

    >>> import os, tempfile, torchflow as tf
    >>> f = tf.function(lambda x: x + 1).get_concrete_function(tf.TensorSpec([], tf.float32))
    >>> path = tf.io.write_graph(f.graph, tempfile.mkdtemp(), "g.pbtxt")
    >>> "op: \\"AddV2\\"" in open(path).read()
    True
    """
    graph_def = graph_or_graph_def
    if hasattr(graph_def, "as_graph_def"):
        graph_def = graph_def.as_graph_def()
    if graph_def.ByteSize() >= 1 << 31:
        raise ValueError("Graph def proto is too large (2GB limit).")
    logdir = os.fspath(logdir)
    if not io_ops.exists(logdir):
        io_ops.makedirs(logdir)
    path = os.path.join(logdir, name)
    if as_text:
        data = text_format.MessageToString(graph_def).encode()
    else:
        data = graph_def.SerializeToString(deterministic=True)
    tmp = f"{path}.tmp{uuid.uuid4().hex}"
    with io_ops.GFile(tmp, "wb") as f:
        f.write(data)
    io_ops.rename(tmp, path, overwrite=True)
    return path
