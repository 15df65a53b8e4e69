"""Every public object's ``>>>`` examples run, with ``import torchflow as tf`` as the
only set-up (STYLE.md: docstring examples are tests).

The objects are the classes and functions the public modules (``torchflow`` and every
``torchflow.<ns>``) export, each once; a class brings the docstrings of its own
methods and properties. One test per object, so a failure names it. Each docstring
runs in fresh globals that hold only ``tf``: an example that needs NumPy (or a class
by its short name) imports it, as a reader pasting it would have to.
"""

from __future__ import annotations

import doctest
import importlib
import inspect
import io
import pkgutil

import pytest

import torchflow

_FLAGS = doctest.ELLIPSIS | doctest.NORMALIZE_WHITESPACE


def _public_modules():
    yield torchflow
    for info in pkgutil.walk_packages(torchflow.__path__, "torchflow."):
        if any(p.startswith("_") for p in info.name.split(".")[1:]):
            continue
        yield importlib.import_module(info.name)


def _public_objects() -> dict[str, object]:
    """{public path: object}: each class and function of torchflow a public module
    exports, under the first path met (``tf.abs`` before ``tf.math.abs``)."""
    seen, out = set(), {}
    for mod in _public_modules():
        for name in dir(mod):
            if name.startswith("_"):
                continue
            obj = getattr(mod, name)
            if not (inspect.isclass(obj) or inspect.isroutine(obj)):
                continue
            if not str(getattr(obj, "__module__", "")).startswith("torchflow"):
                continue  # numpy's newaxis, builtins re-exported as TF does
            if id(obj) in seen:
                continue
            seen.add(id(obj))
            out["tf" + mod.__name__[len("torchflow"):] + "." + name] = obj
    return out


def _docstring_cases() -> dict[str, list[doctest.DocTest]]:
    finder = doctest.DocTestFinder(recurse=True, exclude_empty=True)
    cases, done = {}, set()
    for path, obj in _public_objects().items():
        tests = []
        for t in finder.find(obj, path, module=False, globs={}):
            key = (t.filename, t.lineno, t.docstring)
            if t.examples and key not in done:
                done.add(key)
                tests.append(t)
        if tests:
            cases[path] = tests
    return cases


CASES = _docstring_cases()


def test_examples_were_found():
    # A broken walk would make the examples test below pass vacuously.
    assert len(CASES) >= 150, sorted(CASES)
    assert {"tf.constant", "tf.data.Dataset", "tf.keras.layers.Dense"} <= set(CASES)


@pytest.mark.parametrize("path", sorted(CASES))
def test_docstring_examples(path, tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)  # examples that write files (CSVLogger, save) write here
    runner = doctest.DocTestRunner(optionflags=_FLAGS)
    report = io.StringIO()
    for test in CASES[path]:
        test.globs = {"tf": torchflow}
        runner.run(test, out=report.write, clear_globs=True)
    assert runner.failures == 0, report.getvalue()
