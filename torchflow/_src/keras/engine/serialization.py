"""Layer (de)serialization by class name: ``{"class_name": ..., "config": ...}``."""

from __future__ import annotations

import contextlib
import importlib
import inspect

from torchflow._src.core import context

_custom_objects_stack: list = []


@contextlib.contextmanager
def reviving():
    """While a SavedModel directory loads: a class not in ``custom_objects`` is
    found by name among all the ``Layer`` subclasses defined in the process.

    TF revives such a layer from the SavedModel's graph without its Python class
    (so ``load_model(dir)`` works without ``custom_objects``); torchflow writes
    no graph to revive from, and uses the class of that name instead.
    """
    st = context.thread_state()
    old = getattr(st, "keras_reviving", False)
    st.keras_reviving = True
    try:
        yield
    finally:
        st.keras_reviving = old


def _all_subclasses(cls):
    out = {}
    stack = [cls]
    while stack:
        c = stack.pop()
        for sub in c.__subclasses__():
            if sub.__name__ not in out or not sub.__module__.startswith("torchflow."):
                out.setdefault(sub.__name__, sub)
            stack.append(sub)
    return out


def _builtin_subclasses(cls):
    """torchflow's own subclasses of ``cls`` by name: what tf.keras finds without
    ``custom_objects`` (a user's subclass is found only when passed in
    ``custom_objects``, a ``custom_object_scope`` or registered)."""
    out = {}
    stack = [cls]
    while stack:
        c = stack.pop()
        for sub in c.__subclasses__():
            if sub.__module__.split(".")[0] == "torchflow":
                out.setdefault(sub.__name__, sub)
            stack.append(sub)
    return out


def _registered_name(cls) -> str:
    """``"package>Name"`` for a class ``register_keras_serializable`` registered,
    else the class name (as tf.keras's ``get_registered_name``)."""
    glob = getattr(context.GLOBAL, "keras_custom_objects", None)
    if glob:
        for key, obj in glob.items():
            if obj is cls and ">" in key:
                return key
    return cls.__name__


def serialize_layer(layer) -> dict:
    return {"class_name": _registered_name(type(layer)), "config": layer.get_config()}


def get_registered_object(name, custom_objects=None):
    """A custom object by name: ``custom_objects`` first, then the global ones."""
    if custom_objects and name in custom_objects:
        return custom_objects[name]
    for scope in reversed(_custom_objects_stack):
        if name in scope:
            return scope[name]
    glob = getattr(context.GLOBAL, "keras_custom_objects", None)
    if glob and name in glob:
        return glob[name]
    return None


def deserialize_layer(config, custom_objects=None):
    """Creates a layer from ``{"class_name", "config"}``.

    Raises:
      ValueError: For an unknown class name.
    """
    # cycle: base_layer uses initializers, regularizers and constraints, which deserialize through this module.
    from torchflow._src.keras.engine.base_layer import Layer

    if isinstance(config, Layer):
        return config
    name = config["class_name"]
    cls = get_registered_object(name, custom_objects)
    if cls is None:
        _ensure_layers_loaded()
        cls = _builtin_subclasses(Layer).get(name)
        if cls is None and getattr(context.thread_state(), "keras_reviving", False):
            cls = _all_subclasses(Layer).get(name)
    if cls is None:
        raise ValueError(f"Unknown layer: {name}. Please ensure this object is passed to the "
                         f"`custom_objects` argument. See "
                         f"https://www.tensorflow.org/guide/keras/save_and_serialize"
                         f"#registering_the_custom_object for details.")
    cfg = config.get("config", {})
    if hasattr(cls, "from_config"):
        if "custom_objects" in inspect.signature(cls.from_config).parameters:
            return cls.from_config(cfg, custom_objects=custom_objects)
        return cls.from_config(cfg)
    return cls(**cfg)


def _ensure_layers_loaded():
    for mod in ("torchflow._src.keras.layers", "torchflow._src.keras.engine.sequential",
                "torchflow._src.keras.engine.functional"):
        try:
            importlib.import_module(mod)
        except ImportError:
            pass


def deserialize_object(config, classes, custom_objects, kind: str):
    """An object from ``{"class_name", "config"}`` or a bare name, looked up in
    ``custom_objects``, the registered custom objects, then ``classes``.

    Raises:
      ValueError: For an unknown name (``Unknown <kind>: <name>``).
    """
    if isinstance(config, str):
        name, cfg = config, {}
    else:
        name, cfg = config["class_name"], dict(config.get("config", {}))
    cls = get_registered_object(name, custom_objects) or classes.get(name)
    if cls is None:
        raise ValueError(f"Unknown {kind}: {name}")
    return cls.from_config(cfg) if hasattr(cls, "from_config") else cls(**cfg)


def get_object(identifier, deserialize, kind: str):
    """``get()`` of the Keras registries: None, a name, a config dict or a callable.

    Raises:
      ValueError: If ``identifier`` cannot be interpreted.
    """
    if identifier is None:
        return None
    if isinstance(identifier, (str, dict)):
        return deserialize(identifier)
    if callable(identifier):
        return identifier
    raise ValueError(f"Could not interpret {kind} identifier: {identifier}")


def lookup_object(config, objects, custom_objects, kind: str):
    """A loss or metric from ``serialize``'s output: a config dict becomes an
    instance (``from_config``); a bare name gives the function, or an instance
    of the class, of that name.

    Raises:
      ValueError: For an unknown name (``Unknown <kind>: <name>. ...``).
    """
    name = config["class_name"] if isinstance(config, dict) else config
    obj = get_registered_object(name, custom_objects) or objects.get(name)
    if obj is None:
        raise ValueError(f"Unknown {kind}: {name}. Please ensure this object is passed to "
                         f"the `custom_objects` argument.")
    if isinstance(config, dict):
        return obj.from_config(dict(config.get("config", {})))
    return obj() if isinstance(obj, type) else obj
