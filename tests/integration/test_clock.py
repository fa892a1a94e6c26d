"""The wall clock set back or forward while ramwatchd runs (libfaketime,
its offset rewritten during the test; the monotonic clock stays real):
sampling keeps its pace, each process's rows stay in time order, history
still finds the process, retention neither expires nor rolls up recent
rows, and the jump is logged once (ramwatchd(8), CLOCK JUMPS)."""
import json
import os
import re
import time

import pytest

from conftest import HELPERS, asan_runtime, run
from rwdaemon import RAMWATCHD, fast_config

LIBFAKETIME = "/usr/lib/x86_64-linux-gnu/faketime/libfaketime.so.1"
# before it: the timers' own timerfd calls (tests/helpers/real-timerfd.c)
REAL_TIMERFD = os.path.join(HELPERS, "real-timerfd.so")
HOUR = 3600
DAY = 24 * HOUR

pytestmark = pytest.mark.skipif(not os.path.exists(LIBFAKETIME),
                                reason=f"{LIBFAKETIME} missing (Debian's faketime; make deps installs it)")


class FakeClock:
    """The offset of the daemon's wall clock, in a file libfaketime reads at
    every call (FAKETIME_NO_CACHE)."""

    def __init__(self, tmp):
        self.path = os.path.join(str(tmp), "faketime.rc")
        self.set(0)

    def set(self, offset_s):
        # written whole, then renamed: never read half-written
        with open(self.path + ".new", "w") as f:
            f.write(f"{offset_s:+d}\n")
        os.rename(self.path + ".new", self.path)

    def env(self):
        # an ASan build's runtime must come first of all
        preload = [p for p in (asan_runtime(RAMWATCHD), REAL_TIMERFD, LIBFAKETIME) if p]
        return {"LD_PRELOAD": " ".join(preload), "FAKETIME_TIMESTAMP_FILE": self.path, "FAKETIME_NO_CACHE": "1",
                "FAKETIME_DONT_FAKE_MONOTONIC": "1"}


def jump_notices(d):
    return re.findall(r"the wall clock was set (back|forward) by ([\d.]+) s", d.logs())


def sample_times(d, process_id):
    """The times of the raw rows of a process, a coalesced row standing for
    a row at each store tick of its span."""
    return d.tick_times(process_id)


def test_clock_set_back_an_hour(tmp_path, shapes, daemons):
    clock = FakeClock(tmp_path)
    d = daemons(tmp_path, fast_config(f"Watch=pid:{shapes.pid}"), env=clock.env()).start()
    pid_row = d.process_id(shapes.pid)
    d.wait_ticks(pid_row, 3)
    earlier = sample_times(d, pid_row)
    before = len(earlier)
    clock.set(-HOUR)
    d.wait_for(lambda: jump_notices(d), what="the jump logged")
    jumped_at = time.monotonic()
    # sampling keeps its pace: StoreInterval=1s on the monotonic clock,
    # so about five more rows in five seconds, not none for an hour
    time.sleep(5)
    times = sample_times(d, pid_row)
    after = len(times) - before
    assert 3 <= after <= 8, (before, after, time.monotonic() - jumped_at)
    # each row after the one before it: every row stored after the jump
    # is later than every row stored before it (a time shared with an
    # earlier row would have lost the row: the count above)
    later = sorted(set(times) - set(earlier))
    assert len(later) == after and later[0] > earlier[-1], (earlier, later)
    # ... also the censuses, whose times the first one took before the jump
    census_times = [r["time"] for r in d.query("SELECT time FROM censuses WHERE process_id = ? ORDER BY id",
                                               pid_row)]
    assert census_times == sorted(census_times)
    # the rows after the jump keep the pace of the monotonic clock, an
    # hour ahead of the wall clock now
    steps = [b - a for a, b in zip([earlier[-1]] + later, later)]
    assert all(500 <= s <= 2500 for s in steps), steps
    assert times[-1] > time.time() * 1000 - HOUR * 1000 + 60 * 1000

    # history, asked with the real clock, still shows the process and
    # its latest rows
    r = run("history", "--pid", shapes.pid, "--format", "json", "--socket", d.socket, check=0)
    h = json.loads(r.stdout)
    assert [i["pid"] for i in h["instances"]] == [shapes.pid]
    assert round(h["samples"][-1]["until"] * 1000) >= times[-1], h["samples"][-3:]  # JSON: seconds
    out = run("history", "--pid", shapes.pid, "--socket", d.socket, check=0).stdout
    assert out.startswith(f"shapes [{shapes.pid}] ")

    # logged once, saying which way and by how much
    time.sleep(1)
    notices = jump_notices(d)
    assert len(notices) == 1 and notices[0][0] == "back" and abs(float(notices[0][1]) - HOUR) < 2, notices
    assert d.stop() == 0


# Retention=1h: expiry would take the rows; the default (30 days): the
# rollup of raw rows older than a day would
@pytest.mark.parametrize("store", ["[Store]\nRetention=1h\n", ""], ids=["retention-1h", "retention-default"])
def test_clock_set_forward_a_day_keeps_recent_rows(tmp_path, shapes, daemons, store):
    clock = FakeClock(tmp_path)
    cfg = fast_config(f"Watch=pid:{shapes.pid}", store)
    d = daemons(tmp_path, cfg, env=clock.env()).start()
    pid_row = d.process_id(shapes.pid)
    d.wait_ticks(pid_row, 2)
    first_census = d.wait_rows("SELECT * FROM censuses WHERE process_id = ?", pid_row)[0]
    assert "retention from" not in d.logs(), "set the clock forward before the first retention run (5 s)"
    clock.set(DAY)
    early = sample_times(d, pid_row)
    # the first retention run, 5 s after the start, with the wall clock a day ahead
    runs = d.wait_for(lambda: re.findall(r"retention from (\d+) \(unix ms; the wall clock says (\d+)\)", d.logs()),
                      what="a retention run", timeout=15)
    now, wall = map(int, runs[0])
    assert wall - now > DAY * 1000 - 60 * 1000, runs[0]
    # ... then one more store cycle after it
    time.sleep(1.5)
    # the rows of the minutes before the jump are there, still raw: not
    # expired (Retention=1h) nor rolled up (raw rows are kept a day)
    raw = set(sample_times(d, pid_row))
    assert set(early) <= raw
    assert d.query("SELECT * FROM samples WHERE resolution <> 0") == []
    assert d.query("SELECT id FROM censuses WHERE id = ?", first_census["id"]) != []
    # the rows after the jump are at the wall clock's time: what users ask about
    assert max(raw) > time.time() * 1000 + DAY * 1000 - 60 * 1000
    notices = jump_notices(d)
    assert len(notices) == 1 and notices[0][0] == "forward" and abs(float(notices[0][1]) - DAY) < 2, notices
    assert d.stop() == 0
