"""glibc's heap read from outside, against glibc's own figures.

tests/helpers/glibc-heap.c makes the shapes a user meets (a main heap most
of which was freed, thread arenas over several heaps, full fastbins and
thread caches, blocks served by mmap) and prints mallinfo2() from inside.
As a user runs `ramwatch scan PID --json`, the malloc class says what
mallinfo2 says: in use = uordblks + hblkhd, free = fordblks, within 3 % or
2 MiB (a census counts only pages the program touched: the top chunk's
fresh pages are free to glibc and no memory to the kernel).  The census
leaves the program's resident memory, swap and page tables as they were;
a program that allocates and frees in several threads while it is read
gets checked figures or unknown, and the figures always add up to the
class's private bytes; past the byte limit the walk stops and the rest is
unknown."""
import json
import os
import subprocess
import time

import pytest

from conftest import HELPERS, MiB, run, scan_json, stop

STATUS_KEYS = ("VmRSS", "RssAnon", "VmSwap", "VmPTE")
HEAP = os.path.join(HELPERS, "glibc-heap")


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


def start_heap(*args, settle=True):
    p = subprocess.Popen([HEAP, *args], stdin=subprocess.PIPE, stdout=subprocess.PIPE, text=True)
    line = p.stdout.readline()
    assert line, f"glibc-heap {args} exited before it was ready"
    info = json.loads(line)
    if settle:
        wait_sleeping(info["pid"])
    return p, info


def mallinfo(p):
    p.stdin.write("mallinfo\n")
    p.stdin.flush()
    return json.loads(p.stdout.readline())


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


def agrees(ours, theirs, what):
    assert abs(ours - theirs) <= max(0.03 * theirs, 2 * MiB), f"{what}: census {ours}, mallinfo2 {theirs}"


SHAPES = {
    # 300 MiB of blocks up to 32 KiB, three in four freed
    "fragmented": ["--fragmented=300"],
    # three threads, each an arena of 100 MiB of 48 KiB blocks: two heaps each
    "arenas": ["--arenas=3", "--arena-size=100"],
    # thousands of chunks in every fastbin of three arenas, the thread caches full
    "fastbins": ["--fastbins=2000", "--arenas=2", "--arena-size=8", "--fragmented=4"],
    # blocks of 1 to 4 MiB served by mmap
    "mmapped": ["--mmapped=12", "--fragmented=4"],
}


@pytest.mark.parametrize("shape", sorted(SHAPES))
def test_agrees_with_mallinfo2(shape):
    p, info = start_heap(*SHAPES[shape])
    pid = info["pid"]
    try:
        before = status(pid)
        census = scan_json(pid)
        after = status(pid)
        assert before == after, f"the census changed the process: {before} -> {after}"
        m = mallinfo(p)
        assert m == info["mallinfo"], "the heap moved while the helper slept"
        c = malloc_class(census)
        adds_up(c)
        assert c["how"].startswith("glibc 2."), c["how"]
        assert c["unknown"] == 0, c
        agrees(c["in_use"], m["uordblks"] + m["hblkhd"], "in use")
        agrees(c["free"], m["fordblks"], "free")
        # the counts the walk gives are glibc's own
        assert f"{m['smblks']} in fastbins" in c["how"], (c["how"], m)
        if m["hblks"]:
            assert f"{m['hblks']} mmapped block" in c["how"], (c["how"], m)
        if shape == "arenas":
            assert "4 arenas (7 heaps)" in c["how"], c["how"]
        if shape == "fastbins":
            assert m["smblks"] > 6 * 2000, m
        if shape == "fragmented":
            # most of the free bytes are whole pages malloc_trim would give back
            assert c["returnable"] > 0.8 * c["free"], c
    finally:
        stop(p)


def test_no_heap_and_saved_memory(tmp_path):
    """--no-heap asks nothing; a census taken again from --save-memory and
    a copy of smaps gives the same figures as the live one."""
    p, info = start_heap("--fragmented=8", "--arenas=1", "--arena-size=4", "--fastbins=50")
    pid = info["pid"]
    try:
        c = malloc_class(scan_json(pid, "--no-heap"))
        assert c["in_use"] is None and c["how"] is None, c
        image = tmp_path / "heap.img"
        smaps = tmp_path / "heap.smaps"
        live = scan_json(pid, "--save-memory", str(image))
        with open(f"/proc/{pid}/smaps") as f:
            smaps.write_text(f.read())
        again = json.loads(run("scan", "--smaps", smaps, "--memory", image, "--json", check=0).stdout)
        a, b = malloc_class(live), malloc_class(again)
        adds_up(b)
        for key in ("in_use", "free", "overhead", "unknown", "returnable", "how"):
            assert a[key] == b[key], (key, a, b)
    finally:
        stop(p)


def test_busy_target_is_never_wrong():
    """Two threads allocate and free while the census reads: each census
    gives checked figures or unknown, and they always add up."""
    p, info = start_heap("--fragmented=40", "--busy=2", settle=False)
    pid = info["pid"]
    outcomes = {"checked": 0, "unknown": 0}
    try:
        for _ in range(25):
            c = malloc_class(scan_json(pid))
            adds_up(c)
            assert c["how"].startswith("glibc"), c
            if c["unknown"] == c["private"]:
                # nothing checked out: said why, after its tries
                assert "tries)" in c["how"], c["how"]
                outcomes["unknown"] += 1
            else:
                # the main heap, which does not move, checked out; the
                # busy threads' arenas may not have
                assert c["in_use"] > 8 * MiB and c["free"] > 25 * MiB, c
                if c["unknown"] > 0:
                    assert "did not check out, unknown" in c["how"], c["how"]
                outcomes["checked"] += 1
        assert outcomes["checked"] > 0, outcomes
    finally:
        stop(p)


def test_byte_limit_stops_the_walk():
    """A heap whose walk must read more than RW_HEAP_READ_MAX (1 GiB): 1.3
    million small blocks, a chunk header in every page.  The walk reads up
    to the limit, says so, and what it did not reach is unknown."""
    p, info = start_heap("--small=1300000")
    pid = info["pid"]
    try:
        c = malloc_class(scan_json(pid))
        adds_up(c)
        assert "stopped at the byte limit" in c["how"], c["how"]
        assert 20 * MiB < c["unknown"] < 600 * MiB, c
        # what it read stands
        assert c["in_use"] + c["free"] > 800 * MiB, c
    finally:
        stop(p)
