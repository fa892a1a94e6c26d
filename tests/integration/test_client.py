"""The client commands that ask ramwatchd, end to end: a real daemon with
its control socket, a real database, real processes whose memory is known
(the shapes helper grows by 64 MiB on SIGUSR1; the mapfiles helper maps and
unmaps data files on command), and an unprivileged user."""
import json
import os
import re
import shutil
import signal
import subprocess
import tempfile
import time

import pytest

from conftest import HELPERS, MiB, RAMWATCH, run, start_shapes, stop
from rwdaemon import Daemon, fast_config


@pytest.fixture
def sockdir():
    """A directory every user can reach, for the socket (pytest's own
    temporary directories are private to root)."""
    d = tempfile.mkdtemp(prefix="rw-client-", dir="/tmp")
    os.chmod(d, 0o755)
    yield d
    shutil.rmtree(d, ignore_errors=True)


@pytest.fixture
def daemons():
    started = []

    def make(tmp, config, sock):
        d = Daemon(tmp, config, socket=sock)
        started.append(d)
        d.start()
        wait_for(lambda: os.path.exists(sock), what="the control socket")
        return d

    yield make
    for d in started:
        if d.proc:
            d.stop(signal.SIGKILL)


def wait_for(predicate, what, timeout=20, interval=0.1):
    deadline = time.time() + timeout
    while time.time() < deadline:
        value = predicate()
        if value:
            return value
        time.sleep(interval)
    raise AssertionError(f"timed out waiting for {what}")


def rw(sock, *args, **kw):
    return run(*args, "--socket", sock, **kw)


def history(sock, pid, *extra, user=None):
    return json.loads(rw(sock, "history", "--pid", pid, "--format", "json", *extra, user=user, check=0).stdout)


def censuses(sock, pid, trigger=None):
    """The censuses stored for pid (none yet while the daemon has not
    stored the process)."""
    r = rw(sock, "history", "--pid", pid, "--format", "json")
    if r.returncode != 0:
        assert "no process" in r.stderr, r.stderr
        return []
    return [x for x in json.loads(r.stdout)["censuses"] if trigger is None or x["trigger"] == trigger]


def wait_census(sock, pid, trigger, n=1):
    return wait_for(lambda: (lambda c: c if len(c) >= n else None)(censuses(sock, pid, trigger)),
                    what=f"a {trigger} census of {pid}")


@pytest.fixture
def grown(tmp_path, sockdir, shapes, daemons):
    """A watched shapes process: its first census, a mark, then 64 MiB of
    growth and the census it triggers."""
    sock = os.path.join(sockdir, "ramwatch.sock")
    d = daemons(tmp_path, fast_config(f"Watch=pid:{shapes.pid}"), sock)
    wait_census(sock, shapes.pid, "first")
    r = rw(sock, "mark", "--pid", shapes.pid, "training", check=0)
    assert re.match(rf"mark 'training' set on pid {shapes.pid} at \d{{4}}-\d\d-\d\d \d\d:\d\d:\d\d\n", r.stdout)
    wait_census(sock, shapes.pid, "mark")
    time.sleep(1.2)  # CensusMinSpacing
    shapes.proc.send_signal(signal.SIGUSR1)
    shapes.read_until("growth")
    wait_census(sock, shapes.pid, "growth")
    time.sleep(1.5)  # a sample row after the growth
    return d, sock, shapes


# ---------------------------------------------------------------- status, processes


def test_status_and_processes(tmp_path, sockdir, shapes, daemons):
    sock = os.path.join(sockdir, "ramwatch.sock")
    d = daemons(tmp_path, fast_config(f"Watch=pid:{shapes.pid}"), sock)
    wait_census(sock, shapes.pid, "first")

    out = rw(sock, "status", check=0).stdout
    assert out.startswith(f"ramwatchd 0.1.0 (pid {d.pid}), up ")
    assert re.search(r"^configuration  .*ramwatchd\.conf$", out, re.M)
    assert re.search(rf"^database       {re.escape(d.db_path)}, [\d.]+ [KM]iB, schema \d+, writing", out, re.M)
    assert "watched        1 process\n" in out
    assert re.search(r"^censuses       [\d.]+ per minute; \d+ ok", out, re.M)
    assert "last errors" in out
    status = json.loads(rw(sock, "status", "--format", "json", check=0).stdout)
    assert status["watched"] == 1 and isinstance(status["uptime_ms"], int)

    table = rw(sock, "processes", check=0).stdout.splitlines()
    assert table[0].split()[:3] == ["PID", "USER", "PRIVATE"]
    row = next(line for line in table[1:] if line.split()[0] == str(shapes.pid))
    assert "root" in row and "watched" in row and "shapes" in row and "(first)" in row
    listed = json.loads(rw(sock, "processes", "--format", "json", check=0).stdout)["processes"]
    p = next(x for x in listed if x["pid"] == shapes.pid)
    assert p["comm"] == "shapes" and p["watched"] is True
    assert isinstance(p["first_seen"], float) and abs(p["first_seen"] - time.time()) < 120  # seconds
    assert p["private"] > 8 * MiB
    csv = rw(sock, "processes", "--format", "csv", "--sort", "peak", "--all", check=0).stdout.splitlines()
    assert csv[0].startswith("process_id,pid,uid,user,comm,watched,")
    assert any(line.split(",")[1] == str(shapes.pid) for line in csv[1:])

    # --socket before the command, as git -C: the same answer, in either
    # form; after the command it wins, as a later option does
    for before in (["--socket", sock], [f"--socket={sock}"]):
        r = run(*before, "history", "--pid", shapes.pid, "--format", "json", check=0)
        assert json.loads(r.stdout)["instances"][0]["pid"] == shapes.pid
    assert run("--socket", os.path.join(sockdir, "none.sock"), "status", "--socket", sock,
               check=0).stdout.startswith("ramwatchd ")
    r = run("--socket", sock, "status", "--socket", os.path.join(sockdir, "none.sock"), check=1)
    assert "none.sock" in r.stderr

    # the environment names the socket when --socket does not
    r = subprocess.run([RAMWATCH, "status"], capture_output=True, text=True,
                       env=dict(os.environ, RAMWATCH_SOCKET=sock))
    assert r.returncode == 0 and r.stdout.startswith("ramwatchd ")


def test_no_daemon_and_bad_requests(tmp_path, sockdir, shapes, daemons):
    missing = os.path.join(sockdir, "none.sock")
    r = rw(missing, "status", check=1)
    assert r.stderr == (f"ramwatch: cannot connect to ramwatchd at {missing}: No such file or directory — "
                        "is ramwatchd running? (systemctl status ramwatchd)\n")
    for args in (["processes"], ["history", "--pid", "1"], ["report", "--pid", "1"], ["mark", "--pid", "1", "x"],
                 ["events", "--pid", "1"], ["diff", "--pid", "1", "--from", "1h"]):
        assert "is ramwatchd running?" in rw(missing, *args, check=1).stderr

    sock = os.path.join(sockdir, "ramwatch.sock")
    daemons(tmp_path, fast_config(f"Watch=pid:{shapes.pid}"), sock)
    # the daemon's own reasons, as "ramwatch: <error>", exit status 1
    r = rw(sock, "history", "--pid", "4194000", check=1)
    assert r.stderr.startswith("ramwatch: ") and "4194000" in r.stderr and r.stdout == ""
    r = rw(sock, "mark", "--pid", "4194000", "x", check=1)
    assert r.stderr.startswith("ramwatch: ") and "4194000" in r.stderr
    # bad arguments never reach it
    for args in (["history"], ["history", "--pid", "x"], ["history", "--pid", "1", "--since", "yesterday"],
                 ["history", "--pid", "1", "--step", "0s"], ["history", "--pid", "1", "--step", "999us"],
                 ["history", "--pid", "1", "--step", "1.5x"], ["history", "--pid", "1", "--class", "nosuch"],
                 ["history", "--pid", "1", "--since", "now", "--until", "1h"], ["report"],
                 ["report", "--pid", "1", "--format", "csv"], ["mark", "--pid", "1"], ["mark", "--pid", "1", ""],
                 ["mark", "--pid", "1", "x" * 201],
                 ["events", "--pid", "1", "--format", "table"], ["diff", "--pid", "1"],
                 ["processes", "--sort", "size"], ["status", "extra"], ["scan", "--daemon"]):
        r = rw(sock, *args)
        assert r.returncode == 2, (args, r)
        assert "ramwatch: " in r.stderr


def test_global_options_a_command_cannot_use(tmp_path):
    """Global options before the command: each error names the option and
    the command, exit status 2, nothing run."""
    cases = {
        ("--socket", "/run/x.sock", "trace", "summary", "-"): "ramwatch: 'trace' has no --socket option\n",
        ("--db", "/x.db", "status"): "ramwatch: 'status' has no --db option\n",
        ("--socket",): "ramwatch: --socket needs a value\n",
        ("--socket", "/a", "--socket", "/b", "status"): "ramwatch: --socket is given twice\n",
        ("--sockets", "/a", "status"): "ramwatch: unknown option '--sockets' before the command\n",
        ("--socket", "/a", "nosuch"): "ramwatch: unknown command 'nosuch'\n",
    }
    for args, message in cases.items():
        r = run(*args)
        assert r.returncode == 2 and r.stderr.startswith(message) and r.stdout == "", (args, r)
    # --db before sql opens that database (a missing one is said so)
    r = run("--db", tmp_path / "none.db", "sql", "SELECT 1", check=1)
    assert f"cannot open {tmp_path / 'none.db'}" in r.stderr
    assert "Global options" in run("--help", check=0).stdout


# ---------------------------------------------------------------- history


def test_history_shows_growth_census_and_mark(grown):
    d, sock, shapes = grown
    lines = rw(sock, "history", "--pid", shapes.pid, "--since", "10min", check=0).stdout.splitlines()
    assert lines[0].startswith(f"shapes [{shapes.pid}] ")
    assert lines[1].split() == ["TIME", "PRIVATE", "PRIVATE", "MAX", "RESIDENT", "RESIDENT", "MAX"]
    time_re = r"\d{4}-\d\d-\d\d \d\d:\d\d:\d\d"
    # through a pipe, plain ASCII around the data
    mark = next(i for i, line in enumerate(lines) if re.fullmatch(rf"{time_re}  -- mark: training --", line))
    growth = next(i for i, line in enumerate(lines) if re.match(rf"{time_re}  census #\d+ \(growth\): ", line))
    first = next(i for i, line in enumerate(lines) if re.match(rf"{time_re}  census #\d+ \(first\): ", line))
    assert first < mark < growth
    # the growth census names its classes, the largest first: the 48 MiB
    # malloc block (its chunk header read) and the 64 MiB that grew, other
    # (of which the census may have come at 32 MiB), malloc with its memory
    # in use where the census read glibc's heap
    assert re.search(r"\(growth\): private [\d.]+ MiB, resident [\d.]+ MiB; (malloc|other) [\d.]+ MiB"
                     r"( \([\d.]+ [KM]iB in use\))?, (malloc|other) ", lines[growth]), lines[growth]
    samples = [line for line in lines[2:] if re.fullmatch(rf"{time_re}(\s+[\d.]+ [KMG]?i?B){{4}}", line)]
    assert len(samples) >= 3
    # time order, and the rows after the growth hold it
    times = [line[:19] for line in lines[2:]]
    assert times == sorted(times)
    after = [line for line in lines[growth + 1:] if line in samples]
    assert after and size(*after[-1].split()[2:4]) >= size(*samples[0].split()[2:4]) + 60 * MiB

    # on a terminal the mark's line is drawn, unless NO_COLOR or TERM=dumb says not to
    assert "── mark: training ──" in on_terminal(sock, "history", "--pid", shapes.pid, "--since", "10min")
    for env in ({"NO_COLOR": "1"}, {"TERM": "dumb"}):
        out = on_terminal(sock, "history", "--pid", shapes.pid, "--since", "10min", env=env)
        assert "-- mark: training --" in out and "──" not in out, env

    # --class: the census lines name those classes
    out = rw(sock, "history", "--pid", shapes.pid, "--class", "other,malloc", check=0).stdout
    # (malloc with its memory in use where the census read glibc's heap)
    assert re.search(r"\(growth\): private .*; other [\d.]+ MiB, malloc [\d.]+ [KM]iB( \([\d.]+ [KM]iB in use\))?"
                     r"(; in use not read)?$", out, re.M), out

    # JSON and CSV for programs: times in unix seconds
    h = history(sock, shapes.pid)
    assert [i["pid"] for i in h["instances"]] == [shapes.pid]
    g = [c for c in h["censuses"] if c["trigger"] == "growth"][0]
    f = [c for c in h["censuses"] if c["trigger"] == "first"][0]
    # the census came when private had grown by CensusOnGrowth (32 MiB)
    assert g["classes"]["other"]["private"] - f["classes"]["other"]["private"] >= 32 * MiB
    assert [m["name"] for m in h["marks"]] == ["training"]
    assert abs(h["marks"][0]["time"] - time.time()) < 120
    assert "next" not in h
    csv = rw(sock, "history", "--pid", shapes.pid, "--format", "csv", check=0).stdout.splitlines()
    # the columns a script reads by their place keep it: a counter the
    # row gains comes after them (test-sample-row checks each one's column)
    assert (csv[0] + ",").startswith("time,process_id,pid,kind,name,status,private,private_min,private_max,"
                                     "resident,resident_min,resident_max,swap,")
    kinds = {line.split(",")[3] for line in csv[1:]}
    assert kinds == {"sample", "census", "class", "mark"}
    mark_row = next(line for line in csv if ",mark," in line).split(",")
    assert mark_row[4] == "training" and abs(float(mark_row[0]) - h["marks"][0]["time"]) < 0.001

    # --step: fewer, coarser rows
    coarse = history(sock, shapes.pid, "--step", "1h")
    assert 1 <= len(coarse["samples"]) < len(h["samples"])
    # the configuration's forms: decimals, bare seconds, parts; one meaning.
    # The daemon keeps sampling: a store tick between two queries extends
    # the row that spans --until (its count of samples grows), so the three
    # are compared when the first form asked again gives the same answer.
    until = f"@{h['samples'][-1]['time']}"
    for _ in range(5):
        forms = [history(sock, shapes.pid, "--step", step, "--until", until)["samples"]
                 for step in ("1.5h", "5400", "1h 30min", "1.5h")]
        if forms[0] == forms[3]:
            break
    assert forms[0] == forms[3], "a store tick came between every try"
    assert forms[0] == forms[1] == forms[2]
    # --since/--until bound the rows
    later = history(sock, shapes.pid, "--since", f"@{g['time']}")
    assert all(s["time"] >= g["time"] - 1 for s in later["samples"])
    assert [c["trigger"] for c in later["censuses"]] == ["growth"]


def test_history_by_name_labels_each_instance(tmp_path, sockdir, daemons):
    sock = os.path.join(sockdir, "ramwatch.sock")
    os.makedirs(tmp_path / "a")
    os.makedirs(tmp_path / "b")
    a = start_shapes(tmp_path / "a")
    b = start_shapes(tmp_path / "b")
    try:
        daemons(tmp_path, fast_config(f"Watch=pid:{a.pid}\nWatch=pid:{b.pid}"), sock)
        wait_census(sock, a.pid, "first")
        wait_census(sock, b.pid, "first")
        out = rw(sock, "history", "--name", "shapes", check=0).stdout
        heads = re.findall(r"^shapes \[(\d+)\] (?:started|first seen) \d{4}-\d\d-\d\d \d\d:\d\d:\d\d", out, re.M)
        assert sorted(map(int, heads)) == sorted([a.pid, b.pid])
    finally:
        stop(a.proc)
        stop(b.proc)


# ---------------------------------------------------------------- report, diff


def test_report_markdown(grown, tmp_path):
    d, sock, shapes = grown
    md = rw(sock, "report", "--pid", shapes.pid, check=0).stdout
    assert md.startswith(f"# Memory report: shapes (pid {shapes.pid})\n")
    # the peak and when
    m = re.search(r"^Peak private memory \*\*([\d.]+) MiB\*\* at \d{4}-\d\d-\d\d \d\d:\d\d:\d\d", md, re.M)
    assert m and float(m.group(1)) >= 64
    # peaks by phase: the start and the phase the mark began
    assert "## Peaks by phase" in md
    assert re.search(r"^\| \(start\) \| ", md, re.M)
    training = re.search(r"^\| training \| .* \| \+([\d.]+) MiB \|$", md, re.M)
    assert training and float(training.group(1)) >= 60
    # the class table, largest regions and files of the last census
    for section in ("## The last census", "### Memory by class", "### Largest regions",
                    "### Mapped files and libraries", "## RAM after each census", "## New since the previous census"):
        assert section in md, section
    assert re.search(r"^\| other \| [\d.]+ MiB \| ", md, re.M)
    assert re.search(r"^\| #\d+ \| .* \| growth \| ", md, re.M)
    # what is new since the previous census: other grew first, by what the
    # two stored censuses say
    ok = [c for c in history(sock, shapes.pid)["censuses"] if c["status"] == "ok"]
    before, last = ok[-2]["classes"]["other"]["private"], ok[-1]["classes"]["other"]["private"]
    assert last - before >= 32 * MiB
    new = md[md.index("## New since the previous census"):]
    assert f"From census #{ok[-2]['census_id']} (" in new and f"to census #{ok[-1]['census_id']}." in new
    rows = re.findall(r"^\| (\w+) \| [\d.]+ [KM]?i?B \| [\d.]+ [KM]?i?B \| ([+-][\d.]+) (\w+) \|$", new, re.M)
    assert rows[0][0] == "other"
    assert abs(size(rows[0][1][1:], rows[0][2]) - (last - before)) < 0.01 * (last - before)

    # --out writes the same, atomically; JSON has times in seconds
    out = tmp_path / "report.md"
    assert rw(sock, "report", "--pid", shapes.pid, "--out", out, check=0).stdout == ""
    assert out.read_text().startswith(f"# Memory report: shapes (pid {shapes.pid})\n")
    assert not [p for p in os.listdir(tmp_path) if p.startswith("report.md") and p != "report.md"]
    j = json.loads(rw(sock, "report", "--pid", shapes.pid, "--format", "json", check=0).stdout)
    assert j["peak"]["private"] >= 64 * MiB and isinstance(j["peak"]["time"], float)
    assert [p["name"] for p in j["phases"]] == ["(start)", "training"]
    assert j["last_census"]["trigger"] == "growth"
    # the stored census has every counter the census read from status, close
    # to what the kernel gives now.  The growth census is triggered by the
    # sample that crosses the threshold, which may come while the helper is
    # still touching its 64 MiB: its RssAnon lies between the level before
    # the growth and the kernel's now (a few pages more for the runtime and
    # a sanitizer's); the other counters do not move.  The exact check is
    # private = RssAnon + VmSwap of the same read, below
    counters = j["last_census"]["counters"]
    now = kernel_status(shapes.pid)
    for key, field in (("rss_anon", "RssAnon"), ("rss_file", "RssFile"), ("rss_shmem", "RssShmem"),
                       ("swap", "VmSwap"), ("locked", "VmLck"), ("hugetlb", "HugetlbPages")):
        assert isinstance(counters[key], int), (key, counters)
        below = 68 * MiB if key == "rss_anon" else 4 * MiB
        assert now[field] - below <= counters[key] <= now[field] + 4 * MiB, (key, counters[key], now[field])
    assert counters["rss_anon"] >= 64 * MiB
    assert counters["private"] == counters["rss_anon"] + counters["swap"]
    # and the Markdown says the private figure, not unknown
    m = re.search(r"^Kernel counters \(status\): private ([\d.]+) (MiB|GiB), resident ", md, re.M)
    assert m, md
    # as exact as the figure is printed: half its last digit ("108 MiB" is 107.5 to 108.5)
    decimals = len(m.group(1).partition(".")[2])
    assert abs(size(m.group(1), m.group(2)) - counters["private"]) <= size(0.5 * 10 ** -decimals, m.group(2))


def test_diff_between_stored_censuses(grown, tmp_path):
    d, sock, shapes = grown
    h = history(sock, shapes.pid)
    first = [c for c in h["censuses"] if c["trigger"] == "first"][0]
    growth = [c for c in h["censuses"] if c["trigger"] == "growth"][0]
    out = rw(sock, "diff", "--pid", shapes.pid, "--from", f"@{first['time']}", "--to", f"@{growth['time']}",
             check=0).stdout.splitlines()
    assert out[0] == (f"census #{first['census_id']} (first) at {local(first['time'])} -> "
                      f"census #{growth['census_id']} (growth) at {local(growth['time'])}")
    head = out.index(next(line for line in out if line.startswith("CLASS")))
    top = out[head + 1].split()
    assert top[0] == "other" and top[5].startswith("+")
    assert size(top[5][1:], top[6]) >= 32 * MiB  # CensusOnGrowth
    md = rw(sock, "diff", "--pid", shapes.pid, "--from", f"@{first['time']}", "--markdown", check=0).stdout
    assert "## Memory change" in md and re.search(r"^\| other \| ", md, re.M)
    # the same census twice is said so
    r = rw(sock, "diff", "--pid", shapes.pid, "--from", f"@{first['time']}", "--to", f"@{first['time']}", check=1)
    assert "fall on the same census" in r.stderr
    # first and last name the ends
    ok_ids = [c["census_id"] for c in h["censuses"] if c["status"] == "ok"]
    out = rw(sock, "diff", "--pid", shapes.pid, "--from", "first", "--to", "last", check=0).stdout.splitlines()
    assert out[0].startswith(f"census #{first['census_id']} (first) at {local(first['time'])} -> census #")
    assert int(out[0].split(" -> census #")[1].split()[0]) >= max(ok_ids)
    # before the first census: the time as this client writes times, and what there is
    before = first["time"] - 60
    r = rw(sock, "diff", "--pid", shapes.pid, "--from", f"@{before}", check=1)
    assert r.stderr.strip() == (f"ramwatch: no census of process {shapes.pid} (shapes) at or before {local(before)}: "
                                f"the first is census #{first['census_id']} at {local(first['time'])} (--from first)")
    # the saved-file form still works
    a, b = tmp_path / "a.json", tmp_path / "b.json"
    run("scan", shapes.pid, "--out", a, check=0)
    run("scan", shapes.pid, "--out", b, check=0)
    assert run("diff", a, b, check=0).stdout.startswith("before: shapes")
    j = json.loads(run("diff", a, b, "--format", "json", check=0).stdout)
    assert j["from"]["census_id"] is None and "regions" not in j  # saved files have no region events
    other = next(c for c in j["classes"] if c["class"] == "other")
    assert other["private"] == other["private_before"] >= 64 * MiB  # the process held still


# A process whose regions change in known ways between two commands:
# "before" maps A (20 MiB, touched), B (32 MiB, 8 touched) and C (16 MiB,
# touched); "after" unmaps A, touches the rest of B (+24 MiB private),
# gives 12 MiB of C back (MADV_DONTNEED) and maps D (40 MiB, touched).  Each
# region ends in 64 KiB of PROT_NONE, so that the kernel does not merge
# neighbours into one mapping.  It prints each region's address.
REGIONS = r"""
import ctypes, json, sys
libc = ctypes.CDLL(None, use_errno=True)
libc.mmap.restype = ctypes.c_void_p
libc.mmap.argtypes = [ctypes.c_void_p, ctypes.c_size_t, ctypes.c_int, ctypes.c_int, ctypes.c_int, ctypes.c_long]
for f in (libc.munmap, libc.mprotect, libc.madvise):
    f.argtypes = [ctypes.c_void_p, ctypes.c_size_t] + ([ctypes.c_int] if f is not libc.munmap else [])
MiB, GUARD = 1 << 20, 64 << 10
def region(mib, touched_mib):
    p = libc.mmap(None, mib * MiB + GUARD, 0, 0x22, -1, 0)  # PROT_NONE, MAP_PRIVATE|MAP_ANONYMOUS
    assert p not in (None, ctypes.c_void_p(-1).value)
    assert libc.mprotect(p, mib * MiB, 3) == 0  # PROT_READ|PROT_WRITE
    touch(p, touched_mib)
    return p
def touch(p, mib):
    for off in range(0, mib * MiB, 4096):
        ctypes.c_char.from_address(p + off).value = b"x"
r = {}
for line in sys.stdin:
    if line.strip() == "before":
        r["a"], r["b"], r["c"] = region(20, 20), region(32, 8), region(16, 16)
    elif line.strip() == "after":
        assert libc.munmap(r["a"], 20 * MiB + GUARD) == 0
        touch(r["b"], 32)
        assert libc.madvise(r["c"], 12 * MiB, 4) == 0  # MADV_DONTNEED
        r["d"] = region(40, 40)
    print(json.dumps({k: hex(v) for k, v in r.items()}), flush=True)
"""


def test_diff_lists_region_changes(tmp_path, sockdir, daemons):
    sock = os.path.join(sockdir, "ramwatch.sock")
    proc = subprocess.Popen(["/usr/bin/python3", "-c", REGIONS], stdin=subprocess.PIPE, stdout=subprocess.PIPE,
                            text=True)
    try:
        proc.stdin.write("before\n")
        proc.stdin.flush()
        before = json.loads(proc.stdout.readline())
        daemons(tmp_path, fast_config(f"Watch=pid:{proc.pid}"), sock)
        wait_census(sock, proc.pid, "first")
        time.sleep(1.2)  # CensusMinSpacing
        proc.stdin.write("after\n")
        proc.stdin.flush()
        after = json.loads(proc.stdout.readline())
        assert after["a"] == before["a"]
        rw(sock, "mark", "--pid", proc.pid, "after", check=0)
        wait_census(sock, proc.pid, "mark")

        j = json.loads(rw(sock, "diff", "--pid", proc.pid, "--from", "first", "--to", "last", "--format", "json",
                          check=0).stdout)
        assert j["from"]["census_id"] < j["to"]["census_id"]
        by_start = {x["start"]: x for x in j["regions"]}
        a, b, c, d = (by_start[after[k]] for k in "abcd")
        assert (a["kind"], a["size_before"], a["private_before"], a["size"], a["private"]) == \
            ("disappeared", 20 * MiB, 20 * MiB, 0, 0)
        assert (b["kind"], b["size_before"], b["size"], b["private_before"], b["private"]) == \
            ("grew", 32 * MiB, 32 * MiB, 8 * MiB, 32 * MiB)
        assert (c["kind"], c["size"], c["private_before"], c["private"]) == ("shrank", 16 * MiB, 16 * MiB, 4 * MiB)
        assert (d["kind"], d["size_before"], d["size"], d["private"]) == ("appeared", 0, 40 * MiB, 40 * MiB)
        # the class the census gave each (the classifier's word; a guarded
        # mapping reads as a stack), and no path: anonymous memory
        assert all(x["class"] and x["path"] is None for x in (a, b, c, d)), (a, b, c, d)
        # largest first: 40, 24, 20 and 12 MiB
        order = [x["start"] for x in j["regions"]]
        assert [order.index(after[k]) for k in "dbac"] == sorted(order.index(after[k]) for k in "dbac")

        # the text gives the same after the classes, with addresses as the kernel writes them
        out = rw(sock, "diff", "--pid", proc.pid, "--from", "first", check=0).stdout
        assert out.index("Change by class") < out.index("Regions that appeared, grew, shrank or disappeared")
        rows = {line.split()[10]: line.split() for line in out.splitlines()
                if re.match(r"^(appeared|disappeared|grew|shrank) ", line)}
        assert rows[after["d"][2:]][:5] == ["appeared", "40.0", "MiB", "+40.0", "MiB"]
        assert rows[after["a"][2:]][0] == "disappeared" and rows[after["b"][2:]][0] == "grew"
        md = rw(sock, "diff", "--pid", proc.pid, "--from", "first", "--markdown", check=0).stdout
        assert "### Regions that appeared, grew, shrank or disappeared, largest first" in md
        assert re.search(rf"^\| grew \| 32\.0 MiB \| 0 B \| 32\.0 MiB \| \+24\.0 MiB \| {b['class']} \| {after['b'][2:]} \|",
                         md, re.M), md
    finally:
        stop(proc)


def on_terminal(sock, *args, env=None):
    """The standard output of ramwatch args run on a pseudo-terminal."""
    import pty
    main, secondary = pty.openpty()
    environment = dict(os.environ, TERM="xterm")
    environment.pop("NO_COLOR", None)
    environment.update(env or {})
    p = subprocess.Popen([RAMWATCH, *map(str, args), "--socket", sock], stdout=secondary, stderr=subprocess.PIPE,
                         env=environment)
    os.close(secondary)
    out = b""
    while True:
        try:
            chunk = os.read(main, 65536)
        except OSError:  # EIO: the other end closed
            break
        if not chunk:
            break
        out += chunk
    os.close(main)
    assert p.wait(timeout=30) == 0, p.stderr.read()
    return out.decode().replace("\r\n", "\n")


def kernel_status(pid):
    """The memory counters of /proc/PID/status, in bytes."""
    with open(f"/proc/{pid}/status") as f:
        return {k: int(v.split()[0]) * 1024 for k, v in (line.split(":", 1) for line in f) if v.strip().endswith("kB")}


def size(number, unit):
    """Bytes of a size as the tables print it: "64.0", "MiB"."""
    return float(number) * {"B": 1, "KiB": 1024, "MiB": MiB, "GiB": 1024 * MiB}[unit]


def local(seconds):
    return time.strftime("%Y-%m-%d %H:%M:%S", time.localtime(int(seconds)))


# ---------------------------------------------------------------- scan through the daemon


def test_scan_by_the_daemon(tmp_path, sockdir, shapes, daemons):
    sock = os.path.join(sockdir, "ramwatch.sock")
    daemons(tmp_path, fast_config(f"Watch=pid:{shapes.pid}"), sock)
    wait_census(sock, shapes.pid, "first")
    c = json.loads(rw(sock, "scan", shapes.pid, "--daemon", "--json", check=0).stdout)
    assert c["process"]["pid"] == shapes.pid and c["format"] == "ramwatch-census"
    assert sum(k["private"] for k in c["classes"]) == c["totals"]["private"]
    # a watched process's census is stored
    wait_census(sock, shapes.pid, "request")
    out = rw(sock, "scan", shapes.pid, "--daemon", check=0).stdout
    assert out.startswith(f"shapes (pid {shapes.pid}, uid 0): private ")


# ---------------------------------------------------------------- another user


@pytest.fixture
def two_users(unprivileged_user, tmp_path, sockdir, shapes, daemons):
    """A daemon watching root's shapes and the unprivileged user's."""
    own_dir = tempfile.mkdtemp(prefix="rw-user-", dir="/tmp")
    os.chmod(own_dir, 0o777)
    theirs = start_shapes(own_dir, user=unprivileged_user)
    sock = os.path.join(sockdir, "ramwatch.sock")
    d = daemons(tmp_path, fast_config(f"Watch=pid:{shapes.pid}\nWatch=pid:{theirs.pid}"), sock)
    wait_census(sock, shapes.pid, "first")
    wait_census(sock, theirs.pid, "first")
    yield d, sock, shapes, theirs, unprivileged_user
    stop(theirs.proc)
    shutil.rmtree(own_dir, ignore_errors=True)


def test_other_users_see_their_own(two_users):
    d, sock, shapes, theirs, user = two_users
    r = rw(sock, "processes", user=user, check=0)
    pids = [int(line.split()[0]) for line in r.stdout.splitlines()[1:]]
    assert pids == [theirs.pid]
    assert "only your own processes" in r.stderr
    listed = json.loads(rw(sock, "processes", "--format", "json", user=user, check=0).stdout)
    assert [p["pid"] for p in listed["processes"]] == [theirs.pid]
    assert listed["filtered_to_uid"] == int(subprocess.check_output(["id", "-u", user]))
    # root sees both
    root_pids = {p["pid"] for p in json.loads(rw(sock, "processes", "--format", "json", check=0).stdout)["processes"]}
    assert {shapes.pid, theirs.pid} <= root_pids

    # another's history is refused with the daemon's reason
    r = rw(sock, "history", "--pid", shapes.pid, user=user, check=1)
    assert r.stdout == ""
    assert r.stderr.startswith("ramwatch: ") and "belongs to uid 0" in r.stderr
    for args in (["report", "--pid", shapes.pid], ["mark", "--pid", shapes.pid, "x"],
                 ["events", "--pid", shapes.pid], ["diff", "--pid", shapes.pid, "--from", "now"]):
        r = rw(sock, *args, user=user, check=1)
        assert "belongs to uid 0" in r.stderr, args
    # ... and their own is theirs
    assert f"shapes [{theirs.pid}]" in rw(sock, "history", "--pid", theirs.pid, user=user, check=0).stdout
    assert rw(sock, "mark", "--pid", theirs.pid, "mine", user=user, check=0).stdout.startswith("mark 'mine'")


def test_scan_falls_back_to_the_daemon(two_users):
    d, sock, shapes, theirs, user = two_users
    # root's process: not readable, so the daemon is asked, and refuses
    r = rw(sock, "scan", shapes.pid, user=user, check=1)
    assert r.stdout == ""
    lines = r.stderr.splitlines()
    assert lines[0] == f"ramwatch: permission denied reading /proc/{shapes.pid}/smaps; asking ramwatchd"
    assert lines[1].startswith("ramwatch: ") and "belongs to uid 0" in lines[1]
    # without a daemon: the original error and why the daemon could not help
    missing = os.path.join(os.path.dirname(sock), "none.sock")
    r = rw(missing, "scan", shapes.pid, user=user, check=1)
    assert f"permission denied reading /proc/{shapes.pid}/smaps" in r.stderr
    assert "belongs to uid 0" in r.stderr and "CAP_SYS_PTRACE" in r.stderr
    assert f"ramwatchd could not help: cannot connect to ramwatchd at {missing}: No such file" in r.stderr
    # their own process: read directly, or by the daemon when asked
    c = json.loads(rw(sock, "scan", theirs.pid, "--json", user=user, check=0).stdout)
    assert c["process"]["pid"] == theirs.pid
    r = rw(sock, "scan", theirs.pid, "--daemon", "--json", user=user, check=0)
    assert json.loads(r.stdout)["process"]["pid"] == theirs.pid and "asking" not in r.stderr
    r = rw(sock, "scan", shapes.pid, "--daemon", user=user, check=1)
    assert "belongs to uid 0" in r.stderr


# ---------------------------------------------------------------- events → trace summary


class MapFiles:
    def __init__(self, directory):
        self.proc = subprocess.Popen([os.path.join(HELPERS, "mapfiles"), str(directory)], stdin=subprocess.PIPE,
                                     stdout=subprocess.PIPE, text=True)
        assert self.proc.stdout.readline() == "ready\n"
        self.pid = self.proc.pid

    def do(self, command):
        self.proc.stdin.write(command + "\n")
        self.proc.stdin.flush()
        answer = json.loads(self.proc.stdout.readline())
        wait_idle_read(self.pid)
        return answer


def wait_idle_read(pid, timeout=5):
    """Waits until the helper sleeps reading its next command."""
    deadline = time.time() + timeout
    while time.time() < deadline:
        with open(f"/proc/{pid}/stat") as f:
            if f.read().rsplit(")", 1)[1].split()[0] == "S":
                return
        time.sleep(0.01)


def scope_lines(summary):
    return [line.split()[0] for line in summary.splitlines() if line.startswith("root/")]


def field(summary, scope, name):
    line = next(line for line in summary.splitlines() if line.startswith(scope + " "))
    return int(re.search(rf" {name}=(\d+)", line).group(1))


def test_events_to_trace_summary(tmp_path, sockdir, daemons):
    helper = MapFiles(tmp_path)
    try:
        sock = os.path.join(sockdir, "ramwatch.sock")
        daemons(tmp_path, fast_config(f"Watch=pid:{helper.pid}"), sock)
        wait_census(sock, helper.pid, "first")
        # kept: 64 MiB of anonymous memory; churned: three 32 MiB data files
        # mapped and read, two of them unmapped again.  After each step a
        # census by request, so each change is a region event.
        for command in ("anon", "file", "unmap", "file", "unmap", "file"):
            helper.do(command)
            stored = len(censuses(sock, helper.pid))
            rw(sock, "scan", helper.pid, "--daemon", "--json", check=0)
            # the daemon stores it a moment later
            wait_for(lambda: len(censuses(sock, helper.pid)) > stored, what="the requested census")

        events = json.loads(rw(sock, "events", "--pid", helper.pid, check=0).stdout)
        assert events["instance"]["pid"] == helper.pid
        files = [e for e in events["events"] if e["class"] == "mapped_files" and e["size"] + e["size_before"] == 32 * MiB]
        assert [e["kind"] for e in files] == ["appeared", "disappeared", "appeared", "disappeared", "appeared"]
        assert all(isinstance(e["time"], float) for e in events["events"])

        trace = rw(sock, "events", "--pid", helper.pid, "--format", "memtrace", check=0).stdout
        lines = trace.splitlines()
        assert json.loads(lines[0])["kind"] == "trace.start" and json.loads(lines[-1])["kind"] == "trace.stop"
        assert [json.loads(line)["seq"] for line in lines] == list(range(1, len(lines) + 1))

        kept = subprocess.run([RAMWATCH, "trace", "summary", "--layer", "physical", "-"], input=trace,
                              capture_output=True, text=True, check=True).stdout
        assert kept.startswith("memtrace capture_integrity=complete ")
        assert "memtrace physical maps=" in kept
        # what each class kept: the anonymous memory first
        assert scope_lines(kept)[0] == "root/other"
        assert field(kept, "root/other", "retained_bytes") >= 64 * MiB
        assert field(kept, "root/mapped_files", "retained_bytes") == 32 * MiB
        assert field(kept, "root/mapped_files", "allocations") == 3
        assert field(kept, "root/mapped_files", "frees") == 2
        assert field(kept, "root/mapped_files", "completed_lifetimes") == 2
        # what each class churned: the files first
        churned = subprocess.run([RAMWATCH, "trace", "summary", "--layer", "physical", "--sort", "traffic", "-"],
                                 input=trace, capture_output=True, text=True, check=True).stdout
        assert scope_lines(churned)[0] == "root/mapped_files"
        assert field(churned, "root/mapped_files", "allocated_bytes") == 96 * MiB

        # the pipe itself, as a user types it
        piped = subprocess.run(f"{RAMWATCH} events --socket {sock} --pid {helper.pid} --format memtrace | "
                               f"{RAMWATCH} trace summary --layer physical -", shell=True, capture_output=True,
                               text=True, check=True).stdout
        assert scope_lines(piped)[:2] == ["root/other", "root/mapped_files"]
    finally:
        helper.proc.stdin.close()
        helper.proc.wait(timeout=10)
