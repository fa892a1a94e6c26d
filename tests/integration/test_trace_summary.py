"""ramwatch trace summary, run as a user runs it: the real binary on trace
files in tests/data/trace and on traces written here, its text and JSON
Lines output, standard input, the exit codes, and --symbols on a program
compiled here with debug information."""

import json
import os
import shutil
import subprocess
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
BUILD = Path(os.environ.get("RAMWATCH_BUILD", ROOT / "build"))
RAMWATCH = BUILD / "ramwatch"
DATA = ROOT / "tests" / "data" / "trace"

ZERO_LIFETIMES = (
    "completed_lifetimes=0 lifetime_total_events=0 lifetime_mean_events=0 lifetime_max_events=0 "
    "lifetime_total_byte_events=0 lifetime_mean_byte_events=0 lifetime_max_byte_events=0"
)

# phases.jsonl, worked out by hand: root/load keeps 3000 of 4000 bytes;
# root/step allocated 500, grew it to 2000 one event later, freed it one
# event after that (500 x 1 + 2000 x 1 = 2500 byte-events); the first
# allocation of root/load lived 7 events (1000 x 7 = 7000 byte-events).
PHASES_TEXT = [
    "memtrace capture_integrity=complete events=13 sequenced_events=13 unsequenced_events=0 "
    "sequence_gaps=0 missing_sequence_events=0 sequence_regressions=0 start_events=1 stop_events=1 "
    "unbalanced_events=0 first_sequence=1 last_sequence=13 start_sequence=1 stop_sequence=13",
    "memtrace layer=backing sort=retained events=13 allocations=3 frees=2 live_allocations=1 "
    "allocated_bytes=6000 freed_bytes=3000 live_bytes=3000 high_water_live_bytes=6000",
    "memtrace retained_bytes=3000 high_water_retained_bytes=6000",
    "memtrace lifetimes completed=2 total_events=9 mean_events=4 max_events=7 total_byte_events=9500 "
    "mean_byte_events=4750 max_byte_events=7000",
    "root/load retained_bytes=3000 high_water_retained_bytes=4000 live_bytes=3000 high_water_live_bytes=4000 "
    "allocated_bytes=4000 freed_bytes=1000 allocations=2 frees=1 live_allocations=1 completed_lifetimes=1 "
    "lifetime_total_events=7 lifetime_mean_events=7 lifetime_max_events=7 lifetime_total_byte_events=7000 "
    "lifetime_mean_byte_events=7000 lifetime_max_byte_events=7000",
    "root/step retained_bytes=0 high_water_retained_bytes=2000 live_bytes=0 high_water_live_bytes=2000 "
    "allocated_bytes=2000 freed_bytes=2000 allocations=1 frees=1 live_allocations=0 completed_lifetimes=1 "
    "lifetime_total_events=2 lifetime_mean_events=2 lifetime_max_events=2 lifetime_total_byte_events=2500 "
    "lifetime_mean_byte_events=2500 lifetime_max_byte_events=2500",
]


def run(*args, stdin=None):
    return subprocess.run([str(RAMWATCH), "trace", *map(str, args)], input=stdin, capture_output=True,
                          text=True, timeout=120)


def summary(*args, stdin=None):
    p = run("summary", *args, stdin=stdin)
    assert p.returncode == 0, p.stderr
    assert p.stderr == ""
    return p.stdout.splitlines()


def rows(lines, prefix=None):
    """The first word of each row line (not the memtrace lines)."""
    return [l.split(" ")[0] if prefix is None else l.split(" ")[1] for l in lines
            if not l.startswith("memtrace ") and (prefix is None or l.startswith(prefix + " "))]


def test_text_summary():
    assert summary(DATA / "phases.jsonl") == PHASES_TEXT


def test_standard_input_gives_the_same_summary():
    text = (DATA / "phases.jsonl").read_text()
    assert summary("-", stdin=text) == PHASES_TEXT


def test_sites_in_each_sort():
    lines = summary("--sites", DATA / "phases.jsonl")
    assert [l.split(" ")[1] for l in lines if l.startswith("site ")] == [
        "return_address=0x401040", "return_address=0x401000"]
    assert ("site return_address=0x401000 retained_bytes=0 high_water_retained_bytes=3000 live_bytes=0 "
            "high_water_live_bytes=3000 allocated_bytes=3000 freed_bytes=3000 allocations=2 frees=2 "
            "live_allocations=0 completed_lifetimes=2 lifetime_total_events=9 lifetime_mean_events=4 "
            "lifetime_max_events=7 lifetime_total_byte_events=9500 lifetime_mean_byte_events=4750 "
            "lifetime_max_byte_events=7000") in lines
    # traffic: both sites allocated 3000; two allocations beat one
    lines = summary("--sites", "--sort", "traffic", DATA / "phases.jsonl")
    assert lines[1].startswith("memtrace layer=backing sort=traffic ")
    assert rows(lines, "site") == ["return_address=0x401000", "return_address=0x401040"]
    assert rows(lines)[:2] == ["root/load", "root/step"]
    lines = summary("--sites", "--sort", "lifetime", DATA / "phases.jsonl")
    assert rows(lines, "site") == ["return_address=0x401000", "return_address=0x401040"]


def test_top_min_bytes_and_zero_live(tmp_path):
    trace = tmp_path / "t.jsonl"
    trace.write_text('{"kind":"scope.enter","scope_id":1,"scope":"idle"}\n'
                     '{"kind":"alloc","address":16,"len":100,"scope":"small"}\n'
                     '{"kind":"alloc","address":32,"len":5000,"scope":"big"}\n')
    assert rows(summary(trace)) == ["big", "small"]
    assert rows(summary("--top", "1", trace)) == ["big"]
    assert rows(summary("--top", "0", trace)) == []
    assert rows(summary("--min-bytes", "101", trace)) == ["big"]
    assert rows(summary("--min-bytes", "4.5K", trace)) == ["big"]  # 4608 bytes
    assert rows(summary("--min-bytes", "5k", trace)) == []
    assert rows(summary("--include-zero-live", trace)) == ["big", "small", "idle"]


def test_site_detail():
    lines = summary("--site", "0x401000", DATA / "phases.jsonl")
    at = lines.index("site_detail return_address=0x401000")
    # the grown allocation moved from size 500 to 2000; 1000 stayed
    detail = lines[at + 1:]
    assert [l.split(" ")[1] for l in detail if l.startswith("site_size ")] == ["len=2000", "len=1000", "len=500"]
    assert [l.split(" ")[1] for l in detail if l.startswith("site_scope ")] == [
        'scope="root/step"', 'scope="root/load"']
    # decimal means the same address
    assert summary("--site", "4198400", DATA / "phases.jsonl") == lines
    assert not any(l.startswith("site return_address") for l in lines)


def test_json_lines():
    out = [json.loads(l) for l in summary("--json", "--sites", "--site", "0x401040", DATA / "phases.jsonl")]
    assert [o["kind"] for o in out] == ["summary", "scope", "scope", "site", "site", "site_detail", "site_size",
                                        "site_scope"]
    s = out[0]
    assert list(s)[:9] == ["kind", "layer", "sort", "events", "allocations", "frees", "resizes", "remaps",
                           "allocated_bytes"]
    assert s["layer"] == "backing" and s["sort"] == "retained"
    assert (s["events"], s["allocations"], s["frees"], s["resizes"]) == (13, 3, 2, 1)
    assert (s["live_bytes"], s["retained_bytes"], s["high_water_retained_bytes"]) == (3000, 3000, 6000)
    assert s["lifetime_total_byte_events"] == 9500
    assert list(s)[-1] == "capture_integrity"
    ci = s["capture_integrity"]
    assert ci["method"] == "memtrace_event_sequence_and_lifecycle_v1"
    assert (ci["status"], ci["action"], ci["message"]) == ("complete", "none", None)
    assert (ci["first_sequence"], ci["last_sequence"], ci["start_sequence"], ci["stop_sequence"]) == (1, 13, 1, 13)
    assert len(ci["limits"]) == 2
    assert [o["scope"] for o in out if o["kind"] == "scope"] == ["root/load", "root/step"]
    assert [o["return_address"] for o in out if o["kind"] == "site"] == [0x401040, 0x401000]
    assert out[5] == {"kind": "site_detail", "sort": "retained", "return_address": 0x401040}
    assert out[6]["len"] == 3000 and out[6]["live_bytes"] == 3000
    assert out[7]["scope"] == "root/load"


def test_layers():
    lines = summary("--layer", "logical", DATA / "layers.jsonl")
    assert lines[1].startswith("memtrace layer=logical sort=retained events=14 allocations=2 frees=0 "
                               "open_requests=1 requested_bytes=320 ")
    assert lines[2] == ("memtrace lifecycle_coverage=complete instrumented_producers=1 uninstrumented_producers=0 "
                        "lifecycle_not_required_producers=0 prefix_complete_producers=1 prefix_partial_producers=0 "
                        "lifecycle_events=1")
    assert any(l.startswith("root/cache open_request_bytes=64 high_water_open_request_bytes=320 ") for l in lines)
    lines = summary("--layer", "physical", DATA / "layers.jsonl")
    assert ("memtrace physical maps=2 unmaps=2 protects=0 discards=1 decommits=0 advises=0 mapped_bytes=73728 "
            "unmapped_bytes=12288 displaced_bytes=8192 untracked_unmap_bytes=4096 live_mapped_bytes=57344 "
            "high_water_mapped_bytes=65536 live_ranges=4") in lines
    assert "memtrace physical_failures maps=0 unmaps=0 protects=1 discards=0 decommits=0 advises=0" in lines
    phys = json.loads(summary("--layer", "physical", "--json", DATA / "layers.jsonl")[0])["physical"]
    assert (phys["live_ranges"], phys["displaced_bytes"], phys["failed_protects"]) == (4, 8192, 1)
    lines = summary(DATA / "layers.jsonl")
    assert lines[1].startswith("memtrace layer=backing sort=retained events=14 allocations=1 ")
    assert not any(l.startswith("memtrace physical") for l in lines)


def test_escapes_and_big_numbers():
    lines = summary(DATA / "escapes.jsonl")
    assert lines[0].startswith("memtrace capture_integrity=missing_sequence_metadata events=4 ")
    assert lines[1].startswith("memtrace capture caveat=missing_sequence_metadata "
                               "action=recapture_with_sequence_metadata message=")
    assert ("root/\u00e9t\u00e9 \"quoted\"\ttab retained_bytes=9223372036854775808 "
            "high_water_retained_bytes=9223372036854775808 ") in "\n".join(lines)
    out = [json.loads(l) for l in summary("--json", DATA / "escapes.jsonl")]
    assert out[1]["scope"] == 'root/\u00e9t\u00e9 "quoted"\ttab'
    assert out[1]["live_bytes"] == 2**63
    assert out[0]["allocated_bytes"] == 2**63 + 10


def test_numbers_at_and_past_2_64(tmp_path):
    trace = tmp_path / "t.jsonl"
    trace.write_text('{"kind":"alloc","address":1,"len":18446744073709551615}\n'
                     '{"kind":"alloc","address":2,"len":18446744073709551615}\n')
    s = json.loads(summary("--json", trace)[0])
    # sums stop at 2^64-1 rather than wrapping
    assert s["allocated_bytes"] == 2**64 - 1 and s["live_allocations"] == 2
    trace.write_text('{"kind":"alloc","address":1,"len":1}\n{"kind":"alloc","address":18446744073709551616}\n')
    p = run("summary", trace)
    assert p.returncode == 1
    assert p.stderr == (f"ramwatch: {trace}: line 2: field \"address\" is larger than 18446744073709551615\n")
    assert p.stdout == ""


def test_integrity_caveat(tmp_path):
    trace = tmp_path / "t.jsonl"
    trace.write_text('{"seq":1,"kind":"trace.start"}\n{"seq":2,"kind":"alloc","len":1}\n'
                     '{"seq":4,"kind":"free","address":99}\n{"seq":5,"kind":"trace.stop"}\n')
    lines = summary(trace)
    assert lines[0].startswith("memtrace capture_integrity=sequence_gaps events=4 sequenced_events=4 "
                               "unsequenced_events=0 sequence_gaps=1 missing_sequence_events=1 ")
    assert lines[1] == ('memtrace capture caveat=sequence_gaps action=inspect_recorder_capacity_or_writer_failures '
                        'message="memtrace sequence has gaps; treat the summary as partial evidence"')
    assert "memtrace anomalies failed_allocations=0 failed_resizes=0 failed_remaps=0 unmatched_frees=1 " \
           "unmatched_resizes=0 unmatched_remaps=0" in lines
    # an empty trace is a summary too, with its verdict (exit 0)
    trace.write_text("")
    assert summary(trace)[0].startswith("memtrace capture_integrity=no_events events=0 ")


def test_invalid_events_name_their_line():
    p = run("summary", DATA / "bad-kind.jsonl")
    assert p.returncode == 1
    assert p.stdout == ""
    assert p.stderr == f'ramwatch: {DATA / "bad-kind.jsonl"}: line 4: unknown kind "allok"\n'
    p = run("summary", "-", stdin=(DATA / "undefined-scope.jsonl").read_text())
    assert p.returncode == 1
    assert p.stderr == ("ramwatch: standard input: line 2: scope_id 9 is used before a scope.enter "
                        "gives it a path\n")


def test_line_too_long(tmp_path):
    trace = tmp_path / "t.jsonl"
    # 65536 bytes with the newline, as the reference's 64 KiB line buffer
    # holds them; a last line without one may fill it alone
    pad = "x" * (65535 - len('{"kind":"free","p":""}'))
    trace.write_text('{"kind":"free","p":"%s"}\n{"kind":"free","p":"%sy"}\n' % (pad, pad))
    p = run("summary", trace)
    assert p.returncode == 1
    assert p.stderr == f"ramwatch: {trace}: line 2: line is longer than 65536 bytes\n"
    trace.write_text('{"kind":"free","p":"%s"}\n{"kind":"free","p":"%sy"}' % (pad, pad))
    assert summary(trace)[0].startswith("memtrace capture_integrity=missing_sequence_metadata events=2 ")
    trace.write_text('{"kind":"free","p":"%s"}\n{"kind":"free","p":"%syy"}' % (pad, pad))
    p = run("summary", trace)
    assert p.returncode == 1
    assert p.stderr == f"ramwatch: {trace}: line 2: line is longer than 65536 bytes\n"


def test_unreadable_input(tmp_path):
    p = run("summary", tmp_path / "missing.jsonl")
    assert p.returncode == 1
    assert "cannot open" in p.stderr and "No such file or directory" in p.stderr
    p = run("summary", tmp_path)
    assert p.returncode == 1
    assert p.stderr == f"ramwatch: cannot read {tmp_path}: Is a directory\n"


@pytest.mark.parametrize("args, message", [
    ([], "give one trace file"),
    (["a", "b"], "give one trace file"),
    (["--layer", "gpu", "f"], "--layer takes backing, logical or physical, not 'gpu'"),
    (["--sort", "size", "f"], "--sort takes retained, traffic or lifetime, not 'size'"),
    (["--top", "-1", "f"], "--top takes a number, not '-1'"),
    (["--min-bytes", "1.5", "f"], "--min-bytes takes a size (4096, 64K, 1.5M), not '1.5'"),
    (["--min-bytes", "-1", "f"], "--min-bytes takes a size (4096, 64K, 1.5M), not '-1'"),
    (["--site", "0xzz", "f"], "--site takes a return address (0x... or decimal), not '0xzz'"),
    (["--frobnicate", "f"], "bad option"),
])
def test_bad_arguments(args, message):
    p = run("summary", *args)
    assert p.returncode == 2
    assert message in p.stderr
    assert "Try 'ramwatch trace summary --help'." in p.stderr
    assert p.stdout == ""


def test_sub_commands_and_help():
    p = run()
    assert p.returncode == 2 and "give a sub-command: summary" in p.stderr
    p = run("replay")
    assert p.returncode == 2 and "unknown sub-command 'replay'" in p.stderr
    for args in (["--help"], ["summary", "--help"]):
        p = run(*args)
        assert p.returncode == 0
        assert p.stdout.startswith("Usage: ramwatch trace summary")
        assert "--symbols BINARY" in p.stdout
    p = subprocess.run([str(RAMWATCH), "--help"], capture_output=True, text=True)
    assert "trace" in p.stdout and "replay an allocation event trace" in p.stdout


@pytest.fixture(scope="module")
def program(tmp_path_factory):
    if not shutil.which("gcc"):
        pytest.skip("gcc is needed to build a program with debug information")
    d = tmp_path_factory.mktemp("prog")
    src = d / "holder.c"
    src.write_text("#include <stdlib.h>\n"
                   "#include <string.h>\n"
                   "\n"
                   "__attribute__((noinline)) char *make_buffer(size_t n)\n"
                   "{\n"
                   "\tchar *p = malloc(n);\n"
                   "\tmemset(p, 1, n);\n"
                   "\treturn p;\n"
                   "}\n"
                   "\n"
                   "int main(void)\n"
                   "{\n"
                   "\tfree(make_buffer(100));\n"
                   "\treturn 0;\n"
                   "}\n")
    exe = d / "holder"
    subprocess.run(["gcc", "-g", "-O0", "-o", str(exe), str(src)], check=True)
    nm = subprocess.run(["nm", str(exe)], capture_output=True, text=True, check=True).stdout
    make_buffer = next(int(l.split()[0], 16) for l in nm.splitlines() if l.endswith(" make_buffer"))
    main = next(int(l.split()[0], 16) for l in nm.splitlines() if l.endswith(" main"))
    return src, exe, make_buffer, main


def test_symbols(tmp_path, program):
    src, exe, make_buffer, main = program
    # line 6 starts 12 bytes into make_buffer; a return address names the
    # byte before it, so make_buffer + 13 is on line 6
    trace = tmp_path / "t.jsonl"
    trace.write_text('{"kind":"alloc","address":16,"len":100,"return_address":%d}\n'
                     '{"kind":"alloc","address":32,"len":50,"return_address":%d}\n'
                     '{"kind":"alloc","address":48,"len":10,"return_address":%d}\n'
                     % (make_buffer + 13, main + 8, 0x7fffffff0000))
    lines = summary("--sites", "--symbols", exe, trace)
    sites = [l for l in lines if l.startswith("site ")]
    assert sites[0].startswith('site return_address=%#x symbol="make_buffer" location="%s:6" retained_bytes=100 '
                               % (make_buffer + 13, src))
    assert sites[1].startswith('site return_address=%#x symbol="main" location="%s:' % (main + 8, src))
    # an address in no function of the binary stays a bare address
    assert sites[2].startswith("site return_address=0x7fffffff0000 retained_bytes=10 ")
    out = [json.loads(l) for l in summary("--json", "--sites", "--symbols", exe, trace)]
    site = [o for o in out if o["kind"] == "site"][0]
    assert list(site)[:5] == ["kind", "sort", "return_address", "symbol", "location"]
    assert (site["symbol"], site["location"]) == ("make_buffer", f"{src}:6")


def test_symbols_from_a_file_that_is_not_a_binary(tmp_path):
    p = run("summary", "--sites", "--symbols", DATA / "phases.jsonl", DATA / "phases.jsonl")
    assert p.returncode == 1
    assert p.stderr.startswith(f"ramwatch: cannot read symbols from {DATA / 'phases.jsonl'}: ")
    assert p.stdout == ""


def generated_trace(n, seed=7):
    """A trace of n events of every kind and layer, in a fixed random mix."""
    import random
    rnd = random.Random(seed)
    live, lines, seq = [], [], 0
    layers = ["backing_boundary", "logical_allocator", "physical_page"]

    def emit(**fields):
        nonlocal seq
        seq += 1
        lines.append(json.dumps({"v": 3, "seq": seq, **fields}, separators=(",", ":")))

    emit(kind="trace.start")
    for i in range(1, 9):
        emit(kind="scope.enter", scope_id=i, scope=f"root/s{i}")
    emit(kind="allocator", allocator_id=2, retains_freed_memory=True, layer="logical_allocator")
    while seq < n:
        r = rnd.random()
        layer = rnd.choice(layers)
        common = {"layer": layer, "scope_id": rnd.randint(0, 8), "allocator_id": rnd.choice([0, 2]),
                  "return_address": 0x400000 + 64 * rnd.randint(0, 40)}
        if live and r < 0.35:
            a = live.pop(rnd.randrange(len(live)))
            emit(kind=rnd.choice(["free", "free", "release"]), address=a, **common)
        elif live and r < 0.5:
            emit(kind="resize", address=rnd.choice(live), len=rnd.randint(1, 1 << 20), **common)
        elif live and r < 0.55:
            old = live.pop(rnd.randrange(len(live)))
            new = rnd.randint(1, 1 << 40) * 16
            live.append(new)
            emit(kind="remap", old_address=old, address=new, len=rnd.randint(1, 4096),
                 tracked=rnd.random() < 0.9, **common)
        elif r < 0.62:
            emit(kind=rnd.choice(["map", "unmap"]), address=4096 * rnd.randint(0, 512),
                 len=4096 * rnd.randint(0, 64), layer="physical_page", succeeded=rnd.random() < 0.95)
        elif r < 0.64:
            emit(kind=rnd.choice(["protect", "discard", "decommit", "advise", "lifecycle", "census"]),
                 layer=layer, succeeded=rnd.random() < 0.8)
        else:
            a = rnd.randint(1, 1 << 40) * 16
            live.append(a)
            emit(kind="alloc", address=a, len=rnd.randint(1, 1 << 16), succeeded=rnd.random() < 0.97,
                 tracked=rnd.random() < 0.97, **common)
    return lines


def test_general_parser_gives_the_same_summaries(tmp_path):
    """Every line read by the general parser (a key written with an escape,
    which the fast parser leaves to it) gives the same summaries, in every
    layer and sort, as the same trace read by the fast one."""
    lines = generated_trace(30000)
    plain, escaped = tmp_path / "plain.jsonl", tmp_path / "escaped.jsonl"
    plain.write_text("\n".join(lines) + "\n")
    escaped.write_text("\n".join(l.replace('"kind"', '"\\u006bind"') for l in lines) + "\n")
    for layer in ("backing", "logical", "physical"):
        for sort in ("retained", "traffic", "lifetime"):
            args = ["--layer", layer, "--sort", sort, "--sites", "--site", "0x400040", "--top", "1000",
                    "--include-zero-live"]
            a = summary(*args, plain)
            assert a == summary(*args, escaped)
            assert len(a) > 20
            assert summary("--json", *args, plain) == summary("--json", *args, escaped)
