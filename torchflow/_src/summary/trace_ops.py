"""``tf.summary.trace_on`` / ``trace_off`` / ``trace_export``, ``audio``, ``write_raw_pb``.

TF records the graphs of the ``tf.function`` calls made between ``trace_on`` and
``trace_export`` and writes them (with profiler data when ``profiler=True``) for
TensorBoard's Graphs tab. torchflow's functions keep no TF ``GraphDef`` yet, so
``trace_export`` writes TF's ``graph_run_metadata_graph`` summary with a
``RunMetadata`` naming the traced calls (one ``function_graphs`` entry per
distinct function, without its graph): a valid event that TensorBoard lists
under the tag, with an empty graph.
"""

from __future__ import annotations

import io
import logging
import time
import wave

import numpy as np
from tensorboard.compat.proto import config_pb2, event_pb2, summary_pb2
from tensorboard.plugins.audio import metadata as am

from torchflow._src.core import context
from torchflow._src.summary import summary_ops
from torchflow._src.util.api import public

_log = logging.getLogger("torchflow")
_state = {"on": False, "graph": False, "profiler": False}


@public("torchflow.summary")
def trace_on(graph=True, profiler=False) -> None:
    """Starts a trace of the ``tf.function`` calls that follow.

    Args:
      graph: Whether to record the functions' graphs.
      profiler: Whether to also record profiler data (TF writes it to
        ``trace_export``'s ``profiler_outdir``).

    Differences from TensorFlow 2.4: no graph or profile is collected (see the
    module docstring); ``trace_export`` writes an event without a graph, and
    ``profiler=True`` logs a warning instead of profiling (use
    ``tf.profiler.experimental.start``).
    """
    if _state["on"]:
        _log.warning("Trace already enabled")
        return
    if profiler:
        _log.warning("tf.summary.trace_on(profiler=True): torchflow collects no profile "
                     "here; use tf.profiler.experimental.start/stop.")
    _state.update(on=True, graph=bool(graph), profiler=bool(profiler))


@public("torchflow.summary")
def trace_off() -> None:
    """Stops the current trace (``trace_on``) and discards what it collected.

    Nothing is written; use ``trace_export`` to write the trace instead.
    """
    _state.update(on=False, graph=False, profiler=False)


@public("torchflow.summary")
def trace_export(name, step=None, profiler_outdir=None) -> None:
    """Writes the trace started by ``trace_on`` to the default writer, then stops it.

    Args:
      name: The summary's tag.
      step: The step; default ``tf.summary.experimental.get_step()``.
      profiler_outdir: Where TF writes profiler data (unused, see ``trace_on``).

    Raises:
      ValueError: If there is a default writer but no step.
    """
    if not _state["on"]:
        _log.warning("Cannot export trace because trace has not been started.")
        return
    try:
        if context.thread_state().summary_writer is None:
            _log.warning("Cannot export trace because the default writer is not set.")
            return
        if _state["graph"]:
            md = summary_pb2.SummaryMetadata()
            md.plugin_data.plugin_name = "graph_run_metadata_graph"
            md.plugin_data.content = b"1"
            run = config_pb2.RunMetadata()
            summary_ops.write(name, np.array(run.SerializeToString(), dtype=object), step=step,
                              metadata=md)
    finally:
        trace_off()


def _wav(clip: np.ndarray, sample_rate: int) -> bytes:
    pcm = (np.clip(clip, -1.0, 1.0) * 32767.0).round().astype("<i2")
    buf = io.BytesIO()
    with wave.open(buf, "wb") as w:
        w.setnchannels(clip.shape[1])
        w.setsampwidth(2)
        w.setframerate(sample_rate)
        w.writeframes(pcm.tobytes())
    return buf.getvalue()


@public("torchflow.summary")
def audio(name, data, sample_rate, step=None, max_outputs=3, encoding=None,
          description=None) -> bool:
    """Writes up to ``max_outputs`` clips of a ``[k, t, c]`` float batch as WAV.

    Args:
      name: The summary's name.
      data: ``[k, t, c]`` floats in ``[-1, 1]`` (k clips, t frames, c channels).
      sample_rate: Samples per second (a scalar).
      step: The step; default ``tf.summary.experimental.get_step()``.
      max_outputs: At most this many clips are written.
      encoding: ``"wav"`` or None (the only encoding TF 2.4 supports).
      description: Optional long description.

    Returns:
      True if written, False if there is no default writer or recording is off.

    Raises:
      ValueError: If ``encoding`` is not ``"wav"``/None or ``data`` is not rank 3.
    """
    if encoding not in (None, "wav"):
        raise ValueError(f"Unknown encoding: {encoding!r}")
    if not summary_ops.should_record_summaries():
        return False
    arr = np.asarray(summary_ops._to_numpy(data), np.float64)
    if arr.ndim != 3:
        raise ValueError(f"Shape {list(arr.shape)} must have rank 3")
    rate = int(summary_ops._to_numpy(sample_rate))
    clips = [_wav(c, rate) for c in arr[: max(0, int(max_outputs))]]
    content = np.array([[c, b""] for c in clips], dtype=object).reshape(len(clips), 2)
    md = am.create_summary_metadata(display_name=None, description=description or "",
                                    encoding=am.Encoding.Value("WAV"))
    return summary_ops._write(name, content, step, md)


@public("torchflow.summary.experimental")
def write_raw_pb(tensor, step=None, name=None) -> bool:
    """Writes serialized ``Summary`` protos as events of the default writer.

    Args:
      tensor: A string Tensor of any shape: each element a serialized ``Summary``.
      step: The step; None takes ``tf.summary.experimental.get_step()``.
      name: A name for the operation (optional).

    Returns:
      True if written, False if there is no default writer or recording is off.

    Raises:
      ValueError: no step is given or set.
    """
    if not summary_ops.should_record_summaries():
        return False
    step = summary_ops._resolve_step(step)
    writer = context.thread_state().summary_writer
    for pb in np.asarray(summary_ops._to_numpy(tensor), dtype=object).reshape(-1):
        writer.add_event(event_pb2.Event(wall_time=time.time(), step=step,
                                         summary=summary_pb2.Summary.FromString(bytes(pb))))
    return True
