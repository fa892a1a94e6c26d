"""A damaged database, found and survived (ramwatchd(8), "A damaged
database"): garbage written into the middle of a real ramwatch.db before
the daemon starts, and into the pages the daemon writes while it runs; a
destroyed header; the damaged file kept across restarts.  Each time the
daemon says what it found, once, at error level, moves the file aside as
ramwatch.db.corrupt-<time> with its -wal and -shm, goes on with a healthy
new database holding the processes and their last censuses, and loses no
row it had queued.  (A database of a newer version is still refused
untouched: test_daemon_failures.py, test_a_newer_schema_is_refused.)"""
import glob
import os
import signal
import sqlite3
import subprocess
import time

import pytest

from conftest import run
from rwdaemon import fast_config

if os.geteuid() != 0:
    pytest.skip("the daemon reads other processes' memory: needs root", allow_module_level=True)

GARBAGE = bytes(range(256)) * 32  # 8 KiB; no SQLite page starts like this


@pytest.fixture
def target():
    p = subprocess.Popen(["sleep", "600"])
    yield p
    p.kill()
    p.wait()


def aside(d):
    return sorted(f for f in glob.glob(d.db_path + ".corrupt-*") if not f.endswith(("-wal", "-shm")))


def integrity(path):
    con = sqlite3.connect(f"file:{path}?mode=ro", uri=True)
    try:
        return con.execute("PRAGMA integrity_check").fetchone()[0]
    finally:
        con.close()


def error_lines(d, words):
    return [l for l in d.logs().splitlines() if words in l]


def make_history(tmp_path, daemons, target, rows=40000):
    """A database the daemon made, with a census and a long history of the
    target (rows written the way the daemon writes them, to make the file
    a few MiB), then closed."""
    d = daemons(tmp_path, fast_config(f"Watch=pid:{target.pid}")).start()
    d.wait_rows("SELECT * FROM censuses c JOIN processes p ON p.id = c.process_id WHERE p.pid = ?", target.pid)
    assert d.stop() == 0
    con = sqlite3.connect(d.db_path)
    pid_id = con.execute("SELECT id FROM processes WHERE pid = ?", (target.pid,)).fetchone()[0]
    t0 = con.execute("SELECT min(time) FROM samples").fetchone()[0] - rows * 1000
    con.executemany("INSERT INTO samples (process_id, resolution, time, private_min, private_max, private_last,"
                    " resident_min, resident_max, resident_last, swap_last, samples, until)"
                    " VALUES (?, 0, ?, 1, 2, 3, 4, 5, 6, 0, 10, ?)",
                    ((pid_id, t0 + 1000 * i, t0 + 1000 * i) for i in range(rows)))
    con.commit()
    con.execute("PRAGMA wal_checkpoint(TRUNCATE)")
    con.close()
    # started again as a new Daemon: its notices are its own
    return daemons(tmp_path, fast_config(f"Watch=pid:{target.pid}"))


def assert_swapped(d, target, moved, what=None):
    """The daemon runs on a healthy new file and says where the old one is."""
    assert integrity(d.db_path) == "ok"
    d.wait_rows("SELECT * FROM samples s JOIN processes p ON p.id = s.process_id WHERE p.pid = ? "
                "AND s.time > ?", target.pid, int(time.time() * 1000), what="samples in the new file")
    assert len(error_lines(d, "is damaged")) == 1, d.logs()[-3000:]
    line = error_lines(d, "is damaged")[0]
    assert line.startswith("<3>") and moved in line and "never deletes" in line
    st = d.ask({"op": "status"})["result"]["database"]
    k = st["corruption"]
    assert k["moved_to"] == moved and k["count"] == 1 and k["found_at"] > 0
    if what:
        assert what in k["what"]
    assert st["dropped_rows"] == 0
    text = run("status", "--socket", d.socket, check=0).stdout
    assert f"moved to {moved}" in text
    metrics = run("metrics", "--socket", d.socket, check=0).stdout
    assert "ramwatch_database_corruptions_total 1" in metrics
    assert f'ramwatch_database_corruption_info{{moved_to="{moved}"}} 1' in metrics
    return k


def test_garbage_before_start(tmp_path, daemons, target):
    d = make_history(tmp_path, daemons, target)
    size = os.path.getsize(d.db_path)
    assert size > 1 << 20
    with open(d.db_path, "r+b") as f:
        f.seek(size // 2 // 4096 * 4096)
        f.write(GARBAGE)
    damaged = open(d.db_path, "rb").read()

    d.start()
    (moved,) = aside(d)
    assert os.path.basename(moved).startswith("ramwatch.db.corrupt-2") and moved.endswith("Z")
    # the old file as it was found: nothing written into it
    assert open(moved, "rb").read() == damaged
    k = assert_swapped(d, target, moved)
    # the process and its census came over
    assert k["kept"]["processes"] >= 1 and k["kept"]["censuses"] >= 1
    assert d.query("SELECT count(*) AS n FROM processes WHERE pid = ?", target.pid)[0]["n"] == 1
    assert "kept 1 processes" in d.logs() or "kept 2 processes" in d.logs()

    # (e) never deleted, however often the daemon starts again
    for _ in range(2):
        assert d.stop() == 0
        d = daemons(tmp_path, fast_config(f"Watch=pid:{target.pid}")).start()
        d.wait_rows("SELECT * FROM samples WHERE time > ?", int(time.time() * 1000), what="samples")
    assert aside(d) == [moved] and open(moved, "rb").read() == damaged
    assert len(error_lines(d, "is damaged")) == 1
    assert d.ask({"op": "status"})["result"]["database"]["corruption"] is None
    assert d.stop() == 0


def test_header_destroyed(tmp_path, daemons, target):
    d = make_history(tmp_path, daemons, target, rows=10)
    with open(d.db_path, "r+b") as f:
        f.write(GARBAGE[:100])
    d.start()
    (moved,) = aside(d)
    k = assert_swapped(d, target, moved, what="not a SQLite database")
    assert k["kept"] == {"processes": 0, "censuses": 0}
    assert "nothing of it kept" in d.logs()
    assert d.stop() == 0


def checkpoint_while_stopped(d):
    """Stops the daemon (SIGSTOP) between two of its transactions, with
    everything checkpointed into the main file: what is written there now
    is what the daemon reads when it goes on."""
    for _ in range(50):
        d.kill(signal.SIGSTOP)
        con = sqlite3.connect(d.db_path, timeout=0)
        try:
            busy, log, done = con.execute("PRAGMA wal_checkpoint(TRUNCATE)").fetchone()
        except sqlite3.OperationalError:
            busy = 1
        finally:
            con.close()
        if busy == 0 and os.path.getsize(d.db_path + "-wal") == 0:
            return
        d.kill(signal.SIGCONT)
        time.sleep(0.13)
    raise AssertionError("no moment without a transaction of the daemon's")


def test_garbage_while_running(tmp_path, daemons, target):
    d = daemons(tmp_path, fast_config(f"Watch=pid:{target.pid}")).start()
    d.wait_rows("SELECT * FROM censuses c JOIN processes p ON p.id = c.process_id WHERE p.pid = ?", target.pid)
    d.wait_ticks(d.process_id(target.pid), 3)

    stopped = time.monotonic()
    checkpoint_while_stopped(d)
    try:
        con = sqlite3.connect(f"file:{d.db_path}?mode=ro", uri=True)
        root = con.execute("SELECT rootpage FROM sqlite_master WHERE name = 'samples'").fetchone()[0]
        page = con.execute("PRAGMA page_size").fetchone()[0]
        last = con.execute("SELECT max(until) FROM samples").fetchone()[0]
        con.close()
        # the samples' b-tree, which every store cycle writes into
        with open(d.db_path, "r+b") as f:
            f.seek((root - 1) * page)
            f.write(GARBAGE[:page])
    finally:
        d.kill(signal.SIGCONT)
        stopped = int((time.monotonic() - stopped) * 1000)
    # a read as well: a history request reads the same pages
    d.ask({"op": "history", "pid": target.pid})
    d.wait_for(lambda: aside(d), what="the damaged file moved aside", timeout=20)
    (moved,) = aside(d)
    k = assert_swapped(d, target, moved, what="malformed")
    assert k["kept"]["processes"] == 1 and k["kept"]["censuses"] == 1

    # nothing the daemon had queued is lost: the new file's samples go on
    # from the last committed in the old one, without a gap
    times = [r["time"] for r in d.query("SELECT s.time FROM samples s JOIN processes p ON p.id = s.process_id "
                                        "WHERE p.pid = ? ORDER BY s.time", target.pid)]
    assert times and times[0] - last <= stopped + 2500, (last, stopped, times[:5])
    assert all(b - a <= 2500 for a, b in zip(times, times[1:])), times
    # the control socket reads the new file
    h = d.ask({"op": "history", "pid": target.pid})
    assert "result" in h and h["result"]["samples"], h
    assert d.stop() == 0
    assert aside(d) == [moved]


def test_garbage_only_a_read_finds(tmp_path, daemons, target):
    """Damage in pages no store cycle writes (a census's classes): the
    control socket's read finds it, and the daemon replaces the file all
    the same; the census that cannot be read is not kept."""
    d = daemons(tmp_path, fast_config(f"Watch=pid:{target.pid}")).start()
    d.wait_rows("SELECT * FROM census_classes")
    d.wait_ticks(d.process_id(target.pid), 2)
    checkpoint_while_stopped(d)
    try:
        con = sqlite3.connect(f"file:{d.db_path}?mode=ro", uri=True)
        root = con.execute("SELECT rootpage FROM sqlite_master WHERE name = 'census_class_rows'").fetchone()[0]
        page = con.execute("PRAGMA page_size").fetchone()[0]
        con.close()
        with open(d.db_path, "r+b") as f:
            f.seek((root - 1) * page)
            f.write(GARBAGE[:page])
    finally:
        d.kill(signal.SIGCONT)
    a = d.ask({"op": "history", "pid": target.pid})
    assert a.get("code") == "unavailable", a
    d.wait_for(lambda: aside(d), what="the damaged file moved aside", timeout=10)
    (moved,) = aside(d)
    k = assert_swapped(d, target, moved)
    assert k["kept"] == {"processes": 1, "censuses": 0}
    assert "skipped what could not be read" in d.logs()
    # one warning less: the failed answer is not logged again as unavailable
    assert not [l for l in d.logs().splitlines() if l.startswith("<4>control:") and "malformed" in l]
    h = d.ask({"op": "history", "pid": target.pid})
    assert "result" in h, h
    assert d.stop() == 0
