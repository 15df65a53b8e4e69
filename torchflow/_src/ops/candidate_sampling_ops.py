"""Candidate samplers (``tf.random.*_candidate_sampler``) for sampled losses.

Each returns ``(sampled_candidates, true_expected_count, sampled_expected_count)``
as TF does. Expected counts follow TF's formula: ``p * num_sampled`` when
sampling with replacement, ``1 - (1 - p) ** num_tries`` with ``unique=True``.

Differences from TensorFlow 2.4: the sampled ids differ from TF's (the seed
rules are those of ``tf.random.set_seed``); ``learned_unigram_candidate_sampler``
samples from the counts of the true classes seen so far by that call only.
"""

from __future__ import annotations

import collections

import numpy as np
import torch

from torchflow._src.core import context, dtypes
from torchflow._src.core.errors import invalid_argument
from torchflow._src.ops import random_ops as _r
from torchflow._src.ops._dispatch import tensor_arg, wrap
from torchflow._src.util.api import public


def _result(name):
    return collections.namedtuple(
        name, ["sampled_candidates", "true_expected_count", "sampled_expected_count"])


UniformCandidateSampler = _result("UniformCandidateSampler")
LogUniformCandidateSampler = _result("LogUniformCandidateSampler")
AllCandidateSampler = _result("AllCandidateSampler")
FixedUnigramCandidateSampler = _result("FixedUnigramCandidateSampler")
LearnedUnigramCandidateSampler = _result("LearnedUnigramCandidateSampler")


def _true(op, true_classes, num_true):
    t = tensor_arg(true_classes, dtypes.int64)
    if t.dtype is not dtypes.int64:
        raise TypeError(f"{op}: true_classes must be int64, got {t.dtype.name}")
    a = np.asarray(t.numpy())
    if a.ndim != 2 or a.shape[1] != int(num_true):
        raise invalid_argument(op, f"true_classes must be a matrix with num_true={num_true} "
                                   f"columns, got shape {list(a.shape)}")
    return a


def _check_range(op, tc: np.ndarray, n: int) -> None:
    bad = tc[(tc < 0) | (tc >= n)]
    if bad.size:
        raise invalid_argument(op, f"`true_candidate` out of range [0, {n}), received "
                                   f"{int(bad[0])}")


def _sample(op, probs: np.ndarray, num_sampled: int, unique: bool, seed):
    """Draws candidates from ``probs``; returns (ids, num_tries)."""
    n = probs.shape[0]
    if unique and num_sampled > n:
        raise invalid_argument(op, f"Sampler's range is too small: range {n} < num_sampled "
                                   f"{num_sampled}")
    gen = _r.stream(op, dtypes.int64, seed, torch.device("cpu"))
    p = torch.from_numpy(probs)
    if not unique:
        ids = torch.multinomial(p, num_sampled, replacement=True, generator=gen)
        return ids.numpy().astype(np.int64), num_sampled
    picked: list = []
    seen: set = set()
    tries = 0
    while len(picked) < num_sampled:
        batch = torch.multinomial(p, max(num_sampled, 16), replacement=True,
                                  generator=gen).tolist()
        for c in batch:
            tries += 1
            if c not in seen:
                seen.add(c)
                picked.append(c)
                if len(picked) == num_sampled:
                    break
    return np.array(picked, dtype=np.int64), tries


def _expected(p: np.ndarray, num_sampled: int, tries: int, unique: bool) -> np.ndarray:
    if not unique or tries == num_sampled:
        return (p * num_sampled).astype(np.float32)
    return (-np.expm1(tries * np.log1p(-np.minimum(p, 1 - 1e-12)))).astype(np.float32)


def _run(op, cls, true_classes, num_true, num_sampled, unique, probs, seed):
    tc = _true(op, true_classes, num_true)
    _check_range(op, tc, probs.shape[0])
    ns = int(num_sampled)
    ids, tries = _sample(op, probs, ns, bool(unique), seed)
    te = _expected(probs[tc], ns, tries, unique)
    se = _expected(probs[ids], ns, tries, unique)
    dev = context.default_device()
    return cls(wrap(torch.from_numpy(ids).to(dev), dtypes.int64),
               wrap(torch.from_numpy(te.astype(np.float32)).to(dev), dtypes.float32),
               wrap(torch.from_numpy(se).to(dev), dtypes.float32))


@public("torchflow.random")
def uniform_candidate_sampler(true_classes, num_true, num_sampled, unique, range_max,
                              seed=None, name=None):
    """Samples ``num_sampled`` classes uniformly from ``[0, range_max)``.

    Args:
      true_classes: int64 ``[batch_size, num_true]`` target classes.
      num_true: Number of target classes per example.
      num_sampled: Number of classes to sample.
      unique: Sample without replacement.
      range_max: Number of possible classes.
      seed: Optional op-level seed.
      name: Unused (eager).

    Returns:
      ``(sampled_candidates, true_expected_count, sampled_expected_count)``.
    """
    probs = np.full(int(range_max), 1.0 / int(range_max))
    return _run("UniformCandidateSampler", UniformCandidateSampler, true_classes, num_true,
                num_sampled, unique, probs, seed)


@public("torchflow.random")
def log_uniform_candidate_sampler(true_classes, num_true, num_sampled, unique, range_max,
                                  seed=None, name=None):
    """Samples classes from the log-uniform (Zipfian) distribution over ``[0, range_max)``:
    ``P(k) = (log(k + 2) - log(k + 1)) / log(range_max + 1)``.

    Args:
      true_classes: An int64 ``[batch_size, num_true]`` tensor of target classes.
      num_true: int: the number of targets per example.
      num_sampled: int: the number of classes to sample.
      unique: bool: sample without replacement within the batch.
      range_max: int: the number of classes.
      seed: None (default) or a Python int op seed.
      name: Unused (eager).

    Returns:
      ``(sampled_candidates, true_expected_count, sampled_expected_count)``: int64
        ``[num_sampled]``, float32 ``[batch_size, num_true]`` and float32 ``[num_sampled]``.
    """
    k = np.arange(int(range_max), dtype=np.float64)
    probs = (np.log(k + 2) - np.log(k + 1)) / np.log(int(range_max) + 1)
    return _run("LogUniformCandidateSampler", LogUniformCandidateSampler, true_classes,
                num_true, num_sampled, unique, probs, seed)


@public("torchflow.random")
def all_candidate_sampler(true_classes, num_true, num_sampled, unique, seed=None, name=None):
    """Returns the classes ``0 .. num_sampled - 1`` with expected counts of 1.

    Args:
      true_classes: An int64 ``[batch_size, num_true]`` tensor of target classes.
      num_true: int: the number of targets per example.
      num_sampled: int: the number of classes to sample.
      unique: bool: sample without replacement within the batch.
      seed: None (default) or a Python int op seed.
      name: Unused (eager).

    Returns:
      ``(sampled_candidates, true_expected_count, sampled_expected_count)``: int64
        ``[num_sampled]``, float32 ``[batch_size, num_true]`` and float32 ``[num_sampled]``.
    """
    tc = _true("AllCandidateSampler", true_classes, num_true)
    ns = int(num_sampled)
    _check_range("AllCandidateSampler", tc, ns)
    return AllCandidateSampler(wrap(torch.arange(ns, dtype=torch.int64), dtypes.int64),
                               wrap(torch.ones(tc.shape, dtype=torch.float32), dtypes.float32),
                               wrap(torch.ones(ns, dtype=torch.float32), dtypes.float32))


@public("torchflow.random")
def fixed_unigram_candidate_sampler(true_classes, num_true, num_sampled, unique, range_max,
                                    vocab_file="", distortion=1.0, num_reserved_ids=0,
                                    num_shards=1, shard=0, unigrams=(), seed=None, name=None):
    """Samples classes with probability proportional to ``unigrams ** distortion``.

    The counts come from ``unigrams`` or from ``vocab_file`` (CSV lines whose
    last field is the count); ``num_reserved_ids`` ids of weight 0 come first;
    with ``num_shards`` only this ``shard``'s ids keep their weight.

    Args:
      true_classes: An int64 ``[batch_size, num_true]`` tensor of target classes.
      num_true: int: the number of targets per example.
      num_sampled: int: the number of classes to sample.
      unique: bool: sample without replacement within the batch.
      range_max: int: the number of classes.
      vocab_file: str, default ``''``: a CSV file of counts (used when ``unigrams`` is
        empty).
      distortion: float, default 1.0: the exponent applied to the counts.
      num_reserved_ids: int, default 0.
      num_shards: int, default 1.
      shard: int, default 0: this shard's index.
      unigrams: A list of counts, one per class (default empty).
      seed: None (default) or a Python int op seed.
      name: Unused (eager).

    Returns:
      ``(sampled_candidates, true_expected_count, sampled_expected_count)``: int64
        ``[num_sampled]``, float32 ``[batch_size, num_true]`` and float32 ``[num_sampled]``.
    """
    if vocab_file:
        with open(vocab_file, encoding="utf-8") as f:
            counts = [float(line.rstrip("\n").split(",")[-1]) for line in f if line.strip()]
    else:
        counts = [float(u) for u in unigrams]
    w = np.concatenate([np.zeros(int(num_reserved_ids)), np.asarray(counts, np.float64)])
    if w.shape[0] != int(range_max):
        raise invalid_argument("FixedUnigramCandidateSampler",
                               f"range_max ({range_max}) must equal the number of unigrams plus "
                               f"num_reserved_ids ({w.shape[0]})")
    w = np.power(w, float(distortion))
    if int(num_shards) > 1:
        w[np.arange(w.shape[0]) % int(num_shards) != int(shard)] = 0
    probs = w / w.sum()
    return _run("FixedUnigramCandidateSampler", FixedUnigramCandidateSampler, true_classes,
                num_true, num_sampled, unique, probs, seed)


@public("torchflow.random")
def learned_unigram_candidate_sampler(true_classes, num_true, num_sampled, unique, range_max,
                                      seed=None, name=None):
    """Samples classes in proportion to how often they occur in ``true_classes``
    (plus one, so every class can be drawn).

    Args:
      true_classes: An int64 ``[batch_size, num_true]`` tensor of target classes.
      num_true: int: the number of targets per example.
      num_sampled: int: the number of classes to sample.
      unique: bool: sample without replacement within the batch.
      range_max: int: the number of classes.
      seed: None (default) or a Python int op seed.
      name: Unused (eager).

    Returns:
      ``(sampled_candidates, true_expected_count, sampled_expected_count)``: int64
        ``[num_sampled]``, float32 ``[batch_size, num_true]`` and float32 ``[num_sampled]``.
    """
    tc = _true("LearnedUnigramCandidateSampler", true_classes, num_true)
    _check_range("LearnedUnigramCandidateSampler", tc, int(range_max))
    counts = np.ones(int(range_max))
    np.add.at(counts, tc.reshape(-1), 1)
    return _run("LearnedUnigramCandidateSampler", LearnedUnigramCandidateSampler, tc, num_true,
                num_sampled, unique, counts / counts.sum(), seed)
