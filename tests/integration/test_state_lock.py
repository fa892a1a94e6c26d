"""One ramwatchd per state directory: the daemon holds a lock on it
(flock on ramwatchd.lock) for as long as it runs, so a second daemon on the
same directory is refused instead of writing into the same database, and
readers, --check-config and daemons on other directories carry on."""
import fcntl
import json
import os
import shutil
import signal
import subprocess
import sys
import time

import pytest

from conftest import run
from rwdaemon import RAMWATCHD, fast_config


def lock_path(d):
    return os.path.join(d.state, "ramwatchd.lock")


def lock_holder(d):
    with open(lock_path(d)) as f:
        return int(f.read())


def on_state_of(daemons, tmp, first, **kw):
    """A daemon of its own (configuration, log, control socket) pointed at
    first's state directory."""
    tmp.mkdir()
    d = daemons(tmp, fast_config("Watch=pid:1"), **kw)
    d.state, d.db_path = first.state, first.db_path
    return d


def refusal(d):
    return (f"another ramwatchd (pid {d.pid}) is using the state directory {d.state} "
            f"(lock {lock_path(d)})")


def samples(d):
    """The store ticks the fast-tier rows stand for (identical rows are
    coalesced into one over their span)."""
    return len(d.tick_times())


def test_a_second_daemon_is_refused(tmp_path, shapes, daemons):
    first = daemons(tmp_path, fast_config(f"Watch=pid:{shapes.pid}")).start()
    first.wait_for(lambda: samples(first) >= 1, what="rows")
    assert lock_holder(first) == first.pid

    second = on_state_of(daemons, tmp_path / "second", first)
    second.start(wait_ready=False)
    assert second.proc.wait(timeout=20) == 1
    second.stop()
    assert refusal(first) in second.logs()
    # refused before anything else of its own: never ready, no socket
    assert not any(n.startswith("READY=1") for n in second.notices)
    assert not os.path.exists(second.socket)
    # the first keeps the lock and keeps writing
    assert first.alive() and lock_holder(first) == first.pid
    before = samples(first)
    first.wait_for(lambda: samples(first) > before, what="rows after the refusal")
    assert first.stop() == 0


def test_a_killed_daemon_leaves_no_stale_lock(tmp_path, shapes, daemons):
    first = daemons(tmp_path, fast_config(f"Watch=pid:{shapes.pid}")).start()
    first.wait_for(lambda: samples(first) >= 1, what="rows")
    first.stop(signal.SIGKILL)
    # the file stays, with the dead daemon's pid in it: only the lock counts
    assert os.path.exists(lock_path(first)) and lock_holder(first) == first.proc.pid

    second = on_state_of(daemons, tmp_path / "second", first)
    started = time.monotonic()
    second.start()  # READY=1, or an AssertionError with its log
    assert time.monotonic() - started < 10
    assert lock_holder(second) == second.pid
    before = samples(second)
    second.wait_for(lambda: samples(second) > before, what="the new daemon's rows")
    assert second.stop() == 0


def test_two_state_directories_side_by_side(tmp_path, shapes, daemons):
    (tmp_path / "a").mkdir()
    (tmp_path / "b").mkdir()
    a = daemons(tmp_path / "a", fast_config(f"Watch=pid:{shapes.pid}")).start()
    b = daemons(tmp_path / "b", fast_config(f"Watch=pid:{shapes.pid}")).start()
    for d in (a, b):
        d.wait_for(lambda: samples(d) >= 2, what="rows in each database")
        assert lock_holder(d) == d.pid
    assert a.alive() and b.alive()
    assert a.stop() == 0 and b.stop() == 0


def test_a_holder_that_has_not_written_its_pid(tmp_path, daemons):
    """Between taking the lock and writing its pid, a holder's file is
    empty: the refusal says so rather than naming a pid."""
    d = daemons(tmp_path, fast_config("Watch=pid:1"))
    os.makedirs(d.state)
    with open(lock_path(d), "w") as held:
        fcntl.flock(held, fcntl.LOCK_EX | fcntl.LOCK_NB)
        d.start(wait_ready=False)
        assert d.proc.wait(timeout=20) == 1
    d.stop()
    assert (f"another ramwatchd is using the state directory {d.state} (lock {lock_path(d)}; its pid is not "
            "written yet)") in d.logs()
    assert not os.path.exists(d.db_path)


def test_a_lock_file_that_is_a_link_is_not_followed(tmp_path, daemons):
    """The lock file is truncated for the pid: never through a symbolic
    link (a daemon run as root on a directory others may write to)."""
    d = daemons(tmp_path, fast_config("Watch=pid:1"))
    os.makedirs(d.state)
    victim = tmp_path / "victim"
    victim.write_text("not to be truncated\n")
    os.symlink(victim, lock_path(d))
    d.start(wait_ready=False)
    assert d.proc.wait(timeout=20) == 1
    d.stop()
    assert f"cannot open the lock file {lock_path(d)}" in d.logs()
    assert victim.read_text() == "not to be truncated\n"
    assert not os.path.exists(d.db_path)


def test_check_config_while_a_daemon_holds_the_lock(tmp_path, daemons):
    d = daemons(tmp_path, fast_config("Watch=pid:1")).start()
    r = subprocess.run([RAMWATCHD, "--check-config", "--config", d.config, "--state-dir", d.state],
                       capture_output=True, text=True, timeout=30)
    assert r.returncode == 0, r.stderr
    assert "SampleInterval=100ms" in r.stdout
    assert d.alive() and lock_holder(d) == d.pid
    # nor does it make a state directory, or a lock in it
    missing = tmp_path / "nowhere"
    r = subprocess.run([RAMWATCHD, "--check-config", "--config", d.config, "--state-dir", str(missing)],
                       capture_output=True, text=True, timeout=30)
    assert r.returncode == 0, r.stderr
    assert not missing.exists()


def test_readers_while_a_daemon_holds_the_lock(tmp_path, shapes, daemons):
    d = daemons(tmp_path, fast_config(f"Watch=pid:{shapes.pid}")).start()
    d.wait_for(lambda: samples(d) >= 2, what="rows")
    r = run("sql", "SELECT count(*) AS n FROM memory_timeline", "--db", d.db_path, "--format", "csv", check=0)
    assert int(r.stdout.splitlines()[1]) >= 2, r.stdout
    # the daemon's own read-only connection (the control socket's history)
    a = d.ask({"op": "history", "pid": shapes.pid})
    assert a["ok"] and a["result"]["samples"][-1]["until"] > a["result"]["samples"][0]["time"], a
    assert d.alive() and lock_holder(d) == d.pid


def detached(config):
    """The pids of the detached daemons started with that configuration."""
    pids = []
    for entry in os.listdir("/proc"):
        if not entry.isdigit():
            continue
        try:
            with open(f"/proc/{entry}/cmdline", "rb") as f:
                args = f.read().split(b"\0")
        except OSError:
            continue
        if args[0] == RAMWATCHD.encode() and str(config).encode() in args and b"--foreground" not in args:
            pids.append(int(entry))
    return pids


def gone(pid):
    """Whether pid has exited (a zombie, not reaped yet, has)."""
    try:
        with open(f"/proc/{pid}/stat") as f:
            return f.read().rsplit(")", 1)[1].split()[0] == "Z"
    except OSError:
        return True


def stop_detached(config):
    pids = detached(config)
    for pid in pids:
        os.kill(pid, signal.SIGTERM)
    deadline = time.time() + 20
    while not all(gone(pid) for pid in pids):
        assert time.time() < deadline, f"detached daemons {pids} did not stop"
        time.sleep(0.05)


def test_a_detached_second_daemon_says_why_on_the_terminal(tmp_path, daemons):
    first = daemons(tmp_path, fast_config("Watch=pid:1")).start()
    second = on_state_of(daemons, tmp_path / "second", first)
    try:
        r = subprocess.run([RAMWATCHD, "--config", second.config, "--state-dir", second.state, "--socket",
                            second.socket], capture_output=True, text=True, timeout=30)
        assert r.returncode == 1
        assert refusal(first) in r.stderr
        assert first.alive() and lock_holder(first) == first.pid
    finally:
        stop_detached(second.config)  # one that was not refused


def test_a_detached_daemon_holds_the_lock(tmp_path, daemons):
    """Detached, the lock is the running child's: the parent that returned
    0 is gone, the child still holds it and its pid is the one named."""
    config = tmp_path / "detached.conf"
    config.write_text(fast_config("Watch=pid:1"))
    state = tmp_path / "state"
    sock = tmp_path / "detached.sock"
    # stderr to a file: the detached daemon keeps it open
    with open(tmp_path / "detached.log", "w") as log:
        r = subprocess.run([RAMWATCHD, "--config", str(config), "--state-dir", str(state), "--socket", str(sock)],
                           stdout=log, stderr=log, timeout=30)
    try:
        assert r.returncode == 0, (tmp_path / "detached.log").read_text()
        pids = detached(config)
        assert len(pids) == 1, pids
        pid = pids[0]
        assert int((state / "ramwatchd.lock").read_text()) == pid
        (tmp_path / "second").mkdir()
        second = daemons(tmp_path / "second", fast_config("Watch=pid:1"))
        second.state, second.db_path = str(state), str(state / "ramwatch.db")
        second.start(wait_ready=False)
        assert second.proc.wait(timeout=20) == 1
        second.stop()
        assert f"another ramwatchd (pid {pid}) is using the state directory {state}" in second.logs()
        assert not gone(pid)
    finally:
        stop_detached(config)


# Run in a mount namespace of its own, with a tmpfs on /run: a journal
# socket (its messages collected), then a detached ramwatchd.  Prints what
# it said on stderr, its status and what the journal got, as JSON.
_WITH_A_JOURNAL = r"""
import json, os, socket, subprocess, sys
subprocess.run(["mount", "-t", "tmpfs", "tmpfs", "/run"], check=True)
os.makedirs("/run/systemd/journal")
j = socket.socket(socket.AF_UNIX, socket.SOCK_DGRAM)
j.bind("/run/systemd/journal/socket")
r = subprocess.run(sys.argv[1:], capture_output=True, text=True, timeout=30)
j.setblocking(False)
got = []
while True:
    try:
        got.append(j.recv(1 << 16).decode(errors="replace"))
    except BlockingIOError:
        break
print(json.dumps({"status": r.returncode, "stderr": r.stderr, "journal": got}))
"""


def test_detached_with_the_journal_the_refusal_still_reaches_the_terminal(tmp_path, daemons):
    """Detached where journald runs, the daemon's stderr goes and its
    messages go to the journal: the refusal is still printed where it was
    started, and logged."""
    if os.geteuid() != 0 or not shutil.which("unshare"):
        pytest.skip("a mount namespace with a journal socket of its own needs root and unshare")
    first = daemons(tmp_path, fast_config("Watch=pid:1")).start()
    second = on_state_of(daemons, tmp_path / "second", first)
    try:
        r = subprocess.run(["unshare", "--mount", "--propagation", "private", sys.executable, "-c",
                            _WITH_A_JOURNAL, RAMWATCHD, "--config", second.config, "--state-dir", second.state,
                            "--socket", second.socket], capture_output=True, text=True, timeout=60)
    finally:
        stop_detached(second.config)  # one that was not refused
    if r.returncode != 0:
        pytest.skip(f"no mount namespace here: {r.stderr.strip()}")
    out = json.loads(r.stdout)
    assert out["status"] == 1, out
    assert f"ramwatchd: {refusal(first)}\n" == out["stderr"], out
    assert any(f"MESSAGE={refusal(first)}" in m for m in out["journal"]), out
    assert first.alive() and lock_holder(first) == first.pid
