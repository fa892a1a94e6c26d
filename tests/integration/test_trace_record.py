"""ramwatch trace record and the tracer it preloads (libramwatch-trace.so),
run as a user runs them: real programs with known allocation patterns
(tests/helpers/trace-patterns.c, trace-flood.c, a Python program with
phases) recorded, then ramwatch trace summary --json on their traces,
checked to the byte: sites by function and line, scopes, retained bytes,
lifetimes and the integrity verdict."""

import ctypes
import json
import re
import os
import subprocess
import time
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
BUILD = Path(os.environ.get("RAMWATCH_BUILD", ROOT / "build"))
RAMWATCH = BUILD / "ramwatch"
PATTERNS = BUILD / "helpers" / "trace-patterns"
FLOOD = BUILD / "helpers" / "trace-flood"
CHURN = BUILD / "helpers" / "trace-churn"
SOURCE = "tests/helpers/trace-patterns.c"

KiB = 1024
MiB = 1024 * KiB


def record(tmp_path, *command, options=(), env=None, name="t.jsonl"):
    out = tmp_path / name
    e = dict(os.environ)
    e.pop("LD_PRELOAD", None)  # a sanitized client's runtime is not the traced program's
    e.update(env or {})
    p = subprocess.run([str(RAMWATCH), "trace", "record", *options, "-o", str(out), "--", *map(str, command)],
                       capture_output=True, text=True, timeout=120, env=e, cwd=tmp_path)
    return p, out


def summary(path, *options):
    p = subprocess.run([str(RAMWATCH), "trace", "summary", "--json", "--sites", "--include-zero-live",
                        "--top", "100", *options, str(path)], capture_output=True, text=True, timeout=120)
    assert p.returncode == 0, p.stderr
    rows = [json.loads(line) for line in p.stdout.splitlines()]
    return rows[0], {r["scope"]: r for r in rows if r["kind"] == "scope"}, \
        [r for r in rows if r["kind"] == "site"]


def site(sites, function):
    found = [s for s in sites if s.get("symbol") == function]
    assert len(found) == 1, [(s.get("symbol"), s.get("location")) for s in sites]
    return found[0]


def line_of(text):
    for i, line in enumerate((ROOT / SOURCE).read_text().splitlines(), 1):
        if text in line:
            return "%s:%d" % (SOURCE, i)
    raise AssertionError(text)


def find_pid(argv):
    """The pid of the one process running argv (a list of bytes)."""
    found = []
    for p in os.listdir("/proc"):
        try:
            if p.isdigit() and Path("/proc", p, "cmdline").read_bytes().split(b"\0")[:len(argv)] == argv:
                found.append(int(p))
        except OSError:
            pass  # it ended while we looked
    assert len(found) == 1, found
    return found[0]


def pattern(tmp_path, name, options=(), env=None):
    p, out = record(tmp_path, PATTERNS, name, options=options, env=env)
    assert p.returncode == 0, p.stderr
    assert p.stderr.startswith("ramwatch trace record: %s: " % out), p.stderr
    assert " 0 dropped, trace complete\n" in p.stderr, p.stderr
    return out


def test_sizes_sites_and_small_allocations(tmp_path):
    total, scopes, sites = summary(pattern(tmp_path, "sizes"))
    assert total["layer"] == "logical"  # chosen for the tracer's traces
    assert total["capture_integrity"]["status"] == "complete"
    assert total["unmatched_frees"] == 0
    kept = site(sites, "retain_one")
    assert kept["location"] == line_of("void *p = malloc(n);")
    assert (kept["allocations"], kept["frees"], kept["open_request_bytes"]) == (3, 0, 3 * MiB)
    churn = site(sites, "churn_one")
    assert churn["location"] == line_of("char *volatile p = malloc(n);")
    assert (churn["allocations"], churn["frees"], churn["open_request_bytes"]) == (10, 10, 0)
    assert churn["explicitly_closed_bytes"] == 10 * 64 * KiB
    assert churn["completed_lifetimes"] == 10
    # every block lives one event: its own free follows its alloc
    assert churn["lifetime_max_events"] == 1
    assert churn["lifetime_total_byte_events"] == 10 * 64 * KiB
    # 100-byte blocks are below the default threshold: counted at their site, exactly
    small = site(sites, "small_one")
    assert (small["untracked_requests"], small["untracked_request_bytes"]) == (1000, 100000)
    assert small["allocations"] == 1000 and small["open_requests"] == 0
    assert scopes["root"]["open_request_bytes"] == 3 * MiB


def test_min_bytes_zero_traces_every_block(tmp_path):
    total, _, sites = summary(pattern(tmp_path, "sizes", options=("--min-bytes", "0")))
    assert total["capture_integrity"]["status"] == "complete"
    small = site(sites, "small_one")
    assert small["untracked_requests"] == 0
    assert (small["allocations"], small["open_requests"], small["open_request_bytes"]) == (1000, 1000, 100000)


def test_threads(tmp_path):
    total, _, sites = summary(pattern(tmp_path, "threads"))
    assert total["capture_integrity"]["status"] == "complete"
    kept = site(sites, "retain_one")
    assert (kept["allocations"], kept["open_request_bytes"]) == (4, 4 * 256 * KiB)
    churn = site(sites, "churn_one")
    assert (churn["allocations"], churn["frees"], churn["explicitly_closed_bytes"]) == (400, 400, 400 * 128 * KiB)


@pytest.mark.parametrize("name", ["t.jsonl", "t.trace"])
@pytest.mark.parametrize("pattern,blocks", [("handoff", 40000), ("shuffle", 400000)])
def test_blocks_freed_by_another_thread_are_in_order(tmp_path, name, pattern, blocks):
    """Threads hand each other blocks: two through a queue (each free is of
    a block the other thread allocated), or four through a shared table
    (most blocks are freed by a thread that did not allocate them, and
    their addresses go out again to any thread).  The trace has the
    threads' events in the order they happened, whatever order the threads
    ran in: every block freed, none freed before it was allocated, no
    address allocated twice without a free between."""
    p, out = record(tmp_path, PATTERNS, pattern, options=("--min-bytes", "0"), name=name)
    assert p.returncode == 0 and " 0 dropped, trace complete\n" in p.stderr, p.stderr
    total, _, sites = summary(out)
    assert total["capture_integrity"]["status"] == "complete"
    hand = site(sites, "hand_one")
    assert (hand["allocations"], hand["frees"], hand["open_requests"]) == (blocks, blocks, 0)
    assert total["unmatched_frees"] == 0
    text = subprocess.run([str(RAMWATCH), "trace", "summary", str(out)], capture_output=True, text=True, timeout=120)
    assert text.returncode == 0 and "anomalies" not in text.stdout, text.stdout


def test_realloc_chain_is_one_allocation(tmp_path):
    total, _, sites = summary(pattern(tmp_path, "realloc"))
    assert total["capture_integrity"]["status"] == "complete"
    assert (total["allocations"], total["resizes"] + total["remaps"]) == (1, 2)
    assert total["open_request_bytes"] == 4 * MiB and total["unmatched_resizes"] == 0
    assert site(sites, "grow_chain")["open_request_bytes"] == 4 * MiB


def test_aligned_allocations(tmp_path):
    total, _, sites = summary(pattern(tmp_path, "aligned"))
    assert total["capture_integrity"]["status"] == "complete"
    # each call is a site of its own, named by its line
    by_line = {s["location"]: s for s in sites if s.get("symbol") == "aligned_blocks"}
    assert len(by_line) == 4
    expect = {"posix_memalign(&p, 4096": (1 * MiB, 0), "aligned_alloc(65536": (512 * KiB, 0),
              "memalign(256": (256 * KiB, 0), "p = valloc(": (0, 128 * KiB)}
    for text, (kept, freed) in expect.items():
        s = by_line[line_of(text)]
        assert (s["allocations"], s["open_request_bytes"], s["explicitly_closed_bytes"]) == (1, kept, freed)


def test_mapped_blocks_on_the_backing_layer(tmp_path):
    out = pattern(tmp_path, "maps")
    total, _, _ = summary(out, "--layer", "backing")
    assert total["capture_integrity"]["status"] == "complete"
    m = total["physical"]
    # 8 MiB mapped, its upper half unmapped, the rest remapped to 6 MiB
    assert (m["maps"], m["unmaps"]) == (2, 2)
    assert (m["live_mapped_bytes"], m["high_water_mapped_bytes"]) == (6 * MiB, 8 * MiB)
    assert m["untracked_unmap_bytes"] == 0


def test_fork_child_writes_its_own_trace(tmp_path):
    (tmp_path / "t.jsonl.1").write_text("an earlier recording's\n")  # removed by trace record
    p, out = record(tmp_path, PATTERNS, "fork")
    assert p.returncode == 0, p.stderr
    assert p.stderr.endswith(" 0 dropped, trace complete\nramwatch trace record: 1 more trace of the processes "
                             "it forked or exec'd: %s.PID\n" % out), p.stderr
    children = [p for p in tmp_path.iterdir() if p.name.startswith("t.jsonl.") and p.name[8:].isdigit()]
    assert len(children) == 1
    parent, _, psites = summary(out)
    child, _, csites = summary(children[0])
    for t in (parent, child):
        assert t["capture_integrity"]["status"] == "complete"
    assert site(psites, "retain_one")["open_request_bytes"] == 1 * MiB
    # the child's trace holds the child's allocations only
    assert child["allocations"] == 1
    assert site(csites, "retain_one")["open_request_bytes"] == 2 * MiB
    assert json.loads(children[0].read_text().splitlines()[0])["pid"] == int(children[0].name[8:])


def test_phases_from_the_c_api(tmp_path):
    total, scopes, _ = summary(pattern(tmp_path, "phases"))
    assert total["capture_integrity"]["status"] == "complete"
    assert scopes["root/load"]["open_request_bytes"] == 2 * MiB
    d = scopes["root/decode"]
    assert (d["open_request_bytes"], d["explicitly_closed_bytes"], d["frees"]) == (512 * KiB, 1 * MiB, 1)
    assert scopes["root/decode/inner"]["open_request_bytes"] == 256 * KiB


def test_phases_from_a_variable(tmp_path):
    total, scopes, _ = summary(pattern(tmp_path, "env-phases", options=("--scope-env", "PHASE")))
    assert total["capture_integrity"]["status"] == "complete"
    assert scopes["root/first"]["open_request_bytes"] == 1 * MiB
    assert scopes["root/second"]["open_request_bytes"] == 2 * MiB
    assert scopes["root"]["open_request_bytes"] == 3 * MiB


def test_python_phases(tmp_path):
    program = tmp_path / "phases.py"
    program.write_text(
        "import ramwatch_trace\n"
        "assert ramwatch_trace.active()\n"
        "kept = []\n"
        "with ramwatch_trace.scope('build'):\n"
        "    kept.append(bytearray(8 << 20))\n"
        "with ramwatch_trace.scope('scratch'):\n"
        "    b = bytearray(4 << 20)\n"
        "    del b\n")
    p, out = record(tmp_path, "/usr/bin/python3", program)
    assert p.returncode == 0, p.stderr
    total, scopes, _ = summary(out)
    assert total["capture_integrity"]["status"] == "complete"
    # a bytearray asks for one byte more than it holds, for its NUL
    b = scopes["root/build"]
    assert (b["allocations"], b["high_water_open_request_bytes"]) == (1, (8 << 20) + 1)
    s = scopes["root/scratch"]
    assert (s["allocations"], s["frees"], s["explicitly_closed_bytes"]) == (1, 1, (4 << 20) + 1)


def test_python_module_without_the_tracer():
    p = subprocess.run(["/usr/bin/python3", "-c",
                        "import ramwatch_trace as t\nassert not t.active()\n"
                        "with t.scope('x'):\n    pass\n"],
                       env={"PYTHONPATH": str(BUILD / "python")}, capture_output=True, text=True, timeout=60)
    assert p.returncode == 0, p.stderr


def test_a_full_buffer_drops_counts_and_the_verdict_says_so(tmp_path):
    # one page of records per thread and no waiting: four threads outrun the writer
    p, out = record(tmp_path, FLOOD, 4, 100000, env={"RAMWATCH_TRACE_BUFFER": "4096",
                                                     "RAMWATCH_TRACE_WAIT_US": "0"})
    assert p.returncode == 0, p.stderr
    stop = json.loads(out.read_text().splitlines()[-1])
    assert stop["kind"] == "trace.stop" and stop["dropped"] > 0
    assert " %d dropped, trace sequence_gaps\n" % stop["dropped"] in p.stderr
    total, _, _ = summary(out)
    c = total["capture_integrity"]
    assert c["status"] == "sequence_gaps"
    # every dropped event took its number: the gaps are the drops
    assert c["missing_sequence_event_count"] == stop["dropped"]
    assert c["last_sequence"] == stop["seq"]
    assert c["event_count"] + stop["dropped"] == stop["seq"]
    # 800,000 mallocs and frees, the 3 opening lines, the objects and the small counts at the end
    assert 4 * 100000 * 2 + 4 < stop["seq"] < 4 * 100000 * 2 + 40


def test_a_stuck_writer_costs_one_wait_then_events_drop_at_once(tmp_path):
    # The writer thread alone is stopped (ptrace stops one thread), as a
    # disk that does not answer would hold it.  The allocating thread waits
    # RAMWATCH_TRACE_WAIT_US (0.1 s) once, then drops its events at once, so
    # it gets through its 6,000,000 events while the writer is stopped;
    # waiting the whole wait for each, it would take days.
    libc = ctypes.CDLL(None, use_errno=True)
    libc.ptrace.argtypes = [ctypes.c_long, ctypes.c_long, ctypes.c_void_p, ctypes.c_void_p]
    PTRACE_DETACH, PTRACE_SEIZE, PTRACE_INTERRUPT, WALL = 17, 0x4206, 0x4207, 0x40000000
    out = tmp_path / "t.jsonl"
    e = dict(os.environ)
    e.pop("LD_PRELOAD", None)
    e.update({"RAMWATCH_TRACE_BUFFER": "4096", "RAMWATCH_TRACE_WAIT_US": "100000"})
    rec = subprocess.Popen([str(RAMWATCH), "trace", "record", "-o", str(out), "--", str(FLOOD), "1", "3000000"],
                           stderr=subprocess.PIPE, text=True, env=e, cwd=tmp_path)
    try:
        # the traced program's threads: main, the tracer's writer (started
        # before main runs) and the one allocating thread
        deadline = time.monotonic() + 30
        while True:
            kids = open(f"/proc/{rec.pid}/task/{rec.pid}/children").read().split()
            tids = sorted(int(t) for t in os.listdir(f"/proc/{kids[0]}/task")) if kids else []
            if len(tids) == 3:
                break
            assert time.monotonic() < deadline, "the traced program did not start its thread"
            time.sleep(0.01)
        pid, writer, worker = int(kids[0]), tids[1], tids[2]
        alive = os.path.join(f"/proc/{pid}/task", str(worker))
        assert libc.ptrace(PTRACE_SEIZE, writer, None, None) == 0, os.strerror(ctypes.get_errno())
        try:
            assert libc.ptrace(PTRACE_INTERRUPT, writer, None, None) == 0, os.strerror(ctypes.get_errno())
            os.waitpid(writer, WALL)
            assert os.path.exists(alive), "the thread ended before the writer stopped"
            deadline = time.monotonic() + 10
            while os.path.exists(alive) and time.monotonic() < deadline:
                time.sleep(0.05)
            finished = not os.path.exists(alive)
        finally:
            assert libc.ptrace(PTRACE_DETACH, writer, None, None) == 0, os.strerror(ctypes.get_errno())
        _, err = rec.communicate(timeout=120)
    finally:
        if rec.poll() is None:
            rec.kill()
            rec.wait()
    assert finished, "the allocating thread still waited for the stopped writer after 10 s"
    assert rec.returncode == 0, err
    stop = json.loads(out.read_text().splitlines()[-1])
    assert stop["kind"] == "trace.stop" and stop["dropped"] > 0, err
    total, _, _ = summary(out)
    assert total["capture_integrity"]["status"] == "sequence_gaps"
    assert total["capture_integrity"]["missing_sequence_event_count"] == stop["dropped"]


def exported(path):
    """A trace's events as JSON objects, through trace export."""
    p = subprocess.run([str(RAMWATCH), "trace", "export", str(path)], capture_output=True, text=True, timeout=120)
    assert p.returncode == 0, p.stderr
    return [json.loads(line) for line in p.stdout.splitlines()]


@pytest.mark.parametrize("name,env", [
    ("default buffers", {}),
    # one page a thread and no wait: most events are dropped
    ("full buffers", {"RAMWATCH_TRACE_BUFFER": "4096", "RAMWATCH_TRACE_WAIT_US": "0"}),
])
def test_forks_execs_and_ending_threads_lose_no_event_uncounted(tmp_path, name, env):
    # 4 waves of 4 threads that end, a fork during the second, a fork and
    # exec during the third: in each process's trace, the events recorded
    # and the events dropped make every event its threads made
    waves, threads, pairs = 4, 4, 20000
    p, out = record(tmp_path, CHURN, waves, threads, pairs, env=env, name="t.rwtrace")
    assert p.returncode == 7, p.stderr  # the program's own status and output
    assert p.stdout == "made %d\n" % (2 * waves * threads * pairs)
    assert p.stderr.endswith("ramwatch trace record: 2 more traces of the processes it forked or exec'd: "
                             "%s.PID\n" % out), p.stderr
    children = sorted(f for f in tmp_path.iterdir() if f.name.startswith("t.rwtrace.") and f.name[10:].isdigit())
    assert len(children) == 2
    dropped = 0
    for path, made in [(out, 2 * waves * threads * pairs)] + [(c, 2 * 2 * pairs) for c in children]:
        events = exported(path)
        stop = events[-1]
        assert stop["kind"] == "trace.stop", path
        # every block is 64 KiB, above the threshold: each malloc and free is an event
        allocs = [e for e in events if e["kind"] == "alloc" and e.get("tracked", True)]
        assert {e["len"] for e in allocs} <= {64 * KiB}, path
        frees = sum(e["kind"] == "free" for e in events)
        assert len(allocs) + frees + stop["dropped"] == made, path
        # and each dropped event is a number missing from the sequence
        total, _, _ = summary(path)
        c = total["capture_integrity"]
        assert c["missing_sequence_event_count"] == stop["dropped"], path
        assert c["status"] == ("complete" if stop["dropped"] == 0 else "sequence_gaps"), path
        dropped += stop["dropped"]
    if env:
        assert dropped > 0


def test_threads_past_the_streams_of_a_file_are_dropped_and_counted(tmp_path):
    # 4200 threads at once, each holding a 64 KiB block until all have
    # theirs: a file has 4096 streams, one a thread (the main thread's
    # one of them), so the last threads' events are dropped, counted and
    # left out of the sequence like any other drop.  Their frees may be
    # recorded: once the barrier opens, a thread that ended leaves its ring
    # to the next one that asks, so a late thread can have one for its free
    n = 4200
    p, out = record(tmp_path, CHURN, "wide", n, env={"RAMWATCH_TRACE_BUFFER": "4096"}, name="t.rwtrace")
    assert p.returncode == 0, p.stderr
    events = exported(out)
    stop = events[-1]
    allocs = [e for e in events if e["kind"] == "alloc" and e.get("tracked", True)]
    frees = sum(e["kind"] == "free" for e in events)
    assert len(allocs) == 4095 and n - 4095 <= stop["dropped"] <= 2 * (n - 4095)
    assert len(allocs) + frees + stop["dropped"] == 2 * n
    # every stream in the file is one a reader takes
    total, _, _ = summary(out)
    assert total["capture_integrity"]["missing_sequence_event_count"] == stop["dropped"]
    assert " %d dropped, trace sequence_gaps\n" % stop["dropped"] in p.stderr


def test_exit_status_and_errors(tmp_path):
    p, out = record(tmp_path, "/bin/sh", "-c", "exit 7")
    assert p.returncode == 7
    p, out = record(tmp_path, "/bin/sh", "-c", "kill -TERM $$")
    assert p.returncode == 128 + 15
    p, out = record(tmp_path, tmp_path / "no-such-program")
    assert p.returncode == 127 and "cannot run" in p.stderr
    p = subprocess.run([str(RAMWATCH), "trace", "record", "--", "true"], capture_output=True, text=True)
    assert p.returncode == 2 and "-o FILE" in p.stderr
    p = subprocess.run([str(RAMWATCH), "trace", "record", "--min-bytes", "lots", "-o", "x", "--", "true"],
                       capture_output=True, text=True)
    assert p.returncode == 2 and "--min-bytes" in p.stderr


def test_ramwatch_mark_enters_a_phase_of_the_trace(tmp_path):
    program = tmp_path / "slow.py"
    program.write_text(
        "import sys, time\n"
        "kept = [bytearray(1 << 20)]\n"
        "print('ready', flush=True)\n"
        "sys.stdin.readline()\n"
        "kept.append(bytearray(2 << 20))\n")
    (tmp_path / "t.jsonl.mark").write_text("stale\n")  # an old run's: trace record removes it
    out = tmp_path / "t.jsonl"
    env = dict(os.environ)
    env.pop("LD_PRELOAD", None)
    proc = subprocess.Popen([str(RAMWATCH), "trace", "record", "-o", str(out), "--", "/usr/bin/python3",
                             str(program)], stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                            text=True, env=env)
    try:
        assert proc.stdout.readline() == "ready\n"
        pid = [find_pid([b"/usr/bin/python3", bytes(program)])]
        # no daemon at this socket: the trace is marked all the same, and mark says both
        m = subprocess.run([str(RAMWATCH), "mark", "--pid", str(pid[0]), "--socket", str(tmp_path / "none"),
                            "load"], capture_output=True, text=True, timeout=30)
        assert m.returncode == 1 and "cannot connect" in m.stderr
        assert m.stdout == "mark 'load' set in the allocation trace of pid %d (%s.mark)\n" % (pid[0], out)
        # the writer looks every few milliseconds
        import time
        time.sleep(0.2)
        proc.stdin.write("\n")
        proc.stdin.flush()
        assert proc.wait(timeout=60) == 0
    finally:
        proc.kill()
    total, scopes, _ = summary(out)
    # the phase ends with the trace: balanced
    assert total["capture_integrity"]["status"] == "complete"
    assert "root/stale" not in scopes
    load = scopes["root/load"]
    assert load["high_water_open_request_bytes"] >= (2 << 20) + 1
    assert any(line.get("kind") == "scope.exit" for line in map(json.loads, out.read_text().splitlines()))


def test_stacks_as_a_table_of_ids(tmp_path):
    out = pattern(tmp_path, "sizes", options=("--stack", "4"))
    lines = [json.loads(line) for line in out.read_text().splitlines()]
    assert lines[1]["kind"] == "allocator" and lines[1]["stack"] == 4
    stacks = {line["stack_id"]: line["frames"] for line in lines if line["kind"] == "stack"}
    events = [line for line in lines if line["kind"] in ("alloc", "free") and line.get("tracked", True)]
    assert len(events) == 3 + 10 + 10
    # three stacks: retain_one's malloc, churn_one's malloc and its free, each called from sizes()
    assert sorted(stacks) == [1, 2, 3]
    for e in events:
        frames = stacks[e["stack_id"]]
        assert len(frames) == 4 and frames[0] == e["return_address"]
    by_site = {}
    for e in events:
        by_site.setdefault((e["kind"], e["return_address"]), set()).add(e["stack_id"])
    assert sorted(len(v) for v in by_site.values()) == [1, 1, 1]
    # the callers' callers differ: retain_one and churn_one are called from two lines of sizes()
    assert len({tuple(f[1:2]) for f in stacks.values()}) == 2
    total, _, sites = summary(out)
    assert total["capture_integrity"]["status"] == "complete"
    assert site(sites, "retain_one")["open_request_bytes"] == 3 * MiB


def test_report_puts_the_census_heap_beside_the_trace(tmp_path):
    import sys
    sys.path.insert(0, str(Path(__file__).parent))
    from rwdaemon import Daemon, fast_config
    out = tmp_path / "t.jsonl"
    env = dict(os.environ)
    env.pop("LD_PRELOAD", None)
    proc = subprocess.Popen([str(RAMWATCH), "trace", "record", "-o", str(out), "--", str(PATTERNS), "hold"],
                            stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
                            env=env)
    d = None
    try:
        assert proc.stdout.readline() == "ready\n"
        pid = find_pid([bytes(PATTERNS), b"hold"])
        sock = str(tmp_path / "ctl.sock")
        d = Daemon(tmp_path, fast_config("Watch=pid:%d" % pid), socket=sock).start()

        def ask(*args):
            return subprocess.run([str(RAMWATCH), *args, "--socket", sock], capture_output=True, text=True,
                                  timeout=30)
        import time
        deadline = time.time() + 30
        while time.time() < deadline:
            h = ask("history", "--pid", str(pid), "--format", "json")
            if h.returncode == 0 and json.loads(h.stdout)["censuses"]:
                break
            time.sleep(0.2)
        else:
            raise AssertionError("no census of the traced process")
        proc.stdin.write("\n")
        proc.stdin.flush()
        assert proc.wait(timeout=60) == 0
        r = ask("report", "--pid", str(pid), "--trace", str(out), "--format", "json")
        assert r.returncode == 0, r.stderr
        report = json.loads(r.stdout)
        md = ask("report", "--pid", str(pid), "--trace", str(out))
        assert md.returncode == 0, md.stderr
    finally:
        proc.kill()
        if d:
            d.stop()
    t = report["trace"]
    # everything held is live at the end: 16 MiB and 256 x 16 KiB, and the
    # 4 KiB buffers stdio gave standard output and input (pipes)
    assert t["live_bytes"] == 16 * MiB + 256 * 16 * KiB + 2 * 4096
    assert (t["pid"], t["capture_integrity"], t["file"]) == (pid, "complete", str(out))
    heap = [c for c in report["last_census"]["classes"] if c["key"] == "malloc"]
    assert len(heap) == 1 and t["malloc_resident"] == heap[0]["resident"]
    assert t["allocator_overhead_bytes"] == heap[0]["resident"] - t["live_bytes"]
    assert "## The heap beside its allocation trace\n" in md.stdout
    assert "| live in the trace at its end | 20.0 MiB |" in md.stdout


def test_past_the_limits(tmp_path):
    # the helper checks each refusal of the scope API itself (its exit status)
    total, scopes, sites = summary(pattern(tmp_path, "limits"), "--top", "5000")
    assert total["capture_integrity"]["status"] == "complete"
    # 4096 scopes below root, none more
    assert len(scopes) == 4097 and "root/one-too-many" not in scopes
    assert "root/" + "d/" * 31 + "d" in scopes and "root/" + "n" * 250 in scopes
    # 3100 (site, scope) pairs of small blocks: the table keeps 3072, the rest are under site 0
    small = site(sites, "small_in_scope")
    assert (small["untracked_requests"], small["untracked_request_bytes"]) == (3072, 307200)
    rest = [s for s in sites if s["return_address"] == 0]
    assert len(rest) == 1 and rest[0]["untracked_requests"] == 28
    assert total["untracked_requests"] == 3100


def stacks_of(path, *options):
    """The rows of trace summary --json --stacks: total, sites, stacks and
    what it wrote on standard error."""
    p = subprocess.run([str(RAMWATCH), "trace", "summary", "--json", "--stacks", *options, str(path)],
                       capture_output=True, text=True, timeout=120)
    assert p.returncode == 0, p.stderr
    rows = [json.loads(line) for line in p.stdout.splitlines()]
    return rows[0], [r for r in rows if r["kind"] == "site"], [r for r in rows if r["kind"] == "stack"], p.stderr


@pytest.mark.parametrize("name", ["t.jsonl", "t.rwtrace"])
def test_stacks_of_two_callers(tmp_path, name):
    # xmalloc called from load_model (3 x 1 MiB) and from decode (5 x 256 KiB), all kept
    p, out = record(tmp_path, PATTERNS, "two-callers", options=("--stack", "3"), name=name)
    assert p.returncode == 0, p.stderr
    assert " 0 dropped, trace complete\n" in p.stderr, p.stderr
    assert (out.read_bytes()[:1] == b"{") == name.endswith(".jsonl")
    total, sites, stacks, err = stacks_of(out)
    assert err == ""
    assert total["capture_integrity"]["status"] == "complete"
    assert sites == []
    # two stacks, the larger first, each named frame by frame from the allocating call up
    assert [s["status"] for s in stacks] == ["recorded", "recorded"]
    assert [[f.get("symbol") for f in s["frames"]] for s in stacks] == \
        [["xmalloc", "load_model", "two_callers"], ["xmalloc", "decode", "two_callers"]]
    assert [[f.get("location") for f in s["frames"][:2]] for s in stacks] == \
        [[line_of("void *block = malloc(n);"), line_of("xmalloc(1 * MiB);")],
         [line_of("void *block = malloc(n);"), line_of("xmalloc(256 * KiB);")]]
    assert {os.path.realpath(f["object"]) for s in stacks for f in s["frames"]} == {os.path.realpath(PATTERNS)}
    assert [(s["allocations"], s["open_requests"], s["open_request_bytes"]) for s in stacks] == \
        [(3, 3, 3 * MiB), (5, 5, 5 * 256 * KiB)]
    # both start at the same call: one site, which holds both totals
    assert stacks[0]["frames"][0]["return_address"] == stacks[1]["frames"][0]["return_address"]
    _, _, sites = summary(out)
    assert [(s["symbol"], s["location"], s["allocations"], s["open_request_bytes"]) for s in sites] == \
        [("xmalloc", line_of("void *block = malloc(n);"), 8, 3 * MiB + 5 * 256 * KiB)]
    assert sites[0]["return_address"] == stacks[0]["frames"][0]["return_address"]
    # --top 1: the larger stack alone; the text form lists the same frames
    _, _, top, _ = stacks_of(out, "--top", "1")
    assert top == stacks[:1]
    p = subprocess.run([str(RAMWATCH), "trace", "summary", "--stacks", str(out)], capture_output=True, text=True)
    assert p.returncode == 0, p.stderr
    frames = [l for l in p.stdout.splitlines() if l.startswith("stack_frame ")]
    assert [re.search(r' symbol="([^"]*)"', l).group(1) for l in frames] == \
        ["xmalloc", "load_model", "two_callers", "xmalloc", "decode", "two_callers"]
    assert [l.split()[:4] for l in p.stdout.splitlines() if l.startswith("stack ")] == \
        [["stack", "stack_id=1", "status=recorded", "frames=3"], ["stack", "stack_id=2", "status=recorded", "frames=3"]]


def test_stacks_of_a_trace_without_them_are_its_sites(tmp_path):
    out = pattern(tmp_path, "two-callers")
    total, sites, stacks, err = stacks_of(out)
    assert err == "ramwatch: note: %s was recorded without --stack N: it holds no stacks, " \
        "so sites are ranked instead\n" % out
    assert stacks == []
    assert [(s["symbol"], s["open_request_bytes"]) for s in sites] == [("xmalloc", 3 * MiB + 5 * 256 * KiB)]


def without_addresses(rows):
    """Summary rows with the fields a new address space changes left out."""
    return [{k: v for k, v in r.items() if k not in ("site", "address", "return_address")} for r in rows]


@pytest.mark.parametrize("name", ["sizes", "realloc", "aligned", "maps", "phases"])
def test_binary_trace_summarises_as_the_json_one(tmp_path, name):
    # the file's name chooses: .jsonl is JSON Lines, any other binary
    json_dir, bin_dir = tmp_path / "json", tmp_path / "bin"
    json_dir.mkdir()
    bin_dir.mkdir()
    p, text = record(json_dir, PATTERNS, name, name="t.jsonl")
    assert p.returncode == 0, p.stderr
    p, binary = record(bin_dir, PATTERNS, name, name="t.rwtrace")
    assert p.returncode == 0, p.stderr
    assert " 0 dropped, trace complete\n" in p.stderr, p.stderr
    assert binary.read_bytes()[:10] == b"\x89rwtrace2\x1a"
    assert binary.stat().st_size < text.stat().st_size
    t_total, t_scopes, t_sites = summary(text)
    b_total, b_scopes, b_sites = summary(binary)
    assert b_total == t_total
    assert b_scopes == t_scopes
    key = lambda s: (s.get("symbol") or "", s.get("location") or "", s["allocations"])
    assert without_addresses(sorted(b_sites, key=key)) == without_addresses(sorted(t_sites, key=key))


@pytest.mark.parametrize("name", ["sizes", "realloc", "maps"])
def test_export_is_what_the_json_writer_writes(tmp_path, name):
    # one thread and no address randomisation: both runs make the same calls at the same addresses
    runs = {}
    for fmt in ("json", "binary"):
        out = tmp_path / ("t.%s" % fmt)
        e = dict(os.environ)
        e.pop("LD_PRELOAD", None)
        p = subprocess.run(["setarch", "-R", str(RAMWATCH), "trace", "record", "--min-bytes", "0", "--format", fmt,
                            "-o", str(out), "--", str(PATTERNS), name],
                           capture_output=True, text=True, timeout=120, env=e, cwd=tmp_path)
        assert p.returncode == 0, p.stderr
        runs[fmt] = out
    assert runs["json"].read_bytes()[:1] == b"{"
    exported = tmp_path / "exported.jsonl"
    p = subprocess.run([str(RAMWATCH), "trace", "export", "-o", str(exported), str(runs["binary"])],
                       capture_output=True, text=True)
    assert p.returncode == 0, p.stderr
    want = canonical_addresses(runs["json"].read_text().splitlines())
    got = canonical_addresses(exported.read_text().splitlines())
    assert len(got) == len(want) > 10
    strip_pid = lambda lines: [json.dumps({k: v for k, v in json.loads(l).items() if k != "pid"}) for l in lines]
    assert strip_pid(got) == strip_pid(want)
    # the lines themselves, not only their values: the field order is the writer's
    assert got[1:] == want[1:]


def canonical_addresses(lines):
    """The lines with each block address replaced by the order in which the
    trace first names it.  Without address randomisation the program's own
    calls repeat exactly, but where the allocator places a large block
    (an mmap of its own) depends on the mappings the tracer's writer thread
    made by then, which two runs may order differently: the calls, sizes,
    sites and the reuse of addresses are what must be equal."""
    seen = {}
    number = lambda m: m.group(1) + str(seen.setdefault(m.group(2), len(seen)))
    return [re.sub(r'("(?:old_)?address": ?)(\d+)', number, l) for l in lines]


def test_binary_trace_drops_count_and_cut_files_say_where(tmp_path):
    p, out = record(tmp_path, FLOOD, 4, 100000, name="t.rwtrace",
                    env={"RAMWATCH_TRACE_BUFFER": "4096", "RAMWATCH_TRACE_WAIT_US": "0"})
    assert p.returncode == 0, p.stderr
    data = out.read_bytes()
    stop = json.loads(data[data.rindex(b"\n", 0, len(data) - 1) + 1:])
    assert stop["kind"] == "trace.stop" and stop["dropped"] > 0
    total, _, _ = summary(out)
    c = total["capture_integrity"]
    assert c["status"] == "sequence_gaps"
    assert c["missing_sequence_event_count"] == stop["dropped"]
    assert c["event_count"] + stop["dropped"] == stop["seq"]
    # cut inside a record (of two cuts a byte apart one is: a record takes 4 bytes or more):
    # what was whole is exported, then the error says where
    failed = 0
    for n in (len(data) // 2, len(data) // 2 - 1):
        cut = tmp_path / "cut.rwtrace"
        cut.write_bytes(data[:n])
        p = subprocess.run([str(RAMWATCH), "trace", "export", str(cut)], capture_output=True)
        lines = p.stdout.decode().splitlines()
        assert len(lines) > 1000 and all(json.loads(l)["seq"] for l in lines)
        if p.returncode == 0:
            continue
        failed += 1
        assert p.returncode == 1
        assert b"ends inside a record" in p.stderr, p.stderr
        assert b": record %d: " % (len(lines) + 1) in p.stderr, p.stderr
        p = subprocess.run([str(RAMWATCH), "trace", "summary", str(cut)], capture_output=True)
        assert p.returncode == 1 and b"ends inside a record" in p.stderr, p.stderr
    assert failed >= 1
    p = subprocess.run([str(RAMWATCH), "trace", "record", "--format", "xml", "-o", "x", "--", "true"],
                       capture_output=True, text=True)
    assert p.returncode == 2 and "--format" in p.stderr
