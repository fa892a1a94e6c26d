"""Real runtimes holding memory of known kinds: the Python interpreter's
objects, the JVM's heap, V8's heap; and every process on this machine."""
import json
import os
import shutil
import subprocess
import textwrap

import pytest

from conftest import MiB, rollup, run, scan_json, start_java_hold


def start(cmd, **kw):
    p = subprocess.Popen(cmd, stdout=subprocess.PIPE, text=True, **kw)
    line = p.stdout.readline()
    assert line.strip() == "ready", f"{cmd} did not start: {line!r}"
    return p


def classes(census):
    return {c["key"]: c for c in census["classes"]}


def test_python_objects_and_threads():
    code = textwrap.dedent("""
        import sys, threading, time
        keep = [str(i) * 8 for i in range(400000)]      # small objects: pymalloc arenas
        ev = threading.Event()
        for _ in range(3):
            threading.Thread(target=ev.wait, daemon=True).start()
        print("ready", flush=True)
        sys.stdin.read()
    """)
    p = start(["/usr/bin/python3", "-c", code], stdin=subprocess.PIPE)
    try:
        c = scan_json(p.pid, "--regions")
        k = classes(c)
        assert k["python"]["private"] >= 20 * MiB
        # three threads blocked in a system call: their stack pointers are read
        confirmed = [r for r in c["regions"] if r["rule"] == "stack_pointer"]
        assert len(confirmed) >= 3
        assert all(r["class"] == "stacks" for r in confirmed)
        assert sum(x["private"] for x in c["classes"]) == c["totals"]["private"]
    finally:
        p.kill()
        p.wait()


@pytest.mark.skipif(not shutil.which("java"), reason="needs a Java runtime (make deps installs one)")
def test_java_heap(tmp_path):
    p = start_java_hold(tmp_path, 160)
    try:
        c = scan_json(p.pid, "--regions")
        heap = classes(c)["runtime_heap"]
        assert heap["private"] >= 160 * MiB
        # the Java heap, and the class metadata the JVM reserves beside it
        assert all(r["rule"] in ("jvm_heap", "jvm_reserved", "reserve_tail")
                   for r in c["regions"] if r["class"] == "runtime_heap")
        assert sum(r["private"] for r in c["regions"] if r["rule"] == "jvm_heap") >= 160 * MiB
        assert classes(c)["jit"]["count"] >= 1
    finally:
        p.kill()
        p.wait()


@pytest.mark.skipif(not shutil.which("node"), reason="needs node (make deps installs it)")
def test_v8_heap():
    code = textwrap.dedent("""
        const keep = [];
        for (let i = 0; i < 600000; i++) keep.push({ i, s: 'x' + i });
        console.log('ready');
        process.stdin.on('data', () => {});
        setInterval(() => keep.length, 1 << 30);
    """)
    p = start(["node", "-e", code], stdin=subprocess.PIPE)
    try:
        c = scan_json(p.pid, "--regions")
        heap = classes(c)["runtime_heap"]
        assert heap["private"] >= 30 * MiB
        assert all(r["rule"] == "v8_page" for r in c["regions"] if r["class"] == "runtime_heap")
    finally:
        p.kill()
        p.wait()


def test_every_process_on_this_machine():
    """Conservation holds for every process that can be read."""
    scanned = 0
    for name in os.listdir("/proc"):
        if not name.isdigit() or int(name) == os.getpid():
            continue
        r = run("scan", name, "--json")
        if r.returncode != 0:
            assert any(w in r.stderr for w in ("kernel thread", "permission denied", "no process", "exited")), r.stderr
            continue
        c = json.loads(r.stdout)
        for key in ("private", "resident", "pss", "swap", "size"):
            assert sum(k[key] for k in c["classes"]) == c["totals"][key], (name, key)
        assert sum(k["count"] for k in c["classes"]) == c["totals"]["regions"]
        scanned += 1
    assert scanned >= 3
