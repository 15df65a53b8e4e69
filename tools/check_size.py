#!/usr/bin/env python3
"""Keeps torchflow's files small: fails on a ``.py`` file over 1,200 lines.

Files over 800 lines get a warning (look hard at them); over 1,200 lines the
check fails and the file must be split (STYLE.md, "Small files"). Run by
``make test`` before pytest.

Usage: ``python tools/check_size.py [ROOT]`` (ROOT defaults to ``torchflow/``
next to this script's parent directory).
"""

from __future__ import annotations

import sys
from pathlib import Path

WARN_LINES = 800
FAIL_LINES = 1200


def count_lines(path: Path) -> int:
    with path.open("rb") as f:
        return sum(1 for _ in f)


def check(root: Path) -> tuple[list[tuple[Path, int]], list[tuple[Path, int]], int]:
    """Returns (warnings, failures, number of files checked) for ``root``."""
    warn, fail, n = [], [], 0
    for path in sorted(root.rglob("*.py")):
        n += 1
        lines = count_lines(path)
        if lines > FAIL_LINES:
            fail.append((path, lines))
        elif lines > WARN_LINES:
            warn.append((path, lines))
    return warn, fail, n


def main(argv: list[str] | None = None) -> int:
    argv = sys.argv[1:] if argv is None else argv
    root = Path(argv[0]) if argv else Path(__file__).resolve().parent.parent / "torchflow"
    if not root.is_dir():
        print(f"check_size: {root} is not a directory", file=sys.stderr)
        return 2
    warn, fail, n = check(root)
    for path, lines in warn:
        print(f"check_size: WARNING {path} has {lines} lines (> {WARN_LINES}); consider splitting")
    for path, lines in fail:
        print(f"check_size: ERROR {path} has {lines} lines (> {FAIL_LINES}); split it")
    print(f"check_size: {n} files checked, {len(warn)} over {WARN_LINES} lines, "
          f"{len(fail)} over {FAIL_LINES} lines: {'FAIL' if fail else 'OK'}")
    return 1 if fail else 0


if __name__ == "__main__":
    sys.exit(main())
