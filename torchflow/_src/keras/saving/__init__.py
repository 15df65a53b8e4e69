"""Saving and loading Keras models and weights.

* ``save_weights(path)``: HDF5 in tf.keras' layout when ``path`` ends in
  ``.h5``/``.keras``/``.hdf5`` or ``save_format="h5"``; otherwise a TF-format
  checkpoint whose root object is the model (as tf.keras writes it) at that prefix.
* ``model.save(path)``: ``.h5`` -> a tf.keras whole-model HDF5 file (attributes
  ``model_config`` and ``training_config`` as JSON, groups ``model_weights`` and
  ``optimizer_weights``); any other path -> a directory in TF's Keras SavedModel
  layout (``saved_model_format.py``): ``keras_metadata.pb``, ``variables/`` (a TF
  checkpoint rooted at the model, with the optimizer's state when compiled) and
  ``saved_model.pb``, which tf.keras' ``load_model`` reads too.
  Differences from TensorFlow 2.4: ``saved_model.pb`` holds the object graph but
  no traced functions or ``serving_default`` signature, so TF revives the model
  from its config; a model without a config (a subclassed model or a layer that
  does not implement ``get_config``) saves, as in TF, but ``load_model`` cannot
  revive it without graphs and says so; ``model.load_weights(directory)``
  restores its variables into a model built in Python.
* ``load_model(directory)`` reads that layout as written by torchflow or by
  tf.keras, and still reads torchflow 0.x's directories
  (``keras_metadata.json`` + ``variables/``) for one release.
"""

from __future__ import annotations

import inspect
import json
import os

from torchflow._src.keras import losses, metrics, optimizers
from torchflow._src.keras import metrics as metrics_lib
from torchflow._src.keras.engine import serialization
from torchflow._src.keras.engine.model import _json_default
from torchflow._src.keras.engine.sequential import Sequential
from torchflow._src.keras.engine.serialization import deserialize_layer, serialize_layer
from torchflow._src.keras.saving import hdf5_format, saved_model_format
from torchflow._src.keras.saving.saved_model_format import default_signature as default_signature
from torchflow._src.train import checkpoint_management as cm
from torchflow._src.train.checkpoint import Checkpoint, restore_graph, save_graph
from torchflow._src.train.checkpoint_management import latest_checkpoint
from torchflow._src.train.saved_model import load as saved_model
from torchflow._src.util.api import public

_H5_EXT = (".h5", ".hdf5", ".keras")


def _is_h5(filepath, save_format):
    if save_format is not None:
        fmt = str(save_format).lower()
        if fmt in ("h5", "hdf5", "keras"):
            return True
        if fmt in ("tf", "tensorflow"):
            return False
        raise ValueError(f"Unknown format \"{save_format}\". Was expecting one of {{\"tf\", "
                         f"\"h5\"}}.")
    return str(filepath).endswith(_H5_EXT)


def save_weights(model, filepath, overwrite=True, save_format=None):
    filepath = os.fspath(filepath)
    if _is_h5(filepath, save_format):
        hdf5_format.save_weights_h5(model, filepath)
        return None
    save_graph(model, filepath)  # TF's layout: the model is the root object
    cm.write_state(os.path.dirname(os.path.abspath(filepath)),
                   cm._State(os.path.abspath(filepath), [os.path.abspath(filepath)]))
    return None


def load_weights(model, filepath, by_name=False, skip_mismatch=False):
    filepath = os.fspath(filepath)
    if _is_h5(filepath, None):
        hdf5_format.load_weights_h5(model, filepath, by_name=by_name,
                                    skip_mismatch=skip_mismatch)
        return None
    if os.path.isdir(filepath):
        if saved_model_format.is_keras_saved_model(filepath):  # TF's SavedModel layout
            return restore_graph(model, os.path.join(filepath, "variables", "variables"))
        if os.path.exists(os.path.join(filepath, "keras_metadata.json")):
            # A directory written by model.save: its variables, as TF reads a
            # SavedModel directory's variables/variables.
            return Checkpoint(model=model).read(
                os.path.join(filepath, "variables", "variables")).expect_partial()
        filepath = latest_checkpoint(filepath) or filepath
    return restore_graph(model, filepath, legacy_root="model")


def _training_config(model):
    if not getattr(model, "_is_compiled", False) or model.optimizer is None:
        return None
    def ser_loss(l):
        if l is None or isinstance(l, str):
            return l
        if isinstance(l, (list, tuple)):
            return [ser_loss(x) for x in l]
        if isinstance(l, dict):
            return {k: ser_loss(v) for k, v in l.items()}
        return losses.serialize(l)

    def ser_metric(m):
        if m is None or isinstance(m, str):
            return m
        if isinstance(m, (list, tuple)):
            return [ser_metric(x) for x in m]
        if isinstance(m, dict):
            return {k: ser_metric(v) for k, v in m.items()}
        return metrics.serialize(m)

    cm = model.compiled_metrics
    return {"loss": ser_loss(model.loss),
            "metrics": ser_metric(cm._user_metrics),
            "weighted_metrics": ser_metric(cm._user_weighted),
            "loss_weights": model.compiled_loss._user_weights,
            "optimizer_config": optimizers.serialize(model.optimizer)}


def _model_config(model):
    return serialize_layer(model)


@public("torchflow.keras.models")
def save_model(model, filepath, overwrite=True, include_optimizer=True, save_format=None,
               signatures=None, options=None, save_traces=True):
    """Saves config, weights and optimizer state (see the module docstring).

    Args:
      model: The Keras model.
      filepath: str or path-like: the target; a name ending in ``.h5``/``.keras`` (or
        ``save_format='h5'``) selects HDF5, otherwise a directory is written.
      overwrite: bool, default True: replace an existing file silently.
      include_optimizer: bool, default True: also save the optimizer's state.
      save_format: None (default: from ``filepath``), ``'tf'`` or ``'h5'``.
      signatures: SavedModel only: the serving signatures (as for
        ``tf.saved_model.save``); default: the model's call on its inputs as
        ``serving_default``, where its ops can be written as TF ops.
      options: SavedModel only: a ``tf.saved_model.SaveOptions``.
      save_traces: Accepted; the layers' configs are always saved and the
        model's call is traced where it can be.

    Returns:
      None.

    Raises:
      ValueError: For an unknown ``save_format``.
    """
    filepath = os.fspath(filepath)
    h5 = _is_h5(filepath, save_format)
    if h5 and not (model._is_graph_network or isinstance(model, Sequential)):
        raise NotImplementedError(
            "Saving the model to HDF5 format requires the model to be a Functional model or "
            "a Sequential model. It does not work for subclassed models, because such models "
            "are defined via the body of a Python method, which isn't safely serializable. "
            "Consider saving to the Tensorflow SavedModel format (by setting "
            "save_format=\"tf\") or using `save_weights`.")
    try:
        config = json.dumps(_model_config(model), default=_json_default)
    except NotImplementedError:
        if h5:
            raise
        # As TF's SavedModel: a model (or layer) without a config still saves; only
        # loading it back into a model needs the config (see load_model).
        config = "null"
    training = _training_config(model) if include_optimizer else None
    training_json = json.dumps(training, default=_json_default) if training else None
    if h5:
        h5py = hdf5_format._h5py()
        with h5py.File(filepath, "w") as f:
            f.attrs["keras_version"] = b"2.4.0"
            f.attrs["backend"] = b"tensorflow"
            f.attrs["model_config"] = config.encode("utf8")
            hdf5_format.save_weights_to_group(f.create_group("model_weights"),
                                              hdf5_format._layers_of(model))
            if training_json is not None:
                f.attrs["training_config"] = training_json.encode("utf8")
                opt = model.optimizer
                g = f.create_group("optimizer_weights")
                weights = opt.weights if hasattr(opt, "weights") else []
                names = [w.name.encode("utf8") for w in weights]
                g.attrs["weight_names"] = names
                for n, w in zip(names, weights):
                    v = w.numpy()
                    ds = g.create_dataset(n.decode("utf8"), v.shape, dtype=v.dtype)
                    if v.shape:
                        ds[:] = v
                    else:
                        ds[()] = v
        return None
    saved_model_format.save(model, filepath, include_optimizer,
                            json.loads(training_json) if training_json else None,
                            signatures=signatures, options=options)
    old = os.path.join(filepath, "keras_metadata.json")  # torchflow 0.x's format
    if os.path.exists(old):
        os.remove(old)
    return None


def _optimizer_from_config(config, custom_objects):
    """The optimizer of a training config, also as newer tf.keras writes it
    (``Custom>Adam`` class names, extra keys such as ``weight_decay``)."""
    config = dict(config)
    name = str(config.get("class_name", ""))
    if name.startswith("Custom>"):
        config["class_name"] = name = name[len("Custom>"):]
    try:
        return optimizers.deserialize(config, custom_objects=custom_objects)
    except (TypeError, ValueError):
        cls = type(optimizers.get(name.lower()))
        params = inspect.signature(cls.__init__).parameters
        kwargs = {k: v for k, v in config.get("config", {}).items() if k in params}
        return cls(**kwargs)


def _metrics_from_config(spec, model, custom_objects):
    """Metrics of a training config: names as given; serialized metric objects
    rebuilt (tf.keras writes ``[[{...}]]`` per output for one-output models)."""
    if spec is None:
        return None
    def one(m):
        if isinstance(m, dict) and "class_name" in m:
            name = m.get("config", {}).get("name")
            if name in ("accuracy", "acc", "crossentropy", "ce"):
                return name
            try:
                return metrics_lib.deserialize(m, custom_objects=custom_objects)
            except (TypeError, ValueError):
                return name
        if isinstance(m, list):
            return [one(x) for x in m]
        if isinstance(m, dict):
            return {k: one(v) for k, v in m.items()}
        return m

    out = one(spec)
    if isinstance(out, list) and len(out) == 1 and isinstance(out[0], list) and \
            len(getattr(model, "outputs", [None]) or [None]) == 1:
        out = out[0]
    return out


def _compile_from(model, training, custom_objects):
    if not training:
        return
    opt = _optimizer_from_config(training["optimizer_config"], custom_objects)
    loss = training.get("loss")
    if isinstance(loss, dict) and "class_name" in loss:
        loss = losses.deserialize(loss, custom_objects=custom_objects)
    metrics = _metrics_from_config(training.get("metrics"), model, custom_objects)
    weighted = _metrics_from_config(training.get("weighted_metrics"), model, custom_objects)
    model.compile(optimizer=opt, loss=loss, metrics=metrics, weighted_metrics=weighted,
                  loss_weights=training.get("loss_weights"))


@public("torchflow.keras.models")
def load_model(filepath, custom_objects=None, compile=True, options=None):  # noqa: A002
    """Loads a model saved by ``model.save`` (or a tf.keras HDF5 whole-model file).

    Args:
      filepath: An ``.h5`` file or a directory written by ``model.save``.
      custom_objects: ``{name: class or function}`` for custom layers, losses, ...
      compile: Compile the model with the saved training configuration.

    Returns:
      The model.

    Raises:
      IOError: If ``filepath`` holds no saved model.
      ValueError: If a class in the config is unknown.
    """
    filepath = os.fspath(filepath)
    if os.path.isfile(filepath) and _is_h5(filepath, None) or (
            os.path.isfile(filepath) and not os.path.isdir(filepath)):
        h5py = hdf5_format._h5py()
        with h5py.File(filepath, "r") as f:
            raw = f.attrs.get("model_config")
            if raw is None:
                raise ValueError("No model found in config file.")
            cfg = json.loads(raw.decode("utf8") if isinstance(raw, bytes) else raw)
            model = deserialize_layer(cfg, custom_objects)
            hdf5_format.load_weights_from_group(f["model_weights"],
                                                hdf5_format._layers_of(model))
            tr = f.attrs.get("training_config")
            training = json.loads(tr.decode("utf8") if isinstance(tr, bytes) else tr) \
                if tr is not None else None
            if compile and training:
                _compile_from(model, training, custom_objects)
                if "optimizer_weights" in f and hasattr(model.optimizer, "_restore_h5_weights"):
                    model.optimizer._restore_h5_weights(model, f["optimizer_weights"])
        return model
    if saved_model_format.is_keras_saved_model(filepath):
        return saved_model_format.load(filepath, custom_objects, compile, _compile_from)
    meta_path = os.path.join(filepath, "keras_metadata.json")  # torchflow 0.x's format
    if not os.path.exists(meta_path):
        if os.path.isdir(filepath) and saved_model.contains_saved_model(filepath):
            return saved_model.load(filepath, options=options)  # not a Keras model (as TF)
        raise IOError(f"No file or directory found at {filepath}")
    with open(meta_path, encoding="utf8") as f:
        meta = json.load(f)
    if meta.get("model_config") is None:
        raise NotImplementedError(
            f"The model saved at {filepath} has no config (a subclassed model, or a layer, "
            f"that does not implement `get_config`), so it cannot be rebuilt from the saved "
            f"directory: torchflow does not write TF SavedModel graphs to revive it from. "
            f"Create the model in Python and restore its variables with "
            f"`model.load_weights({filepath!r})`.")
    with serialization.reviving():  # TF revives custom classes from the graph
        model = deserialize_layer(meta["model_config"], custom_objects)
    if compile and meta.get("training_config"):
        _compile_from(model, meta["training_config"], custom_objects)
        Checkpoint(model=model, optimizer=model.optimizer).read(
            os.path.join(filepath, "variables", "variables")).expect_partial()
    else:
        Checkpoint(model=model).read(
            os.path.join(filepath, "variables", "variables")).expect_partial()
    return model
