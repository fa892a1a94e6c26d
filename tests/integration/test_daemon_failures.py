"""ramwatchd under adversity: a full disk, a locked database, processes it
may not read, thousands of short-lived processes, old and new schemas, bad
configurations."""
import os
import signal
import sqlite3
import shutil
import subprocess
import tempfile
import threading
import time

import pytest

from conftest import HELPERS, MiB, start_shapes, stop
from rwdaemon import Daemon, RAMWATCHD, fast_config

SCHEMA = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..", "schema", "migrations")


def samples(d, pid_row):
    """The store ticks the process's rows stand for (identical rows are
    coalesced into one over their span)."""
    return d.ticks_stored(pid_row)


def gaps(d, pid_row):
    """The time from each row's end (until) to the next row."""
    rows = d.query("SELECT time, until FROM samples WHERE process_id = ? ORDER BY time", pid_row)
    return [b["time"] - a["until"] for a, b in zip(rows, rows[1:])] or [0]


def test_full_disk_is_survived(tmp_path, shapes, daemons):
    """The state directory on a 4 MiB filesystem, filled up: the daemon keeps
    sampling in memory, says so once, and writes again (with what it kept)
    when space comes back."""
    mnt = tmp_path / "small"
    mnt.mkdir()
    r = subprocess.run(["mount", "-t", "tmpfs", "-o", "size=4m", "tmpfs", str(mnt)], capture_output=True)
    if r.returncode != 0:
        pytest.skip(f"cannot mount a small filesystem here: {r.stderr.decode().strip()}")
    try:
        d = daemons(mnt, fast_config(f"Watch=pid:{shapes.pid}"))
        d.start()
        pid_row = d.process_id(shapes.pid)
        d.wait_for(lambda: samples(d, pid_row) >= 2, what="rows")
        filler = mnt / "filler"
        subprocess.run(["dd", "if=/dev/zero", f"of={filler}", "bs=64k"], capture_output=True)
        full_at = samples(d, pid_row)
        d.wait_for(lambda: "cannot write to the store" in d.logs(), what="the failure logged", timeout=30)
        d.wait_for(lambda: "store failing" in d.status(), what="STATUS= to say so")
        time.sleep(3)  # rows pile up in memory meanwhile
        assert d.alive()
        assert d.logs().count("cannot write to the store") == 1  # once per change of state
        filler.unlink()
        d.wait_for(lambda: "writing to the store again" in d.logs(), what="the recovery", timeout=30)
        # the rows gathered while the disk was full were written after all
        d.wait_for(lambda: samples(d, pid_row) >= full_at + 4, what="the kept rows")
        assert max(gaps(d, pid_row)) < 2500, gaps(d, pid_row)  # no hole where the disk was full
        assert d.stop() == 0
        con = sqlite3.connect(d.db_path)
        assert con.execute("PRAGMA integrity_check").fetchone()[0] == "ok"
        con.close()
    finally:
        subprocess.run(["umount", "-l", str(mnt)])


def test_locked_database_is_survived(tmp_path, shapes, daemons):
    d = daemons(tmp_path, fast_config(f"Watch=pid:{shapes.pid}")).start()
    pid_row = d.process_id(shapes.pid)
    d.wait_for(lambda: samples(d, pid_row) >= 2, what="rows")
    con = sqlite3.connect(d.db_path, timeout=1, isolation_level=None)
    con.execute("BEGIN EXCLUSIVE")
    try:
        d.wait_for(lambda: "cannot write to the store" in d.logs(), what="the lock noticed", timeout=20)
        assert "lock" in d.logs().split("cannot write to the store")[1].splitlines()[0]
        time.sleep(2)
        assert d.alive()
    finally:
        con.execute("ROLLBACK")
        con.close()
    d.wait_for(lambda: "writing to the store again" in d.logs(), what="the recovery", timeout=20)
    assert max(gaps(d, pid_row)) < 2500, gaps(d, pid_row)


def test_processes_it_may_not_read(unprivileged_user, daemons):
    """Run unprivileged, the daemon sees other users' processes but may not
    read their memory maps: censuses say 'denied' with the reason, each one
    stored, the warning logged once per process, and it carries on."""
    home = tempfile.mkdtemp(prefix="ramwatch-unprivileged-")
    os.chmod(home, 0o777)
    os.mkdir(os.path.join(home, "shapes"))
    os.chmod(os.path.join(home, "shapes"), 0o777)
    mine = start_shapes(os.path.join(home, "shapes"), user=unprivileged_user)
    try:
        config = fast_config("Watch=all").replace("CensusInterval=1h", "CensusInterval=1s")
        d = daemons(home, config, user=unprivileged_user).start()
        rows = d.wait_rows("SELECT * FROM censuses WHERE status = 'denied'", what="a denied census", timeout=20)
        assert "permission denied" in rows[0]["message"]
        assert "CAP_SYS_PTRACE" in rows[0]["message"]
        refused = d.wait_rows("SELECT p.pid, p.comm, count(*) AS n FROM censuses c JOIN processes p "
                              "ON p.id = c.process_id WHERE c.status = 'denied' GROUP BY p.id HAVING n >= 3",
                              what="a process refused three times", timeout=30)[0]
        said = f"census of process {refused['pid']} ({refused['comm']}): denied"
        logs = d.logs()
        assert sum(f"{said}: " in line for line in logs.splitlines()) == 1, logs
        assert f"{said} again: " in logs
        # its own user's process is read in full
        own = d.wait_rows("SELECT c.* FROM censuses c JOIN processes p ON p.id = c.process_id "
                          "WHERE c.status = 'ok' AND p.pid = ?", mine.pid, what="a census of its user's process")
        assert own[0]["private"] > 0
        assert d.alive()
        d.stop()
    finally:
        stop(mine.proc)
        shutil.rmtree(home)


def test_thousands_of_short_lived_processes(tmp_path, daemons):
    d = daemons(tmp_path, fast_config("Watch=name:churn").replace("DiscoverInterval=200ms",
                                                                   "DiscoverInterval=100ms")).start()
    r = subprocess.run([os.path.join(HELPERS, "churn"), "3000", "16", "4", "400"], capture_output=True,
                       text=True, timeout=300)
    assert r.stdout.strip() == "3000"
    time.sleep(1.5)
    assert d.alive()
    procs = d.query("SELECT * FROM processes WHERE comm = 'churn'")
    assert len(procs) > 50, len(procs)
    # every child that was followed and is gone has its exit recorded
    d.wait_for(lambda: all(p["exited_at"] for p in d.query("SELECT * FROM processes WHERE comm = 'churn'")),
               what="exits recorded", timeout=10)
    statuses = {s["status"] for s in d.query("SELECT DISTINCT status FROM censuses")}
    assert statuses <= {"ok", "exited"} and "ok" in statuses
    assert d.stop() == 0


def apply_v1(path, rows=True):
    con = sqlite3.connect(path)
    con.execute("PRAGMA auto_vacuum = INCREMENTAL")
    with open(os.path.join(SCHEMA, "001-timelines.sql")) as f:
        con.executescript(f.read())
    con.execute("PRAGMA user_version = 1")
    if rows:
        con.execute("INSERT INTO processes (boot_id, pid, start_time, first_seen, last_seen, comm) "
                    "VALUES ('old-boot', 4242, 1, 1000, 2000, 'old')")
        con.execute("INSERT INTO samples VALUES (1, 0, 2000, 1, 2, 2, 3, 4, 4, 0, 10)")
    con.commit()
    con.close()


def latest_version():
    return len([f for f in os.listdir(SCHEMA) if f.endswith(".sql")])


def test_migration_from_an_older_schema(tmp_path, daemons):
    state = tmp_path / "state"
    state.mkdir()
    apply_v1(str(state / "ramwatch.db"))
    d = daemons(tmp_path, fast_config("Watch=pid:1")).start()
    assert f"schema version {latest_version()}" in d.logs()
    old = d.query("SELECT * FROM processes WHERE boot_id = 'old-boot'")
    assert len(old) == 1 and old[0]["comm"] == "old"
    assert d.query("SELECT count(*) AS n FROM samples WHERE process_id = ?", old[0]["id"])[0]["n"] == 1
    con = sqlite3.connect(d.db_path)
    assert con.execute("PRAGMA user_version").fetchone()[0] == latest_version()
    # the views of schema 2 are there and answer
    con.execute("SELECT * FROM memory_timeline LIMIT 1").fetchall()
    con.close()


def test_a_newer_schema_is_refused(tmp_path):
    state = tmp_path / "state"
    state.mkdir()
    db = state / "ramwatch.db"
    con = sqlite3.connect(db)
    con.execute("CREATE TABLE t (x)")
    con.execute("PRAGMA user_version = 99")
    con.commit()
    con.close()
    before = db.read_bytes()
    d = Daemon(tmp_path, fast_config())
    d.start(wait_ready=False)
    assert d.proc.wait(timeout=20) == 1
    d.stop()
    assert "newer" in d.logs() and "99" in d.logs()
    assert db.read_bytes() == before


def test_bad_configuration_at_start(tmp_path):
    d = Daemon(tmp_path, fast_config() + "Frobnicate=yes\n")
    d.start(wait_ready=False)
    assert d.proc.wait(timeout=20) == 1
    d.stop()
    assert "ramwatchd.conf:" in d.logs() and "Frobnicate" in d.logs()
    assert not os.path.exists(d.db_path)
    r = subprocess.run([RAMWATCHD, "--check-config", "--config", d.config], capture_output=True, text=True)
    assert r.returncode == 1 and "Frobnicate" in r.stderr
    d.write_config(fast_config())
    r = subprocess.run([RAMWATCHD, "--check-config", "--config", d.config], capture_output=True, text=True)
    assert r.returncode == 0 and "SampleInterval=100ms" in r.stdout


def test_bad_command_lines_are_refused(tmp_path):
    """A command line ramwatchd does not take is a usage error (exit 2)
    that says what and where to look, before anything is opened."""
    state = tmp_path / "state"
    for args, said in ((["--log-level", "loud"], "unknown log level 'loud'"),
                       (["--frobnicate"], "unrecognized option"),
                       (["--foreground", "extra"], "unexpected argument 'extra'")):
        r = subprocess.run([RAMWATCHD, "--state-dir", str(state), *args], capture_output=True, text=True, timeout=20)
        assert r.returncode == 2, (args, r.stderr)
        assert said in r.stderr and "Try 'ramwatchd --help'." in r.stderr, (args, r.stderr)
    assert not state.exists()


def test_budget_defers_and_counts(tmp_path, daemons):
    """A census of a process with 20,000 regions costs tens of milliseconds
    of CPU; with ScanBudget=0.1% (1 ms a second) and CensusInterval=1s the
    censuses must wait for credit: counted as deferred, visible in STATUS=,
    still taken, and within the budget over the run."""
    target = subprocess.Popen([os.path.join(HELPERS, "many-maps"), "20000"], stdout=subprocess.PIPE, text=True)
    try:
        assert target.stdout.readline().startswith("ready")
        cfg = fast_config(f"Watch=pid:{target.pid}", extra="ScanBudget=0.1%\nCensusInterval=1s")
        d = daemons(tmp_path, cfg).start()
        first = d.wait_rows("SELECT * FROM censuses WHERE status = 'ok'", what="the first census")[0]
        assert first["cpu_us"] > 5000, first  # what makes the budget bite
        d.wait_for(lambda: " 0 deferred" not in d.status() and "deferred" in d.status(), what="deferrals",
                   timeout=30)
        time.sleep(5)
        # 0.1 % of the time since start, plus the first window's credit
        # (60 ms) and one census's overdraft
        cost = d.query("SELECT sum(cpu_us) AS cpu, max(cpu_us) AS most, count(*) AS n FROM censuses")[0]
        elapsed_us = (time.time() - d.started_at) * 1e6
        assert cost["cpu"] <= 0.001 * elapsed_us + 60000 + cost["most"], (cost, elapsed_us)
        # without the budget there would be one a second
        assert cost["n"] < elapsed_us / 1e6 / 2, (cost, elapsed_us)
        assert d.alive()
    finally:
        target.kill()
        target.wait()