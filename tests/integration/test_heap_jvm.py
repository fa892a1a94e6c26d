"""The Java heap's in use and free, read from the JVM's hsperfdata file,
against jstat.

tests/helpers/HeapFill.java keeps 24 MiB of arrays among 192 MiB it
dropped, then waits.  As a user runs `ramwatch scan PID --json`, the
runtime_heap class's in use is the heap spaces' used bytes as `jstat -gc`
shows them (EU + S0U + S1U + OU), and its free at most their capacity less
used (EC + S0C + S1C + OC - used: committed memory never touched is no
memory, and a census counts private pages only).

The tolerance is what jstat itself shows between two reads: jstat runs
right before and right after the census, and in use must lie between the
two reads' used bytes, give or take jstat's rounding (a tenth of a KiB per
column).  The JVM runs with -Xshare:off, so that no object of the heap
lies in the class data archive's file mapping (whose pages are the
mapped_files class, not the heap's).

A JVM run with -XX:-UsePerfData has no such file: its heap stays unknown,
saying why.  The census leaves the JVM's resident memory, swap and page
tables as they were."""
import os
import shutil
import subprocess

import pytest

from conftest import MiB, scan_json
from heapcheck import Target, adds_up, class_of, status

HEAPFILL = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "helpers", "HeapFill.java")
JSTAT_ROUNDING = 8 * 0.05 * 1024  # eight columns, each rounded to 0.1 KiB

pytestmark = pytest.mark.skipif(not shutil.which("java") or not shutil.which("jstat"),
                                reason="no java and jstat (Debian: default-jdk-headless)")


def start_heapfill(*jvm_options):
    return Target(["java", "-Xmx256m", "-Xshare:off", *jvm_options, HEAPFILL])


def jstat_gc(pid):
    """jstat -gc's used and capacity of the heap spaces, in bytes (a
    collector without a young generation prints "-" for its columns)."""
    out = subprocess.run(["jstat", "-gc", str(pid)], capture_output=True, text=True, timeout=60, check=True).stdout
    names, values = out.split("\n")[:2]
    cols = dict(zip(names.split(), values.split()))
    num = lambda k: 0.0 if cols.get(k, "-") == "-" else float(cols[k]) * 1024
    used = sum(num(k) for k in ("S0U", "S1U", "EU", "OU"))
    capacity = sum(num(k) for k in ("S0C", "S1C", "EC", "OC"))
    return used, capacity


def heap_class(census):
    return class_of(census, "runtime_heap")


def census_against_jstat(pid, tries=3):
    """A census between two reads of jstat, taken while the JVM's status
    stays as it was (its own threads may move it: a few tries)."""
    for _ in range(tries):
        before = status(pid)
        first = jstat_gc(pid)
        census = scan_json(pid)
        second = jstat_gc(pid)
        after = status(pid)
        if before == after:
            return census, first, second
    raise AssertionError(f"the census changed the JVM: {before} -> {after}")


@pytest.mark.parametrize("gc", ["G1", "Parallel"])
def test_in_use_is_jstat_used(gc):
    with start_heapfill(f"-XX:+Use{gc}GC") as t:
        census, (used1, cap1), (used2, cap2) = census_against_jstat(t.pid)
        c = heap_class(census)
        adds_up(c)
        assert c["how"].startswith(f"hsperfdata: {gc}, used "), c["how"]
        lo, hi = min(used1, used2) - JSTAT_ROUNDING, max(used1, used2) + JSTAT_ROUNDING
        assert lo <= c["in_use"] <= hi, (c, used1, used2)
        # the helper's own view: what it kept is in use
        assert c["in_use"] >= t.info["kept"], (c, t.info)
        # free is committed memory not used, and only what is private of it
        assert c["free"] <= max(cap1, cap2) - min(used1, used2) + JSTAT_ROUNDING, (c, cap1, cap2)
        assert c["returnable"] == 0


def test_without_perf_data_stays_unknown():
    with start_heapfill("-XX:-UsePerfData") as t:
        c = heap_class(scan_json(t.pid))
        adds_up(c)
        assert "-XX:-UsePerfData" in c["how"], c["how"]
        assert c["in_use"] == 0 and c["free"] == 0
        assert c["unknown"] >= 24 * MiB, c
