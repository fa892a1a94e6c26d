"""Live censuses of a process whose memory shapes are known (the shapes
helper): each shape in its class, with the bytes it made, and conservation
against the kernel's own sums."""
import json
import os
import signal

import pytest

from conftest import DATA, MiB, region_at, rollup, run, scan_json

SHAPES = ["data_file", "memfd", "posix_shm", "shared_anonymous", "large_malloc", "brk_heap", "named", "jit",
          "locked", "reservation", "thread_stack", "thread_arena"]


@pytest.fixture(scope="module")
def census(shapes_once):
    return scan_json(shapes_once.pid, "--regions")


@pytest.mark.parametrize("shape", SHAPES)
def test_shape_lands_in_its_class(shapes_once, census, shape):
    if shape in shapes_once.unsupported:
        pytest.skip(f"this kernel cannot make '{shape}': {shapes_once.unsupported[shape]}")
    for record in shapes_once.shapes[shape]:
        start, end = int(record["start"], 16), int(record["end"], 16)
        region = region_at(census, start)
        assert region["class"] == record["class"], (shape, region)
        # every region inside the shape is in the class too
        for r in census["regions"]:
            if int(r["start"], 16) < end and int(r["end"], 16) > start:
                assert r["class"] == record["class"], (shape, r)


def test_bytes_made_are_counted(shapes_once, census):
    s = shapes_once.shapes
    # the data file was read whole: all of it resident, none private
    path = s["data_file_path"][0]["path"]
    files = {f["path"]: f for f in census["files"]}
    assert files[path]["resident"] == 8 * MiB and files[path]["kind"] == "data"
    assert files[path]["private"] == 0
    memfd = region_at(census, int(s["memfd"][0]["start"], 16))
    assert memfd["resident"] == 4 * MiB and memfd["private"] == 0
    big = region_at(census, int(s["large_malloc"][0]["start"], 16))
    assert big["private"] >= 48 * MiB
    res = s["reservation"][0]
    reserved = [r for r in census["regions"] if r["class"] == "mmgp_ram"]
    assert sum(r["size"] for r in reserved) == 64 * 1024 * MiB
    assert sum(r["private"] for r in reserved) == res["bytes"]
    if "locked" not in shapes_once.unsupported:
        assert census["totals"]["locked"] >= 1 * MiB
    classes = {c["key"]: c for c in census["classes"]}
    assert classes["shared"]["resident"] >= (4 + 2 + 3) * MiB
    assert classes["jit"]["private"] == 1 * MiB
    assert classes["stacks"]["count"] >= 2 * 2 + 1  # two threads with guards, and [stack]


def test_stack_pointers_confirm_thread_stacks(shapes_once, census):
    for record in shapes_once.shapes["thread_stack"]:
        region = region_at(census, int(record["start"], 16))
        assert region["rule"] == "stack_pointer"
    assert census["cost"]["threads"] == 3 and census["cost"]["stack_pointers"] >= 2


def test_conservation_against_the_kernel(shapes_once):
    census = scan_json(shapes_once.pid)
    kernel = rollup(shapes_once.pid)  # the helper is idle: the same moment
    assert census["totals"]["resident"] == kernel["Rss"]
    assert census["totals"]["private"] == kernel["Anonymous"] + kernel["Swap"]
    assert census["totals"]["swap"] == kernel["Swap"]
    assert sum(c["private"] for c in census["classes"]) == census["totals"]["private"]
    assert sum(c["resident"] for c in census["classes"]) == census["totals"]["resident"]
    assert sum(c["count"] for c in census["classes"]) == census["totals"]["regions"]
    # the kernel's counters (status) batch per CPU: close, not always equal
    assert abs(census["counters"]["private"] - census["totals"]["private"]) <= 1 * MiB
    assert census["counters"]["peak_resident"] >= census["counters"]["resident"]


def test_growth_is_seen(shapes):
    before = scan_json(shapes.pid)
    shapes.proc.send_signal(signal.SIGUSR1)
    grown = shapes.read_until("growth")
    after = scan_json(shapes.pid, "--regions")
    other = lambda c: next(k for k in c["classes"] if k["key"] == "other")["private"]
    assert other(after) - other(before) >= 64 * MiB
    assert after["totals"]["private"] - before["totals"]["private"] >= 64 * MiB
    assert region_at(after, int(grown["start"], 16))["class"] == "other"


def test_census_of_the_largest_process(shapes):
    """The README's main command picks the process with the most private
    memory that can be read: the helper is a candidate, so the one picked
    has at least as much."""
    helper = scan_json(shapes.pid)["counters"]["private"]
    c = json.loads(run("scan", "--json", check=0).stdout)
    assert c["counters"]["private"] >= helper


def test_light_census_agrees_with_the_full_one(shapes_once):
    """A light census (maps + smaps_rollup) has the full census's totals and
    the same class sizes as a full census by shape (a light census reads no
    page counts, so it reads no evidence); it does not claim memory counters
    per class."""
    pid = shapes_once.pid
    full = scan_json(pid, "--no-evidence")
    light = scan_json(pid, "--light")
    kernel = rollup(pid)
    assert light["light"] is True and "light" not in full
    assert light["totals"]["private"] == kernel["Anonymous"] + kernel["Swap"]
    assert light["totals"]["resident"] == kernel["Rss"]
    assert light["totals"]["regions"] == full["totals"]["regions"]
    assert light["totals"]["size"] == full["totals"]["size"]
    sizes = lambda c: {k["key"]: (k["size"], k["count"]) for k in c["classes"]}
    assert sizes(light) == sizes(full)
    assert all(k["private"] == 0 and k["resident"] == 0 for k in light["classes"])
    table = run("scan", pid, "--light", check=0).stdout
    assert "a light census" in table
    assert light["evidence"]["taken"] is False and "light census" in light["evidence"]["why_not"]


def test_light_refuses_a_saved_file():
    r = run("scan", "--light", "--smaps", os.path.join(DATA, "smaps", "bash.smaps"))
    assert r.returncode == 2 and "--light" in r.stderr
