"""``tf.summary`` ops: scalar, histogram, image, text and generic ``write``.

Each op writes one ``Summary.Value`` in TensorFlow 2's tensor form with its
TensorBoard plugin's metadata, through the thread's default writer. With no
default writer, or while recording is off, ops write nothing and return False.
"""

from __future__ import annotations

import contextlib
import time

import numpy as np
from tensorboard.compat.proto import event_pb2, summary_pb2
from tensorboard.plugins.histogram import metadata as hm
from tensorboard.plugins.image import metadata as im
from tensorboard.plugins.scalar import metadata as sm
from tensorboard.plugins.text import metadata as tm
from tensorboard.util import tensor_util

from torchflow._src.core import context
from torchflow._src.core.convert import convert_to_tensor
from torchflow._src.core.variable_scope import current_name_scope
from torchflow._src.ops.image_codec_ops import png_bytes
from torchflow._src.util.api import public

DEFAULT_BUCKET_COUNT = 30


def _to_numpy(x):
    if hasattr(x, "numpy"):
        return np.asarray(x.numpy())
    if isinstance(x, (np.ndarray, np.generic)):
        return np.asarray(x)
    return np.asarray(convert_to_tensor(x).numpy())


def _condition_true(cond) -> bool:
    if callable(cond):
        cond = cond()
    return bool(_to_numpy(cond)) if not isinstance(cond, bool) else cond


@public("torchflow.summary")
def should_record_summaries() -> bool:
    """Whether summary ops record now.

    Returns:
      True if a default writer is set and the ``record_if`` condition holds.
    """
    st = context.thread_state()
    return st.summary_writer is not None and _condition_true(st.summary_record_if)


@public("torchflow.summary")
@contextlib.contextmanager
def record_if(condition):
    """A context in which summaries are written only while ``condition`` holds.

    Args:
      condition: A bool, a scalar boolean tensor, or a callable returning one
        (evaluated at each summary op).
    """
    st = context.thread_state()
    old = st.summary_record_if
    st.summary_record_if = condition
    try:
        yield
    finally:
        st.summary_record_if = old


@public("torchflow.summary.experimental")
def get_step():
    """The default step for summary ops.

    Returns:
      The step set by ``set_step`` or ``as_default(step=)``: an int, an int64
      variable, or None when none is set.
    """
    return context.thread_state().summary_step


@public("torchflow.summary.experimental")
def set_step(step) -> None:
    """Sets the default step of summary ops that are given no ``step``.

    Args:
      step: An int, or an int64 ``tf.Variable`` (read at each summary op, so
        ``step.assign_add(1)`` moves it), or None to clear it.
    """
    context.thread_state().summary_step = step


def _resolve_step(step) -> int:
    if step is None:
        step = context.thread_state().summary_step
    if step is None:
        raise ValueError("No step set. Please specify one either through the `step` argument "
                         "or through tf.summary.experimental.set_step()")
    return int(_to_numpy(step))


def _tag(name: str) -> str:
    scope = current_name_scope()
    return f"{scope}{name}" if scope and scope.endswith("/") else (
        f"{scope}/{name}" if scope else name)


def _write(name, array: np.ndarray, step, metadata) -> bool:
    if not should_record_summaries():
        return False
    step = _resolve_step(step)
    value = summary_pb2.Summary.Value(tag=_tag(name), metadata=metadata,
                                      tensor=tensor_util.make_tensor_proto(array))
    event = event_pb2.Event(wall_time=time.time(), step=step,
                            summary=summary_pb2.Summary(value=[value]))
    context.thread_state().summary_writer.add_event(event)
    return True


@public("torchflow.summary")
def scalar(name, data, step=None, description=None) -> bool:
    """Writes a scalar summary.

    Args:
      name: The summary's name (prefixed by the current name scope).
      data: A real numeric scalar (tensor or Python number).
      step: The step; default ``tf.summary.experimental.get_step()``.
      description: Optional long description.

    Returns:
      True if written, False if there is no default writer or recording is off.

    Raises:
      ValueError: If there is a writer but no step.
    """
    if not should_record_summaries():
        return False
    value = _to_numpy(data)
    if value.size != 1:
        raise ValueError(f"tf.summary.scalar: expected a scalar, got shape {value.shape}")
    md = sm.create_summary_metadata(display_name=None, description=description or "")
    return _write(name, value.reshape(()).astype(np.float32), step, md)


def histogram_buckets(data: np.ndarray, buckets: int | None) -> np.ndarray:
    """``[k, 3]`` float64 rows ``[left, right, count]`` as TF 2.4's histogram."""
    k = DEFAULT_BUCKET_COUNT if buckets is None else max(0, int(buckets))
    x = np.asarray(data, dtype=np.float64).reshape(-1)
    if x.size == 0 or k == 0:
        return np.zeros((0, 3), np.float64)
    lo, hi = float(x.min()), float(x.max())
    if hi == lo:
        return np.array([[lo - 0.5, hi + 0.5, float(x.size)]], np.float64)
    width = (hi - lo) / k
    idx = np.minimum(np.floor((x - lo) / width).astype(np.int64), k - 1)
    counts = np.bincount(idx, minlength=k).astype(np.float64)
    edges = np.linspace(lo, hi, k + 1)
    return np.stack([edges[:-1], edges[1:], counts], axis=1)


@public("torchflow.summary")
def histogram(name, data, step=None, buckets=None, description=None) -> bool:
    """Writes a histogram of ``data`` (any shape) in ``buckets`` buckets (default 30).

    Args:
      name: str: the summary's name (the tag prefix is the name scope).
      data: A numeric tensor of any shape.
      step: None (default: ``tf.summary.experimental.get_step()``) or an int64-convertible
        step.
      buckets: None (default: 30) or a positive int: the number of buckets.
      description: None (default) or a str: Markdown shown in TensorBoard.

    Raises:
      ValueError: If ``step`` is None and no default step is set.

    Returns:
      True if written, False otherwise.
    """
    if not should_record_summaries():
        return False
    md = hm.create_summary_metadata(display_name=None, description=description or "")
    return _write(name, histogram_buckets(_to_numpy(data), buckets), step, md)


def _to_uint8(images: np.ndarray) -> np.ndarray:
    if images.dtype == np.uint8:
        return images
    if images.dtype.kind == "f":
        return (np.clip(images.astype(np.float64), 0.0, 1.0) * 255.0 + 0.5).astype(np.uint8)
    raise ValueError(f"tf.summary.image: expected uint8 or float images, got {images.dtype}")


@public("torchflow.summary")
def image(name, data, step=None, max_outputs=3, description=None) -> bool:
    """Writes up to ``max_outputs`` images of a ``[k, h, w, c]`` batch as PNGs.

    Args:
      data: ``[k, h, w, c]`` with ``c`` in 1, 3, 4; floats in [0, 1] or uint8.

    Returns:
      True if written, False otherwise.

    Raises:
      ValueError: If ``data`` is not a rank-4 image batch.
    """
    if not should_record_summaries():
        return False
    arr = _to_numpy(data)
    if arr.ndim != 4 or arr.shape[-1] not in (1, 3, 4):
        raise ValueError(f"tf.summary.image: expected a [k, h, w, c] tensor with c in 1, 3 or "
                         f"4, got shape {list(arr.shape)}")
    pics = _to_uint8(arr[: max(0, int(max_outputs))])
    h, w = arr.shape[1], arr.shape[2]
    content = np.array([str(w).encode(), str(h).encode()] + [png_bytes(p) for p in pics],
                       dtype=object)
    md = im.create_summary_metadata(display_name=None, description=description or "")
    return _write(name, content, step, md)


@public("torchflow.summary")
def text(name, data, step=None, description=None) -> bool:
    """Writes a string tensor (rendered as Markdown by TensorBoard).

    Args:
      name: str: the summary's name.
      data: A string tensor (or convertible).
      step: None (default: ``tf.summary.experimental.get_step()``) or an int64-convertible
        step.
      description: None (default) or a str: Markdown shown in TensorBoard.

    Raises:
      ValueError: If ``step`` is None and no default step is set.

    Returns:
      True if written, False otherwise.
    """
    if not should_record_summaries():
        return False
    arr = _to_numpy(data)
    arr = np.vectorize(lambda s: s.encode() if isinstance(s, str) else s, otypes=[object])(arr) \
        if arr.size else arr.astype(object)
    md = tm.create_summary_metadata(display_name=None, description=description or "")
    return _write(name, arr.astype(object), step, md)


@public("torchflow.summary")
def write(tag, tensor, step=None, metadata=None, name=None) -> bool:
    """Writes a raw tensor summary with optional ``SummaryMetadata`` (or its bytes).

    Args:
      tag: str: the summary's tag.
      tensor: The tensor (or a callable returning it) to write.
      step: None (default: ``tf.summary.experimental.get_step()``) or an int64-convertible
        step.
      metadata: None (default), a ``SummaryMetadata`` proto or its serialized bytes.
      name: Unused (eager).

    Raises:
      ValueError: If ``step`` is None and no default step is set.

    Returns:
      True if written, False otherwise.
    """
    if not should_record_summaries():
        return False
    if metadata is None:
        md = summary_pb2.SummaryMetadata()
    elif isinstance(metadata, bytes):
        md = summary_pb2.SummaryMetadata.FromString(metadata)
    else:
        md = metadata
    arr = _to_numpy(tensor)
    if arr.dtype.kind in "US":
        arr = arr.astype(object)
    return _write(tag, arr, step, md)


@public("torchflow.summary")
def flush(writer=None, name=None) -> None:
    """Flushes ``writer`` (default: the default writer).

    Args:
      writer: None (default: the default writer) or a ``SummaryWriter``.
      name: Unused (eager).

    Returns:
      None.
    """
    w = writer if writer is not None else context.thread_state().summary_writer
    if w is not None:
        w.flush()


@public("torchflow.summary.experimental")
@contextlib.contextmanager
def summary_scope(name, default_name=None, values=None):
    """A name scope for a custom summary op: yields the ``(tag, scope)`` pair to use.

    Args:
      name: str, the summary's name (its tag).
      default_name: str, used when ``name`` is None.
      values: Accepted for TF compatibility; ignored.

    Yields:
      ``(tag, scope)``: the tag to write and the scope name (the same str here).
    """
    n = name or default_name
    yield _tag(n), _tag(n)
