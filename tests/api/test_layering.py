"""Imports point one way, torch stays in the engine, public modules only re-export.

Layer order (DESIGN.md): ``util -> core -> ops -> {numpy, data} -> {train, summary}
-> {distribute, profiler} -> keras``. A module may import its own layer and lower
ones; siblings on one level (numpy/data, train/summary, distribute/profiler) do not
import each other. ``_src/testing.py`` and ``_src/cli.py`` may import any layer.
``train`` (Checkpoint, ...) and ``summary`` sit above ops/data and below distribute
and keras, which both use them. ``feature_column`` sits with distribute/profiler
(its embedding tables can start from a ``train`` checkpoint; keras' DenseFeatures
reads it). Only ``_src/core`` and ``_src/ops`` import torch.
``torchflow/`` outside ``_src`` holds only re-export modules, and ``_src`` never
imports them back.
"""

from __future__ import annotations

import ast
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2] / "torchflow"

LAYERS = {
    "util": 0,
    "core": 1,
    "ops": 2,
    "numpy": 3,
    "data": 3,
    "train": 4,
    "summary": 4,
    "distribute": 5,
    "profiler": 5,
    "feature_column": 5,
    "keras": 6,
}
ANY_LAYER = {"testing", "cli", "__init__"}  # _src/testing.py, _src/cli.py, _src/__init__.py


def _is_test_support(modname: str) -> bool:
    """``testing*.py`` modules (``_src/keras/testing_utils.py``) are test-support leaves."""
    return modname.rsplit(".", 1)[-1].startswith("testing")
TORCH_OK = {"core", "ops"}


def _module_name(root: Path, path: Path) -> str:
    parts = list(path.relative_to(root.parent).with_suffix("").parts)
    return ".".join(parts)


def _imported_modules(tree: ast.AST, modname: str, is_pkg: bool):
    """Yields (lineno, absolute module name) for every import in ``tree``.

    ``from a import b`` yields both ``a`` and ``a.b`` (``b`` may be a submodule).
    """
    package = modname if is_pkg else modname.rpartition(".")[0]
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            for alias in node.names:
                yield node.lineno, alias.name
        elif isinstance(node, ast.ImportFrom):
            if node.level:
                base = package.split(".")
                base = base[: len(base) - (node.level - 1)]
                mod = ".".join(base + ([node.module] if node.module else []))
            else:
                mod = node.module or ""
            yield node.lineno, mod
            for alias in node.names:
                if alias.name != "*":
                    yield node.lineno, f"{mod}.{alias.name}"
        elif (isinstance(node, ast.Call) and node.args
              and isinstance(node.args[0], ast.Constant) and isinstance(node.args[0].value, str)
              and ((isinstance(node.func, ast.Name) and node.func.id == "__import__")
                   or (isinstance(node.func, ast.Attribute) and node.func.attr == "import_module"))):
            yield node.lineno, node.args[0].value


def _src_area(modname: str) -> str | None:
    """The ``_src`` area of a module (``ops`` for torchflow._src.ops.x), or None."""
    parts = modname.split(".")
    if len(parts) >= 3 and parts[:2] == ["torchflow", "_src"]:
        return parts[2]
    if parts == ["torchflow", "_src"]:
        return "__init__"
    return None


def layering_violations(root: Path) -> list[str]:
    """Every upward import, torch import outside the engine, and unknown layer."""
    out = []
    for path in sorted(root.rglob("*.py")):
        modname = _module_name(root, path)
        rel = path.relative_to(root.parent)
        area = _src_area(modname)
        if area is not None and area not in LAYERS and area not in ANY_LAYER:
            out.append(f"{rel}: unknown layer '_src/{area}'; add it to LAYERS in {__name__}")
            continue
        tree = ast.parse(path.read_text(encoding="utf-8"), filename=str(path))
        for lineno, imp in _imported_modules(tree, modname, path.name == "__init__.py"):
            top = imp.split(".")[0]
            if top == "torch" and area not in TORCH_OK:
                out.append(f"{rel}:{lineno}: imports {imp}; only _src/core and _src/ops may "
                           "import torch")
            if area is None or area in ANY_LAYER or top != "torchflow":
                continue
            target = _src_area(imp)
            if target is None:
                if imp != "torchflow._src":
                    out.append(f"{rel}:{lineno}: imports public module {imp} from _src; "
                               "import the _src implementation instead")
                continue
            if _is_test_support(imp) and target not in ANY_LAYER and not _is_test_support(modname):
                out.append(f"{rel}:{lineno}: imports test-support module {imp}; only tests and "
                           "other testing*.py modules may")
                continue
            if target in ANY_LAYER:
                if target == "testing" and _is_test_support(modname):
                    continue
                if target != "__init__":
                    out.append(f"{rel}:{lineno}: imports {imp}; _src/{target} is not a library "
                               "layer")
                continue
            if target not in LAYERS:
                out.append(f"{rel}:{lineno}: imports {imp} from unknown layer '{target}'")
            elif target != area and LAYERS[target] >= LAYERS[area]:
                out.append(f"{rel}:{lineno}: _src/{area} (level {LAYERS[area]}) imports {imp} "
                           f"(_src/{target}, level {LAYERS[target]}); imports must point down")
    return out


def _allowed_public_stmt(node: ast.stmt) -> bool:
    if isinstance(node, ast.ImportFrom):
        return all(a.name != "*" for a in node.names) and (
            node.level > 0 or (node.module or "").split(".")[0] in ("torchflow", "__future__"))
    if isinstance(node, ast.Import):
        return all(a.name.split(".")[0] == "torchflow" for a in node.names)
    if isinstance(node, ast.Expr):  # docstring
        return isinstance(node.value, ast.Constant) and isinstance(node.value.value, str)
    if isinstance(node, (ast.Assign, ast.AnnAssign)):  # newaxis = None, VERSION = __version__
        value = node.value
        if isinstance(value, (ast.Tuple, ast.List)):
            return all(isinstance(e, ast.Constant) for e in value.elts)
        return isinstance(value, (ast.Constant, ast.Name))
    return False


def _is_main_guard(node: ast.stmt) -> bool:
    """``if __name__ == "__main__": raise SystemExit(main(...))`` (``__main__.py`` only:
    ``python -m torchflow.launch`` must call the re-exported ``main``)."""
    return (isinstance(node, ast.If) and not node.orelse
            and ast.unparse(node.test) in ("__name__ == '__main__'", '__name__ == "__main__"')
            and all(isinstance(b, (ast.Raise, ast.Expr)) for b in node.body))


def public_module_violations(root: Path) -> list[str]:
    """Statements other than re-exports, docstrings and constants in public modules."""
    out = []
    for path in sorted(root.rglob("*.py")):
        rel = path.relative_to(root)
        if rel.parts[0] == "_src":
            continue
        tree = ast.parse(path.read_text(encoding="utf-8"), filename=str(path))
        for node in tree.body:
            if path.name == "__main__.py" and _is_main_guard(node):
                continue
            if not _allowed_public_stmt(node):
                out.append(f"torchflow/{rel}:{node.lineno}: public modules hold only "
                           "'from torchflow._src... import name as name' lines, docstrings "
                           f"and constants; found {type(node).__name__}: "
                           f"{ast.unparse(node).splitlines()[0][:80]}")
    return out


def test_imports_point_down_and_torch_stays_in_engine():
    problems = layering_violations(ROOT)
    assert not problems, "\n".join(problems)


def test_public_modules_only_reexport():
    problems = public_module_violations(ROOT)
    assert not problems, "\n".join(problems)


def test_tree_is_not_empty():
    # A wrong ROOT would make the checks above pass vacuously.
    assert (ROOT / "__init__.py").is_file()
    assert len(list((ROOT / "_src").rglob("*.py"))) >= 5


# --- the checker itself must catch violations (planted in a temporary tree) ---

def _tree(tmp_path: Path, files: dict[str, str]) -> Path:
    root = tmp_path / "torchflow"
    for rel, text in {"__init__.py": '"""doc."""\n', "_src/__init__.py": "",
                      **files}.items():
        p = root / rel
        p.parent.mkdir(parents=True, exist_ok=True)
        p.write_text(text)
    return root


CLEAN = {
    "_src/util/api.py": "import functools\n",
    "_src/core/tensor.py": "import torch\nfrom torchflow._src.util import api\n",
    "_src/ops/math_ops.py": "import torch.nn.functional as F\nfrom ..core import tensor\n",
    "_src/data/dataset.py": "from torchflow._src.ops import math_ops\n",
    "_src/keras/layer.py": "from torchflow._src.data.dataset import Dataset\n"
                           "from torchflow._src.distribute import values\n",
    "_src/distribute/values.py": "from torchflow._src.train.checkpoint import Checkpoint\n",
    "_src/train/checkpoint.py": "from torchflow._src.core.tensor import Tensor\n",
    "_src/testing.py": "import torchflow\nfrom torchflow._src.keras import layer\n",
    "_src/keras/testing_utils.py": "from torchflow._src.testing import real_tf\n"
                                   "from torchflow._src.keras import layer\n",
    "math/__init__.py": '"""tf.math."""\nfrom torchflow._src.ops.math_ops import add as add\n',
    "__init__.py": '"""tf."""\nfrom torchflow import math as math\nnewaxis = None\n'
                   '__version__ = "2.4.0"\nVERSION = __version__\n',
}


def test_clean_tree_passes(tmp_path):
    root = _tree(tmp_path, CLEAN)
    assert layering_violations(root) == []
    assert public_module_violations(root) == []


@pytest.mark.parametrize("rel,text,needle", [
    ("_src/core/tensor.py", "from torchflow._src.ops import math_ops\n", "must point down"),
    ("_src/core/tensor.py", "def f():\n    from torchflow._src.keras import layer\n",
     "must point down"),
    ("_src/ops/math_ops.py", "from ..data import dataset\n", "must point down"),
    ("_src/data/dataset.py", "from torchflow._src import numpy\n", "must point down"),
    ("_src/util/api.py", "import torchflow._src.core.tensor\n", "must point down"),
    ("_src/keras/layer.py", "import torch\n", "only _src/core and _src/ops"),
    ("_src/data/dataset.py", "from torch.utils import data\n", "only _src/core and _src/ops"),
    ("_src/data/dataset.py", "import importlib\nimportlib.import_module('torch')\n",
     "only _src/core and _src/ops"),
    ("math/__init__.py", "import torch\n", "only _src/core and _src/ops"),
    ("_src/ops/math_ops.py", "import torchflow.math\n", "public module"),
    ("_src/ops/math_ops.py", "from torchflow._src.testing import rand\n", "not a library layer"),
    ("_src/mystery/x.py", "", "unknown layer"),
    ("_src/keras/layer.py", "from torchflow._src.keras import testing_utils\n", "test-support"),
    ("_src/keras/layer.py", "from torchflow._src.keras.testing_utils import f\n",
     "test-support"),
    ("_src/keras/testing_utils.py", "from torchflow._src.distribute import values\n"
     "import torch\n", "only _src/core and _src/ops"),
])
def test_planted_layering_violation_is_caught(tmp_path, rel, text, needle):
    root = _tree(tmp_path, {**CLEAN, rel: text})
    problems = layering_violations(root)
    assert any(needle in p and rel.split("/")[-1] in p for p in problems), problems


@pytest.mark.parametrize("text", [
    "from torchflow._src.ops.math_ops import *\n",
    "def add(x, y):\n    return x\n",
    "import numpy as np\n",
    "from numpy import newaxis as newaxis\n",
    "x = compute()\n",
    "if True:\n    pass\n",
    "try:\n    from torchflow._src.ops import a as a\nexcept ImportError:\n    pass\n",
])
def test_planted_public_module_violation_is_caught(tmp_path, text):
    root = _tree(tmp_path, {**CLEAN, "math/__init__.py": text})
    problems = public_module_violations(root)
    assert any("math/__init__.py" in p for p in problems), problems


def test_main_guard_allowed_only_in_dunder_main(tmp_path):
    guard = ("from torchflow._src.x import main as main\n"
             "if __name__ == '__main__':\n    raise SystemExit(main())\n")
    root = _tree(tmp_path, {**CLEAN, "launch/__main__.py": guard, "math/__init__.py": guard})
    problems = public_module_violations(root)
    assert any("math/__init__.py" in p for p in problems), problems
    assert not any("launch/__main__.py" in p for p in problems), problems


# --- a tensor's torch internals stay in the engine ---------------------------------------
# ``Tensor._t`` (the torch tensor), ``DType._torch`` (the torch dtype) and ``_leaf``
# belong to the engine; layers above call named engine functions (``numpy_ops.reshape``,
# ``numpy_ops.shape_tuple``) instead.
ENGINE_PRIVATE = {"_t", "_torch", "_leaf"}
# Known uses above the engine, each with its reason; a new one fails the test, and an
# entry that no longer matches fails too (remove it once its owner switches).
KNOWN_PRIVATE_ACCESS = {
    ("_src/distribute/cross_device_ops.py", "_t"): "reads the device of a reduced value; "
    "needs an engine function for a tensor's device",
    ("_src/distribute/input_lib.py", "_t"): "hasattr(t, '_t') tells tensors from other "
    "values before copy_to_device; use isinstance(t, Tensor)",
    ("_src/keras/optimizers/optimizer_v2.py", "_leaf"): "hasattr(v, '_leaf') finds the base "
    "Variable under wrappers; needs a core helper",
}


def private_attribute_violations(root: Path) -> list[str]:
    """Every ``x._t`` / ``x._torch`` / ``x._leaf`` (or ``getattr(x, "_t")``) outside
    ``_src/core`` and ``_src/ops``."""
    out = []
    for path in sorted(root.rglob("*.py")):
        if _src_area(_module_name(root, path)) in TORCH_OK:
            continue
        rel = path.relative_to(root.parent)
        tree = ast.parse(path.read_text(encoding="utf-8"), filename=str(path))
        for node in ast.walk(tree):
            name = None
            if isinstance(node, ast.Attribute) and node.attr in ENGINE_PRIVATE:
                name = node.attr
            elif (isinstance(node, ast.Call) and isinstance(node.func, ast.Name)
                  and node.func.id in ("getattr", "setattr", "hasattr") and len(node.args) >= 2
                  and isinstance(node.args[1], ast.Constant)
                  and node.args[1].value in ENGINE_PRIVATE):
                name = node.args[1].value
            if name is not None:
                out.append(f"{rel}:{node.lineno}: reaches into the engine's private '{name}'; "
                           "only _src/core and _src/ops may: call a named engine function")
    return out


def _known(problem: str) -> tuple | None:
    for (rel, name) in KNOWN_PRIVATE_ACCESS:
        if problem.startswith(f"torchflow/{rel}:") and f"private '{name}'" in problem:
            return rel, name
    return None


def test_engine_private_attributes_stay_in_engine():
    problems = private_attribute_violations(ROOT)
    new = [p for p in problems if _known(p) is None]
    assert not new, "\n".join(new)
    stale = set(KNOWN_PRIVATE_ACCESS) - {_known(p) for p in problems}
    assert not stale, f"KNOWN_PRIVATE_ACCESS entries that no longer match: {sorted(stale)}"


def test_clean_tree_has_no_private_attribute_access(tmp_path):
    root = _tree(tmp_path, {**CLEAN, "_src/ops/numpy_ops.py": "def f(x):\n    return x._t\n",
                            "_src/core/dtypes.py": "T = float32._torch\n"})
    assert private_attribute_violations(root) == []


@pytest.mark.parametrize("rel,text", [
    ("_src/numpy/np_math.py", "def f(x):\n    return x._t.shape\n"),
    ("_src/numpy/np_math.py", "d = x._dtype._torch\n"),
    ("_src/keras/layer.py", "x._leaf = True\n"),
    ("_src/data/dataset.py", "t = getattr(x, '_t')\n"),
    ("math/__init__.py", "n = x._t\n"),
])
def test_planted_private_attribute_access_is_caught(tmp_path, rel, text):
    root = _tree(tmp_path, {**CLEAN, rel: text})
    problems = private_attribute_violations(root)
    assert any(rel.split("/")[-1] in p and "private" in p for p in problems), problems


# --- import cycles ------------------------------------------------------------------
# The top-level imports of the tree form a DAG. Where modules really depend on each
# other, one side imports the other inside a function, marked ``# cycle: <reason>``,
# and the group of modules is listed here with its reason (names under torchflow._src).
# A function-local import of a torchflow module is allowed only when moving it to the
# top would close a cycle, and that cycle lies inside one listed group; any other one
# belongs at the top of its module.
KNOWN_CYCLES = {
    ("core.tensor", "core.convert"):
        "convert builds Tensors; Tensor.__reduce__ (pickling) rebuilds a tensor with "
        "convert.constant",
    ("ops.linear_operator", "ops.linear_operator_types"):
        "the concrete operators subclass LinearOperator, whose cholesky() returns a "
        "LinearOperatorLowerTriangular",
    ("data.dataset_ops", "data.sources", "data.transforms", "data.batching",
     "data.parallel", "data.interleave", "data.readers", "data.vectorize", "data.rowwise",
     "data.experimental", "data.experimental_ops", "data.resampling", "data.dataset_graph",
     "data.dataset_graph_fn"):
        "the dataset classes subclass DatasetV2, whose methods (from_tensor_slices, map, "
        "batch, group_by_window, ...) build them; map's and batch's fast paths (vectorize, "
        "rowwise) build transforms' and batching's datasets; _as_serialized_graph writes "
        "them with dataset_graph, whose flat_map/interleave writers (dataset_graph_fn) "
        "subclass its _Writer",
    ("keras.callbacks.callback", "keras.callbacks.history", "keras.callbacks.progbar_logger"):
        "History and ProgbarLogger subclass Callback; CallbackList adds them by default",
    ("keras.engine.base_layer", "keras.metrics", "keras.metrics.base_metric"):
        "a Metric is a Layer; Layer.add_metric makes a Mean",
    ("keras.metrics", "keras.metrics.base_metric"):
        "the metrics package imports base_metric; Metric.from_config looks metrics up in it",
    ("keras.engine.keras_tensor", "keras.engine.tf_op_layer"):
        "TFOpLambda layers return KerasTensors; a KerasTensor's operators make TFOpLambda "
        "layers",
    ("keras.engine.model", "keras.engine.functional"):
        "Functional subclasses Model; Model(inputs, outputs) returns a Functional",
    ("keras.engine.model", "keras.saving"):
        "saving saves and rebuilds Models; Model.save and save_weights call it",
    ("keras.engine.serialization", "keras.engine.base_layer", "keras.constraints",
     "keras.initializers", "keras.regularizers"):
        "a Layer deserializes its initializers, regularizers and constraints through "
        "serialization, which deserializes Layers",
    ("keras.optimizers", "keras.mixed_precision.loss_scale_optimizer"):
        "LossScaleOptimizer serializes its inner optimizer through the optimizers package, "
        "whose get() and deserialize() build LossScaleOptimizers",
}


# Function-local imports kept for a reason other than a cycle.
KNOWN_LAZY = {
    ("distribute.launch", "core.elastic"):
        "launch.py also runs by path as each task's wrapper, which must not import torch",
}


def _tree_modules(root: Path) -> dict[str, Path]:
    mods = {}
    for path in sorted(root.rglob("*.py")):
        if path.name.endswith("_pb2.py"):
            continue
        name = _module_name(root, path)
        mods[name.removesuffix(".__init__")] = path
    return mods


def _import_nodes(tree: ast.AST):
    """Yields (import node, inside a function) for every import statement."""
    stack = [(tree, False)]
    while stack:
        node, local = stack.pop()
        for child in ast.iter_child_nodes(node):
            if isinstance(child, (ast.Import, ast.ImportFrom)):
                yield child, local
            stack.append((child, local or isinstance(
                child, (ast.FunctionDef, ast.AsyncFunctionDef, ast.Lambda))))


def import_edges(root: Path):
    """(module, lineno, target, local) for each import of a module of the tree.

    ``from a import b`` names ``a.b`` when that is a module, else ``a``. ``local``:
    the import sits in a function body.
    """
    mods = _tree_modules(root)
    out = []
    for mod, path in mods.items():
        is_pkg = path.name == "__init__.py"
        package = mod if is_pkg else mod.rpartition(".")[0]
        tree = ast.parse(path.read_text(encoding="utf-8"), filename=str(path))
        for node, local in _import_nodes(tree):
            if isinstance(node, ast.Import):
                targets = [a.name for a in node.names]
            else:
                if node.level:
                    base = package.split(".")
                    base = base[: len(base) - (node.level - 1)]
                    base_mod = ".".join(base + ([node.module] if node.module else []))
                else:
                    base_mod = node.module or ""
                targets = [f"{base_mod}.{a.name}" if f"{base_mod}.{a.name}" in mods
                           else base_mod for a in node.names]
            for target in dict.fromkeys(targets):
                if target in mods and target != mod:
                    out.append((mod, node.lineno, target, local))
    return mods, out


def _loaded_with(target: str, importer: str, mods) -> list[str]:
    """``target`` and the packages around it, whose ``__init__`` runs first (except the
    importer's own packages, which are loading already, unless it imports one itself)."""
    parts = target.split(".")
    return [p for p in (".".join(parts[:i]) for i in range(1, len(parts) + 1))
            if p in mods and p != importer
            and (p == target or not importer.startswith(p + "."))]


def _sccs(graph: dict[str, set[str]]) -> list[list[str]]:
    """Strongly connected components with more than one module (Tarjan, iterative)."""
    index, low, on, stack, out = {}, {}, set(), [], []
    for start in graph:
        if start in index:
            continue
        work = [(start, iter(sorted(graph[start])))]
        index[start] = low[start] = len(index)
        stack.append(start)
        on.add(start)
        while work:
            v, it = work[-1]
            w = next(it, None)
            if w is not None:
                if w not in index:
                    index[w] = low[w] = len(index)
                    stack.append(w)
                    on.add(w)
                    work.append((w, iter(sorted(graph.get(w, ())))))
                elif w in on:
                    low[v] = min(low[v], index[w])
                continue
            work.pop()
            if work:
                low[work[-1][0]] = min(low[work[-1][0]], low[v])
            if low[v] == index[v]:
                comp = []
                while True:
                    w = stack.pop()
                    on.discard(w)
                    comp.append(w)
                    if w == v:
                        break
                if len(comp) > 1:
                    out.append(sorted(comp))
    return out


def _short(mod: str) -> str:
    return mod.removeprefix("torchflow._src.")


def cycle_violations(root: Path, known=None, lazy=None) -> list[str]:
    """Import cycles at module top level, function-local imports that break no listed
    cycle (and are not in ``KNOWN_LAZY``), and listed entries that no longer apply."""
    known = [set(g) for g in (KNOWN_CYCLES if known is None else known)]
    lazy = dict(KNOWN_LAZY if lazy is None else lazy)
    mods, edges = import_edges(root)
    top: dict[str, set[str]] = {m: set() for m in mods}
    for mod, _, target, local in edges:
        if not local:
            top[mod].update(_loaded_with(target, mod, mods))

    def reaches(src: str, dst: str) -> bool:
        seen, todo = {src}, [src]
        while todo:
            for nxt in top[todo.pop()]:
                if nxt == dst:
                    return True
                if nxt not in seen:
                    seen.add(nxt)
                    todo.append(nxt)
        return False

    out = []
    used, used_lazy = set(), set()
    for comp in _sccs(top):
        names = {_short(m) for m in comp}
        hit = [i for i, g in enumerate(known) if names <= g]
        used.update(hit)
        if not hit:
            out.append(f"import cycle at module top level: {', '.join(sorted(names))}; "
                       "import one side inside the function that needs it (# cycle: why) "
                       f"and list the group in KNOWN_CYCLES of {__name__}")
    for mod, lineno, target, local in edges:
        if not local:
            continue
        rel = mods[mod].relative_to(root.parent)
        if (_short(mod), _short(target)) in lazy:
            used_lazy.add((_short(mod), _short(target)))
            continue
        if not any(reaches(t, mod) for t in _loaded_with(target, mod, mods)):
            out.append(f"{rel}:{lineno}: function-local import of {target} closes no "
                       "import cycle; move it to the top of the module")
            continue
        pair = {_short(mod), _short(target)}
        hit = [i for i, g in enumerate(known) if pair <= g]
        used.update(hit)
        if not hit:
            out.append(f"{rel}:{lineno}: function-local import of {target} breaks a cycle "
                       f"({_short(target)} imports {_short(mod)}) that is not in "
                       f"KNOWN_CYCLES of {__name__}; add the group with its reason")
    for i, g in enumerate(known):
        if i not in used:
            out.append(f"KNOWN_CYCLES lists {', '.join(sorted(g))}, but no import cycle "
                       "among them remains; remove the entry")
    for pair in sorted(set(lazy) - used_lazy):
        out.append(f"KNOWN_LAZY lists {pair}, but there is no such function-local import; "
                   "remove the entry")
    return out


def test_import_cycles_are_known_and_local_imports_break_one():
    problems = cycle_violations(ROOT)
    assert not problems, "\n".join(problems)


_CYCLE_TREE = {
    "_src/core/tensor.py": "def f():\n    from torchflow._src.core.convert import constant\n",
    "_src/core/convert.py": "from torchflow._src.core import tensor\n",
}
_CYCLE_KNOWN = {("core.tensor", "core.convert"): "planted"}


def test_known_cycle_passes(tmp_path):
    root = _tree(tmp_path, {**CLEAN, **_CYCLE_TREE})
    assert cycle_violations(root, _CYCLE_KNOWN, {}) == []
    assert cycle_violations(_tree(tmp_path / "clean", CLEAN), {}, {}) == []
    lazy = {"_src/ops/a.py": "def f():\n    from torchflow._src.core import tensor\n"}
    root = _tree(tmp_path / "lazy", {**CLEAN, **_CYCLE_TREE, **lazy})
    assert cycle_violations(root, _CYCLE_KNOWN, {("ops.a", "core.tensor"): "why"}) == []


@pytest.mark.parametrize("files,known,needle", [
    # a cycle at module top level
    ({"_src/ops/a.py": "from torchflow._src.ops import b\n",
      "_src/ops/b.py": "from torchflow._src.ops.a import x\n"}, _CYCLE_KNOWN, "top level"),
    # through a package __init__ that imports its submodule
    ({"_src/ops/p/__init__.py": "from torchflow._src.ops.p.impl import f\n",
      "_src/ops/p/impl.py": "from torchflow._src.ops import c\n",
      "_src/ops/c.py": "import torchflow._src.ops.p\n"}, _CYCLE_KNOWN, "top level"),
    # a lazy import that breaks a cycle nobody listed
    ({}, {}, "not in KNOWN_CYCLES"),
    # a lazy import that breaks no cycle at all
    ({"_src/ops/a.py": "def f():\n    from torchflow._src.core import tensor\n"},
     _CYCLE_KNOWN, "closes no import cycle"),
    ({"_src/ops/a.py": "class A:\n    def f(self):\n        import torchflow._src.util.api\n"},
     _CYCLE_KNOWN, "closes no import cycle"),
    # a listed cycle that is gone
    ({"_src/core/convert.py": ""}, _CYCLE_KNOWN, "no import cycle among them remains"),
])
def test_planted_cycle_violation_is_caught(tmp_path, files, known, needle):
    root = _tree(tmp_path, {**CLEAN, **_CYCLE_TREE, **files})
    problems = cycle_violations(root, known, {})
    assert any(needle in p for p in problems), problems


def test_stale_known_lazy_entry_is_caught(tmp_path):
    root = _tree(tmp_path, {**CLEAN, **_CYCLE_TREE})
    problems = cycle_violations(root, _CYCLE_KNOWN, {("ops.a", "core.tensor"): "why"})
    assert any("KNOWN_LAZY lists" in p for p in problems), problems
