"""The daemon's Windows primitives under Wine (Debian's wine64), run for
real by tests/windows/procsnap.c: one snapshot of every process
(daemon/windows/win-procs*.c) finds the ground-truth holder
(tests/windows/holder.c) by its pid and creation time, with the commit it
holds, and no longer finds it once it has exited; processes started one
after another are told apart by their creation times, a pid Wine gives
again included; a process's owner is the SID Windows itself writes
(win-owner.c, win-sid.c); the machine's memory row (win-sysmem*.c) is
Linux's own memory as Wine shows it.

What Wine cannot confirm: a second account's processes (LogonUser is a
stub, so every process is this user's), and the working set and page
faults of real Windows (Wine takes them from each Unix process's status).
Run by make check-windows."""
import json
import os
import subprocess
import time

import pytest

from wine import WIN, WINE, session

HOLDER = os.path.join(WIN, "tests", "holder.exe")
PROCSNAP = os.path.join(WIN, "tests", "procsnap.exe")
KiB, MiB = 1024, 1024 ** 2
FILETIME_UNIX_EPOCH = 116444736000000000


@pytest.fixture(scope="module")
def wine_env():
    yield from session(((PROCSNAP, "procsnap.exe (make check-windows)"),
                        (HOLDER, "holder.exe (make check-windows)")))


def snapshot(env):
    r = subprocess.run([WINE, PROCSNAP], env=env, capture_output=True, text=True, timeout=60)
    if r.returncode == 1 and not r.stdout and not r.stderr:
        # procsnap says why on every failure of its own; exit 1 with
        # nothing said is Wine's loader failing to start it (seen once in
        # hundreds of starts on a loaded machine; its messages are
        # silenced by WINEDEBUG=-all): once more, with Wine's errors on
        r = subprocess.run([WINE, PROCSNAP], env=dict(env, WINEDEBUG="err+all"), capture_output=True, text=True,
                           timeout=60)
    assert r.returncode == 0, (r.returncode, r.stderr, r.stdout[:200])
    return json.loads(r.stdout)


def find(snap, pid, created=None):
    """The record of pid (and creation time), or None."""
    for p in snap["processes"]:
        if p["pid"] == pid and (created is None or p["created"] == created):
            return p
    return None


def start_holder(env):
    p = subprocess.Popen([WINE, HOLDER], env=env, stdin=subprocess.PIPE, stdout=subprocess.PIPE, text=True)
    line = p.stdout.readline()
    assert line, "the holder said nothing"
    return p, json.loads(line)


def stop_holder(p):
    p.stdin.close()
    p.wait(timeout=30)


def committed(made):
    """The private memory the holder committed and touched: its own block,
    its heap's two large blocks and 256 small ones, malloc's block, the
    committed part of its big reservation, write-combined and executable
    memory (the section is shared and the file view is the file's: not
    private)."""
    return (made["private"][1] + 2 * made["heap_block_size"] + 256 * 4 * KiB + made["malloc"][1] + made["big"][2]
            + made["wc"][1] + made["jit"][1])


def wine_own(made):
    """What Wine itself commits for the holder's memory: a byte of page
    protection per page reserved, written for the whole 64 GiB reservation
    (16 MiB; measured under Wine 8.0).  Windows keeps no such table in a
    process's commit."""
    return made["big"][1] // (4 * KiB)


def test_finds_holder_with_its_commit(wine_env):
    p, made = start_holder(wine_env)
    try:
        snap = snapshot(wine_env)
    finally:
        stop_holder(p)
    h = find(snap, made["pid"])
    assert h is not None, f"no process {made['pid']} among {len(snap['processes'])}"
    assert h["created"] == made["created"] == h["created_by_handle"]
    assert h["start_ms"] == (made["created"] - FILETIME_UNIX_EPOCH) // 10000
    assert abs(h["start_ms"] / 1000 - time.time()) < 600
    assert h["name"] == "holder.exe"
    assert h["threads"] >= 4  # its own and the three it made
    # The commit it holds: what it committed beyond what a Wine process
    # holds of its own, which this program (a Wine process that commits
    # little) shows
    base = find(snap, snap["self"])["commit"]
    extra = h["commit"] - base
    want = committed(made) + wine_own(made)
    assert want <= extra <= want + 8 * MiB, (extra / MiB, want / MiB)
    # every byte of it was touched: resident
    assert h["working_set"] >= want and h["peak_working_set"] >= h["working_set"]
    # pids, sorted; each once
    pids = [x["pid"] for x in snap["processes"]]
    assert pids == sorted(pids) and len(set(pids)) == len(pids)


def test_sees_it_exit(wine_env):
    p, made = start_holder(wine_env)
    assert find(snapshot(wine_env), made["pid"], made["created"])
    stop_holder(p)
    deadline = time.monotonic() + 10
    while find(snapshot(wine_env), made["pid"], made["created"]):
        assert time.monotonic() < deadline, "the holder is still listed 10 s after it exited"
        time.sleep(0.2)


def test_tells_processes_apart_by_creation_time(wine_env):
    """Two holders at once: each found with its own creation time, in the
    order they started.  Then short-lived processes one after another until
    Wine gives a pid again: the same pid, another creation time."""
    a, made_a = start_holder(wine_env)
    b, made_b = start_holder(wine_env)
    try:
        snap = snapshot(wine_env)
    finally:
        stop_holder(a)
        stop_holder(b)
    ra, rb = find(snap, made_a["pid"]), find(snap, made_b["pid"])
    assert ra["created"] == made_a["created"] and rb["created"] == made_b["created"]
    assert ra["created"] < rb["created"]
    assert not find(snap, made_a["pid"], made_b["created"]) and not find(snap, made_b["pid"], made_a["created"])

    seen = {}
    for _ in range(600):  # Wine 8.0 gave a pid again after about 300 processes
        snap = snapshot(wine_env)
        me = find(snap, snap["self"])
        if me["pid"] in seen:
            assert seen[me["pid"]] < me["created"], "a pid given again kept its creation time"
            break
        seen[me["pid"]] = me["created"]
    else:
        pytest.fail(f"Wine gave no pid twice in {len(seen)} processes")


def test_owner_is_the_sid_windows_writes(wine_env):
    p, made = start_holder(wine_env)
    try:
        snap = snapshot(wine_env)
    finally:
        stop_holder(p)
    me, h = find(snap, snap["self"]), find(snap, made["pid"])
    assert snap["self_sid"].startswith("S-1-5-")
    assert me["sid"] == snap["self_sid"] == h["sid"]
    assert me["owner"] and me["owner"] == h["owner"]


def test_machine_memory(wine_env):
    """Wine's figures follow Linux's /proc/meminfo."""
    m = snapshot(wine_env)["memory"]
    with open("/proc/meminfo") as f:
        meminfo = {line.split(":")[0]: int(line.split()[1]) * KiB for line in f}
    assert abs(m["mem_total"] - meminfo["MemTotal"]) <= meminfo["MemTotal"] // 100
    assert 0 < m["mem_available"] <= m["mem_total"]
    assert 0 < m["committed_as"] <= m["commit_limit"]
    # the paging files are Linux's swap (in whole pages)
    assert abs(m["swap_total"] - meminfo["SwapTotal"]) <= MiB
    assert m["swap_free"] <= m["swap_total"] == max(0, m["commit_limit"] - m["mem_total"])
    assert m["have_pressure"] is False
