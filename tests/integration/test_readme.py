"""The README's example runs and prints what its comments say."""

import contextlib
import io
import re
from pathlib import Path

README = Path(__file__).resolve().parents[2] / "README.md"


def test_readme_example_prints_what_it_claims():
    text = README.read_text()
    blocks = re.findall(r"```python\n(.*?)```", text, flags=re.S)
    code = next(b for b in blocks if "GradientTape" in b)
    out = io.StringIO()
    with contextlib.redirect_stdout(out):
        exec(compile(code, str(README), "exec"), {"__name__": "readme"})
    printed = [ln.strip() for ln in out.getvalue().splitlines()]
    # Expected lines: the trailing "# ..." comment of each print, or a comment line
    # right after a print that has none.
    expected = []
    lines = code.splitlines()
    for i, line in enumerate(lines):
        if line.startswith("print("):
            if "#" in line:
                expected.append(line.split("#", 1)[1].strip())
            elif i + 1 < len(lines) and lines[i + 1].startswith("#"):
                expected.append(lines[i + 1][1:].strip())
    assert len(expected) == 3
    assert printed == expected
