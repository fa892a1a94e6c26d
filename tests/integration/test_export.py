"""Metrics for Prometheus end to end: a real ramwatchd watching real
processes of known shapes (the shapes helper, one of root and one of an
unprivileged user) writes a node_exporter textfile (Export=); it appears,
is replaced atomically, holds the helpers' classes and passes Prometheus's
own checker (promtool, Debian's prometheus package; `make check-metrics`
installs it and makes its absence a failure); `ramwatch metrics` prints the
same families, and an unprivileged user gets only their own groups."""
import os
import pwd
import re
import shutil
import signal
import subprocess
import tempfile
import time

import pytest

from conftest import RAMWATCH, run, start_shapes, stop
from rwdaemon import RAMWATCHD, Daemon, fast_config

PROMTOOL = shutil.which("promtool")
REQUIRE_PROMTOOL = os.environ.get("RAMWATCH_REQUIRE_PROMTOOL") == "1"

SAMPLE = re.compile(r'^([a-z_]+)(?:\{(.*)\})? (\S+)$')
LABEL = re.compile(r'([a-z_]+)="((?:[^"\\]|\\.)*)"')
ESCAPE = re.compile(r'\\(.)', re.S)


def export_config(path, group_by="comm", watch="Watch=name:shapes", extra=""):
    return fast_config(watch, extra=f"{extra}\n[Export]\nExport=textfile:{path}\nExportGroupBy={group_by}\n")


def parse(text):
    """The exposition as {family: type} and [(name, {label: value}, value)];
    fails on a line that is neither a comment nor a sample."""
    types, samples = {}, []
    for line in text.splitlines():
        if line.startswith("# TYPE "):
            name, kind = line[len("# TYPE "):].split(" ")
            types[name] = kind
            continue
        if line.startswith("# HELP "):
            continue
        m = SAMPLE.match(line)
        assert m, f"not a sample: {line!r}"
        labels = {k: ESCAPE.sub(lambda e: "\n" if e.group(1) == "n" else e.group(1), v)
                  for k, v in LABEL.findall(m.group(2) or "")}
        assert m.group(1) in types, f"a sample before its TYPE: {line!r}"
        samples.append((m.group(1), labels, float(m.group(3))))
    return types, samples


def value(samples, name, **labels):
    found = [v for n, l, v in samples if n == name and l == labels]
    assert len(found) <= 1, (name, labels)
    return found[0] if found else None


def groups(samples):
    return {l["group"] for n, l, v in samples if "group" in l}


def promtool_check(text):
    """Prometheus's checker: exit 0 and nothing said (lint problems exit 3)."""
    if not PROMTOOL:
        if REQUIRE_PROMTOOL:
            pytest.fail("promtool is missing (Debian's prometheus package: make check-metrics installs it)")
        pytest.skip("promtool is not installed (make check-metrics installs Debian's prometheus package)")
    r = subprocess.run([PROMTOOL, "check", "metrics"], input=text, capture_output=True, text=True, timeout=60)
    assert r.returncode == 0 and not r.stdout.strip() and not r.stderr.strip(), \
        f"promtool: exit {r.returncode}\n{r.stdout}{r.stderr}\n{text[:3000]}"


def read(path):
    with open(path) as f:
        return f.read()


class Env:
    pass


@pytest.fixture(scope="module")
def env(tmp_path_factory, unprivileged_user):
    """One daemon watching two shapes helpers (root's and the user's),
    writing its metrics grouped by command name."""
    e = Env()
    e.user = unprivileged_user
    e.uid = pwd.getpwnam(unprivileged_user).pw_uid
    e.base = tempfile.mkdtemp(prefix="rwexport-", dir="/tmp")
    os.chmod(e.base, 0o755)
    user_dir = os.path.join(e.base, "user")
    os.mkdir(user_dir)
    os.chmod(user_dir, 0o777)
    e.textdir = os.path.join(e.base, "node-exporter")
    os.mkdir(e.textdir)
    e.path = os.path.join(e.textdir, "ramwatch.prom")
    e.mine = start_shapes(e.base)
    e.theirs = start_shapes(user_dir, user=unprivileged_user)
    e.d = Daemon(tmp_path_factory.mktemp("daemon"), export_config(e.path))
    try:
        e.d.start()
        # both helpers censused, and a write after that
        e.d.wait_for(lambda: os.path.exists(e.path) and
                     value(parse(read(e.path))[1], "ramwatch_processes", group="shapes") == 2 and
                     value(parse(read(e.path))[1], "ramwatch_light_census_processes", group="shapes") == 0 and
                     'class="stacks"' in read(e.path), what="the textfile with both helpers' censuses", timeout=30)
        yield e
        assert e.d.alive(), e.d.logs()[-3000:]
        assert e.d.stop() == 0
    finally:
        if e.d.proc and e.d.alive():
            e.d.stop(signal.SIGKILL)
        stop(e.mine.proc)
        stop(e.theirs.proc)
        shutil.rmtree(e.base, ignore_errors=True)


def test_textfile_has_the_helpers_classes(env):
    st = os.stat(env.path)
    assert st.st_mode & 0o7777 == 0o644
    types, samples = parse(read(env.path))

    # every family, with its type
    assert types == {
        "ramwatch_memory_bytes": "gauge", "ramwatch_allocator_bytes": "gauge",
        "ramwatch_process_memory_bytes": "gauge",
        "ramwatch_peak_private_bytes": "gauge", "ramwatch_processes": "gauge",
        "ramwatch_light_census_processes": "gauge", "ramwatch_censuses_total": "counter",
        "ramwatch_census_seconds_total": "counter", "ramwatch_deferred_censuses_total": "counter",
        "ramwatch_repeated_censuses_total": "counter",
        "ramwatch_watched_processes": "gauge", "ramwatch_sample_round_seconds_max": "gauge",
        "ramwatch_store_dropped_rows_total": "counter",
        "ramwatch_store_writing": "gauge", "ramwatch_database_corruptions_total": "counter",
        "ramwatch_export_errors_total": "counter", "ramwatch_build_info": "gauge",
        # the OOM kills, where a source of them is active, and the memory
        # cgroups of the watched processes, where a memory controller is
        # mounted: on this machine, as on most
        **{k: v for k, v in {
            "ramwatch_oom_kills_total": "counter", "ramwatch_cgroup_usage_bytes": "gauge",
            "ramwatch_cgroup_limit_bytes": "gauge", "ramwatch_cgroup_oom_kills_total": "counter",
        }.items() if k in types},
    }
    # the kills counted by what confined them; the groups by path, never
    # by pid
    if "ramwatch_oom_kills_total" in types:
        assert {l["constraint"] for n, l, v in samples if n == "ramwatch_oom_kills_total"} >= {"memcg", "counted"}
    assert all(set(l) == {"cgroup"} for n, l, v in samples if n.startswith("ramwatch_cgroup_"))
    # the two helpers are one group; no pid anywhere
    assert groups(samples) == {"shapes"}
    assert not any("pid" in l for n, l, v in samples)
    assert value(samples, "ramwatch_processes", group="shapes") == 2
    assert value(samples, "ramwatch_light_census_processes", group="shapes") == 0
    assert value(samples, "ramwatch_watched_processes") == 2
    # two processes read, and a census pass stopped after 250 ms
    # (RW_CENSUS_PASS_US), in a second even under sanitizers; not nothing
    assert 0 < value(samples, "ramwatch_sample_round_seconds_max") < 1

    # each class the helper built holds at least what it touched (of one
    # helper: the group holds two)
    touched = {}
    for records in env.mine.shapes.values():
        for r in records:
            if "class" in r:  # some records only say a path
                touched[r["class"]] = touched.get(r["class"], 0) + r["bytes"]
    for cls, n in touched.items():
        resident = value(samples, "ramwatch_memory_bytes", group="shapes", **{"class": cls, "kind": "resident"})
        private = value(samples, "ramwatch_memory_bytes", group="shapes", **{"class": cls, "kind": "private"})
        assert resident is not None and private is not None, f"no {cls} in the textfile"
        assert resident >= n, (cls, resident, n)
    # anonymous private memory the helper touched: "other" (large malloc,
    # locked) is private
    assert value(samples, "ramwatch_memory_bytes", group="shapes", **{"class": "other", "kind": "private"}) >= \
        touched["other"]

    # the helpers' glibc heaps, read by their first censuses: in use, free
    # and returnable, within the class's private memory
    heap = {k: value(samples, "ramwatch_allocator_bytes", group="shapes", **{"class": "malloc", "kind": k})
            for k in ("in_use", "free", "returnable")}
    malloc = value(samples, "ramwatch_memory_bytes", group="shapes", **{"class": "malloc", "kind": "private"})
    assert None not in heap.values(), heap
    assert heap["in_use"] > 0 and heap["in_use"] + heap["free"] <= malloc and heap["returnable"] <= heap["free"], \
        (heap, malloc)
    # only the classes an allocator was read for
    assert {l["class"] for n, l, v in samples if n == "ramwatch_allocator_bytes"} <= {"malloc", "python"}

    # the fast tier's sums and peaks against the kernel's counters
    private = value(samples, "ramwatch_process_memory_bytes", group="shapes", kind="private")
    resident = value(samples, "ramwatch_process_memory_bytes", group="shapes", kind="resident")
    assert resident >= sum(touched.values())
    assert value(samples, "ramwatch_peak_private_bytes", group="shapes") >= private / 2
    assert value(samples, "ramwatch_censuses_total", status="ok") >= 2
    assert value(samples, "ramwatch_census_seconds_total") > 0
    assert value(samples, "ramwatch_store_writing") == 1
    assert value(samples, "ramwatch_export_errors_total") == 0
    version = subprocess.run([RAMWATCHD, "--version"], capture_output=True, text=True).stdout.split()[-1]
    assert value(samples, "ramwatch_build_info", version=version) == 1


def test_textfile_is_replaced_atomically(env):
    """Read in a loop while the daemon rewrites it (every StoreInterval, 1 s
    here): each read is a whole exposition, and the file was replaced by a
    rename (a new inode) several times meanwhile."""
    inodes, reads = set(), 0
    deadline = time.time() + 4.5
    while time.time() < deadline:
        with open(env.path) as f:
            inodes.add(os.fstat(f.fileno()).st_ino)
            text = f.read()
        reads += 1
        assert text.startswith("# HELP ramwatch_memory_bytes "), text[:200]
        assert text.endswith("} 1\n") and "\nramwatch_build_info{version=" in text, text[-200:]
        parse(text)
    assert len(inodes) >= 3, f"{len(inodes)} versions of the file in {reads} reads"
    assert reads > 100


def test_promtool_accepts_the_textfile(env):
    promtool_check(read(env.path))


def test_ramwatch_metrics_prints_the_same(env):
    r = run("metrics", "--socket", env.d.socket, check=0)
    types, samples = parse(r.stdout)
    file_types, file_samples = parse(read(env.path))
    assert types == file_types
    assert groups(samples) == groups(file_samples) == {"shapes"}
    assert {(n, tuple(sorted(l.items()))) for n, l, v in samples} == \
        {(n, tuple(sorted(l.items()))) for n, l, v in file_samples}
    promtool_check(r.stdout)

    # the socket's answer is the same text
    a = env.d.ask({"op": "metrics"})
    assert a["ok"] and a["result"]["filtered_to_uid"] is None
    assert parse(a["result"]["text"])[0] == types
    a = env.d.ask({"op": "metrics", "group": "x"})
    assert not a["ok"] and a["code"] == "bad_request" and "unknown argument 'group'" in a["error"]


def test_unprivileged_user_gets_only_their_processes(env):
    """Grouped by command both helpers are "shapes": the user's view holds
    one process, their own, and its memory alone; the daemon-wide counters
    are everyone's."""
    mine = parse(run("metrics", "--socket", env.d.socket, user=env.user, check=0).stdout)[1]
    everyone = parse(run("metrics", "--socket", env.d.socket, check=0).stdout)[1]
    assert value(mine, "ramwatch_processes", group="shapes") == 1
    assert value(everyone, "ramwatch_processes", group="shapes") == 2
    assert value(mine, "ramwatch_watched_processes") == 2
    with open(f"/proc/{env.theirs.pid}/status") as f:
        status = dict(line.split(":", 1) for line in f)
    rss = int(status["VmRSS"].split()[0]) * 1024
    theirs = value(mine, "ramwatch_process_memory_bytes", group="shapes", kind="resident")
    assert abs(theirs - rss) < rss / 4, (theirs, rss)
    a = env.d.ask({"op": "metrics"}, user=env.user)
    assert a["ok"] and a["result"]["filtered_to_uid"] == env.uid


def test_group_by_user_after_a_reload(env, tmp_path, daemons):
    """ExportGroupBy=user, set by a reload, at the next write: root's and the
    user's helpers are groups of their own, and the user sees only theirs.
    A second daemon: the module's keeps its configuration."""
    path = os.path.join(env.textdir, "by-user.prom")
    d = daemons(tmp_path, export_config(path)).start()
    d.wait_for(lambda: os.path.exists(path) and 'class="stacks"' in read(path) and
               value(parse(read(path))[1], "ramwatch_processes", group="shapes") == 2,
               what="the textfile", timeout=30)
    d.write_config(export_config(path, group_by="user"))
    d.kill(signal.SIGHUP)
    d.wait_for(lambda: groups(parse(read(path))[1]) == {"root", env.user}, what="groups by user", timeout=15)
    samples = parse(read(path))[1]
    assert value(samples, "ramwatch_memory_bytes", group=env.user, **{"class": "stacks", "kind": "private"}) \
        is not None
    promtool_check(read(path))
    mine = parse(run("metrics", "--socket", d.socket, user=env.user, check=0).stdout)[1]
    assert groups(mine) == {env.user}
    assert "ExportGroupBy: comm -> user" in d.logs()

    # Export= moved: the old file goes (it would be scraped as current), the
    # new one comes
    other = os.path.join(env.textdir, "moved.prom")
    d.write_config(export_config(other, group_by="unit"))
    d.kill(signal.SIGHUP)
    d.wait_for(lambda: os.path.exists(other) and not os.path.exists(path), what="the file moved", timeout=15)
    unit_groups = groups(parse(read(other))[1])
    assert unit_groups and "root" not in unit_groups
    # and off: removed, nothing written
    d.write_config(fast_config("Watch=name:shapes", extra="[Export]\nExport=no\n"))
    d.kill(signal.SIGHUP)
    d.wait_for(lambda: not os.path.exists(other), what="the file removed", timeout=15)
    time.sleep(2.5)
    left = [n for n in os.listdir(env.textdir) if n.startswith(("by-user.prom", "moved.prom"))]
    assert not left, left
    assert d.stop() == 0


def test_failed_writes_are_logged_once_and_counted(tmp_path, daemons):
    """A directory that does not exist: one warning, however many cycles,
    counted; then written as soon as it exists, and said once."""
    textdir = tmp_path / "later"
    path = textdir / "ramwatch.prom"
    d = daemons(tmp_path, export_config(path)).start()
    d.wait_for(lambda: "cannot write the metrics textfile" in d.logs(), what="the warning", timeout=15)
    time.sleep(3.5)  # three more StoreIntervals
    assert d.logs().count("cannot write the metrics textfile") == 1, d.logs()[-3000:]
    assert f"cannot write the metrics textfile {path} (create): No such file or directory" in d.logs()
    errors = value(parse(d.ask({"op": "metrics"})["result"]["text"])[1], "ramwatch_export_errors_total")
    assert errors >= 3
    # the status's last errors show it too
    assert any("metrics textfile" in e["message"] for e in d.ask({"op": "status"})["result"]["last_errors"])

    textdir.mkdir()
    d.wait_for(lambda: path.exists(), what="the file once the directory exists", timeout=15)
    d.wait_for(lambda: "written again" in d.logs(), what="the recovery logged", timeout=5)
    samples = parse(path.read_text())[1]
    assert value(samples, "ramwatch_export_errors_total") >= errors
    assert d.logs().count("cannot write the metrics textfile") == 1
    assert d.stop() == 0


HOSTILE = b'q"b\\c\nd\xff}{'  # 11 bytes: fits the 15 of a comm


def test_hostile_command_name(tmp_path, daemons):
    """A process that names itself to break the format: quotes, a
    backslash, a line feed, a byte that is not UTF-8, braces.  It stays
    inside its label value, and promtool agrees."""
    code = ("import ctypes, sys\n"
            "libc = ctypes.CDLL(None)\n"
            f"libc.prctl(15, {HOSTILE!r}, 0, 0, 0)\n"
            "buf = bytearray(8 << 20)\n"
            "print('ready', flush=True)\n"
            "sys.stdin.read()\n")
    p = subprocess.Popen(["/usr/bin/python3", "-c", code], stdin=subprocess.PIPE, stdout=subprocess.PIPE,
                         text=True)
    try:
        assert p.stdout.readline().strip() == "ready"
        with open(f"/proc/{p.pid}/comm", "rb") as f:
            assert f.read().rstrip(b"\n") == HOSTILE
        path = tmp_path / "hostile.prom"
        d = daemons(tmp_path, export_config(path, watch=f"Watch=pid:{p.pid}")).start()
        d.wait_for(lambda: path.exists() and "ramwatch_memory_bytes{" in path.read_text(), what="the textfile",
                   timeout=30)
        text = path.read_text()
        promtool_check(text)
        samples = parse(text)[1]
        # the daemon has the name from the status file, where the kernel
        # escapes the line feed and the backslash (proc_task_name); the
        # rest comes as it is, the byte that is not UTF-8 replaced
        name = HOSTILE.replace(b"\\", b"\\\\").replace(b"\n", b"\\n").decode("utf-8", "replace")
        assert '"' in name and "\ufffd" in name
        assert value(samples, "ramwatch_processes", group=name) == 1, text[:2000]
        assert d.stop() == 0
    finally:
        p.stdin.close()
        p.wait(timeout=10)


def test_bad_export_is_refused_with_file_and_line(tmp_path):
    d = Daemon(tmp_path, fast_config(extra="[Export]\nExport=textfile:relative/ramwatch.prom\n"))
    r = subprocess.run([RAMWATCHD, "--check-config", "--config", d.config], capture_output=True, text=True)
    assert r.returncode == 1
    assert re.search(r"ramwatchd\.conf:\d+: Export: 'textfile:relative/ramwatch\.prom' is not an absolute path",
                     r.stderr), r.stderr
    d.write_config(fast_config(extra="[Export]\nExport=textfile:/var/lib/prometheus/node-exporter/ramwatch.txt\n"))
    r = subprocess.run([RAMWATCHD, "--check-config", "--config", d.config], capture_output=True, text=True)
    assert r.returncode == 1 and "ending in .prom" in r.stderr, r.stderr
    d.write_config(fast_config(extra="[Export]\nExportGroupBy=pid\n"))
    r = subprocess.run([RAMWATCHD, "--check-config", "--config", d.config], capture_output=True, text=True)
    assert r.returncode == 1 and "ExportGroupBy: 'pid' is not a grouping (use comm, unit or user)" in r.stderr

    # and the daemon does not start with it
    d.write_config(fast_config(extra="[Export]\nExport=textfile:relative.prom\n"))
    d.start(wait_ready=False)
    assert d.proc.wait(timeout=20) == 1
    d.stop()
    assert "ramwatchd.conf:" in d.logs() and "Export: 'textfile:relative.prom'" in d.logs()
