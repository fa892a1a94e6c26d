"""A census survives the store whole.  A real daemon takes a census of real
processes (the "scan" op answers with the census it took, and stores it);
every path that reads it back (the census, report and history answers of
the control socket; ramwatch report, history, summary and diff) must give
the census taken, field by field and class by class.  The few fields the
store does not keep are listed below, must read back as unknown (null),
never as 0, and are the ones ramwatch-schema(7) lists under NOT STORED.

The targets: a Python interpreter holding small objects in its arenas and
three threads (its classes are confirmed by evidence: the report once gave
the total's share confirmed as 0.0 % where the census said 99 %), and the
shapes helper (locked memory, mapped files, shared memory)."""
import json
import os
import re
import shutil
import subprocess
import tempfile
import textwrap
import time

import pytest

from conftest import MiB, run, start_shapes, stop
from rwdaemon import Daemon, fast_config

MAN = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..", "man", "ramwatch-schema.7")

# What the store does not keep of a census, by its path in the census JSON
# ("[]": every element of a list).  The stored census says null there.
NOT_STORED = {
    "source": "where the census was read from: /proc/PID/smaps of the process stored",
    "largest[].inode": "the inode of a region's file",
}

# What the census answer adds to a census: which stored census it is.
STORED_ONLY = {"census_id", "trigger", "status", "repeats"}

PYTHON = textwrap.dedent("""
    import sys, threading
    keep = [str(i) * 8 for i in range(300000)]      # small objects: pymalloc arenas
    ev = threading.Event()
    for _ in range(3):
        threading.Thread(target=ev.wait, daemon=True).start()
    print("ready", flush=True)
    for line in sys.stdin:                           # "grow": 20000 objects more
        keep += [str(i) * 8 for i in range(20000)]
        print("grown", flush=True)
""")


@pytest.fixture
def sockdir():
    d = tempfile.mkdtemp(prefix="rw-store-", dir="/tmp")
    os.chmod(d, 0o755)
    yield d
    shutil.rmtree(d, ignore_errors=True)


@pytest.fixture
def python_target():
    p = subprocess.Popen(["/usr/bin/python3", "-c", PYTHON], stdin=subprocess.PIPE, stdout=subprocess.PIPE,
                         text=True)
    assert p.stdout.readline().strip() == "ready"
    yield p
    p.kill()
    p.wait()


@pytest.fixture
def watched(tmp_path, sockdir, python_target, daemons):
    """A daemon watching the Python process and the shapes helper, each
    seen and given its first census."""
    shapes = start_shapes(tmp_path)
    sock = os.path.join(sockdir, "ramwatch.sock")
    (tmp_path / "d").mkdir()
    d = daemons(tmp_path / "d", fast_config(f"Watch=pid:{python_target.pid} pid:{shapes.pid}"), socket=sock).start()
    for pid in (python_target.pid, shapes.pid):
        pid_row = d.process_id(pid)
        d.wait_rows("SELECT id FROM censuses WHERE process_id = ? AND trigger = 'first'", pid_row,
                    what=f"the first census of {pid}")
    yield d, python_target, shapes
    stop(shapes.proc)


def rw(d, *args, check=0):
    return run(*args, "--socket", d.socket, check=check)


def take(d, pid, light=False):
    """A census taken now by the daemon (and stored): the scan answer."""
    a = d.ask({"op": "scan", "pid": pid, "full": not light, "light": light}, timeout=60)
    assert a["ok"], a
    return a["result"]


def answer(d, request):
    a = d.ask(request)
    assert a["ok"], a
    return a["result"]


def stored(d, pid, at):
    return answer(d, {"op": "census", "pid": pid, "at": at})


def wait_stored(d, pid, taken_at):
    d.wait_for(lambda: stored_at(d, pid, taken_at), what=f"the census of {pid} at {taken_at} stored")
    return stored(d, pid, taken_at)


def stored_at(d, pid, taken_at):
    a = d.ask({"op": "census", "pid": pid, "at": taken_at})
    return a["ok"] and a["result"]["taken_at"] == taken_at


# ---------------------------------------------------------------- comparing


def not_stored(path):
    """Whether path ("largest[3].inode") is one of NOT_STORED's."""
    return re.sub(r"\[\d+\]", "[]", path) in NOT_STORED


def differences(taken, got, path=""):
    """Where the census read back differs from the census taken: a list of
    (path, taken, got).  Classes are matched by key; a field the store does
    not keep must read back as null."""
    out = []
    if not_stored(path):
        if got is not None:
            out.append((path, taken, got))
        return out
    if isinstance(taken, dict) and isinstance(got, dict):
        extra = set(got) - set(taken) - (STORED_ONLY if not path else set())
        for k in sorted(extra):
            out.append((f"{path}.{k}".lstrip("."), "(absent)", got[k]))
        for k in taken:
            sub = f"{path}.{k}".lstrip(".")
            if k not in got:
                out.append((sub, taken[k], "(absent)"))
            else:
                out += differences(taken[k], got[k], sub)
        return out
    if isinstance(taken, list) and isinstance(got, list):
        if path == "classes":
            taken = {c["key"]: c for c in taken}
            got = {c["key"]: c for c in got}
            return differences(taken, got, path)
        if len(taken) != len(got):
            return [(path + ".length", len(taken), len(got))]
        for i, (a, b) in enumerate(zip(taken, got)):
            out += differences(a, b, f"{path}[{i}]")
        return out
    if taken != got or type(taken) is not type(got):
        out.append((path, taken, got))
    return out


def assert_same(taken, got, what):
    diff = differences(taken, got)
    assert not diff, f"{what}: the census read back differs from the census taken:\n" + "\n".join(
        f"  {p}: taken {a!r}, read back {b!r}" for p, a, b in diff)


# ---------------------------------------------------------------- the tests


def test_not_stored_is_documented():
    """Every field the store does not keep is named in ramwatch-schema(7)'s
    NOT STORED section, so a user reading it knows what null means."""
    with open(MAN) as f:
        text = f.read()
    m = re.search(r"^\.Sh NOT STORED\n(.*?)(?=^\.Sh )", text, re.M | re.S)
    assert m, "ramwatch-schema(7) has no NOT STORED section"
    section = m.group(1).replace("\\&", "")
    for path in NOT_STORED:
        assert path.split(".")[-1].replace("[]", "") in section, f"{path} is not stored, and the man page does not say"


def test_census_reads_back_whole(watched, tmp_path):
    d, python, shapes = watched
    for target, light in ((python.pid, False), (shapes.pid, False), (shapes.pid, True)):
        taken = take(d, target, light=light)
        assert taken.get("light", False) is light
        got = wait_stored(d, target, taken["taken_at"])
        assert got["trigger"] == "request" and got["status"] == "ok" and got["repeats"] is None
        assert_same(taken, got, f"the census answer of pid {target}{' (light)' if light else ''}")

    # the Python process: its memory is nearly all confirmed by evidence,
    # and the total says so as each class does
    taken = take(d, python.pid)
    assert taken["totals"]["confirmed"] > 0.9 * taken["totals"]["private"], taken["totals"]
    assert taken["cost"]["threads"] >= 4 and taken["cost"]["stack_pointers"] >= 3, taken["cost"]
    wait_stored(d, python.pid, taken["taken_at"])

    # the report answer's last census is the census answer's; its trend
    # row has the census's totals
    report = answer(d, {"op": "report", "pid": python.pid})
    assert_same(taken, report["last_census"], "the report answer's last census")
    row = next(r for r in report["trend"] if r["census_id"] == report["last_census"]["census_id"])
    assert (row["private"], row["resident"]) == (taken["totals"]["private"], taken["totals"]["resident"])

    # history: the census with its totals and every class's
    t = taken["taken_at"]
    h = answer(d, {"op": "history", "pid": python.pid, "since": t, "until": t})
    (c,) = [c for c in h["censuses"] if c["time"] == t]
    assert (c["private"], c["resident"], c["light"]) == (taken["totals"]["private"], taken["totals"]["resident"],
                                                         False)
    classes = {k["key"]: k for k in taken["classes"]}
    assert set(c["classes"]) == set(classes)
    for key, k in c["classes"].items():
        # the counters history gives (census-counters.h, history yes), each
        # as the census had it, null where it did not know it
        assert {"private", "resident", "size", "count", "in_use", "free", "returnable"} <= set(k), key
        assert k == {f: classes[key][f] for f in k}, key


def section(text, start, end):
    i = text.index(start)
    j = text.index(end, i) if end else len(text)
    return text[i:j]


def test_rendered_report_is_the_census_rendered(watched, tmp_path):
    """ramwatch report renders the stored census as ramwatch summary renders
    the census taken: the same text, the class table's total confirmed
    share included."""
    d, python, shapes = watched
    for target in (python.pid, shapes.pid):
        taken = take(d, target)
        wait_stored(d, target, taken["taken_at"])
        path = tmp_path / f"taken-{target}.json"
        path.write_text(json.dumps(taken))
        expected = run("summary", path, "--markdown", check=0).stdout
        md = rw(d, "report", "--pid", target).stdout
        got = section(md, "## Memory of ", "\n## RAM after each census")
        assert got.rstrip("\n") == expected.rstrip("\n"), f"pid {target}:\n--- report\n{got}\n--- census taken\n{expected}"
        if target == python.pid:
            # (in use and free beside private where a heap walk read them)
            total = re.search(r"^\| total \| [^|]+ \|(?: [^|]+ \| [^|]+ \|)? 100% \| ([\d.]+)% \|", got, re.M)
            assert total and float(total.group(1)) > 90, got


def test_history_and_diff_read_the_census_taken(watched, tmp_path):
    d, python, shapes = watched
    first = take(d, python.pid)
    time.sleep(1.2)
    python.stdin.write("grow\n")
    python.stdin.flush()
    assert python.stdout.readline().strip() == "grown"
    second = take(d, python.pid)
    for c in (first, second):
        wait_stored(d, python.pid, c["taken_at"])

    # ramwatch history --format json and csv: the census's classes
    since, until = f"@{first['taken_at'] / 1000:.3f}", f"@{second['taken_at'] / 1000 + 0.001:.3f}"
    h = json.loads(rw(d, "history", "--pid", python.pid, "--since", since, "--until", until, "--format",
                      "json").stdout)
    for taken in (first, second):
        (c,) = [c for c in h["censuses"] if abs(c["time"] - taken["taken_at"] / 1000) < 0.0005]
        for k in taken["classes"]:
            assert c["classes"][k["key"]]["private"] == k["private"], k["key"]
            assert c["classes"][k["key"]]["resident"] == k["resident"], k["key"]
    csv = rw(d, "history", "--pid", python.pid, "--since", since, "--until", until, "--format", "csv").stdout
    lines = csv.splitlines()
    head = lines[0].split(",")
    for k in second["classes"]:
        (line,) = [l.split(",") for l in lines[1:] if l.split(",")[3:5] == ["class", k["key"]]
                   and abs(float(l.split(",")[0]) - second["taken_at"] / 1000) < 0.0005]
        assert int(line[head.index("private")]) == k["private"], k["key"]
        assert int(line[head.index("resident")]) == k["resident"], k["key"]

    # ramwatch diff of the two stored censuses is the diff of the two taken
    a, b = tmp_path / "a.json", tmp_path / "b.json"
    a.write_text(json.dumps(first))
    b.write_text(json.dumps(second))
    from_files = json.loads(run("diff", a, b, "--format", "json", check=0).stdout)
    at = f"@{first['taken_at'] // 1000 + 1}"
    from_store = json.loads(rw(d, "diff", "--pid", python.pid, "--from", at, "--format", "json").stdout)
    for side in ("from", "to"):
        from_files[side].pop("census_id")
        from_store[side].pop("census_id")
    from_store.pop("regions")
    assert from_store == from_files
    text_files = run("diff", a, b, check=0).stdout
    text_store = rw(d, "diff", "--pid", python.pid, "--from", at).stdout
    assert text_store.split("\n", 1)[1].startswith(text_files), f"{text_store}\n---\n{text_files}"
