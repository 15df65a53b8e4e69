"""The ``>>>`` examples in the losses, metrics, optimizers and loss-scaling docstrings run."""

import doctest
import importlib

import pytest

MODULES = [
    "torchflow._src.keras.losses.loss",
    "torchflow._src.keras.metrics.base_metric",
    "torchflow._src.keras.metrics.confusion_metrics",
    "torchflow._src.keras.optimizers.gradient_descent",
    "torchflow._src.keras.optimizers.adam",
    "torchflow._src.keras.optimizers.schedules.learning_rate_schedule",
    "torchflow._src.keras.mixed_precision.loss_scale_optimizer",
]


@pytest.mark.parametrize("name", MODULES)
def test_docstring_examples(name):
    mod = importlib.import_module(name)
    finder = doctest.DocTestFinder(exclude_empty=True)
    runner = doctest.DocTestRunner(optionflags=doctest.NORMALIZE_WHITESPACE)
    tests = [t for t in finder.find(mod, name, module=False) if t.examples]
    assert tests, f"no examples found in {name}"
    for t in tests:
        runner.run(t)
    assert runner.failures == 0
