"""Discovery end to end: a process passed over is picked up when it
changes (an exec into a selected name, growth past MinPrivate, another
process on its pid), from each source of events and without any: the
process watch (BPF) in a network namespace of its own, where the proc
connector does not exist (as under PrivateNetwork=yes; Linux 6.6 and
later let any user of the initial namespaces listen, so dropping
privileges is not enough); the connector with the watch turned off
(ProcessWatch=no); neither, listing /proc.  And with the watch, the
connector out of reach: a new process is found within a second and its
exit seen, by passes that list nothing."""
import os
import shutil
import subprocess
import sys
import time

import pytest

from conftest import RAMWATCH
from rwdaemon import fast_config

LEARNS = {
    "bpf": "discovery learns of new and changed processes from the process watch (BPF)",
    "connector": "discovery learns of new and changed processes from the proc connector",
    "listing": "every DiscoverInterval lists every process",
}

# Real processes: each waits for a line on standard input, then changes.
EXEC_LATER = "import os, sys; sys.stdin.readline(); os.execv(sys.argv[1], [sys.argv[1], '300'])"
GROW_LATER = ("import sys; small = b'x'; sys.stdin.readline(); "
              "big = bytearray(b'\\x01') * ({mib} << 20); sys.stdin.readline()  # rw-grow-marker")


def bpf_loads():
    return os.geteuid() == 0 and os.path.exists("/sys/kernel/btf/vmlinux")


@pytest.fixture(params=["bpf", "connector", "listing"])
def mode(request):
    if os.geteuid() != 0:
        pytest.skip("a network namespace and ns_last_pid need root")
    if request.param == "bpf" and not bpf_loads():
        pytest.skip("the process watch needs a kernel with BTF")
    return request.param


def start(tmp_path, daemons, mode, watch, min_private="0", interval="1s"):
    """A daemon whose discovery learns from mode's source: the connector is
    out of reach in a network namespace of its own, the watch is turned
    off by ProcessWatch=no."""
    extra = "" if mode == "bpf" else "ProcessWatch=no"
    config = (fast_config(watch).replace("DiscoverInterval=200ms", f"DiscoverInterval={interval}\n{extra}")
              .replace("MinPrivate=0", f"MinPrivate={min_private}"))
    wrap = [] if mode == "connector" else ["unshare", "--net"]
    d = daemons(tmp_path, config, wrap=wrap).start()
    d.wait_for(lambda: any(line in d.logs() for line in LEARNS.values()), what="how discovery learns")
    assert LEARNS[mode] in d.logs(), d.logs()
    status = d.ask({"op": "status"})["result"]["discovery"]
    assert status["source"] == mode, status
    if mode == "connector":
        assert status["why"] == "bpf: ProcessWatch=no", status
    if mode == "listing":
        assert status["why"].startswith("bpf: ProcessWatch=no; connector: "), status
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


def test_the_process_watch_finds_a_new_process_and_its_exit_without_the_connector(tmp_path, daemons):
    """The daemon confined as the unit confines it (no network of the
    host's, so no proc connector) still learns of processes as they
    start and exit: after the first pass, none lists /proc."""
    if not bpf_loads():
        pytest.skip("the process watch needs root and a kernel with BTF")
    binary = tmp_path / "rw-disc-new"
    shutil.copy("/bin/sleep", binary)
    d = start(tmp_path, daemons, "bpf", "Watch=name:rw-disc-new", interval="500ms")
    # the connector is out of reach here: the status names no better source
    assert d.ask({"op": "status"})["result"]["discovery"]["why"] is None
    p = subprocess.Popen([str(binary), "300"])
    try:
        took = wait_watched(d, p.pid, 1)
        assert took < 1.0, took
    finally:
        p.kill()
        p.wait()
    d.wait_for(lambda: f"process {p.pid} (rw-disc-new) exited" in d.logs(), what="its exit", timeout=2)
    status = d.ask({"op": "status"})["result"]["discovery"]
    assert status["source"] == "bpf"
    # found by a pass that read only what the watch told
    assert status["full_passes"] == 1 and status["passes"] >= 2, status
    assert status["lost"] == 0, status
    text = subprocess.run([RAMWATCH, "--socket", d.socket, "status"],
                          capture_output=True, text=True)
    assert "events from the process watch (BPF)" in text.stdout, text.stdout + text.stderr
