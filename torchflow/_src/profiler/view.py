"""``torchflow profile view LOGDIR``: one page for the steps of every worker of a capture.

For each run directory under ``LOGDIR/plugins/profile`` (one ``.xplane.pb`` per worker)
and each step marker (``step_num`` with ``_r=1``), every worker's step time is split into

* ``input``: tf.data waits (events named ``Iterator::...`` or ``GetNext``, and the
  tf.data service's ``rpc::GetElement`` calls),
* ``communication``: collectives and parameter-server calls (TF's ``Collective*`` ops,
  all-reduce, broadcast, all-gather, reduce-scatter, ``c10d::``/gloo/NCCL ops,
  ``RecvTensor``, the transport's ``rpc::<Method>`` calls and ``rpc_served::`` answers),
* ``compute``: every other op,
* ``python``: the rest of the step, when the step's thread ran no op (host-side Python),

counting only outermost events on the step's thread (an op inside another counts once),
plus ``idle``: the gap until the worker's next step. Steps are aligned across workers by
``step_num``; the slowest worker of a step and its biggest category are marked. A table
per worker lists the top ops by self time. The page is self-contained: the numbers are
embedded as JSON, with a few lines of script to choose the run and step (no network).
"""

from __future__ import annotations

import argparse
import glob
import html
import http.server
import json
import os
import re

from torchflow._src.core.proto import xplane_pb2

CATEGORIES = ("input", "compute", "communication", "python")
_INPUT = re.compile(r"^Iterator::|GetNext|^rpc::GetElement$")
_COMM = re.compile(r"all_?reduce|all_?gather|reduce_?scatter|broadcast|alltoall|c10d::|gloo|"
                   r"nccl|Collective|RecvTensor|^ps::|^rpc(_served)?::", re.IGNORECASE)
_PYTHON_EVENT = re.compile(r"\.py\(\d+\): |^<built-in ")


def _category(name: str, is_op: bool) -> str | None:
    if _INPUT.search(name):
        return "input"
    if _COMM.search(name):
        return "communication"
    return "compute" if is_op else None


def _events(plane):
    """Per line: sorted (start_ps, end_ps, name, stats, is_op) of a host plane."""
    stat_names = {k: v.name for k, v in plane.stat_metadata.items()}
    out = {}
    for line in plane.lines:
        base = line.timestamp_ns * 1000
        evs = []
        for e in line.events:
            meta = plane.event_metadata[e.metadata_id]
            stats = {}
            for s in e.stats:
                kind = s.WhichOneof("value")
                stats[stat_names.get(s.metadata_id, "")] = getattr(s, kind) if kind else None
            start = base + e.offset_ps
            # ops carry TF's name:Type form (torch ops are written so); ranges do not
            evs.append((start, start + e.duration_ps, meta.name, stats,
                        ":" in meta.name and not _PYTHON_EVENT.search(meta.name)))
        evs.sort(key=lambda t: (t[0], -t[1]))
        out[line.name or str(line.id)] = evs
    return out


def _outermost(evs):
    """The events not nested in an earlier categorized event, with their category."""
    out, end = [], -1
    for start, stop, name, _, is_op in evs:
        cat = _category(name, is_op)
        if cat is None or start < end:
            continue
        out.append((start, stop, cat))
        end = stop
    return out


def _self_times(evs, totals):
    stack = []  # (end, name, child time)
    def close(upto):
        while stack and stack[-1][0] <= upto:
            end, name, start, child = stack.pop()
            totals[name] = totals.get(name, 0) + (end - start - child)
            if stack:
                stack[-1][3] += end - start
    for start, stop, name, _, is_op in evs:
        if not is_op:
            continue
        close(start)
        stack.append([stop, name, start, 0])
    close(float("inf"))


def _union(intervals):
    out = []
    for s, t in sorted(intervals):
        if out and s <= out[-1][1]:
            out[-1][1] = max(out[-1][1], t)
        else:
            out.append([s, t])
    return out


def _overlap(a, b) -> int:
    """Total length of the intersection of two sorted interval unions."""
    i = j = total = 0
    while i < len(a) and j < len(b):
        lo, hi = max(a[i][0], b[j][0]), min(a[i][1], b[j][1])
        total += max(0, hi - lo)
        if a[i][1] < b[j][1]:
            i += 1
        else:
            j += 1
    return total


def analyze_worker(space) -> dict:
    """Steps (with their category split, in microseconds) and top ops of one XSpace.

    Collectives that run on another thread (gloo's and NCCL's own threads) while the
    step's thread runs no op count as communication, not host-side Python.
    """
    plane = next((p for p in space.planes if p.name == "/host:CPU"), None)
    steps, totals = {}, {}
    if plane is None:
        return {"steps": steps, "top_ops": []}
    lines = _events(plane)
    comm_by_line = {k: _union((e[0], e[1]) for e in evs
                              if _category(e[2], e[4]) == "communication")
                    for k, evs in lines.items()}
    for key, evs in lines.items():
        _self_times(evs, totals)
        others = _union(iv for k, ivs in comm_by_line.items() if k != key for iv in ivs)
        marks = [e for e in evs if "step_num" in e[3] and e[3].get("_r") == 1]
        for i, (start, stop, name, stats, _) in enumerate(marks):
            inner = [e for e in evs if start <= e[0] and e[1] <= stop and e[0:3] != (
                start, stop, name)]
            split = dict.fromkeys(CATEGORIES, 0.0)
            busy = []
            for s, t, cat in _outermost(inner):
                split[cat] += (t - s) / 1e6
                busy.append((s, t))
            # the step's thread idle in Python while another thread communicates
            free = [[a, b] for a, b in _gaps(start, stop, _union(busy))]
            split["communication"] += _overlap(free, others) / 1e6
            split["python"] = max(0.0, (stop - start) / 1e6 - sum(split.values()))
            nxt = marks[i + 1][0] if i + 1 < len(marks) else stop
            steps[str(stats["step_num"])] = {
                "name": name, "total_us": (stop - start) / 1e6, "idle_us": (nxt - stop) / 1e6,
                **{k + "_us": v for k, v in split.items()}}
    top = sorted(totals.items(), key=lambda kv: -kv[1])[:10]
    return {"steps": steps, "top_ops": [{"op": k, "self_us": v / 1e6} for k, v in top]}


def _gaps(start, stop, busy):
    cur = start
    for s, t in busy:
        if s > cur:
            yield cur, s
        cur = max(cur, t)
    if cur < stop:
        yield cur, stop


def analyze(logdir) -> dict:
    """``{run: {"workers": {file: analysis}, "steps": {step: {...slowest...}}}}``."""
    runs = {}
    for run_dir in sorted(glob.glob(os.path.join(os.fspath(logdir), "plugins", "profile", "*"))):
        workers = {}
        for path in sorted(glob.glob(os.path.join(run_dir, "*.xplane.pb"))):
            with open(path, "rb") as f:
                space = xplane_pb2.XSpace.FromString(f.read())
            workers[os.path.basename(path)[: -len(".xplane.pb")]] = analyze_worker(space)
        if not workers:
            continue
        steps = {}
        for step in sorted({s for w in workers.values() for s in w["steps"]}, key=int):
            have = {w: a["steps"][step] for w, a in workers.items() if step in a["steps"]}
            slow = max(have, key=lambda w: have[w]["total_us"])
            biggest = max(CATEGORIES, key=lambda c: have[slow][c + "_us"])
            steps[step] = {"slowest": slow, "biggest": biggest, "workers": sorted(have)}
        runs[os.path.basename(run_dir)] = {"workers": workers, "steps": steps}
    return runs


_PAGE = """<!DOCTYPE html>
<html><head><meta charset="utf-8"><title>torchflow profile: %(title)s</title>
<style>
body{font:14px sans-serif;margin:1em}table{border-collapse:collapse;margin:.5em 0}
td,th{border:1px solid #ccc;padding:2px 6px;text-align:right}th{background:#eee}
td.l{text-align:left}.slow{background:#fde2e2}.big{font-weight:bold;color:#b00}
.bar{display:inline-block;height:10px}
.input{background:#f0a030}.compute{background:#3080e0}.communication{background:#30b060}
.python{background:#a060c0}.idle{background:#bbb}
</style></head><body>
<h1>torchflow profile: %(title)s</h1>
<label>Run <select id="run"></select></label>
<label>Step <select id="step"></select></label>
<div id="steps"></div><h2>Top ops by self time</h2><div id="ops"></div>
<script type="application/json" id="data">%(data)s</script>
<script>
const D = JSON.parse(document.getElementById("data").textContent);
const C = ["input", "compute", "communication", "python", "idle"];
const runSel = document.getElementById("run"), stepSel = document.getElementById("step");
const f = v => v.toFixed(1);
function esc(s) { const d = document.createElement("div"); d.textContent = s; return d.innerHTML; }
function fillSteps() {
  stepSel.innerHTML = "";
  for (const s of Object.keys(D[runSel.value].steps)) stepSel.add(new Option("step " + s, s));
  show();
}
function show() {
  const run = D[runSel.value], step = stepSel.value, info = run.steps[step];
  let h = "<table><tr><th>worker</th><th>step (us)</th>" +
    C.map(c => "<th>" + c + " (us)</th>").join("") + "<th></th></tr>";
  for (const w of Object.keys(run.workers)) {
    const s = run.workers[w].steps[step];
    if (!s) continue;
    const slow = info && info.slowest === w;
    h += "<tr class='" + (slow ? "slow" : "") + "'><td class='l'>" + esc(w) +
      (slow ? " (slowest)" : "") + "</td><td>" + f(s.total_us) + "</td>" +
      C.map(c => "<td class='" + (slow && info.biggest === c ? "big" : "") + "'>" +
        f(s[c + "_us"]) + "</td>").join("") + "<td class='l'>" +
      C.map(c => "<span class='bar " + c + "' style='width:" +
        (200 * s[c + "_us"] / (s.total_us + s.idle_us || 1)) + "px'></span>").join("") +
      "</td></tr>";
  }
  document.getElementById("steps").innerHTML = h + "</table>";
  let o = "";
  for (const w of Object.keys(run.workers)) {
    o += "<h3>" + esc(w) + "</h3><table><tr><th>op</th><th>self time (us)</th></tr>" +
      run.workers[w].top_ops.map(r => "<tr><td class='l'>" + esc(r.op) + "</td><td>" +
        f(r.self_us) + "</td></tr>").join("") + "</table>";
  }
  document.getElementById("ops").innerHTML = o;
}
for (const r of Object.keys(D)) runSel.add(new Option(r, r));
runSel.onchange = fillSteps; stepSel.onchange = show;
if (runSel.options.length) fillSteps();
</script></body></html>
"""


def render(logdir) -> str:
    """The page for ``logdir`` (all runs under ``plugins/profile``) as an HTML string."""
    data = json.dumps(analyze(logdir), sort_keys=True).replace("</", "<\\/")
    return _PAGE % {"title": html.escape(os.fspath(logdir)), "data": data}


def main(argv) -> int:
    """``torchflow profile view LOGDIR [--out FILE] [--serve PORT]``."""
    parser = argparse.ArgumentParser(prog="torchflow profile")
    sub = parser.add_subparsers(dest="command", required=True)
    view = sub.add_parser("view", help="write (or serve) the step-time page of LOGDIR")
    view.add_argument("logdir")
    view.add_argument("--out", help="the HTML file (default LOGDIR/profile_view.html)")
    view.add_argument("--serve", type=int, metavar="PORT",
                      help="also serve the page on 127.0.0.1:PORT until interrupted")
    args = parser.parse_args(argv)
    page = render(args.logdir)
    out = args.out or os.path.join(args.logdir, "profile_view.html")
    with open(out, "w", encoding="utf-8") as f:
        f.write(page)
    print(out)
    if args.serve is not None:
        body = page.encode("utf-8")

        class Handler(http.server.BaseHTTPRequestHandler):
            def do_GET(self):
                self.send_response(200)
                self.send_header("Content-Type", "text/html; charset=utf-8")
                self.send_header("Content-Length", str(len(body)))
                self.end_headers()
                self.wfile.write(body)

        server = http.server.ThreadingHTTPServer(("127.0.0.1", args.serve), Handler)
        print(f"serving on http://127.0.0.1:{server.server_address[1]}/", flush=True)
        try:
            server.serve_forever()
        except KeyboardInterrupt:
            pass
        finally:
            server.server_close()
    return 0
