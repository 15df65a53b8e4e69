"""The save-and-serve round of the SavedModel compat tests, in both directions."""

from __future__ import annotations

import torchflow as tf
from torchflow._src.testing import real_tf


def served_both_ways(saver: str, export_dir, make_module, run, check=None):
    """Real TF's values of ``run(tf, make_module(tf))``, unsaved, and the values served
    from the SavedModel that ``saver`` ("torchflow" or "tf") writes of ``make_module``:
    torchflow's by real TF and by torchflow, real TF's by torchflow.

    ``make_module(lib)`` builds the module with ``lib`` (real TF or torchflow);
    ``run(lib, module)`` calls it and returns its values; ``check(module)`` runs on
    torchflow's module before it is saved. Returns ``(want, [served values, ...])``.
    """
    rtf = real_tf()
    want = run(rtf, make_module(rtf))
    m = tf if saver == "torchflow" else rtf
    mod = make_module(m)
    if check is not None and m is tf:
        check(mod)
    m.saved_model.save(mod, str(export_dir))
    return want, [run(lib, lib.saved_model.load(str(export_dir)))
                  for lib in ((rtf, tf) if m is tf else (tf,))]
