"""``torchflow profile view``: the per-worker step-time split, checked against analytic
values on hand-made profiles and against the step events of a real capture; the page
embeds those numbers, and headless Chromium (Debian's ``chromium``) shows them.
"""

from __future__ import annotations

import json
import re
import shutil
import subprocess

import pytest
from xprof_helpers import events, host_plane, load_space, xplane_files

import torchflow as tf
from torchflow._src import cli
from torchflow._src.core.profiler_backend import KIND_OP, RawEvent
from torchflow._src.profiler import view, xspace

T0 = 1_700_000_000_000_000_000
US = 1_000  # ns


def _worker(step_us, ops):
    """One worker's XSpace: steps 0 and 1 of ``step_us``, each holding ``ops`` as
    (name, start offset us, duration us); steps 10 us apart."""
    evs, names = [], set()
    for step in range(2):
        base = T0 + step * (step_us + 10) * US
        mark = f"train#step_num={step},_r=1#"
        names.add(mark)
        evs.append(RawEvent(mark, base, step_us * US, 1, -1, KIND_OP, 0))
        for name, off, dur in ops:
            evs.append(RawEvent(name, base + off * US, dur * US, 1, -1, KIND_OP, 0))
    return xspace.build_xspace(evs, T0, T0 + 10_000 * US, hostname="h", user_names=names)


def test_step_split_is_analytic(tmp_path):
    run = tmp_path / "plugins" / "profile" / "run1"
    fast = _worker(100, [("aten::mm", 10, 30), ("aten::add", 15, 5),  # nested: counted once
                         ("Iterator::GetNext", 50, 20)])
    slow = _worker(200, [("aten::mm", 10, 40), ("c10d::allreduce_", 60, 100)])
    xspace.write_xspace(fast, str(run), "w0")
    xspace.write_xspace(slow, str(run), "w1")
    data = view.analyze(tmp_path)["run1"]
    s0 = data["workers"]["w0"]["steps"]["0"]
    assert (s0["total_us"], s0["compute_us"], s0["input_us"], s0["communication_us"],
            s0["python_us"], s0["idle_us"]) == (100, 30, 20, 0, 50, 10)
    s1 = data["workers"]["w1"]["steps"]["1"]
    assert (s1["total_us"], s1["compute_us"], s1["communication_us"], s1["python_us"],
            s1["idle_us"]) == (200, 40, 100, 60, 0)  # the last step has no next one
    assert data["steps"]["0"] == {"slowest": "w1", "biggest": "communication",
                                  "workers": ["w0", "w1"]}
    top = {r["op"]: r["self_us"] for r in data["workers"]["w0"]["top_ops"]}
    assert top["aten.mm:Mm"] == 2 * (30 - 5) and top["aten.add:Add"] == 2 * 5


def test_page_from_a_real_capture(tmp_path, capsys):
    tf.profiler.experimental.start(str(tmp_path))
    a = tf.ones((64, 64))
    for step in range(3):
        with tf.profiler.experimental.Trace("train", step_num=step, _r=1):
            tf.nn.relu(tf.matmul(a, a))
    tf.profiler.experimental.stop()
    assert cli.main(["profile", "view", str(tmp_path)]) == 0
    out = capsys.readouterr().out.strip()
    page = open(out, encoding="utf-8").read()
    data = json.loads(re.search(r'<script type="application/json" id="data">(.*?)</script>',
                                page, re.S).group(1).replace("<\\/", "</"))
    (run,) = data.values()
    (worker,) = run["workers"].values()
    steps = worker["steps"]
    # the page's step times are the step events' durations in the file
    plane = host_plane(load_space(xplane_files(tmp_path)[0]))
    marks = {s["step_num"]: d / 1e6 for _, n, _, d, s in events(plane) if n == "train"}
    assert {int(k): v["total_us"] for k, v in steps.items()} == pytest.approx(marks)
    for s in steps.values():
        assert s["compute_us"] > 0
        assert s["compute_us"] + s["python_us"] + s["input_us"] == pytest.approx(s["total_us"])
    assert worker["top_ops"][0]["self_us"] > 0
    assert "<select id=\"step\">" in page and "http" not in page.split("<script")[0]


def test_page_in_headless_chromium(tmp_path):
    chromium = shutil.which("chromium") or shutil.which("chromium-browser")
    if chromium is None:
        pytest.skip("Debian's chromium is not installed")
    run = tmp_path / "plugins" / "profile" / "run1"
    xspace.write_xspace(_worker(100, [("aten::mm", 10, 30), ("Iterator::GetNext", 50, 20)]),
                        str(run), "w0")
    xspace.write_xspace(_worker(200, [("aten::mm", 10, 40), ("c10d::allreduce_", 60, 100)]),
                        str(run), "w1")
    page = tmp_path / "view.html"
    assert view.main(["view", str(tmp_path), "--out", str(page)]) == 0
    args = [chromium, "--headless", "--no-sandbox", "--disable-gpu", "--hide-scrollbars",
            "--window-size=1000,600"]
    dom = subprocess.run(args + ["--dump-dom", page.as_uri()], capture_output=True,
                         text=True, timeout=120, check=True).stdout
    rows = re.findall(r'<tr class="(slow)?"><td class="l">([^<]*)</td>(.*?)</tr>', dom)
    shown = {name: [float(v) for v in re.findall(r"<td[^>]*>([\d.]+)</td>", cells)]
             for _, name, cells in rows}
    data = view.analyze(tmp_path)["run1"]["workers"]
    for worker, label in (("w0", "w0"), ("w1", "w1 (slowest)")):
        s = data[worker]["steps"]["0"]
        assert shown[label] == [round(s[k], 1) for k in (
            "total_us", "input_us", "compute_us", "communication_us", "python_us", "idle_us")]
    assert [slow for slow, *_ in rows] == ["", "slow"]
    assert '<td class="big">100.0</td>' in dom  # w1's biggest category: communication
    shot = tmp_path / "view.png"
    subprocess.run(args + [f"--screenshot={shot}", page.as_uri()], capture_output=True,
                   timeout=120, check=True)
    assert shot.read_bytes()[:8] == b"\x89PNG\r\n\x1a\n" and shot.stat().st_size > 5000
