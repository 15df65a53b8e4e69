"""The plain objects a loaded SavedModel is made of: user objects, the signature map
and stand-ins for resources this loader cannot rebuild."""

from __future__ import annotations

from collections.abc import Mapping

from torchflow._src.core import errors
from torchflow._src.train import object_graph


class _UserObject:
    """A revived user object: its saved children are its attributes.

    Like TF's ``_UserObject`` (an ``AutoTrackable``), it is trackable, so
    ``tf.train.Checkpoint(model=loaded)`` saves the same object graph it was loaded
    from; attributes set later are tracked too.
    """

    def __init__(self, identifier: str):
        object.__setattr__(self, "_saved_identifier", identifier)
        object.__setattr__(self, "_saved_children", [])

    def _add_child(self, name: str, child) -> None:
        self._saved_children.append((name, child))
        if name == "__call__":
            # ``obj(...)`` looks ``__call__`` up on the type: each revived object has its
            # own class, as in TF, so a saved ``__call__`` makes the object callable.
            type(self).__call__ = lambda self, *a, **k: child(*a, **k)
            return
        try:
            object.__setattr__(self, name, child)
        except AttributeError:
            pass  # a name the object's own attributes hold (kept in the child list)

    def _checkpoint_dependencies(self) -> list:
        deps = list(self._saved_children)
        seen = {n for n, _ in deps}
        deps += [(n, c) for n, c in object_graph.attribute_children(self)
                 if n not in seen and not n.startswith("_saved_")]
        return deps

    def __repr__(self) -> str:
        return f"<_UserObject {self._saved_identifier or 'object'} at 0x{id(self):x}>"


def make_user_object(identifier: str) -> _UserObject:
    """A revived object of a fresh ``_UserObject`` subclass (see ``_add_child``)."""
    cls = type("_UserObject", (_UserObject,), {})
    return cls(identifier)


class SignatureMap(Mapping):
    """``loaded.signatures``: signature key -> concrete function (keyword tensors in,
    a dict of tensors out). Not a checkpoint dependency: it holds no state, and a
    re-save writes the signatures it is given."""

    def __init__(self):
        self._signatures: dict = {}

    def __setitem__(self, key: str, fn) -> None:
        self._signatures[key] = fn

    def __getitem__(self, key: str):
        return self._signatures[key]

    def __iter__(self):
        return iter(self._signatures)

    def __len__(self) -> int:
        return len(self._signatures)

    def __repr__(self) -> str:
        return f"_SignatureMap({self._signatures!r})"


class RevivedResource:
    """A resource of the SavedModel (a lookup table, ...): its handle is what its saved
    ``_create_resource`` function returns, made when the model loads and then filled
    by ``_initialize``. A captured graph tensor (``CapturedTensor``), or a resource
    without a creator, has no handle: a function taking it raises
    ``UnimplementedError`` when called."""

    def __init__(self, device: str, captured: str | None = None):
        self.device = device
        self._captured = captured
        self.handle = None
        self._saved_children: list = []

    def _add_child(self, name: str, child) -> None:
        # Its functions (_create_resource, ...) and trackables (an initializer's asset),
        # which a re-save writes back.
        self._saved_children.append((name, child))
        try:
            object.__setattr__(self, name, child)
        except AttributeError:
            pass

    @property
    def resource_handle(self):
        if self.handle is None:
            what = f"captured tensor {self._captured}" if self._captured else \
                "resource without a _create_resource function"
            raise errors.UnimplementedError(
                None, None, f"This SavedModel function uses a {what}, which torchflow's "
                "loader does not restore")
        return self.handle

    def _checkpoint_dependencies(self) -> list:
        return list(self._saved_children)
