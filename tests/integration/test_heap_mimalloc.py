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
from heapcheck import busy_known, heapstat, near, quiet_census, saved_census_finds_the_same, slack

SMALL = ["--small=40000", "--medium=300", "--threads=2"]


def test_quiet_program_agrees_with_mimalloc():
    with heapstat("mimalloc", *SMALL) as t:
        c, own = quiet_census(t)
        assert c["how"].startswith("mimalloc 2.0.9: "), c["how"]
        assert "unknown" not in c["how"], c["how"]
        assert c["unknown"] == 0, c
        assert near(c["in_use"], own["in_use"]), (c, own)
        carved_free = own["committed"] - own["in_use"]
        assert c["free"] >= carved_free - slack(carved_free), (c, own)


def test_busy_program_is_checked_or_unknown():
    with heapstat("mimalloc", "--busy", *SMALL, settle=False) as t:
        assert busy_known(t, "mimalloc") > 0, "no census of the busy program read any segment"


def test_saved_census_finds_the_same(tmp_path):
    with heapstat("mimalloc", *SMALL) as t:
        saved_census_finds_the_same(t, tmp_path)
