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

import pytest

from conftest import HELPERS, MiB, run, scan_json
from heapcheck import Target, adds_up, assert_near, census_unchanged, class_of

HEAP = os.path.join(HELPERS, "glibc-heap")


def start_heap(*args, settle=True):
    return Target([HEAP, *args], settle=settle)


def malloc_class(census):
    return class_of(census, "malloc")


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
    with start_heap(*SHAPES[shape]) as t:
        census = census_unchanged(t.pid)
        m = t.ask("mallinfo")
        assert m == t.info["mallinfo"], "the heap moved while the helper slept"
        c = malloc_class(census)
        adds_up(c)
        assert c["how"].startswith("glibc 2."), c["how"]
        assert c["unknown"] == 0, c
        assert_near(c["in_use"], m["uordblks"] + m["hblkhd"], "in use")
        assert_near(c["free"], m["fordblks"], "free")
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


def test_no_heap_and_saved_memory(tmp_path):
    """--no-heap asks nothing; a census taken again from --save-memory and
    a copy of smaps gives the same figures as the live one."""
    with start_heap("--fragmented=8", "--arenas=1", "--arena-size=4", "--fastbins=50") as t:
        pid = t.pid
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


def test_busy_target_is_never_wrong():
    """Two threads allocate and free while the census reads: each census
    gives checked figures or unknown, and they always add up."""
    outcomes = {"checked": 0, "unknown": 0}
    with start_heap("--fragmented=40", "--busy=2", settle=False) as t:
        for _ in range(25):
            c = malloc_class(scan_json(t.pid))
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


def test_byte_limit_stops_the_walk():
    """A heap whose walk must read more than RW_HEAP_READ_MAX (1 GiB): 1.3
    million small blocks, a chunk header in every page.  The walk reads up
    to the limit, says so, and what it did not reach is unknown."""
    with start_heap("--small=1300000") as t:
        c = malloc_class(scan_json(t.pid))
        adds_up(c)
        assert "stopped at the byte limit" in c["how"], c["how"]
        assert 20 * MiB < c["unknown"] < 600 * MiB, c
        # what it read stands
        assert c["in_use"] + c["free"] > 800 * MiB, c
