"""Reading profiles in tests: our XSpace files, and XProf's own converter as the oracle."""

from __future__ import annotations

import glob
import json
import os

import pytest

from torchflow._src.core.proto import xplane_pb2


def xplane_files(logdir) -> list[str]:
    return sorted(glob.glob(os.path.join(str(logdir), "plugins", "profile", "*", "*.xplane.pb")))


def load_space(path):
    with open(path, "rb") as f:
        return xplane_pb2.XSpace.FromString(f.read())


def host_plane(space):
    (plane,) = [p for p in space.planes if p.name == "/host:CPU"]
    return plane


def events(plane):
    """(line name, event name, start ps from the line's origin, duration ps, stats dict)."""
    out = []
    for line in plane.lines:
        for e in line.events:
            stats = {}
            for s in e.stats:
                kind = s.WhichOneof("value")
                value = getattr(s, kind)
                if kind == "ref_value":  # TF stores repeated strings as stat metadata
                    value = plane.stat_metadata[value].name
                stats[plane.stat_metadata[s.metadata_id].name] = value
            out.append((line.name, plane.event_metadata[e.metadata_id].name,
                        line.timestamp_ns * 1000 + e.offset_ps, e.duration_ps, stats))
    return out


def steps_with_ops(plane, op_name):
    """step_num -> how many ``op_name`` events lie inside that step event (same line)."""
    evs = events(plane)
    out = {}
    for line, _name, start, dur, stats in evs:
        if "step_num" in stats and stats.get("_r") == 1:
            out[stats["step_num"]] = sum(
                1 for line2, n2, s2, d2, _ in evs
                if line2 == line and n2 == op_name and start <= s2 and s2 + d2 <= start + dur)
    return out


def xprof_tool(paths, tool):
    """XProf's offline converter (``xspace_to_tool_data``) on our files: its JSON output."""
    raw_to_tool_data = pytest.importorskip("xprof.convert.raw_to_tool_data")
    data, _ = raw_to_tool_data.xspace_to_tool_data(list(paths), tool, {"use_saved_result": False})
    assert data, f"XProf produced no {tool} data"
    if isinstance(data, bytes):
        data = data.decode()
    return json.loads(data)


def table_rows(table):
    return [[c.get("v") for c in row["c"]] for row in table.get("rows", [])]


def xprof_op_stats(paths):
    """{(type, operation): occurrences} from XProf's framework_op_stats (host ops)."""
    tables = xprof_tool(paths, "framework_op_stats")
    cols = [c["id"] for c in tables[-1]["cols"]]
    out = {}
    for row in table_rows(tables[-1]):
        rec = dict(zip(cols, row))
        out[(rec["type"], rec["operation"])] = rec["occurrences"]
    return out


def xprof_step_names(paths):
    """The step names of XProf's overview page step-time graph (``train 0``, ...)."""
    tables = xprof_tool(paths, "overview_page")
    for table in tables:
        if table.get("cols") and table["cols"][0]["id"] == "stepnum":
            return [row[0] for row in table_rows(table)]
    return []
