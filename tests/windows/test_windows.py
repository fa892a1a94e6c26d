"""ramwatch.exe under Wine (Debian's wine64): the Windows scanner reads the
ground-truth holder (tests/windows/holder.c) from another process and every
kind of memory it made lands in its class with its rule, the figures exact
where the holder knows them and conservation holding; a Windows census is
read by the Linux build's summary and diff; the errors a person can act
on; residency where Wine gives it (the scanner reading itself).

What Wine cannot show (doc/design.md#windows): the working set of another
process, the heap list of another process, PAGE_WRITECOMBINE in Protect,
commit in GetProcessMemoryInfo.  Those rules are tested on captured region
lists (tests/unit/test-win-census.c).  Run by make check-windows."""
import json
import os
import re
import subprocess
import time

import pytest

from wine import EXE, LINUX, ROOT, WIN, WINE, session, winpath

HOLDER = os.path.join(WIN, "tests", "holder.exe")
SELFSCAN = os.path.join(WIN, "tests", "selfscan.exe")
DATA = os.path.join(ROOT, "tests", "data")
KiB, MiB, GiB = 1024, 1024 ** 2, 1024 ** 3


@pytest.fixture(scope="module")
def wine_env():
    yield from session(())


def run(env, *args, timeout=60):
    return subprocess.run([WINE, EXE, *args], env=env, capture_output=True, text=True, timeout=timeout)


def start_holder(env, *args):
    p = subprocess.Popen([WINE, HOLDER, *args], env=env, stdin=subprocess.PIPE, stdout=subprocess.PIPE, text=True)
    line = p.stdout.readline()
    assert line, "the holder said nothing"
    return p, json.loads(line)


@pytest.fixture(scope="module")
def holder(wine_env):
    p, made = start_holder(wine_env)
    yield made
    p.stdin.close()
    p.wait(timeout=30)


@pytest.fixture(scope="module")
def census(wine_env, holder):
    r = run(wine_env, "scan", str(holder["pid"]), "--json", "--regions")
    assert r.returncode == 0, r.stderr
    return json.loads(r.stdout)


def reservation(c, address):
    """The census region (a reservation) that holds address."""
    for r in c["regions"]:
        if int(r["start"], 16) <= address < int(r["end"], 16):
            return r
    raise AssertionError(f"no region holds {address:#x}")


def test_identity(census, holder):
    p = census["process"]
    assert p["platform"] == "windows"
    assert p["pid"] == holder["pid"]
    assert p["comm"] == "holder.exe"
    assert p["exe"].endswith("\\build\\windows\\tests\\holder.exe")
    assert p["start_time"] > 116444736000000000  # a FILETIME after 1970
    assert "holder.exe" in p["cmdline"]
    assert census["windows"]["owner"]


def test_every_kind_in_its_class(census, holder):
    private = reservation(census, holder["private"][0])
    assert (private["class"], private["rule"]) == ("other", "win_private")
    assert private["size"] == private["private"] == holder["private"][1] == 24 * MiB

    heap = reservation(census, holder["heap"])
    assert (heap["class"], heap["rule"], heap["confirmed"]) == ("malloc", "win_nt_heap", True)
    assert int(heap["start"], 16) == holder["heap"]
    assert heap["evidence"] == f"0xffeeffee read at {holder['heap'] + 0x10:#x}"
    for block in holder["heap_blocks"] + [holder["malloc"][0]]:
        r = reservation(census, block)
        assert (r["class"], r["rule"]) == ("malloc", "win_heap_large_block"), r
    for block in holder["heap_blocks"]:
        r = reservation(census, block)
        # the block and the heap's header before it, in 64 KiB granules
        assert holder["heap_block_size"] < r["private"] <= holder["heap_block_size"] + 64 * KiB + 4 * KiB * 16
    assert holder["malloc"][1] < reservation(census, holder["malloc"][0])["private"] <= holder["malloc"][1] + 128 * KiB

    data = reservation(census, holder["file"][0])
    assert (data["class"], data["rule"]) == ("mapped_files", "win_mapped_file")
    assert data["size"] == holder["file"][1] == 8 * MiB and data["private"] == 0
    assert re.match(r"^C:\\users\\[^\\]+\\Temp\\rwh[0-9a-f]+\.tmp$", data["path"]), data["path"]
    assert any(f["path"] == data["path"] and f["kind"] == "data" for f in census["files"])

    section = reservation(census, holder["section"][0])
    assert (section["class"], section["rule"]) == ("shared", "win_section")
    assert section["size"] == 4 * MiB and section["private"] == 0 and section["path"] is None

    big = reservation(census, holder["big"][0])
    assert holder["big"][2] == 16 * MiB, "Wine refused the 64 GiB reservation"
    assert (big["class"], big["rule"]) == ("mmgp_ram", "win_reserving_allocator")
    assert big["size"] == 64 * GiB and big["private"] == 16 * MiB

    jit = reservation(census, holder["jit"][0])
    assert (jit["class"], jit["rule"]) == ("jit", "win_jit")
    assert jit["private"] == jit["size"] == 256 * KiB and jit["perms"] == "rwxp"

    # Wine does not report PAGE_WRITECOMBINE in Protect (doc/design.md#windows): the
    # write-combined block is plain private memory here; the win_write_combine
    # rule is tested on captured lists
    wc = reservation(census, holder["wc"][0])
    assert (wc["class"], wc["rule"], wc["private"]) == ("other", "win_private", 2 * MiB)

    stacks = [r for r in census["regions"] if r["class"] == "stacks"]
    for size in holder["stacks"]:
        assert any(r["size"] == size and r["rule"] == "win_thread_stack" for r in stacks), (size, stacks)
    for r in stacks:
        assert r["evidence"].startswith("TEB of thread ")


def test_conservation(census):
    classes = census["classes"]
    assert sum(k["private"] for k in classes) == census["totals"]["private"]
    assert sum(k["size"] for k in classes) == census["totals"]["size"] == census["windows"]["reserved"]
    assert sum(k["count"] for k in classes) == census["totals"]["regions"] == census["windows"]["reservations"]
    assert sum(r["private"] for r in census["regions"]) == census["totals"]["private"]
    assert sum(r["size"] for r in census["regions"]) == census["windows"]["reserved"]
    assert census["totals"]["private"] <= census["windows"]["committed"] <= census["windows"]["reserved"]


def test_residency_unknown_for_another_process(census, wine_env, holder):
    w = census["windows"]
    assert w["residency"] == "unknown"
    assert "QueryWorkingSetEx" in w["residency_why"]
    assert census["totals"]["resident"] == 0
    r = run(wine_env, "scan", str(holder["pid"]))
    assert r.returncode == 0, r.stderr
    assert "Resident: unknown: QueryWorkingSetEx failed" in r.stdout
    assert re.search(r"Windows: reserved [0-9.]+ GiB, committed [0-9.]+ MiB in \d+ reservations", r.stdout)


def test_residency_of_itself(wine_env):
    """6 MiB of a 16 MiB block touched: exactly 6 MiB resident, 16 MiB private."""
    r = subprocess.run([WINE, SELFSCAN], env=wine_env, capture_output=True, text=True, timeout=60)
    assert r.returncode == 0, r.stderr
    first, line = r.stdout.splitlines()[:2]
    c = json.loads(line)
    assert c["windows"]["residency"] == "exact"
    block = reservation(c, int(first))
    assert block["private"] == 16 * MiB and block["resident"] == 6 * MiB
    assert sum(k["resident"] for k in c["classes"]) == c["totals"]["resident"] > 6 * MiB


def test_markdown_top_out_and_linux_summary_diff(wine_env, holder, tmp_path):
    out = tmp_path / "holder.json"
    r = run(wine_env, "scan", str(holder["pid"]), "--markdown", "--top", "3", "--out", winpath(out))
    assert r.returncode == 0, r.stderr
    assert r.stdout.startswith("## Memory of holder.exe (pid ")
    assert "Windows: reserved" in r.stdout
    saved = json.loads(out.read_text())
    assert saved["process"]["platform"] == "windows" and len(saved["regions"]) == saved["totals"]["regions"]
    assert len(saved["largest"]) == 3

    # the Linux build reads it
    s = subprocess.run([LINUX, "summary", str(out), "--json"], capture_output=True, text=True, timeout=30)
    assert s.returncode == 0, s.stderr
    again = json.loads(s.stdout)
    assert again["process"]["platform"] == "windows"
    assert again["windows"] == saved["windows"]
    assert again["classes"] == saved["classes"]
    d = subprocess.run([LINUX, "diff", str(out), str(out)], capture_output=True, text=True, timeout=30)
    assert d.returncode == 0, d.stderr
    assert "malloc" in d.stdout

    # and a Linux census is read by the Windows build
    linux = subprocess.run([LINUX, "scan", str(os.getpid()), "--json", "--no-gpu"], capture_output=True, text=True,
                           timeout=60)
    assert linux.returncode == 0, linux.stderr
    (tmp_path / "linux.json").write_text(linux.stdout)
    w = run(wine_env, "summary", winpath(tmp_path / "linux.json"), "--json")
    assert w.returncode == 0, w.stderr
    assert json.loads(w.stdout)["process"]["platform"] == "linux"
    w = run(wine_env, "diff", winpath(tmp_path / "linux.json"), winpath(out))
    assert w.returncode == 0, w.stderr


def test_trace_summary_same_as_linux(wine_env):
    trace = os.path.join(DATA, "trace", "phases.jsonl")
    linux = subprocess.run([LINUX, "trace", "summary", trace], capture_output=True, text=True, timeout=30)
    windows = run(wine_env, "trace", "summary", winpath(trace))
    assert linux.returncode == 0 and windows.returncode == 0, windows.stderr
    assert windows.stdout.replace("\r\n", "\n") == linux.stdout


def test_errors(wine_env):
    r = run(wine_env, "scan", "99999")
    assert r.returncode == 1 and "no process 99999" in r.stderr
    r = run(wine_env, "scan", "--name", "no-such-program*.exe")
    assert r.returncode == 1 and "no process matching 'no-such-program*.exe'" in r.stderr
    r = run(wine_env, "scan", "--smaps", "x")
    assert r.returncode == 2 and "the Linux build's" in r.stderr
    # the commands that ask the daemon ask over its pipe (with no daemon
    # there, they say so; test_win_requests.py asks a daemon); top, whose
    # screen is curses', is refused by name, as is the tracer; sql reads a
    # database file (test_store.py)
    pipe = r"\\.\pipe\ramwatch-nobody-here"
    for command in (["processes"], ["history", "--pid", "1"], ["report", "--pid", "1"],
                    ["mark", "--pid", "1", "x"], ["events", "--pid", "1"], ["metrics"], ["oom"], ["cgroups"]):
        r = run(wine_env, *command, "--pipe", pipe)
        assert r.returncode == 1 and "no such pipe" in r.stderr, (command, r.stderr)
    r = run(wine_env, "top")
    assert r.returncode == 1 and "'top' draws its screen with curses" in r.stderr, r.stderr
    r = run(wine_env, "trace", "record", "-o", "t.jsonl", "--", "x.exe")
    assert r.returncode == 1 and "Linux allocation tracer" in r.stderr, r.stderr
    # a request of the control protocol, refused by name before connecting
    # (request-table.def says which platforms serve it)
    r = run(wine_env, "history", "--cgroup", "/system.slice", "--pipe", pipe)
    assert r.returncode == 1 and "ramwatchd serves it on Linux" in r.stderr, r.stderr
    assert "the request 'cgroup_history' is not served on this platform" in r.stderr, r.stderr
    bad = os.path.join(DATA, "windows", "bad", "overlap.json")
    r = run(wine_env, "scan", "--capture", winpath(bad))
    assert r.returncode == 1 and "overlaps or precedes the one before" in r.stderr


def test_by_name(wine_env, holder):
    r = run(wine_env, "scan", "--name", "holder*", "--json")
    assert r.returncode == 0, r.stderr
    assert json.loads(r.stdout)["process"]["pid"] == holder["pid"]


def test_exit_during_scan_gives_no_census(wine_env):
    """A holder with 20,000 more reservations exits by itself while scans
    run one after another: each gives a whole census (every reservation)
    or says the process exited; never a part of one."""
    n = 20000
    p, made = start_holder(wine_env, "--regions", str(n), "--exit-after", "6000")
    outcomes = set()
    deadline = time.monotonic() + 60
    while time.monotonic() < deadline:
        r = run(wine_env, "scan", str(made["pid"]), "--json", "--no-residency", "--no-evidence")
        if r.returncode == 0:
            c = json.loads(r.stdout)
            assert c["totals"]["regions"] > n, c["totals"]
            # the walk's cost counts the thread it runs in (a query of
            # another process's memory is a round trip to wineserver
            # under Wine, tens of microseconds of that thread's CPU each)
            # (about 0.9 s of 2.8 s here; the thread that asked spends none)
            assert c["cost"]["cpu_us"] >= 200000, c["cost"]
            outcomes.add("census")
        else:
            assert re.search(r"process \d+ exited during the scan: no census|no process \d+", r.stderr), r.stderr
            outcomes.add("exited" if "during the scan" in r.stderr else "gone")
            if "no process" in r.stderr and "exited during" not in r.stderr:
                break
    p.wait(timeout=30)
    assert "census" in outcomes and "gone" in outcomes, outcomes
