#!/usr/bin/env python3
"""Docstring audit: public torchflow callables whose docstring a TF user would find short.

Walks the same public namespaces as ``tools/api_coverage.py`` (TF 2.4's names from
``tests/api/golden/``) and flags each implemented callable whose ``__doc__`` is

- missing,
- shorter than two non-blank lines, or
- without an ``Args:`` section although its signature takes arguments
  (``self``/``cls`` aside; for a class, its constructor's arguments; an ``Enum``
  needs none).

Objects another package defines (NumPy's scalar types in ``tnp``, TensorBoard's
``ClusterDef`` in ``tf.train``) are not audited: their docstrings are not torchflow's
to write (TF re-exports NumPy's types the same way). ``--list`` names them at the end.

``python tools/docstring_audit.py`` prints the count per namespace and the total of
distinct objects (``tf.abs`` and ``tf.math.abs`` are one object, counted once in the
total). ``--list`` also prints every flagged name with its reason and defining file;
``--ns tf.math`` restricts the listing to namespaces starting with that prefix.
"""

from __future__ import annotations

import enum
import inspect
import os
import sys
from pathlib import Path

REPO = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(REPO))
sys.path.insert(0, str(REPO / "tools"))

from api_coverage import coverage  # noqa: E402 - needs the repo on sys.path first


def _takes_arguments(obj) -> bool:
    if inspect.isclass(obj) and issubclass(obj, enum.Enum):
        return False  # ``Enum(value, names=...)`` is a lookup, not a constructor users call
    try:
        sig = inspect.signature(obj)
    except (TypeError, ValueError):
        return False
    return any(p.name not in ("self", "cls") for p in sig.parameters.values())


def problem(obj) -> str | None:
    """Why ``obj``'s docstring is too short for a TF user, or None when it is fine."""
    doc = inspect.getdoc(obj) if inspect.isclass(obj) else obj.__doc__
    if inspect.isclass(obj) and obj.__doc__ is None:
        doc = None  # getdoc would inherit the base class's docstring
    if not doc or not doc.strip():
        return "missing"
    lines = [ln for ln in inspect.cleandoc(doc).splitlines() if ln.strip()]
    if len(lines) < 2:
        return "one line"
    if _takes_arguments(obj) and "Args:" not in doc and "Arguments:" not in doc:
        return "no Args"
    return None


def _source(obj) -> str:
    try:
        path = inspect.getsourcefile(obj) or "?"
    except TypeError:
        return "?"
    try:
        return str(Path(path).resolve().relative_to(REPO))
    except ValueError:
        return path


def foreign(obj) -> bool:
    """True for an object defined outside torchflow (NumPy's ``float32``, a TensorBoard proto)."""
    return not str(getattr(obj, "__module__", "") or "").startswith("torchflow")


def audit(skipped: list | None = None):
    """[(namespace, name, reason, source, id(obj))] for every flagged public callable.

    Foreign objects (see ``foreign``) are left out, and appended to ``skipped`` as
    ``(namespace, name)`` when a list is given.
    """
    import importlib

    out = []
    for ns in coverage():
        if ns.error or not ns.implemented:
            continue
        mod = importlib.import_module(ns.tflow_module)
        for name in ns.implemented:
            obj = getattr(mod, name)
            if inspect.ismodule(obj) or not callable(obj):
                continue
            if foreign(obj):
                if skipped is not None:
                    skipped.append((ns.tf_module, name))
                continue
            why = problem(obj)
            if why:
                out.append((ns.tf_module, name, why, _source(obj), id(obj)))
    return out


def main(argv: list[str]) -> int:
    os.environ.setdefault("TF_CPP_MIN_LOG_LEVEL", "3")
    skipped: list = []
    rows = audit(skipped)
    per_ns: dict[str, int] = {}
    for ns, *_ in rows:
        per_ns[ns] = per_ns.get(ns, 0) + 1
    for ns, n in sorted(per_ns.items(), key=lambda kv: -kv[1]):
        print(f"{n:5d}  {ns}")
    print(f"{len(rows):5d}  flagged (namespace, name) pairs")
    print(f"{len({r[4] for r in rows}):5d}  distinct flagged objects")
    if "--list" in argv:
        prefix = argv[argv.index("--ns") + 1] if "--ns" in argv else ""
        for ns, name, why, src, _ in sorted(rows):
            if ns.startswith(prefix):
                print(f"{ns}.{name}\t{why}\t{src}")
        print(f"not audited (defined outside torchflow): {len(skipped)}")
        for ns, name in sorted(skipped):
            if ns.startswith(prefix):
                print(f"  {ns}.{name}")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
