"""tf.lookup table lookups per call: torchflow vs real TF 2.21 vs a NumPy + dict
baseline (what a program without TF would write; raw torch has no hash table).

Cases: a StaticVocabularyTable (20k words, 8 OOV buckets) on 4096 string keys,
eagerly; a StaticHashTable (int64 -> float32, 50k keys) on 65536 int64 keys, eagerly
and inside a ``tf.function`` (a replayed host node here, TF's kernel there).

``python benchmarks/bench_lookup_tables.py [--quick]``
"""

from __future__ import annotations

import argparse
import os
import sys

import numpy as np

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import _common

import torchflow as tf

WORDS, OOV, NKEYS, NQ_STR, NQ_INT = 20000, 8, 50000, 4096, 65536


def _vocab_case(m, words, queries):
    init = m.lookup.KeyValueTensorInitializer(
        m.constant(words), m.range(len(words), dtype=m.int64))
    table = m.lookup.StaticVocabularyTable(init, OOV)
    q = m.constant(queries)
    return lambda: table.lookup(q)


def _int_case(m, keys, values, queries, use_function):
    table = m.lookup.StaticHashTable(m.lookup.KeyValueTensorInitializer(
        m.constant(keys), m.constant(values)), -1.0)
    q = m.constant(queries)
    if use_function:
        f = m.function(lambda x: table.lookup(x) * 2.0)
        return lambda: f(q)
    return lambda: table.lookup(q)


def main() -> None:
    p = argparse.ArgumentParser()
    p.add_argument("--quick", action="store_true")
    a = p.parse_args()
    rtf = _common.real_tf()
    rng = np.random.default_rng(0)
    words = [f"w{i}" for i in range(WORDS)]
    queries = [words[i] if i < WORDS else f"oov{i}"
               for i in rng.integers(0, int(WORDS * 1.1), NQ_STR)]
    keys = rng.permutation(NKEYS * 2)[:NKEYS].astype(np.int64)
    values = rng.standard_normal(NKEYS).astype(np.float32)
    iq = rng.integers(0, NKEYS * 2, NQ_INT).astype(np.int64)
    d = dict(zip(keys.tolist(), values.tolist()))
    vocab = {w.encode(): i for i, w in enumerate(words)}
    qb = np.array([q.encode() for q in queries], dtype=object)

    def numpy_ints():
        return np.fromiter((d.get(k, -1.0) for k in iq.tolist()), np.float32, len(iq)) * 2.0

    def numpy_vocab():
        return np.fromiter((vocab.get(k, -1) for k in qb), np.int64, len(qb))

    repeat = 3 if a.quick else 7
    rows = []
    for case, ours, theirs, base in (
            ("vocab table, 4096 strings, eager", _vocab_case(tf, words, queries),
             _vocab_case(rtf, words, queries) if rtf else None, numpy_vocab),
            ("int64 table, 65536 keys, eager", _int_case(tf, keys, values, iq, False),
             _int_case(rtf, keys, values, iq, False) if rtf else None, numpy_ints),
            ("int64 table, 65536 keys, tf.function", _int_case(tf, keys, values, iq, True),
             _int_case(rtf, keys, values, iq, True) if rtf else None, numpy_ints)):
        times = _common.compare({"torchflow": ours, "TF": theirs, "numpy+dict": base},
                                repeat=repeat)
        rows.append(_common.Row(case, times))
    print(_common.describe_machine(), "| load", open("/proc/loadavg").read().split()[:3])
    _common.print_table("tf.lookup: median time per lookup call", rows,
                        ["torchflow", "TF", "numpy+dict"],
                        [("torchflow", "TF"), ("torchflow", "numpy+dict")])


if __name__ == "__main__":
    main()
