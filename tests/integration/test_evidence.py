"""Evidence read from real programs: C with glibc, mimalloc, tcmalloc and
jemalloc, CPython, numpy, Node, a JVM and redis, each holding memory of
known kinds.  For each, as a user runs `ramwatch scan PID`: under 10 % of
private memory is left in `other`, every region says its evidence or its
shape rule, the classes add up to the kernel's totals, and the census
leaves the process's resident memory, swap and page tables as they were."""
import json
import os
import re
import shutil
import socket
import subprocess
import textwrap
import time

import pytest

from conftest import HELPERS, MiB, region_at, rollup, run, scan_json, start_java_hold
from heapcheck import Target, census_unchanged, classes, wait_sleeping
from rwdaemon import fast_config


def conserved(pid, tries=1):
    """Classes add up to the totals, and the totals to smaps_rollup read
    right after (the same moment for a quiet process)."""
    for _ in range(tries):
        census = scan_json(pid)
        kernel = rollup(pid)
        if (census["totals"]["resident"] == kernel["Rss"]
                and census["totals"]["private"] == kernel["Anonymous"] + kernel["Swap"]):
            break
    else:
        raise AssertionError(f"totals {census['totals']} against smaps_rollup {kernel}")
    for key in ("private", "resident", "pss", "swap", "size"):
        assert sum(c[key] for c in census["classes"]) == census["totals"][key], key
    assert sum(c["count"] for c in census["classes"]) == census["totals"]["regions"]
    return census


def check_program(pid, rules, tries=1):
    """What every program must show; returns the census with its regions."""
    census = census_unchanged(pid, "--regions", tries=tries)
    assert census["evidence"]["taken"], census["evidence"]
    assert census["cost"]["evidence_reads"] > 0
    assert census["cost"]["evidence_reads"] <= 65536
    private = census["totals"]["private"]
    other = classes(census).get("other", {"private": 0})["private"]
    assert other < 0.10 * private, (other, private, [r for r in census["regions"] if r["class"] == "other"][:8])
    for r in census["regions"]:
        assert r["rule"] and r["why"], r
        if r["evidence"] is not None:
            assert isinstance(r["evidence"], str) and r["evidence"]
    seen = {r["rule"] for r in census["regions"]}
    for rule in rules:
        assert rule in seen, (rule, sorted(seen))
    # parts of split regions add up to whole kernel regions
    parts = [r for r in census["regions"] if r["part"]]
    for p in parts:
        assert "part " in p["evidence"] and " of the region " in p["evidence"]
    conserved(pid, tries)
    return census


def start_ready(cmd, **kw):
    p = subprocess.Popen(cmd, stdin=subprocess.PIPE, stdout=subprocess.PIPE, text=True, **kw)
    line = p.stdout.readline()
    assert line.strip() == "ready", f"{cmd} did not start: {line!r}"
    return p


def chunk_of(census, pointer):
    """The region or part holding a glibc block: its header is 16 bytes
    below the pointer malloc returned."""
    return region_at(census, pointer - 16)


# ------------------------------------------------------------ C programs


@pytest.fixture(scope="module")
def allocs_glibc():
    with Target([os.path.join(HELPERS, "allocs")], settle=True) as t:
        yield t.info


def test_c_glibc(allocs_glibc):
    assert allocs_glibc["allocator"] == "glibc"
    c = check_program(allocs_glibc["pid"], ["glibc_mmap_chunks", "glibc_heap_info", "glibc_brk_heap"])
    for b in allocs_glibc["blocks"]:
        if b["kind"] in ("large", "merged", "aligned64", "aligned4096"):
            r = chunk_of(c, int(b["addr"], 16))
            assert r["class"] == "malloc" and r["rule"] == "glibc_mmap_chunks", (b, r)
            assert "chunk header" in r["evidence"]
            assert r["size"] >= b["size"]
    # the four merged blocks: one kernel region, four blocks found in it
    merged = [int(b["addr"], 16) for b in allocs_glibc["blocks"] if b["kind"] == "merged"]
    r = chunk_of(c, merged[0])
    assert "4 glibc malloc blocks" in r["evidence"], r
    # the threads' blocks: arenas whose heap_info was read
    arenas = [r for r in c["regions"] if r["rule"] == "glibc_heap_info"]
    assert len(arenas) >= 3 and all(r["class"] == "malloc" for r in arenas)
    assert all(r["confirmed"] for r in arenas)


@pytest.mark.parametrize("allocator,rules", [
    ("mimalloc", ["mimalloc_segments"]),
    ("tcmalloc", ["tcmalloc_page_heap"]),
    ("jemalloc", ["jemalloc_extents"]),
])
def test_c_other_allocators(allocator, rules):
    with Target([os.path.join(HELPERS, f"allocs-{allocator}")]) as t:
        assert t.info["allocator"] == allocator
        wait_sleeping(t.pid)
        c = check_program(t.pid, rules)
        # the blocks the program holds are malloc's, whichever allocator
        for b in t.info["blocks"]:
            if b["kind"] in ("large", "merged"):
                assert region_at(c, int(b["addr"], 16))["class"] == "malloc", b
        if allocator == "jemalloc":
            # its base blocks, read, are named in the regions that hold them
            assert any("jemalloc base block" in (r["evidence"] or "") for r in c["regions"])
            # extents are jemalloc's by elimination: said, and not counted as confirmed
            ext = [r for r in c["regions"] if r["rule"] == "jemalloc_extents"]
            assert ext and not any(r["confirmed"] for r in ext)
            assert "by elimination" in ext[0]["why"]


# ------------------------------------------------------------ CPython, numpy


def test_cpython():
    code = textwrap.dedent("""
        import sys
        big = bytearray(80 << 20)
        for i in range(0, len(big), 4096):
            big[i] = 1
        blobs = [bytes([i]) * (2 << 20) for i in range(20)]
        small = [str(i) * 3 for i in range(300000)]
        print("ready", flush=True)
        sys.stdin.read()
    """)
    p = start_ready(["/usr/bin/python3", "-c", code])
    try:
        wait_sleeping(p.pid)
        c = check_program(p.pid, ["pymalloc_pools", "glibc_mmap_chunks"])
        k = classes(c)
        # 80 MiB + 20 x 2 MiB of blocks; pymalloc arenas hold the strings
        assert k["malloc"]["private"] >= 120 * MiB
        assert k["python"]["private"] >= 15 * MiB
        assert k["python"]["confirmed"] == k["python"]["private"]
    finally:
        p.kill()
        p.wait()


def test_numpy():
    code = textwrap.dedent("""
        import sys
        import numpy as np
        arrays = [np.ones(n, dtype=np.uint8) for n in (8 << 20, 100 << 20, 1 << 20)]
        print("ready", flush=True)
        sys.stdin.read()
    """)
    p = start_ready(["/usr/bin/python3", "-c", code])
    try:
        wait_sleeping(p.pid)
        c = check_program(p.pid, ["glibc_mmap_chunks"])
        # numpy's madvise splits a large array's mapping: its header page is
        # a region of its own, the array the next, and both are malloc's
        big = [r for r in c["regions"] if r["class"] == "malloc" and r["size"] >= 100 * MiB]
        assert big, "the 100 MiB array is not malloc's"
        assert classes(c)["malloc"]["private"] >= 109 * MiB
    finally:
        p.kill()
        p.wait()


# ------------------------------------------------------------ Node, JVM


@pytest.mark.skipif(not shutil.which("node"), reason="needs node (make deps installs it)")
def test_node_buffers():
    code = textwrap.dedent("""
        globalThis.keep = [];
        for (let i = 0; i < 90; i++) globalThis.keep.push(Buffer.alloc(1 << 20, i));
        console.log("ready");
        process.stdin.resume();
        process.stdin.on('end', () => process.exit(0));
    """)
    p = start_ready(["node", "-e", code])
    try:
        time.sleep(0.5)
        c = check_program(p.pid, ["glibc_mmap_chunks", "v8_page"], tries=5)
        # each Buffer is a glibc block of 1 MiB and a page: all 90 found, block by block
        found = 0
        for r in c["regions"]:
            if r["rule"] == "glibc_mmap_chunks":
                m = re.search(r"(\d+) of 1\.00 MiB", r["evidence"]) or \
                    re.search(r"a glibc malloc block of 1\.00 MiB", r["evidence"])
                found += int(m.group(1)) if m and m.groups() else (1 if m else 0)
        assert found >= 90, [r["evidence"] for r in c["regions"] if r["rule"] == "glibc_mmap_chunks"]
    finally:
        p.kill()
        p.wait()


@pytest.mark.skipif(not shutil.which("java"), reason="needs a Java runtime (make deps installs one)")
def test_jvm(tmp_path):
    p = start_java_hold(tmp_path, 100, heap="256m")
    try:
        time.sleep(1)
        c = check_program(p.pid, ["jvm_heap", "glibc_heap_info"], tries=5)
        assert classes(c)["runtime_heap"]["private"] >= 100 * MiB
    finally:
        p.kill()
        p.wait()


# ------------------------------------------------------------ redis


def free_port():
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


@pytest.mark.skipif(not shutil.which("redis-server"), reason="needs redis-server (make deps installs it)")
def test_redis_on_jemalloc(tmp_path):
    port = free_port()
    p = subprocess.Popen(["redis-server", "--port", str(port), "--bind", "127.0.0.1", "--save", "",
                          "--appendonly", "no", "--dir", str(tmp_path), "--enable-debug-command", "yes"],
                         stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    try:
        cli = ["redis-cli", "-p", str(port)]
        for _ in range(100):
            if subprocess.run(cli + ["ping"], capture_output=True, text=True).stdout.strip() == "PONG":
                break
            time.sleep(0.05)
        out = subprocess.run(cli + ["DEBUG", "POPULATE", "200000", "key", "200"], capture_output=True, text=True)
        assert out.stdout.strip() == "OK", out
        info = subprocess.run(cli + ["INFO", "memory"], capture_output=True, text=True).stdout
        assert "mem_allocator:jemalloc" in info
        time.sleep(0.3)
        c = check_program(p.pid, ["jemalloc_extents"], tries=5)
        assert any("jemalloc base block" in (r["evidence"] or "") for r in c["regions"])
        assert classes(c)["malloc"]["private"] >= 40 * MiB
    finally:
        p.kill()
        p.wait()


# ------------------------------------------------------------ residency


@pytest.fixture
def swap(tmp_path):
    """Swap for the test's own pages: a swap file made and removed here,
    unless the machine has swap already."""
    with open("/proc/swaps") as f:
        if len(f.read().splitlines()) > 1:
            yield "present"
            return
    if os.geteuid() != 0:
        pytest.skip("no swap here, and making a swap file needs root")
    path = "/var/tmp/ramwatch-test-swap"
    made = subprocess.run(f"dd if=/dev/zero of={path} bs=1M count=64 status=none && chmod 600 {path} && "
                          f"mkswap {path} >/dev/null && swapon {path}", shell=True, capture_output=True, text=True)
    if made.returncode != 0:
        subprocess.run(["rm", "-f", path])
        pytest.skip(f"cannot make swap here: {made.stderr.strip()}")
    yield path
    subprocess.run(["swapoff", path])
    os.unlink(path)


def test_untouched_and_swapped_pages_stay_so(swap):
    with Target([os.path.join(HELPERS, "residency"), "256", "16"]) as t:
        info = t.info
        if info["pageout"] != "ok" or info["paged_out_swap"] < 8 * 1024:
            pytest.skip(f"MADV_PAGEOUT did not reach swap here ({info['pageout']}, "
                        f"{info['paged_out_swap']} kB swapped)")
        c = census_unchanged(t.pid, "--regions")
        # 256 MiB never written: the header page read, the rest left alone
        r = chunk_of(c, int(info["untouched"], 16))
        assert r["rule"] == "glibc_mmap_chunks" and r["size"] >= 256 * MiB
        assert r["resident"] < 1 * MiB
        # the block in swap: its header is not read (it would come back in)
        s = chunk_of(c, int(info["paged_out"], 16))
        assert s["rule"] != "glibc_mmap_chunks", s
        assert "swap" in (s["evidence"] or ""), s


# ------------------------------------------------------------ options


def test_no_evidence_and_saved_files(allocs_glibc, tmp_path):
    pid = allocs_glibc["pid"]
    off = scan_json(pid, "--no-evidence")
    assert not off["evidence"]["taken"] and "turned off" in off["evidence"]["why_not"]
    assert off["cost"]["evidence_reads"] is None
    table = run("scan", pid, check=0).stdout
    assert "CONFIRMED" in table and "Evidence:" in table
    assert "Evidence not read: turned off" in run("scan", pid, "--no-evidence", check=0).stdout

    # a saved smaps has no memory to read; with the memory image saved
    # beside it, the census is the live one
    image = tmp_path / "mem.img"
    smaps = tmp_path / "smaps"
    smaps.write_bytes(open(f"/proc/{pid}/smaps", "rb").read())
    live = scan_json(pid, "--save-memory", image)
    assert image.read_text().startswith("ramwatch-memory-image 1\n")
    saved = json.loads(run("scan", "--smaps", smaps, "--json", check=0).stdout)
    assert not saved["evidence"]["taken"] and "--memory" in saved["evidence"]["why_not"]
    again = json.loads(run("scan", "--smaps", smaps, "--memory", image, "--json", check=0).stdout)
    assert again["evidence"]["taken"]
    assert {c["key"]: c["private"] for c in again["classes"]} == {c["key"]: c["private"] for c in live["classes"]}

    # a damaged image: a clear error naming the line, nothing printed as a census
    image.write_text("ramwatch-memory-image 1\nresident 1000 zz\n")
    r = run("scan", "--smaps", smaps, "--memory", image, check=1)
    assert "line 2" in r.stderr and r.stdout == ""
    r = run("scan", "--memory", image, check=2)
    assert "--memory goes with --smaps" in r.stderr


def test_unprivileged_owner_reads_its_own(unprivileged_user, tmp_path):
    """A user's own process is read as root's would be (same user: ptrace
    access where Yama allows it)."""
    with Target(["runuser", "-u", unprivileged_user, "--", os.path.join(HELPERS, "allocs")], settle=True) as t:
        c = scan_json(t.pid, "--regions", user=unprivileged_user)
        scope = open("/proc/sys/kernel/yama/ptrace_scope").read().strip() \
            if os.path.exists("/proc/sys/kernel/yama/ptrace_scope") else "0"
        if scope == "0":
            assert c["evidence"]["taken"]
            assert any(r["rule"] == "glibc_mmap_chunks" for r in c["regions"])
        else:
            assert not c["evidence"]["taken"] and "ptrace" in c["evidence"]["why_not"]


# ------------------------------------------------------------ the daemon


def test_daemon_censuses_carry_evidence(tmp_path, allocs_glibc, daemons):
    pid = allocs_glibc["pid"]
    d = daemons(tmp_path, fast_config(f"Watch=pid:{pid}")).start()
    row = d.process_id(pid)
    first = d.wait_rows("SELECT * FROM censuses WHERE process_id = ? AND status = 'ok'", row)[0]
    assert first["evidence_taken"] == 1 and first["evidence_reads"] > 0 and first["evidence_confirmed"] > 0
    regions = d.query("SELECT * FROM census_regions WHERE census_id = ?", first["id"])
    chunks = [r for r in regions if r["rule"] == "glibc_mmap_chunks"]
    assert chunks and all(r["class"] == "malloc" and r["confirmed"] == 1 and "chunk header" in r["evidence"]
                          for r in chunks)
    malloc = d.query("SELECT * FROM census_classes WHERE census_id = ? AND class = 'malloc'", first["id"])[0]
    assert malloc["confirmed"] == malloc["private"]
    # what a person reads back: the report shows the evidence of the last census
    report = run("report", "--pid", pid, "--socket", d.socket, check=0).stdout
    assert "chunk header" in report, report
    d.stop()

    # Evidence=no: shapes alone, and the census says so
    (tmp_path / "off").mkdir()
    d2 = daemons(tmp_path / "off", fast_config(f"Watch=pid:{pid}", "Evidence=no")).start()
    row = d2.process_id(pid)
    first = d2.wait_rows("SELECT * FROM censuses WHERE process_id = ? AND status = 'ok'", row)[0]
    assert first["evidence_taken"] == 0 and "turned off" in first["evidence_why_not"]
    assert not d2.query("SELECT * FROM census_regions WHERE census_id = ? AND rule = 'glibc_mmap_chunks'",
                        first["id"])
    d2.stop()
