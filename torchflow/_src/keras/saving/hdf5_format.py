"""Keras weights in HDF5, in the layout tf.keras writes (``h5py``).

A weights file (or the ``model_weights`` group of a whole-model file) has
attributes ``layer_names``, ``backend``, ``keras_version``; one group per layer
with attribute ``weight_names``, and one dataset per weight at
``<layer name>/<weight name>`` (weight names like ``dense/kernel:0``). Loading
is by position among the layers that have weights (or by layer name with
``by_name=True``), as tf.keras does, so files move both ways.
"""

from __future__ import annotations

import logging

import numpy as np

_log = logging.getLogger("torchflow")


def _h5py():
    import h5py

    return h5py


def _layers_of(model):
    return list(model.layers) if hasattr(model, "layers") else [model]


def _decode(names):
    return [n.decode("utf8") if isinstance(n, bytes) else str(n) for n in names]


def save_weights_to_group(group, layers) -> None:
    """Writes ``layers``' weights into an open h5py group."""
    group.attrs["layer_names"] = [layer.name.encode("utf8") for layer in layers]
    group.attrs["backend"] = b"tensorflow"
    group.attrs["keras_version"] = b"2.4.0"
    for layer in layers:
        g = group.create_group(layer.name)
        weights = layer.weights
        names = []
        for i, w in enumerate(weights):
            name = w.name
            if name.encode("utf8") in names:
                name = f"{name}_{i}"
            names.append(name.encode("utf8"))
        g.attrs["weight_names"] = names
        for name, w in zip(names, weights):
            value = w.numpy()
            if value.dtype.name == "bfloat16":
                value = value.astype(np.float32)
            ds = g.create_dataset(name.decode("utf8"), value.shape, dtype=value.dtype)
            if value.shape:
                ds[:] = value
            else:
                ds[()] = value


def _group_weights(g):
    names = _decode(g.attrs.get("weight_names", []))
    return [np.asarray(g[n]) for n in names]


def load_weights_from_group(group, layers) -> None:
    """Loads weights by position among layers that have weights (tf.keras' rule).

    Raises:
      ValueError: If the numbers of layers or weights differ.
    """
    filtered_layers = [l for l in layers if l.weights]
    names = _decode(group.attrs["layer_names"])
    filtered_names = [n for n in names if _decode(group[n].attrs.get("weight_names", []))]
    if len(filtered_names) != len(filtered_layers):
        raise ValueError(f"You are trying to load a weight file containing "
                         f"{len(filtered_names)} layers into a model with "
                         f"{len(filtered_layers)} layers.")
    for k, (name, layer) in enumerate(zip(filtered_names, filtered_layers)):
        values = _group_weights(group[name])
        if len(values) != len(layer.weights):
            raise ValueError(f"Layer #{k} (named \"{layer.name}\" in the current model) was "
                             f"found to correspond to layer {name} in the save file. However "
                             f"the new layer {layer.name} expects {len(layer.weights)} "
                             f"weights, but the saved weights have {len(values)} elements.")
        _assign(layer, values, skip_mismatch=False)


def load_weights_from_group_by_name(group, layers, skip_mismatch=False) -> None:
    """Loads weights into layers with the same name.

    Raises:
      ValueError: On a count or shape mismatch, unless ``skip_mismatch``.
    """
    by_name = {}
    for layer in layers:
        by_name.setdefault(layer.name, []).append(layer)
    for name in _decode(group.attrs["layer_names"]):
        values = _group_weights(group[name])
        for layer in by_name.get(name, []):
            if len(values) != len(layer.weights):
                if skip_mismatch:
                    _log.warning("Skipping loading of weights for layer %s due to mismatch in "
                                 "number of weights (%d vs %d).", layer.name,
                                 len(layer.weights), len(values))
                    continue
                raise ValueError(f"Layer named \"{layer.name}\" expects {len(layer.weights)} "
                                 f"weight(s), but the saved weights have {len(values)} "
                                 f"element(s).")
            _assign(layer, values, skip_mismatch)


def _assign(layer, values, skip_mismatch):
    for w, v in zip(layer.weights, values):
        if tuple(w.shape.as_list()) != tuple(v.shape):
            if skip_mismatch:
                _log.warning("Skipping loading of weights for layer %s due to mismatch in "
                             "shape (%s vs %s).", layer.name, w.shape, v.shape)
                return
            raise ValueError(f"Layer {layer.name} weight shape {w.shape} is not compatible "
                             f"with provided weight shape {v.shape}.")
    for w, v in zip(layer.weights, values):
        w.assign(v.astype(w.dtype.as_numpy_dtype) if w.dtype.as_numpy_dtype is not None else v)


def save_weights_h5(model, filepath) -> None:
    with _h5py().File(filepath, "w") as f:
        save_weights_to_group(f, _layers_of(model))


def load_weights_h5(model, filepath, by_name=False, skip_mismatch=False) -> None:
    with _h5py().File(filepath, "r") as f:
        group = f["model_weights"] if "layer_names" not in f.attrs and "model_weights" in f \
            else f
        layers = _layers_of(model)
        if by_name:
            load_weights_from_group_by_name(group, layers, skip_mismatch)
        else:
            if skip_mismatch:
                raise ValueError("When calling model.load_weights, skip_mismatch can only be "
                                 "set to True when by_name is True.")
            load_weights_from_group(group, layers)
