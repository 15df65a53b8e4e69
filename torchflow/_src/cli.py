"""The ``torchflow`` command.

Subcommands:
  launch   run a multi-worker program on a local cluster (see ``distribute/launch.py``)
  profile  ``profile view LOGDIR [--out FILE] [--serve PORT]``: one page with every
           worker's step time of the profiles under LOGDIR (see ``profiler/view.py``)
"""

from __future__ import annotations

import sys

from torchflow._src.distribute import launch
from torchflow._src.profiler import view as profile_view


def main(argv=None) -> int:
    """Entry point of the ``torchflow`` console script; returns the exit status."""
    argv = list(sys.argv[1:] if argv is None else argv)
    if not argv or argv[0] in ("-h", "--help"):
        print(__doc__.strip())
        return 0 if argv else 2
    command, rest = argv[0], argv[1:]
    if command == "launch":
        return launch.main(rest)
    if command == "profile":
        return profile_view.main(rest)
    print(f"torchflow: unknown command {command!r}\n\n{__doc__.strip()}", file=sys.stderr)
    return 2


if __name__ == "__main__":
    sys.exit(main())
