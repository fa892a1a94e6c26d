"""jemalloc's heap read from outside, as a user checks it: `ramwatch scan
PID --json` gives a jemalloc process's malloc class in use and free that
agree with what jemalloc itself says, within 3 % or 2 MiB: in use is
mallctl's stats.allocated, free stats.active less stats.allocated plus
the dirty and muzzy pages; for a program with libjemalloc.so, one with
jemalloc inside (libjemalloc.a), and redis (its INFO memory and MEMORY
MALLOC-STATS).  The census leaves the target's resident memory, swap and
page tables as they were, and a target that allocates and frees in
several threads while it is read gets checked figures or unknown, the
class's figures always adding up to its private memory."""
import json
import os
import re
import shutil
import socket
import subprocess
import time

import pytest

from conftest import HELPERS, MiB, run, scan_json
from heapcheck import Target, adds_up, assert_near, census_unchanged, class_of, slack, status

PAGE = 4096


def malloc_of(census):
    return class_of(census, "malloc")


def heap(name, *args):
    """tests/helpers/jemalloc-heap.c: a fragmented jemalloc heap that
    prints mallctl's statistics when asked ("stats")."""
    return Target([os.path.join(HELPERS, name), *args])


def kept(s):
    """What jemalloc keeps free: active less allocated, and its dirty and
    muzzy pages."""
    return s["active"] - s["allocated"] + (s["pdirty"] + s["pmuzzy"]) * s["page"]


@pytest.mark.parametrize("helper", ["jemalloc-heap", "jemalloc-heap-static"])
def test_against_mallctl(helper):
    with heap(helper, "--mib=96", "--threads=3", "--keep=3") as h:
        before = h.ask("stats")
        assert before["version"].startswith("5.3.0-")
        census = scan_json(h.pid)
        after = h.ask("stats")
        assert before == after, "the heap moved: the helper is quiet once ready"
        m = malloc_of(census)
        assert m["how"].startswith("jemalloc 5.3.0: "), m["how"]
        assert m["unknown"] == 0, m
        adds_up(m)
        assert_near(m["in_use"], before["allocated"], "in use")
        assert_near(m["free"], kept(before), "free")
        # the dirty pages, whole and written, are what purging gives back
        assert_near(m["returnable"], (before["pdirty"] + before["pmuzzy"]) * PAGE, "returnable")
        # jemalloc's metadata, its base blocks, is neither
        assert 0 < m["overhead"] <= before["metadata"] + 2 * MiB
        # the figures are the program's: the totals carry them
        assert census["totals"]["in_use"] == m["in_use"]


def test_target_untouched():
    """VmRSS, RssAnon, VmSwap and VmPTE as they were: nothing faulted in,
    no page table filled, by the heap walk as by evidence."""
    with heap("jemalloc-heap", "--mib=64") as h:
        h.ask("stats")
        for _ in range(3):
            m = malloc_of(census_unchanged(h.pid))
            assert m["unknown"] == 0 and m["in_use"] > 0, m


def test_busy_target():
    """Threads allocate, write and free without pause while the census
    reads: each census's malloc figures add up to its private memory, and
    are either checked (then near what mallctl says before and after, give
    or take what the busy threads hold) or unknown with the reason."""
    checked = unknown = 0
    # the busy threads hold up to 256 blocks of up to 20 KiB each
    churn = 2 * 256 * 20480
    with heap("jemalloc-heap", "--mib=64", "--busy=2") as h:
        for _ in range(12):
            before = h.ask("stats")
            m = malloc_of(scan_json(h.pid))
            after = h.ask("stats")
            adds_up(m)
            if m["unknown"] == 0:
                checked += 1
                low = min(before["allocated"], after["allocated"]) - churn
                high = max(before["allocated"], after["allocated"]) + churn
                assert low - slack(low) <= m["in_use"] <= high + slack(high), (m, before, after)
            else:
                unknown += 1
                assert m["in_use"] == 0 and m["free"] == 0, m
                assert m["how"].startswith("jemalloc 5.3.0: ") and "tries" in m["how"], m["how"]
    assert checked + unknown == 12


def test_saved_capture(tmp_path):
    """A capture saved without the process's memory still shows a jemalloc
    program's memory as malloc's, by its shape (libjemalloc mapped, 2 MiB
    mappings), and says nothing of in use or free: unknown (null), no
    sentence of what was read, since nothing was.  With the memory image
    saved by the live census, the census taken again has its figures."""
    with heap("jemalloc-heap", "--mib=32") as h:
        h.ask("stats")
        smaps = tmp_path / "smaps"
        image = tmp_path / "mem.img"
        smaps.write_bytes(open(f"/proc/{h.pid}/smaps", "rb").read())
        live = scan_json(h.pid, "--save-memory", image)
    saved = json.loads(run("scan", "--smaps", smaps, "--json", "--regions", check=0).stdout)
    assert not saved["evidence"]["taken"]
    m = malloc_of(saved)
    assert m["private"] >= 0.95 * saved["totals"]["private"], saved["classes"]
    for key in ("in_use", "free", "overhead", "unknown", "returnable", "how"):
        assert m[key] is None, (key, m)
        assert saved["totals"][key if key != "how" else "in_use"] is None
    shaped = [r for r in saved["regions"] if r["rule"] == "jemalloc_shape"]
    assert shaped and all(r["class"] == "malloc" and not r["confirmed"] for r in shaped)
    assert sum(r["private"] for r in shaped) >= 0.95 * m["private"]
    again = json.loads(run("scan", "--smaps", smaps, "--memory", image, "--json", check=0).stdout)
    a, b = malloc_of(again), malloc_of(live)
    assert {k: a[k] for k in ("in_use", "free", "overhead", "unknown", "how")} == \
        {k: b[k] for k in ("in_use", "free", "overhead", "unknown", "how")}


# ------------------------------------------------------------ redis


def free_port():
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def arena_pages(text, kind):
    """The dirty or muzzy pages of all arenas, from MEMORY MALLOC-STATS
    (malloc_stats_print): the lines "   dirty: <decay ms> <npages> ...",
    once after "Merged arenas stats" where it prints them, else one an
    arena."""
    if "Merged arenas stats:" in text:
        text = text.split("Merged arenas stats:", 1)[1].split("arenas[", 1)[0]
    found = re.findall(rf"^\s*{kind}:\s+(?:-?\d+|N/A)\s+(\d+)", text, re.M)
    assert found, f"no {kind} line in MEMORY MALLOC-STATS"
    return sum(int(n) for n in found)


@pytest.mark.skipif(not shutil.which("redis-server"), reason="needs redis-server (make deps installs it)")
def test_redis_against_info_memory(tmp_path):
    """Debian's redis (linked with libjemalloc2) filled with keys and two
    in three deleted: in use is INFO memory's allocator_allocated, free
    its allocator_active less allocator_allocated plus the dirty pages."""
    port = free_port()
    p = subprocess.Popen(["redis-server", "--port", str(port), "--bind", "127.0.0.1", "--save", "",
                          "--appendonly", "no", "--dir", str(tmp_path), "--enable-debug-command", "yes"],
                         stdin=subprocess.DEVNULL, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    cli = ["redis-cli", "-p", str(port)]

    def redis(*args):
        return subprocess.run(cli + list(args), capture_output=True, text=True, timeout=60).stdout

    def memory():
        info = dict(line.split(":", 1) for line in redis("INFO", "memory").splitlines() if ":" in line)
        stats = redis("MEMORY", "MALLOC-STATS")
        return {"allocated": int(info["allocator_allocated"]), "active": int(info["allocator_active"]),
                "dirty": arena_pages(stats, "dirty"), "muzzy": arena_pages(stats, "muzzy"),
                "allocator": info["mem_allocator"].strip()}

    try:
        for _ in range(100):
            if redis("ping").strip() == "PONG":
                break
            time.sleep(0.05)
        # jemalloc's background thread would purge dirty pages between
        # INFO and the census: redis leaves it off when told
        assert redis("CONFIG", "SET", "jemalloc-bg-thread", "no").strip() == "OK"
        assert redis("DEBUG", "POPULATE", "300000", "key", "200").strip() == "OK"
        for start in (0, 1):
            redis("EVAL", f"for i={start},299999,3 do redis.call('del','key:'..i) end return 1", "0")
        time.sleep(0.2)
        for _ in range(5):
            before = memory()
            before_status = status(p.pid)
            census = scan_json(p.pid)
            after_status = status(p.pid)
            after = memory()
            # redis's own threads may touch memory: a quiet moment will do
            if before == after and before_status == after_status:
                break
            time.sleep(0.5)
        else:
            raise AssertionError(f"redis did not hold still: {before} {after} {before_status} {after_status}")
        assert before["allocator"].startswith("jemalloc-5.3.0")
        m = malloc_of(census)
        assert m["how"].startswith("jemalloc 5.3.0: "), m["how"]
        assert m["unknown"] == 0
        adds_up(m)
        assert_near(m["in_use"], before["allocated"], "in use")
        assert_near(m["free"], before["active"] - before["allocated"] + (before["dirty"] + before["muzzy"]) * PAGE,
                    "free")
        # two thirds of the keys deleted: most of what jemalloc holds is free
        assert m["free"] > m["in_use"]
    finally:
        p.kill()
        p.wait()
