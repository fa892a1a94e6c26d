"""The daemon's core on Windows under Wine (Debian's wine64), run for real
by tests/windows/corewatch.c over build/windows/lib/libdaemon.a: Windows's
discovery (a snapshot of every process per pass, daemon/windows/discover.c,
target.c) follows the ground-truth holder (tests/windows/holder.c) by its
pid and creation time, with its owner and image; the fast tier's commit,
read from each round's snapshot (daemon/windows/fast-read.c), follows the
holder as it grows; the census tier takes a census of it at first sight
and at each growth, with the Windows scanner (daemon/windows/census-read.c),
naming its private memory and its heap; its exit is seen; a pid Wine gives
again is another process.  The database the core wrote (the machine's
memory from daemon/windows/sysmem.c) is read by Linux's ramwatch sql.

What Wine cannot confirm: a second account's processes (every process is
this user's), and real Windows's working set and page faults.  Run by make
check-windows."""
import json
import os
import queue
import sqlite3
import subprocess
import threading
import time

import pytest

from test_win_daemon import CONFIG  # the daemon's own test's settings: fast rounds, censuses at 32 MiB
from wine import LINUX, WIN, WINE, session, winpath

HOLDER = os.path.join(WIN, "tests", "holder.exe")
COREWATCH = os.path.join(WIN, "tests", "corewatch.exe")
MiB = 1024 ** 2
FILETIME_UNIX_EPOCH = 116444736000000000


@pytest.fixture(scope="module")
def wine_env():
    yield from session(((COREWATCH, "corewatch.exe (make check-windows)"),
                        (HOLDER, "holder.exe (make check-windows)"), (LINUX, "build/ramwatch")))


class Lines:
    """A process's JSON lines, read by a thread as they come."""

    def __init__(self, p):
        self.p, self.q, self.seen = p, queue.Queue(), []
        threading.Thread(target=self._read, daemon=True).start()

    def _read(self):
        for line in self.p.stdout:
            self.q.put(json.loads(line))
        self.q.put(None)

    def mark(self):
        """Where the lines read so far end, for seen_or_wait."""
        return len(self.seen)

    def seen_or_wait(self, mark, pred, timeout=60, what="a line"):
        """The first line after mark for which pred holds, whether already
        read by an earlier wait or still to come."""
        for x in self.seen[mark:]:
            if pred(x):
                return x
        return self.wait(pred, timeout, what)

    def wait(self, pred, timeout=60, what="a line", or_end=False):
        """The first line (from now on) for which pred holds; with or_end,
        None when the process ended first."""
        deadline = time.monotonic() + timeout
        while True:
            left = deadline - time.monotonic()
            assert left > 0, f"no {what} in {timeout} s"
            try:
                x = self.q.get(timeout=left)
            except queue.Empty:
                continue
            if x is None and or_end:
                return None
            assert x is not None, f"the process ended before {what}"
            self.seen.append(x)
            if pred(x):
                return x


def start(env, args):
    p = subprocess.Popen([WINE, *args], env=env, stdin=subprocess.PIPE, stdout=subprocess.PIPE, text=True)
    return p, Lines(p)


def start_holder(env, *args):
    p, lines = start(env, [HOLDER, *args])
    return p, lines, lines.wait(lambda x: "pid" in x, what="the holder's identity")


def stop(p):
    p.stdin.close()
    assert p.wait(timeout=60) == 0


def linux_sql(db, query):
    r = subprocess.run([LINUX, "sql", "--db", db, "--format", "json", query], capture_output=True, text=True,
                       timeout=60)
    assert r.returncode == 0, r.stderr
    return json.loads(r.stdout)


@pytest.fixture
def core(wine_env, tmp_path):
    """Starts corewatch when called: (the process, its lines, its database)."""
    started = []

    def run():
        cfg = tmp_path / "ramwatchd.conf"
        cfg.write_text(CONFIG)
        db = tmp_path / "ramwatch.db"
        p, lines = start(wine_env, [COREWATCH, winpath(cfg), winpath(db)])
        started.append(p)
        lines.wait(lambda x: x["event"] == "started", what="corewatch's start")
        return p, lines, str(db)
    yield run
    for p in started:
        if p.poll() is None:
            p.kill()


def test_follows_growth_with_censuses(wine_env, core):
    # the holder first, whole: its commit is then what it said
    holder, said, made = start_holder(wine_env)
    pid, created = made["pid"], made["created"]
    cw, events, db = core()
    try:
        followed = events.wait(lambda x: x["event"] == "followed" and x["pid"] == pid, what="the holder followed")
        assert followed["start_time"] == created
        assert followed["start_ms"] == (created - FILETIME_UNIX_EPOCH) // 10000
        assert followed["comm"] == "holder.exe"
        assert followed["exe"].lower().endswith("\\holder.exe")
        assert followed["owner"]  # DOMAIN\account, or the SID
        assert followed["boot_id"].startswith("windows-boot-")
        first = events.wait(lambda x: x["event"] == "census" and x["pid"] == pid, what="its first census")
        assert (first["trigger"], first["status"]) == ("first", "ok")
        base = events.wait(lambda x: x["event"] == "sample" and x["pid"] == pid)["private"]

        # the commit grows: the samples follow it, a census comes of it (as
        # soon as a sample is 32 MiB up, before or after the one with all 96:
        # Wine's commit figure may follow the pages as they are touched)
        mark = events.mark()
        holder.stdin.write("commit 96\n")
        holder.stdin.flush()
        said.wait(lambda x: x.get("grown") == "commit" and x["mib"] == 96, what="the holder's commit")
        grown = events.wait(lambda x: x["event"] == "sample" and x["pid"] == pid and x["private"] >= base + 96 * MiB,
                            what="a sample with the commit")
        assert grown["private"] <= base + 104 * MiB
        census = events.seen_or_wait(mark, lambda x: x["event"] == "census" and x["pid"] == pid,
                                     what="the growth's census")
        assert (census["trigger"], census["status"]) == ("growth", "ok")

        # then heap blocks
        mark = events.mark()
        holder.stdin.write("heap 64\n")
        holder.stdin.flush()
        said.wait(lambda x: x.get("grown") == "heap" and x["mib"] == 64, what="the holder's heap blocks")
        events.wait(lambda x: x["event"] == "sample" and x["pid"] == pid and x["private"] >= base + 160 * MiB,
                    what="a sample with the heap blocks")
        census = events.seen_or_wait(mark, lambda x: x["event"] == "census" and x["pid"] == pid,
                                     what="the heap's census")
        assert (census["trigger"], census["status"]) == ("growth", "ok")
    finally:
        stop(holder)
    gone = events.wait(lambda x: x["event"] == "exited" and x["pid"] == pid, what="its exit")
    assert gone["start_time"] == created
    events.wait(lambda x: x["event"] == "stored", what="a store cycle after the exit")
    stop(cw)

    # what the core stored, read by Linux
    con = sqlite3.connect(f"file:{db}?mode=ro", uri=True)
    assert con.execute("PRAGMA integrity_check").fetchone()[0] == "ok"
    con.close()
    [row] = linux_sql(db, f"SELECT * FROM processes WHERE pid = {pid}")
    assert row["platform"] == "windows" and row["uid"] is None and row["owner"] == followed["owner"]
    assert row["start_time"] == row["started_at"] == followed["start_ms"]
    assert row["comm"] == "holder.exe" and row["exited_at"] is not None
    assert base + 160 * MiB <= row["peak_private"] <= base + 176 * MiB
    [top] = linux_sql(db, f"SELECT max(private_max) AS private FROM samples s JOIN processes p ON p.id = s.process_id "
                          f"WHERE p.pid = {pid}")
    assert top["private"] == row["peak_private"]
    censuses = linux_sql(db, f"SELECT c.id, c.trigger, c.status, c.private, c.cpu_us, c.wall_us FROM censuses c "
                             f"JOIN processes p ON p.id = c.process_id WHERE p.pid = {pid} ORDER BY c.time")
    assert [(c["trigger"], c["status"]) for c in censuses] == [("first", "ok"), ("growth", "ok"), ("growth", "ok")]
    # each census's cost is known, and counts the thread the walk runs in
    # (GetThreadTimes, in 10 ms ticks under Wine, where each query of the
    # holder's memory is a round trip to wineserver costing that thread
    # tens of microseconds; test_windows.py's walk of 20,000 regions shows
    # it): the budget charges what the daemon spent
    assert all(c["cpu_us"] is not None and c["cpu_us"] >= 0 and c["wall_us"] > 0 for c in censuses)

    def classes(census_id):
        return {k["class"]: k["private"] for k in linux_sql(db, f"SELECT class, private FROM census_classes "
                                                                f"WHERE census_id = {census_id}")}
    first_c, commit_c, heap_c = (classes(c["id"]) for c in censuses)
    # the commit is private memory of its own (class other, rule
    # win_private: Wine commits some of its own beside it); the heap's
    # large blocks are the C heap's (malloc), each rounded up to the
    # allocation granularity with its header
    assert 96 * MiB <= commit_c["other"] - first_c["other"] <= 112 * MiB
    assert abs(commit_c["malloc"] - first_c["malloc"]) < 2 * MiB
    assert 64 * MiB <= heap_c["malloc"] - commit_c["malloc"] <= 76 * MiB
    assert abs(heap_c["other"] - commit_c["other"]) < 2 * MiB
    # the machine's memory, every store cycle
    [system] = linux_sql(db, "SELECT count(*) AS n, min(mem_total) AS total, min(mem_available) AS available "
                             "FROM system")
    assert system["n"] >= 2 and 0 < system["available"] <= system["total"]


def test_census_cost_counts_the_walk(wine_env, core):
    """A census's cost, which the budget charges, counts the CPU of the
    thread the Windows scanner walks in, not only the daemon's own: a
    holder with 5,000 more reservations takes a walk of that many
    queries, each a round trip to wineserver under Wine."""
    holder, said, made = start_holder(wine_env, "--regions", "5000")
    pid = made["pid"]
    cw, events, db = core()
    try:
        census = events.wait(lambda x: x["event"] == "census" and x["pid"] == pid, what="its first census")
        assert census["status"] == "ok"
    finally:
        stop(holder)
    events.wait(lambda x: x["event"] == "exited" and x["pid"] == pid, what="its exit")
    events.wait(lambda x: x["event"] == "stored", what="a store cycle")
    stop(cw)
    [c] = linux_sql(db, f"SELECT c.cpu_us, c.wall_us FROM censuses c JOIN processes p ON p.id = c.process_id "
                        f"WHERE p.pid = {pid}")
    # about 0.2 s here; the daemon's own thread, which waits, spends none
    assert c["cpu_us"] >= 50000, c


def test_tells_a_pid_given_again_apart(wine_env, core):
    """A holder followed and gone; light holders started one after another
    until Wine gives its pid again: the new one is followed as a process of
    its own, with its own creation time."""
    cw, events, db = core()
    holder, said, made = start_holder(wine_env, "--light")
    pid = made["pid"]
    try:
        events.wait(lambda x: x["event"] == "followed" and x["pid"] == pid, what="the first holder followed")
    finally:
        stop(holder)
    events.wait(lambda x: x["event"] == "exited" and x["pid"] == pid, what="its exit")
    # Wine gives a pid again once a few hundred others are free, the one
    # freed first first: light holders, sixteen at a time, until one has it
    again, silent = None, []
    for _ in range(200):
        batch = [start(wine_env, [HOLDER, "--light"]) for _ in range(16)]
        for p, lines in batch:
            m = lines.wait(lambda x: "pid" in x, what="a light holder's identity", or_end=True)
            if m is None:  # Wine did not start it (seen once in hundreds, on a loaded machine)
                silent.append(p.wait(timeout=60))
                assert len(silent) <= 3, f"light holders ended saying nothing or failing: {silent}"
                continue
            if m["pid"] == pid and again is None:
                again = (p, m)
                continue
            p.stdin.close()
            code = p.wait(timeout=60)
            if code != 0:  # Wine failed it on the way out (seen once, in a new prefix)
                silent.append(code)
                assert len(silent) <= 3, f"light holders ended saying nothing or failing: {silent}"
        if again:
            break
    else:
        pytest.fail("Wine gave no pid again in 3200 processes")
    p, m = again
    try:
        assert m["created"] > made["created"]
        second = events.wait(lambda x: x["event"] == "followed" and x["pid"] == pid, timeout=120,
                             what="the second holder followed")
        assert second["start_time"] == m["created"]
    finally:
        stop(p)
    events.wait(lambda x: x["event"] == "exited" and x["pid"] == pid and x["start_time"] == m["created"],
                what="the second one's exit")
    events.wait(lambda x: x["event"] == "stored", what="a store cycle")
    stop(cw)
    rows = linux_sql(db, f"SELECT start_time FROM processes WHERE pid = {pid} ORDER BY start_time")
    assert [r["start_time"] for r in rows] == [(c - FILETIME_UNIX_EPOCH) // 10000 for c in (made["created"], m["created"])]
