"""When a subclassed Model's ``build`` runs, as TF 2.4: only where the user overrode it.

TF's ``Layer._maybe_build`` skips a default ``build``; so a subclassed model called on
string (or integer) inputs runs its ``call`` on those inputs, not on float
placeholders first, and a user's ``build`` gets the input shape. Compared with real
TF (tf-keras 2.21, the same Keras 2 engine as 2.4 here).
"""

from __future__ import annotations

import numpy as np

import torchflow as tf
from torchflow._src.testing import real_tf


def _program(m):
    class Lengths(m.keras.Model):
        def __init__(self):
            super().__init__()
            self.dense = m.keras.layers.Dense(2, kernel_initializer="ones")

        def call(self, x):
            return self.dense(m.cast(m.strings.length(x), m.float32)[:, None])

    class Ids(m.keras.Model):
        def __init__(self):
            super().__init__()
            self.calls = []
            self.embed = m.keras.layers.Embedding(10, 3, embeddings_initializer="ones")

        def call(self, x):
            self.calls.append(x.dtype.name)
            return self.embed(x)

    class Built(m.keras.Model):
        def build(self, input_shape):
            self.seen = tuple(input_shape)
            self.w = self.add_weight(name="w", shape=(input_shape[-1],), initializer="ones")
            super().build(input_shape)

        def call(self, x):
            return x * self.w

    out = {}
    lengths = Lengths()
    out["lengths"] = lengths(m.constant(["ab", "cde"])).numpy().tolist()
    ids = Ids()
    out["ids"] = ids(m.constant([[1, 2]])).numpy().tolist()
    out["ids_calls"] = ids.calls  # the call ran on the int32 input alone
    built = Built()
    out["built"] = built(m.constant(np.ones((2, 4), np.float32))).numpy().tolist()
    out["seen"] = list(built.seen)
    return out


def test_default_build_is_not_run_on_float_placeholders():
    assert _program(tf) == _program(real_tf())
