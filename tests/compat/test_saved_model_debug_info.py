"""``SaveOptions(save_debug_info=True)``: ``debug/saved_model_debug_info.pb`` records
each node's creation stack, the user frames that made the op (file, line,
function), read with TF's own ``GraphDebugInfo`` proto.

Compared with the stacks real TF (2.21) records for the same program. TF 2.21
writes them as ``traces_by_id``/``frames_by_id``; TF 2.4's format, written here,
is the ``traces`` map (``"node@function"`` -> frames). torchflow's frames start at
the traced function's body (TF also lists the frames that called the trace).
"""

import os

import numpy as np
import pytest

import torchflow as tf
from torchflow._src.core.proto import tf_saved_model_pb2
from torchflow._src.testing import real_tf

pytestmark = pytest.mark.compat


def _helper(lib, x, w):
    return lib.matmul(x, w)


def _module(lib):
    class M(lib.Module):
        def __init__(self):
            super().__init__()
            self.w = lib.Variable(lib.ones([3, 2]))

        @lib.function(input_signature=[lib.TensorSpec([None, 3])])
        def f(self, x):
            y = _helper(lib, x, self.w)
            return lib.nn.relu(y) + 1.0

    return M()


def _this_file_frames(files, frames):
    here = os.path.abspath(__file__)
    return [(c.line, c.func) for c in frames if os.path.abspath(files[c.file_index]) == here]


def _function_nodes(path, fn_prefix):
    sm = tf_saved_model_pb2.SavedModel()
    with open(os.path.join(path, "saved_model.pb"), "rb") as f:
        sm.ParseFromString(f.read())
    for fd in sm.meta_graphs[0].graph_def.library.function:
        if fd.signature.name.startswith(fn_prefix):
            return fd.signature.name, {n.op: n.name for n in fd.node_def}
    raise AssertionError(fn_prefix)


def _frames_by_op(path, fn_prefix, pb2):
    info = pb2.GraphDebugInfo()
    with open(os.path.join(path, "debug", "saved_model_debug_info.pb"), "rb") as f:
        info.ParseFromString(f.read())
    fname, nodes = _function_nodes(path, fn_prefix)
    out = {}
    for op, name in nodes.items():
        key = f"{name}@{fname}"
        if key in info.traces:
            frames = list(info.traces[key].file_line_cols)
        elif key in info.name_to_trace_id:  # TF >= 2.12's layout
            trace = info.traces_by_id[info.name_to_trace_id[key]]
            frames = [info.frames_by_id[i] for i in trace.frame_id]
        else:
            continue
        out[op] = _this_file_frames(info.files, frames)
    return out, info


def test_debug_info_holds_each_ops_user_frames_as_tf_does(tmp_path):
    rtf = real_tf()
    from tensorflow.core.framework import graph_debug_info_pb2  # TF's own proto

    ours_dir, theirs_dir = str(tmp_path / "ours"), str(tmp_path / "theirs")
    tf.saved_model.save(_module(tf), ours_dir,
                        options=tf.saved_model.SaveOptions(save_debug_info=True))
    rtf.saved_model.save(_module(rtf), theirs_dir,
                         options=rtf.saved_model.SaveOptions(save_debug_info=True))
    ours, info = _frames_by_op(ours_dir, "__inference_f_", graph_debug_info_pb2)
    theirs, _ = _frames_by_op(theirs_dir, "__inference_f_", graph_debug_info_pb2)
    assert len(info.traces) > 0 and not info.traces_by_id  # TF 2.4's layout
    assert not any("/torchflow/" in f for f in info.files)  # library frames left out
    assert ours["MatMul"][-1][1] == "_helper" and ours["MatMul"][-2][1] == "f"
    assert ours["Relu"][-1][1] == "f" and ours["Relu"][-1][0] != ours["MatMul"][-2][0]
    for op in ("MatMul", "Relu", "AddV2"):
        n = len(ours[op])
        assert ours[op] == theirs[op][-n:], (op, ours[op], theirs[op])
    # The output's Identity is no user op's: the body's first line.
    assert len(ours["Identity"]) == 1 and ours["Identity"][0][1] == "f"
    loaded = rtf.saved_model.load(ours_dir)
    np.testing.assert_allclose(loaded.f(rtf.ones([1, 3])).numpy(), [[4.0, 4.0]])
