"""``tf.summary``: TensorBoard summaries."""

from torchflow._src.summary.summary_ops import flush as flush
from torchflow._src.summary.summary_ops import histogram as histogram
from torchflow._src.summary.summary_ops import image as image
from torchflow._src.summary.summary_ops import record_if as record_if
from torchflow._src.summary.summary_ops import scalar as scalar
from torchflow._src.summary.summary_ops import should_record_summaries as should_record_summaries
from torchflow._src.summary.summary_ops import text as text
from torchflow._src.summary.summary_ops import write as write
from torchflow._src.summary.trace_ops import audio as audio
from torchflow._src.summary.trace_ops import trace_export as trace_export
from torchflow._src.summary.trace_ops import trace_off as trace_off
from torchflow._src.summary.trace_ops import trace_on as trace_on
from torchflow._src.summary.writer import SummaryWriter as SummaryWriter
from torchflow._src.summary.writer import create_file_writer as create_file_writer
from torchflow._src.summary.writer import create_noop_writer as create_noop_writer
from torchflow.summary import experimental as experimental
