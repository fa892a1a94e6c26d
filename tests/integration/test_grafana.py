"""The Grafana dashboard (packaging/grafana/ramwatch.json) against a database
a real ramwatchd filled: every query in it (panels, the annotation query,
the template variable) runs, with Grafana's $__from, $__to and variables
replaced as Grafana replaces them, through SQLite itself and through
ramwatch sql, and answers in the shape Grafana's SQLite data source wants."""
import json
import os
import re
import shutil
import sqlite3
import subprocess
import time

import pytest

from conftest import BUILD, RAMWATCH
from rwdaemon import Daemon, fast_config

ROOT = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..")
DASHBOARD = os.path.join(ROOT, "packaging", "grafana", "ramwatch.json")
PLUGIN = "frser-sqlite-datasource"
STANDIN = os.path.join(BUILD, "gpu-standin")
GPU = "GPU-11111111-2222-3333-4444-555555555555"


def sqlstring(value):
    """Grafana's ${var:sqlstring}: quoted, with quotes doubled."""
    return "'" + value.replace("'", "''") + "'"


def interpolate(sql, start_ms, end_ms, process):
    """What Grafana and the plugin send to SQLite for a query."""
    out = sql.replace("${process:sqlstring}", sqlstring(process)).replace("$process", process)
    out = out.replace("$__from", str(start_ms)).replace("$__to", str(end_ms))
    assert "$" not in out.replace(process, ""), f"a variable is left in: {out}"
    return out


def queries(dashboard):
    """Every query of the dashboard: (where, target or variable, SQL)."""
    found = []
    for panel in dashboard["panels"]:
        for t in panel.get("targets", []):
            found.append((f"panel {panel['title']!r}", t, t["rawQueryText"]))
    for a in dashboard["annotations"]["list"]:
        if "target" in a:
            found.append((f"annotation {a['name']!r}", a["target"], a["target"]["rawQueryText"]))
    for v in dashboard["templating"]["list"]:
        if v["type"] == "query":
            found.append((f"variable {v['name']!r}", v, v["query"]))
    return found


@pytest.fixture(scope="module")
def dashboard():
    # as an administrator would check it
    subprocess.run(["/usr/bin/python3", "-m", "json.tool", DASHBOARD], check=True, capture_output=True)
    with open(DASHBOARD) as f:
        return json.load(f)


@pytest.fixture(scope="module")
def filled(tmp_path_factory):
    """A database a real ramwatchd wrote while it watched a process, on a
    GPU the stand-in NVML makes up (tests/gpu-standin); the marks are added
    afterwards, as `ramwatch mark` would have the daemon write them."""
    tmp = tmp_path_factory.mktemp("grafana")
    # a name with a quote, which the process variable must carry into SQL
    program = tmp / "it's"
    shutil.copy("/bin/sleep", program)
    target = subprocess.Popen([str(program), "300"])
    script = tmp / "gpu-script"
    script.write_text(f"device {GPU} 85899345920 4294967296 NVIDIA A100-SXM4-80GB\n"
                      f"compute 0 {target.pid} 1073741824\n")
    env = {"RAMWATCH_NVML_LIBRARY": os.path.join(STANDIN, "libnvidia-ml.so.1"),
           "RAMWATCH_CUDA_LIBRARY": os.path.join(STANDIN, "libcuda.so.1"),
           "RAMWATCH_STANDIN_SCRIPT": str(script)}
    d = Daemon(tmp, fast_config(f"Watch=pid:{target.pid}"), env=env)
    try:
        d.start()
        d.wait_rows("SELECT * FROM censuses WHERE status = 'ok'", what="a census")
        d.wait_rows("SELECT * FROM samples", n=3, what="samples")
        d.wait_rows("SELECT * FROM system", n=3, what="system rows")
        d.wait_rows("SELECT * FROM gpu_samples", n=3, what="GPU memory rows")
    finally:
        if d.proc:
            assert d.stop() == 0
        target.kill()
        target.wait()
    con = sqlite3.connect(d.db_path)
    pid_id, first, last = con.execute("SELECT id, first_seen, last_seen FROM processes").fetchone()
    con.executemany("INSERT INTO marks (process_id, time, name, by_uid) VALUES (?, ?, ?, 0)",
                    [(pid_id, first + 100, "load it's model"), (pid_id, last - 100, "serve")])
    con.commit()
    label = con.execute("SELECT label FROM process_labels").fetchone()[0]
    con.close()
    return d.db_path, first - 3600 * 1000, int(time.time() * 1000) + 3600 * 1000, label


def test_dashboard_uses_the_sqlite_plugin(dashboard):
    assert {"type": "datasource", "id": PLUGIN, "name": "SQLite", "version": "3.4.0"} in dashboard["__requires"]
    datasource = [v for v in dashboard["templating"]["list"] if v["type"] == "datasource"]
    assert datasource and datasource[0]["query"] == PLUGIN
    for where, t, _ in queries(dashboard):
        assert t["datasource"] == {"type": PLUGIN, "uid": "${datasource}"}, where
    for panel in dashboard["panels"]:
        assert panel["datasource"]["type"] == PLUGIN
        for t in panel["targets"]:
            assert t["queryType"] == "time series" and t["timeColumns"] == ["time"]
            assert t["queryText"] == t["rawQueryText"]
    titles = [p["title"] for p in dashboard["panels"]]
    assert titles == ["Private memory by process", "Resident memory by process", "Classes of $process",
                      "System memory", "Memory pressure", "Censuses per minute", "GPU memory by process",
                      "GPU memory by device", "In use and free of $process"]


def test_every_query_runs(dashboard, filled):
    db, start, end, label = filled
    con = sqlite3.connect(f"file:{db}?mode=ro", uri=True)
    psi = con.execute("SELECT count(*) FROM system WHERE pressure_some_avg10 IS NOT NULL").fetchone()[0] > 0
    # the heap walks read an allocator of the process at some census
    walked = con.execute("SELECT count(*) FROM class_timeline WHERE in_use IS NOT NULL").fetchone()[0] > 0
    for where, t, raw in queries(dashboard):
        sql = interpolate(raw, start, end, label)
        cur = con.execute(sql)
        rows = cur.fetchall()
        names = [c[0] for c in cur.description]
        if where == "panel 'Memory pressure'" and not psi:
            assert rows == [], where
        elif where == "panel 'In use and free of $process'" and not walked:
            assert rows == [], where
        else:
            assert rows, f"{where}: no rows from\n{sql}"
        if where.startswith("panel"):
            # the long format the plugin turns into one series per metric
            assert names == ["time", "metric", "value"], where
            times = [r[0] for r in rows]
            assert times == sorted(times), f"{where}: not in time order"
            assert all(start / 1000 <= r[0] <= end / 1000 and isinstance(r[1], str) and r[2] is not None
                       for r in rows), where
        # ... and ramwatch sql answers the same, so the query is allowed
        r = subprocess.run([RAMWATCH, "sql", sql, "--db", db, "--format", "json"], capture_output=True, text=True)
        assert r.returncode == 0, f"{where}: {r.stderr}"
        assert [tuple(o.values()) for o in json.loads(r.stdout)] == [tuple(x) for x in rows], where
    con.close()


def test_panels_show_what_was_stored(dashboard, filled):
    db, start, end, label = filled
    con = sqlite3.connect(f"file:{db}?mode=ro", uri=True)
    by_title = {p["title"]: interpolate(p["targets"][0]["rawQueryText"], start, end, label)
                for p in dashboard["panels"]}
    private = con.execute(by_title["Private memory by process"]).fetchall()
    assert {m for _, m, _ in private} == {f"{label} private"}
    assert [v for _, _, v in private] == [r[0] for r in con.execute(
        "SELECT private_max FROM samples ORDER BY time")]
    classes = con.execute(by_title["Classes of $process"]).fetchall()
    census = con.execute("SELECT time / 1000.0, private FROM censuses WHERE status = 'ok' ORDER BY time").fetchone()
    assert sum(v for t, _, v in classes if t == census[0]) == census[1]
    system = con.execute(by_title["System memory"]).fetchall()
    assert {m for _, m, _ in system} == {"mem_used", "mem_available", "swap_used", "committed_as"}
    rate = con.execute(by_title["Censuses per minute"]).fetchall()
    assert sum(v for _, _, v in rate) == con.execute("SELECT count(*) FROM censuses").fetchone()[0]
    assert "first" in {m for _, m, _ in rate}
    vram = con.execute(by_title["GPU memory by process"]).fetchall()
    assert {m for _, m, _ in vram} == {f"{label} vram"} and {v for _, _, v in vram} == {1024 ** 3}
    assert len(vram) == con.execute("SELECT count(*) FROM gpu_samples").fetchone()[0]
    devices = con.execute(by_title["GPU memory by device"]).fetchall()
    assert {(m, v) for _, m, v in devices} == {("GPU 0 used", 4 * 1024 ** 3), ("GPU 0 total", 80 * 1024 ** 3)}
    # in use and free: a series of each for every class a census read an
    # allocator of, as class_timeline has them
    heap = con.execute(by_title["In use and free of $process"]).fetchall()
    want = con.execute("SELECT time, class, in_use, free FROM class_timeline WHERE in_use IS NOT NULL").fetchall()
    assert sorted(heap) == sorted([(t, f"{k} in use", u) for t, k, u, _ in want] +
                                  [(t, f"{k} free", f) for t, k, _, f in want])
    # a time range without rows gives none
    empty = interpolate(dashboard["panels"][0]["targets"][0]["rawQueryText"], 0, 1000, label)
    assert con.execute(empty).fetchall() == []
    con.close()


def test_marks_are_annotations(dashboard, filled):
    db, start, end, label = filled
    [anno] = [a for a in dashboard["annotations"]["list"] if a["name"] == "Marks"]
    assert anno["target"]["timeColumns"] == ["time", "timeEnd"]
    con = sqlite3.connect(f"file:{db}?mode=ro", uri=True)
    cur = con.execute(interpolate(anno["target"]["rawQueryText"], start, end, label))
    rows = cur.fetchall()
    # the fields Grafana maps an annotation from, by name
    assert [c[0] for c in cur.description] == ["time", "timeEnd", "title", "text", "tags"]
    pid = con.execute("SELECT pid FROM processes").fetchone()[0]
    assert [r[2:] for r in rows] == [("load it's model", label, f"pid={pid}"), ("serve", label, f"pid={pid}")]
    # a phase runs to the next mark; the last one has no end while the process lives
    assert rows[0][1] == rows[1][0] and rows[1][1] is None
    # consistent with the view annotations
    assert [tuple(r) for r in con.execute("SELECT time, title, text, tags FROM annotations ORDER BY time")] == \
        [(r[0], r[2], r[3], r[4]) for r in rows]
    # a range that ends before the first mark shows none
    early = interpolate(anno["target"]["rawQueryText"], start, int(rows[0][0] * 1000) - 1, label)
    assert con.execute(early).fetchall() == []
    con.close()


def test_process_variable(dashboard, filled):
    db, start, end, label = filled
    [var] = [v for v in dashboard["templating"]["list"] if v["name"] == "process"]
    con = sqlite3.connect(f"file:{db}?mode=ro", uri=True)
    rows = con.execute(interpolate(var["query"], start, end, label)).fetchall()
    # one column: the plugin's variable support takes the first field's values
    assert rows == [(label,)]
    assert re.fullmatch(r"it's \[\d+\]", label)
    con.close()
    # the panel that uses it
    panel = [p for p in dashboard["panels"] if "$process" in p["title"]][0]
    assert "${process:sqlstring}" in panel["targets"][0]["rawQueryText"]
