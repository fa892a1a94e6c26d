"""ramwatch scan, summary and diff as a user runs them: arguments, outputs,
saved censuses, and a clear error for every bad input."""
import json
import os
import subprocess
import sys

import pytest

from conftest import DATA, MiB, run

SMAPS = os.path.join(DATA, "smaps")
BAD = os.path.join(DATA, "smaps-bad")


@pytest.mark.parametrize("args", [
    [], ["nosuch"], ["scan", "abc"], ["scan", "1", "--name", "x"], ["scan", "--status", "x"],
    ["scan", "--top", "0"], ["scan", "--top", "100001"], ["scan", "--bogus"], ["scan", "1", "2"],
    ["summary"], ["diff", "a.json"], ["scan", "--smaps", "x", "1"],
])
def test_usage_errors_exit_2(args):
    r = run(*args)
    assert r.returncode == 2, r
    assert "ramwatch:" in r.stderr or "Usage" in r.stderr


@pytest.mark.parametrize("args,said", [
    (["scan", "-5"], "ramwatch scan: invalid option -- '5'"),
    (["history", "--pid"], "ramwatch history: option '--pid' requires an argument"),
    (["trace", "summary", "--bogus"], "ramwatch trace summary: unrecognized option '--bogus'"),
])
def test_option_errors_name_the_command(args, said):
    r = run(*args)
    assert r.returncode == 2, r
    assert r.stderr.startswith(said + "\n"), r.stderr
    assert "Try 'ramwatch " + " ".join(a for a in args if not a.startswith("-")) + " --help'." in r.stderr


def test_help_and_version():
    assert "scan" in run("--help", check=0).stdout
    assert "--smaps FILE" in run("scan", "--help", check=0).stdout
    assert run("--version", check=0).stdout.startswith("ramwatch ")


def test_no_such_process():
    r = run("scan", "4194000", check=1)
    assert "no process 4194000" in r.stderr


def test_kernel_thread():
    r = run("scan", "2", check=1)
    assert "kernel thread" in r.stderr


def test_saved_smaps_table():
    r = run("scan", "--smaps", os.path.join(SMAPS, "java17-g1.smaps"), "--status",
            os.path.join(SMAPS, "java17-g1.status"), check=0)
    first = r.stdout.splitlines()[0]
    assert first.startswith("java (saved: ")
    assert "private 82.2 MiB" in first
    assert "runtime_heap" in r.stdout and "jvm_heap" in r.stdout
    assert "Mapped files and libraries" in r.stdout


def test_json_fields():
    c = json.loads(run("scan", "--smaps", os.path.join(SMAPS, "python3-threads.smaps"), "--status",
                       os.path.join(SMAPS, "python3-threads.status"), "--json", check=0).stdout)
    assert c["format"] == "ramwatch-census" and c["version"] == 1
    for key in ("pid", "start_time", "comm", "cmdline", "exe", "uid"):
        assert key in c["process"]
    assert c["process"]["pid"] is None and c["process"]["exe"] is None  # unknown, not invented
    assert c["process"]["comm"] == "python3"
    for key in ("private", "resident", "swap", "peak_resident"):
        assert isinstance(c["counters"][key], int)
    for key in ("private", "resident", "pss", "swap", "size", "regions"):
        assert isinstance(c["totals"][key], int)
    for key in ("wall_us", "cpu_us", "bytes_read"):
        assert key in c["cost"]
    assert c["cost"]["wall_us"] is None and c["cost"]["bytes_read"] > 0
    # classes: every field, sums equal to the totals, largest private first
    for key in ("private", "resident", "pss", "swap", "size", "count"):
        assert sum(k[key] for k in c["classes"]) == c["totals"][key if key != "count" else "regions"]
    assert [k["private"] for k in c["classes"]] == sorted((k["private"] for k in c["classes"]), reverse=True)
    assert c["classes"][0]["key"] == "python"
    r = c["largest"][0]
    assert set(r) >= {"start", "end", "class", "why", "private", "resident", "size", "path"}
    assert r["start"].startswith("0x") and r["class"] == "python" and r["why"]
    assert all(f["kind"] in ("image", "data", "shared") for f in c["files"])
    assert "regions" not in c


def test_json_regions_and_top():
    c = json.loads(run("scan", "--smaps", os.path.join(SMAPS, "node20.smaps"), "--json", "--regions",
                       "--top", "3", check=0).stdout)
    assert len(c["largest"]) == 3
    assert len(c["regions"]) == c["totals"]["regions"] == 104
    assert sum(r["private"] for r in c["regions"]) == c["totals"]["private"]


def test_markdown():
    out = run("scan", "--smaps", os.path.join(SMAPS, "bash.smaps"), "--markdown", check=0).stdout
    assert out.startswith("## Memory of ")
    assert "| CLASS | PRIVATE | SHARE |" in out
    assert "|---|---:|---:|" in out


def test_stdin():
    with open(os.path.join(SMAPS, "bash.smaps")) as f:
        text = f.read()
    c = json.loads(run("scan", "--smaps", "-", "--json", stdin=text, check=0).stdout)
    assert c["totals"]["regions"] == 44 and c["source"] == "-"


@pytest.mark.parametrize("name, words", [
    ("truncated.smaps", "line 27: Size: not a number"),
    ("bad-number.smaps", "line 6: Pss: expected a size in kB"),
    ("garbage.smaps", "line 1: neither a region header nor a field"),
    ("repeated-region.smaps", "line 26: region overlaps"),
    ("empty.smaps", "no regions"),
])
def test_malformed_files(name, words):
    path = os.path.join(BAD, name)
    r = run("scan", "--smaps", path, check=1)
    assert words in r.stderr and path in r.stderr
    assert r.stdout == ""


def test_huge_line(tmp_path):
    path = tmp_path / "huge.smaps"
    path.write_text("1000-2000 rw-p 00000000 00:00 0 /" + "a" * 70000 + "\nRss: 4 kB\n")
    r = run("scan", "--smaps", path, check=1)
    assert "line 1: longer than 65536 bytes" in r.stderr


def test_missing_files():
    r = run("scan", "--smaps", "/nonexistent/smaps", check=1)
    assert "/nonexistent/smaps: No such file or directory" in r.stderr
    r = run("scan", "--smaps", os.path.join(SMAPS, "bash.smaps"), "--status", os.path.join(SMAPS, "bash.smaps"),
            check=1)
    assert "not a /proc/PID/status file" in r.stderr


def test_out_summary_diff(tmp_path):
    a, b = tmp_path / "a.json", tmp_path / "b.json"
    table = run("scan", "--smaps", os.path.join(SMAPS, "bash.smaps"), "--out", a, check=0).stdout
    run("scan", "--smaps", os.path.join(SMAPS, "python3-threads.smaps"), "--out", b, check=0)
    saved = json.loads(a.read_text())
    assert len(saved["regions"]) == 44  # --out keeps every region
    # summary renders the saved census as scan did
    assert run("summary", a, check=0).stdout == table
    assert "Every region" in run("summary", a, "--regions", check=0).stdout
    assert json.loads(run("summary", a, "--json", check=0).stdout)["totals"] == saved["totals"]
    out = run("diff", a, b, check=0).stdout
    lines = out.splitlines()
    i = lines.index("Change by class, largest first")
    assert lines[i + 2].startswith("python ") and "+29.8 MiB" in lines[i + 2]
    assert any(line.startswith("total ") for line in lines)
    assert "## Memory change:" in run("diff", a, b, "--markdown", check=0).stdout


def test_summary_refuses_what_is_not_a_census(tmp_path):
    p = tmp_path / "x.json"
    p.write_text('{"hello": 1}')
    r = run("summary", p, check=1)
    assert "not a ramwatch census" in r.stderr
    p.write_text("{nope")
    assert "not valid JSON (line 1" in run("summary", p, check=1).stderr
    c = json.loads(run("scan", "--smaps", os.path.join(SMAPS, "bash.smaps"), "--json", check=0).stdout)
    c["classes"][0]["private"] = "lots"
    p.write_text(json.dumps(c))
    assert "classes[0].private: expected a non-negative integer" in run("summary", p, check=1).stderr
    r = run("summary", p.parent / "missing.json", check=1)
    assert "No such file or directory" in r.stderr
    # a census without regions cannot list them
    c = json.loads(run("scan", "--smaps", os.path.join(SMAPS, "bash.smaps"), "--json", check=0).stdout)
    p.write_text(json.dumps(c))
    assert "holds no region list" in run("summary", p, "--regions", check=1).stderr


def test_out_to_unwritable_place():
    r = run("scan", "--smaps", os.path.join(SMAPS, "bash.smaps"), "--out", "/nonexistent/dir/x.json", check=1)
    assert "cannot save the census to /nonexistent/dir/x.json" in r.stderr


def _largest_rss_anon():
    largest = 0
    for d in os.listdir("/proc"):
        if not d.isdigit():
            continue
        try:
            with open(f"/proc/{d}/status") as f:
                for line in f:
                    if line.startswith("RssAnon:"):
                        largest = max(largest, int(line.split()[1]) * 1024)
        except OSError:
            pass
    return largest


def test_default_scans_largest():
    """Without a pid: the process with the most private memory that can be
    read.  A child holding clearly more than any other process must be the
    one chosen (this test's own process may be the largest otherwise)."""
    size = max(_largest_rss_anon() + (64 << 20), 128 << 20)
    child = subprocess.Popen([sys.executable, "-c",
                              "import sys; b = b'x' * %d; print('ready', flush=True); sys.stdin.read()" % size],
                             stdin=subprocess.PIPE, stdout=subprocess.PIPE, text=True)
    try:
        assert child.stdout.readline().startswith("ready")
        r = run("scan", "--json", check=0)
        c = json.loads(r.stdout)
        assert c["process"]["pid"] == child.pid
        assert c["counters"]["private"] >= size
    finally:
        child.kill()
        child.wait()


def test_name_pattern(tmp_path):
    p = subprocess.Popen(["sleep", "300"])
    try:
        c = json.loads(run("scan", "--name", "sleep", "--json", check=0).stdout)
        assert c["process"]["comm"] == "sleep"
        c = json.loads(run("scan", "--name", "*sleep 300*", "--json", check=0).stdout)
        assert c["process"]["cmdline"].startswith("sleep")
        r = run("scan", "--name", "no-such-program-here", check=1)
        assert "no process matching 'no-such-program-here'" in r.stderr
    finally:
        p.kill()
        p.wait()


def test_large_census_cost_is_reported(tmp_path):
    from conftest import HELPERS
    p = subprocess.Popen([os.path.join(HELPERS, "many-maps"), "5000"], stdout=subprocess.PIPE, text=True)
    try:
        assert p.stdout.readline().startswith("ready")
        c = json.loads(run("scan", p.pid, "--json", check=0).stdout)
        assert c["totals"]["regions"] >= 5000
        assert c["cost"]["wall_us"] > 0 and c["cost"]["cpu_us"] > 0
        assert c["cost"]["bytes_read"] > 5000 * 500
        assert c["totals"]["private"] >= 5000 * 4096 // 2 * 2 - 1 * MiB
    finally:
        p.kill()
        p.wait()
