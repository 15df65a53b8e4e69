"""Custom-object registry of ``tf.keras.utils``: scopes, registration, (de)serialization."""

from __future__ import annotations

import inspect

from torchflow._src.core import context
from torchflow._src.keras.engine import serialization
from torchflow._src.util.api import public

# Names registered with ``register_keras_serializable``: class -> "package>Name".
_REGISTERED_NAMES: dict = {}


def _global_objects() -> dict:
    objects = getattr(context.GLOBAL, "keras_custom_objects", None)
    if objects is None:
        objects = context.GLOBAL.keras_custom_objects = {}
    return objects


@public("torchflow.keras.utils")
class CustomObjectScope:
    """A scope in which the given custom objects are visible to deserialization.

    ``with CustomObjectScope({"MyLayer": MyLayer}):`` makes ``load_model`` and
    ``deserialize`` find ``MyLayer`` by name.

    Args:
      *args: Dicts of ``{name: class_or_function}``.
    """

    def __init__(self, *args):
        self.custom_objects = args
        self._pushed = 0

    def __enter__(self):
        for objects in self.custom_objects:
            serialization._custom_objects_stack.append(dict(objects or {}))
            self._pushed += 1
        return self

    def __exit__(self, *exc):
        for _ in range(self._pushed):
            serialization._custom_objects_stack.pop()
        self._pushed = 0


@public("torchflow.keras.utils")
def custom_object_scope(*args):
    """``CustomObjectScope(*args)``: a ``with`` scope that exposes custom objects by name.

    Args:
      *args: Dicts mapping names to custom classes or functions.

    Returns:
      A ``CustomObjectScope`` context manager.
    """
    return CustomObjectScope(*args)


@public("torchflow.keras.utils")
def get_custom_objects() -> dict:
    """The global dict of custom objects; assign to it to register one by name.

    >>> import torchflow as tf
    >>> tf.keras.utils.get_custom_objects()["my_fn"] = abs
    >>> tf.keras.utils.get_registered_object("my_fn") is abs
    True
    """
    return _global_objects()


@public("torchflow.keras.utils")
def register_keras_serializable(package="Custom", name=None):
    """A class decorator that registers it as ``"<package>>Name"`` for deserialization.

    Args:
      package: The package part of the registered name.
      name: The name part (the class or function's ``__name__`` by default).

    Raises:
      ValueError: If the name is already registered, or a class lacks ``get_config``.
    """

    def decorator(arg):
        class_name = name if name is not None else arg.__name__
        registered_name = package + ">" + class_name
        if inspect.isclass(arg) and not hasattr(arg, "get_config"):
            raise ValueError("Cannot register a class that does not have a get_config() method.")
        objects = _global_objects()
        if registered_name in objects:
            raise ValueError(f"{registered_name} has already been registered to "
                             f"{objects[registered_name]}")
        if arg in _REGISTERED_NAMES:
            raise ValueError(f"{arg} has already been registered to {_REGISTERED_NAMES[arg]}")
        objects[registered_name] = arg
        _REGISTERED_NAMES[arg] = registered_name
        return arg

    return decorator


@public("torchflow.keras.utils")
def get_registered_name(obj) -> str:
    """The name ``obj`` was registered under, or its ``__name__``.

    Args:
      obj: A class or function.

    Returns:
      A str.
    """
    if obj in _REGISTERED_NAMES:
        return _REGISTERED_NAMES[obj]
    return obj.__name__


@public("torchflow.keras.utils")
def get_registered_object(name, custom_objects=None, module_objects=None):
    """The object registered as ``name``: in ``custom_objects``, the active scopes,
    the global custom objects, then ``module_objects``; None if none has it.

    Args:
      name: str: the registered name.
      custom_objects: None (default) or a dict of names to classes/functions.
      module_objects: None or a dict of the module's known objects.

    Returns:
      The object, or None.
    """
    obj = serialization.get_registered_object(name, custom_objects)
    if obj is None and module_objects and name in module_objects:
        return module_objects[name]
    return obj


@public("torchflow.keras.utils")
def serialize_keras_object(instance):
    """``{"class_name": ..., "config": ...}`` for an object with ``get_config``; a
    function or class serializes to its (registered) name; None stays None.

    Args:
      instance: An object with ``get_config``, a function, a class or None.

    Raises:
      ValueError: For an object that is neither.
    """
    if instance is None:
        return None
    if hasattr(instance, "get_config"):
        return {"class_name": get_registered_name(type(instance)),
                "config": instance.get_config()}
    if hasattr(instance, "__name__"):
        return get_registered_name(instance)
    raise ValueError(f"Cannot serialize {instance} since it doesn't implement `get_config()`.")


@public("torchflow.keras.utils")
def deserialize_keras_object(identifier, module_objects=None, custom_objects=None,
                             printable_module_name="object"):
    """Turns ``serialize_keras_object``'s output back into an object.

    Args:
      identifier: A name or a ``{'class_name', 'config'}`` dict.
      module_objects: None or a dict of the module's known objects.
      custom_objects: None (default) or a dict of names to classes/functions.
      printable_module_name: str, default ``'object'``: used in error messages.

    Returns:
      The object (an instance built with ``from_config``, or a function).

    Raises:
      ValueError: For an unknown name or a malformed config.
    """
    if identifier is None:
        return None
    if isinstance(identifier, dict):
        if "class_name" not in identifier or "config" not in identifier:
            raise ValueError(f"Improper config format: {identifier}")
        class_name = identifier["class_name"]
        cls = get_registered_object(class_name, custom_objects, module_objects)
        if cls is None:
            raise ValueError(f"Unknown {printable_module_name}: {class_name}")
        config = identifier["config"]
        if hasattr(cls, "from_config"):
            params = inspect.signature(cls.from_config).parameters
            if "custom_objects" in params:
                return cls.from_config(config, custom_objects=dict(custom_objects or {}))
            with CustomObjectScope(custom_objects or {}):
                return cls.from_config(config)
        with CustomObjectScope(custom_objects or {}):
            return cls(**config)
    if isinstance(identifier, str):
        obj = get_registered_object(identifier, custom_objects, module_objects)
        if obj is None:
            raise ValueError(f"Unknown {printable_module_name}: {identifier}")
        return obj
    if inspect.isfunction(identifier):
        return identifier
    raise ValueError(f"Could not interpret serialized {printable_module_name}: {identifier}")
