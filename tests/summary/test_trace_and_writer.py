"""trace_on/trace_export, audio, write_raw_pb, and the event writer: files read back with
real TF's summary_iterator (and TensorBoard's event reader), no TF import at run time."""

from __future__ import annotations

import glob
import os
import subprocess
import sys
import textwrap

import numpy as np

import torchflow as tf
from torchflow._src.testing import real_tf


def _events(logdir):
    rtf = real_tf()
    out = []
    for path in sorted(glob.glob(os.path.join(logdir, "events.out.tfevents.*"))):
        out.extend(rtf.compat.v1.train.summary_iterator(path))
    return out


def test_event_file_reads_back_in_real_tf(tmp_path):
    w = tf.summary.create_file_writer(str(tmp_path))
    with w.as_default():
        for step in range(3):
            tf.summary.scalar("loss", 0.5 * step, step=step)
    w.close()
    ev = _events(tmp_path)
    assert ev[0].file_version == "brain.Event:2"
    rtf = real_tf()
    vals = [(e.step, e.summary.value[0].tag,
             float(rtf.make_ndarray(e.summary.value[0].tensor))) for e in ev[1:]]
    assert vals == [(0, "loss", 0.0), (1, "loss", 0.5), (2, "loss", 1.0)]


def test_trace_export_writes_tf_graph_run_metadata_event(tmp_path):
    rtf = real_tf()
    w = tf.summary.create_file_writer(str(tmp_path))
    tf.summary.trace_on(graph=True, profiler=False)
    tf.function(lambda x: x * 2)(tf.constant(1.0))
    with w.as_default():
        tf.summary.trace_export("my_trace", step=0)
    w.close()
    ev = [e for e in _events(tmp_path) if e.summary.value]
    assert len(ev) == 1
    v = ev[0].summary.value[0]
    assert v.tag == "my_trace"
    assert v.metadata.plugin_data.plugin_name == "graph_run_metadata_graph"
    # The tensor is a serialized RunMetadata, as TF writes it.
    run = rtf.compat.v1.RunMetadata.FromString(rtf.make_ndarray(v.tensor).item())
    assert isinstance(run, rtf.compat.v1.RunMetadata)
    # Export stopped the trace: a second export writes nothing.
    with w.as_default():
        tf.summary.trace_export("again", step=1)


def test_audio_is_tf_wav_summary(tmp_path):
    rtf = real_tf()
    clip = np.sin(np.linspace(0, 20, 800)).astype(np.float32).reshape(2, 400, 1)
    for m, d in ((tf, tmp_path / "ours"), (rtf, tmp_path / "tf")):
        w = m.summary.create_file_writer(str(d))
        with w.as_default():
            assert m.summary.audio("a", clip, 8000, step=3, max_outputs=1)
        w.close()
    (ours,), (theirs,) = ([e for e in _events(p) if e.summary.value]
                          for p in (tmp_path / "ours", tmp_path / "tf"))
    a, b = (rtf.make_ndarray(e.summary.value[0].tensor) for e in (ours, theirs))
    assert a.shape == b.shape == (1, 2)
    wa, _ = rtf.audio.decode_wav(a[0, 0])
    wb, _ = rtf.audio.decode_wav(b[0, 0])
    np.testing.assert_allclose(wa.numpy(), wb.numpy(), atol=1e-4)
    assert (ours.summary.value[0].metadata.plugin_data.plugin_name ==
            theirs.summary.value[0].metadata.plugin_data.plugin_name == "audio")


def test_write_raw_pb(tmp_path):
    rtf = real_tf()
    pb = rtf.compat.v1.Summary(value=[rtf.compat.v1.Summary.Value(tag="raw", simple_value=2.5)])
    w = tf.summary.create_file_writer(str(tmp_path))
    with w.as_default():
        assert tf.summary.experimental.write_raw_pb(pb.SerializeToString(), step=7)
    w.close()
    (e,) = [e for e in _events(tmp_path) if e.summary.value]
    assert (e.step, e.summary.value[0].tag, e.summary.value[0].simple_value) == (7, "raw", 2.5)


def test_no_tensorflow_import_with_summaries_and_tensorboard_callback(tmp_path):
    real_tf()  # the check means something only where tensorflow is installed
    prog = textwrap.dedent(f"""
        import sys
        import numpy as np
        import torchflow as tf
        logdir = {str(tmp_path)!r}
        w = tf.summary.create_file_writer(logdir + "/s")
        with w.as_default():
            tf.summary.scalar("s", 1.0, step=0)
            tf.summary.histogram("h", np.arange(10.0), step=0)
            tf.summary.image("i", np.zeros((1, 4, 4, 3), np.float32), step=0)
            tf.summary.text("t", "hello", step=0)
            tf.summary.trace_on()
            tf.summary.trace_export("g", step=0)
        w.close()
        model = tf.keras.Sequential([tf.keras.layers.Dense(2, input_shape=(3,))])
        model.compile("sgd", "mse")
        model.fit(np.ones((8, 3), np.float32), np.ones((8, 2), np.float32), epochs=2,
                  verbose=0, callbacks=[tf.keras.callbacks.TensorBoard(
                      logdir + "/k", histogram_freq=1, write_images=True)])
        bad = sorted(m for m in sys.modules if m == "tensorflow" or m.startswith("tensorflow."))
        print("TF_MODULES", bad)
    """)
    out = subprocess.run([sys.executable, "-c", prog], capture_output=True, text=True,
                         timeout=300)
    assert out.returncode == 0, out.stderr[-3000:]
    assert "TF_MODULES []" in out.stdout, out.stdout[-2000:]
    assert glob.glob(str(tmp_path / "k" / "train" / "events.out.tfevents.*"))
