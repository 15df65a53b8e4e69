"""Sampled losses for large output vocabularies: ``tf.nn.nce_loss``,
``tf.nn.sampled_softmax_loss`` and ``tf.nn.compute_accidental_hits``."""

from __future__ import annotations

import numpy as np
import torch

from torchflow._src.core import dtypes
from torchflow._src.ops import _nn_common as nc
from torchflow._src.ops import candidate_sampling_ops as cs
from torchflow._src.ops._dispatch import Tensor, tensor_arg, translate, wrap
from torchflow._src.ops.embedding_ops import embedding_lookup
from torchflow._src.ops.loss_ops import (
    sigmoid_cross_entropy_with_logits,
    softmax_cross_entropy_with_logits,
)
from torchflow._src.util.api import public

_FLT_MIN = -float(np.finfo(np.float32).max)


def _hits(true_classes: np.ndarray, sampled: np.ndarray):
    # The last position of each sampled id wins, as in TF's kernel.
    where = {int(v): j for j, v in enumerate(sampled.tolist())}
    idx, ids = [], []
    for i, row in enumerate(true_classes.tolist()):
        for label in row:
            j = where.get(int(label))
            if j is not None:
                idx.append(i)
                ids.append(j)
    return np.asarray(idx, np.int32), np.asarray(ids, np.int64)


@public("torchflow.nn")
def compute_accidental_hits(true_classes, sampled_candidates, num_true, seed=None, name=None):
    """Finds the sampled candidates that equal one of an example's true classes.

    Args:
      true_classes: int64 ``[batch_size, num_true]``.
      sampled_candidates: int64 ``[num_sampled]``.
      num_true: Number of true classes per example.
      seed, name: Unused.

    Returns:
      ``(indices, ids, weights)``: the example (int32) and sampled position (int64)
      of each hit, and weights of ``-FLT_MAX`` (float32) to add to those logits.
    """
    tc = np.asarray(tensor_arg(true_classes, dtypes.int64).numpy()).reshape(-1, int(num_true))
    sc = np.asarray(tensor_arg(sampled_candidates, dtypes.int64).numpy()).reshape(-1)
    idx, ids = _hits(tc, sc)
    dev = tensor_arg(sampled_candidates, dtypes.int64)._t.device
    weights = np.full(idx.shape, _FLT_MIN, np.float32)
    return (wrap(torch.from_numpy(idx).to(dev), dtypes.int32),
            wrap(torch.from_numpy(ids).to(dev), dtypes.int64),
            wrap(torch.from_numpy(weights).to(dev), dtypes.float32))


def _sampled_logits(op, weights, biases, labels, inputs, num_sampled, num_classes, num_true,
                    sampled_values, subtract_log_q, remove_accidental_hits, seed):
    x = nc.typed_arg(op, inputs, nc.FLOATS)
    lab = tensor_arg(labels)
    lab_t = lab._t.to(torch.int64).reshape(-1, int(num_true))
    if sampled_values is None:
        sampled_values = cs.log_uniform_candidate_sampler(
            wrap(lab_t, dtypes.int64), int(num_true), int(num_sampled), True, int(num_classes),
            seed=seed)
    sampled, true_exp, sampled_exp = (tensor_arg(v)._t.detach() for v in sampled_values)
    sampled = sampled.to(torch.int64)
    n_true = lab_t.numel()
    all_ids = wrap(torch.cat([lab_t.reshape(-1), sampled]), dtypes.int64)
    all_w = embedding_lookup(weights, all_ids)._t
    all_b = embedding_lookup(biases, all_ids)._t
    xt = x._t
    true_w = all_w[:n_true].reshape(-1, int(num_true), all_w.shape[-1])
    true_logits = (xt.unsqueeze(1) * true_w).sum(-1) + all_b[:n_true].reshape(-1, int(num_true))
    sampled_logits = xt @ all_w[n_true:].mT + all_b[n_true:]
    if remove_accidental_hits:
        idx, ids = _hits(lab_t.cpu().numpy(), sampled.cpu().numpy())
        if idx.size:
            mask = torch.zeros_like(sampled_logits)
            dev = mask.device
            mask[torch.from_numpy(idx).long().to(dev), torch.from_numpy(ids).to(dev)] = _FLT_MIN
            sampled_logits = sampled_logits + mask
    if subtract_log_q:
        true_logits = true_logits - torch.log(true_exp.to(xt.dtype)).reshape(true_logits.shape)
        sampled_logits = sampled_logits - torch.log(sampled_exp.to(xt.dtype))
    logits = torch.cat([true_logits, sampled_logits], 1)
    targets = torch.cat([torch.full_like(true_logits, 1.0 / int(num_true)),
                         torch.zeros_like(sampled_logits)], 1)
    return wrap(targets, x._dtype), wrap(logits, x._dtype)


@public("torchflow.nn")
def nce_loss(weights, biases, labels, inputs, num_sampled, num_classes, num_true=1,
             sampled_values=None, remove_accidental_hits=False, name="nce_loss") -> Tensor:
    """Noise-contrastive estimation loss, one value per example.

    Args:
      weights: ``[num_classes, dim]`` class embeddings (or a list of shards, "div").
      biases: ``[num_classes]`` class biases.
      labels: int64 ``[batch_size, num_true]`` target classes.
      inputs: ``[batch_size, dim]`` activations.
      num_sampled: Number of negative classes to sample per batch.
      num_classes: Number of possible classes.
      num_true: Number of target classes per example.
      sampled_values: Optional ``(sampled, true_expected, sampled_expected)`` from a
        candidate sampler (default: ``log_uniform_candidate_sampler``, unique).
      remove_accidental_hits: Mask sampled classes that equal a true class.
      name: Unused (eager).

    Returns:
      A ``[batch_size]`` Tensor of NCE losses.
    """
    try:
        targets, logits = _sampled_logits("NceLoss", weights, biases, labels, inputs,
                                          num_sampled, num_classes, num_true, sampled_values,
                                          True, remove_accidental_hits, None)
    except (ValueError, TypeError):
        raise
    except Exception as e:  # noqa: BLE001 - translated to a TF error
        raise translate("NceLoss", e) from None
    losses = sigmoid_cross_entropy_with_logits(labels=targets, logits=logits)
    return wrap(losses._t.sum(1), losses._dtype)


@public("torchflow.nn")
def sampled_softmax_loss(weights, biases, labels, inputs, num_sampled, num_classes, num_true=1,
                         sampled_values=None, remove_accidental_hits=True, seed=None,
                         name="sampled_softmax_loss") -> Tensor:
    """Sampled softmax loss (a fast approximation of the full softmax loss for
    training), one value per example. Arguments as in ``nce_loss``; ``seed`` seeds
    the default sampler.

    Args:
      weights: ``[num_classes, dim]`` class embeddings (or a list of shards).
      biases: ``[num_classes]`` class biases.
      labels: int64 ``[batch_size, num_true]`` target classes.
      inputs: ``[batch_size, dim]`` activations.
      num_sampled: int: classes sampled per batch.
      num_classes: int: the number of possible classes.
      num_true: int, default 1: targets per example.
      sampled_values: None (default: ``log_uniform_candidate_sampler``) or a sampler's
        output triple.
      remove_accidental_hits: bool, default True: mask sampled classes equal to a target.
      seed: None (default) or a Python int op seed.
      name: Unused (eager).

    Returns:
      A ``[batch_size]`` Tensor of losses.
    """
    try:
        targets, logits = _sampled_logits("SampledSoftmaxLoss", weights, biases, labels, inputs,
                                          num_sampled, num_classes, num_true, sampled_values,
                                          True, remove_accidental_hits, seed)
    except (ValueError, TypeError):
        raise
    except Exception as e:  # noqa: BLE001 - translated to a TF error
        raise translate("SampledSoftmaxLoss", e) from None
    return softmax_cross_entropy_with_logits(wrap(targets._t.detach(), targets._dtype), logits)
