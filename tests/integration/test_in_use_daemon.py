"""In use or kept, kept by a real ramwatchd watching a real program.

tests/helpers/allocs.c holds blocks of glibc's heap and, told so on its
standard input, grows it (1 KiB blocks, written) or frees three in four of
what it grew, answering with glibc's own mallinfo2().  The daemon reads
the malloc class's in use and free at the censuses that matter (the
first, growth, a request) and at most every InUseInterval otherwise; the
stored figures add up to the class's private bytes, agree with mallinfo2
(in use = uordblks + hblkhd, free = fordblks, within 3 % or 2 MiB) and
follow the program: a growth census sees in use grow, a census after the
program freed sees free grow instead.  The report says which: held by the
program, or kept by the allocator; history says in use beside private,
and that the interval censuses in between read none."""
import os
import time

import pytest

from conftest import HELPERS, MiB, run, scan_json, wait_idle
from heapcheck import Target, adds_up, near
from rwdaemon import fast_config


class Allocs(Target):
    """The helper, its pipes kept to give it commands."""

    def __init__(self):
        super().__init__([os.path.join(HELPERS, "allocs"), "--sizes=1", "--threads=0", "--small=2000"])

    def command(self, text):
        answer = self.ask(text)
        wait_idle(self.pid)
        return answer["mallinfo"]


@pytest.fixture
def allocs():
    with Allocs() as a:
        yield a


def config(pid, extra=""):
    # interval censuses every second, in use read by them at most hourly;
    # growth of 32 MiB takes a census
    return fast_config(f"Watch=pid:{pid}",
                       extra="Evidence=yes\nInUseInterval=1h\n" + extra).replace("CensusInterval=1h",
                                                                                "CensusInterval=1s")


def malloc_row(d, census_id):
    """The malloc class of a stored census (a repeat: of the census it repeats)."""
    rows = d.query("SELECT k.* FROM censuses c JOIN census_classes k ON k.census_id = coalesce(c.repeats, c.id)"
                   " WHERE c.id = ? AND k.class = 'malloc'", census_id)
    assert rows, f"census {census_id} has no malloc class"
    return rows[0]


def agrees(ours, theirs, what):
    assert near(ours, theirs), f"{what}: stored {ours}, mallinfo2 {theirs}"


def agrees_with(k, m):
    adds_up(k)
    assert k["how"].startswith("glibc 2."), k["how"]
    assert k["unknown"] == 0, k
    agrees(k["in_use"], m["uordblks"] + m["hblkhd"], "in use")
    agrees(k["free"], m["fordblks"], "free")


def request(d, pid):
    """A census asked for now, stored: its row."""
    a = d.ask({"op": "scan", "pid": pid}, timeout=60)
    assert a["ok"], a
    taken = a["result"]["taken_at"]
    return d.wait_rows("SELECT * FROM censuses WHERE time = ? AND trigger = 'request'", taken,
                       what="the requested census stored")[0]


def test_stored_figures_follow_the_program(tmp_path, allocs, daemons):
    m0 = allocs.command("stats")
    d = daemons(tmp_path, config(allocs.pid)).start()
    pid_row = d.process_id(allocs.pid)

    # the first census reads them, and its cost counts the walk
    first = d.wait_rows("SELECT * FROM censuses WHERE process_id = ? AND trigger = 'first'", pid_row)[0]
    assert first["status"] == "ok" and first["cpu_us"] > 0 and first["wall_us"] >= first["cpu_us"] / 2
    k0 = malloc_row(d, first["id"])
    agrees_with(k0, m0)
    # the census's totals: the sums over the classes that know them
    assert first["in_use"] == sum(r["in_use"] or 0 for r in d.query(
        "SELECT in_use FROM census_classes WHERE census_id = ?", first["id"]))

    # interval censuses between (a MiB more, so that one is a census of
    # its own, not a repeat): no figures, said so by history
    t = int(time.time() * 1000)
    allocs.command("grow 1")
    interval = d.wait_rows("SELECT * FROM censuses WHERE process_id = ? AND trigger = 'interval'"
                           " AND repeats IS NULL AND time > ?", pid_row, t, what="a full interval census")[0]
    assert interval["in_use"] is None and malloc_row(d, interval["id"])["in_use"] is None
    history = run("history", "--pid", str(allocs.pid), "--socket", d.socket).stdout
    assert "; in use not read\n" in history, history
    assert " in use)" in history, history

    # the program grows its heap by 64 MiB: a growth census reads it held.
    # The growth census comes once 32 MiB more are resident, so on a busy
    # machine it may read while the program still grows: a heap in motion,
    # whose figures are not mallinfo2's once it is done (and whose top chunk
    # may end past the [heap] the census read, so that its walk says
    # unknown, and why).  Then a census asked for after the growth reads them.
    t = int(time.time() * 1000)
    m1 = allocs.command("grow 64")
    done = int(time.time() * 1000)
    growth = d.wait_rows("SELECT * FROM censuses WHERE process_id = ? AND trigger = 'growth' AND time > ?",
                         pid_row, t, what="a growth census", timeout=30)[0]
    k1 = malloc_row(d, growth["id"])
    assert k1["how"].startswith("glibc 2."), k1
    held = growth
    if growth["time"] - growth["wall_us"] // 1000 < done:
        held = request(d, allocs.pid)
        k1 = malloc_row(d, held["id"])
    agrees_with(k1, m1)
    assert k1["in_use"] - k0["in_use"] > 60 * MiB, (k0, k1)
    assert abs(k1["free"] - k0["free"]) < 4 * MiB, (k0, k1)

    # it frees three in four of them: private memory stays, and a census
    # asked for reads what glibc keeps free
    m2 = allocs.command("drop")
    k2 = malloc_row(d, request(d, allocs.pid)["id"])
    agrees_with(k2, m2)
    assert k1["in_use"] - k2["in_use"] > 40 * MiB, (k1, k2)
    assert k2["free"] - k1["free"] > 40 * MiB, (k1, k2)
    assert abs(k2["private"] - k1["private"]) < 4 * MiB, (k1, k2)

    # the views a Grafana user reads carry them
    view = d.query("SELECT in_use, free, returnable FROM class_timeline WHERE census_id = ? AND class = 'malloc'",
                   held["id"])[0]
    assert (view["in_use"], view["free"], view["returnable"]) == (k1["in_use"], k1["free"], k1["returnable"])
    series = {r["metric"]: r["value"] for r in d.query(
        "SELECT metric, value FROM grafana_process_in_use WHERE census_id = ?", held["id"])}
    assert series["malloc in use"] == k1["in_use"] and series["malloc free"] == k1["free"]

    # the report: malloc grew from the first census to the last, and what
    # grew was kept free by glibc
    report = run("report", "--pid", str(allocs.pid), "--socket", d.socket).stdout
    assert "## In use or kept" in report, report
    line = next(x for x in report.splitlines() if x.startswith("- **malloc**"))
    assert f"from census #{first['id']} to #" in line and "kept by glibc" in line, line
    answer = d.ask({"op": "report", "pid": allocs.pid})["result"]
    [entry] = [e for e in answer["in_use_or_kept"] if e["class"] == "malloc"]
    assert entry["growth"] == "kept", entry
    assert entry["first"]["census_id"] == first["id"], entry
    # the census that shows free growing is the one after the drop
    assert entry["shown_by"][-1]["free"] == k2["free"], entry


def test_interval_census_reads_at_in_use_interval(tmp_path, allocs, daemons):
    """With InUseInterval=3s, an interval census reads them again once
    three seconds passed since the last census that did, not before; a
    repeat repeats the figures of the census it repeats."""
    d = daemons(tmp_path, config(allocs.pid, "InUseInterval=3s\n")).start()
    pid_row = d.process_id(allocs.pid)
    d.wait_rows("SELECT * FROM censuses WHERE process_id = ? AND trigger = 'first'", pid_row)
    # a MiB more every half second: each interval census is one of its own
    end = time.time() + 10
    while time.time() < end:
        allocs.command("grow 1")
        time.sleep(0.5)
    rows = d.query("SELECT * FROM censuses WHERE process_id = ? AND status = 'ok' AND repeats IS NULL"
                   " ORDER BY time, id", pid_row)
    walked = [r for r in rows if r["in_use"] is not None]
    assert walked[0]["trigger"] == "first"
    interval = [r for r in rows if r["trigger"] == "interval"]
    assert any(r["in_use"] is None for r in interval), rows
    assert any(r["in_use"] is not None for r in interval), rows
    # those that read in use are at least InUseInterval apart
    times = [r["time"] for r in walked]
    assert all(b - a >= 3000 for a, b in zip(times, times[1:])), times
    # and every one read the malloc class
    for r in walked:
        adds_up(malloc_row(d, r["id"]))

    # steady now: its interval censuses are repeats, with the figures of
    # the census they repeat
    t = int(time.time() * 1000)
    repeat = d.wait_rows("SELECT * FROM censuses WHERE process_id = ? AND repeats IS NOT NULL AND time > ?",
                         pid_row, t, what="a repeat", timeout=30)[0]
    repeated = d.query("SELECT * FROM censuses WHERE id = ?", repeat["repeats"])[0]
    assert (repeat["in_use"], repeat["free"]) == (repeated["in_use"], repeated["free"])


def test_walk_stops_at_the_budget(tmp_path, daemons):
    """ScanBudget=0.1%: a census may spend 60 ms at most (the budget's
    whole credit, a minute's share).  A glibc heap of small blocks, three in
    four freed, large enough that its walk takes at least twice that (ramwatch
    scan, unhurried, says how long; 600,000 blocks, 300,000 chunks, and twice
    as many again on a machine that walks that in less): the census stops its
    walk there and does not wait for the rest; what the walk read stands,
    the rest is unknown, and the class says why."""
    credit_us = 60_000
    for small in (600_000, 1_200_000, 2_400_000):
        with Target([os.path.join(HELPERS, "glibc-heap"), f"--small={small}"]) as heap:
            unhurried = scan_json(heap.pid)
            walk_us = unhurried["cost"]["wall_us"]
            # the premise: the whole census takes well past the budget's credit
            if walk_us > 2 * credit_us:
                check_walk_stops(tmp_path, daemons, heap, walk_us)
                return
    raise AssertionError(f"a heap of {small} small blocks took {walk_us} us to walk, not twice {credit_us}")


def check_walk_stops(tmp_path, daemons, heap, walk_us):
    d = daemons(tmp_path, config(heap.pid, "ScanBudget=0.1%\n")).start()
    pid_row = d.process_id(heap.pid)
    first = d.wait_rows("SELECT * FROM censuses WHERE process_id = ? AND trigger = 'first'", pid_row,
                        timeout=30)[0]
    # never waits for the walk past its budget
    assert first["wall_us"] < walk_us, (first["wall_us"], walk_us)
    k = malloc_row(d, first["id"])
    if k["in_use"] is None:
        # the read of smaps alone took the budget: no walk began
        assert k["how"] is None, k
        return
    adds_up(k)
    assert "stopped at the census's deadline" in k["how"], k["how"]
    assert k["unknown"] > 100 * MiB and k["in_use"] + k["free"] > 0, k
