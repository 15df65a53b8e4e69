"""``python -m torchflow.launch --workers N [--chief] [--ps M] [--max-restarts K] script.py``."""

from torchflow._src.distribute.launch import main as main

if __name__ == "__main__":
    raise SystemExit(main(prog="python -m torchflow.launch"))
