"""tcmalloc's heap read from outside, against tcmalloc's own figures.

tests/helpers/heapstat.c, linked with Debian's libtcmalloc_minimal
(gperftools 2.10), keeps one block in four of many it allocated in three
threads (every byte of each block written), holds a large block, and
prints what MallocExtension says of its heap.  As a user runs `ramwatch
scan PID --json`, the malloc class's in use is
generic.current_allocated_bytes and its free what the page heap and the
caches hold free (tcmalloc.pageheap_free_bytes and the central, transfer
and thread caches' free bytes), within 3 % or 2 MiB; the census leaves the
program's resident memory, swap and page tables as they were.  A program whose threads allocate and
free while it is read gets checked figures or unknown segments, and the
figures add up to the class's private bytes every time.  A census taken
again from the saved smaps and memory image finds the same."""
from heapcheck import busy_known, heapstat, near, quiet_census, saved_census_finds_the_same

SMALL = ["--small=40000", "--medium=300", "--threads=2"]


def test_quiet_program_agrees_with_tcmalloc():
    with heapstat("tcmalloc", *SMALL) as t:
        c, own = quiet_census(t)
        assert c["how"].startswith("gperftools 2.10 (libtcmalloc_minimal.so.4): "), c["how"]
        assert c["unknown"] == 0, c
        assert near(c["in_use"], own["allocated"]), (c, own)
        kept = own["pageheap_free"] + own["central_free"] + own["transfer_free"] + own["thread_free"]
        assert near(c["free"], kept), (c, own)
        assert c["returnable"] <= own["pageheap_free"], (c, own)
        assert near(c["returnable"], own["pageheap_free"]), (c, own)


def test_busy_program_is_checked_or_unknown():
    with heapstat("tcmalloc", "--busy", *SMALL, settle=False) as t:
        assert busy_known(t, "gperftools 2.10") > 0, "no census of the busy program read its heap"


def test_saved_census_finds_the_same(tmp_path):
    with heapstat("tcmalloc", *SMALL) as t:
        saved_census_finds_the_same(t, tmp_path)
