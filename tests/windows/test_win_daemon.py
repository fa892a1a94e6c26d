"""ramwatchd.exe under Wine (Debian's wine64): the daemon itself, in the
console (--foreground) with its configuration and database in a directory
of the test's own and a pipe of its own, follows the ground-truth holder
(tests/windows/holder.c) as it grows its commit and then its heap; answers
ramwatch.exe status over the pipe that it watches it, after garbage and a
request past RW_REQUEST_MAX (tests/windows/pipepoke.c); and, once stopped
with Ctrl-C, leaves a database that Linux's SQLite finds whole and Linux's
ramwatch sql reads: the holder's samples, and a census at each growth
naming the private memory and the heap.  The same daemon as a service:
installed, started and stopped with sc, its database closed clean.

What Wine cannot confirm: a second account's processes (every process is
this user's), and a service's real hardening (LocalSystem's rights).  Run
by make check-windows."""
import json
import os
import re
import signal
import sqlite3
import subprocess
import time

import pytest

from wine import EXE, LINUX, WIN, WINE, sc, service_state, session, winpath

RAMWATCHD = os.path.join(WIN, "ramwatchd.exe")
HOLDER = os.path.join(WIN, "tests", "holder.exe")
PIPEPOKE = os.path.join(WIN, "tests", "pipepoke.exe")
REQUEST_MAX = 64 * 1024  # RW_REQUEST_MAX
SERVICE = "ramwatchd"
MiB = 1024 ** 2

CONFIG = """\
[Watch]
Watch=name:holder.exe
MinPrivate=0
[Sampling]
SampleInterval=200ms
StoreInterval=1s
DiscoverInterval=200ms
CensusInterval=1h
CensusOnGrowth=32M 5%
CensusMinSpacing=0
ScanBudget=100%
Evidence=yes
"""


@pytest.fixture(scope="module")
def wine_env():
    yield from session(((RAMWATCHD, "ramwatchd.exe (make windows)"), (HOLDER, "holder.exe (make check-windows)"),
                        (PIPEPOKE, "pipepoke.exe (make check-windows)"), (LINUX, "build/ramwatch")))


class Holder:
    """holder.exe, its lines read as it says them."""

    def __init__(self, env):
        self.p = subprocess.Popen([WINE, HOLDER], env=env, stdin=subprocess.PIPE, stdout=subprocess.PIPE, text=True)
        made = {}
        while "pid" not in made:
            line = self.p.stdout.readline()
            assert line, "the holder ended before saying who it is"
            made = json.loads(line)
        self.pid, self.created = made["pid"], made["created"]

    def grow(self, kind, mib):
        self.p.stdin.write(f"{kind} {mib}\n")
        self.p.stdin.flush()
        said = json.loads(self.p.stdout.readline())
        assert said == {"grown": kind, "mib": mib}, said

    def stop(self):
        if self.p.poll() is None:
            self.p.stdin.close()
            self.p.wait(timeout=60)


class Daemon:
    """ramwatchd.exe --foreground, with its files under state."""

    def __init__(self, env, state, pipe):
        self.env, self.pipe = env, pipe
        self.state = state
        self.db = os.path.join(state, "ramwatch.db")
        os.makedirs(state, exist_ok=True)
        config = os.path.join(state, "ramwatchd.conf")
        with open(config, "w") as f:
            f.write(CONFIG)
        self.log = open(os.path.join(state, "stderr.log"), "w+")
        self.p = subprocess.Popen([WINE, RAMWATCHD, "--foreground", "--config", winpath(config), "--state-dir",
                                   winpath(state), "--pipe", pipe], env=env, stdin=subprocess.DEVNULL,
                                  stdout=subprocess.DEVNULL, stderr=self.log)

    def logged(self):
        self.log.flush()
        with open(self.log.name) as f:
            return f.read()

    def stop(self):
        """Ctrl-C (Wine turns SIGINT into one); the exit code."""
        if self.p.poll() is None:
            os.kill(self.p.pid, signal.SIGINT)
        try:
            return self.p.wait(timeout=60)
        except subprocess.TimeoutExpired:
            self.p.kill()
            self.p.wait()
            raise AssertionError(("the daemon did not stop on Ctrl-C", self.logged()))


def status(env, pipe):
    return subprocess.run([WINE, EXE, "status", "--pipe", pipe], env=env, capture_output=True, text=True, timeout=60)


def poke(env, pipe, *args):
    r = subprocess.run([WINE, PIPEPOKE, pipe, *args], env=env, capture_output=True, text=True, timeout=120)
    assert r.returncode == 0, r.stderr
    return [json.loads(line) if line.startswith("{") else line for line in r.stdout.splitlines()]


def wait_for(what, check, limit=60, pause=0.3):
    """check()'s first true value within limit seconds."""
    until = time.monotonic() + limit
    last = None
    while time.monotonic() < until:
        last = check()
        if last:
            return last
        time.sleep(pause)
    raise AssertionError(f"no {what} in {limit} s")


def wine_sql(env, db, query):
    """The database as the daemon has it now, read under Wine."""
    r = subprocess.run([WINE, EXE, "sql", "--db", winpath(db), "--format", "json", query], env=env,
                       capture_output=True, text=True, timeout=60)
    return json.loads(r.stdout) if r.returncode == 0 and r.stdout.strip() else None


def linux_sql(db, query):
    r = subprocess.run([LINUX, "sql", "--db", db, "--format", "json", query], capture_output=True, text=True,
                       timeout=60)
    assert r.returncode == 0, r.stderr
    return json.loads(r.stdout)


def censuses_of(env, db, pid):
    rows = wine_sql(env, db, f"SELECT c.trigger, c.status FROM censuses c JOIN processes p ON p.id = c.process_id "
                             f"WHERE p.pid = {pid} ORDER BY c.time")
    return [(c["trigger"], c["status"]) for c in rows or []]


def assert_clean(db):
    """Closed as it should be: no log of writes left beside it, whole."""
    assert not os.path.exists(db + "-wal") or os.path.getsize(db + "-wal") == 0
    con = sqlite3.connect(f"file:{db}?mode=ro", uri=True)
    try:
        assert con.execute("PRAGMA integrity_check").fetchone()[0] == "ok"
    finally:
        con.close()


def test_console_daemon_follows_growth(wine_env, tmp_path):
    pipe = r"\\.\pipe\ramwatchd-test-%d" % os.getpid()
    holder = Holder(wine_env)
    daemon = Daemon(wine_env, str(tmp_path / "state"), pipe)
    try:
        # it serves, and watches the holder
        r = wait_for("answer over the pipe", lambda: (lambda r: r if r.returncode == 0 else None)(status(wine_env, pipe)))
        assert r.stdout.startswith("ramwatchd "), r.stdout
        wait_for("holder watched", lambda: re.search(r"^watched +1 process$", status(wine_env, pipe).stdout, re.M))
        assert wait_for("first census", lambda: censuses_of(wine_env, daemon.db, holder.pid)) == [("first", "ok")]

        # bad input over the pipe leaves it answering, and watching
        out = poke(wine_env, pipe, "line", "this is not JSON")
        assert out[0]["ok"] is False and out[0]["code"] == "bad_request", out
        out = poke(wine_env, pipe, "bytes", str(REQUEST_MAX + 1))
        assert out[0]["code"] == "too_large" and out[-1] == "closed", out
        out = poke(wine_env, pipe, "line", '{"op":"status","id":7}')
        assert out[0]["ok"] is True and out[0]["id"] == 7 and out[0]["result"]["watched"] == 1, out

        holder.grow("commit", 96)
        wait_for("census of the commit", lambda: len(censuses_of(wine_env, daemon.db, holder.pid)) >= 2)
        holder.grow("heap", 64)
        wait_for("census of the heap", lambda: len(censuses_of(wine_env, daemon.db, holder.pid)) >= 3)
        # a store cycle after the heap's growth, for the samples
        time.sleep(1.5)
    finally:
        code = daemon.stop()
        holder.stop()
    log = daemon.logged()
    assert code == 0, log
    assert "Ctrl-C received: writing what was gathered and stopping" in log, log
    assert re.search(r"^<6>stopped$", log, re.M), log

    db = daemon.db
    assert_clean(db)
    [row] = linux_sql(db, f"SELECT * FROM processes WHERE pid = {holder.pid}")
    assert row["platform"] == "windows" and row["uid"] is None and row["owner"]
    assert row["comm"] == "holder.exe"
    # stopped while the holder ran: it did not exit, and the last rows
    # were written at the stop
    assert row["exited_at"] is None
    samples = linux_sql(db, f"SELECT s.time, s.private_min, s.private_max FROM samples s JOIN processes p "
                            f"ON p.id = s.process_id WHERE p.pid = {holder.pid} ORDER BY s.time")
    assert len(samples) >= 3
    # the commit, then the heap, in the samples (Wine commits a little of
    # its own beside them)
    base = samples[0]["private_min"]
    assert base + 160 * MiB <= samples[-1]["private_max"] <= base + 176 * MiB
    assert max(s["private_max"] for s in samples) == row["peak_private"]

    censuses = linux_sql(db, f"SELECT c.id, c.trigger, c.status FROM censuses c JOIN processes p "
                             f"ON p.id = c.process_id WHERE p.pid = {holder.pid} ORDER BY c.time")
    assert [(c["trigger"], c["status"]) for c in censuses] == [("first", "ok"), ("growth", "ok"), ("growth", "ok")]

    def classes(census_id):
        return {k["class"]: k["private"] for k in linux_sql(db, f"SELECT class, private FROM census_classes "
                                                                f"WHERE census_id = {census_id}")}
    first_c, commit_c, heap_c = (classes(c["id"]) for c in censuses)
    # the commit is private memory of its own (class other); the heap's
    # large blocks are the C heap's (malloc)
    assert 96 * MiB <= commit_c["other"] - first_c.get("other", 0) <= 112 * MiB
    assert 64 * MiB <= heap_c["malloc"] - commit_c.get("malloc", 0) <= 76 * MiB


def test_service(wine_env, tmp_path):
    pipe = r"\\.\pipe\ramwatchd-service-%d" % os.getpid()
    state = tmp_path / "state"
    state.mkdir()
    config = state / "ramwatchd.conf"
    config.write_text(CONFIG)
    holder = Holder(wine_env)
    r = subprocess.run([WINE, RAMWATCHD, "--install", "--config", winpath(config), "--state-dir", winpath(state),
                        "--pipe", pipe], env=wine_env, capture_output=True, text=True, timeout=60)
    assert r.returncode == 0, r.stderr
    assert f"installed the service {SERVICE}" in r.stdout
    try:
        # started from the console without --foreground, it says how it is run
        r = subprocess.run([WINE, RAMWATCHD], env=wine_env, capture_output=True, text=True, timeout=60)
        assert r.returncode == 2 and "--foreground" in r.stderr, r.stderr
        r = sc(wine_env, "start", SERVICE)
        assert r.returncode == 0, r.stdout + r.stderr
        wait_for("service running", lambda: service_state(wine_env, SERVICE) == "RUNNING")
        wait_for("holder watched", lambda: re.search(r"^watched +1 process$", status(wine_env, pipe).stdout, re.M))
        db = str(state / "ramwatch.db")
        wait_for("first census", lambda: censuses_of(wine_env, db, holder.pid))
        # the service follows growth as the console daemon does, and the
        # client reads its history over the service's pipe
        holder.grow("commit", 96)
        wait_for("census of the commit", lambda: ("growth", "ok") in censuses_of(wine_env, db, holder.pid))
        r = subprocess.run([WINE, EXE, "history", "--pid", str(holder.pid), "--pipe", pipe, "--format", "json"],
                           env=wine_env, capture_output=True, text=True, timeout=60)
        assert r.returncode == 0, r.stderr
        assert "growth" in {c["trigger"] for c in json.loads(r.stdout)["censuses"]}, r.stdout
        r = sc(wine_env, "stop", SERVICE)
        assert r.returncode == 0, r.stdout + r.stderr
        wait_for("service stopped", lambda: service_state(wine_env, SERVICE) == "STOPPED")
    finally:
        holder.stop()
        r = subprocess.run([WINE, RAMWATCHD, "--uninstall"], env=wine_env, capture_output=True, text=True, timeout=60)
    assert r.returncode == 0 and f"removed the service {SERVICE}" in r.stdout, r.stdout + r.stderr
    assert_clean(db)
    [row] = linux_sql(db, f"SELECT platform, comm FROM processes WHERE pid = {holder.pid}")
    assert row == {"platform": "windows", "comm": "holder.exe"}
    assert linux_sql(db, f"SELECT count(*) AS n FROM samples s JOIN processes p ON p.id = s.process_id "
                         f"WHERE p.pid = {holder.pid}")[0]["n"] >= 1
    # the growth's census, stored by the service and read on Linux
    growth = linux_sql(db, f"SELECT cc.private FROM censuses c JOIN processes p ON p.id = c.process_id "
                           f"JOIN census_classes cc ON cc.census_id = c.id "
                           f"WHERE p.pid = {holder.pid} AND c.trigger = 'growth' AND cc.class = 'other'")
    assert growth and max(g["private"] for g in growth) >= 96 * MiB
