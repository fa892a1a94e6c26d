"""The daemon's event loop on Windows (daemon/windows/event-loop.c, an I/O
completion port) under Wine, run for real by tests/windows/looptest.c:
timers fire on time, re-armed, disarmed or freed by another callback;
wake-ups posted by another thread all reach the loop; deferred work runs
once before the loop waits again; a signalled handle is told while it is
signalled, paced; an overlapped named pipe connects, reads and writes
through the port, and a read cancelled by freeing its source costs
nothing; a stop or reload request reaches the loop from another thread,
and the console's Ctrl-C (Wine turns SIGINT into one) stops it.
Run by make check-windows."""
import json
import os
import signal
import subprocess

import pytest

from wine import WIN, WINE, session

LOOPTEST = os.path.join(WIN, "tests", "looptest.exe")
ERROR_BROKEN_PIPE = 109
EOPNOTSUPP = 130  # mingw's errno.h


@pytest.fixture(scope="module")
def wine_env():
    yield from session(((LOOPTEST, "looptest.exe (make check-windows)"),))


@pytest.fixture(scope="module")
def cases(wine_env):
    r = subprocess.run([WINE, LOOPTEST], env=wine_env, capture_output=True, text=True, timeout=120)
    assert r.returncode == 0, (r.returncode, r.stderr, r.stdout)
    return {c["case"]: c for c in map(json.loads, r.stdout.splitlines())}


def test_timers(cases):
    t = cases["timers"]
    # due at 50 ms with 1 ms of accuracy: not early, and late by no more
    # than the wait's granularity and a loaded machine's slack
    assert 0 <= t["once_late_us"] < 200_000, t
    # five times 20 ms, each re-armed from its own callback
    assert t["periodic"] == 5
    assert 100_000 <= t["periodic_us"] < 1_000_000, t
    assert t["disarmed"] == 0
    # of two timers due together, the first to run frees the other
    assert t["pair"] == 1


def test_wake_ups_from_another_thread(cases):
    w = cases["wake"]
    assert w["seen"] == w["posts"] == 10000
    # posts coalesce: far fewer calls than posts, and at least one
    assert 1 <= w["calls"] < w["posts"]


def test_deferred_work_runs_once_before_the_next_wait(cases):
    d = cases["defer"]
    assert d["runs"] == 1
    assert d["after_us"] < 20_000, d


def test_signalled_handle(cases):
    h = cases["handle"]
    # told again while signalled, at most once per 20 ms (paced)
    assert h["told"] == 5
    assert h["span_us"] >= 4 * 20_000 - 2_000, h
    assert h["after_reset"] == 0
    # a handle is waited for, not written: EVENT_OUT is refused
    assert h["out"] == -EOPNOTSUPP


def test_overlapped_pipe(cases):
    p = cases["pipe"]
    assert p["connected"] is True
    assert p["got"] == "hello"
    assert p["written"] is True
    assert p["reply"] == "HELLO"
    # the client closed its end after reading: the next read says so
    assert p["end_error"] == ERROR_BROKEN_PIPE
    assert p["pending"] == 0
    c = cases["pipe-cancel"]
    assert c["pending_before"] == 1
    assert c["connected"] is False


def test_request_from_another_thread(cases):
    r = cases["request"]
    assert r == {"case": "request", "n": 1, "what": "reload", "why": "test reload"}


def test_console_ctrl_c_stops_the_loop(wine_env):
    p = subprocess.Popen([WINE, LOOPTEST, "console"], env=wine_env, stdout=subprocess.PIPE, text=True)
    try:
        assert p.stdout.readline().strip() == "ready"
        os.kill(p.pid, signal.SIGINT)
        out, _ = p.communicate(timeout=30)
    finally:
        if p.poll() is None:
            p.kill()
            p.wait()
    lines = [json.loads(x) for x in out.splitlines()]
    assert lines == [{"case": "console", "what": "stop", "why": "Ctrl-C"}, {"case": "console-exit", "code": 7}]
    assert p.returncode == 0
