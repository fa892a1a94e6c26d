"""ramwatch.exe asking ramwatchd.exe under Wine (Debian's wine64): the
daemon's commands beyond status, over its pipe, as a user runs them.  One
console daemon (--foreground) watches the ground-truth holder
(tests/windows/holder.c) as it grows its commit in two steps and then
allocates heap blocks; then processes lists it, history --pid shows the
growth and a census at each step, report names the heap (malloc) and the
private memory of its own (other), events and diff --pid say what came
between two censuses, mark starts a phase and takes a census, metrics
gives the holder's memory, sql reads the daemon's database, oom and
cgroups answer empty with Windows's reason, and what the daemon on
Windows does not serve (scan, a cgroup's history) is refused by name,
by the client and by the daemon, which goes on answering.

Under Wine every process is the tester's and the tester is an
Administrator, so what a second account sees cannot be shown here (the
rule is unit-tested: test-control-access, test-store-read, test-store-oom).
Run by make check-windows."""
import json
import os
import re
import subprocess
import time

import pytest

from test_win_daemon import HOLDER, PIPEPOKE, RAMWATCHD, Daemon, Holder, poke, wait_for
from wine import EXE, LINUX, WINE, session, winpath

MiB = 1024 ** 2


@pytest.fixture(scope="module")
def wine_env():
    yield from session(((RAMWATCHD, "ramwatchd.exe (make windows)"), (HOLDER, "holder.exe (make check-windows)"),
                        (PIPEPOKE, "pipepoke.exe (make check-windows)"), (LINUX, "build/ramwatch")))


def rw(env, *args, check=True):
    """ramwatch.exe ARGS under Wine: the finished run."""
    r = subprocess.run([WINE, EXE, *args], env=env, capture_output=True, text=True, timeout=120)
    if check:
        assert r.returncode == 0, (args, r.stdout, r.stderr)
    return r


def rw_json(env, *args):
    return json.loads(rw(env, *args).stdout)


class Watched:
    """The daemon, its pipe and the holder it watches, grown."""

    def __init__(self, env, state):
        self.env = env
        self.pipe = r"\\.\pipe\ramwatchd-requests-%d" % os.getpid()
        self.holder = Holder(env)
        self.daemon = Daemon(env, state, self.pipe)
        self.pid = str(self.holder.pid)

    def ask(self, command, *args, check=True):
        return rw(self.env, command, "--pipe", self.pipe, *args, check=check)

    def ask_json(self, command, *args):
        return json.loads(self.ask(command, *args, "--format", "json").stdout)

    def censuses(self):
        r = self.ask("history", "--pid", self.pid, "--format", "json", check=False)
        return json.loads(r.stdout)["censuses"] if r.returncode == 0 else []


@pytest.fixture(scope="module")
def watched(wine_env, tmp_path_factory):
    w = Watched(wine_env, str(tmp_path_factory.mktemp("requests") / "state"))
    try:
        wait_for("first census", lambda: len(w.censuses()) >= 1, limit=90)
        # the commit in two steps, then the heap: a census at each
        for n, (kind, mib) in enumerate((("commit", 48), ("commit", 48), ("heap", 64)), start=2):
            w.holder.grow(kind, mib)
            wait_for(f"census {n}", lambda: len(w.censuses()) >= n)
        # a store cycle after the heap's growth, for the samples
        time.sleep(1.5)
        yield w
    finally:
        code = w.daemon.stop()
        w.holder.stop()
        assert code == 0, w.daemon.logged()


def test_processes(watched):
    answer = watched.ask_json("processes")
    [p] = [p for p in answer["processes"] if p["pid"] == watched.holder.pid]
    assert p["comm"] == "holder.exe" and p["platform"] == "windows" and p["watched"] is True
    assert p["uid"] is None and p["user"]
    assert p["private"] >= 160 * MiB and p["peak_private"] >= p["private"]
    assert p["last_census"]["status"] == "ok"
    table = watched.ask("processes").stdout
    assert re.search(r"^\s*%d\s.*holder\.exe" % watched.holder.pid, table, re.M), table


def test_history_shows_the_growth(watched):
    h = watched.ask_json("history", "--pid", watched.pid)
    [instance] = h["instances"]
    assert instance["comm"] == "holder.exe"
    private = [s["private_max"] for s in h["samples"]]
    assert len(private) >= 3
    # two steps of 48 MiB of commit and 64 MiB of heap, in order
    assert private[-1] - private[0] >= 150 * MiB
    assert private == sorted(private) or max(private) - private[-1] < 8 * MiB
    censuses = [c for c in h["censuses"] if c["status"] == "ok"]
    assert [c["trigger"] for c in censuses][:4] == ["first", "growth", "growth", "growth"]
    # each census at growth found the memory of its step
    first, step1, step2, heap = censuses[:4]
    assert step1["classes"]["other"]["private"] - first["classes"].get("other", {}).get("private", 0) >= 44 * MiB
    assert step2["classes"]["other"]["private"] - step1["classes"]["other"]["private"] >= 44 * MiB
    assert heap["classes"]["malloc"]["private"] - step2["classes"].get("malloc", {}).get("private", 0) >= 60 * MiB
    table = watched.ask("history", "--pid", watched.pid).stdout
    assert "holder.exe" in table and "growth" in table, table


def test_report_names_heap_and_private(watched):
    report = watched.ask_json("report", "--pid", watched.pid)
    assert report["process"]["comm"] == "holder.exe" and report["process"]["watched"] is True
    assert report["peak"]["private"] >= 160 * MiB
    classes = report["last_census"]["classes"]
    malloc = next(c for c in classes if c["key"] == "malloc") if isinstance(classes, list) else classes["malloc"]
    other = next(c for c in classes if c["key"] == "other") if isinstance(classes, list) else classes["other"]
    assert malloc["private"] >= 64 * MiB and other["private"] >= 96 * MiB
    markdown = watched.ask("report", "--pid", watched.pid).stdout
    assert "holder.exe" in markdown and "malloc" in markdown and "other" in markdown, markdown


def test_events_and_diff(watched):
    events = watched.ask_json("events", "--pid", watched.pid)
    kinds = {e["kind"] for e in events["events"]}
    assert "appeared" in kinds or "grew" in kinds, events
    diff = watched.ask("diff", "--pid", watched.pid, "--from", "first", "--to", "last").stdout
    assert re.search(r"^\s*malloc\b", diff, re.M) and re.search(r"^\s*other\b", diff, re.M), diff


def test_mark_takes_a_census(watched):
    before = len(watched.censuses())
    r = watched.ask("mark", "--pid", watched.pid, "after-heap")
    assert r.returncode == 0, r.stderr
    wait_for("census of the mark", lambda: len(watched.censuses()) > before)
    h = watched.ask_json("history", "--pid", watched.pid)
    assert [m["name"] for m in h["marks"]] == ["after-heap"]
    assert any(c["trigger"] == "mark" for c in h["censuses"])


def test_metrics(watched):
    text = watched.ask("metrics").stdout
    m = re.search(r'^ramwatch_process_memory_bytes\{group="holder\.exe",kind="private"\} (\d+)', text, re.M)
    assert m and int(m.group(1)) >= 160 * MiB, text
    m = re.search(r'^ramwatch_memory_bytes\{group="holder\.exe",class="malloc",kind="private"\} (\d+)', text, re.M)
    assert m and int(m.group(1)) >= 64 * MiB, text
    assert re.search(r"^ramwatch_watched_processes 1$", text, re.M), text


def test_sql_reads_the_daemons_database(watched):
    db = winpath(watched.daemon.db)
    rows = rw_json(watched.env, "sql", "--db", db, "--format", "json",
                   f"SELECT platform, comm, owner FROM processes WHERE pid = {watched.holder.pid}")
    assert len(rows) == 1 and rows[0]["platform"] == "windows" and rows[0]["comm"] == "holder.exe"
    assert rows[0]["owner"]


def test_oom_and_cgroups_say_why_they_are_empty(watched):
    r = watched.ask("oom")
    assert "Windows has no OOM killer" in r.stderr, r.stderr
    assert watched.ask_json("oom")["kills"] == []
    r = watched.ask("cgroups")
    assert "Windows has no memory cgroups" in r.stderr, r.stderr
    assert watched.ask_json("cgroups")["cgroups"] == []


def test_what_windows_does_not_serve_is_refused(watched):
    r = watched.ask("history", "--cgroup", "/system.slice", check=False)
    assert r.returncode != 0 and "is not served on this platform" in r.stderr, r.stderr
    r = watched.ask("top", check=False)
    assert r.returncode == 1 and "curses" in r.stderr, r.stderr
    # the daemon itself says so to a client that asks anyway, and goes on
    out = poke(watched.env, watched.pipe, "line", '{"op":"scan","pid":%d}' % watched.holder.pid)
    assert out[0]["ok"] is False and out[0]["code"] == "bad_request", out
    assert out[0]["error"] == "ramwatchd on Windows does not serve the request 'scan'", out
    out = poke(watched.env, watched.pipe, "line", "this is not JSON")
    assert out[0]["code"] == "bad_request", out
    assert watched.ask_json("processes")["processes"]
