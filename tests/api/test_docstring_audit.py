"""Keeps the docstring gain of issue 19: the namespaces cleaned stay at 0 flagged.

Runs ``tools/docstring_audit.py`` (each public callable's docstring has at least
two lines and an ``Args:`` section when it takes arguments) and fails, naming the
offenders, if a name of a cleaned namespace is flagged again. Add a namespace to
``CLEAN`` when its last flagged name is fixed.
"""

from __future__ import annotations

import importlib.util
import sys
from pathlib import Path

import pytest

TOOLS = Path(__file__).resolve().parents[2] / "tools"

# Namespaces with no flagged name: exact names (tf.io.gfile does not cover tf.io), and
# every namespace under a prefix ending in "." (all of tf.keras).
CLEAN = (
    "tf.raw_ops",
    "tf.experimental.numpy",
    "tf.experimental.numpy.random",
    "tf.keras",
    "tf.keras.",
    "tf.io",
    "tf.io.gfile",
    "tf.train",
    "tf.quantization",
    "tf.summary",
    "tf.summary.experimental",
    "tf.test",
    "tf.autograph",
    "tf.autograph.experimental",
    "tf.config",
    "tf.debugging",
    "tf.debugging.experimental",
    "tf.experimental.dlpack",
    "tf.nest",
    "tf.strings",
    "tf.ragged",
    "tf.dtypes",
    "tf",
    "tf.experimental",
    "tf.data",
    "tf.data.experimental",
    "tf.data.experimental.service",
    "tf.distribute",
    "tf.distribute.",
    "tf.types.experimental",
)


def _covered(namespace: str, entry: str) -> bool:
    return namespace.startswith(entry) if entry.endswith(".") else namespace == entry


def _audit_module():
    spec = importlib.util.spec_from_file_location("_tool_docstring_audit",
                                                  TOOLS / "docstring_audit.py")
    mod = importlib.util.module_from_spec(spec)
    sys.modules[spec.name] = mod
    spec.loader.exec_module(mod)
    return mod


@pytest.fixture(scope="module")
def audit():
    mod = _audit_module()
    skipped: list = []
    return mod, mod.audit(skipped), skipped


@pytest.mark.parametrize("namespace", CLEAN)
def test_cleaned_namespace_has_no_short_docstrings(audit, namespace):
    _, rows, _ = audit
    bad = [f"{ns}.{name}: {why} ({src})" for ns, name, why, src, _ in rows
           if _covered(ns, namespace)]
    assert not bad, "docstrings too short for a TF user:\n" + "\n".join(bad)


def test_audit_flags_what_it_should():
    mod = _audit_module()

    def no_doc(x):
        pass

    def one_line(x):
        """Does it."""

    def no_args(x):
        """Does it.

        Returns:
          Something.
        """

    def fine(x):
        """Does it.

        Args:
          x: The input.
        """

    assert [mod.problem(f) for f in (no_doc, one_line, no_args, fine)] == \
        ["missing", "one line", "no Args", None]


def test_foreign_objects_are_the_only_ones_skipped(audit):
    # NumPy's scalar types (tnp re-exports them as TF does) are not torchflow's to document;
    # nothing defined in torchflow is skipped.
    mod, _, skipped = audit
    assert ("tf.experimental.numpy", "float32") in skipped
    import torchflow.experimental.numpy as tnp

    assert mod.foreign(tnp.float32) and not mod.foreign(tnp.zeros)


def test_clean_entries_name_real_namespaces():
    # A misspelt entry would pass vacuously: each must match an audited namespace.
    sys.path.insert(0, str(TOOLS))
    from api_coverage import coverage

    names = [ns.tf_module for ns in coverage() if ns.implemented]
    for entry in CLEAN:
        assert any(_covered(n, entry) for n in names), entry


# Classes whose own public methods all have full docstrings (the audit above checks
# only module-level names; help(tf.GradientTape.watch) is what a user reads).
CLEAN_METHODS = (
    "GradientTape", "TensorArray", "TensorShape", "TensorSpec", "DeviceSpec",
    "random.Generator", "test.TestCase", "RaggedTensor", "keras.layers.Layer",
    "keras.Model", "keras.Sequential", "keras.optimizers.Optimizer",
    "keras.callbacks.Callback", "keras.metrics.Metric",
)


@pytest.mark.parametrize("path", CLEAN_METHODS)
def test_main_classes_document_their_methods(path):
    import inspect

    import torchflow

    mod = _audit_module()
    cls = torchflow
    for part in path.split("."):
        cls = getattr(cls, part)
    bad = []
    for name, member in vars(cls).items():
        fn = member.__func__ if isinstance(member, (classmethod, staticmethod)) else member
        if name.startswith("_") or not inspect.isfunction(fn):
            continue
        why = mod.problem(fn)
        if why:
            bad.append(f"tf.{path}.{name}: {why}")
    assert not bad, "methods with short docstrings:\n" + "\n".join(bad)
