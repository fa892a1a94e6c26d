"""Discovery end to end: a process passed over is picked up when it
changes (an exec into a selected name, growth past MinPrivate, another
process on its pid), with the proc connector and without it: the daemon
in a network namespace of its own, where the connector does not exist
(as under PrivateNetwork=yes; Linux 6.6 and later let any user of the
initial namespaces listen, so dropping privileges is not enough)."""
import os
import shutil
import subprocess
import sys
import time

import pytest

from rwdaemon import fast_config

CONNECTOR = "discovery learns of new and changed processes from the proc connector"
NO_CONNECTOR = "the proc connector cannot be listened to"

# Real processes: each waits for a line on standard input, then changes.
EXEC_LATER = "import os, sys; sys.stdin.readline(); os.execv(sys.argv[1], [sys.argv[1], '300'])"
GROW_LATER = ("import sys; small = b'x'; sys.stdin.readline(); "
              "big = bytearray(b'\\x01') * ({mib} << 20); sys.stdin.readline()  # rw-grow-marker")


@pytest.fixture(params=["connector", "listing"])
def mode(request):
    if os.geteuid() != 0:
        pytest.skip("a network namespace and ns_last_pid need root")
    return request.param == "listing"


def start(tmp_path, daemons, own_netns, watch, min_private="0", interval="1s"):
    config = (fast_config(watch).replace("DiscoverInterval=200ms", f"DiscoverInterval={interval}")
              .replace("MinPrivate=0", f"MinPrivate={min_private}"))
    d = daemons(tmp_path, config, wrap=["unshare", "--net"] if own_netns else []).start()
    d.wait_for(lambda: CONNECTOR in d.logs() or NO_CONNECTOR in d.logs(), what="how discovery learns")
    assert (CONNECTOR in d.logs()) == (not own_netns), d.logs()
    return d


def watching(d, pid):
    return f"watching process {pid} " in d.logs()


def wait_watched(d, pid, within):
    """Waits for the daemon to say it watches pid; returns how long that took."""
    t0 = time.monotonic()
    d.wait_for(lambda: watching(d, pid), what=f"process {pid} watched", timeout=within + 10)
    return time.monotonic() - t0


def test_an_exec_into_a_selected_name_is_picked_up(tmp_path, daemons, mode):
    binary = tmp_path / "rw-disc-exec"
    shutil.copy("/bin/sleep", binary)
    d = start(tmp_path, daemons, mode, "Watch=name:rw-disc-exec")
    p = subprocess.Popen([sys.executable, "-c", EXEC_LATER, str(binary)], stdin=subprocess.PIPE)
    try:
        # passed over (its name is python3's) by two passes at least
        time.sleep(2.5)
        assert not watching(d, p.pid)
        p.stdin.write(b"go\n")
        p.stdin.flush()
        took = wait_watched(d, p.pid, 1)
        # the next pass after the exec: within one DiscoverInterval (and
        # the time to notice the log line)
        assert took < 1.8, took
    finally:
        p.kill()
        p.wait()


def test_growth_past_min_private_is_picked_up(tmp_path, daemons, mode):
    d = start(tmp_path, daemons, mode, "Watch=cmdline:*rw-grow-marker*", "64M")
    p = subprocess.Popen([sys.executable, "-c", GROW_LATER.format(mib=96)], stdin=subprocess.PIPE)
    try:
        time.sleep(2.5)
        assert not watching(d, p.pid)
        p.stdin.write(b"grow\n")
        p.stdin.flush()
        took = wait_watched(d, p.pid, 1)
        assert took < 2.5, took  # allocating and touching 96 MiB takes some of it
    finally:
        p.kill()
        p.wait()


def test_another_process_on_a_passed_over_pid_is_considered_afresh(tmp_path, daemons, mode):
    """A process below MinPrivate exits; the kernel hands its pid to a
    process above it, which is watched: what was known of the pid was
    the other instance's."""
    d = start(tmp_path, daemons, mode, "Watch=cmdline:*rw-grow-marker*", "64M")
    small = subprocess.Popen([sys.executable, "-c", GROW_LATER.format(mib=1)], stdin=subprocess.PIPE)
    pid = small.pid
    time.sleep(2.5)
    assert not watching(d, pid)
    small.kill()
    small.wait()
    big = None
    for _ in range(50):
        with open("/proc/sys/kernel/ns_last_pid", "w") as f:
            f.write(str(pid - 1))
        q = subprocess.Popen([sys.executable, "-c", GROW_LATER.format(mib=96)], stdin=subprocess.PIPE)
        if q.pid == pid:
            big = q
            break
        q.kill()
        q.wait()
    if big is None:
        pytest.skip("the kernel did not hand out the same pid again")
    try:
        big.stdin.write(b"grow\n")
        big.stdin.flush()
        wait_watched(d, pid, 2.5)
    finally:
        big.kill()
        big.wait()
