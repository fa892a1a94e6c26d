"""mimalloc's heap read from outside, against mimalloc's own figures.

tests/helpers/heapstat.c, linked with Debian's libmimalloc, keeps one block
in four of many it allocated in three threads (every byte of each block
written), holds a block of its own segment, and prints what mimalloc says
of its heaps (mi_heap_visit_blocks: blocks in use x block size, blocks
carved).  As a user runs `ramwatch scan PID --json`, the malloc class's in
use is mimalloc's, within 3 % or 2 MiB, and its free holds at least the
carved blocks not in use; the census leaves the program's resident memory,
swap and page tables as they were.  A program whose threads allocate and
free while it is read gets checked figures or unknown segments, and the
figures add up to the class's private bytes every time.  A census taken
again from the saved smaps and memory image finds the same."""
import json
import os
import subprocess
import time

import pytest

from conftest import HELPERS, MiB, run, scan_json, stop

HEAPSTAT = os.path.join(HELPERS, "heapstat-mimalloc")
STATUS_KEYS = ("VmRSS", "RssAnon", "VmSwap", "VmPTE")
SMALL = ["--small=40000", "--medium=300", "--threads=2"]


def status(pid):
    out = {}
    with open(f"/proc/{pid}/status") as f:
        for line in f:
            key, _, value = line.partition(":")
            if key in STATUS_KEYS:
                out[key] = int(value.split()[0])
    return out


def wait_sleeping(pid, timeout=10):
    """The helper's threads wait on a condition, its main thread in read():
    settled once no thread runs."""
    deadline = time.time() + timeout
    while time.time() < deadline:
        states = []
        for tid in os.listdir(f"/proc/{pid}/task"):
            with open(f"/proc/{pid}/task/{tid}/stat") as f:
                states.append(f.read().rsplit(")", 1)[1].split()[0])
        if all(s in "SD" for s in states):
            return
        time.sleep(0.01)
    raise AssertionError(f"process {pid} did not settle")


def start(*args, settle=True):
    p = subprocess.Popen([HEAPSTAT, *args], stdin=subprocess.PIPE, stdout=subprocess.PIPE, text=True)
    line = p.stdout.readline()
    assert line, f"heapstat-mimalloc {args} exited before it was ready"
    info = json.loads(line)
    assert info["allocator"] == "mimalloc", info
    if settle:
        wait_sleeping(info["pid"])
    return p, info


def stats(p):
    p.stdin.write("stats\n")
    p.stdin.flush()
    return json.loads(p.stdout.readline())["stats"]


def malloc_class(census):
    for c in census["classes"]:
        if c["key"] == "malloc":
            return c
    raise AssertionError(f"no malloc class in {[c['key'] for c in census['classes']]}")


def adds_up(c):
    for key in ("in_use", "free", "overhead", "unknown", "returnable"):
        assert isinstance(c[key], int) and c[key] >= 0, (key, c)
    assert c["in_use"] + c["free"] + c["overhead"] + c["unknown"] == c["private"], c
    assert c["returnable"] <= c["free"], c


def close(a, b):
    return abs(a - b) <= max(0.03 * b, 2 * MiB)


def test_quiet_program_agrees_with_mimalloc():
    p, info = start(*SMALL)
    try:
        pid = info["pid"]
        stats(p)  # its first answer allocates stdio's buffer: the figures after it stay put
        wait_sleeping(pid)
        before = status(pid)
        census = scan_json(pid)
        after = status(pid)
        assert before == after, (before, after)
        own = stats(p)
        c = malloc_class(census)
        adds_up(c)
        assert c["how"].startswith("mimalloc 2.0.9: "), c["how"]
        assert "unknown" not in c["how"], c["how"]
        assert c["unknown"] == 0, c
        assert close(c["in_use"], own["in_use"]), (c, own)
        carved_free = own["committed"] - own["in_use"]
        assert c["free"] >= carved_free - max(0.03 * carved_free, 2 * MiB), (c, own)
    finally:
        stop(p)


def test_busy_program_is_checked_or_unknown():
    p, info = start("--busy", *SMALL, settle=False)
    try:
        known = 0
        for _ in range(6):
            c = malloc_class(scan_json(info["pid"]))
            adds_up(c)
            assert c["how"].startswith("mimalloc"), c["how"]
            if c["in_use"] or c["free"]:
                known += 1
                assert c["in_use"] <= c["private"]
        assert known > 0, "no census of the busy program read any segment"
    finally:
        stop(p)


def test_saved_census_finds_the_same(tmp_path):
    p, info = start(*SMALL)
    try:
        pid = info["pid"]
        stats(p)
        wait_sleeping(pid)
        smaps, status_file, image = tmp_path / "p.smaps", tmp_path / "p.status", tmp_path / "p.img"
        smaps.write_bytes(open(f"/proc/{pid}/smaps", "rb").read())
        status_file.write_bytes(open(f"/proc/{pid}/status", "rb").read())
        live = malloc_class(scan_json(pid, "--save-memory", image))
        saved = json.loads(run("scan", "--smaps", smaps, "--status", status_file, "--memory", image, "--json",
                               check=0).stdout)
        again = malloc_class(saved)
        adds_up(again)
        assert again["how"] == live["how"], (again["how"], live["how"])
        for key in ("in_use", "free", "returnable"):
            assert again[key] == live[key], (key, again, live)
    finally:
        stop(p)
