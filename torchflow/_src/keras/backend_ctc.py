"""``tf.keras.backend``'s CTC helpers: ``ctc_label_dense_to_sparse``,
``ctc_batch_cost`` and ``ctc_decode`` (Keras' convention: ``y_pred`` holds
softmax outputs, batch major, and the blank is the last class)."""

from __future__ import annotations

from torchflow._src.core import dtypes
from torchflow._src.core.convert import constant, convert_to_tensor
from torchflow._src.keras import backend
from torchflow._src.ops import array_ops, creation_ops, ctc_ops, gather_ops, unary_math_ops
from torchflow._src.ops.sparse.sparse_ops import to_dense
from torchflow._src.ops.sparse.sparse_tensor import SparseTensor
from torchflow._src.util.api import public

_NS = "torchflow.keras.backend"


@public(_NS)
def ctc_label_dense_to_sparse(labels, label_lengths):
    """Converts dense CTC labels to a SparseTensor of each row's first
    ``label_lengths[i]`` labels.

    Args:
      labels: A dense ``(samples, max_label_length)`` tensor of labels.
      label_lengths: A ``(samples,)`` int tensor of label lengths.

    Returns:
      A ``SparseTensor`` with int64 ``indices`` (row-major) and ``dense_shape``
      (``labels``' shape), and ``labels``' values at those positions.

    >>> import torchflow as tf
    >>> st = tf.keras.backend.ctc_label_dense_to_sparse(
    ...     tf.constant([[1, 2, 3], [4, 5, 6]]), tf.constant([2, 1]))
    >>> st.indices.numpy().tolist(), st.values.numpy().tolist()
    ([[0, 0], [0, 1], [1, 0]], [1, 2, 4])
    """
    labels = convert_to_tensor(labels)
    lengths = creation_ops.cast(convert_to_tensor(label_lengths), dtypes.int32)
    rows, cols = labels.shape.as_list()
    positions = creation_ops.range(cols)
    mask = array_ops.expand_dims(positions, 0) < array_ops.expand_dims(lengths, 1)
    indices = gather_ops.where(mask)  # int64 [n, 2], row-major
    values = gather_ops.gather_nd(labels, indices)
    return SparseTensor(indices, values, constant([rows, cols], dtypes.int64))


@public(_NS)
def ctc_batch_cost(y_true, y_pred, input_length, label_length):
    """Runs the CTC loss algorithm on each batch element.

    Args:
      y_true: A ``(samples, max_string_length)`` tensor of the true labels.
      y_pred: A ``(samples, time_steps, num_categories)`` tensor of the
        predictions (softmax outputs); the last category is the blank.
      input_length: A ``(samples, 1)`` tensor of each sample's sequence length
        in ``y_pred``.
      label_length: A ``(samples, 1)`` tensor of each sample's label length in
        ``y_true``.

    Returns:
      A ``(samples, 1)`` tensor of the CTC loss of each sample.

    Raises:
      InvalidArgumentError: For labels out of range or lengths that do not fit.
    """
    label_length = creation_ops.cast(array_ops.squeeze(convert_to_tensor(label_length), -1),
                                     dtypes.int32)
    input_length = creation_ops.cast(array_ops.squeeze(convert_to_tensor(input_length), -1),
                                     dtypes.int32)
    labels = creation_ops.cast(convert_to_tensor(y_true), dtypes.int32)
    y_pred = convert_to_tensor(y_pred)
    # TF's (v1) CTC loss of log(softmax): the blank is the last class, and the
    # loss renormalizes the log-probabilities as logits.
    logits = unary_math_ops.log(array_ops.transpose(y_pred, [1, 0, 2]) + backend.epsilon())
    loss = ctc_ops.ctc_loss(labels, logits, label_length, input_length,
                            logits_time_major=True, blank_index=-1)
    return array_ops.expand_dims(loss, 1)


@public(_NS)
def ctc_decode(y_pred, input_length, greedy=True, beam_width=100, top_paths=1):
    """Decodes the output of a softmax with CTC's greedy or beam search.

    ``y_pred`` is turned into log-probabilities (``log(y_pred + epsilon())``,
    time major) and decoded by ``tf.nn.ctc_greedy_decoder`` (``greedy=True``,
    repeats merged) or by TF's beam search with repeated labels merged (the v1
    ``ctc_beam_search_decoder``, as Keras calls it). The blank is the last class.

    Args:
      y_pred: A ``(samples, time_steps, num_categories)`` tensor of softmax outputs.
      input_length: A ``(samples,)`` int tensor of each sample's sequence length.
      greedy: Best-path decoding if True (the default), else beam search.
      beam_width: The beam width when ``greedy`` is False (default 100).
      top_paths: How many of the most probable paths beam search returns.

    Returns:
      ``(decoded, log_prob)``: a list of ``(samples, time_steps)`` int64 tensors,
      one per path, padded with ``-1``; and the log probabilities, ``(samples, 1)``
      (greedy: minus the sum of the chosen log-probabilities) or
      ``(samples, top_paths)``.

    Raises:
      InvalidArgumentError: For lengths longer than ``time_steps`` or
        ``top_paths > beam_width``.

    >>> import torchflow as tf
    >>> y = tf.constant([[[0.8, 0.2], [0.1, 0.9], [0.7, 0.3]]])
    >>> decoded, _ = tf.keras.backend.ctc_decode(y, [3])
    >>> decoded[0].numpy()
    array([[ 0,  0, -1]])
    """
    y_pred = convert_to_tensor(y_pred)
    samples, steps = y_pred.shape.as_list()[:2]
    logp = unary_math_ops.log(array_ops.transpose(y_pred, [1, 0, 2]) + backend.epsilon())
    input_length = creation_ops.cast(convert_to_tensor(input_length), dtypes.int32)
    if greedy:
        decoded, log_prob = ctc_ops.ctc_greedy_decoder(logp, input_length)
    else:
        decoded, log_prob = ctc_ops.beam_search_decode(logp, input_length, beam_width,
                                                       top_paths, merge_repeated=True)
    shape = constant([samples, steps], dtypes.int64)
    dense = [to_dense(SparseTensor(st.indices, st.values, shape), default_value=-1)
             for st in decoded]
    return dense, log_prob
