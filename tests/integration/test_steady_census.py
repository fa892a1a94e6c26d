"""The steady census: a process that did not change since its last census
gets a repeat of it (censuses.repeats), found from smaps_rollup and a
fingerprint of its mappings; one that touched a page, mapped, unmapped or
changed a mapping with the same totals gets a full census; a person's
request and a mark always get a full one.  With the change watch, a
process the kernel tells no event of gets a repeat that reads nothing,
and a change no event tells is found by the check that reads, once
SteadyCheckInterval has passed.  Without the watch, the checks between
two reads of maps read statm, the file mappings and smaps_rollup, and a
change only maps tells is found once SteadyCheckInterval has passed.  A
real daemon, a real process (tests/helpers/steady.c) whose changes the
kernel confirms."""
import json
import shutil
import os
import subprocess
import time

import pytest

from conftest import HELPERS, run, wait_idle
from rwdaemon import fast_config

PAGE = os.sysconf("SC_PAGESIZE")


class Steady:
    def __init__(self):
        self.proc = subprocess.Popen([os.path.join(HELPERS, "steady")], stdin=subprocess.PIPE,
                                     stdout=subprocess.PIPE, text=True)
        assert self.proc.stdout.readline().strip() == "ready"
        self.pid = self.proc.pid
        wait_idle(self.pid)
        self.do("nop")

    def do(self, what):
        self.proc.stdin.write(what + "\n")
        self.proc.stdin.flush()
        assert self.proc.stdout.readline().strip() == f"done {what}"
        wait_idle(self.pid)

    def rollup(self):
        """The kernel's own sums (kB), as smaps_rollup gives them, but for
        the share of file pages, which other processes move (the steady
        check leaves it out too)."""
        out = {}
        with open(f"/proc/{self.pid}/smaps_rollup") as f:
            for line in f:
                parts = line.split()
                if len(parts) == 3 and parts[2] == "kB":
                    out[parts[0].rstrip(":")] = int(parts[1])
        out["Pss"] -= out.pop("Pss_File")
        return out

    def maps(self):
        with open(f"/proc/{self.pid}/maps") as f:
            return f.read()

    def stop(self):
        self.proc.stdin.close()
        self.proc.wait(timeout=10)


@pytest.fixture
def steady():
    s = Steady()
    yield s
    if s.proc.poll() is None:
        s.proc.kill()
        s.proc.wait()


def config(pid, check="0", watch=True):
    # a census due every second; a full one is what anything but a repeat
    # is.  SteadyCheckInterval=0: every check reads, maps too, whatever the
    # change watch says (the tests of what the reads see)
    extra = f"SteadyCheckInterval={check}" + ("" if watch else "\nChangeWatch=no")
    return fast_config(f"Watch=pid:{pid}", extra).replace("CensusInterval=1h", "CensusInterval=1s")


def census(d, census_id):
    return d.query("SELECT * FROM censuses WHERE id = ?", census_id)[0]


def after(d, pid_row, t_ms, what):
    """The first census of the process taken after t_ms + 300 ms: by then
    every census taken is of the process as it is now."""
    return d.wait_rows("SELECT * FROM censuses WHERE process_id = ? AND time > ? AND trigger = 'interval'"
                       " ORDER BY time, id LIMIT 1", pid_row, t_ms + 300, what=what)[0]


def content(d, c):
    """The census that holds c's content: c, or the one it repeats."""
    return census(d, c["repeats"]) if c["repeats"] is not None else c


def classes(d, census_id):
    return {r["class"]: (r["private"], r["resident"], r["size"], r["count"])
            for r in d.query("SELECT * FROM census_classes WHERE census_id = ?", census_id)}


def test_an_unchanged_process_gets_a_repeat(tmp_path, steady, daemons):
    d = daemons(tmp_path, config(steady.pid)).start()
    pid_row = d.process_id(steady.pid)
    first = d.wait_rows("SELECT * FROM censuses WHERE process_id = ? AND trigger = 'first'", pid_row)[0]
    assert first["status"] == "ok" and first["repeats"] is None
    # three censuses in a row over which the kernel says nothing changed
    rollup, maps, t = steady.rollup(), steady.maps(), time.time() * 1000
    repeats = d.wait_rows("SELECT * FROM censuses WHERE process_id = ? AND trigger = 'interval' AND time > ?"
                          " ORDER BY time", pid_row, t, n=3, what="three interval censuses")[:3]
    assert steady.rollup() == rollup and steady.maps() == maps
    # each repeats the last full census before them, none of them is one
    full = d.query("SELECT * FROM censuses WHERE process_id = ? AND time < ? AND repeats IS NULL"
                   " ORDER BY time DESC, id DESC LIMIT 1", pid_row, repeats[0]["time"])[0]
    for r in repeats:
        assert r["status"] == "ok" and r["repeats"] == full["id"], (r, full)
        for key in ("private", "resident", "pss", "swap", "size", "regions", "light", "evidence_taken"):
            assert r[key] == full[key], key
        # a row of its own: its time and its cost, and no content of its own
        assert r["time"] > full["time"] and r["cpu_us"] >= 0 and r["bytes_read"] > 0
        assert classes(d, r["id"]) == {}
    first = full
    # the cheap check reads a fraction of what the full census read
    assert max(r["bytes_read"] for r in repeats) < first["bytes_read"] / 2
    # the views give a repeat the content of the census it repeats
    view = lambda cid: {(r["class"], r["private"]) for r in
                        d.query("SELECT * FROM class_timeline WHERE census_id = ?", cid)}
    assert view(repeats[0]["id"]) == view(first["id"]) and view(first["id"])
    log = d.query("SELECT repeats FROM census_log WHERE census_id = ?", repeats[0]["id"])[0]
    assert log["repeats"] == first["id"]
    grafana = d.query("SELECT count(*) AS n FROM grafana_process_classes WHERE census_id = ?", repeats[0]["id"])
    assert grafana[0]["n"] == len(classes(d, first["id"])) - sum(
        1 for v in classes(d, first["id"]).values() if v[0] is None)
    # the daemon counts them, in its status and its metrics
    assert d.ask({"op": "status"})["result"]["censuses"]["repeated"] >= 3
    # the census op gives the whole census, saying it repeats
    last = d.ask({"op": "census", "pid": steady.pid})["result"]
    assert last["repeats"] == first["id"] and last["census_id"] != first["id"]
    assert last["totals"]["private"] == first["private"] and last["classes"]


@pytest.mark.parametrize("change", ["touch", "map", "protect", "move"])
def test_a_change_gets_a_full_census(tmp_path, steady, daemons, change):
    d = daemons(tmp_path, config(steady.pid)).start()
    pid_row = d.process_id(steady.pid)
    d.wait_rows("SELECT * FROM censuses WHERE process_id = ? AND repeats IS NOT NULL", pid_row,
                what="a repeat before the change")
    before_rollup, before_maps = steady.rollup(), steady.maps()
    last = d.query("SELECT * FROM censuses WHERE process_id = ? ORDER BY time DESC, id DESC LIMIT 1", pid_row)[0]
    held = content(d, last)
    steady.do(change)
    t = time.time() * 1000
    rollup, maps = steady.rollup(), steady.maps()
    c = after(d, pid_row, t, f"a census after {change}")
    full = content(d, c)
    # a census of the process as it is now: a full one, taken after the change
    assert full["id"] != held["id"] and full["repeats"] is None and full["time"] > t, (c, full, held)
    if change in ("touch", "map"):
        # one page more, as the kernel says
        assert rollup["Rss"] - before_rollup["Rss"] == PAGE // 1024
        assert full["private"] - held["private"] == PAGE
        assert full["resident"] - held["resident"] == PAGE
    else:
        # the same totals: only the mapping list tells the change
        assert rollup == before_rollup and maps != before_maps
        # (pss holds the share of file pages, which other processes move)
        assert (full["private"], full["resident"]) == (held["private"], held["resident"])
    if change == "map":
        steady.do("unmap")
        t = time.time() * 1000
        assert steady.rollup()["Rss"] == before_rollup["Rss"]
        again = content(d, after(d, pid_row, t, "a census after unmap"))
        assert again["repeats"] is None and again["time"] > t and again["private"] == held["private"]
    # ... and steady again, the next ones repeat the full one
    later = d.wait_rows("SELECT * FROM censuses WHERE process_id = ? AND time > ? AND repeats IS NOT NULL"
                        " ORDER BY time DESC LIMIT 1", pid_row, t + 300, what="a repeat after the change")[0]
    assert census(d, later["repeats"])["time"] > t


def test_a_person_always_gets_a_full_census(tmp_path, steady, daemons):
    d = daemons(tmp_path, config(steady.pid)).start()
    pid_row = d.process_id(steady.pid)
    d.wait_rows("SELECT * FROM censuses WHERE process_id = ? AND repeats IS NOT NULL", pid_row,
                what="a repeat")
    answer = d.ask({"op": "scan", "pid": steady.pid})["result"]
    assert answer["totals"]["private"] > 0
    req = d.wait_rows("SELECT * FROM censuses WHERE process_id = ? AND trigger = 'request'", pid_row)[0]
    assert req["status"] == "ok" and req["repeats"] is None and classes(d, req["id"])
    assert d.ask({"op": "mark", "pid": steady.pid, "name": "phase"}).get("result")
    mark = d.wait_rows("SELECT * FROM censuses WHERE process_id = ? AND trigger = 'mark'", pid_row)[0]
    assert mark["status"] == "ok" and mark["repeats"] is None and classes(d, mark["id"])
    # the interval censuses after them repeat the latest full one
    later = d.wait_rows("SELECT * FROM censuses WHERE process_id = ? AND repeats IS NOT NULL AND time > ?",
                        pid_row, mark["time"], what="a repeat after the mark")[0]
    assert later["repeats"] == mark["id"]


def test_history_report_and_diff_show_a_repeat(tmp_path, steady, daemons):
    d = daemons(tmp_path, config(steady.pid)).start()
    pid_row = d.process_id(steady.pid)
    rep = d.wait_rows("SELECT * FROM censuses WHERE process_id = ? AND repeats IS NOT NULL ORDER BY time", pid_row,
                      n=2, what="two repeats")[-1]
    full = census(d, rep["repeats"])
    sock = d.socket
    # history: the repeat's line says what it repeats, with that census's classes
    lines = run("history", "--pid", steady.pid, "--socket", sock, check=0).stdout.splitlines()
    said = [l for l in lines if f"census #{rep['id']} " in l]
    assert said and f"unchanged since census #{full['id']}, private" in said[0], lines
    shown = [l for l in lines if f"census #{full['id']} " in l]
    assert shown[0].split("; ", 1)[1] == said[0].split("; ", 1)[1]
    hist = json.loads(run("history", "--pid", steady.pid, "--socket", sock, "--format", "json", check=0).stdout)
    by_id = {c["census_id"]: c for c in hist["censuses"]}
    assert by_id[rep["id"]]["repeats"] == full["id"] and by_id[full["id"]]["repeats"] is None
    assert by_id[rep["id"]]["classes"] == by_id[full["id"]]["classes"] != {}
    # report: the trend row says so; a last census that is a repeat gives the content
    report = run("report", "--pid", steady.pid, "--socket", sock, check=0).stdout
    assert f"unchanged since #{full['id']}" in report
    # diff: the repeat against the census it repeats: no change at all
    t_full = full["time"] / 1000
    t_rep = rep["time"] / 1000
    out = run("diff", "--pid", steady.pid, "--from", f"@{t_full:.3f}", "--to", f"@{t_rep:.3f}", "--socket", sock,
              check=0).stdout
    first = out.splitlines()[0]
    assert f"census #{full['id']} " in first and f"unchanged since census #{full['id']}" in first, out


class ManyMaps(Steady):
    """The helper with 400 anonymous mappings more, run from a copy of its
    program in a directory of its own: few file mappings beside the
    others, the shape whose check skips maps when the change watch says
    the mappings are kept."""

    def __init__(self, tmp_path):
        self.dir = tmp_path / "prog"
        self.dir.mkdir()
        self.prog = self.dir / "steady"
        shutil.copy(os.path.join(HELPERS, "steady"), self.prog)
        self.proc = subprocess.Popen([str(self.prog), "400"], stdin=subprocess.PIPE,
                                     stdout=subprocess.PIPE, text=True)
        assert self.proc.stdout.readline().strip() == "ready"
        self.pid = self.proc.pid
        wait_idle(self.pid)
        self.do("nop")


@pytest.fixture
def many(tmp_path):
    s = ManyMaps(tmp_path)
    yield s
    if s.proc.poll() is None:
        s.proc.kill()
        s.proc.wait()


def paths(d, census_id):
    return {r["path"] for r in d.query("SELECT path FROM file_timeline WHERE census_id = ?", census_id)}


def last_repeat(d, pid_row, t_ms, what):
    return d.wait_rows("SELECT * FROM censuses WHERE process_id = ? AND time > ? AND repeats IS NOT NULL"
                       " ORDER BY time DESC LIMIT 1", pid_row, t_ms, what=what)[0]


@pytest.mark.skipif(os.geteuid() != 0, reason="the change watch needs root")
def test_a_kept_process_is_checked_without_maps(tmp_path, many, daemons):
    d = daemons(tmp_path, config(many.pid)).start()
    d.wait_for(lambda: "maps, before a census, only of those whose mappings they name" in d.logs(),
               what="the change watch's start, with the mappings")
    pid_row = d.process_id(many.pid)
    maps_size = len(many.maps())
    assert many.maps().count("\n") > 400
    d.wait_rows("SELECT * FROM censuses WHERE process_id = ? AND repeats IS NOT NULL", pid_row, n=4,
                what="four repeats")
    rep = last_repeat(d, pid_row, 0, "a repeat")
    held = census(d, rep["repeats"])
    assert str(many.prog) in paths(d, held["id"])
    # the check read smaps_rollup and no line of maps
    with open(f"/proc/{many.pid}/smaps_rollup") as f:
        rollup_size = len(f.read())
    assert rep["bytes_read"] <= rollup_size + 64 < maps_size, (rep["bytes_read"], rollup_size, maps_size)

    # its program renamed: the address space is the same, maps shows the
    # new name, and the next census is a full one that holds it
    renamed = many.dir / "steady-renamed"
    before = many.rollup()
    os.rename(many.prog, renamed)
    t = time.time() * 1000
    assert str(renamed) in many.maps() and many.rollup() == before
    full = content(d, after(d, pid_row, t, "a census after the rename"))
    assert full["repeats"] is None and full["time"] > t
    assert str(renamed) in paths(d, full["id"]) and str(many.prog) not in paths(d, full["id"])
    assert (full["private"], full["resident"]) == (held["private"], held["resident"])
    # ... and repeats after stand for a census that holds the new name (it
    # or a later one, should anything else in the process have moved since)
    later = census(d, last_repeat(d, pid_row, t + 300, "a repeat after the rename")["repeats"])
    assert later["id"] >= full["id"] and later["repeats"] is None
    assert str(renamed) in paths(d, later["id"]) and str(many.prog) not in paths(d, later["id"])

    # the directory above it renamed
    moved = tmp_path / "prog-moved"
    os.rename(many.dir, moved)
    t = time.time() * 1000
    full = content(d, after(d, pid_row, t, "a census after the directory's rename"))
    assert full["repeats"] is None and str(moved / "steady-renamed") in paths(d, full["id"])

    # deleted: maps says so
    os.unlink(moved / "steady-renamed")
    t = time.time() * 1000
    assert "(deleted)" in many.maps()
    full = content(d, after(d, pid_row, t, "a census after the deletion"))
    assert full["repeats"] is None and full["time"] > t
    assert any(p.endswith("(deleted)") for p in paths(d, full["id"])), paths(d, full["id"])

    # a protection changed, the totals the same: the watch tells it
    last_repeat(d, pid_row, t + 300, "a repeat after the deletion")
    before, before_maps = many.rollup(), many.maps()
    many.do("protect")
    t = time.time() * 1000
    assert many.rollup() == before and many.maps() != before_maps
    full = content(d, after(d, pid_row, t, "a census after protect"))
    assert full["repeats"] is None and full["time"] > t
    # one page touched: the rollup tells it
    last_repeat(d, pid_row, t + 300, "a repeat after protect")
    many.do("touch")
    t = time.time() * 1000
    full2 = content(d, after(d, pid_row, t, "a census after touch"))
    assert full2["repeats"] is None and full2["resident"] - full["resident"] == PAGE


WATCHING_MAPPINGS = "maps, before a census, only of those whose mappings they name"


def unread_repeats(d, pid_row, t_ms, n=1, what=None):
    """Repeats taken after t_ms that read nothing (bytes_read 0)."""
    return d.wait_rows("SELECT * FROM censuses WHERE process_id = ? AND time > ? AND repeats IS NOT NULL"
                       " AND bytes_read = 0 ORDER BY time", pid_row, t_ms, n=n, what=what or "unread repeats")


@pytest.mark.skipif(os.geteuid() != 0, reason="the change watch needs root")
def test_an_untouched_process_is_repeated_unread(tmp_path, steady, daemons):
    d = daemons(tmp_path, config(steady.pid, "1h")).start()
    d.wait_for(lambda: WATCHING_MAPPINGS in d.logs(), what="the change watch's start, with the mappings")
    pid_row = d.process_id(steady.pid)
    rollup, maps = steady.rollup(), steady.maps()
    reps = unread_repeats(d, pid_row, 0, n=3, what="three repeats that read nothing")[:3]
    assert steady.rollup() == rollup and steady.maps() == maps
    held = census(d, reps[0]["repeats"])
    assert held["repeats"] is None and held["bytes_read"] > 0
    for r in reps:
        assert r["status"] == "ok" and r["repeats"] == held["id"] and r["time"] > held["time"]
        for key in ("private", "resident", "pss", "swap", "size", "regions"):
            assert r[key] == held[key], key
    assert d.ask({"op": "status"})["result"]["censuses"]["repeated"] >= 3
    # a page touched: the kernel tells it, and the next census is a full one
    steady.do("touch")
    t = time.time() * 1000
    full = content(d, after(d, pid_row, t, "a census after touch"))
    assert full["repeats"] is None and full["time"] > t and full["resident"] - held["resident"] == PAGE
    # ... which the censuses after it repeat, reading nothing again
    rep = unread_repeats(d, pid_row, full["time"], what="a repeat of the census after touch")[0]
    assert rep["repeats"] == full["id"]


@pytest.mark.skipif(os.geteuid() != 0, reason="the change watch needs root")
def test_a_change_no_event_tells_is_found_by_the_check(tmp_path, steady, daemons):
    check_s = 6
    d = daemons(tmp_path, config(steady.pid, f"{check_s}s")).start()
    d.wait_for(lambda: WATCHING_MAPPINGS in d.logs(), what="the change watch's start, with the mappings")
    pid_row = d.process_id(steady.pid)
    # 512 pages written, then shared with a child: the fork takes the mmap
    # lock, so a full census after it holds them shared
    steady.do("fork")
    t = time.time() * 1000
    held = content(d, after(d, pid_row, t, "a census after the fork"))
    assert held["repeats"] is None and held["time"] > t
    before, maps = steady.rollup(), steady.maps()
    # the child killed: the pages are the process's own again, and the
    # kernel tells no event of it (no page, mapping or counter of this
    # process moved)
    steady.do("reap")
    t = time.time() * 1000
    rollup = steady.rollup()
    moved_kb = rollup["Pss"] - before["Pss"]
    assert moved_kb >= 512 * PAGE // 1024 // 2 - 64, (before, rollup)
    assert rollup["Rss"] == before["Rss"] and steady.maps() == maps
    # the censuses right after it repeat the census of the shared pages,
    # reading nothing: the change watch missed it
    rep = unread_repeats(d, pid_row, t + 300, what="a repeat after the reap")[0]
    assert rep["repeats"] == held["id"] and rep["pss"] == held["pss"]
    # once SteadyCheckInterval has passed since the last read, the check
    # reads smaps_rollup, which differs: a full census with the pages the
    # process's own
    full = d.wait_rows("SELECT * FROM censuses WHERE process_id = ? AND time > ? AND repeats IS NULL"
                       " ORDER BY time LIMIT 1", pid_row, t, timeout=check_s + 15,
                       what="a full census after the reap")[0]
    assert full["time"] <= held["time"] + (check_s + 3) * 1000, (full, held)
    # the census's pss holds the share of file pages too, which other
    # processes move a little
    assert abs((full["pss"] - held["pss"]) - moved_kb * 1024) < 128 * 1024, (full["pss"], held["pss"], moved_kb)
    assert (full["private"], full["resident"]) == (held["private"], held["resident"])


def has_procmap_query():
    """Linux 6.11 and later answer PROCMAP_QUERY on /proc/PID/maps."""
    major, minor = (int(x) for x in os.uname().release.split(".")[:2])
    return (major, minor) >= (6, 11)


def sizes(s):
    """The bytes of the steady helper's maps, and of its smaps_rollup and
    statm together: what the check reads with maps and without it."""
    with open(f"/proc/{s.pid}/smaps_rollup") as f:
        rollup = len(f.read())
    with open(f"/proc/{s.pid}/statm") as f:
        rollup += len(f.read())
    return len(s.maps()), rollup


@pytest.mark.skipif(not has_procmap_query(), reason="the check without maps needs PROCMAP_QUERY (Linux 6.11)")
def test_without_the_watch_maps_is_read_once_a_check_interval(tmp_path, steady, daemons):
    check_s = 6
    d = daemons(tmp_path, config(steady.pid, f"{check_s}s", watch=False)).start()
    pid_row = d.process_id(steady.pid)
    maps_size, rollup_size = sizes(steady)
    assert rollup_size + 64 < maps_size, (rollup_size, maps_size)
    # the checks between two reads of maps read statm and smaps_rollup and
    # no line of maps (the file mappings come through the ioctl) ...
    reps = d.wait_rows("SELECT * FROM censuses WHERE process_id = ? AND repeats IS NOT NULL AND bytes_read < ?"
                       " ORDER BY time", pid_row, maps_size, n=3, what="three repeats that read no maps")
    assert all(0 < r["bytes_read"] <= rollup_size + 64 for r in reps), (reps, rollup_size)
    # ... and once SteadyCheckInterval has passed since the last read of
    # maps, the check reads it again
    whole = d.wait_rows("SELECT * FROM censuses WHERE process_id = ? AND repeats IS NOT NULL AND time > ?"
                        " AND bytes_read >= ? ORDER BY time LIMIT 1", pid_row, reps[0]["time"], maps_size,
                        timeout=check_s + 15, what="a repeat that read maps")[0]
    held = census(d, whole["repeats"])
    # an anonymous mapping protected differently, every total the same,
    # just after that read: statm, the rollup and the file mappings are as
    # they were, and the censuses right after it still repeat the census
    # before it (the check missed it) ...
    before, before_maps = steady.rollup(), steady.maps()
    steady.do("protect")
    t = time.time() * 1000
    assert steady.rollup() == before and steady.maps() != before_maps
    rep = d.wait_rows("SELECT * FROM censuses WHERE process_id = ? AND time > ? AND repeats IS NOT NULL"
                      " ORDER BY time LIMIT 1", pid_row, t + 300, what="a repeat after protect")[0]
    assert rep["repeats"] == held["id"] and rep["bytes_read"] < maps_size, (rep, held)
    # ... until the next read of maps, within SteadyCheckInterval of the
    # last: a full census of the process as it is now
    full = d.wait_rows("SELECT * FROM censuses WHERE process_id = ? AND time > ? AND repeats IS NULL"
                       " ORDER BY time LIMIT 1", pid_row, t, timeout=check_s + 15,
                       what="a full census after protect")[0]
    assert rep["time"] < full["time"] <= whole["time"] + (check_s + 3) * 1000, (full, whole)
    assert full["regions"] != held["regions"], (full, held)
    assert (full["private"], full["resident"]) == (held["private"], held["resident"])
    # a page touched is seen at once, through the rollup
    last_repeat(d, pid_row, full["time"], "a repeat after the full census")
    steady.do("touch")
    t = time.time() * 1000
    c = content(d, after(d, pid_row, t, "a census after touch"))
    assert c["repeats"] is None and c["resident"] - full["resident"] == PAGE


def test_without_the_watch_a_child_reaped_is_found_by_the_check(tmp_path, steady, daemons):
    check_s = 6
    d = daemons(tmp_path, config(steady.pid, f"{check_s}s", watch=False)).start()
    pid_row = d.process_id(steady.pid)
    steady.do("fork")
    t = time.time() * 1000
    held = content(d, after(d, pid_row, t, "a census after the fork"))
    assert held["repeats"] is None and held["time"] > t
    last_repeat(d, pid_row, held["time"], "a repeat after the fork")
    before, maps = steady.rollup(), steady.maps()
    # the child killed: the pages it shared are the process's own, with no
    # mapping or counter of this process moved; smaps_rollup's pss tells
    # it, which every check without the watch reads
    steady.do("reap")
    t = time.time() * 1000
    rollup = steady.rollup()
    moved_kb = rollup["Pss"] - before["Pss"]
    assert moved_kb >= 512 * PAGE // 1024 // 2 - 64, (before, rollup)
    assert rollup["Rss"] == before["Rss"] and steady.maps() == maps
    full = d.wait_rows("SELECT * FROM censuses WHERE process_id = ? AND time > ? AND repeats IS NULL"
                       " ORDER BY time LIMIT 1", pid_row, t, timeout=check_s + 15,
                       what="a full census after the reap")[0]
    # the next census, well within SteadyCheckInterval: no repeat of the
    # census of the shared pages came between
    assert full["time"] <= t + (check_s - 2) * 1000, (full, t)
    assert not d.query("SELECT * FROM censuses WHERE process_id = ? AND time > ? AND time < ?"
                       " AND repeats = ?", pid_row, t + 300, full["time"], held["id"])
    assert abs((full["pss"] - held["pss"]) - moved_kb * 1024) < 128 * 1024, (full["pss"], held["pss"], moved_kb)
    assert (full["private"], full["resident"]) == (held["private"], held["resident"])
