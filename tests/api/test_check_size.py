"""tools/check_size.py: the file-size limit that `make test` enforces."""

import subprocess
import sys
from pathlib import Path

REPO = Path(__file__).resolve().parents[2]
TOOL = REPO / "tools" / "check_size.py"


def _run(*args):
    return subprocess.run([sys.executable, str(TOOL), *map(str, args)],
                          capture_output=True, text=True, timeout=60)


def test_torchflow_tree_is_within_limits():
    r = _run()
    assert r.returncode == 0, r.stdout + r.stderr
    assert "files checked" in r.stdout


def _write(path: Path, lines: int):
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text("x = 1\n" * lines)


def test_limits_on_a_planted_tree(tmp_path):
    _write(tmp_path / "ok.py", 800)
    _write(tmp_path / "sub" / "big.py", 801)
    r = _run(tmp_path)
    assert r.returncode == 0, r.stdout
    assert "WARNING" in r.stdout and "big.py has 801 lines" in r.stdout
    assert "ok.py" not in r.stdout
    _write(tmp_path / "sub" / "huge.py", 1201)
    _write(tmp_path / "edge.py", 1200)
    r = _run(tmp_path)
    assert r.returncode == 1, r.stdout
    assert "ERROR" in r.stdout and "huge.py has 1201 lines" in r.stdout
    assert "edge.py has 1200 lines (> 800)" in r.stdout  # 1200 only warns
    assert "4 files checked, 2 over 800 lines, 1 over 1200 lines: FAIL" in r.stdout


def test_missing_root_is_an_error(tmp_path):
    assert _run(tmp_path / "nope").returncode == 2
