"""The functions TF's Keras saving gives a Keras model in a SavedModel: its
``__call__`` (traced with ``training=False`` and ``training=True``) and its default
serving signature."""

from __future__ import annotations

import logging
import warnings

from torchflow._src.core import errors
from torchflow._src.core.function import Function
from torchflow._src.core.tensor_spec import TensorSpec
from torchflow._src.train.saved_model import structure
from torchflow._src.util import nest

_log = logging.getLogger("tensorflow")


def keras_call_function(model, spec):
    """TF's saved ``__call__`` of a Keras model: its call traced for ``spec`` with
    ``training=False`` and ``training=True`` (a loaded model serves both, Dropout's
    random ops in the second); where the training graph cannot be written (a
    recurrent layer's dropout), ``training=False`` alone."""

    def call(inputs, training=False):
        return model(inputs, training=training)

    for modes in ((False, True), (False,)):
        fn = Function(call, name="__call__")
        try:
            for mode in modes:
                fn.get_concrete_function(spec, training=mode)
            if len(modes) == 1 or not any(
                    c._export_graph().unexportable for c in fn._list_all_concrete_functions()):
                return fn
        except (errors.OpError, TypeError, ValueError):
            if len(modes) == 1:
                raise
    raise AssertionError("unreachable")


def keras_functions(model):
    """A Keras model with known inputs, saved as TF's Keras saving does: its
    ``__call__`` traced for the inputs (``keras_call_function``), and the default
    signature taking the inputs by their layer names and returning a dict keyed
    by the output names. ``(None, None)`` for anything else."""
    if not callable(getattr(model, "call", None)):
        return None, None
    try:
        inputs = list(getattr(model, "inputs", None) or [])
        in_names = list(model.input_names)
        out_names = list(model.output_names)
    except (AttributeError, TypeError, ValueError):
        return None, None
    if not inputs or len(in_names) != len(inputs):
        return None, None
    specs = [t.type_spec if structure.is_composite_spec(getattr(t, "type_spec", None))
             else TensorSpec(t.shape, t.dtype, n) for t, n in zip(inputs, in_names)]
    single = len(specs) == 1

    def serve(*args):
        outs = nest.flatten(model(args[0] if single else list(args), training=False))
        return dict(zip(out_names, outs)) if len(outs) == len(out_names) else outs

    hook = getattr(model, "_default_save_signature", None)  # TF's Keras hook, if defined
    serve_fn = (hook() if callable(hook) else None) or \
        Function(serve, input_signature=specs, name="serving_default")
    missing: list = []
    call_fn = None
    try:
        call_fn = keras_call_function(model, specs[0] if single else specs)
        for c in call_fn._list_all_concrete_functions() + [serve_fn.get_concrete_function()]:
            missing += c.graph.unexportable
        exportable = not missing
    except (errors.OpError, TypeError, ValueError) as e:
        exportable = False
        missing.append(f"{type(e).__name__}: {e}")
    if not exportable:  # TF would save them; the objects and variables are still saved
        # Which ops had no TF lowering (each Unlowered node names what made its value).
        _log.warning("tf.saved_model.save: no serving_default for the Keras model %r; "
                     "computations with no TensorFlow op: %s", getattr(model, "name", ""),
                     "; ".join(sorted(set(missing))))
        warnings.warn(f"tf.saved_model.save: the Keras model {getattr(model, 'name', '')!r} is "
                      "saved without its __call__ and serving signature: its call holds "
                      "computations that torchflow cannot write as TF ops.", stacklevel=3)
        return None, None
    return call_fn, serve_fn
