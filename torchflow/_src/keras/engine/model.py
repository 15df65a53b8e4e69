"""``tf.keras.Model``: a Layer with layer tracking, summary and saving.

``Model(inputs, outputs)`` returns a Functional model; subclassing ``Model``
and writing ``call`` gives a subclassed model. Training methods come from
``TrainingMixin`` (engine/training.py).
"""

from __future__ import annotations

import json
import warnings

from torchflow._src.core.tensor_shape import TensorShape
from torchflow._src.keras.engine import functional_utils
from torchflow._src.keras.engine.base_layer import Layer
from torchflow._src.keras.engine.keras_tensor import KerasTensor
from torchflow._src.keras.engine.layer_utils import print_summary
from torchflow._src.keras.engine.serialization import serialize_layer
from torchflow._src.keras.engine.training import TrainingMixin
from torchflow._src.util import nest
from torchflow._src.util.api import public


@public("torchflow.keras")
class Model(TrainingMixin, Layer):
    """Groups layers into an object with training and inference features.

    Either ``Model(inputs=..., outputs=...)`` (Functional API) or a subclass
    that creates layers in ``__init__`` and uses them in ``call``.

    Args:
      *args: Functional API: ``inputs`` and ``outputs`` positionally (Keras tensors from
        ``tf.keras.Input`` and the layers applied to them; a list or dict for several).
      **kwargs: ``inputs``, ``outputs``, ``name`` (str, default: generated), ``trainable``
        (bool, default True) and the other ``Layer`` arguments (``dtype`` ...).

    Raises:
      TypeError: For a keyword argument ``Model`` does not take.
    """

    _is_model = True  # Layer._maybe_build records the save spec of models only

    def __new__(cls, *args, **kwargs):
        if cls is Model and _is_functional_init(args, kwargs):
            # cycle: Functional subclasses Model.
            from torchflow._src.keras.engine.functional import Functional

            return Functional.__new__(Functional)
        return super().__new__(cls)

    def __init__(self, *args, **kwargs):
        if _is_functional_init(args, kwargs):
            # A subclass calling ``super().__init__(inputs, outputs)`` (the "Functional
            # API in a subclass" pattern): as TF does, ``Functional`` takes the place of
            # ``Model`` among the class's bases, and the graph network is built here.
            # cycle: Functional subclasses Model.
            from torchflow._src.keras.engine.functional import Functional

            if not isinstance(self, Functional):
                supported = ("inputs", "outputs", "name", "trainable", "dtype")
                unknown = {k: v for k, v in kwargs.items() if k not in supported}
                if unknown:
                    raise TypeError(f"The following keyword arguments aren't supported: "
                                    f"{unknown}")
                _inject_functional(type(self), Functional)
                Functional.__init__(self, *args, **kwargs)
                return
        if args:
            raise TypeError(f"Model.__init__() takes no positional arguments but the "
                            f"inputs and outputs of a Functional model. Received: {args}")
        trainable = kwargs.pop("trainable", True)
        name = kwargs.pop("name", None)
        dtype = kwargs.pop("dtype", None)
        dynamic = kwargs.pop("dynamic", False)
        super().__init__(trainable=trainable, name=name, dtype=dtype, dynamic=dynamic, **kwargs)
        self._is_graph_network = False
        self._init_training_state()

    def _init_training_state(self):
        init = getattr(super(), "_init_training", None)
        if init is not None:
            init()

    @property
    def weights(self) -> list:
        """All weights, layer by layer (each layer's trainable then non-trainable ones),
        then the model's own: tf.keras' ``Model.weights`` order, so ``get_weights``/
        ``set_weights`` lists move between torchflow and tf.keras."""
        out = []
        for layer in self._self_tracked_layers:
            out.extend(layer.weights)
        out.extend(self._trainable_weights)
        out.extend(self._non_trainable_weights)
        seen = set()
        return [w for w in out if not (id(w) in seen or seen.add(id(w)))]

    # --- layers -------------------------------------------------------------
    @property
    def layers(self) -> list:
        """The model's direct sublayers, in creation/graph order."""
        return [l for l in self._self_tracked_layers
                if not getattr(l, "is_placeholder", False) or self._is_graph_network]

    def get_layer(self, name=None, index=None):
        """A layer by ``name`` or by ``index`` (in ``layers`` order).

        Args:
          name: None or str, the layer's name.
          index: None or int, the layer's position in ``model.layers``.

        Returns:
          The layer.

        Raises:
          ValueError: If no layer matches, or neither/both arguments are given.
        """
        if index is not None and name is not None:
            raise ValueError(f"Provide only a layer name or a layer index. Received: "
                             f"index={index}, name={name}.")
        if index is not None:
            if len(self.layers) <= index:
                raise ValueError(f"Was asked to retrieve layer at index {index} but model only "
                                 f"has {len(self.layers)} layers.")
            return self.layers[index]
        if name is not None:
            for layer in self.layers:
                if layer.name == name:
                    return layer
            raise ValueError(f"No such layer: {name}. Existing layers are: "
                             f"{[l.name for l in self.layers]}.")
        raise ValueError("Provide either a layer name or layer index at `get_layer`.")

    def build(self, input_shape):
        """Builds a subclassed model by calling it on zeros of ``input_shape``.

        A Functional or Sequential model with inputs is built already; this marks it built.

        Args:
          input_shape: A shape tuple (with None for the batch), a list of them or a dict of
            them for several inputs.

        Raises:
          ValueError: If ``input_shape`` is None.
        """
        if self._is_graph_network:
            self.built = True
            return
        if input_shape is None:
            raise ValueError("Input shape must be defined when calling build on a "
                             "model subclass network.")
        if isinstance(input_shape, dict):
            x = {k: KerasTensor(TensorShape(v), self.compute_dtype or "float32")
                 for k, v in input_shape.items()}
        elif isinstance(input_shape, (list, tuple)) and input_shape and \
                all(isinstance(s, (list, tuple, TensorShape)) for s in input_shape):
            x = [KerasTensor(TensorShape(s), self.compute_dtype or "float32")
                 for s in input_shape]
        else:
            x = KerasTensor(TensorShape(input_shape), self.compute_dtype or "float32")
        Layer.build(self, input_shape)
        functional_utils._run(self, (x,), {}, 0)
        self._build_input_shape = input_shape
        self.built = True

    build._is_default = True  # pyright: ignore[reportFunctionMemberAccess] - read by Layer._maybe_build

    def call(self, inputs, training=None, mask=None):
        """The model's forward pass; a subclassed ``Model`` overrides it.

        Functional models run their graph of layers; calling ``Model.call`` on a subclass
        that did not override it raises.

        Args:
          inputs: The input tensor(s).
          training: None or bool: whether the call is in training mode (dropout,
            batch-norm statistics).
          mask: None or the input mask(s).

        Returns:
          The output tensor(s).

        Raises:
          NotImplementedError: a subclassed model without its own ``call``.
        """
        raise NotImplementedError("Unimplemented `tf.keras.Model.call()`: if you intend to "
                                  "create a `Model` with the Functional API, please provide "
                                  "`inputs` and `outputs` arguments. Otherwise, subclass `Model` "
                                  "with an overridden `call()` method.")

    # --- summary ------------------------------------------------------------
    def summary(self, line_length=None, positions=None, print_fn=None):
        """Prints a table of the model's layers: output shapes and parameter counts.

        A Functional model whose graph branches (several layers at one depth, a
        layer with several inputs, or a shared layer) gets a fourth column,
        "Connected to", listing each layer's inputs as ``layer[node][tensor]``.

        Args:
          line_length: Width of the table in characters (default 65, or 98 with
            the "Connected to" column).
          positions: Where each column ends: fractions of ``line_length`` (all at
            most 1) or absolute positions (default ``[.45, .85, 1.]``, or
            ``[.33, .55, .67, 1.]`` with the fourth column).
          print_fn: Called with each line of the table (default ``print``); pass
            e.g. ``lines.append`` to capture it.

        Raises:
          ValueError: If the model is not built yet (a subclassed model that was
            never called, nor built with ``build(input_shape)``).
        """
        if not self.built:
            raise ValueError("This model has not yet been built. Build the model first by "
                             "calling `build()` or calling `fit()` with some data, or specify "
                             "an `input_shape` argument in the first layer(s) for automatic "
                             "build.")
        print_summary(self, line_length=line_length, positions=positions, print_fn=print_fn)

    # --- saving (see keras/saving/) -------------------------------------------
    def save_weights(self, filepath, overwrite=True, save_format=None, options=None):
        """Saves all of the model's weights (not its architecture) to a file.

        Args:
          filepath: Where to write: a path ending in ``.h5``/``.hdf5``/``.keras``
            gives one HDF5 file in tf.keras' layout; any other path is the prefix
            of a checkpoint (``tf.train.Checkpoint`` of the model: ``PATH.index``,
            ``PATH.data-00000-of-00001`` and a ``checkpoint`` file beside them).
          overwrite: Replace an existing file without asking (accepted; files
            are always replaced).
          save_format: ``"tf"`` or ``"h5"``, overriding the choice made from the
            file name.
          options: A ``tf.train.CheckpointOptions`` (accepted and unused).

        Raises:
          ImportError: If HDF5 is asked for and ``h5py`` is not installed.
          ValueError: For an unknown ``save_format``.
        """
        # cycle: saving imports engine.model to save and rebuild models.
        from torchflow._src.keras.saving import save_weights

        return save_weights(self, filepath, overwrite=overwrite, save_format=save_format)

    def load_weights(self, filepath, by_name=False, skip_mismatch=False, options=None):
        """Loads weights written by ``save_weights`` (or by tf.keras, for HDF5).

        HDF5 weights are matched to the layers in order (weights of layers
        without weights skipped), or by layer name with ``by_name=True``; a
        checkpoint is matched through the objects' attribute names, so the model
        must have the same structure (its variables are restored as they are
        created, for a model not built yet).

        Args:
          filepath: A ``.h5`` file, a checkpoint prefix, a directory holding
            checkpoints (the latest is read), or a directory written by
            ``model.save`` (its variables are read).
          by_name: HDF5 only: match the file's layers to the model's by name.
          skip_mismatch: HDF5 with ``by_name=True`` only: skip layers whose weight
            count or shapes differ, with a warning, instead of raising.
          options: A ``tf.train.CheckpointOptions`` (accepted and unused).

        Returns:
          For a checkpoint, a load status (``assert_consumed()``,
          ``expect_partial()``, ...); None for HDF5.

        Raises:
          ImportError: If the file is HDF5 and ``h5py`` is not installed.
          ValueError: If the weights do not fit the model's layers.
        """
        # cycle: saving imports engine.model to save and rebuild models.
        from torchflow._src.keras.saving import load_weights

        return load_weights(self, filepath, by_name=by_name, skip_mismatch=skip_mismatch)

    def save(self, filepath, overwrite=True, include_optimizer=True, save_format=None,
             signatures=None, options=None, save_traces=True):
        """Saves the model: architecture, weights and (optionally) optimizer state.

        Args:
          filepath: Where to write. A path ending in ``.h5``/``.hdf5``/``.keras``
            gives one HDF5 file in tf.keras' whole-model layout (it loads in
            tf.keras too); any other path gives a directory (see below).
          overwrite: Replace existing files (accepted; they are always replaced).
          include_optimizer: Also save the compile configuration and the
            optimizer's state, so a loaded model can resume training.
          save_format: ``"tf"`` or ``"h5"``, overriding the choice made from the
            path.
          signatures: SavedModel serving signatures (as for
            ``tf.saved_model.save``); default: the call on the model's inputs.
          options: A ``tf.saved_model.SaveOptions``.
          save_traces: Whether SavedModel stores traced call functions
            (accepted; the call is traced where its ops can be written).

        The directory is in TF's Keras SavedModel layout: ``keras_metadata.pb``
        (each layer's class, config and build shape), ``variables/`` (a TF
        checkpoint of the model and its optimizer) and ``saved_model.pb``; it
        loads in torchflow and in tf.keras (``tf.keras.models.load_model``).
        ``saved_model.pb`` holds the model's call traced on its inputs
        (``__call__`` and the ``serving_default`` signature) where every op of
        the call can be written as a TF op (Dense-only models today), else the
        object graph alone. Differences from TensorFlow 2.4: no per-layer
        traced functions, and no graphs for calls with other ops; a
        model without a config (a subclassed model that does not implement
        ``get_config``) saves, but ``load_model`` cannot revive it
        (``load_weights`` on the directory restores its variables into a model
        built in Python).

        Raises:
          NotImplementedError: For HDF5 and a subclassed model (TF's message), or
            a layer whose ``get_config`` is missing.
          ImportError: If HDF5 is asked for and ``h5py`` is not installed.
          ValueError: For an unknown ``save_format``.
        """
        # cycle: saving imports engine.model to save and rebuild models.
        from torchflow._src.keras.saving import save_model

        return save_model(self, filepath, overwrite=overwrite,
                          include_optimizer=include_optimizer, save_format=save_format,
                          signatures=signatures, options=options, save_traces=save_traces)

    def _default_save_signature(self):
        """The ``serving_default`` signature a SavedModel of this model gets (TF's
        Keras hook for ``tf.saved_model.save``): the call traced on the model's
        inputs, outputs keyed by output name; None where the inputs are unknown."""
        # cycle: saving imports engine.model to save and rebuild models.
        from torchflow._src.keras.saving import default_signature

        return default_signature(self)

    def to_json(self, **kwargs) -> str:
        """The model's architecture (its layers and their configs) as a JSON string.

        ``tf.keras.models.model_from_json`` rebuilds the model (without weights).

        Args:
          **kwargs: Passed to ``json.dumps`` (``indent=2``, ...).

        Returns:
          A str.
        """
        cfg = serialize_layer(self)
        cfg["keras_version"] = "2.4.0"
        cfg["backend"] = "tensorflow"
        return json.dumps(cfg, default=_json_default, **kwargs)

    def get_config(self):
        """The model's config: a Functional model's layer graph, or a subclass's own dict.

        Returns:
          A dict that ``from_config`` turns back into a model.

        Raises:
          NotImplementedError: a subclassed model that does not implement ``get_config``.
        """
        raise NotImplementedError(
            "Subclassed models do not implement get_config by default; implement "
            "get_config/from_config to make the model serializable.")

    @classmethod
    def from_config(cls, config, custom_objects=None):
        """A model from ``get_config()``: Functional graphs are rebuilt layer by layer.

        Args:
          config: The dict ``get_config`` returned.
          custom_objects: None or a dict of custom layer classes and functions by name.

        Returns:
          A new model (without the original's weights).
        """
        if "layers" in config and "input_layers" in config:
            # cycle: Functional subclasses Model.
            from torchflow._src.keras.engine.functional import Functional

            target = cls if issubclass(cls, Functional) else Functional
            return Functional.from_config.__func__(target, config, custom_objects)
        return cls(**config)

    @property
    def state_updates(self):
        """``[]``: TF 2 runs stateful layers' updates as they happen."""
        return []

    @property
    def stateful(self) -> bool:
        """Whether any of the model's layers is stateful (e.g. ``RNN(stateful=True)``)."""
        return any(getattr(layer, "stateful", False) for layer in self.layers)

    def reset_states(self):
        """Resets the state of every stateful layer (``layer.reset_states()``).

        Stateful RNNs carry their state across batches until this is called.
        """
        for layer in self.layers:
            if hasattr(layer, "reset_states") and getattr(layer, "stateful", False):
                layer.reset_states()

    def to_yaml(self, **kwargs) -> str:
        """The model's architecture (``to_json``'s document) as YAML.

        Args:
          **kwargs: Passed to ``yaml.dump``.

        Returns:
          A YAML string; ``tf.keras.models.model_from_yaml`` reads it back.

        Raises:
          ImportError: If PyYAML is not installed.
          NotImplementedError: For a subclassed model without ``get_config``.
        """
        try:
            import yaml
        except ImportError:
            raise ImportError("Requires yaml module installed (`pip install pyyaml`).") from None
        return yaml.dump(json.loads(self.to_json()), **kwargs)

    def fit_generator(self, generator, steps_per_epoch=None, epochs=1, verbose=1,
                      callbacks=None, validation_data=None, validation_steps=None,
                      validation_freq=1, class_weight=None, max_queue_size=10, workers=1,
                      use_multiprocessing=False, shuffle=True, initial_epoch=0):
        """Deprecated: ``fit`` takes generators (TF 2.4 warns the same and calls it).

        Args:
          generator: A Python generator or ``tf.keras.utils.Sequence`` of batches.
          steps_per_epoch: None or the number of batches per epoch.
          epochs: int, default 1.
          verbose: 0, 1 or 2.
          callbacks: None or a list of callbacks.
          validation_data: None, a generator or a tuple of validation arrays.
          validation_steps: None or the number of validation batches.
          validation_freq: int, default 1: run validation every this many epochs.
          class_weight: None or a dict of per-class loss weights.
          max_queue_size: int, default 10: how many batches of a ``Sequence`` are
            prefetched.
          workers: int, default 1: the threads (or processes) reading a ``Sequence``.
          use_multiprocessing: bool, default False: processes instead of threads.
          shuffle: bool, default True.
          initial_epoch: int, default 0: the epoch to start counting from.

        Returns:
          A ``History`` object, as ``fit`` returns.
        """
        warnings.warn("`Model.fit_generator` is deprecated and will be removed in a future "
                      "version. Please use `Model.fit`, which supports generators.",
                      stacklevel=2)
        return self.fit(generator, steps_per_epoch=steps_per_epoch, epochs=epochs,
                        verbose=verbose, callbacks=callbacks, validation_data=validation_data,
                        validation_steps=validation_steps, validation_freq=validation_freq,
                        class_weight=class_weight, max_queue_size=max_queue_size,
                        workers=workers, use_multiprocessing=use_multiprocessing,
                        shuffle=shuffle, initial_epoch=initial_epoch)

    def evaluate_generator(self, generator, steps=None, callbacks=None, max_queue_size=10,
                           workers=1, use_multiprocessing=False, verbose=0):
        """Deprecated: ``evaluate`` takes generators (TF 2.4 warns and calls it).

        Args:
          generator: A Python generator or ``tf.keras.utils.Sequence`` of batches.
          steps: None or the number of batches.
          callbacks: None or a list of callbacks.
          max_queue_size: int, default 10: how many batches of a ``Sequence`` are
            prefetched.
          workers: int, default 1: the threads (or processes) reading a ``Sequence``.
          use_multiprocessing: bool, default False: processes instead of threads.
          verbose: 0 or 1.

        Returns:
          The loss (and metrics), as ``evaluate`` returns.
        """
        warnings.warn("`Model.evaluate_generator` is deprecated and will be removed in a "
                      "future version. Please use `Model.evaluate`, which supports "
                      "generators.", stacklevel=2)
        return self.evaluate(generator, steps=steps, callbacks=callbacks, verbose=verbose,
                             max_queue_size=max_queue_size, workers=workers,
                             use_multiprocessing=use_multiprocessing)

    def predict_generator(self, generator, steps=None, callbacks=None, max_queue_size=10,
                          workers=1, use_multiprocessing=False, verbose=0):
        """Deprecated: ``predict`` takes generators (TF 2.4 warns and calls it).

        Args:
          generator: A Python generator or ``tf.keras.utils.Sequence`` of input batches.
          steps: None or the number of batches.
          callbacks: None or a list of callbacks.
          max_queue_size: int, default 10: how many batches of a ``Sequence`` are
            prefetched.
          workers: int, default 1: the threads (or processes) reading a ``Sequence``.
          use_multiprocessing: bool, default False: processes instead of threads.
          verbose: 0 or 1.

        Returns:
          The predictions, as ``predict`` returns.
        """
        warnings.warn("`Model.predict_generator` is deprecated and will be removed in a "
                      "future version. Please use `Model.predict`, which supports "
                      "generators.", stacklevel=2)
        return self.predict(generator, steps=steps, callbacks=callbacks, verbose=verbose,
                            max_queue_size=max_queue_size, workers=workers,
                            use_multiprocessing=use_multiprocessing)

    @property
    def input_spec(self):
        return self._input_spec

    @input_spec.setter
    def input_spec(self, value):
        self._input_spec = value


def _is_functional_init(args, kwargs) -> bool:
    """TF's test for ``Model(inputs, outputs)`` arguments, positional or by keyword."""
    return (len(args) == 2 or (len(args) == 1 and "outputs" in kwargs)
            or ("inputs" in kwargs and "outputs" in kwargs))


def _inject_functional(cls, functional):
    """Replaces ``Model`` by ``functional`` in ``cls``'s bases, recursively (TF 2.4's
    ``inject_functional_model_class``); classes outside the Keras hierarchy stay."""
    if cls is Model:
        return functional
    if cls is object or not issubclass(cls, Model) or issubclass(cls, functional):
        return cls
    cls.__bases__ = tuple(_inject_functional(b, functional) for b in cls.__bases__)
    return cls


def _json_default(obj):
    if isinstance(obj, TensorShape):
        return obj.as_list()
    if hasattr(obj, "item"):
        return obj.item()
    if isinstance(obj, tuple):
        return list(obj)
    raise TypeError(f"Not JSON Serializable: {obj!r}")


def flatten_nested(x):
    return nest.flatten(x)
